"""A study with one question of each label kind, for the annotation API tests.

Not a conftest: the annotation test modules build it through their own small fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass

from studies.models import Category, Coder, Item, LabelKind, Question, Round, Study
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)


@dataclass
class Scheme:
    study: Study
    round: Round
    closed_round: Round
    sentiment: Question  # nominal: pos, neg, neutral
    topics: Question  # set: sports, politics, culture
    taxon: Question  # hierarchy: animal/{dog, cat}, plant/tree
    age: Question  # ratio, at most 120
    score: Question  # interval, -5 to 5
    categories: dict[str, Category]
    items: dict[str, Item]
    coders: dict[str, Coder]


def build_scheme(study: Study) -> Scheme:
    open_round = RoundFactory(study=study, name="Round 1", position=1)
    closed_round = RoundFactory(study=study, name="Pilot", position=0, closed=True)
    sentiment = QuestionFactory(study=study, key="sentiment", kind=LabelKind.NOMINAL)
    topics = QuestionFactory(study=study, key="topics", kind=LabelKind.SET)
    taxon = QuestionFactory(study=study, key="taxon", kind=LabelKind.HIERARCHY)
    age = QuestionFactory(study=study, key="age", kind=LabelKind.RATIO, max_value=120)
    score = QuestionFactory(
        study=study, key="score", kind=LabelKind.INTERVAL, min_value=-5, max_value=5
    )
    categories: dict[str, Category] = {}
    for position, code in enumerate(["pos", "neg", "neutral"]):
        categories[code] = CategoryFactory(question=sentiment, code=code, position=position)
    for position, code in enumerate(["sports", "politics", "culture"]):
        categories[code] = CategoryFactory(question=topics, code=code, position=position)
    categories["animal"] = CategoryFactory(question=taxon, code="animal", position=0)
    categories["plant"] = CategoryFactory(question=taxon, code="plant", position=1)
    categories["dog"] = CategoryFactory(
        question=taxon, code="dog", position=2, parent=categories["animal"]
    )
    categories["cat"] = CategoryFactory(
        question=taxon, code="cat", position=3, parent=categories["animal"]
    )
    categories["tree"] = CategoryFactory(
        question=taxon, code="tree", position=4, parent=categories["plant"]
    )
    items = {key: ItemFactory(study=study, external_id=key) for key in ("doc-1", "doc-2")}
    coders = {key: CoderFactory(study=study, key=key) for key in ("alice", "bob")}
    return Scheme(
        study=study,
        round=open_round,
        closed_round=closed_round,
        sentiment=sentiment,
        topics=topics,
        taxon=taxon,
        age=age,
        score=score,
        categories=categories,
        items=items,
        coders=coders,
    )


def bulk_url(study: Study) -> str:
    return f"/api/v1/studies/{study.pk}/annotations/bulk/"


def annotations_url(study: Study) -> str:
    return f"/api/v1/studies/{study.pk}/annotations/"


def changes_url(study: Study) -> str:
    return f"/api/v1/studies/{study.pk}/annotation-changes/"
