"""Speed of the item bootstrap, and of one chunk against the whole for a worker fan-out.

Run from the repository root::

    python benchmarks/bench_bootstrap.py                 # 100,000 items × 5 coders
    python benchmarks/bench_bootstrap.py --items 20000   # quicker
    python benchmarks/bench_bootstrap.py --crowd-only    # section 3 only
    python benchmarks/bench_bootstrap.py --crowd-only --before-items 5000  # scaled "before"

Prints, from one run:

1. 1,000 BCa replicates of nominal alpha on 100,000 items × 5 coders (target < 5 s), built
   with ``decompose_krippendorff_alpha``; its parts (decomposition, replicates, jackknife and
   interval); and, as the peer, ``krippendorff.alpha`` recomputed on resampled data per
   replicate (timed on a few replicates and scaled to 1,000), as a time ratio;
2. one chunk of 100 replicates (what one worker computes) against the whole bootstrap, and a
   check that the combined chunks equal the unchunked result bit for bit;
3. 1,000 BCa replicates of multi-kappa and of Light's kappa on a crowd study (1M annotations:
   200,000 items, 2,000 coders, 5 per item, as ``bench_sparse``): the leave-one-item-out
   jackknife by the update of the totals (``Decomposition.leave_one_out``, what
   ``bootstrap`` uses) against the row-by-row ``finalize(total - row)`` it replaced (timed on
   every item, or on ``--before-items`` and scaled), the whole BCa before and after, and the
   largest difference of the jackknife values and of the interval bounds.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.bench_sparse import crowd_triples
from metrics import (
    Decomposition,
    ReliabilityData,
    bootstrap,
    bootstrap_chunk,
    bootstrap_combine,
    decompose_conger_kappa,
    decompose_krippendorff_alpha,
    decompose_light_kappa,
    jackknife_values,
)


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def categorical(items: int, coders: int, categories: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, categories, size=items)
    noise = rng.integers(0, categories, size=(coders, items))
    return np.where(rng.random((coders, items)) < 0.7, truth, noise).astype(float)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=100_000)
    parser.add_argument("--coders", type=int, default=5)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--chunk", type=int, default=100)
    parser.add_argument("--crowd-only", action="store_true", help="run section 3 only")
    parser.add_argument("--skip-crowd", action="store_true", help="leave section 3 out")
    parser.add_argument(
        "--before-items",
        type=int,
        default=None,
        help="time the row-by-row jackknife on this many items and scale (default: all)",
    )
    args = parser.parse_args()
    if args.crowd_only:
        crowd_kappas(args)
        return
    values = categorical(args.items, args.coders, 5, seed=0)
    print(
        f"data: {args.items:,} items × {args.coders} coders, 5 categories; "
        f"B = {args.replicates:,} replicates"
    )

    print("== 1. bootstrap of nominal alpha")
    build_time, decomposition = timed(lambda: decompose_krippendorff_alpha(values))
    total_time, result = timed(
        lambda: bootstrap(decomposition, replicates=args.replicates, seed=0, method="bca")
    )
    replicate_time, replicate_values = timed(
        lambda: bootstrap_chunk(decomposition, seed=0, start=0, stop=args.replicates)
    )
    print(f"decompose_krippendorff_alpha          {build_time:8.3f} s")
    print(
        f"bootstrap(..., method='bca')          {total_time:8.3f} s   alpha={result.estimate:.6f} "
        f"95% [{result.low:.6f}, {result.high:.6f}], degenerate {result.n_degenerate}"
    )
    combine_all_time, _ = timed(
        lambda: bootstrap_combine(
            decomposition, [replicate_values], seed=0, replicates=args.replicates
        )
    )
    print(f"  replicates alone (bootstrap_chunk)  {replicate_time:8.3f} s")
    print(f"  jackknife + BCa (bootstrap_combine) {combine_all_time:8.3f} s")
    print(
        f"decompose + bootstrap                 {build_time + total_time:8.3f} s   "
        f"(target < 5 s: {'met' if build_time + total_time < 5 else 'MISSED'})"
    )
    try:
        import krippendorff
    except ImportError:
        print("peer   krippendorff not installed")
    else:
        sample = 5
        rng = np.random.default_rng(0)

        def peer_replicates() -> None:
            for _ in range(sample):
                drawn = rng.integers(0, values.shape[1], size=values.shape[1])
                krippendorff.alpha(values[:, drawn], level_of_measurement="nominal")

        peer_time, _ = timed(peer_replicates)
        peer_total = peer_time / sample * args.replicates
        print(
            f"peer   krippendorff.alpha per replicate {peer_total:8.3f} s   "
            f"(scaled from {sample} replicates)   ratio ours/peer "
            f"{total_time / peer_total:.3f}"
        )

    print("== 2. fan-out: one chunk vs the whole")
    chunk_time, _ = timed(lambda: bootstrap_chunk(decomposition, seed=0, start=0, stop=args.chunk))
    chunks = [
        bootstrap_chunk(decomposition, seed=0, start=a, stop=min(a + args.chunk, args.replicates))
        for a in range(0, args.replicates, args.chunk)
    ]
    combine_time, combined = timed(
        lambda: bootstrap_combine(
            decomposition, chunks, seed=0, replicates=args.replicates, method="bca"
        )
    )
    workers = -(-args.replicates // args.chunk)
    print(f"one chunk of {args.chunk} replicates           {chunk_time:8.3f} s")
    print(f"combine {workers} chunks (jackknife, BCa)    {combine_time:8.3f} s")
    print(
        f"whole bootstrap                       {total_time:8.3f} s   ratio chunk/whole "
        f"{chunk_time / total_time:.3f}; {workers} workers: ~{chunk_time + combine_time:.3f} s"
    )
    print(f"chunked == unchunked bit for bit: {combined == result}")
    print(
        "replicate values identical: "
        f"{np.array_equal(np.concatenate(chunks), replicate_values, equal_nan=True)}"
    )
    if not args.skip_crowd:
        crowd_kappas(args)


def crowd_kappas(args: argparse.Namespace) -> None:
    """Section 3: BCa of the per-coder chance coefficients on 1M crowd annotations."""
    coders, items, per_item = 2_000, 200_000, 5
    print(
        f"== 3. BCa of multi-kappa and Light's kappa: {items * per_item:,} annotations, "
        f"{items:,} items, {coders:,} coders, {per_item} per item, B = {args.replicates:,}"
    )
    data = ReliabilityData.from_long(*crowd_triples(coders, items, per_item))
    for name, decompose in (
        ("multi-kappa", decompose_conger_kappa),
        ("Light's kappa", decompose_light_kappa),
    ):
        start = time.perf_counter()
        decomposition = decompose(data)
        build_time = time.perf_counter() - start
        print(f"{name}: decompose {build_time:.3f} s; item_stats {decomposition.item_stats.shape}")
        crowd_case(name, decomposition, args.replicates, args.before_items)


def crowd_case(
    name: str, decomposition: Decomposition, replicates: int, before_items: int | None
) -> None:
    """BCa of one coefficient with the update (after) and with the row-by-row jackknife
    (before: replicates + jackknife + interval, the steps ``bootstrap`` takes)."""
    items = decomposition.n_items
    row_by_row = dataclasses.replace(decomposition, leave_one_out=None)
    after_time, after = timed(
        lambda: bootstrap(decomposition, replicates=replicates, seed=0, method="bca")
    )
    replicate_time, values = timed(
        lambda: bootstrap_chunk(decomposition, seed=0, start=0, stop=replicates)
    )
    update_time, update = timed(lambda: jackknife_values(decomposition))
    stop = items if before_items is None else min(before_items, items)
    slow_time, slow = timed(lambda: jackknife_values(row_by_row, start=0, stop=stop))
    slow_time *= items / stop
    scaled = "" if stop == items else f" (scaled from {stop:,} items)"
    jackknife = np.concatenate([slow, update[stop:]])
    combine_time, before = timed(
        lambda: bootstrap_combine(
            decomposition, [values], seed=0, replicates=replicates, jackknife=jackknife
        )
    )
    before_time = replicate_time + slow_time + combine_time
    jack_diff = float(np.nanmax(np.abs(update[:stop] - slow)))
    bound_diff = max(abs(after.low - before.low), abs(after.high - before.high))
    print(f"  replicates (bootstrap_chunk)        {replicate_time:8.3f} s")
    print(f"  jackknife, row by row (before)      {slow_time:8.3f} s{scaled}")
    print(f"  jackknife, update (after)           {update_time:8.3f} s")
    print(
        f"  BCa total: before {before_time:8.3f} s, after {after_time:8.3f} s "
        f"(bootstrap(..., method='bca')); {name}={after.estimate:.6f} "
        f"95% [{after.low:.6f}, {after.high:.6f}]"
    )
    print(
        f"  largest difference: jackknife values {jack_diff:.1e}, interval bounds {bound_diff:.1e}"
    )


if __name__ == "__main__":
    main()
