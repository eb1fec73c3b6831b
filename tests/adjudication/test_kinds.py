"""Every label kind with a reference: sets (MASI), hierarchies (tree distance), numbers.

Two items, coder c1 and gold coder g; c1 agrees with g on the first item only, so its
accuracy is 1/2 whatever the kind (docs/references.md#adjudication-hand-round, same
counting); an entered label in each kind's format is accepted.
"""

from __future__ import annotations

from typing import Any

import pytest

from adjudication import services
from adjudication.models import ReferenceResult
from studies.models import LabelKind
from tests.computations.helpers import label_round, nominal_question
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

pytestmark = pytest.mark.django_db


def tree_question(study: Any) -> Any:
    question = QuestionFactory(study=study, kind=LabelKind.HIERARCHY, key="genre")
    news = CategoryFactory(question=question, code="news", position=0)
    CategoryFactory(question=question, code="report", parent=news, position=1)
    CategoryFactory(question=question, code="analysis", parent=news, position=2)
    return question


@pytest.mark.parametrize(
    ("kind", "table", "entered", "value", "distance"),
    [
        (LabelKind.SET, [["a|b", "a"], ["a|b", "b"]], "b|a", "a|b", "masi"),
        (LabelKind.HIERARCHY, [["report", "report"], ["report", "analysis"]], "news/analysis",
         "analysis", "tree"),
        (LabelKind.INTERVAL, [[1, 2], [1, 3]], "2.5", "2.5", "interval"),
        (LabelKind.RATIO, [[1, 2], [1, 3]], 4, "4", "ratio"),
        (LabelKind.ORDINAL, [["a", "b"], ["a", "c"]], "c", "c", "ordinal"),
    ],
)  # fmt: skip
def test_each_kind_against_the_reference(
    study: Any,
    django_capture_on_commit_callbacks: Any,
    kind: str,
    table: list[list[Any]],
    entered: Any,
    value: str,
    distance: str,
) -> None:
    if kind == LabelKind.HIERARCHY:
        question = tree_question(study)
    elif kind in (LabelKind.INTERVAL, LabelKind.RATIO):
        question = QuestionFactory(study=study, kind=kind, key="score")
    else:
        question = nominal_question(study, codes=("a", "b", "c"), kind=kind, key="q")
    round_ = RoundFactory(study=study, name="Round 1", position=1)
    coders = [CoderFactory(study=study, key=key) for key in ("c1", "g")]
    items = [ItemFactory(study=study, external_id=f"u{n}") for n in (1, 2)]
    label_round(round_, question, table, coders=coders, items=items)
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_coder_set(round_=round_, coder=coders[1])
    result = ReferenceResult.objects.get(round=round_, question=question)
    assert result.status == "done", result.error
    (c1,) = result.results["coders"]
    assert (c1["coder"], c1["n_items"]) == ("c1", 2)
    assert c1["accuracy"]["value"] == pytest.approx(0.5)
    assert result.results["distance"] == distance
    assert ("confusion" in c1) == (kind in (LabelKind.ORDINAL, LabelKind.HIERARCHY))
    with django_capture_on_commit_callbacks(execute=True):
        decision = services.adjudicate(
            round_=round_, question=question, item=items[1], label=entered
        )
    assert decision.value == value
    result.refresh_from_db()
    assert result.status == "done", result.error
    assert result.results["n_adjudicated"] == 1
