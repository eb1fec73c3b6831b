"""A study with span questions, for the span upload, API, export and scope tests.

Not a conftest: the span test modules build it through their own small fixtures.
"""

from __future__ import annotations

from dataclasses import dataclass

from studies.models import Category, Coder, Item, LabelKind, Question, Round, SpanUnit, Study
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

TEXT = "Alice met Bob in Paris."  # 23 characters: PER 0-5, PER 10-13, LOC 17-22


@dataclass
class SpanScheme:
    study: Study
    round: Round
    closed_round: Round
    entities: Question  # span, characters: PER, ORG, LOC
    turns: Question  # span, seconds: SPEAKER, NOISE
    sentiment: Question  # nominal: pos, neg
    categories: dict[str, Category]  # "PER", "ORG", "LOC", "SPEAKER", "NOISE", "pos", "neg"
    items: dict[str, Item]  # "doc-1" (TEXT), "doc-2" (extent 0..100, no text), "rec-1" (none)
    coders: dict[str, Coder]  # "alice", "bob"


def build_span_scheme(study: Study) -> SpanScheme:
    open_round = RoundFactory(study=study, name="Round 1", position=1)
    closed_round = RoundFactory(study=study, name="Pilot", position=0, closed=True)
    entities = QuestionFactory(
        study=study, key="entities", kind=LabelKind.SPAN, span_unit=SpanUnit.CHARACTER
    )
    turns = QuestionFactory(
        study=study, key="turns", kind=LabelKind.SPAN, span_unit=SpanUnit.SECOND
    )
    sentiment = QuestionFactory(study=study, key="sentiment", kind=LabelKind.NOMINAL)
    categories: dict[str, Category] = {}
    for question, codes in (
        (entities, ["PER", "ORG", "LOC"]),
        (turns, ["SPEAKER", "NOISE"]),
        (sentiment, ["pos", "neg"]),
    ):
        for position, code in enumerate(codes):
            categories[code] = CategoryFactory(question=question, code=code, position=position)
    items = {
        "doc-1": ItemFactory(study=study, external_id="doc-1", text=TEXT),
        "doc-2": ItemFactory(
            study=study, external_id="doc-2", text="", extent_begin=0, extent_end=100
        ),
        "rec-1": ItemFactory(study=study, external_id="rec-1", text=""),
    }
    coders = {key: CoderFactory(study=study, key=key) for key in ("alice", "bob")}
    return SpanScheme(
        study=study,
        round=open_round,
        closed_round=closed_round,
        entities=entities,
        turns=turns,
        sentiment=sentiment,
        categories=categories,
        items=items,
        coders=coders,
    )


def spans_url(study: Study) -> str:
    return f"/api/v1/studies/{study.pk}/annotations/spans/"
