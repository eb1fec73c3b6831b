"""Crowd-scale CSV ingest (``annotations.ingest``): batches with progress, all or nothing
by default, partial with a report on request, errors by 1-based line and field, and the
same annotations and change log as the bulk upload API.

These tests run on SQLite (the ORM path) and, with ``DATABASE_URL`` set to PostgreSQL, on
the COPY path: the expectations are the same.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.ingest import annotations_ingest_csv
from studies.access import Actor
from studies.models import Annotation, AnnotationChange, Coder, Item, Study
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url

pytestmark = pytest.mark.django_db

# The hint of every unknown category: "maybe" is close to no code (studies.closest).
DECLARED = "(declared: 'pos', 'neg', 'neutral')"


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def _ingest(scheme: Scheme, text: str, question: str = "sentiment", **options: Any) -> Any:
    return annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key=question,
        lines=_lines(text),
        actor=Actor(user=None, token=None),
        **options,
    )


def _stored(scheme: Scheme, question: str = "sentiment") -> list[tuple[str, str, Any]]:
    rows = Annotation.objects.filter(round=scheme.round, question__key=question).values_list(
        "item__external_id", "coder__key", "category__code", "number", "category_set"
    )
    return sorted(
        (item, coder, code if code is not None else number if number is not None else tuple(s))
        for item, coder, code, number, s in rows
    )


CROWD = (
    "item,coder,label\n"
    "doc-1,alice,pos\n"
    "doc-1,bob,neg\n"
    "doc-2,alice,neutral\n"
    "doc-3,carol,pos\n"
    "doc-3,dave,pos\n"
)


def test_rows_are_written_in_batches_with_progress(scheme: Scheme) -> None:
    seen: list[int] = []
    report = _ingest(scheme, CROWD, create_missing=True, batch_size=2, progress=seen.append)
    assert seen == [2, 4, 5]
    assert (report.rows, report.created, report.updated, report.unchanged) == (5, 5, 0, 0)
    assert (report.items_created, report.coders_created) == (1, 2)
    assert _stored(scheme) == [
        ("doc-1", "alice", "pos"),
        ("doc-1", "bob", "neg"),
        ("doc-2", "alice", "neutral"),
        ("doc-3", "carol", "pos"),
        ("doc-3", "dave", "pos"),
    ]
    assert AnnotationChange.objects.filter(action="created").count() == 5


def test_a_bad_line_rolls_everything_back_and_names_the_line_and_field(scheme: Scheme) -> None:
    text = CROWD + "doc-4,erin,maybe\n" + "doc-5,,pos\n"
    with pytest.raises(ValidationError) as raised:
        _ingest(scheme, text, create_missing=True, batch_size=2)
    assert raised.value.message_dict == {
        "line 7.label": [f"'maybe' is not a category of this question {DECLARED}."],
        "line 8.coder": ["The coder is required."],
    }
    assert not Annotation.objects.exists()
    assert not AnnotationChange.objects.exists()
    assert not Item.objects.filter(external_id="doc-3").exists()
    assert not Coder.objects.filter(key="carol").exists()


def test_unknown_keys_and_repeated_pairs_are_errors_on_their_lines(scheme: Scheme) -> None:
    text = "item,coder,label\ndoc-1,alice,pos\ndoc-9,alice,pos\ndoc-1,zoe,neg\ndoc-1,alice,neg\n"
    with pytest.raises(ValidationError) as raised:
        _ingest(scheme, text)
    assert raised.value.message_dict == {
        "line 3.item": ["No item 'doc-9' in this study (use create_missing to create it)."],
        "line 4.coder": ["No coder 'zoe' in this study (use create_missing to create it)."],
        "line 5.item": ["Item 'doc-1' and coder 'alice' already appear on line 2."],
    }
    assert not Annotation.objects.exists()


def test_a_row_with_a_wrong_field_count_is_named_by_its_line(scheme: Scheme) -> None:
    with pytest.raises(ValidationError) as raised:
        _ingest(scheme, "item,coder,label\ndoc-1,alice,pos\ndoc-2,bob\n")
    assert raised.value.message_dict == {"line 3": ["The line has 2 fields; the header has 3."]}


def test_partial_mode_writes_the_good_rows_and_reports_the_bad_ones(scheme: Scheme) -> None:
    text = (
        "item,coder,label\n"
        "doc-1,alice,pos\n"
        "doc-1,bob,maybe\n"
        "doc-2,alice,neg\n"
        "doc-2,alice,pos\n"
        "doc-9,bob,pos\n"
    )
    report = _ingest(scheme, text, partial=True)
    assert (report.rows, report.created, report.rejected) == (5, 2, 3)
    assert [(e.line, e.field, e.code) for e in sorted(report.errors, key=lambda e: e.line)] == [
        (3, "label", "unknown_category"),
        (5, "item", "duplicate_row"),
        (6, "item", "unknown_item"),
    ]
    assert _stored(scheme) == [("doc-1", "alice", "pos"), ("doc-2", "alice", "neg")]
    assert report.as_dict()["rejections"][0] == {
        "line": 3,
        "field": "label",
        "code": "unknown_category",
        "detail": f"'maybe' is not a category of this question {DECLARED}.",
    }


def test_ingesting_again_changes_nothing_and_a_changed_label_is_logged(scheme: Scheme) -> None:
    _ingest(scheme, CROWD, create_missing=True)
    again = _ingest(scheme, CROWD, create_missing=True)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 5)
    changed = _ingest(scheme, "item,coder,label\ndoc-1,alice,neg\n")
    assert (changed.created, changed.updated, changed.unchanged) == (0, 1, 0)
    update = AnnotationChange.objects.get(action="updated")
    assert (update.old_value, update.new_value) == ("pos", "neg")


def test_the_same_annotations_as_the_bulk_upload_api(
    scheme: Scheme, study: Study, annotator_client: APIClient, django_db_blocker: Any
) -> None:
    rows = (
        "item,coder,label\n"
        "doc-1,alice,sports|culture\n"
        "doc-1,bob,politics\n"
        "doc-2,alice,culture|sports\n"
        "doc-2,bob,sports\n"
    )
    response = annotator_client.post(
        bulk_url(study) + f"?round={scheme.round.pk}&question=topics",
        rows,
        content_type="text/csv",
    )
    assert response.status_code == 200, response.json()
    through_api = _stored(scheme, "topics")
    api_changes = sorted(AnnotationChange.objects.values_list("item_id", "coder_id", "new_value"))
    Annotation.objects.all().delete()
    AnnotationChange.objects.all().delete()
    report = _ingest(scheme, rows, question="topics")
    assert report.created == 4
    assert _stored(scheme, "topics") == through_api
    assert through_api[0] == (
        "doc-1",
        "alice",
        tuple(sorted([scheme.categories["sports"].pk, scheme.categories["culture"].pk])),
    )
    ingest_changes = sorted(
        AnnotationChange.objects.values_list("item_id", "coder_id", "new_value")
    )
    assert ingest_changes == api_changes


def test_numbers_follow_the_number_rule(scheme: Scheme) -> None:
    with pytest.raises(ValidationError) as raised:
        _ingest(scheme, "item,coder,label\ndoc-1,alice,30\ndoc-2,alice,1_000\n", question="age")
    assert list(raised.value.message_dict) == ["line 3.label"]
    _ingest(scheme, "item,coder,label\ndoc-1,alice,30\ndoc-2,alice,2.5e1\n", question="age")
    assert _stored(scheme, "age") == [("doc-1", "alice", 30.0), ("doc-2", "alice", 25.0)]


def test_a_closed_round_and_a_span_question_are_refused(scheme: Scheme) -> None:
    from studies.exceptions import ConflictError

    with pytest.raises(ConflictError):
        annotations_ingest_csv(
            study=scheme.study,
            round_ref=scheme.closed_round.pk,
            question_key="sentiment",
            lines=_lines(CROWD),
            actor=Actor(user=None, token=None),
        )


# The management command ----------------------------------------------------------------------


def test_the_command_prints_progress_and_a_summary(scheme: Scheme, tmp_path: Any) -> None:
    path = tmp_path / "crowd.csv"
    path.write_text(CROWD, encoding="utf-8")
    out = io.StringIO()
    call_command(
        "annotations_import_csv",
        str(scheme.study.pk),
        scheme.round.name,
        "sentiment",
        str(path),
        "--create-missing",
        "--batch-size",
        "3",
        stdout=out,
    )
    text = out.getvalue()
    assert "3 rows read" in text
    assert "5 rows read" in text
    assert "5 rows in " in text
    assert "5 created, 0 updated, 0 unchanged; 1 items and 2 coders created." in text
    assert Annotation.objects.count() == 5


def test_the_command_fails_with_every_bad_line_and_writes_nothing(
    scheme: Scheme, tmp_path: Any
) -> None:
    path = tmp_path / "crowd.csv"
    path.write_text(CROWD + "doc-4,erin,maybe\n", encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command(
            "annotations_import_csv",
            str(scheme.study.pk),
            str(scheme.round.pk),
            "sentiment",
            str(path),
            "--create-missing",
            stdout=io.StringIO(),
        )
    assert str(raised.value) == (
        "Nothing was imported:\n  line 7.label: 'maybe' is not a category of this question "
        f"{DECLARED}."
    )
    assert not Annotation.objects.exists()


def test_the_command_in_partial_mode_reports_what_it_left_out(
    scheme: Scheme, tmp_path: Any
) -> None:
    path = tmp_path / "crowd.csv"
    path.write_text(CROWD + "doc-4,erin,maybe\n", encoding="utf-8")
    out = io.StringIO()
    call_command(
        "annotations_import_csv",
        str(scheme.study.pk),
        scheme.round.name,
        "sentiment",
        str(path),
        "--create-missing",
        "--partial",
        stdout=out,
    )
    assert (
        f"1 rows left out.\n  line 7.label: 'maybe' is not a category of this question {DECLARED}."
        in out.getvalue()
    )
    assert Annotation.objects.count() == 5


# The API's CSV upload -------------------------------------------------------------------------


def _upload(client: APIClient, scheme: Scheme, text: str, **query: str) -> Any:
    parameters = "&".join(
        f"{k}={v}" for k, v in {"round": scheme.round.pk, "question": "sentiment", **query}.items()
    )
    return client.post(f"{bulk_url(scheme.study)}?{parameters}", text, content_type="text/csv")


def test_a_csv_upload_above_the_bulk_limit_streams_through_the_ingest(
    scheme: Scheme, annotator_client: APIClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("annotations.api.parsers.MAX_BULK_ROWS", 3)
    response = _upload(annotator_client, scheme, CROWD, create_missing="true")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["rows"], body["created"], body["rejected"], body["rejections"]) == (5, 5, 0, [])
    assert len(_stored(scheme)) == 5
    refused = _upload(annotator_client, scheme, CROWD + "doc-4,erin,maybe\n", create_missing="1")
    assert refused.status_code == 400
    assert refused.json()["errors"] == [
        {
            "code": "unknown_category",
            "detail": f"'maybe' is not a category of this question {DECLARED}.",
            "attr": "line 7.label",
        }
    ]
    assert not Item.objects.filter(external_id="doc-4").exists()


def test_a_partial_csv_upload_reports_the_rows_it_left_out(
    scheme: Scheme, annotator_client: APIClient
) -> None:
    text = "item,coder,label\ndoc-1,alice,pos\ndoc-2,alice,maybe\n"
    response = _upload(annotator_client, scheme, text, partial="true")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["rows"], body["created"], body["rejected"]) == (2, 1, 1)
    assert body["rejections"] == [
        {
            "line": 3,
            "field": "label",
            "code": "unknown_category",
            "detail": f"'maybe' is not a category of this question {DECLARED}.",
        }
    ]
    assert _stored(scheme) == [("doc-1", "alice", "pos")]


def test_a_small_csv_upload_keeps_the_bulk_upload_answer(
    scheme: Scheme, annotator_client: APIClient
) -> None:
    response = _upload(annotator_client, scheme, "item,coder,label\ndoc-1,alice,pos\n")
    assert response.json() == {
        "created": 1,
        "updated": 0,
        "unchanged": 0,
        "items_created": 0,
        "coders_created": 0,
        "categories_created": [],
    }


def test_keys_with_tabs_backslashes_and_line_breaks_are_stored_as_written(scheme: Scheme) -> None:
    text = 'item,coder,label\n"doc\t1",a\\b,pos\n"doc\n2","c\\\\N",neg\n"doc\r3",\\N,neutral\n'
    report = _ingest(scheme, text, create_missing=True)
    assert report.created == 3
    assert _stored(scheme) == [
        ("doc\t1", "a\\b", "pos"),
        ("doc\n2", "c\\\\N", "neg"),
        ("doc\r3", "\\N", "neutral"),
    ]


def test_partial_mode_keeps_the_good_rows_read_before_a_malformed_line(scheme: Scheme) -> None:
    text = 'item,coder,label\ndoc-1,alice,pos\ndoc-2,alice,neg\ndoc-3,"bob,pos\n'
    report = _ingest(scheme, text, partial=True, create_missing=True, batch_size=10)
    assert (report.rows, report.created, report.rejected) == (3, 2, 1)
    assert [(e.line, e.code) for e in report.errors] == [(4, "malformed_csv")]
    assert _stored(scheme) == [("doc-1", "alice", "pos"), ("doc-2", "alice", "neg")]


def test_a_pair_given_twice_is_the_only_error_in_a_fresh_scope(scheme: Scheme) -> None:
    text = CROWD + "doc-2,alice,pos\n" + "doc-1,bob,pos\n"
    with pytest.raises(ValidationError) as raised:
        _ingest(scheme, text, create_missing=True)
    assert raised.value.message_dict == {
        "line 7.item": ["Item 'doc-2' and coder 'alice' already appear on line 4."],
        "line 8.item": ["Item 'doc-1' and coder 'bob' already appear on line 3."],
    }
    assert not Annotation.objects.exists()
    assert not AnnotationChange.objects.exists()

    report = _ingest(scheme, text, create_missing=True, partial=True)
    assert (report.rows, report.created, report.rejected) == (7, 5, 2)
    assert [(e.line, e.code) for e in report.errors] == [(7, "duplicate_row"), (8, "duplicate_row")]
    assert _stored(scheme)[:3] == [
        ("doc-1", "alice", "pos"),
        ("doc-1", "bob", "neg"),
        ("doc-2", "alice", "neutral"),
    ]
    assert AnnotationChange.objects.count() == 5
