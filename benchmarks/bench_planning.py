"""Time to plan from a 1,000-item pilot (target: ≤ 5 s on this machine).

There is no Python peer for sample-size planning; R irr's ``N.cohen.kappa`` is compared by
its published value in ``tests/metrics/test_planning.py``, not by time. Prints the plan and
the wall time of one run for each ``pilot_uncertainty`` (docs/planning.md, "Performance").

    python benchmarks/bench_planning.py
"""

from __future__ import annotations

import math
import time

import numpy as np

from metrics import decompose_krippendorff_alpha
from metrics.planning import PILOT_UNCERTAINTY, plan_items, plan_without_pilot

PRIOR = np.array([0.5, 0.3, 0.2])


def pilot(n_items: int, coders: int, alpha: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    true = rng.choice(3, size=n_items, p=PRIOR)
    keep = rng.random((coders, n_items)) < math.sqrt(alpha)
    other = rng.choice(3, size=(coders, n_items), p=PRIOR)
    return np.where(keep, true[None, :], other).astype(float)


def main() -> None:
    decomposition = decompose_krippendorff_alpha(pilot(1000, 3, 0.75, seed=0))
    for option in PILOT_UNCERTAINTY:
        start = time.perf_counter()
        plan = plan_items(decomposition, target=0.7, power=0.9, seed=0, pilot_uncertainty=option)
        elapsed = time.perf_counter() - start
        print(
            f"pilot 1000 items x 3 coders, alpha {plan.estimate:.4f}, {plan.method}, "
            f"pilot uncertainty {option}: target 0.7, power 0.9 -> {plan.n_items} items "
            f"(p {plan.probability:.3f}), {len(plan.curve)} sizes x {plan.replicates} rounds: "
            f"{elapsed:.2f} s (limit 5 s, ratio {elapsed / 5:.2f})"
        )
    start = time.perf_counter()
    model = plan_without_pilot(
        {"a": 0.5, "b": 0.3, "c": 0.2}, alpha=0.7, coders=3,
        decompose=decompose_krippendorff_alpha, target=0.6, power=0.8, seed=0,
    )  # fmt: skip
    elapsed = time.perf_counter() - start
    print(f"no pilot, 3 coders, alpha 0.7: target 0.6, power 0.8 -> {model.n_items} items: "
          f"{elapsed:.2f} s")  # fmt: skip


if __name__ == "__main__":
    main()
