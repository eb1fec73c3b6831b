"""A tool's model predictions imported as model coders, kept apart from the people's
labels: Label Studio ``predictions`` (coder: the ``model_version``) and the answers of
Prodigy's OpenAI recipes (records with an ``openai`` object and no annotator).

The sample files follow the tools' documented formats: Label Studio's JSON export (a
prediction is ``{model_version, score, result[]}`` beside ``annotations``), and the output
of ``textcat.openai.fetch`` (explosion/prodigy-openai-recipes: the prompt and response under
``openai``; a binary task's ``answer`` is ``true``/``false``).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from exchange.formats import FORMATS, ParseOptions
from exchange.formats.base import ModelCoderSpec
from exchange.imports import ImportReport, annotations_import
from studies.access import Actor
from studies.models import Coder, CoderKind
from tests.exchange.conftest import ImportStudy, sample, stored
from tests.factories import CoderFactory

pytestmark = pytest.mark.django_db

V2 = "gpt-4o-sentiment-v2"


def run(target: ImportStudy, actor: Actor, fmt: str, name: str, **options: Any) -> ImportReport:
    options.setdefault("round_ref", "Round 1")
    options.setdefault("create_missing", True)
    return annotations_import(
        study=target.study, format_name=fmt, data=sample(name), actor=actor, **options
    )


def kinds(target: ImportStudy) -> dict[str, tuple[str, str, str]]:
    return {
        c.key: (c.kind, c.model_name, c.model_version)
        for c in Coder.objects.filter(study=target.study)
    }


def test_label_studio_predictions_become_model_coders_named_by_model_version() -> None:
    parsed = FORMATS["label_studio"].parse(sample("label_studio_predictions.json"), ParseOptions())
    assert [(r.source, r.item, r.coder, r.label, r.field) for r in parsed.rows] == [
        ("task 201, annotation 2001, result h1", "201", "10", "pos", "sentiment"),
        ("task 201, prediction 9001, result m1", "201", "gpt-4o-sentiment-v1", "pos", "sentiment"),
        ("task 201, prediction 9001, result m2", "201", "gpt-4o-sentiment-v1", 4, "score"),
        ("task 201, prediction 9002, result m3", "201", V2, "neutral", "sentiment"),
        ("task 202, prediction 9003, result m4", "202", "gpt-4o-sentiment-v1", "neg", "sentiment"),
    ]  # fmt: skip
    assert parsed.model_coders == {
        "gpt-4o-sentiment-v1": ModelCoderSpec("gpt-4o-sentiment-v1", "gpt-4o-sentiment-v1"),
        "gpt-4o-sentiment-v2": ModelCoderSpec("gpt-4o-sentiment-v2", "gpt-4o-sentiment-v2"),
    }
    assert parsed.skipped == {"prediction without a model_version": 1}


def test_label_studio_import_creates_model_coders_apart_from_the_people(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(target, actor, "label_studio", "label_studio_predictions.json")
    assert report.committed, report.rejected
    assert (report.created, report.coders_created) == (5, 3)
    assert report.notes == [
        "Model predictions kept apart as model coders: gpt-4o-sentiment-v1, gpt-4o-sentiment-v2."
    ]
    coders = kinds(target)
    assert coders["10"] == (CoderKind.PERSON, "", "")
    assert coders["gpt-4o-sentiment-v1"] == (
        CoderKind.MODEL,
        "gpt-4o-sentiment-v1",
        "gpt-4o-sentiment-v1",
    )
    assert coders["gpt-4o-sentiment-v2"][0] == CoderKind.MODEL
    assert stored(target.round, "sentiment") == {
        ("201", "10"): "pos",
        ("201", "gpt-4o-sentiment-v1"): "pos",
        ("201", "gpt-4o-sentiment-v2"): "neutral",
        ("202", "gpt-4o-sentiment-v1"): "neg",
    }
    assert stored(target.round, "score") == {("201", "gpt-4o-sentiment-v1"): 4.0}


def test_without_create_missing_an_unknown_model_is_rejected_like_a_person(
    target: ImportStudy, actor: Actor
) -> None:
    CoderFactory(study=target.study, key="10")
    report = run(
        target, actor, "label_studio", "label_studio_predictions.json", create_missing=False
    )
    assert not report.committed
    assert sorted((r.source, r.code) for r in report.rejected if r.field == "coder") == [
        ("task 201, prediction 9001, result m1", "unknown_coder"),
        ("task 201, prediction 9001, result m2", "unknown_coder"),
        ("task 201, prediction 9002, result m3", "unknown_coder"),
        ("task 202, prediction 9003, result m4", "unknown_coder"),
    ]
    assert not Coder.objects.filter(study=target.study, kind=CoderKind.MODEL).exists()


def test_a_person_coder_named_like_the_model_is_noted(target: ImportStudy, actor: Actor) -> None:
    CoderFactory(study=target.study, key="gpt-4o-sentiment-v2")
    report = run(target, actor, "label_studio", "label_studio_predictions.json")
    assert report.committed
    assert report.notes[0] == (
        "Coder 'gpt-4o-sentiment-v2' is a person, but the file's labels of "
        "'gpt-4o-sentiment-v2' are a model's predictions: they were imported as that "
        "coder's. Make it a model coder (kind model) to test it as one."
    )
    assert kinds(target)["gpt-4o-sentiment-v2"][0] == CoderKind.PERSON


def test_prodigy_openai_answers_are_a_model_coder_and_the_corrections_a_persons(
    target: ImportStudy, actor: Actor
) -> None:
    parsed = FORMATS["prodigy"].parse(sample("prodigy_openai.jsonl"), ParseOptions())
    assert [(r.item, r.coder, r.label, r.field) for r in parsed.rows] == [
        ("301", "openai", "pos", None),
        ("302", "openai", "neg", None),
        ("301", "news-alice", "pos", None),
        ("302", "news-alice", "neutral", None),
        ("303", "openai", "accept", "sports"),
        ("304", "openai", "reject", "sports"),
    ]
    assert parsed.model_coders == {"openai": ModelCoderSpec("openai")}
    report = run(
        target, actor, "prodigy", "prodigy_openai.jsonl", question_map={"sports": "sports"},
        question_key="sentiment",
    )  # fmt: skip
    assert report.committed, report.rejected
    assert stored(target.round, "sentiment") == {
        ("301", "openai"): "pos",
        ("302", "openai"): "neg",
        ("301", "news-alice"): "pos",
        ("302", "news-alice"): "neutral",
    }
    assert stored(target.round, "sports") == {
        ("303", "openai"): "accept",
        ("304", "openai"): "reject",
    }
    assert kinds(target)["openai"] == (CoderKind.MODEL, "openai", "")
    assert kinds(target)["news-alice"][0] == CoderKind.PERSON


def test_prodigy_model_answers_are_skipped_when_asked(target: ImportStudy, actor: Actor) -> None:
    parsed = FORMATS["prodigy"].parse(
        sample("prodigy_openai.jsonl"), ParseOptions(predictions=False)
    )
    assert {r.coder for r in parsed.rows} == {"news-alice"}
    assert parsed.skipped == {"model prediction (predictions=false)": 4}
    assert parsed.model_coders == {}


def test_a_review_exports_predictions_are_the_coders_labels_and_are_skipped() -> None:
    task = {
        "id": 7,
        "data": {"text": "Text 2", "item": "u2", "round": "Round 1", "review_entry": 7},
        "predictions": [
            {
                "model_version": "c1",
                "result": [
                    {
                        "from_name": "sentiment",
                        "to_name": "text",
                        "type": "choices",
                        "value": {"choices": ["pos"]},
                    }
                ],
            }
        ],
    }
    parsed = FORMATS["label_studio"].parse(json.dumps([task]).encode(), ParseOptions())
    assert parsed.rows == []
    assert parsed.model_coders == {}
    assert parsed.skipped == {"prediction of a review export (a coder's label, not a model's)": 1}
