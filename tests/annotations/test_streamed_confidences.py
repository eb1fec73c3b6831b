"""A model coder's confidences in a streamed CSV (``annotations.ingest``): the ``confidence``
column read as the bulk upload reads it (a number from 0 to 1, a model coder's only), errors
by line and field, written to ``ModelConfidence`` with the labels, in a bounded number of
statements.

These tests run on SQLite (the ORM path) and, with ``DATABASE_URL`` set to PostgreSQL, on
the COPY path: the expectations are the same.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from rest_framework.test import APIClient

from annotations.ingest import annotations_ingest_csv
from studies.access import Actor
from studies.models import (
    Annotation,
    AnnotationChange,
    Coder,
    CoderKind,
    ModelConfidence,
    Study,
)
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url
from tests.factories import CoderFactory
from tests.proportion_sql import plan_rows, statements

pytestmark = pytest.mark.django_db

NOT_A_NUMBER = "The confidence is a number from 0 to 1."


def person_message(coder: str) -> str:
    return (
        f"Only a model coder's label has a confidence; coder {coder!r} is a person "
        "(make it a model coder first, kind model)."
    )


@pytest.fixture
def scheme(study: Study) -> Scheme:
    scheme = build_scheme(study)  # items doc-1, doc-2; people alice, bob
    CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test")
    return scheme


def _ingest(scheme: Scheme, text: str, question: str = "sentiment", **options: Any) -> Any:
    return annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key=question,
        lines=text.splitlines(keepends=True),
        actor=Actor(user=None, token=None),
        **options,
    )


def _confidences() -> list[tuple[str, str, float]]:
    return sorted(
        ModelConfidence.objects.values_list("item__external_id", "coder__key", "confidence")
    )


def _labels() -> list[tuple[str, str, str]]:
    return sorted(
        Annotation.objects.values_list("item__external_id", "coder__key", "category__code")
    )


# The people's rows leave the column blank; the model's give 0.9, 0.25 and 1.
MIXED = (
    "item,coder,label,confidence\n"
    "doc-1,llm,pos,0.9\n"
    "doc-1,alice,neg,\n"
    "doc-2,llm,neg, 0.25 \n"
    "doc-2,bob,neutral,\n"
    "doc-3,llm,pos,1\n"
)
MIXED_CONFIDENCES = [("doc-1", "llm", 0.9), ("doc-2", "llm", 0.25), ("doc-3", "llm", 1.0)]


def test_the_confidences_are_stored_with_the_labels_batch_by_batch(scheme: Scheme) -> None:
    report = _ingest(scheme, MIXED, create_missing=True, batch_size=2)
    assert (report.rows, report.created, report.rejected) == (5, 5, 0)
    assert _confidences() == MIXED_CONFIDENCES
    assert _labels() == [
        ("doc-1", "alice", "neg"),
        ("doc-1", "llm", "pos"),
        ("doc-2", "bob", "neutral"),
        ("doc-2", "llm", "neg"),
        ("doc-3", "llm", "pos"),
    ]


def test_set_and_number_labels_keep_their_confidences(scheme: Scheme) -> None:
    """A set question's rows go to PostgreSQL one by one, a number's laid out in a block;
    one row a batch, so line 3's batch (a person's) gives no confidence at all."""
    topics = (
        "item,coder,label,confidence\n"
        "doc-1,llm,sports|culture,0.75\n"
        "doc-1,alice,politics,\n"
        "doc-2,llm,politics,0.5\n"
    )
    _ingest(scheme, topics, question="topics", batch_size=1)
    ages = "item,coder,label,confidence\ndoc-1,llm,30,0.125\ndoc-2,bob,41,\n"
    _ingest(scheme, ages, question="age", batch_size=1)
    assert sorted(
        ModelConfidence.objects.values_list(
            "question__key", "item__external_id", "coder__key", "confidence"
        )
    ) == [
        ("age", "doc-1", "llm", 0.125),
        ("topics", "doc-1", "llm", 0.75),
        ("topics", "doc-2", "llm", 0.5),
    ]
    assert Annotation.objects.count() == 5


def test_a_new_confidence_replaces_the_old_one_of_the_same_label(scheme: Scheme) -> None:
    """The second file's line 2 gives doc-1's label again with 0.4; doc-2's row, without a
    confidence, leaves 0.25 as it was; the scope holds annotations (the general way)."""
    _ingest(scheme, MIXED, create_missing=True)
    again = "coder,confidence,item,label\nllm,0.4,doc-1,pos\nllm,,doc-2,neg\n"
    report = _ingest(scheme, again)
    assert (report.created, report.updated, report.unchanged) == (0, 0, 2)
    assert _confidences() == [
        ("doc-1", "llm", 0.4),
        ("doc-2", "llm", 0.25),
        ("doc-3", "llm", 1.0),
    ]


BAD_VALUES = (
    "item,coder,label,confidence\n"
    "doc-1,llm,pos,0.9\n"
    "doc-2,llm,neg,1.5\n"
    "doc-1,bob,neg,\n"
    "doc-3,llm,pos,high\n"
    "doc-4,llm,pos,-0.1\n"
    "doc-5,llm,pos,nan\n"
)


def test_a_confidence_that_is_no_number_from_0_to_1_refuses_the_file(scheme: Scheme) -> None:
    with pytest.raises(ValidationError) as raised:
        _ingest(scheme, BAD_VALUES, create_missing=True, batch_size=2)
    assert raised.value.message_dict == {
        "line 3.confidence": [NOT_A_NUMBER],
        "line 5.confidence": [NOT_A_NUMBER],
        "line 6.confidence": [NOT_A_NUMBER],
        "line 7.confidence": [NOT_A_NUMBER],
    }
    assert {e.code for e in raised.value.error_dict["line 3.confidence"]} == {"invalid_confidence"}
    assert not Annotation.objects.exists()
    assert not ModelConfidence.objects.exists()
    assert not AnnotationChange.objects.exists()


def test_a_persons_confidence_refuses_the_file_naming_the_line(scheme: Scheme) -> None:
    """Line 3 gives alice (a person) a confidence; line 5 erin, a coder the ingest would
    create (a person)."""
    text = (
        "item,coder,label,confidence\n"
        "doc-1,llm,pos,0.9\n"
        "doc-1,alice,neg,0.8\n"
        "doc-2,bob,neg,\n"
        "doc-2,erin,neg,0.5\n"
    )
    with pytest.raises(ValidationError) as raised:
        _ingest(scheme, text, create_missing=True)
    assert raised.value.message_dict == {
        "line 3.confidence": [person_message("alice")],
        "line 5.confidence": [person_message("erin")],
    }
    assert {e.code for e in raised.value.error_dict["line 3.confidence"]} == {
        "confidence_of_a_person"
    }
    assert not Annotation.objects.exists()
    assert not ModelConfidence.objects.exists()
    assert not Coder.objects.filter(key="erin").exists()


def test_partial_mode_writes_the_good_rows_confidences_and_reports_the_bad(
    scheme: Scheme,
) -> None:
    """Lines 2, 4 and 9 are good: line 9 gives doc-2 and llm again, but line 3, which gave
    them first, was left out (its confidence 1.5)."""
    text = BAD_VALUES + "doc-1,alice,pos,0.7\n" + "doc-2,llm,pos,0.3\n"
    report = _ingest(scheme, text, create_missing=True, partial=True, batch_size=3)
    assert (report.rows, report.created, report.rejected) == (8, 3, 5)
    invalid = {"field": "confidence", "code": "invalid_confidence", "detail": NOT_A_NUMBER}
    assert report.as_dict()["rejections"] == [
        {"line": 3, **invalid},
        {"line": 5, **invalid},
        {"line": 6, **invalid},
        {"line": 7, **invalid},
        {
            "line": 8,
            "field": "confidence",
            "code": "confidence_of_a_person",
            "detail": person_message("alice"),
        },
    ]
    assert _labels() == [("doc-1", "bob", "neg"), ("doc-1", "llm", "pos"), ("doc-2", "llm", "pos")]
    assert _confidences() == [("doc-1", "llm", 0.9), ("doc-2", "llm", 0.3)]


def test_a_repeated_pair_keeps_the_confidence_of_its_first_line(scheme: Scheme) -> None:
    """Partial: line 4 repeats line 2's item and coder and is left out with its 0.1."""
    text = "item,coder,label,confidence\ndoc-1,llm,pos,0.9\ndoc-2,llm,neg,0.6\ndoc-1,llm,neg,0.1\n"
    report = _ingest(scheme, text, partial=True)
    assert (report.created, report.rejected) == (2, 1)
    assert report.as_dict()["rejections"][0]["line"] == 4
    assert _confidences() == [("doc-1", "llm", 0.9), ("doc-2", "llm", 0.6)]


def test_a_held_label_keeps_its_confidence_once_its_code_is_declared(scheme: Scheme) -> None:
    """``create_categories``: line 2's label "maybe" is held until its batch declares it;
    line 3's is held too, but its confidence 2 leaves it out (as the bulk upload would)."""
    text = "item,coder,label,confidence\ndoc-1,llm,maybe,0.55\ndoc-2,llm,perhaps,2\n"
    report = _ingest(scheme, text, create_categories=True, partial=True)
    assert report.categories_created == ["maybe"]
    assert _labels() == [("doc-1", "llm", "maybe")]
    assert _confidences() == [("doc-1", "llm", 0.55)]
    assert report.as_dict()["rejections"] == [
        {"line": 3, "field": "confidence", "code": "invalid_confidence", "detail": NOT_A_NUMBER}
    ]


# The same file through both paths, and the API ----------------------------------------------


def _upload(client: APIClient, scheme: Scheme, text: str, **query: str) -> Any:
    parameters = "&".join(
        f"{k}={v}" for k, v in {"round": scheme.round.pk, "question": "sentiment", **query}.items()
    )
    return client.post(f"{bulk_url(scheme.study)}?{parameters}", text, content_type="text/csv")


def test_the_same_file_stores_the_same_confidences_through_both_paths(
    scheme: Scheme, annotator_client: APIClient
) -> None:
    bulk = _upload(annotator_client, scheme, MIXED, create_missing="true")
    assert bulk.status_code == 200, bulk.json()
    assert "rows" not in bulk.json()  # the bulk upload's answer: not streamed
    through_bulk = _confidences()
    Annotation.objects.all().delete()
    ModelConfidence.objects.all().delete()
    AnnotationChange.objects.all().delete()
    streamed = _upload(annotator_client, scheme, MIXED, create_missing="true", partial="true")
    assert streamed.status_code == 200, streamed.json()
    assert (streamed.json()["rows"], streamed.json()["rejected"]) == (5, 0)
    assert _confidences() == through_bulk == MIXED_CONFIDENCES


def test_a_streamed_upload_names_the_line_and_field_of_a_bad_confidence(
    scheme: Scheme, annotator_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("annotations.api.parsers.MAX_BULK_ROWS", 3)
    refused = _upload(annotator_client, scheme, BAD_VALUES, create_missing="true")
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {"code": "invalid_confidence", "detail": NOT_A_NUMBER, "attr": f"line {line}.confidence"}
        for line in (3, 5, 6, 7)
    ]
    assert not Annotation.objects.exists()
    assert not ModelConfidence.objects.exists()
    accepted = _upload(annotator_client, scheme, MIXED, create_missing="true")
    assert accepted.status_code == 200, accepted.json()
    assert accepted.json()["rows"] == 5  # streamed: more rows than the (patched) bulk limit
    assert _confidences() == MIXED_CONFIDENCES


def test_the_command_reads_the_confidence_column(scheme: Scheme, tmp_path: Any) -> None:
    path = tmp_path / "model.csv"
    path.write_text(MIXED, encoding="utf-8")
    call_command(
        "annotations_import_csv",
        str(scheme.study.pk),
        scheme.round.name,
        "sentiment",
        str(path),
        "--create-missing",
        stdout=io.StringIO(),
    )
    assert _confidences() == MIXED_CONFIDENCES


# Statements ---------------------------------------------------------------------------------


def model_rows(n: int, *, confidence: bool = True) -> str:
    """``n`` labels of the model, on items doc-0 ... doc-(n-1), each with a confidence."""
    if not confidence:
        return "item,coder,label\n" + "".join(f"doc-{i},llm,pos\n" for i in range(n))
    return "item,coder,label,confidence\n" + "".join(
        f"doc-{i},llm,pos,{(i % 10) / 10}\n" for i in range(n)
    )


def _ingest_and_undo(scheme: Scheme, text: str, confidences: int) -> None:
    report = _ingest(scheme, text, create_missing=True)
    assert report.rejected == 0
    assert ModelConfidence.objects.count() == confidences
    Annotation.objects.all().delete()
    AnnotationChange.objects.all().delete()
    ModelConfidence.objects.all().delete()


def test_confidences_cost_two_statements_whatever_the_rows(scheme: Scheme) -> None:
    """Without the column, then with it: one more read (the study's model coders) and one
    more write (the confidences' upsert: on PostgreSQL an INSERT ... SELECT from the
    temporary table the rows were COPYed into; on SQLite a bulk insert). SQLite splits a
    bulk insert at 999 parameters: 199 confidences (5 columns), 99 annotations (10), 66
    change-log entries (15); the files stay below 66 rows."""
    _ingest_and_undo(scheme, model_rows(60, confidence=False), 0)  # every run finds the items
    sent = {
        (n, confidence): statements(
            lambda n=n, c=confidence: _ingest_and_undo(scheme, model_rows(n, confidence=c), n * c)
        )
        for n in (30, 60)
        for confidence in (False, True)
    }
    assert len(sent[60, False]) == len(sent[30, False])
    assert len(sent[60, True]) == len(sent[30, True]) == len(sent[30, False]) + 2


def test_the_writer_runs_the_same_statements_whatever_the_rows(scheme: Scheme) -> None:
    """PostgreSQL: every statement planned on the connection, the writer thread's included
    (``auto_explain`` sees them all), for one batch of 50 and of 100 rows."""
    _ingest_and_undo(scheme, model_rows(100, confidence=False), 0)  # every run finds the items
    counts = {}
    for n in (50, 100):
        with plan_rows() as planned:
            _ingest_and_undo(scheme, model_rows(n), n)
        counts[n] = len(planned)
    assert counts[100] == counts[50]
