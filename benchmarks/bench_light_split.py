"""Light's kappa on the split-by-items path: the chunks' rows, their merge and 1,000 BCa replicates.

A crowd study (``--items`` items, ``--coders`` coders, ``--per-item`` per item, as
``bench_sparse``) is cut into ``--ranges`` item ranges; each range's rows are built by
``computations.item_sums.chunk_sums`` (what an item-chunk worker stores) and the ranges are
merged by ``item_sums.merged_decompositions`` (what the combine step and every bootstrap
chunk do). Then ``metrics.bootstrap(..., method="bca")`` on the merged Light's kappa: the
replicates and the leave-one-item-out jackknife. No database: the library functions only.

Run from the repository root (``--replicates`` fewer than 1,000 and the replicate time is
also given scaled to 1,000)::

    python benchmarks/bench_light_split.py                      # 200,000 items, 2,000 coders
    python benchmarks/bench_light_split.py --replicates 41      # one replicate block

Figures in docs/operations.md#scaling.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "agreement_server.settings")
os.environ.setdefault("SECRET_KEY", "benchmark-only-secret-key-never-used-in-production-0123")
os.environ.setdefault("LOG_LEVEL", "WARNING")

import django

django.setup()

from bench_sparse import crowd_triples  # noqa: E402

from computations import item_sums  # noqa: E402
from metrics import bootstrap, bootstrap_chunk, jackknife_values  # noqa: E402

CODES = ["a", "b", "c", "d", "e"]
PARAMS = {"coefficients": ["light_kappa"], "level": "nominal", "distance": "nominal"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--coders", type=int, default=2_000)
    parser.add_argument("--per-item", type=int, default=5)
    parser.add_argument("--ranges", type=int, default=2)
    parser.add_argument("--replicates", type=int, default=1_000)
    args = parser.parse_args()

    item, coder, label = crowd_triples(args.coders, args.items, args.per_item)
    order = np.lexsort((coder, item))
    items, coders = item[order] + 1, coder[order] + 1
    labels = np.asarray(CODES)[label[order]]
    all_coders = sorted(set(coders.tolist()))
    options = {"kind": "nominal", "domain": CODES, "params": PARAMS}
    print(
        f"Light's kappa split by items: {items.size:,} annotations, {args.items:,} items, "
        f"{args.coders:,} coders, {args.per_item} per item, {args.ranges} ranges"
    )

    start = time.perf_counter()
    cuts = np.linspace(0, args.items, args.ranges + 1).astype(int)
    chunks = []
    for first, last in zip(cuts[:-1] + 1, cuts[1:], strict=True):
        kept = (items >= first) & (items <= last)
        sums = item_sums.chunk_sums(
            items=items[kept], coders=coders[kept], labels=labels[kept],
            all_coders=all_coders, fingerprint="", **options,
        )  # fmt: skip
        chunks.append((sums.blob, sums.summary))
    chunk_time = time.perf_counter() - start
    start = time.perf_counter()
    light = item_sums.merged_decompositions(chunks, all_coders=all_coders, **options)["light_kappa"]
    merge_time = time.perf_counter() - start
    print(f"  chunk rows ({args.ranges} ranges)    {chunk_time:8.2f} s")
    print(f"  merge                     {merge_time:8.2f} s; rows {light.item_stats.shape}")

    start = time.perf_counter()
    values = bootstrap_chunk(light, seed=0, start=0, stop=args.replicates)
    replicate_time = time.perf_counter() - start
    start = time.perf_counter()
    jackknife = jackknife_values(light)
    jackknife_time = time.perf_counter() - start
    start = time.perf_counter()
    result = bootstrap(light, replicates=args.replicates, seed=0, method="bca")
    bca_time = time.perf_counter() - start
    scale = 1_000 / args.replicates
    print(
        f"  replicates ({args.replicates:,})         {replicate_time:8.2f} s"
        + ("" if scale == 1 else f" (scaled to 1,000: {replicate_time * scale:.1f} s)")
    )
    print(f"  jackknife (update)        {jackknife_time:8.2f} s")
    print(
        f"  BCa ({args.replicates:,} replicates)    {bca_time:8.2f} s; "
        f"value {result.estimate:.15f} [{result.low:.15f}, {result.high:.15f}]"
    )
    print(
        f"  checksums: replicates {np.nansum(values):.15e}, jackknife {np.nansum(jackknife):.15e}"
    )


if __name__ == "__main__":
    main()
