"""Speed and memory of Krippendorff's α_U on 10,000 documents × 3 coders × 30 units.

Run from the repository root::

    python benchmarks/bench_unitizing.py                   # 900,000 units (target ≤ 5 s)
    python benchmarks/bench_unitizing.py --documents 2000  # quicker

Prints, from one run: seconds and peak traced memory (tracemalloc) of ``unitizing_alpha`` and
of ``decompose_unitizing_alpha`` on the whole data; the time of a 1,000-replicate bootstrap
over documents from that decomposition; and, since no Python library computes α_U,
a plain-Python reference written here (a sweep over each coder pair's segments per document
and category, the way DKPro Statistics computes it, and the expected disagreement from sorted
gap lengths) timed on a 1% subsample of the documents, with its time per unit against ours
as a ratio, and a check that both give the same α_U on that subsample.

The data: each document has 30 slots of 100 positions; each slot holds one "true" unit of
10–60 positions in one of 3 categories; each coder moves either boundary by up to 3 positions
and relabels 10% of the units. One coder's units never overlap (one per slot).
"""

from __future__ import annotations

import argparse
import bisect
import sys
import time
import tracemalloc
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.spans import SpanData
from metrics.spans.unitizing import decompose_unitizing_alpha, unitizing_alpha
from metrics.uncertainty.bootstrap import bootstrap

SLOTS = 30
SLOT = 100
CATEGORIES = 3


def generate(documents: int, coders: int, seed: int) -> SpanData:
    rng = np.random.default_rng(seed)
    true_begin = (np.arange(SLOTS) * SLOT)[None, :] + rng.integers(0, 30, size=(documents, SLOTS))
    true_end = true_begin + rng.integers(10, 61, size=(documents, SLOTS))
    true_category = rng.integers(0, CATEGORIES, size=(documents, SLOTS))
    slot_low = (np.arange(SLOTS) * SLOT)[None, None, :]
    shape = (documents, coders, SLOTS)
    begin = np.clip(true_begin[:, None, :] + rng.integers(-3, 4, size=shape), slot_low, None)
    end = np.clip(true_end[:, None, :] + rng.integers(-3, 4, size=shape), None, slot_low + SLOT)
    end = np.maximum(end, begin + 1)
    category = np.where(
        rng.random(shape) < 0.9,
        true_category[:, None, :],
        rng.integers(0, CATEGORIES, size=shape),
    )
    kept = np.ones(shape, dtype=bool)
    document = np.broadcast_to(np.arange(documents)[:, None, None], shape)
    coder = np.broadcast_to(np.arange(coders)[None, :, None], shape)
    return SpanData.from_arrays(
        document[kept],
        coder[kept],
        begin[kept],
        end[kept],
        category[kept],
        extents={d: (0, SLOTS * SLOT) for d in range(documents)},
        complete=True,
    )


# -- the plain-Python reference -----------------------------------------------------------------


def _distance(b1: float, e1: float, u1: bool, b2: float, e2: float, u2: bool) -> float:
    if u1 and u2 and b1 < e2 and b2 < e1:
        return (b1 - b2) ** 2 + (e1 - e2) ** 2
    if u1 and not u2 and b2 <= b1 and e1 <= e2:
        return (e1 - b1) ** 2
    if u2 and not u1 and b1 <= b2 and e2 <= e1:
        return (e2 - b2) ** 2
    return 0.0


def _segments(units: list[tuple[float, float]], low: float, high: float) -> list[tuple]:
    segments, position = [], low
    for b, e in units:
        if b > position:
            segments.append((position, b, False))
        segments.append((b, e, True))
        position = e
    if high > position:
        segments.append((position, high, False))
    return segments


def _pair_sum(first: list[tuple], second: list[tuple]) -> float:
    """Sweep both segment lists; each pair of segments that meet is compared once."""
    total, i, j = 0.0, 0, 0
    while i < len(first) and j < len(second):
        total += _distance(*first[i], *second[j])
        first_end, second_end = first[i][1], second[j][1]
        i += first_end <= second_end
        j += second_end <= first_end
    return total


def reference_alpha(data: SpanData) -> float:
    """α_U of ``data`` (every coder on every document), loop by loop."""
    by_key: dict[tuple[int, int, int], list[tuple[float, float]]] = defaultdict(list)
    for d, c, b, e, k in zip(
        data.document.tolist(),
        data.coder.tolist(),
        data.begin.tolist(),
        data.end.tolist(),
        data.category.tolist(),
        strict=True,
    ):
        by_key[(k, d, c)].append((b, e))
    m = data.n_coders
    lengths = data.document_lengths.tolist()
    n = m * sum(lengths)
    scale = sum(lengths)
    observed, expected = [], []
    for k in range(data.n_categories):
        total = 0.0
        units: list[float] = []
        gap_lengths: list[float] = []
        for d in range(data.n_documents):
            low, high = data.extents[d].tolist()
            segments = [_segments(by_key[(k, d, c)], low, high) for c in range(m)]
            for c in range(m):
                units += [e - b for b, e, unit in segments[c] if unit]
                gap_lengths += [e - b for b, e, unit in segments[c] if not unit]
            for i in range(m):
                for j in range(i + 1, m):
                    total += 2 * _pair_sum(segments[i], segments[j]) / (m - 1)
        gap_lengths.sort()
        suffix = [0.0] * (len(gap_lengths) + 1)
        for i in range(len(gap_lengths) - 1, -1, -1):
            suffix[i] = suffix[i + 1] + gap_lengths[i] + 1
        x = 0.0
        for length in units:
            first = bisect.bisect_left(gap_lengths, length)
            fitting = len(gap_lengths) - first
            x += (len(units) - 1) * length * (length - 1) * (2 * length - 1) / 3
            x += length**2 * (suffix[first] - length * fitting)
        square = sum(v * (v - 1) for v in units)
        observed.append(total / (n * scale))
        expected.append(2 * x / (scale * (n * (n - 1) - square)))
    return 1 - float(np.mean(observed)) / float(np.mean(expected))


# -- measuring ----------------------------------------------------------------------------------


def measured(function: Callable[[], Any]) -> tuple[float, float, Any]:
    """Seconds (untraced run) and peak traced MB (a second, traced run) of ``function()``."""
    start = time.perf_counter()
    result = function()
    seconds = time.perf_counter() - start
    tracemalloc.start()
    function()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return seconds, peak / 1e6, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--coders", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    start = time.perf_counter()
    data = generate(args.documents, args.coders, args.seed)
    print(
        f"data: {data.n_documents:,} documents × {data.n_coders} coders, {data.n_units:,} units, "
        f"{data.n_categories} categories (built in {time.perf_counter() - start:.1f} s)"
    )
    unit_mb = sum(a.nbytes for a in (data.begin, data.end, data.document, data.coder)) / 1e6
    print(f"  unit arrays: {unit_mb:.0f} MB")

    unitizing_alpha(data.select(np.arange(min(50, data.n_documents))))  # warm up
    seconds, peak, result = measured(lambda: unitizing_alpha(data))
    print(
        f"unitizing_alpha:           {seconds:6.2f} s  peak {peak:6.0f} MB  "
        f"alpha_U {result.value:.4f} (D_o {result.observed:.4g}, D_e {result.expected:.4g})"
    )
    seconds_dec, peak_dec, decomposition = measured(lambda: decompose_unitizing_alpha(data))
    print(
        f"decompose_unitizing_alpha: {seconds_dec:6.2f} s  peak {peak_dec:6.0f} MB  "
        f"{decomposition.item_stats.shape[0]:,} × {decomposition.item_stats.shape[1]:,}, "
        f"{decomposition.item_stats.nnz:,} non-zeros; evaluates to {decomposition.evaluate():.4f}"
    )

    start = time.perf_counter()
    interval = bootstrap(decomposition, seed=args.seed, replicates=1000, confidence=0.95)
    print(
        f"bootstrap over documents, 1,000 replicates ({interval.method}): "
        f"{time.perf_counter() - start:.2f} s, 95% [{interval.low:.4f}, {interval.high:.4f}]"
    )

    chosen = np.arange(0, data.n_documents, 100)
    sample = data.select(chosen)
    ours_seconds, _, ours = measured(lambda: unitizing_alpha(sample))
    start = time.perf_counter()
    reference = reference_alpha(sample)
    reference_seconds = time.perf_counter() - start
    per_unit_ours = seconds / data.n_units
    per_unit_reference = reference_seconds / sample.n_units
    print(
        f"plain-Python reference on 1% ({sample.n_documents} documents, {sample.n_units:,} "
        f"units): {reference_seconds:.2f} s, alpha_U {reference:.10f} "
        f"(ours on the same {ours.value:.10f}, {ours_seconds:.3f} s)"
    )
    print(
        f"time per unit: reference {per_unit_reference * 1e6:.2f} µs, ours (full data) "
        f"{per_unit_ours * 1e6:.2f} µs, ratio {per_unit_reference / per_unit_ours:.0f}×"
    )


if __name__ == "__main__":
    main()
