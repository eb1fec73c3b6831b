"""The metrics library against its peers, side by side in one run (issue 12, part 2 goals).

Run from the repository root::

    python benchmarks/bench_peers.py              # full size (about 1,000,000 annotations)
    python benchmarks/bench_peers.py --scale 0.1  # quicker

Each figure is the median of ``--repeat`` timings of ours divided by the median of as many
timings of the peer on the same input, the two run alternately after a warm-up run each
(ours starts from the same array the peer gets, so reading it is part of our time). The
values are printed side by side and checked to agree to 1e-9.

====================================================  =====================================
figure                                                goal
====================================================  =====================================
alpha ordinal, 100k items × 10 coders (1M slots)      ≤ 0.3 × ``krippendorff.alpha``
Cohen's kappa, 2 × 500k                               ≤ 1.0 × sklearn ``cohen_kappa_score``
weighted kappa, 2 × 500k, linear and quadratic        ≤ 1.0 × sklearn (``weights=``)
Fleiss' multi-pi, 100k items × 10 coders              ≤ 0.5 × statsmodels ``fleiss_kappa``
                                                      (with ``aggregate_raters``)
interval alpha, 1M annotations, ~800k distinct reals  ≤ 3 × one ``np.sort`` of the values
====================================================  =====================================
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics import (
    ReliabilityData,
    cohen_kappa,
    fleiss_pi,
    krippendorff_alpha,
    weighted_kappa,
)


def timings(
    ours: Callable[[], Any], peer: Callable[[], Any], repeat: int
) -> tuple[float, float, Any, Any]:
    """Median wall times of ``repeat`` alternating runs of each (after one warm-up run each),
    and their last results. Alternating keeps a busy machine from favouring either side."""
    ours_result, peer_result = ours(), peer()
    ours_times, peer_times = [], []
    for _ in range(repeat):
        start = time.perf_counter()
        ours_result = ours()
        ours_times.append(time.perf_counter() - start)
        start = time.perf_counter()
        peer_result = peer()
        peer_times.append(time.perf_counter() - start)
    return statistics.median(ours_times), statistics.median(peer_times), ours_result, peer_result


def categorical(items: int, coders: int, categories: int, missing: float, seed: int) -> np.ndarray:
    """Coders × items float array of codes ``0..categories-1``, ``nan`` for missing."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, size=items)
    noise = rng.integers(0, categories, size=(coders, items))
    values = np.where(rng.random((coders, items)) < 0.7, truth, noise).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values


def side_by_side(
    label: str,
    ours: Callable[[], float],
    peer: Callable[[], float],
    goal: float,
    repeat: int,
    *,
    compare: bool = True,
    prebuilt: Callable[[], float] | None = None,
) -> float:
    """Print ours against the peer; with ``prebuilt``, also ours on ``ReliabilityData``
    built beforehand (long format, as the server calls it), for information."""
    ours_time, peer_time, ours_value, peer_value = timings(ours, peer, repeat)
    ratio = ours_time / peer_time
    verdict = "ok" if ratio <= goal else "MISSED"
    values = ""
    if compare:
        agree = abs(float(ours_value) - float(peer_value)) <= 1e-9
        values = f"  {float(ours_value):.10f} {'==' if agree else '!='} {float(peer_value):.10f}"
    print(
        f"{label:<48} ours {ours_time:7.3f} s  peer {peer_time:7.3f} s  "
        f"ratio {ratio:6.3f}  (goal ≤ {goal:g}: {verdict}){values}"
    )
    if prebuilt is not None:
        prebuilt_time, _, prebuilt_value, _ = timings(prebuilt, lambda: None, repeat)
        same = ""
        if compare:
            agree = abs(float(prebuilt_value) - float(ours_value)) <= 1e-12
            same = f"  {float(prebuilt_value):.10f} {'==' if agree else '!='} ours above"
        print(
            f"{'  same on prebuilt ReliabilityData':<48} ours {prebuilt_time:7.3f} s  "
            f"{'':16}ratio {prebuilt_time / peer_time:6.3f}  (the server's path){same}"
        )
    return ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full size")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    repeat = args.repeat
    items = int(100_000 * args.scale)
    pair_items = int(500_000 * args.scale)

    import krippendorff
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    print(f"scale {args.scale:g}: median of {repeat} runs each\n")

    # alpha ordinal: 100k items × 10 coders, 7-point scale, 10% missing.
    values = categorical(items, 10, 7, 0.1, seed=1)
    values_data = ReliabilityData.from_matrix(values)
    side_by_side(
        f"alpha ordinal {values.size:,} slots vs krippendorff",
        lambda: krippendorff_alpha(values, distance="ordinal").value,
        lambda: krippendorff.alpha(reliability_data=values, level_of_measurement="ordinal"),
        0.3,
        repeat,
        prebuilt=lambda: krippendorff_alpha(values_data, distance="ordinal").value,
    )

    # Cohen's kappa and weighted kappa: two coders, 500k items, 5 categories, complete.
    rng = np.random.default_rng(2)
    first = rng.integers(0, 5, size=pair_items)
    second = np.where(rng.random(pair_items) < 0.6, first, rng.integers(0, 5, size=pair_items))
    both = np.vstack([first, second])
    both_data = ReliabilityData.from_matrix(both)
    side_by_side(
        f"Cohen's kappa 2 × {pair_items:,} vs sklearn",
        lambda: cohen_kappa(both).value,
        lambda: cohen_kappa_score(first, second),
        1.0,
        repeat,
        prebuilt=lambda: cohen_kappa(both_data).value,
    )
    steps = np.abs(np.subtract.outer(np.arange(5), np.arange(5))).astype(float)
    for weights, distance in (("linear", steps), ("quadratic", "interval")):
        side_by_side(
            f"weighted kappa {weights} 2 × {pair_items:,} vs sklearn",
            lambda d=distance: weighted_kappa(both, distance=d).value,
            lambda w=weights: cohen_kappa_score(first, second, weights=w),
            1.0,
            repeat,
            prebuilt=lambda d=distance: weighted_kappa(both_data, distance=d).value,
        )

    # Fleiss' multi-pi: 100k items × 10 coders, 5 categories, complete (statsmodels needs it).
    ratings = categorical(items, 10, 5, 0.0, seed=3)
    ratings_data = ReliabilityData.from_matrix(ratings)

    def statsmodels_fleiss() -> float:
        table, _ = aggregate_raters(ratings.T.astype(int))
        return float(fleiss_kappa(table, method="fleiss"))

    side_by_side(
        f"Fleiss' multi-pi {ratings.size:,} vs statsmodels",
        lambda: fleiss_pi(ratings).value,
        statsmodels_fleiss,
        0.5,
        repeat,
        prebuilt=lambda: fleiss_pi(ratings_data).value,
    )

    # interval alpha: 210k items × 5 coders of reals, 5% missing (1M annotations), ~800k distinct.
    rng = np.random.default_rng(4)
    reals_items = int(210_000 * args.scale)
    truth = rng.normal(size=reals_items)
    grid = 10**5.7  # rounding to this grid leaves about 790k of 1M values distinct
    reals = np.round((truth + rng.normal(scale=0.5, size=(5, reals_items))) * grid) / grid
    reals[rng.random(reals.shape) < 0.05] = np.nan
    flat = reals[~np.isnan(reals)]
    reals_data = ReliabilityData.from_matrix(reals)
    distinct = np.unique(flat).size
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = float(
            krippendorff.alpha(reliability_data=reals[:, :300], level_of_measurement="interval")
        )
    check = krippendorff_alpha(reals[:, :300], distance="interval").value
    print(
        f"\ninterval alpha: {flat.size:,} annotations, {distinct:,} distinct values; "
        f"on the first 300 items ours {check:.10f}, krippendorff {reference:.10f}"
    )
    side_by_side(
        f"interval alpha {flat.size:,} vs one np.sort",
        lambda: krippendorff_alpha(reals, distance="interval").value,
        lambda: np.sort(flat),
        3.0,
        repeat,
        compare=False,
        prebuilt=lambda: krippendorff_alpha(reals_data, distance="interval").value,
    )


if __name__ == "__main__":
    main()
