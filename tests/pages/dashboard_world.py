"""A demo-like study for the dashboard and history pages, with numbers known in advance.

Question "value" (codes 1-5, coders A-D, items u1-u12): round R1 is Krippendorff's (2011)
data with five labels changed, round R2 is the published data (``tests/pages/k2011_world``;
docs/references.md#k2011-reliability-data): nominal alpha 0.482 in R1 and 0.743 in R2; the
multi-kappa of each category against the rest in R2 is irrCAC 0.4.4's ``conger()`` on the
binarised data (docs/references.md#k2011-per-category): 1 0.743, 2 0.688, 3 0.771, 4 0.787,
5 1.000.

Question "tone" (codes pos, neu, neg), round R2 only, coders A and B on items u1-u10, a
review rule sending every disagreement to review, and one adjudicated item (u4). Worked by
hand (Cohen's kappa of each category against the rest, two coders, no missing labels):

=====  ===  ===  ===  ===  ===  ===  ===  ===  ===  ===
item   u1   u2   u3   u4   u5   u6   u7   u8   u9   u10
A      pos  pos  pos  pos  neu  neu  neu  neg  neg  neg
B      pos  pos  pos  neu  neu  neu  neu  neg  neg  pos
=====  ===  ===  ===  ===  ===  ===  ===  ===  ===  ===

- pos: A 4/10, B 4/10; both pos on 3 items, both not on 5: p_o 0.8, p_e 0.4·0.4 + 0.6·0.6
  = 0.52, kappa 0.28 / 0.48 = 0.583.
- neg: A 3/10, B 2/10; p_o (2 + 7) / 10 = 0.9, p_e 0.06 + 0.56 = 0.62, kappa 0.28 / 0.38
  = 0.737.
- neu: A 3/10, B 4/10; p_o (3 + 6) / 10 = 0.9, p_e 0.12 + 0.42 = 0.54, kappa 0.36 / 0.46
  = 0.783.
- Cohen's kappa of A and B (each coder's mean agreement with the other): p_o 0.8, p_e
  0.4·0.4 + 0.3·0.4 + 0.3·0.2 = 0.34, kappa 0.46 / 0.66 = 0.697.
- Krippendorff's alpha: 20 values (pos 8, neu 7, neg 5), two disagreeing items: D_o = 4/20
  = 0.2, D_e = (20² − 8² − 7² − 5²) / (20·19) = 262/380; alpha = 1 − 0.2·380/262 = 0.710.
- The disputed items are u4 and u10 (each: its two coders disagree, D_o 1); the review queue
  takes both, and adjudicating u4 takes it out: one open item, one decided.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from adjudication.services import adjudicate
from review.services import review_rule_set
from studies.models import Coder, Item, Question, Round, Study
from tests.computations.helpers import label_round, nominal_question
from tests.pages.k2011_world import K2011, ROUND_ONE, compute

TONE = [
    ["pos", "pos", "pos", "pos", "neu", "neu", "neu", "neg", "neg", "neg"],
    ["pos", "pos", "pos", "neu", "neu", "neu", "neu", "neg", "neg", "pos"],
]


@dataclass
class DashboardWorld:
    study: Study
    value: Question
    tone: Question
    rounds: list[Round]
    coders: list[Coder]
    items: list[Item]


def dashboard_world(study: Study, capture: Any) -> DashboardWorld:
    study.name = "Reviews"
    study.save(update_fields=["name"])
    value = nominal_question(study, codes=("1", "2", "3", "4", "5"), key="value", position=0)
    tone = nominal_question(study, codes=("pos", "neu", "neg"), key="tone", position=1)
    coders = [Coder.objects.create(study=study, key=key, name=key) for key in "ABCD"]
    items = [Item.objects.create(study=study, external_id=f"u{n}") for n in range(1, 13)]
    rounds = [Round.objects.create(study=study, name=f"R{n}", position=n) for n in (1, 2)]
    label_round(rounds[0], value, ROUND_ONE, coders=coders, items=items)
    label_round(rounds[1], value, K2011, coders=coders, items=items)
    review_rule_set(question=tone, disagreement=True)
    label_round(rounds[1], tone, TONE, coders=coders[:2], items=items[:10])
    for round_ in rounds:
        compute(study, value, round_, capture)
    compute(study, tone, rounds[1], capture)
    with capture(execute=True):
        adjudicate(round_=rounds[1], question=tone, item=items[3], label="pos")
    return DashboardWorld(study, value, tone, rounds, coders, items)
