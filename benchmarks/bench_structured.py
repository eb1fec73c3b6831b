"""Speed of the structured kinds' measures, side by side in one run (issue 21, Performance).

Run from the repository root::

    python benchmarks/bench_structured.py              # the issue's sizes
    python benchmarks/bench_structured.py --quick      # a tenth of them

Prints:

- **text**: alpha on ``--text-items`` items × 3 coders × 200-character texts (each coder's
  text is the item's text with a few random edits, a third of them unedited). D_o needs the
  distinct unequal texts that share an item (at most three pairs per item): timed in full.
  D_e needs every pair of distinct texts, ``V(V-1)/2``: its rate is timed on random pairs and
  the full pass extrapolated (the report refuses it above ``max_pairs``, timed too). The
  report with a sampled D_e (``expected="sampled"``, 200,000 pairs, the default, and
  1,000,000) is timed end to end on the full data, with its standard errors. Exact alpha
  end to end is timed on growing numbers of items (each with the sampled D_e's distance from
  the exact one, in standard errors), and against the ``krippendorff`` package given the
  same distance as a callable on a size it handles (it builds an items × V × V array).
- **ranking**: Kendall's W and alpha (normalised Kendall tau) on ``--ranking-items`` items ×
  5 coders × 4 options, from the long rows; scipy's ``friedmanchisquare`` item by item on a
  slice, scaled, for comparison.
- **preference**: the report (nominal and ordinal alpha, position bias) on
  ``--preference-items`` comparisons × 3 coders, from the long rows; ``krippendorff.alpha``
  (nominal) on the same coders × items matrix.

Each figure is the best of ``--repeat`` runs (default 1 for the large sizes).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.structured._pairwise import within_item_pairs
from metrics.structured.preferences import PreferenceData, preference_report
from metrics.structured.rankings import RankingData, kendall_w, ranking_alpha
from metrics.structured.texts import (
    TextCodes,
    TextData,
    TokenSets,
    normalized_levenshtein_pairs,
    text_alpha,
    text_report,
)

LETTERS = np.array(list("abcdefghijklmnopqrstuvwxyz      "))


def timed(function: Callable[[], Any], repeat: int = 1) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


# -- text -------------------------------------------------------------------------------------


def _edited(base: str, rng: np.random.Generator) -> str:
    if rng.random() < 1 / 3:
        return base
    text = list(base)
    for _ in range(int(rng.integers(1, 7))):
        where = int(rng.integers(0, len(text)))
        kind = rng.random()
        if kind < 0.5:
            text[where] = str(rng.choice(LETTERS))
        elif kind < 0.75:
            text.insert(where, str(rng.choice(LETTERS)))
        elif len(text) > 1:
            del text[where]
    return "".join(text)


def text_rows(items: int, seed: int, length: int = 200) -> tuple[list[int], list[int], list[str]]:
    rng = np.random.default_rng(seed)
    bases = ["".join(row) for row in rng.choice(LETTERS, size=(items, length))]
    rows_item, rows_coder, rows_text = [], [], []
    for item, base in enumerate(bases):
        for coder in range(3):
            rows_item.append(item)
            rows_coder.append(coder)
            rows_text.append(_edited(base, rng))
    return rows_item, rows_coder, rows_text


def text_corpus(items: int, seed: int) -> TextData:
    return TextData.from_long(*text_rows(items, seed))


#: Pair counts of the sampled D_e timed on the full text corpus.
SAMPLED_PAIRS = (200_000, 1_000_000)


def bench_text(items: int, ladder: list[int], peer_items: int, seed: int) -> None:
    print(f"\n== text: {items:,} items × 3 coders × 200-character texts (Levenshtein)")
    rows = text_rows(items, seed)
    build, data = timed(lambda: TextData.from_long(*rows))
    print(f"TextData.from_long: {build:.2f} s for {data.n_annotations:,} texts, "
          f"{data.n_texts:,} distinct")  # fmt: skip
    start = time.perf_counter()
    codes = TextCodes.encode(data.texts)
    encode = time.perf_counter() - start
    left, right = within_item_pairs(data.item_index)
    a, b = data.text_code[left], data.text_code[right]
    unequal = a != b
    keys = np.unique(np.minimum(a, b)[unequal].astype(np.int64) * data.n_texts
                     + np.maximum(a, b)[unequal])  # fmt: skip
    observed, _ = timed(lambda: normalized_levenshtein_pairs(codes, keys // data.n_texts,
                                                             keys % data.n_texts))  # fmt: skip
    print(f"D_o: {left.size:,} pairs in items, {keys.size:,} distinct unequal ones evaluated: "
          f"{observed:.2f} s (+ {encode:.2f} s encoding the texts)")  # fmt: skip
    rng = np.random.default_rng(seed + 1)
    sample = 100_000
    first, second = rng.integers(0, data.n_texts, (2, sample))
    rate_time, _ = timed(lambda: normalized_levenshtein_pairs(codes, first, second))
    rate = sample / rate_time
    pairs = data.n_texts * (data.n_texts - 1) // 2
    print(f"D_e: {pairs:,} pairs of distinct texts; {rate:,.0f} pairs/s on random pairs "
          f"-> {pairs / rate / 3600:,.1f} h for the exact pass (not run)")  # fmt: skip
    sets = TokenSets.encode(data.texts)
    frequency = np.asarray(sets.matrix.sum(axis=0)).ravel()
    work = float((frequency**2).sum())
    small = text_corpus(items // 10, seed)
    small_sets = TokenSets.encode(small.texts)
    small_work = float((np.asarray(small_sets.matrix.sum(axis=0)).ravel() ** 2).sum())
    jaccard, result = timed(lambda: text_alpha(small, distance="token_jaccard"))
    print(f"token Jaccard: D_e from the texts sharing a token (X Xᵀ, Σ df² = {work:.3g} entries "
          f"against V² = {data.n_texts**2:.3g}); exact alpha on {items // 10:,} items "
          f"({small.n_texts:,} distinct, Σ df² {small_work:.3g}): {jaccard:.1f} s, so about "
          f"{jaccard * work / small_work / 60:,.0f} min here (not run)")  # fmt: skip
    refused, report = timed(lambda: text_report(data))
    print(f"text_report (max_pairs 20,000,000): {refused:.2f} s, alpha null: "
          f"{report['coefficients']['alpha']['reason'][:90]}...")  # fmt: skip
    for pairs in SAMPLED_PAIRS:
        seconds, report = timed(lambda pairs=pairs: text_report(
            data, expected="sampled", expected_pairs=pairs, seed=seed))  # fmt: skip
        entry = report["coefficients"]["alpha"]
        how = entry["expected_method"]
        low, high = how["alpha_interval"]
        print(f"text_report, sampled D_e ({pairs:,} pairs, seed {seed}): {seconds:.2f} s "
              f"({how['evaluated_pairs']:,} distinct pairs evaluated); alpha {entry['value']:.5f} "
              f"± {how['alpha_standard_error']:.1e} (95% [{low:.5f}, {high:.5f}]), D_e "
              f"{entry['expected']:.5f} ± {how['standard_error']:.1e}")  # fmt: skip
    print("exact alpha end to end (D_o and D_e), growing sizes, and sampled D_e against it:")
    for n in ladder:
        small = text_corpus(n, seed + n)
        seconds, result = timed(lambda small=small: text_alpha(small))
        sampled = text_alpha(small, expected="sampled", seed=seed)
        error = sampled.sample.standard_error if sampled.sample else float("nan")
        print(
            f"  {n:>6,} items, {result.n_distinct:>6,} distinct texts, "
            f"{result.expected_pairs:>11,} D_e pairs: {seconds:6.2f} s, alpha {result.value:.4f}; "
            f"sampled D_e off by {(sampled.expected - result.expected) / error:+.2f} SE"
        )
    bench_text_peer(peer_items, seed)


def bench_text_peer(items: int, seed: int) -> None:
    import krippendorff

    data = text_corpus(items, seed + 7)
    counts = np.zeros((data.n_items, data.n_texts), dtype=int)
    np.add.at(counts, (data.item_index, data.text_code), 1)
    codes = TextCodes.encode(data.texts)

    def metric(v1: Any, v2: Any, i1: np.ndarray, i2: np.ndarray, **_: Any) -> np.ndarray:
        left, right = np.broadcast_arrays(i1, i2)
        out = normalized_levenshtein_pairs(codes, left.ravel(), right.ravel())
        return out.reshape(left.shape)

    def peer() -> float:
        return float(krippendorff.alpha(value_counts=counts, value_domain=np.arange(data.n_texts),
                                        level_of_measurement=metric))  # fmt: skip

    ours, result = timed(lambda: text_alpha(data), repeat=3)
    theirs, value = timed(peer, repeat=3)
    print(f"vs krippendorff {version('krippendorff')} with the same distance as a callable, "
          f"{items} items ({data.n_texts} distinct texts): ours {ours:.3f} s, peer {theirs:.3f} s, "
          f"ratio {ours / theirs:.3f}; alpha {result.value:.12f} vs {value:.12f}")  # fmt: skip


# -- ranking ----------------------------------------------------------------------------------


def ranking_rows(items: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    coders, options = 5, 4
    base = np.argsort(rng.random((items, options)), axis=1)
    noisy = np.repeat(base, coders, axis=0) + rng.integers(0, 3, (items * coders, options))
    return (
        np.repeat(np.arange(items), coders * options),
        np.tile(np.repeat(np.arange(coders), options), items),
        np.tile(np.arange(options), items * coders),
        noisy.ravel() + 1.0,
    )


def bench_ranking(items: int, seed: int) -> None:
    from scipy import stats

    print(f"\n== ranking: {items:,} items × 5 coders × 4 options (goal ≤ 5 s)")
    rows = ranking_rows(items, seed)

    def everything() -> tuple[Any, Any]:
        data = RankingData.from_long(*rows)
        return kendall_w(data), ranking_alpha(data)

    seconds, (w, alpha) = timed(everything)
    data = RankingData.from_long(*rows)
    build, _ = timed(lambda: RankingData.from_long(*rows).slot_midrank)
    w_time, _ = timed(lambda: kendall_w(data))
    alpha_time, _ = timed(lambda: ranking_alpha(data))
    print(f"Kendall's W and alpha from the long rows: {seconds:.2f} s (rows and mid-ranks "
          f"{build:.2f} s, W {w_time:.2f} s, alpha {alpha_time:.2f} s); mean W {w.value:.4f}, "
          f"alpha {alpha.value:.4f} ({alpha.n_distinct} distinct rankings)")  # fmt: skip
    matrix = data.slot_midrank.reshape(items, 5, 4)
    slice_items = min(items, 2000)
    peer, _ = timed(lambda: [stats.friedmanchisquare(*matrix[i].T) for i in range(slice_items)])
    print(f"scipy friedmanchisquare item by item: {peer:.2f} s for {slice_items:,} items, "
          f"{peer * items / slice_items:.1f} s scaled to {items:,}")  # fmt: skip


# -- preference -------------------------------------------------------------------------------


def bench_preference(items: int, seed: int) -> None:
    import krippendorff

    print(f"\n== preference: {items:,} comparisons × 3 coders (goal ≤ 3 s)")
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, items)
    code = np.where(rng.random(items * 3) < 0.7, np.repeat(truth, 3), rng.integers(0, 3, items * 3))
    item = np.repeat(np.arange(items), 3)
    coder = np.tile(np.arange(3), items)
    choices = np.array(["A", "tie", "B"])[code]
    shown = np.array(["A", "B"])[rng.integers(0, 2, items * 3)]

    def everything() -> dict[str, Any]:
        return preference_report(PreferenceData.from_long(item, coder, choices, shown))

    seconds, report = timed(everything)
    data = PreferenceData.from_long(item, coder, choices, shown)
    report_only, _ = timed(lambda: preference_report(data))
    matrix = np.full((3, items), np.nan)
    matrix[data.coder_index, data.item_index] = data.choice
    peer, value = timed(lambda: krippendorff.alpha(matrix, level_of_measurement="nominal"))
    alpha = report["coefficients"]["alpha"]["value"]
    print(f"report from the long rows: {seconds:.2f} s (report on built data {report_only:.2f} s); "
          f"alpha {alpha:.6f}, ordinal {report['coefficients']['alpha_ordinal']['value']:.6f}, "
          f"overall share first {report['position_bias_overall']['share_first']:.4f}")  # fmt: skip
    print(f"krippendorff.alpha (nominal) on the 3 × {items:,} matrix: {peer:.2f} s, "
          f"alpha {value:.6f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a tenth of the sizes")
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--only", choices=("text", "ranking", "preference"))
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    cores = os.cpu_count()
    print(f"numpy {np.__version__}; seed {args.seed}; load average {load} on {cores} cores")
    if args.only in (None, "text"):
        bench_text(100_000 // scale, [100, 200, 400, 800], 120, args.seed)
    if args.only in (None, "ranking"):
        bench_ranking(100_000 // scale, args.seed)
    if args.only in (None, "preference"):
        bench_preference(1_000_000 // scale, args.seed)


if __name__ == "__main__":
    main()
