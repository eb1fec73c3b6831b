"""Time Krenn, Evert & Zinsmeister's true-agreement intervals at n = 10,000 (target < 2 s).

Run from the tree root: ``python benchmarks/bench_true_agreement.py``. Prints one line per
model and rule with the interval found and the best wall time of a few runs. The table is
annotator NN1's reconstructed table (spec §2.2) scaled from 855 to about 10,000 items.
No peer library implements these intervals, so there is no ratio column.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics import true_agreement_interval

TARGET_SECONDS = 2.0
REPEATS = 3


TABLES = {
    "NN1 x 11.7 (skewed)": [[1275, 234], [643, 7848]],  # NN1 (109, 20, 55, 671) scaled
    "balanced": [[4000, 1000], [900, 4100]],
}


def main() -> None:
    for label, table in TABLES.items():
        run(label, table)


def run(label: str, table: list[list[int]]) -> None:
    n = sum(map(sum, table))
    print(f"true_agreement_interval, {label}, n = {n:,}, table {table}")
    print(f"{'model':<13} {'rule':<8} {'interval (m)':<16} {'best of 3 (s)':>13}  target")
    for model in ("conservative", "homogeneity"):
        for rule in ("paper", "minlike"):
            best = float("inf")
            for _ in range(REPEATS):
                start = time.perf_counter()
                result = true_agreement_interval(table, model=model, rule=rule)
                best = min(best, time.perf_counter() - start)
            verdict = "ok" if best < TARGET_SECONDS else "SLOW"
            span = f"[{result.m_low}, {result.m_high}]"
            print(f"{model:<13} {rule:<8} {span:<16} {best:>13.3f}  < {TARGET_SECONDS} s {verdict}")


if __name__ == "__main__":
    main()
