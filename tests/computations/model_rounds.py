"""A round with people and a model coder, for the model-coder tests (computations, pages,
webhooks): the annotations as rows in the database and as long lists (external id, coder
key, label) for the independent computations the tests compare with."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from studies.models import Coder, CoderKind, Item, Question, Round, Study
from tests.computations.helpers import label_round, nominal_question
from tests.factories import CoderFactory, ItemFactory, QuestionFactory, RoundFactory

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


# -- judge diagnostics ---------------------------------------------------------------------

#: Two runs of one model on ten items that differ on item 8 only. Nominal alpha by hand: 20
#: values, 9 "a" and 11 "b"; the one disagreeing item puts 1 in o_ab and 1 in o_ba, so
#: D_o = 2/20 = 0.1 and D_e = 2·9·11/(20·19) = 198/380; alpha = 1 − 0.1·380/198 = 80/99
#: (0.80808…, as krippendorff 0.9.0 gives: docs/references.md).
RUN_ONE = list("aabbabbaab")
RUN_TWO = list("aabbabbabb")


def two_runs(study: Any, question: Any) -> tuple[Any, list[Any]]:
    """Three people and two model coders of one model (same name and version, prompts v1
    and v2) on ten items."""
    round_ = RoundFactory(study=study, position=1)
    model = {"kind": CoderKind.MODEL, "model_name": "gpt-test", "model_version": "2025-01"}
    runs = [
        CoderFactory(study=study, key=key, prompt_version=prompt, **model)
        for key, prompt in (("llm-a", "v1"), ("llm-b", "v2"))
    ]
    people = [CoderFactory(study=study, key=key) for key in ("ann", "bob", "cid")]
    items = [ItemFactory(study=study, external_id=f"i{u}") for u in range(10)]
    label_round(round_, question, [list("aabbabbaab")] * 3, coders=people, items=items)
    label_round(round_, question, [RUN_ONE, RUN_TWO], coders=runs, items=items)
    return round_, runs


def preference_round(study: Any, client: Any, *, position: int = 1) -> Any:
    """A preference question: the model coder ``judge`` picks the option shown first on 9 of
    its 10 non-tie choices (and makes one tie); people ``ann`` and ``bob`` pick A on items
    where A and B alternate in first place."""
    question = QuestionFactory(study=study, key="pref", kind="preference")
    RoundFactory(study=study, name="Round 1", position=position)
    CoderFactory(study=study, key="judge", kind=CoderKind.MODEL, model_name="gpt-judge",
                 model_version="2025-02", prompt_version="p3")  # fmt: skip
    rows = []
    for u in range(11):
        shown = "A" if u % 2 == 0 else "B"
        other = "B" if shown == "A" else "A"
        choice = "tie" if u == 10 else (other if u == 9 else shown)
        rows.append({"item": f"d{u}", "coder": "judge", "choice": choice, "shown_first": shown})
        for person in ("ann", "bob"):
            rows.append({"item": f"d{u}", "coder": person, "choice": "A", "shown_first": shown})
    response = client.post(
        f"/api/v1/studies/{study.pk}/annotations/structured/",
        {"round": "Round 1", "question": "pref", "rows": rows},
        format="json",
    )
    assert response.status_code in (200, 201), response.content
    return question


#: Twenty model labels in ten pairs of confidences (0.50, 0.52), (0.55, 0.57), …, (0.95,
#: 0.97): ten equal-mass bins of two (percentile edges at positions 1.9·j of the sorted
#: confidences fall strictly between each pair). The people say "a" on every item; the model
#: says "a" then "b" in the first five pairs (accuracy ½) and "a" twice in the last five.
#: By hand, bin b has mean confidence 0.51 + 0.05·b and
#: ECE = (2/20)·[Σ_{b<5} (0.01 + 0.05·b) + Σ_{b≥5} (0.49 − 0.05·b)] = 0.1·(0.55 + 0.70) = 0.125.
CONFIDENCES = [round(0.50 + 0.05 * b + 0.02 * k, 2) for b in range(10) for k in range(2)]
MODEL_LABELS = ["a", "b"] * 5 + ["a", "a"] * 5


def calibration_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for u, (label, confidence) in enumerate(zip(MODEL_LABELS, CONFIDENCES, strict=True)):
        rows += [{"item": f"i{u}", "coder": person, "label": "a"} for person in PEOPLE[:3]]
        rows.append({"item": f"i{u}", "coder": "llm", "label": label, "confidence": confidence})
    # The people split three ways on i20: no majority, so its confidence has no reference.
    split = zip(PEOPLE[:3], "abc", strict=True)
    rows += [{"item": "i20", "coder": person, "label": code} for person, code in split]
    rows.append({"item": "i20", "coder": "llm", "label": "a", "confidence": 0.9})
    return rows


#: Five items, three people and the model coder ``llm`` with a confidence per label:
#: (the people's labels, the model's label and confidence). i1's majority is "a"; i3 and i4
#: have no majority. :data:`ADJUDICATED` overturns i1's majority and settles i3.
ADJUDICATION_CASE = {
    "i0": ("aaa", "a", 0.9),
    "i1": ("aab", "b", 0.8),
    "i2": ("bbb", "b", 0.7),
    "i3": ("abc", "a", 0.6),
    "i4": ("abc", "b", 0.5),
}
ADJUDICATED = {"i1": "b", "i3": "c"}


def adjudication_case_rows() -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for item, (people, label, confidence) in ADJUDICATION_CASE.items():
        rows += [
            {"item": item, "coder": person, "label": code}
            for person, code in zip(PEOPLE[:3], people, strict=True)
        ]
        rows.append({"item": item, "coder": "llm", "label": label, "confidence": confidence})
    return rows


def upload(client: Any, study: Any, rows: list[dict[str, Any]]) -> Any:
    return client.post(
        f"/api/v1/studies/{study.pk}/annotations/bulk/",
        {"round": "R1", "question": "q", "annotations": rows, "create_missing": True},
        format="json",
    )


def calibration_round(study: Study, client: Any) -> tuple[Question, Round]:
    """Question ``q``, round ``R1``, three people and the model coder ``llm`` with the
    confidences of :func:`calibration_rows`, uploaded through the API."""
    question = nominal_question(study, key="q")
    round_ = RoundFactory(study=study, name="R1", position=1)
    CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test")
    response = upload(client, study, calibration_rows())
    assert response.status_code in (200, 201), response.content
    return question, round_
