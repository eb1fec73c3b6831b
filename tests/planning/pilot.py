"""The seeded pilot the planning tests share: 60 items, 3 coders, categories a, b, c.

Generated once with ``numpy.random.default_rng(14)`` (true category uniform, each coder keeps
it with probability 0.8, else a uniform draw) and written out here, so the tests do not depend
on the generator. Row ``c`` is coder c's labels of items 0..59. Its nominal alpha is
0.6158081373646883 and its label shares a 62/180, b 50/180, c 68/180
(``python -m metrics report pilot.csv --domain a,b,c --json``;
docs/references.md#server-plan-pilot).
"""

from __future__ import annotations

from studies.models import Question, Round
from tests.computations.helpers import label_round, nominal_question
from tests.factories import CoderFactory, ItemFactory

PILOT_ROWS = (
    "acabacbcabababaccbcabccaabccbbcbaacbcbcabbacababbccaaaacbaaa",
    "ccbbacbcbaabacacabcbcccaabcacbcaaacbccbcbbcbcbabbccaacacaaaa",
    "ccbbccbcbbaaacaccbcccccaabccabcbaacccccabbcccbabbccaaaacaaaa",
)


def pilot_round(round_: Round, *, key: str = "tone") -> Question:
    """Label ``round_`` with the pilot (items created in order item-000 … item-059)."""
    study = round_.study
    question = nominal_question(study, codes=("a", "b", "c"), key=key)
    coders = [CoderFactory(study=study, key=f"coder-{c}") for c in range(3)]
    items = [ItemFactory(study=study, external_id=f"item-{u:03d}") for u in range(60)]
    table = [list(row) for row in PILOT_ROWS]
    label_round(round_, question, table, coders=coders, items=items)
    return question
