"""Speed and memory of the metrics library, side by side with the peer libraries.

Run from the repository root::

    python benchmarks/bench_metrics.py            # full size (1,000,000 annotation slots)
    python benchmarks/bench_metrics.py --items 20000   # quicker

Prints, from one run:

1. nominal alpha on 100,000 items × 10 coders (20% missing, 20 categories) against
   ``krippendorff.alpha`` on the same array, as a time ratio (target ≤ 0.1), and NLTK's
   ``AnnotationTask.alpha`` on a slice;
2. interval alpha on 10,000+ distinct real values: peak memory (tracemalloc) at two sizes,
   showing it grows linearly, against the V × V matrix a dense implementation needs;
3. every coefficient's time on the same data (target: each under 1 s).
"""

from __future__ import annotations

import argparse
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics import (
    alpha_individual,
    as_reliability_data,
    bennett_s,
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_pi,
    get_distance,
    gwet_ac1,
    krippendorff_alpha,
    light_kappa,
    observed_agreement,
    report,
    scott_pi,
    weighted_kappa,
)


def timed(function: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """Best wall time of ``repeat`` runs, and the last result."""
    best = float("inf")
    result = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def categorical(items: int, coders: int, categories: int, missing: float, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, size=items)
    noise = rng.integers(0, categories, size=(coders, items))
    values = np.where(rng.random((coders, items)) < 0.7, truth, noise).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values


def section_alpha_vs_peers(values: np.ndarray) -> None:
    print("== 1. nominal alpha vs peers")
    ours_time, ours = timed(lambda: krippendorff_alpha(values), repeat=3)
    print(f"ours   krippendorff_alpha(array)          {ours_time:8.3f} s  alpha={ours.value:.10f}")
    try:
        import krippendorff
    except ImportError:
        print("krippendorff package not installed")
    else:
        peer_time, peer = timed(
            lambda: krippendorff.alpha(reliability_data=values, level_of_measurement="nominal")
        )
        print(f"peer   krippendorff.alpha (fast-kripp.)   {peer_time:8.3f} s  alpha={peer:.10f}")
        ratio = ours_time / peer_time
        print(f"ratio  ours / krippendorff.alpha          {ratio:8.3f}  (target ≤ 0.1)")
    try:
        from nltk.metrics.agreement import AnnotationTask
    except ImportError:
        print("nltk not installed")
        return
    sliced = values[:, :2000]
    present = np.nonzero(~np.isnan(sliced))
    triples = [(f"c{c}", f"i{i}", int(sliced[c, i])) for c, i in zip(*present, strict=True)]
    nltk_time, nltk_alpha = timed(lambda: AnnotationTask(triples).alpha())
    slice_time, slice_alpha = timed(lambda: krippendorff_alpha(sliced), repeat=3)
    print(
        f"nltk   AnnotationTask.alpha on {sliced.shape[1]} items   {nltk_time:8.3f} s  "
        f"alpha={nltk_alpha:.10f}"
    )
    print(
        f"ours   same slice                         {slice_time:8.4f} s  "
        f"alpha={slice_alpha.value:.10f}  (nltk / ours = {nltk_time / slice_time:,.0f}×)"
    )


def section_interval_memory(items: int) -> None:
    print("\n== 2. interval alpha on distinct real values: memory")
    for size in (items // 2, items):
        rng = np.random.default_rng(size)
        truth = rng.normal(size=size)
        values = truth + rng.normal(scale=0.5, size=(5, size))
        values[rng.random(values.shape) < 0.2] = np.nan
        distinct = np.unique(values[~np.isnan(values)]).size
        elapsed, result = timed(lambda v=values: krippendorff_alpha(v, distance="interval"))
        tracemalloc.start()
        krippendorff_alpha(values, distance="interval")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        dense = distinct**2 * 8
        print(
            f"items {size:>7,} distinct values {distinct:>9,}  alpha={result.value:.6f}  "
            f"time {elapsed:6.3f} s  peak {peak / 2**20:8.1f} MiB  "
            f"(input {values.nbytes / 2**20:6.1f} MiB; a V×V float matrix would be "
            f"{dense / 2**30:,.0f} GiB)"
        )
    for level in ("ratio", "ordinal"):
        rng = np.random.default_rng(1)
        values = np.round(rng.gamma(2.0, 2.0, size=(5, 20000)), 3)
        values[rng.random(values.shape) < 0.2] = np.nan
        distinct = np.unique(values[~np.isnan(values)]).size
        elapsed, result = timed(lambda lv=level, v=values: krippendorff_alpha(v, distance=lv))
        tracemalloc.start()
        krippendorff_alpha(values, distance=level)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        print(
            f"{level:<8} 20,000 items, {distinct:,} distinct values: alpha={result.value:.6f}  "
            f"time {elapsed:6.3f} s  peak {peak / 2**20:6.1f} MiB"
        )


def section_every_coefficient(values: np.ndarray) -> None:
    print("\n== 3. every coefficient on the same data (target: each < 1 s)")
    data = as_reliability_data(values)
    two = as_reliability_data(values[:2])
    print(
        f"data: {data.n_coders} coders × {data.n_items:,} items, {data.n_annotations:,} "
        f"annotations, {data.n_values} categories; two-coder slice {two.n_annotations:,}"
    )
    interval = get_distance("interval")
    rows: list[tuple[str, Callable[[], Any]]] = [
        ("krippendorff_alpha nominal", lambda: krippendorff_alpha(data)),
        ("krippendorff_alpha ordinal", lambda: krippendorff_alpha(data, distance="ordinal")),
        ("krippendorff_alpha interval", lambda: krippendorff_alpha(data, distance="interval")),
        ("krippendorff_alpha ratio", lambda: krippendorff_alpha(data, distance="ratio")),
        ("alpha_individual nominal", lambda: alpha_individual(data)),
        ("observed_agreement", lambda: observed_agreement(data)),
        ("bennett_s", lambda: bennett_s(data)),
        ("fleiss_pi", lambda: fleiss_pi(data)),
        ("conger_kappa", lambda: conger_kappa(data)),
        ("light_kappa", lambda: light_kappa(data)),
        ("scott_pi (2 coders)", lambda: scott_pi(two)),
        ("cohen_kappa (2 coders)", lambda: cohen_kappa(two)),
        ("weighted_kappa (2 coders) weighted", lambda: weighted_kappa(two, distance=interval)),
        ("gwet_ac1", lambda: gwet_ac1(data)),
        ("gwet_ac1 weighted", lambda: gwet_ac1(data, distance=interval)),
        ("brennan_prediger", lambda: brennan_prediger(data)),
        ("report() (all of the above)", lambda: report(data)),
    ]
    for label, function in rows:
        elapsed, result = timed(function, repeat=2)
        value = result.value if hasattr(result, "value") else float("nan")
        flag = "" if elapsed < 1.0 else "  <-- over 1 s"
        print(f"{label:<34} {elapsed:8.3f} s  value={value: .6f}{flag}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--coders", type=int, default=10)
    parser.add_argument("--categories", type=int, default=20)
    parser.add_argument("--missing", type=float, default=0.2)
    args = parser.parse_args()
    values = categorical(args.items, args.coders, args.categories, args.missing, seed=0)
    print(
        f"data: {args.coders} coders × {args.items:,} items = {values.size:,} slots, "
        f"{int(np.count_nonzero(~np.isnan(values))):,} annotations ({args.missing:.0%} missing), "
        f"{args.categories} categories\n"
    )
    section_alpha_vs_peers(values)
    section_interval_memory(max(args.items, 20_000))
    section_every_coefficient(values)


if __name__ == "__main__":
    main()
