"""The sparse core: crowd-sized data in memory linear in annotations.

Run from the repository root::

    python benchmarks/bench_sparse.py            # all three cases (the 6M case once)
    python benchmarks/bench_sparse.py --skip-6m  # the two 1M cases only

Prints, from one run (times are medians of 3 runs, the 6M case runs once):

1. nominal alpha on a dense 1M (100,000 items × 10 coders, every value present) from the
   array, against ``krippendorff.alpha`` on the same array (time ratio, goal ≤ 0.05); the
   array takes the count-table closed form, so the same array is also timed through the
   long-format core (``ReliabilityData.from_matrix``, then alpha of it);
2. nominal alpha on a sparse 1M (2,000 coders × 200,000 items, 5 per item) from shuffled
   (item, coder, label) triples: time ratio to case 1 through the long-format core (goal ≤ 3)
   and peak memory (goal ≤ 600 MB);
3. nominal alpha on 6M annotations (2,400 coders, 1,000,000 items, 6 per item): time
   (goal ≤ 15 s) and peak memory (goal ≤ 2 GB).

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
    parser.add_argument("--child", choices=["dense", "sparse", "crowd6m"])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--skip-6m", action="store_true")
    args = parser.parse_args()
    if args.child:
        print(json.dumps(run_case(args.child, args.repeat)))
        return
    dense = in_subprocess("dense", args.repeat)
    print("== 1. nominal alpha, dense 1M (100,000 items × 10 coders), median of 3")
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
    print("== 2. nominal alpha, sparse 1M (2,000 coders × 200,000 items, 5 per item), median of 3")
    print(
        f"ours          {sparse['median_s']:8.3f} s   ratio to dense 1M in long format "
        f"{sparse['median_s'] / dense['core_median_s']:.2f} (goal ≤ 3)"
    )
    print(
        f"peak memory   {sparse['peak_rss_mb']:8.0f} MB resident (goal ≤ 600 MB; "
        f"{sparse['rss_before_mb']:.0f} MB with the input only), "
        f"{sparse['traced_peak_mb']:.0f} MB allocated by the computation (tracemalloc)"
    )
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
