"""The sparse core: crowd-sized data in memory linear in annotations.

Run from the repository root::

    python benchmarks/bench_sparse.py            # all four cases (the 6M case once)
    python benchmarks/bench_sparse.py --skip-6m  # the 1M cases only
    python benchmarks/bench_sparse.py --only-reals  # case 4 only

Prints, from one run (times are medians of ``--repeat`` runs, 7 by default; the 6M case
runs once):

1. nominal alpha on a dense 1M (100,000 items × 10 coders, every value present) from the
   array, against ``krippendorff.alpha`` on the same array (time ratio, goal ≤ 0.05); the
   array takes the count-table closed form, so the same array is also timed through the
   long-format core (``ReliabilityData.from_matrix``, then alpha of it);
2. nominal alpha on a sparse 1M (2,000 coders × 200,000 items, 5 per item) from shuffled
   (item, coder, label) triples: time ratio to case 1 through the long-format core (goal ≤ 3)
   and peak memory (goal ≤ 600 MB);
3. nominal alpha on 6M annotations (2,400 coders, 1,000,000 items, 6 per item): time
   (goal ≤ 15 s) and peak memory (goal ≤ 2 GB);
4. the agreement family on an interval question: 1M annotations (200,000 items × 5
   coders) with about 800,000 distinct reals (A_o, S, pi, kappa, AC1; AC2 and
   Brennan–Prediger with interval weights; the jackknife of AC2, pi and kappa and 100
   bootstrap replicates of pi and kappa; the linearised SEs; per-category agreement and
   item disagreement), step by step, once: no ``items × values`` table (it would hold
   1.6 × 10^11 numbers).

Each case runs in its own subprocess; its peak memory is the process's peak resident set
size (``resource.getrusage``), input arrays and interpreter included, and the peak of the
library's own allocations (``tracemalloc``, measured in a separate run; not for the 6M case).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from metrics import ReliabilityData, krippendorff_alpha  # noqa: E402

CATEGORIES = 5


def dense_matrix(items: int, coders: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, CATEGORIES, size=items)
    noise = rng.integers(0, CATEGORIES, size=(coders, items))
    return np.where(rng.random((coders, items)) < 0.7, truth, noise).astype(float)


def crowd_triples(
    coders: int, items: int, per_item: int, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shuffled (item, coder, label) triples: ``per_item`` distinct coders on every item."""
    rng = np.random.default_rng(seed)
    item = np.repeat(np.arange(items), per_item)
    start = rng.integers(0, coders, items)
    offsets = np.concatenate([[0], np.sort(rng.choice(np.arange(1, 50), per_item - 1, False))])
    coder = ((start[:, None] + offsets[None, :]) % coders).reshape(-1)
    truth = rng.integers(0, CATEGORIES, items)
    label = np.where(
        rng.random(item.size) < 0.7, truth[item], rng.integers(0, CATEGORIES, item.size)
    )
    order = rng.permutation(item.size)
    return item[order], coder[order], label[order]


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kB


def run_case(case: str, repeat: int) -> dict[str, Any]:
    """One case in this process: median time, peak RSS and tracemalloc peak."""
    if case == "dense":
        matrix = dense_matrix(100_000, 10)

        def compute() -> float:
            return krippendorff_alpha(matrix).value

        def through_core() -> float:
            return krippendorff_alpha(ReliabilityData.from_matrix(matrix)).value

        peer = _peer_time(matrix, repeat)
        core = _median_time(through_core, repeat)
    else:
        coders, items, per_item = (2_000, 200_000, 5) if case == "sparse" else (2_400, 1_000_000, 6)
        triples = crowd_triples(coders, items, per_item)

        def compute() -> float:
            return krippendorff_alpha(ReliabilityData.from_long(*triples)).value

        peer = core = None
    rss_before = peak_rss_mb()
    times = []
    value = float("nan")
    for _ in range(repeat):
        start = time.perf_counter()
        value = compute()
        times.append(time.perf_counter() - start)
    rss_peak = peak_rss_mb()
    traced_peak = None
    if case != "crowd6m":  # the 6M case runs once only (a shared machine)
        tracemalloc.start()
        compute()
        traced_peak = tracemalloc.get_traced_memory()[1] / 2**20
        tracemalloc.stop()
    return {
        "case": case,
        "median_s": statistics.median(times),
        "times_s": times,
        "alpha": value,
        "peak_rss_mb": rss_peak,
        "rss_before_mb": rss_before,
        "traced_peak_mb": traced_peak,
        "peer_median_s": peer,
        "core_median_s": core,
    }


def _median_time(compute: Callable[[], float], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        compute()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def continuous_triples(
    items: int = 200_000, coders: int = 5, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reals to 1e-6 around a true value per item; coders 1 and 2 copy coder 0 half the
    time, so about 800,000 of the 1,000,000 values are distinct and some pairs agree."""
    rng = np.random.default_rng(seed)
    values = np.round(rng.normal(size=(items, 1)) * 100 + rng.normal(size=(items, coders)) * 30, 6)
    for coder in (1, 2):
        copy = rng.random(items) < 0.5
        values[copy, coder] = values[copy, 0]
    item = np.repeat(np.arange(items), coders)
    coder_index = np.tile(np.arange(coders), items)
    return item, coder_index, values.ravel()


def reals_case() -> dict[str, Any]:
    """Case 4, step by step: seconds per step, the values, peak RSS and tracemalloc peak."""
    from metrics import (
        bennett_s,
        brennan_prediger,
        conger_kappa,
        decompose_gwet_ac1,
        fleiss_pi,
        gwet_ac1,
        item_disagreement,
        linearized_se,
        observed_agreement,
        per_category_agreement,
    )
    from metrics.coefficients.agreement import build_decomposition
    from metrics.uncertainty.bootstrap import bootstrap_chunk, jackknife_values

    triples = continuous_triples()
    tracemalloc.start()
    seconds: dict[str, float] = {}
    values: dict[str, float] = {}

    def step(name: str, work: Any) -> Any:
        start = time.perf_counter()
        result = work()
        seconds[name] = round(time.perf_counter() - start, 3)
        return result

    data = step("build ReliabilityData", lambda: ReliabilityData.from_long(*triples))
    for name, function in (
        ("observed_agreement", observed_agreement),
        ("s", bennett_s),
        ("pi", fleiss_pi),
        ("kappa", conger_kappa),
        ("ac1", gwet_ac1),
    ):
        values[name] = step(name, lambda f=function: f(data).value)
    for name, function in (
        ("ac2 (interval)", gwet_ac1),
        ("brennan_prediger (interval)", brennan_prediger),
    ):
        values[name] = step(name, lambda f=function: f(data, distance="interval").value)
    ac2 = step("ac2 decomposition", lambda: decompose_gwet_ac1(data, distance="interval"))
    step("ac2 jackknife", lambda: jackknife_values(ac2))
    for name, chance in (("pi", "pooled"), ("kappa", "coder")):
        decomposition = step(
            f"{name} decomposition", lambda c=chance, n=name: build_decomposition(data, n, c)[0]
        )
        step(f"{name} jackknife", lambda d=decomposition: jackknife_values(d))
        step(
            f"{name} bootstrap, 100 replicates",
            lambda d=decomposition: bootstrap_chunk(d, seed=0, start=0, stop=100),
        )
    for coefficient in ("fleiss", "conger"):
        step(
            f"{coefficient} linearised SE", lambda c=coefficient: linearized_se(data, coefficient=c)
        )
    step("per-category agreement", lambda: per_category_agreement(data))
    step("item disagreement", lambda: item_disagreement(data))
    traced = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return {
        "n_annotations": data.n_annotations,
        "n_items": data.n_items,
        "n_values": data.n_values,
        "seconds": seconds,
        "values": values,
        "traced_peak_mb": traced,
        "peak_rss_mb": peak_rss_mb(),
    }


def print_reals(result: dict[str, Any]) -> None:
    print(
        f"== 4. agreement family, interval, {result['n_annotations']:,} annotations "
        f"({result['n_items']:,} items × 5 coders), {result['n_values']:,} distinct reals, once"
    )
    for name, seconds in result["seconds"].items():
        print(f"{name:34s} {seconds:8.3f} s")
    print("values        " + ", ".join(f"{k} {v:.6f}" for k, v in result["values"].items()))
    print(
        f"peak memory   {result['peak_rss_mb']:8.0f} MB resident, "
        f"{result['traced_peak_mb']:.0f} MB allocated (tracemalloc, whole run)"
    )


def _peer_time(matrix: np.ndarray, repeat: int) -> float | None:
    try:
        import krippendorff
    except ImportError:
        return None
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def in_subprocess(case: str, repeat: int) -> dict[str, Any]:
    output = subprocess.run(
        [sys.executable, __file__, "--child", case, "--repeat", str(repeat)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", choices=["dense", "sparse", "crowd6m", "reals1m"])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--skip-6m", action="store_true")
    parser.add_argument("--only-reals", action="store_true")
    args = parser.parse_args()
    if args.child == "reals1m":
        print(json.dumps(reals_case()))
        return
    if args.child:
        print(json.dumps(run_case(args.child, args.repeat)))
        return
    if args.only_reals:
        print_reals(in_subprocess("reals1m", 1))
        return
    dense = in_subprocess("dense", args.repeat)
    print(f"== 1. nominal alpha, dense 1M (100,000 items × 10 coders), median of {args.repeat}")
    print(f"ours          {dense['median_s']:8.4f} s   alpha={dense['alpha']:.10f}")
    if dense["peer_median_s"] is not None:
        ratio = dense["median_s"] / dense["peer_median_s"]
        print(
            f"krippendorff  {dense['peer_median_s']:8.4f} s   ratio ours/peer {ratio:.3f} "
            "(goal ≤ 0.05)"
        )
    else:
        print("krippendorff package not installed")
    print(f"long format   {dense['core_median_s']:8.4f} s   (from_matrix, then alpha of it)")
    sparse = in_subprocess("sparse", args.repeat)
    print(
        "== 2. nominal alpha, sparse 1M (2,000 coders × 200,000 items, 5 per item), "
        f"median of {args.repeat}"
    )
    print(
        f"ours          {sparse['median_s']:8.3f} s   ratio to dense 1M in long format "
        f"{sparse['median_s'] / dense['core_median_s']:.2f} (goal ≤ 3)"
    )
    print(
        f"peak memory   {sparse['peak_rss_mb']:8.0f} MB resident (goal ≤ 600 MB; "
        f"{sparse['rss_before_mb']:.0f} MB with the input only), "
        f"{sparse['traced_peak_mb']:.0f} MB allocated by the computation (tracemalloc)"
    )
    print_reals(in_subprocess("reals1m", 1))
    if args.skip_6m:
        return
    crowd = in_subprocess("crowd6m", 1)
    print("== 3. nominal alpha, 6M annotations (2,400 coders × 1,000,000 items, 6 per item), once")
    print(f"ours          {crowd['median_s']:8.3f} s   (goal ≤ 15 s)")
    print(
        f"peak memory   {crowd['peak_rss_mb']:8.0f} MB resident (goal ≤ 2 GB; "
        f"{crowd['rss_before_mb']:.0f} MB with the input only)"
    )


if __name__ == "__main__":
    main()
