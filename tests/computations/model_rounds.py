"""A round with people and a model coder, for the model-coder tests (computations, pages,
webhooks): the annotations as rows in the database and as long lists (external id, coder
key, label) for the independent computations the tests compare with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from studies.models import Coder, CoderKind, Item, Question, Round, Study
from tests.computations.helpers import label_round
from tests.factories import CoderFactory, ItemFactory, RoundFactory

PEOPLE = ("ann", "bob", "cid", "dan")


@dataclass
class ModelRound:
    round: Round
    people: list[Coder]
    model: Coder
    items: list[Item]
    #: One annotation per position: item external id, coder key, label.
    item_ids: list[str] = field(default_factory=list)
    coder_keys: list[str] = field(default_factory=list)
    labels: list[Any] = field(default_factory=list)


def model_round(
    study: Study,
    question: Question,
    *,
    codes: Sequence[Any] = ("a", "b", "c"),
    n_items: int = 60,
    model_only: int = 40,
    people_agree: float = 0.8,
    model_agree: float = 0.85,
    seed: int = 0,
    position: int = 1,
    people: Sequence[str] = PEOPLE,
    model: Coder | None = None,
    coders: list[Coder] | None = None,
    items: list[Item] | None = None,
) -> ModelRound:
    """People who label ``n_items`` items (each the truth with probability
    ``people_agree``), a model that labels those and ``model_only`` more."""
    rng = np.random.default_rng(seed)
    total = n_items + model_only
    truth = rng.integers(0, len(codes), total)
    table: list[list[Any]] = []
    for agree, count in [(people_agree, n_items)] * len(people) + [(model_agree, total)]:
        keep = rng.random(total) < agree
        noise = rng.integers(0, len(codes), total)
        row = [codes[t if k else m] for t, k, m in zip(truth, keep, noise, strict=True)]
        table.append([label if u < count else None for u, label in enumerate(row)])
    round_ = RoundFactory(study=study, name=f"R{position}", position=position)
    if coders is None:
        coders = [CoderFactory(study=study, key=key) for key in people]
    if model is None:
        model = CoderFactory(
            study=study,
            key="llm",
            kind=CoderKind.MODEL,
            model_name="gpt-test",
            model_version="2025-01",
            prompt_version="v1",
        )
    if items is None:
        items = [ItemFactory(study=study, external_id=f"i{u:03d}") for u in range(total)]
    label_round(round_, question, table, coders=[*coders, model], items=items)
    result = ModelRound(round=round_, people=list(coders), model=model, items=list(items))
    for coder, row in zip([*coders, model], table, strict=True):
        for item, label in zip(items, row, strict=True):
            if label is not None:
                result.item_ids.append(item.external_id)
                result.coder_keys.append(coder.key)
                result.labels.append(label)
    return result
