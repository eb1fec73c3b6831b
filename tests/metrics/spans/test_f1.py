"""Span F1: a hand-computed case, maximum vs greedy matching, and an independent computation.

The independent computation below is a plain Python one, as a seqeval/Prodigy-style script
would do it: exact matches as a multiset intersection of ``(document, begin, end, label)``
tuples, overlap matches by Kuhn's augmenting-path algorithm on every pair of units.
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import numpy as np
import pytest

from metrics import bootstrap
from metrics.spans.data import SpanData
from metrics.spans.f1 import decompose_span_f1, span_f1

# The hand case (docs/references.md#span-f1-hand-case). Two coders, four documents (extents
# 0..30, 0..10, 0..10, 0..10):
#
#   d1  ann: PER [0, 5)  LOC [10, 14)  ORG [20, 25)
#       bob: PER [0, 5)  LOC [11, 14)  PER [20, 25)
#   d2  ann: MISC [3, 8)               bob: annotated, found nothing
#   d3  ann: PER [0, 4)                bob: did not annotate  -> left out
#   d4  ann and bob: annotated, found nothing                 -> adds nothing
#
# Exact (ann as reference): d1 TP 1 (PER [0,5)), FN 2 (LOC [10,14), ORG), FP 2 (LOC [11,14),
# PER [20,25)); d2 FN 1. Totals TP 1, FP 2, FN 3: F1 = 2 / (2 + 2 + 3) = 2/7.
# Per category: PER TP 1 FP 1 -> 2/3; LOC TP 0 FP 1 FN 1 -> 0; ORG FN 1 -> 0; MISC FN 1 -> 0.
# Precision (bob against ann) 1/3, recall 1/4.
#
# Overlap, IoU >= 0.5: LOC [10,14) and [11,14) overlap 3 of a union of 4 (IoU 0.75) and match;
# ORG [20,25) and PER [20,25) differ in category. Totals TP 2, FP 1, FN 2: F1 = 4/7.
# Per category: PER 2/3, LOC 1, ORG 0, MISC 0.
HAND_UNITS = [
    ("d1", "ann", 0, 5, "PER"),
    ("d1", "ann", 10, 14, "LOC"),
    ("d1", "ann", 20, 25, "ORG"),
    ("d1", "bob", 0, 5, "PER"),
    ("d1", "bob", 11, 14, "LOC"),
    ("d1", "bob", 20, 25, "PER"),
    ("d2", "ann", 3, 8, "MISC"),
    ("d3", "ann", 0, 4, "PER"),
]
HAND_EXTENTS = {"d1": (0, 30), "d2": (0, 10), "d3": (0, 10), "d4": (0, 10)}
HAND_ANNOTATED = [("d2", "bob"), ("d4", "ann"), ("d4", "bob")]


@pytest.fixture
def hand() -> SpanData:
    return SpanData.from_units(HAND_UNITS, extents=HAND_EXTENTS, annotated=HAND_ANNOTATED)


def test_hand_case_exact(hand: SpanData) -> None:
    result = span_f1(hand)
    assert result.value == pytest.approx(2 / 7)
    assert (result.matched, result.unmatched) == (1, 5)
    assert result.categories == pytest.approx({"LOC": 0.0, "MISC": 0.0, "ORG": 0.0, "PER": 2 / 3})
    (pair,) = result.pairs
    assert pair.coders == ("ann", "bob")
    assert (pair.true_positives, pair.false_positives, pair.false_negatives) == (1, 2, 3)
    assert pair.precision == pytest.approx(1 / 3)
    assert pair.recall == pytest.approx(1 / 4)
    assert pair.documents == 3  # d1, d2, d4


def test_hand_case_overlap(hand: SpanData) -> None:
    result = span_f1(hand, match="overlap", min_overlap=0.5)
    assert result.value == pytest.approx(4 / 7)
    assert result.categories == pytest.approx({"LOC": 1.0, "MISC": 0.0, "ORG": 0.0, "PER": 2 / 3})
    (pair,) = result.pairs
    assert (pair.true_positives, pair.false_positives, pair.false_negatives) == (2, 1, 2)
    # IoU 0.75 is below 0.8: LOC no longer matches, as in exact matching.
    assert span_f1(hand, match="overlap", min_overlap=0.8).value == pytest.approx(2 / 7)


def test_hand_case_decomposition_has_one_row_per_document(hand: SpanData) -> None:
    exact = decompose_span_f1(hand)
    assert exact.item_stats.tolist() == [[1, 2, 2], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    assert float(exact.evaluate()) == pytest.approx(2 / 7)
    overlap = decompose_span_f1(hand, match="overlap", min_overlap=0.5)
    assert overlap.name == "span_f1_overlap"
    assert overlap.item_stats.tolist() == [[2, 1, 1], [0, 0, 1], [0, 0, 0], [0, 0, 0]]
    result = bootstrap(overlap, replicates=200, seed=1)
    assert result.estimate == pytest.approx(4 / 7)


def test_symmetric_in_the_pair(hand: SpanData) -> None:
    swapped = SpanData.from_units(
        [(d, {"ann": "bob", "bob": "ann"}[c], b, e, k) for d, c, b, e, k in HAND_UNITS],
        extents=HAND_EXTENTS,
        annotated=[(d, {"ann": "bob", "bob": "ann"}[c]) for d, c in HAND_ANNOTATED],
    )
    for options in ({}, {"match": "overlap", "min_overlap": 0.5}):
        assert span_f1(swapped, **options).value == span_f1(hand, **options).value


def test_maximum_matching_beats_greedy_by_overlap() -> None:
    # docs/references.md#span-f1-maximum-matching
    # a1 [1, 12) overlaps b1 [0, 10) by 9 and b2 [10, 20) by 2; a2 [9, 10) overlaps only b1,
    # by 1. Greedy by largest overlap pairs a1-b1 and leaves a2 and b2: TP 1, F1 = 2/4. The
    # maximum matching pairs a1-b2 and a2-b1: TP 2, F1 = 1.
    data = SpanData.from_units(
        [("d", "a", 1, 12, "X"), ("d", "a", 9, 10, "X"),
         ("d", "b", 0, 10, "X"), ("d", "b", 10, 20, "X")]
    )  # fmt: skip
    assert span_f1(data, match="overlap").value == 1.0
    assert span_f1(data).value == 0.0


def test_iou_threshold_is_inclusive() -> None:
    # [0, 4) and [2, 4): overlap 2, union 4, IoU exactly 0.5.
    data = SpanData.from_units([("d", "a", 0, 4, "X"), ("d", "b", 2, 4, "X")])
    assert span_f1(data, match="overlap", min_overlap=0.5).value == 1.0
    assert span_f1(data, match="overlap", min_overlap=0.51).value == 0.0
    # Touching units do not overlap.
    touching = SpanData.from_units([("d", "a", 0, 4, "X"), ("d", "b", 4, 6, "X")])
    assert span_f1(touching, match="overlap").value == 0.0


def test_identical_units_match_once_each() -> None:
    # ann marks PER [0, 5) twice, bob once: TP 1, FN 1 -> 2/3.
    data = SpanData.from_units(
        [("d", "ann", 0, 5, "PER"), ("d", "ann", 0, 5, "PER"), ("d", "bob", 0, 5, "PER")]
    )
    assert span_f1(data).value == pytest.approx(2 / 3)
    assert span_f1(data, match="overlap").value == pytest.approx(2 / 3)


def test_points_match_only_identical_points() -> None:
    data = SpanData.from_units(
        [("d", "a", 3, 3, "X"), ("d", "a", 0, 6, "X"), ("d", "b", 3, 3, "X"), ("d", "b", 5, 5, "X")]
    )
    # The points at 3 match; the point at 5 does not overlap [0, 6) (zero length).
    result = span_f1(data, match="overlap")
    assert (result.pairs[0].true_positives, result.unmatched) == (1, 2)


def test_three_coders_pool_the_pairs() -> None:
    # d: a PER [0,5); b PER [0,5); c PER [1,5). Pairs (a,b): TP 1; (a,c): FP 1, FN 1;
    # (b,c): FP 1, FN 1. Pooled: TP 1, FP 2, FN 2 -> 2/6.
    data = SpanData.from_units(
        [("d", "a", 0, 5, "PER"), ("d", "b", 0, 5, "PER"), ("d", "c", 1, 5, "PER")]
    )
    result = span_f1(data)
    assert result.value == pytest.approx(1 / 3)
    assert [pair.value for pair in result.pairs] == [1.0, 0.0, 0.0]
    assert span_f1(data, match="overlap").value == 1.0


def test_errors() -> None:
    apart = SpanData.from_units([("d1", "a", 0, 5, "X"), ("d2", "b", 0, 5, "X")])
    with pytest.raises(ValueError, match="annotated by two coders"):
        span_f1(apart)
    with pytest.raises(ValueError, match="annotated by two coders"):
        decompose_span_f1(apart)
    empty = SpanData.from_units([], extents={"d": (0, 5)}, annotated=[("d", "a"), ("d", "b")])
    with pytest.raises(ValueError, match="undefined"):
        span_f1(empty)
    data = SpanData.from_units([("d", "a", 0, 5, "X"), ("d", "b", 0, 5, "X")])
    with pytest.raises(ValueError, match="match must be"):
        span_f1(data, match="partial")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="min_overlap"):
        span_f1(data, match="overlap", min_overlap=1.5)
    with pytest.raises(ValueError, match="min_overlap applies"):
        span_f1(data, min_overlap=0.5)


# -- an independent computation on random data ----------------------------------------------


def _python_counts(units, annotated, coders, match, min_overlap):
    """TP, FP, FN pooled over coder pairs, by plain Python."""
    tp = fp = fn = 0
    for a, b in combinations(coders, 2):
        shared = {d for d, c in annotated if c == a} & {d for d, c in annotated if c == b}
        first = [u for u in units if u[1] == a and u[0] in shared]
        second = [u for u in units if u[1] == b and u[0] in shared]
        if match == "exact":
            key = lambda u: (u[0], u[2], u[3], u[4])  # noqa: E731
            matched = sum((Counter(map(key, first)) & Counter(map(key, second))).values())
        else:
            matched = _kuhn(first, second, min_overlap)
        tp += matched
        fn += len(first) - matched
        fp += len(second) - matched
    return tp, fp, fn


def _edge(u, v, min_overlap):
    if u[0] != v[0] or u[4] != v[4]:
        return False
    if u[2] == u[3] or v[2] == v[3]:
        return u[2:4] == v[2:4]
    overlap = min(u[3], v[3]) - max(u[2], v[2])
    union = max(u[3], v[3]) - min(u[2], v[2])
    return overlap > 0 and overlap >= min_overlap * union


def _kuhn(first, second, min_overlap):
    neighbours = [[j for j, v in enumerate(second) if _edge(u, v, min_overlap)] for u in first]
    partner: dict[int, int] = {}

    def augment(i, seen):
        for j in neighbours[i]:
            if j not in seen:
                seen.add(j)
                if j not in partner or augment(partner[j], seen):
                    partner[j] = i
                    return True
        return False

    return sum(augment(i, set()) for i in range(len(first)))


def _random_spans(seed: int):
    rng = np.random.default_rng(seed)
    coders = [f"c{i}" for i in range(int(rng.integers(2, 5)))]
    units, annotated = [], []
    for d in range(int(rng.integers(1, 6))):
        for coder in coders:
            if rng.random() < 0.2:
                continue
            annotated.append((f"d{d}", coder))
            for _ in range(int(rng.integers(0, 7))):
                begin = int(rng.integers(0, 30))
                end = begin + int(rng.integers(0, 8))
                units.append((f"d{d}", coder, begin, end, str(rng.choice(["A", "B"]))))
    return units, annotated, coders


@pytest.mark.parametrize("seed", range(60))
def test_against_a_python_computation(seed: int) -> None:
    units, annotated, _ = _random_spans(seed)
    data = SpanData.from_units(units, annotated=annotated)
    for match, min_overlap in (("exact", 0.0), ("overlap", 0.0), ("overlap", 0.5)):
        tp, fp, fn = _python_counts(units, annotated, data.coders, match, min_overlap)
        options = {"match": match} | ({"min_overlap": min_overlap} if match == "overlap" else {})
        if 2 * tp + fp + fn == 0:
            with pytest.raises(ValueError, match=r"undefined|two coders"):
                span_f1(data, **options)
            continue
        result = span_f1(data, **options)
        assert (result.matched, result.unmatched) == (tp, fp + fn)
        assert result.value == pytest.approx(2 * tp / (2 * tp + fp + fn), abs=1e-12)
        assert float(decompose_span_f1(data, **options).evaluate()) == pytest.approx(result.value)
