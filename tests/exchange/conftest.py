"""A study with one question of each kind (plus span entities), for the import tests."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from studies.access import Actor
from studies.models import (
    Annotation,
    AnnotationChange,
    Coder,
    Item,
    LabelKind,
    Question,
    Round,
    SpanUnit,
    Study,
)
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
    UserFactory,
)

SAMPLES = Path(__file__).parent / "samples"


def sample(name: str) -> bytes:
    return (SAMPLES / name).read_bytes()


@dataclass
class ImportStudy:
    study: Study
    round: Round
    closed_round: Round
    questions: dict[str, Question]


def _categories(question: Question, codes: list[str]) -> None:
    for position, code in enumerate(codes):
        CategoryFactory(question=question, code=code, position=position)


@pytest.fixture
def target(study: Study) -> ImportStudy:
    """``study`` with rounds "Round 1" (open) and "Pilot" (closed) and these questions:
    sentiment (nominal pos/neg/neutral), topics (set), taxon (hierarchy animal/{dog,cat},
    plant/tree), age (ratio <= 120), score (interval 1..5), entity (nominal PER/ORG/LOC),
    sports (nominal accept/reject); items doc-1, doc-2; coders alice, bob."""
    open_round = RoundFactory(study=study, name="Round 1", position=1)
    closed_round = RoundFactory(study=study, name="Pilot", position=0, closed=True)
    questions = {
        "sentiment": QuestionFactory(study=study, key="sentiment", kind=LabelKind.NOMINAL),
        "topics": QuestionFactory(study=study, key="topics", kind=LabelKind.SET),
        "taxon": QuestionFactory(study=study, key="taxon", kind=LabelKind.HIERARCHY),
        "age": QuestionFactory(study=study, key="age", kind=LabelKind.RATIO, max_value=120),
        "score": QuestionFactory(
            study=study, key="score", kind=LabelKind.INTERVAL, min_value=1, max_value=5
        ),
        "entity": QuestionFactory(study=study, key="entity", kind=LabelKind.NOMINAL),
        "sports": QuestionFactory(study=study, key="sports", kind=LabelKind.NOMINAL),
    }
    _categories(questions["sentiment"], ["pos", "neg", "neutral"])
    _categories(questions["topics"], ["sports", "politics", "culture"])
    _categories(questions["entity"], ["PER", "ORG", "LOC"])
    _categories(questions["sports"], ["accept", "reject"])
    taxon = questions["taxon"]
    animal = CategoryFactory(question=taxon, code="animal", position=0)
    plant = CategoryFactory(question=taxon, code="plant", position=1)
    CategoryFactory(question=taxon, code="dog", position=2, parent=animal)
    CategoryFactory(question=taxon, code="cat", position=3, parent=animal)
    CategoryFactory(question=taxon, code="tree", position=4, parent=plant)
    for key in ("doc-1", "doc-2"):
        ItemFactory(study=study, external_id=key)
    for key in ("alice", "bob"):
        CoderFactory(study=study, key=key)
    return ImportStudy(
        study=study, round=open_round, closed_round=closed_round, questions=questions
    )


@pytest.fixture
def tone(target: ImportStudy) -> Question:
    """A nominal question "tone" of ``target`` with the codes positive, negative, neutral."""
    question = QuestionFactory(study=target.study, key="tone", kind=LabelKind.NOMINAL)
    _categories(question, ["positive", "negative", "neutral"])
    return question


@pytest.fixture
def mentions(target: ImportStudy) -> Question:
    """A span question "mentions" of ``target`` counting characters, labels PER, ORG, LOC."""
    question = QuestionFactory(
        study=target.study, key="mentions", kind=LabelKind.SPAN, span_unit=SpanUnit.CHARACTER
    )
    _categories(question, ["PER", "ORG", "LOC"])
    target.questions["mentions"] = question
    return question


@pytest.fixture
def mention_tokens(target: ImportStudy) -> Question:
    """A span question "mention_tokens" of ``target`` counting tokens, labels PER, ORG,
    LOC, MISC."""
    question = QuestionFactory(
        study=target.study, key="mention_tokens", kind=LabelKind.SPAN, span_unit=SpanUnit.TOKEN
    )
    _categories(question, ["PER", "ORG", "LOC", "MISC"])
    target.questions["mention_tokens"] = question
    return question


@pytest.fixture
def actor(db: None) -> Actor:
    return Actor(user=UserFactory(username="importer"), token=None)


def db_state(study: Study) -> dict[str, Any]:
    """Everything an import may write, to compare before and after."""
    return {
        "annotations": sorted(
            Annotation.objects.filter(round__study=study).values_list(
                "round_id",
                "question_id",
                "item_id",
                "coder_id",
                "category_id",
                "number",
                "updated_at",
            )
        ),
        "sets": sorted(
            str(value)
            for value in Annotation.objects.filter(round__study=study).values_list(
                "category_set", flat=True
            )
        ),
        "units": sorted(
            str(value)
            for value in Annotation.objects.filter(round__study=study).values_list(
                "units", flat=True
            )
        ),
        "changes": AnnotationChange.objects.filter(study=study).count(),
        "items": sorted(Item.objects.filter(study=study).values_list("external_id", flat=True)),
        "coders": sorted(Coder.objects.filter(study=study).values_list("key", flat=True)),
    }


def stored(round_: Round, question_key: str) -> dict[tuple[str, str], Any]:
    """{(item, coder): code | number | sorted codes} of one round and question."""
    out: dict[tuple[str, str], Any] = {}
    annotations = Annotation.objects.filter(
        round=round_, question__key=question_key
    ).select_related("item", "coder", "category")
    for annotation in annotations:
        key = (annotation.item.external_id, annotation.coder.key)
        if annotation.category is not None:
            out[key] = annotation.category.code
        elif annotation.number is not None:
            out[key] = annotation.number
        else:
            out[key] = sorted(
                Question.objects.get(pk=annotation.question_id)
                .categories.filter(pk__in=annotation.category_set)
                .values_list("code", flat=True)
            )
    return out


def stored_units(round_: Round, question_key: str) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """{(document, coder): [(begin, end, code), ...]} of one round's span question; an
    empty list is "annotated, nothing found"."""
    annotations = Annotation.objects.filter(round=round_, question__key=question_key)
    codes = dict(
        Question.objects.get(study=round_.study, key=question_key).categories.values_list(
            "id", "code"
        )
    )
    return {
        (annotation.item.external_id, annotation.coder.key): [
            (begin, end, codes[category]) for begin, end, category in annotation.units or []
        ]
        for annotation in annotations.select_related("item", "coder")
    }
