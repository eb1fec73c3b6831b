"""Does a plan keep its promise? Plans from four pilots, checked on studies from the truth.

The generating model: true alpha 0.8, categories 0.5/0.3/0.2, 3 coders. Each pilot (100
items, seeds 1-4) is planned for "alpha's 95% lower bound ≥ 0.7 with probability 0.8" with
each ``pilot_uncertainty``; then ``STUDIES`` studies of the planned size are drawn from the
generating model and given the report's BCa interval (1,000 replicates). Prints, per pilot
and option, the planned items and the share of studies that reached 0.7 (Monte-Carlo SE
sqrt(p(1-p)/STUDIES)). The oracle row plans from the true model itself.

    python benchmarks/bench_planning_promise.py [STUDIES]
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np

from metrics import decompose_krippendorff_alpha
from metrics.planning import PILOT_UNCERTAINTY, plan_items, plan_without_pilot
from metrics.uncertainty.bootstrap import bootstrap

PRIOR = np.array([0.5, 0.3, 0.2])
TRUE_ALPHA, CODERS, TARGET, POWER = 0.8, 3, 0.7, 0.8


def generate(rng: np.random.Generator, n_items: int) -> np.ndarray:
    true = rng.choice(3, size=n_items, p=PRIOR)
    keep = rng.random((CODERS, n_items)) < math.sqrt(TRUE_ALPHA)
    other = rng.choice(3, size=(CODERS, n_items), p=PRIOR)
    return np.where(keep, true[None, :], other).astype(float)


def achieved(n_items: int, studies: int) -> float:
    rng = np.random.default_rng(2023)
    reached = 0
    for study in range(studies):
        decomposition = decompose_krippendorff_alpha(generate(rng, n_items))
        reached += bootstrap(decomposition, replicates=1000, seed=study).low >= TARGET
    return reached / studies


def main() -> None:
    studies = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    oracle = plan_without_pilot(
        {"a": 0.5, "b": 0.3, "c": 0.2}, alpha=TRUE_ALPHA, coders=CODERS,
        decompose=decompose_krippendorff_alpha, target=TARGET, power=POWER, seed=0,
    )  # fmt: skip
    print(f"oracle (the true model): {oracle.n_items} items, achieved "
          f"{achieved(oracle.n_items, studies):.3f}", flush=True)  # fmt: skip
    for seed in (1, 2, 3, 4):
        pilot = decompose_krippendorff_alpha(generate(np.random.default_rng(seed), 100))
        for mode in PILOT_UNCERTAINTY:
            start = time.perf_counter()
            try:
                plan = plan_items(pilot, target=TARGET, power=POWER, seed=0, pilot_uncertainty=mode)
            except ValueError as error:
                print(f"pilot seed {seed}, {mode}: refused: {error}", flush=True)
                continue
            elapsed = time.perf_counter() - start
            print(f"pilot seed {seed} (alpha {float(pilot.evaluate()):.4f}), {mode}: "
                  f"{plan.n_items} items (plan {elapsed:.1f} s), achieved "
                  f"{achieved(plan.n_items, studies):.3f}", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
