"""Speed of the item bootstrap, and of one chunk against the whole for a worker fan-out.

Run from the repository root::

    python benchmarks/bench_bootstrap.py                 # 100,000 items × 5 coders
    python benchmarks/bench_bootstrap.py --items 20000   # quicker

Prints, from one run:

1. 1,000 BCa replicates of nominal alpha on 100,000 items × 5 coders (target < 5 s), built
   with ``decompose_krippendorff_alpha``; its parts (decomposition, replicates, jackknife and
   interval); and, as the peer, ``krippendorff.alpha`` recomputed on resampled data per
   replicate (timed on a few replicates and scaled to 1,000), as a time ratio;
2. one chunk of 100 replicates (what one worker computes) against the whole bootstrap, and a
   check that the combined chunks equal the unchunked result bit for bit.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics import (
    bootstrap,
    bootstrap_chunk,
    bootstrap_combine,
    decompose_krippendorff_alpha,
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
    args = parser.parse_args()
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


if __name__ == "__main__":
    main()
