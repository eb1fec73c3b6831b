"""Speed of the span measures on a corpus of 10,000 documents × 3 coders × 30 units.

Run from the repository root::

    python benchmarks/bench_spans.py                    # 10,000 documents (900,000 units)
    python benchmarks/bench_spans.py --documents 2000   # quicker

Prints, from one run, each measure's time (the best of ``--repeat`` calls, 3 by default;
target ≤ 2 s) side by side with the peer a user
would otherwise pick, and the ratio:

- span F1, exact and by overlap (IoU ≥ 0.5), against a straightforward Python computation as
  seqeval- or Prodigy-style scripts do it (sets of ``(document, begin, end, label)`` per coder
  for exact matches; for overlap, each unit takes the first unmatched overlapping unit of the
  other coder), timed on a subsample of documents and scaled to the corpus; both give the
  same exact F1, checked;
- token-level alpha (nominal) against the ``krippendorff`` package on the same coders ×
  positions table (built by :func:`metrics.spans.tokens.token_reliability_data`, not timed);
  both values printed;
- unitizing alpha on the whole corpus, and gamma on a subsample (it aligns the units and
  samples random annotations; ``benchmarks/bench_gamma.py`` and ``bench_unitizing.py`` compare
  them with their peers).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.spans.data import SpanData
from metrics.spans.f1 import span_f1
from metrics.spans.gamma import gamma_agreement
from metrics.spans.tokens import token_agreement, token_reliability_data
from metrics.spans.unitizing import unitizing_alpha

CATEGORIES = np.array(["PER", "LOC", "ORG", "MISC"], dtype=object)


def timed(function: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    """The shortest time of ``repeat`` calls (the machine may be shared), and the result."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def corpus(documents: int, coders: int, units: int, seed: int) -> SpanData:
    """Non-overlapping reference units per document; each coder keeps, shifts, relabels or
    replaces each of them."""
    rng = np.random.default_rng(seed)
    length = rng.integers(1, 7, size=(documents, units))
    gap = rng.integers(1, 8, size=(documents, units))
    begin = np.cumsum(gap + length, axis=1) - length
    end = begin + length
    extent = end[:, -1] + rng.integers(0, 20, size=documents)
    category = rng.integers(0, len(CATEGORIES), size=(documents, units))
    columns: dict[str, list[np.ndarray]] = {k: [] for k in ("doc", "coder", "b", "e", "k")}
    for coder in range(coders):
        fate = rng.random((documents, units))
        b = begin + np.where((fate > 0.70) & (fate < 0.85), rng.integers(-1, 2, begin.shape), 0)
        b = np.clip(np.minimum(b, end - 1), np.c_[np.zeros(documents, int), end[:, :-1]], None)
        k = np.where((fate >= 0.85) & (fate < 0.95), rng.integers(0, 4, category.shape), category)
        columns["doc"].append(np.repeat(np.arange(documents), units))
        columns["coder"].append(np.full(documents * units, coder))
        columns["b"].append(b.ravel())
        columns["e"].append(end.ravel())
        columns["k"].append(k.ravel())
    flat = {key: np.concatenate(value) for key, value in columns.items()}
    return SpanData.from_arrays(
        flat["doc"],
        flat["coder"],
        flat["b"],
        flat["e"],
        CATEGORIES[flat["k"]],
        extents={d: (0, int(extent[d])) for d in range(documents)},
        complete=True,
    )


# -- the Python peer (what a seqeval/Prodigy-style script does) ------------------------------


def python_f1(units: list[tuple[Any, Any, float, float, Any]], overlap: bool) -> float:
    by_coder: dict[Any, list[tuple[Any, float, float, Any]]] = {}
    for document, coder, begin, end, label in units:
        by_coder.setdefault(coder, []).append((document, begin, end, label))
    tp = fp = fn = 0
    for a, b in combinations(sorted(by_coder), 2):
        first, second = by_coder[a], by_coder[b]
        if not overlap:
            matched = len(set(first) & set(second))
        else:
            matched = 0
            pool: dict[tuple[Any, Any], list[tuple[float, float]]] = {}
            for document, begin, end, label in second:
                pool.setdefault((document, label), []).append((begin, end))
            for document, begin, end, label in first:
                candidates = pool.get((document, label), [])
                for i, (other_begin, other_end) in enumerate(candidates):
                    inter = min(end, other_end) - max(begin, other_begin)
                    union = max(end, other_end) - min(begin, other_begin)
                    if inter > 0 and inter >= 0.5 * union:
                        matched += 1
                        del candidates[i]
                        break
        tp += matched
        fn += len(first) - matched
        fp += len(second) - matched
    return 2 * tp / (2 * tp + fp + fn)


def krippendorff_peer(data: SpanData, repeat: int) -> tuple[float, float, float]:
    """The ``krippendorff`` package on the coders × positions table: (seconds to build the
    table, seconds for alpha, alpha)."""
    krippendorff = importlib.import_module("krippendorff")
    table_seconds, table = timed(lambda: token_reliability_data(data))
    values = table.codes.astype(np.float64)
    seconds, value = timed(
        lambda: krippendorff.alpha(reliability_data=values, level_of_measurement="nominal"),
        repeat,
    )
    return table_seconds, seconds, float(value)


def line(name: str, ours: float, peer: float | None, peer_name: str, note: str = "") -> None:
    ratio = f"{peer / ours:8.1f}x" if peer is not None else " " * 9
    peer_text = f"{peer:9.3f}" if peer is not None else " " * 9
    print(f"{name:<28}{ours:9.3f}{peer_text}{ratio}   {peer_name} {note}".rstrip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=10_000)
    parser.add_argument("--coders", type=int, default=3)
    parser.add_argument("--units", type=int, default=30)
    parser.add_argument("--subsample", type=int, default=1000, help="documents for Python F1")
    parser.add_argument("--gamma-documents", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3, help="best of N calls (default 3)")
    args = parser.parse_args()
    build, data = timed(lambda: corpus(args.documents, args.coders, args.units, seed=0))
    positions = int(data.document_lengths.sum())
    print(
        f"{data.n_documents} documents × {data.n_coders} coders, {data.n_units:,} units, "
        f"{positions:,} positions per coder (SpanData built in {build:.2f} s)"
    )
    print(f"{'measure':<28}{'ours s':>9}{'peer s':>9}{'ratio':>9}   peer")
    scale = data.n_documents / min(args.subsample, data.n_documents)
    sample = np.arange(min(args.subsample, data.n_documents))
    sample_units = data.select(sample).units()  # Python tuples, as such a script reads them

    seconds, exact = timed(lambda: span_f1(data), args.repeat)
    peer_seconds, peer_value = timed(lambda: python_f1(sample_units, overlap=False), args.repeat)
    sample_value = span_f1(data.select(sample)).value
    assert abs(peer_value - sample_value) < 1e-12, (peer_value, sample_value)
    line("span F1 exact", seconds, peer_seconds * scale, "Python sets",
         f"(on {len(sample)} documents × {scale:g}; F1 {exact.value:.4f})")  # fmt: skip

    seconds, overlap = timed(lambda: span_f1(data, match="overlap", min_overlap=0.5), args.repeat)
    peer_seconds, peer_value = timed(lambda: python_f1(sample_units, overlap=True), args.repeat)
    line("span F1 overlap (IoU≥0.5)", seconds, peer_seconds * scale, "Python first-fit",
         f"(F1 {overlap.value:.4f}; first-fit on the sample {peer_value:.4f})")  # fmt: skip

    seconds, alpha = timed(lambda: token_agreement(data), args.repeat)
    table_seconds, peer_seconds, peer_value = krippendorff_peer(data, args.repeat)
    line("token alpha", seconds, peer_seconds, "krippendorff",
         f"(alpha {alpha.value:.6f} vs {peer_value:.6f}; "
         f"table built in {table_seconds:.2f} s)")  # fmt: skip

    seconds, kappa = timed(lambda: token_agreement(data, "kappa"), args.repeat)
    line("token kappa", seconds, None, "", f"(multi-kappa {kappa.value:.4f})")

    seconds, alpha_u = timed(lambda: unitizing_alpha(data), args.repeat)
    line("unitizing alpha", seconds, None, "", f"(alpha_U {alpha_u.value:.4f})")
    small = data.select(np.arange(min(args.gamma_documents, data.n_documents)))
    seconds, result = timed(lambda: gamma_agreement(small), args.repeat)
    line(f"gamma ({small.n_documents} documents)", seconds, None, "",
         f"(gamma {result.value:.4f}, {result.samples} samples)")  # fmt: skip


if __name__ == "__main__":
    main()
