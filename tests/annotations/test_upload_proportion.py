"""Uploads with duplicated rows do work in proportion to their rows (issue 25, finding 2).

A ``partial=true`` CSV of 20,000 copies of one (item, coder) row took 44.6 s on PostgreSQL:
the duplicates were left out by a self-join that paired every copy with every other. Each
test doubles the copies and checks that the work at most doubles: the rows PostgreSQL's plans
handled, or the statements sent and their length. The probe's own file is the last test.

These tests run on SQLite (the ORM path) and, with ``DATABASE_URL`` set to PostgreSQL, on
the COPY path; the rows of the plans are PostgreSQL's only.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError
from rest_framework.test import APIClient

from annotations.ingest import annotations_ingest_csv
from annotations.services import MAX_REPORTED_ERRORS, annotations_bulk_upsert
from studies.access import Actor
from studies.models import Annotation, AnnotationChange, Study
from studies.services.tokens import study_token_create
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url
from tests.proportion_sql import plan_rows, statements

pytestmark = pytest.mark.django_db

HEADER = "item,coder,label\n"


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def copies(n: int) -> str:
    """A CSV of ``n`` copies of one (item, coder) row after one other row."""
    return HEADER + "doc-2,bob,neg\n" + "doc-1,alice,pos\n" * n


def ingest_partial(scheme: Scheme, text: str) -> Any:
    return annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key="sentiment",
        lines=text.splitlines(keepends=True),
        actor=Actor(user=None, token=None),
        partial=True,
    )


def _ingest_and_undo(scheme: Scheme, n: int) -> Any:
    report = ingest_partial(scheme, copies(n))
    assert (report.created, report.rejected) == (2, n - 1)
    Annotation.objects.all().delete()
    AnnotationChange.objects.all().delete()
    return report


@pytest.mark.parametrize("stored_before", [False, True], ids=["fresh", "stored"])
def test_leaving_out_duplicates_handles_rows_in_proportion_to_the_copies(
    scheme: Scheme, stored_before: bool
) -> None:
    # "stored": the scope already holds an annotation, so the ingest checks for duplicates
    # before writing instead of after the unique index refused them.
    work = {}
    for n in (300, 600):
        if stored_before:
            ingest_partial(scheme, HEADER + "doc-2,alice,neutral\n")
        with plan_rows() as rows:
            _ingest_and_undo(scheme, n)
        work[n] = sum(rows)
    # Linear: twice the copies, at most about twice the rows (a self-join: four times).
    assert work[600] <= 2.2 * work[300], work


def test_leaving_out_duplicates_sends_the_same_statements_whatever_the_copies(
    scheme: Scheme,
) -> None:
    sent = {n: statements(lambda n=n: _ingest_and_undo(scheme, n)) for n in (50, 100)}
    assert len(sent[100]) == len(sent[50])
    # The rows travel by COPY (PostgreSQL) or as the two rows kept (SQLite), never in the text.
    assert sum(map(len, sent[100])) <= sum(map(len, sent[50])) + 10 * len(sent[50])


def test_a_bulk_upload_with_duplicated_rows_is_refused_with_the_same_statements(
    scheme: Scheme,
) -> None:
    def upload(n: int) -> None:
        rows = [{"item": "doc-1", "coder": "alice", "label": "pos"}] * n
        with pytest.raises(ValidationError) as raised:
            annotations_bulk_upsert(
                study=scheme.study,
                round_ref=scheme.round.pk,
                question_key="sentiment",
                rows=rows,
                actor=Actor(user=None, token=None),
            )
        errors = raised.value.message_dict
        assert errors["annotations.1"] == [
            "Item 'doc-1' and coder 'alice' already appear in row 0."
        ]
        assert len(errors) == min(n - 1, MAX_REPORTED_ERRORS) + (n - 1 > MAX_REPORTED_ERRORS)

    sent = {n: statements(lambda n=n: upload(n)) for n in (2_000, 4_000)}
    assert len(sent[4_000]) == len(sent[2_000])
    assert sum(map(len, sent[4_000])) == sum(map(len, sent[2_000]))
    assert not Annotation.objects.exists()


# The probe's input -----------------------------------------------------------------------------


def test_twenty_thousand_copies_of_one_row_with_partial_keep_one_and_report_the_rest(
    scheme: Scheme, client_for: Any
) -> None:
    _, secret = study_token_create(study=scheme.study, name="labelling tool")
    client: APIClient = client_for(token_secret=secret)
    text = HEADER + "doc-1,alice,pos\n" * 20_000
    response = client.post(
        f"{bulk_url(scheme.study)}?round={scheme.round.pk}&question=sentiment&partial=true",
        text,
        content_type="text/csv",
    )
    assert response.status_code == 200, response.content[:2000]
    body = response.json()
    assert (body["rows"], body["created"], body["rejected"]) == (20_000, 1, 19_999)
    assert len(body["rejections"]) == MAX_REPORTED_ERRORS
    assert body["rejections"][0] == {
        "line": 3,
        "field": "item",
        "code": "duplicate_row",
        "detail": "Item 'doc-1' and coder 'alice' already appear on line 2.",
    }
    assert body["rejections"][-1]["line"] == MAX_REPORTED_ERRORS + 2
    assert list(
        Annotation.objects.filter(round=scheme.round).values_list(
            "item__external_id", "coder__key", "category__code"
        )
    ) == [("doc-1", "alice", "pos")]
    assert AnnotationChange.objects.count() == 1
