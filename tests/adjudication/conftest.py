"""The round every adjudication test starts from (coders c1, c2 and the gold coder g;
question ``sentiment``, categories a, b, c)::

    item  c1  c2  g
    u1    a   a   a
    u2    a   b   b
    u3    b   b   b
    u4    a   a   b

Against g: c1 agrees on u1 and u3 (accuracy 2/4), c2 on u1, u2 and u3 (3/4).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from tests.computations.helpers import label_round, nominal_question
from tests.factories import CoderFactory, ItemFactory, RoundFactory

TABLE = [
    ["a", "a", "b", "a"],
    ["a", "b", "b", "a"],
    ["a", "b", "b", "b"],
]


@pytest.fixture(autouse=True)
def _small_bootstrap() -> Any:
    with override_settings(AGREEMENT_REFERENCE_BOOTSTRAP=50):
        yield


@pytest.fixture
def gold_round(study: Any) -> dict[str, Any]:
    question = nominal_question(study, key="sentiment")
    round_ = RoundFactory(study=study, name="Round 1", position=1)
    coders = [CoderFactory(study=study, key=key) for key in ("c1", "c2", "g")]
    items = [ItemFactory(study=study, external_id=f"u{n}", text=f"Text {n}") for n in (1, 2, 3, 4)]
    label_round(round_, question, TABLE, coders=coders, items=items)
    return {"question": question, "round": round_, "coders": coders, "items": items}
