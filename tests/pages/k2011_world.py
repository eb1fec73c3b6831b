"""A two-round study whose second round is Krippendorff's (2011) reliability data.

Round R2 is the published example (docs/references.md#k2011-reliability-data: nominal alpha
0.743, D_o 0.200, D_e 0.779), so the pages' headline numbers are checked against published
values; round R1 is the same data with five labels changed (lower agreement, so the trend is
up). Labels are literal and the bootstrap seed is fixed, so every interval is reproducible.
"""

from __future__ import annotations

from typing import Any

from computations.models import Computation, ComputationStatus
from computations.services import computation_request
from studies.models import Coder, Question, Round, Study
from tests.computations.helpers import label_round, nominal_question
from tests.pages.conftest import PagesWorld

#: Coders A-D (rows) by units 1-12 (columns); None: not coded. Krippendorff (2011), example C.
K2011 = [
    ["1", "2", "3", "3", "2", "1", "4", "1", "2", None, None, None],
    ["1", "2", "3", "3", "2", "2", "4", "1", "2", "5", None, None],
    [None, "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", "3"],
    ["1", "2", "3", "3", "2", "4", "4", "1", "2", "5", "1", None],
]
#: R1: K2011 with coder A's units 3 and 8, coder B's unit 5 and coder D's units 2 and 9 changed.
ROUND_ONE = [
    ["1", "2", "1", "3", "2", "1", "4", "3", "2", None, None, None],
    ["1", "2", "3", "3", "4", "2", "4", "1", "2", "5", None, None],
    [None, "3", "3", "3", "2", "3", "4", "2", "2", "5", "1", "3"],
    ["1", "5", "3", "3", "2", "4", "4", "1", "4", "5", "1", None],
]
#: Bootstrap replicates and seed of every computation here.
BOOTSTRAP = {"bootstrap": 200, "seed": 0}


def compute(study: Study, question: Question, round_: Round, capture: Any) -> Computation:
    with capture(execute=True):
        result = computation_request(
            study=study, question=question, rounds=[round_], parameters=dict(BOOTSTRAP)
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def k2011_world(study: Study, capture: Any) -> PagesWorld:
    """Rounds R1 and R2 of the question "value" (codes 1-5), coded by coders A-D, computed."""
    question = nominal_question(study, codes=("1", "2", "3", "4", "5"), key="value")
    coders = [Coder.objects.create(study=study, key=key, name=key) for key in "ABCD"]
    rounds = [Round.objects.create(study=study, name=f"R{n}", position=n) for n in (1, 2)]
    _, items = label_round(rounds[0], question, ROUND_ONE, coders=coders)
    label_round(rounds[1], question, K2011, coders=coders, items=items)
    computations = [compute(study, question, round_, capture) for round_ in rounds]
    return PagesWorld(study, question, rounds, coders, computations)
