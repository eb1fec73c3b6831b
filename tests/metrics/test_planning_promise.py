"""A sample-size plan keeps its promise under the process that generated the pilot.

The generating model is fixed (true alpha 0.8, categories 0.5/0.3/0.2, 3 coders, written out
below independently of ``metrics.planning``); a pilot of 100 items is drawn from it, a plan
is made for "the 95% lower bound of alpha ≥ 0.7 with probability 0.8" with the library's
defaults, and 200 studies of the planned size are then drawn from the *generating model*,
not from the pilot. Each study gets the round report's own interval: the BCa bootstrap of
``metrics.uncertainty.bootstrap`` with the report's default 1,000 replicates
(``studies.kinds.common.INTERVAL_DEFAULTS``). The share of studies whose lower bound reaches
0.7 must be at least the requested 0.8 less three Monte-Carlo standard errors.

The pilot (seed 3) comes out high, alpha 0.8184 against the true 0.8: the case of issue 23,
where a plan that took the pilot as the truth and simulated a normal interval reached the
target in only 0.63 of the studies (docs/planning.md, docs/references.md#plan-promise).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics import decompose_krippendorff_alpha
from metrics.planning import plan_items
from metrics.uncertainty.bootstrap import bootstrap

PRIOR = np.array([0.5, 0.3, 0.2])
TRUE_ALPHA = 0.8
CODERS = 3
TARGET = 0.7
POWER = 0.8
STUDIES = 200
REPORT_REPLICATES = 1000  # the report's default (studies.kinds.common.INTERVAL_DEFAULTS)


def generate(rng: np.random.Generator, n_items: int) -> np.ndarray:
    """Coders × items codes: a true category per item from PRIOR; each coder reports it with
    probability sqrt(alpha), otherwise a draw from PRIOR. Two coders agree with probability
    p² + (1 − p²)Σπ² against chance Σπ², so the population alpha is p² = TRUE_ALPHA."""
    true = rng.choice(3, size=n_items, p=PRIOR)
    keep = rng.random((CODERS, n_items)) < math.sqrt(TRUE_ALPHA)
    other = rng.choice(3, size=(CODERS, n_items), p=PRIOR)
    return np.where(keep, true[None, :], other).astype(float)


@pytest.mark.slow
def test_the_plan_reaches_its_target_in_studies_from_the_generating_model() -> None:
    pilot = decompose_krippendorff_alpha(generate(np.random.default_rng(3), 100))
    assert float(pilot.evaluate()) == pytest.approx(0.8184, abs=5e-5)  # 0.018 above the truth
    plan = plan_items(pilot, target=TARGET, power=POWER, seed=0)
    rng = np.random.default_rng(2023)
    reached = 0
    for study in range(STUDIES):
        decomposition = decompose_krippendorff_alpha(generate(rng, plan.n_items))
        interval = bootstrap(decomposition, replicates=REPORT_REPLICATES, seed=study)
        reached += interval.low >= TARGET
    achieved = reached / STUDIES
    # Monte-Carlo standard error of a share of STUDIES independent studies whose true
    # probability is POWER: sqrt(POWER (1 − POWER) / STUDIES) = sqrt(0.16 / 200) = 0.0283.
    standard_error = math.sqrt(POWER * (1.0 - POWER) / STUDIES)
    assert achieved >= POWER - 3.0 * standard_error, (plan.n_items, achieved)
