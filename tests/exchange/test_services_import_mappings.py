"""annotations_import's mappings: ignored fields, category matching and mapping, coder mapping."""

from __future__ import annotations

from typing import Any

import pytest

from exchange.imports import ImportReport, annotations_import
from studies.access import Actor
from studies.models import Question
from tests.exchange.conftest import ImportStudy, db_state, sample, stored

pytestmark = pytest.mark.django_db


def run(target: ImportStudy, actor: Actor, fmt: str, data: bytes, **options: Any) -> ImportReport:
    options.setdefault("round_ref", "Round 1")
    options.setdefault("create_missing", True)
    return annotations_import(
        study=target.study, format_name=fmt, data=data, actor=actor, **options
    )


def rejected(report: ImportReport) -> list[tuple[str, str, str]]:
    return [(r.source, r.field, r.code) for r in report.rejected]


# Fields ignored by question_map --------------------------------------------------------


def test_a_textarea_mapped_to_null_is_ignored_and_the_rest_imports(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "label_studio",
        sample("label_studio_comment_box.json"),
        question_map={"comment": None},
    )
    assert report.rejected == []
    assert report.committed
    assert report.ignored_fields == {"comment": 3}
    assert report.skipped == {"field 'comment' ignored by question_map": 3}
    assert stored(target.round, "tone") == {
        ("501", "17"): "positive",
        ("501", "dana@example.org"): "positive",
        ("502", "17"): "negative",
        ("502", "dana@example.org"): "neutral",
    }


def test_a_textarea_not_ignored_is_rejected_saying_how_to_ignore_it(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    before = db_state(target.study)
    report = run(target, actor, "label_studio", sample("label_studio_comment_box.json"))
    assert not report.committed
    assert rejected(report) == [
        ("task 501, annotation 5001, result c1", "type", "unsupported_type"),
        ("task 501, annotation 5002, result c2", "type", "unsupported_type"),
        ("task 502, annotation 5003, result c3", "type", "unsupported_type"),
    ]
    assert report.rejected[0].detail == (
        "Result type 'textarea' of field 'comment' is not imported (supported: choices, "
        "rating, number, taxonomy, labels); to leave the field out, map it to null: "
        '"question_map": {"comment": null}.'
    )
    assert report.ignored_fields == {}
    assert db_state(target.study) == before


def test_mapping_an_unsupported_field_onto_a_question_still_rejects_it(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "label_studio",
        sample("label_studio_comment_box.json"),
        question_map={"comment": "sentiment"},
    )
    assert not report.committed
    assert {r.code for r in report.rejected} == {"unsupported_type"}
    assert report.rejected_count == 3


IGNORED_FIELD_FILES = [
    pytest.param(
        "long_csv",
        b"item,coder,label,question\ndoc-1,alice,pos,sentiment\ndoc-1,,too long to say,note\n",
        {"note": None},
        {"note": 1},
        {("doc-1", "alice"): "pos"},
        id="long_csv question column",
    ),
    pytest.param(
        "prodigy",
        b'{"_input_hash": 7, "_annotator_id": "alice", "label": "SPORTS", "answer": "accept"}\n'
        b'{"_input_hash": 7, "_annotator_id": "alice", "label": "SPAM", "answer": "maybe"}\n'
        b'{"_input_hash": 8, "_annotator_id": "bob", "label": "SPAM", "answer": "accept"}\n',
        {"SPORTS": "sports", "SPAM": None},
        {"SPAM": 2},
        {("7", "alice"): "accept"},
        id="prodigy binary label",
    ),
    pytest.param(
        "inception_diagnosis",
        b"Type,Collection,Document,Layer,Feature,Position,Flags,alice,bob\n"
        b"NamedEntity,news,n1.txt,Named entity,value,0-4,USED,PER,ORG\n"
        b"NamedEntity,news,n1.txt,Named entity,identifier,0-4,USED,Q1\n"
        b"NamedEntity,news,n1.txt,Named entity,identifier,6-9,USED,Q2,Q3\n",
        {"value": "entity", "identifier": None},
        {"identifier": 3},
        {("n1.txt:0-4", "alice"): "PER", ("n1.txt:0-4", "bob"): "ORG"},
        id="inception feature",
    ),
]


@pytest.mark.parametrize(("fmt", "data", "question_map", "ignored", "written"), IGNORED_FIELD_FILES)
def test_every_format_ignores_the_records_of_a_field_mapped_to_null(
    target: ImportStudy,
    actor: Actor,
    fmt: str,
    data: bytes,
    question_map: dict[str, str | None],
    ignored: dict[str, int],
    written: dict[tuple[str, str], str],
) -> None:
    report = run(target, actor, fmt, data, question_map=question_map)
    assert report.rejected == []
    assert report.committed
    assert report.ignored_fields == ignored
    question = next(iter(key for key in question_map.values() if key), "sentiment")
    assert stored(target.round, question) == written
