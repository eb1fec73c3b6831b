"""annotations.spans called directly: span_units_replace and span_units_from_csv."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from annotations.services import PayloadTooLargeError, annotations_bulk_upsert
from annotations.spans import (
    DocumentRecord,
    SpanRecord,
    SpanUploadError,
    span_units_from_csv,
    span_units_replace,
)
from studies.access import Actor
from studies.exceptions import ConflictError
from studies.models import Annotation, AnnotationChange, Coder, Item, Study
from tests.annotations.span_setup import SpanScheme, build_span_scheme
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> SpanScheme:
    return build_span_scheme(study)


@pytest.fixture
def actor() -> Actor:
    return Actor(user=UserFactory(username="writer"), token=None)


def unit(
    document: str, coder: str, begin: Any, end: Any, label: Any, where: str = ""
) -> SpanRecord:
    return SpanRecord(document, coder, begin, end, label, where or f"row {document}/{coder}")


def replace(scheme: SpanScheme, actor: Actor, units: list[SpanRecord], **kw: Any) -> Any:
    kw.setdefault("question", scheme.entities)
    kw.setdefault("round", scheme.round)
    return span_units_replace(units=units, actor=actor, **kw)


def stored(scheme: SpanScheme, question: Any = None) -> dict[tuple[str, str], Any]:
    return {
        (item, coder): units
        for item, coder, units in Annotation.objects.filter(
            question=question or scheme.entities
        ).values_list("item__external_id", "coder__key", "units")
    }


def error_list(error: pytest.ExceptionInfo[ValidationError]) -> list[tuple[str, str]]:
    return [(attr, e.code or "") for attr, errors in error.value.error_dict.items() for e in errors]


def test_units_are_stored_sorted_per_pair_and_an_empty_row_means_nothing_found(
    scheme: SpanScheme, actor: Actor
) -> None:
    per, loc = scheme.categories["PER"].pk, scheme.categories["LOC"].pk
    result = replace(
        scheme,
        actor,
        [
            unit("doc-1", "alice", 17, 22, "LOC"),
            unit("doc-1", "alice", 0, 5, "PER"),
            unit("doc-1", "alice", "10", "13", "PER"),
            unit("doc-1", "bob", 0, 5, "PER"),
            unit("doc-2", "bob", None, None, None),
        ],
    )
    assert stored(scheme) == {
        ("doc-1", "alice"): [[0, 5, per], [10, 13, per], [17, 22, loc]],
        ("doc-1", "bob"): [[0, 5, per]],
        ("doc-2", "bob"): [],
    }
    assert (result.documents, result.coders, result.units) == (2, 2, 4)
    assert (result.created, result.replaced, result.unchanged) == (3, 0, 0)
    assert (result.items_created, result.coders_created) == (0, 0)
    log = {
        (c.item.external_id, c.coder.key): (c.action, c.old_value, c.new_value, c.changed_by)
        for c in AnnotationChange.objects.all()
    }
    assert log == {
        ("doc-1", "alice"): ("created", None, "0-5 PER; 10-13 PER; 17-22 LOC", actor.user),
        ("doc-1", "bob"): ("created", None, "0-5 PER", actor.user),
        ("doc-2", "bob"): ("created", None, "", actor.user),
    }


def test_a_second_upload_replaces_the_named_pairs_only(scheme: SpanScheme, actor: Actor) -> None:
    per, org = scheme.categories["PER"].pk, scheme.categories["ORG"].pk
    replace(
        scheme,
        actor,
        [
            unit("doc-1", "alice", 0, 5, "PER"),
            unit("doc-1", "bob", 0, 5, "PER"),
            unit("doc-2", "alice", 3, 9, "ORG"),
        ],
    )
    result = replace(
        scheme,
        actor,
        [
            unit("doc-1", "alice", 0, 3, "ORG"),  # replaced
            unit("doc-1", "bob", 0, 5, "PER"),  # the same: unchanged, not logged
        ],
    )
    assert (result.created, result.replaced, result.unchanged) == (0, 1, 1)
    assert stored(scheme) == {
        ("doc-1", "alice"): [[0, 3, org]],
        ("doc-1", "bob"): [[0, 5, per]],
        ("doc-2", "alice"): [[3, 9, org]],  # not named: kept
    }
    updates = AnnotationChange.objects.filter(action="updated")
    assert [(c.old_value, c.new_value) for c in updates] == [("0-5 PER", "0-3 ORG")]


def test_seconds_take_fractional_offsets_and_characters_refuse_them(
    scheme: SpanScheme, actor: Actor
) -> None:
    speaker = scheme.categories["SPEAKER"].pk
    replace(scheme, actor, [unit("rec-1", "alice", 0.5, 2.25, "SPEAKER")], question=scheme.turns)
    assert stored(scheme, scheme.turns) == {("rec-1", "alice"): [[0.5, 2.25, speaker]]}
    assert AnnotationChange.objects.get().new_value == "0.5-2.25 SPEAKER"
    with pytest.raises(ValidationError) as caught:
        replace(scheme, actor, [unit("doc-1", "alice", 0.5, 5, "PER", "line 2")])
    assert error_list(caught) == [("line 2.begin", "not_an_integer")]


def test_every_bad_record_is_named_by_where_and_field_and_nothing_is_written(
    scheme: SpanScheme, actor: Actor
) -> None:
    with pytest.raises(SpanUploadError) as caught:
        replace(
            scheme,
            actor,
            [
                unit("doc-1", "alice", 0, 5, "PER", "line 2"),  # fine
                unit("doc-1", "alice", 0, 5, "XYZ", "line 3"),
                unit("doc-1", "alice", None, 5, "PER", "line 4"),
                unit("doc-1", "alice", "abc", 5, "PER", "line 5"),
                unit("doc-1", "alice", 9, 4, "PER", "line 6"),
                unit("doc-1", "alice", 20, 30, "PER", "line 7"),  # text has 23 characters
                unit("doc-2", "alice", 90, 101, "PER", "line 8"),  # extent 0..100
                unit("doc-1", "", 0, 5, "PER", "line 9"),
                unit("doc-1", "bob", 0, 5, None, "line 10"),
                unit("doc-1", "bob", 0, float("inf"), "PER", "line 11"),
            ],
        )
    assert error_list(caught) == [
        ("line 3.label", "unknown_category"),
        ("line 4.begin", "required"),
        ("line 5.begin", "not_a_number"),
        ("line 6.end", "end_before_begin"),
        ("line 7.begin", "outside_extent"),
        ("line 8.begin", "outside_extent"),
        ("line 9.coder", "required"),
        ("line 10.label", "required"),
        ("line 11.end", "not_a_number"),
    ]
    assert [(p.where, p.field, p.code) for p in caught.value.problems][:2] == [
        ("line 3", "label", "unknown_category"),
        ("line 4", "begin", "required"),
    ]
    assert caught.value.error_dict["line 7.begin"][0].message == (
        "line 7: The unit [20, 30) lies outside its document's extent [0, 23)."
    )
    assert not Annotation.objects.exists()
    assert not AnnotationChange.objects.exists()


def test_unknown_documents_and_coders_are_created_unless_told_not_to(
    scheme: SpanScheme, actor: Actor
) -> None:
    with pytest.raises(ValidationError) as caught:
        replace(
            scheme,
            actor,
            [unit("doc-9", "carol", 0, 5, "PER", "line 2")],
            create_missing=False,
        )
    assert error_list(caught) == [
        ("line 2.document", "unknown_item"),
        ("line 2.coder", "unknown_coder"),
    ]
    result = replace(scheme, actor, [unit("doc-9", "carol", 0, 5, "PER", "line 2")])
    assert (result.items_created, result.coders_created) == (1, 1)
    assert Item.objects.get(external_id="doc-9").text == ""
    assert Coder.objects.filter(key="carol").exists()


def test_documents_give_new_items_their_text_and_extent(scheme: SpanScheme, actor: Actor) -> None:
    result = replace(
        scheme,
        actor,
        [unit("new-1", "alice", 0, 3, "PER"), unit("new-2", "alice", 40, 50, "ORG")],
        documents=[
            DocumentRecord("new-1", text="Bob"),
            DocumentRecord("new-2", begin=40, end=60),
            DocumentRecord("rec-1", begin=0, end=30),  # existing, without extent
        ],
    )
    assert (result.items_created, result.items_updated, result.documents) == (2, 1, 3)
    assert list(
        Item.objects.filter(external_id__in=["new-1", "new-2", "rec-1"])
        .order_by("external_id")
        .values_list("external_id", "text", "extent_begin", "extent_end")
    ) == [("new-1", "Bob", None, None), ("new-2", "", 40.0, 60.0), ("rec-1", "", 0.0, 30.0)]


def test_documents_are_checked_against_what_the_items_have(
    scheme: SpanScheme, actor: Actor
) -> None:
    with pytest.raises(ValidationError) as caught:
        replace(
            scheme,
            actor,
            [unit("new-1", "alice", 0, 5, "PER")],
            documents=[
                DocumentRecord("doc-2", begin=0, end=50),  # has 0..100
                DocumentRecord("doc-1", text="Another text"),
                DocumentRecord("new-1", text="Bob"),  # 3 characters: the unit ends at 5
                DocumentRecord("new-2", begin=10, end=5),
                DocumentRecord("new-3", begin=3),
                DocumentRecord("new-4", begin=0, end=9),
                DocumentRecord("new-4", begin=0, end=8),
            ],
        )
    assert error_list(caught) == [
        ("documents.0.begin", "extent_conflict"),
        ("documents.1.text", "text_conflict"),
        ("documents.3.end", "extent_reversed"),
        ("documents.4.end", "extent_incomplete"),
        ("documents.6.document", "duplicate_document"),
        ("row new-1/alice.begin", "outside_extent"),
    ]
    assert not Item.objects.filter(external_id__startswith="new").exists()


def test_a_new_extent_must_hold_the_units_stored_on_the_item(
    scheme: SpanScheme, actor: Actor
) -> None:
    replace(scheme, actor, [unit("rec-1", "alice", 10, 40, "PER")])
    with pytest.raises(ValidationError) as caught:
        replace(
            scheme,
            actor,
            [unit("rec-1", "bob", 0, 5, "PER")],
            documents=[DocumentRecord("rec-1", begin=0, end=30)],
        )
    assert error_list(caught) == [("documents.0.begin", "units_outside_extent")]
    # Replacing the unit that does not fit in the same upload is fine.
    replace(
        scheme,
        actor,
        [unit("rec-1", "alice", 10, 20, "PER")],
        documents=[DocumentRecord("rec-1", begin=0, end=30)],
    )
    assert Item.objects.get(external_id="rec-1").extent_end == 30.0


def test_a_closed_round_and_a_question_that_is_not_a_span_are_refused(
    scheme: SpanScheme, actor: Actor
) -> None:
    with pytest.raises(ConflictError) as closed:
        replace(scheme, actor, [unit("doc-1", "alice", 0, 5, "PER")], round=scheme.closed_round)
    assert closed.value.code == "round_closed"
    with pytest.raises(ValidationError) as not_span:
        replace(scheme, actor, [unit("doc-1", "alice", 0, 5, "pos")], question=scheme.sentiment)
    assert error_list(not_span) == [("question", "not_a_span_question")]


def test_too_many_records_are_refused(
    scheme: SpanScheme, actor: Actor, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("annotations.spans.MAX_SPAN_RECORDS", 2)
    with pytest.raises(PayloadTooLargeError):
        replace(scheme, actor, [unit("doc-1", "alice", 0, 5, "PER")] * 3)


def test_the_single_label_upload_refuses_a_span_question(scheme: SpanScheme, actor: Actor) -> None:
    with pytest.raises(ValidationError) as caught:
        annotations_bulk_upsert(
            study=scheme.study,
            round_ref=scheme.round.pk,
            question_key="entities",
            rows=[{"item": "doc-1", "coder": "alice", "label": "PER"}],
            actor=actor,
        )
    assert error_list(caught) == [("question", "span_question")]


def test_the_csv_reader_gives_records_named_by_line() -> None:
    records = span_units_from_csv(
        '\ufeffDocument,coder,begin,end,label,note\nd1,ann,0,5,PER,x\n\nd1,"bob",,,,\nd2,ann,3,,,\n'
    )
    assert records == [
        SpanRecord("d1", "ann", "0", "5", "PER", "line 2"),
        SpanRecord("d1", "bob", None, None, None, "line 4"),
        SpanRecord("d2", "ann", "3", None, None, "line 5"),
    ]
    assert records[1].is_empty
    assert not records[2].is_empty


def test_the_csv_reader_names_missing_columns() -> None:
    with pytest.raises(ValidationError) as caught:
        span_units_from_csv("document,coder,start,end\n")
    assert error_list(caught) == [("header", "missing_columns")]
    assert "begin, label" in caught.value.error_dict["header"][0].message
