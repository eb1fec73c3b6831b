"""Krippendorff's unitizing alpha α_U against published values, hand computations and a
plain-Python reference.

Sources (figures copied here; the tests read nothing from outside the repository):
- Krippendorff (2004), *Content Analysis*, p. 254, as asserted by DKPro Statistics 2.3.1
  ``unitizing/Krippendorff2004Test``: docs/references.md#dkpro-unitizing-k2004
- Krippendorff (1995), "On the reliability of unitizing contiguous data", the four continua
  A–D of p. 57, as asserted by DKPro ``unitizing/Krippendorff1995Test``:
  docs/references.md#dkpro-unitizing-k1995
- DKPro ``unitizing/UnitizingAgreementTest`` (small and degenerate cases):
  docs/references.md#dkpro-unitizing-small
- Hand computations written out below: docs/references.md#derived-unitizing-two-coders and
  #derived-unitizing-documents
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import metrics.spans.unitizing as unitizing
from metrics.spans.data import SpanData
from metrics.spans.unitizing import (
    decompose_unitizing_alpha,
    segment_distance,
    unitizing_alpha,
    unitizing_document_disagreement,
)


def continuum(units, length, *, begin=0, coders=(0, 1), name="doc"):
    """One document; units ``(coder, begin, length, category)`` as DKPro's ``addUnit``."""
    return SpanData.from_units(
        [(name, coder, b, b + n, c) for coder, b, n, c in units],
        extents={name: (begin, begin + length)},
        annotated=[(name, coder) for coder in coders],
    )


# -- Krippendorff (2004, p. 254) ---------------------------------------------------------------
# docs/references.md#dkpro-unitizing-k2004

K2004 = [
    (0, 225, 70, "c"),
    (0, 370, 30, "c"),
    (1, 220, 80, "c"),
    (1, 355, 20, "c"),
    (1, 400, 20, "c"),
    (0, 180, 60, "k"),
    (0, 300, 50, "k"),
    (1, 180, 60, "k"),
    (1, 300, 50, "k"),
]


def _segment(begin, length, category):
    return begin, begin + length, category is not None


# DKPro measureDistance(b1, l1, c1, b2, l2, c2), null category = gap, and the value it asserts.
K2004_DISTANCES = [
    ([(2, 3, None, 2, 2, "X"), (5, 6, "X", 4, 7, None)], 40.0),
    ([(3, 2, None, 3, 2, "X"), (5, 6, "X", 5, 6, None)], 40.0),
    ([(5, 6, "X", 4, 2, "X")], 26.0),
    ([(5, 6, "X", 5, 2, "X")], 16.0),
    ([(5, 6, "X", 6, 2, "X")], 10.0),
    ([(5, 6, "X", 7, 2, "X")], 8.0),
    ([(5, 6, "X", 6, 4, "X")], 2.0),
    ([(5, 6, "X", 5, 6, "X")], 0.0),
    ([(225, 70, "c", 220, 80, "c")], 50.0),
    ([(370, 30, "c", 355, 20, "c")], 850.0),
    ([(400, 50, None, 400, 20, "c")], 400.0),
]

# docs/references.md#dkpro-unitizing-small (UnitizingAgreementTest.testDistanceMetric)
SMALL_DISTANCES = [
    ([(0, 1, None, 0, 2, None)], 0.0),
    ([(1, 8, "A", 0, 2, None)], 0.0),
    ([(1, 8, "A", 2, 1, "A")], 37.0),
    ([(1, 8, "A", 3, 1, None)], 0.0),
    ([(1, 8, "A", 4, 1, "A")], 25.0),
    ([(1, 8, "A", 5, 1, None)], 0.0),
    ([(1, 8, "A", 6, 1, "A")], 29.0),
    ([(1, 8, "A", 7, 4, None)], 0.0),
    ([(9, 2, None, 7, 4, None)], 0.0),
]


@pytest.mark.parametrize(("pairs", "expected"), K2004_DISTANCES + SMALL_DISTANCES)
def test_segment_distance_matches_dkpro(pairs, expected) -> None:
    total = 0.0
    for b1, l1, c1, b2, l2, c2 in pairs:
        distance = segment_distance(*_segment(b1, l1, c1), *_segment(b2, l2, c2))
        # symmetric in its two segments
        assert distance == segment_distance(*_segment(b2, l2, c2), *_segment(b1, l1, c1))
        total += float(distance)
    assert total == expected


def test_segment_distance_broadcasts() -> None:
    distance = segment_distance([5, 5, 5], [11, 11, 11], True, [4, 5, 6], [6, 7, 8], True)
    assert distance.tolist() == [26.0, 16.0, 10.0]


def test_krippendorff_2004_overall_and_per_category() -> None:
    result = unitizing_alpha(continuum(K2004, 300, begin=150))
    assert result.value == pytest.approx(0.8591, abs=0.0005)
    c, k = result.categories["c"], result.categories["k"]
    assert c.observed == pytest.approx(0.0144, abs=1e-4)
    assert c.expected == pytest.approx(0.0532, abs=1e-4)
    assert c.value == pytest.approx(0.7286, abs=1e-4)
    assert k.observed == pytest.approx(0.0, abs=1e-4)
    assert k.expected == pytest.approx(0.0490, abs=1e-4)
    assert k.value == pytest.approx(1.0, abs=1e-4)
    # overall D_o and D_e are the means of the categories'
    assert result.observed == pytest.approx((c.observed + k.observed) / 2)
    assert result.expected == pytest.approx((c.expected + k.expected) / 2)
    assert result.n_documents == 1


def test_krippendorff_2004_one_category() -> None:
    result = unitizing_alpha(continuum(K2004, 300, begin=150), category="c")
    assert result.value == pytest.approx(0.7286, abs=1e-4)
    assert list(result.categories) == ["c"]


# -- Krippendorff (1995), continua A-D -----------------------------------------------------------
# docs/references.md#dkpro-unitizing-k1995. (begin, length, rater) at stretch 1, on [0, 24).

K1995 = {
    "A": [(2, 8, 0), (14, 6, 0), (4, 4, 1), (15, 2, 1)],
    "B": [(0, 18, 0), (0, 2, 1), (2, 1, 1), (3, 1, 1), (4, 1, 1), (5, 1, 1), (6, 3, 1), (9, 1, 1)],
    "C": [
        (2, 6, 0),
        (10, 2, 0),
        (14, 4, 0),
        (20, 2, 0),
        (0, 2, 1),
        (4, 4, 1),
        (10, 4, 1),
        (16, 2, 1),
        (20, 2, 1),
    ],
    "D": [
        (0, 2, 0),
        (2, 8, 0),
        (10, 4, 0),
        (14, 6, 0),
        (20, 4, 0),
        (0, 4, 1),
        (4, 4, 1),
        (8, 7, 1),
        (15, 2, 1),
        (17, 7, 1),
    ],
}


def krippendorff_1995(stretch: float, categories: str = "ABCD") -> SpanData:
    """DKPro's ``createExample(stretch)``: every offset scaled and truncated to an integer."""
    units = {
        (rater, int(b * stretch), int(n * stretch), c)
        for c in categories
        for b, n, rater in K1995[c]
    }
    return continuum(sorted(units), int(24 * stretch))


def test_krippendorff_1995_observed_at_stretch_one() -> None:
    result = unitizing_alpha(krippendorff_1995(1))
    observed = {c: result.categories[c].observed for c in "ABCD"}
    expected = {"A": 0.03125, "B": 2.26736, "C": 0.02777, "D": 0.38715}
    for c in "ABCD":
        assert observed[c] == pytest.approx(expected[c], abs=1e-5), c


def test_krippendorff_1995_expected_and_alpha_at_large_stretch() -> None:
    result = unitizing_alpha(krippendorff_1995(1200000 // 24))
    expected = {"A": 0.06990, "B": 1.17731, "C": 0.08642, "D": 0.41445}
    alpha = {"A": 0.553, "B": -0.926, "C": 0.679, "D": 0.066}
    for c in "ABCD":
        assert result.categories[c].expected == pytest.approx(expected[c], abs=0.005), c
        assert result.categories[c].value == pytest.approx(alpha[c], abs=0.02), c


@pytest.mark.parametrize(
    ("stretch", "expected", "tolerance", "alpha"),
    [
        (12 / 24, 0.05494, 1e-5, 0.494),
        (120 / 24, 0.08234, 0.005, 0.663),
        (1200 / 24, 0.08600, 0.005, 0.677),
        (12000 / 24, 0.08638, 0.005, 0.678),
        (120000 / 24, 0.08642, 0.005, 0.679),
        (1200000 / 24, 0.08642, 0.005, 0.679),
    ],
)
def test_krippendorff_1995_varying_grain(stretch, expected, tolerance, alpha) -> None:
    result = unitizing_alpha(krippendorff_1995(stretch, "C"), category="C")
    assert result.observed == pytest.approx(0.02777, abs=1e-5)
    assert result.expected == pytest.approx(expected, abs=tolerance)
    assert result.value == pytest.approx(alpha, abs=0.02)


# -- small and degenerate cases ------------------------------------------------------------------
# docs/references.md#dkpro-unitizing-small


def test_one_long_unit_against_three_short() -> None:
    # r0: -11111111-   r1: --1-1-1---
    data = continuum([(0, 1, 8, "A"), (1, 2, 1, "A"), (1, 4, 1, "A"), (1, 6, 1, "A")], 10)
    result = unitizing_alpha(data)
    assert result.observed == pytest.approx(0.9100, abs=1e-4)
    assert result.expected == pytest.approx(0.5351, abs=1e-4)
    assert result.value == pytest.approx(-0.7003, abs=1e-4)


def test_single_unit_of_three_raters_is_chance() -> None:
    data = continuum([(0, 0, 1, "X")], 20, coders=(0, 1, 2))
    assert unitizing_alpha(data).value == pytest.approx(0.0, abs=1e-12)


def test_empty_study_is_undefined() -> None:
    data = continuum([], 20, coders=(0, 1, 2))
    with pytest.raises(ValueError, match="no unit"):
        unitizing_alpha(data)
    assert np.isnan(decompose_unitizing_alpha(data).evaluate())


@pytest.mark.parametrize("second", ["A", "B"])
def test_only_zero_length_units_is_undefined(second) -> None:
    # DKPro (#58) reports 0.0 for "degenerate"; here the expected disagreement is zero, so
    # alpha_U is undefined and says why.
    data = continuum([(0, 0, 0, "A"), (1, 0, 0, second)], 15)
    with pytest.raises(ValueError, match="expected disagreement is zero"):
        unitizing_alpha(data)
    assert np.isnan(decompose_unitizing_alpha(data).evaluate())


def test_zero_length_unit_beside_agreeing_units() -> None:
    data = continuum([(0, 0, 0, "A"), (0, 2, 5, "A"), (1, 2, 5, "A")], 15)
    result = unitizing_alpha(data)
    assert result.observed == pytest.approx(0.0, abs=1e-3)
    assert result.expected > 0
    assert result.value == pytest.approx(1.0, abs=1e-3)


def test_category_with_only_zero_length_units_is_undefined_alone() -> None:
    data = continuum([(0, 2, 5, "A"), (1, 3, 5, "A"), (0, 9, 0, "Z"), (1, 9, 0, "Z")], 15)
    result = unitizing_alpha(data)
    assert np.isnan(result.categories["Z"].value)
    assert "length zero" in result.categories["Z"].reason
    assert result.value == pytest.approx(1 - result.observed / result.expected)


# -- hand computations -------------------------------------------------------------------------


def test_hand_computed_two_coders() -> None:
    # docs/references.md#derived-unitizing-two-coders
    # Continuum [0, 10), category X. Coder A: [2, 6). Coder B: [3, 6) and [8, 9).
    # D_o: [2,6) vs [3,6) overlap: (2-3)² + (6-6)² = 1; B's [8,9) lies in A's gap [6,10): 1² = 1.
    #      Pair sum 2; D_o = 2·2 / (m(m-1)L²) = 4/200 = 0.02.
    # D_e: N = mL = 20; units l = 4, 3, 1 (N_c = 3); Σ l(l-1) = 12 + 6 + 0 = 18.
    #      Gaps: A [0,2) 2, [6,10) 4; B [0,3) 3, [6,8) 2, [9,10) 1.
    #      (N_c-1)·l(l-1)(2l-1)/3: 2·(28 + 10 + 0) = 76.
    #      l²·Σ_{g≥l}(g-l+1): l=4: 16·1 = 16; l=3: 9·(2+1) = 27; l=1: 1·(2+4+3+2+1) = 12; = 55.
    #      D_e = (2/L)·131/(N(N-1) - 18) = 26.2/362 = 131/1810.
    # alpha = 1 - 0.02·1810/131 = 1 - 181/655 = 474/655.
    data = continuum([("A", 2, 4, "X"), ("B", 3, 3, "X"), ("B", 8, 1, "X")], 10, coders="AB")
    result = unitizing_alpha(data)
    assert result.observed == pytest.approx(0.02, rel=1e-12)
    assert result.expected == pytest.approx(131 / 1810, rel=1e-12)
    assert result.value == pytest.approx(474 / 655, rel=1e-12)


def test_hand_computed_documents_with_different_coders() -> None:
    # docs/references.md#derived-unitizing-documents
    # d1 = [0,4), coders A, B, C: A [0,2), B [0,2), C annotated and found nothing.
    # d2 = [0,4), coders A, B (C did not annotate): A [1,3), B found nothing.
    # Observed, ordered pairs weighted 1/(m_d - 1):
    #   d1: A-B 0; A-C: A's unit in C's gap, 2² = 4; B-C 4; ordered 2·8 = 16, × 1/2 = 8.
    #   d2: A-B: A's unit in B's gap, 4; ordered 8, × 1/1 = 8.
    #   N = 3·4 + 2·4 = 20, Λ = 4 + 4 = 8: D_o = 16/(20·8) = 0.1.
    # Expected: units l = 2, 2, 2 (N_c = 3), Σ l(l-1) = 6, (N_c-1)·Σ l(l-1)(2l-1)/3 = 2·6 = 12.
    #   Gaps: d1 A 2, B 2, C 4; d2 A 1, 1, B 4. Each unit: 2²·((1)+(1)+(3)+(3)) = 32; 3 units 96.
    #   D_e = 2·108/(Λ·(N(N-1) - 6)) = 216/2992.
    # alpha = 1 - 0.1·2992/216 = -52/135.
    data = SpanData.from_units(
        [("d1", "A", 0, 2, "X"), ("d1", "B", 0, 2, "X"), ("d2", "A", 1, 3, "X")],
        extents={"d1": (0, 4), "d2": (0, 4)},
        annotated=[("d1", "C"), ("d2", "B")],
    )
    result = unitizing_alpha(data)
    assert result.observed == pytest.approx(0.1, rel=1e-12)
    assert result.expected == pytest.approx(216 / 2992, rel=1e-12)
    assert result.value == pytest.approx(-52 / 135, rel=1e-12)
    assert result.n_documents == 2
    shares = unitizing_document_disagreement(data)
    assert shares.tolist() == pytest.approx([0.05, 0.05], rel=1e-12)


# -- a plain-Python reference on random data -----------------------------------------------------


def reference_alpha(data: SpanData) -> tuple[float, float]:
    """D_o and D_e by the definition in metrics/spans/unitizing.py, one loop per segment pair."""
    coders_of = {
        d: [c for c in range(data.n_coders) if data.annotated[d, c]]
        for d in range(data.n_documents)
    }
    docs = [d for d, coders in coders_of.items() if len(coders) >= 2]
    units = data.units()
    n = sum(len(coders_of[d]) * data.document_lengths[d] for d in docs)
    scale = sum(data.document_lengths[d] for d in docs)
    observed, expected = [], []
    for category in data.categories:
        total = 0.0
        lengths, gap_lengths = [], []
        for d in docs:
            low, high = data.extents[d]
            segments = {}
            for coder in coders_of[d]:
                mine = sorted(
                    (b, e)
                    for doc, who, b, e, c in units
                    if doc == data.documents[d] and who == data.coders[coder] and c == category
                )
                cuts, position = [], low
                for b, e in mine:
                    if b > position:
                        cuts.append((position, b, False))
                    cuts.append((b, e, True))
                    position = e
                if high > position:
                    cuts.append((position, high, False))
                segments[coder] = cuts
                lengths += [e - b for b, e in mine]
                gap_lengths += [e - b for b, e, unit in cuts if not unit]
            m = len(coders_of[d])
            for i, j in itertools.permutations(coders_of[d], 2):
                for s in segments[i]:
                    for t in segments[j]:
                        total += float(segment_distance(*s, *t)) / (m - 1)
        if not lengths:
            continue
        count = len(lengths)
        x = 0.0
        for length in lengths:
            x += (count - 1) * length * (length - 1) * (2 * length - 1) / 3
            x += length**2 * sum(g - length + 1 for g in gap_lengths if g >= length)
        observed.append(total / (n * scale))
        expected.append(2 * x / (scale * (n * (n - 1) - sum(v * (v - 1) for v in lengths))))
    return float(np.mean(observed)), float(np.mean(expected))


def random_data(
    seed: int, *, documents: int = 6, coders: int = 4, zero_length: bool = True
) -> SpanData:
    rng = np.random.default_rng(seed)
    units, annotated, extents = [], [], {}
    for d in range(documents):
        length = int(rng.integers(5, 40))
        extents[f"d{d}"] = (0, length)
        for coder in range(coders):
            if rng.random() < 0.2:
                continue  # did not annotate
            annotated.append((f"d{d}", coder))
            for category in "XY":
                cuts = np.sort(
                    rng.choice(length + 1, size=2 * int(rng.integers(0, 4)), replace=False)
                )
                for b, e in cuts.reshape(-1, 2):
                    units.append((f"d{d}", coder, int(b), int(e), category))
                if zero_length and rng.random() < 0.3:
                    spot = int(rng.integers(0, length + 1))
                    if not any(
                        b < spot < e
                        for doc, who, b, e, c in units
                        if (doc, who, c) == (f"d{d}", coder, category)
                    ):
                        units.append((f"d{d}", coder, spot, spot, category))
    return SpanData.from_units(units, extents=extents, annotated=annotated)


@pytest.mark.parametrize("seed", range(12))
def test_matches_plain_python_reference(seed) -> None:
    data = random_data(seed)
    try:
        reference = reference_alpha(data)
    except (ZeroDivisionError, ValueError):
        pytest.skip("undefined on this draw")
    result = unitizing_alpha(data)
    assert result.observed == pytest.approx(reference[0], rel=1e-12, abs=1e-15)
    assert result.expected == pytest.approx(reference[1], rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_fractional_positions_match_the_reference(seed) -> None:
    # Times in seconds: positions that are not integers are compared through a sort.
    integral = random_data(seed)
    data = SpanData.from_units(
        [(d, c, b * 0.25, e * 0.25, k) for d, c, b, e, k in integral.units()],
        extents={
            d: tuple(x * 0.25 for x in integral.extents[i])
            for i, d in enumerate(integral.documents)
        },
        annotated=[
            (integral.documents[d], integral.coders[c])
            for d, c in zip(*np.nonzero(integral.annotated), strict=True)
        ],
    )
    try:
        reference = reference_alpha(data)
    except (ZeroDivisionError, ValueError):
        pytest.skip("undefined on this draw")
    result = unitizing_alpha(data)
    assert result.observed == pytest.approx(reference[0], rel=1e-12, abs=1e-15)
    assert result.expected == pytest.approx(reference[1], rel=1e-12)


# -- documents ---------------------------------------------------------------------------------


def test_document_order_does_not_matter() -> None:
    data = random_data(3)
    shuffled = data.select(np.random.default_rng(0).permutation(data.n_documents))
    first, second = unitizing_alpha(data), unitizing_alpha(shuffled)
    assert second.value == pytest.approx(first.value, rel=1e-12)
    assert second.observed == pytest.approx(first.observed, rel=1e-12)
    assert second.expected == pytest.approx(first.expected, rel=1e-12)


def test_cutting_a_continuum_where_every_coder_has_a_boundary() -> None:
    # Every coder has a unit ending or beginning at 10, so no segment straddles the cut.
    whole = [
        ("t", "A", 2, 10, "X"),
        ("t", "A", 13, 17, "X"),
        ("t", "B", 4, 10, "X"),
        ("t", "B", 12, 18, "X"),
        ("t", "C", 10, 15, "X"),
    ]
    one = SpanData.from_units(whole, extents={"t": (0, 20)})
    two = SpanData.from_units(
        [("t1" if e <= 10 else "t2", who, b, e, c) for _, who, b, e, c in whole],
        extents={"t1": (0, 10), "t2": (10, 20)},
        annotated=[(doc, who) for doc in ("t1", "t2") for who in "ABC"],
    )
    first, second = unitizing_alpha(one), unitizing_alpha(two)
    assert second.value == pytest.approx(first.value, rel=1e-12)
    assert second.observed == pytest.approx(first.observed, rel=1e-12)
    assert second.expected == pytest.approx(first.expected, rel=1e-12)


def test_document_with_one_coder_counts_for_nothing() -> None:
    base = [("a", "A", 2, 6, "X"), ("a", "B", 3, 6, "X"), ("a", "B", 8, 9, "X")]
    alone = [("b", "A", 0, 50, "X")]
    first = unitizing_alpha(SpanData.from_units(base, extents={"a": (0, 10)}))
    second = unitizing_alpha(
        SpanData.from_units(base + alone, extents={"a": (0, 10), "b": (0, 80)})
    )
    assert second.value == first.value
    assert second.n_documents == 1


def test_a_coder_who_skips_units_lowers_alpha() -> None:
    units = [("t", coder, b, b + 5, "X") for coder in "ABC" for b in (3, 20, 41, 60)]
    complete = unitizing_alpha(SpanData.from_units(units, extents={"t": (0, 80)}))
    skipped = unitizing_alpha(
        SpanData.from_units([u for u in units if u[1:3] != ("C", 41)], extents={"t": (0, 80)})
    )
    assert complete.value == pytest.approx(1.0)
    assert skipped.value < complete.value


def test_found_nothing_differs_from_not_annotated() -> None:
    units = [("t", "A", 3, 9, "X"), ("t", "B", 4, 9, "X")]
    missing = unitizing_alpha(SpanData.from_units(units, extents={"t": (0, 20)}))
    nothing = unitizing_alpha(
        SpanData.from_units(units, extents={"t": (0, 20)}, annotated=[("t", "C")])
    )
    # C saying "nothing here" disagrees with both A and B.
    assert nothing.value < missing.value


# -- overlapping units ---------------------------------------------------------------------------


def test_overlapping_units_of_one_coder_raise_naming_them() -> None:
    data = SpanData.from_units(
        [("doc", "A", 2, 8, "X"), ("doc", "A", 5, 9, "X"), ("doc", "B", 2, 9, "X")],
        extents={"doc": (0, 20)},
    )
    with pytest.raises(ValueError, match=r"'doc', coder 'A'.*\[2, 8\) and \[5, 9\).*'X'"):
        unitizing_alpha(data)
    with pytest.raises(ValueError, match="overlap"):
        decompose_unitizing_alpha(data)


def test_merge_replaces_overlapping_units_by_their_union() -> None:
    overlapping = SpanData.from_units(
        [
            ("doc", "A", 2, 8, "X"),
            ("doc", "A", 5, 9, "X"),
            ("doc", "A", 6, 6, "X"),  # zero-length, inside the union
            ("doc", "A", 9, 12, "X"),  # touches the union: stays apart
            ("doc", "B", 2, 9, "X"),
        ],
        extents={"doc": (0, 20)},
    )
    union = SpanData.from_units(
        [("doc", "A", 2, 9, "X"), ("doc", "A", 9, 12, "X"), ("doc", "B", 2, 9, "X")],
        extents={"doc": (0, 20)},
    )
    merged = unitizing_alpha(overlapping, overlapping="merge")
    assert merged == unitizing_alpha(union)
    assert decompose_unitizing_alpha(overlapping, overlapping="merge").evaluate() == pytest.approx(
        merged.value, rel=1e-15
    )


def test_touching_units_and_other_categories_may_overlap() -> None:
    data = SpanData.from_units(
        [
            ("doc", "A", 2, 8, "X"),
            ("doc", "A", 8, 9, "X"),
            ("doc", "A", 3, 12, "Y"),
            ("doc", "B", 2, 9, "X"),
            ("doc", "B", 4, 12, "Y"),
        ],
        extents={"doc": (0, 20)},
    )
    result = unitizing_alpha(data)
    assert set(result.categories) == {"X", "Y"}


def test_bad_arguments() -> None:
    data = continuum(K2004, 300, begin=150)
    with pytest.raises(ValueError, match="unknown category 'z'"):
        unitizing_alpha(data, category="z")
    with pytest.raises(ValueError, match="overlapping must be"):
        unitizing_alpha(data, overlapping="ignore")  # type: ignore[arg-type]
    single = SpanData.from_units([("t", "A", 0, 3, "X")], extents={"t": (0, 5)})
    with pytest.raises(ValueError, match="two or more coders"):
        unitizing_alpha(single)


# -- the decomposition -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_decomposition_evaluates_to_alpha(seed) -> None:
    data = random_data(seed, documents=12)
    decomposition = decompose_unitizing_alpha(data)
    assert decomposition.n_items == data.n_documents
    assert decomposition.evaluate() == pytest.approx(unitizing_alpha(data).value, rel=1e-12)
    one = decompose_unitizing_alpha(data, category="Y")
    assert one.evaluate() == pytest.approx(unitizing_alpha(data, category="Y").value, rel=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_a_resample_is_alpha_of_the_resampled_documents(seed) -> None:
    data = random_data(seed, documents=10)
    decomposition = decompose_unitizing_alpha(data)
    drawn = np.random.default_rng(seed).integers(0, data.n_documents, size=data.n_documents)
    weights = np.bincount(drawn, minlength=data.n_documents)[None, :].astype(float)
    resampled = unitizing_alpha(data.select(drawn))
    assert decomposition.evaluate(weights)[0] == pytest.approx(resampled.value, rel=1e-10)
    # leave one document out (the jackknife)
    kept = np.arange(1, data.n_documents)
    left_out = decomposition.finalize(
        decomposition.totals() - decomposition.item_stats[0].toarray()[0]
    )
    assert left_out == pytest.approx(unitizing_alpha(data.select(kept)).value, rel=1e-10)


def test_many_distinct_lengths_are_binned_and_still_exact_on_the_data(monkeypatch) -> None:
    monkeypatch.setattr(unitizing, "LENGTH_BINS", 4)
    monkeypatch.setattr(unitizing, "_MIN_BINS_PER_CATEGORY", 2)
    data = random_data(5, documents=15)
    decomposition = decompose_unitizing_alpha(data)
    value = unitizing_alpha(data).value
    assert decomposition.evaluate() == pytest.approx(value, rel=1e-12)
    monkeypatch.undo()
    assert unitizing_alpha(data).value == pytest.approx(value, rel=1e-12)
    # a resample is close to, not equal to, alpha of the resampled documents
    drawn = np.random.default_rng(1).integers(0, data.n_documents, size=data.n_documents)
    weights = np.bincount(drawn, minlength=data.n_documents)[None, :].astype(float)
    assert decomposition.evaluate(weights)[0] == pytest.approx(
        unitizing_alpha(data.select(drawn)).value, abs=0.05
    )


def test_unpairable_documents_have_zero_rows() -> None:
    data = SpanData.from_units(
        [("a", "A", 2, 6, "X"), ("a", "B", 3, 6, "X"), ("b", "A", 0, 5, "X")],
        extents={"a": (0, 10), "b": (0, 10)},
    )
    stats = decompose_unitizing_alpha(data).item_stats
    assert stats[1].nnz == 0
    assert unitizing_document_disagreement(data)[1] == 0.0


def test_no_pairable_document_gives_nan_decomposition() -> None:
    data = SpanData.from_units([("t", "A", 0, 3, "X")], extents={"t": (0, 5)})
    assert np.isnan(decompose_unitizing_alpha(data).evaluate())
    assert np.isnan(unitizing_document_disagreement(data)).all()


def test_unit_in_the_gap_after_a_zero_length_last_unit() -> None:
    # docs/references.md#derived-unitizing-two-coders (zero-length units)
    # Continuum [0, 6). Coder A: a zero-length unit at 4, so A's gaps are [0,4) and [4,6).
    # Coder B: [2,3) and [4,6). B's [2,3) lies in A's gap [0,4): 1² = 1; B's [4,6) lies in A's
    # gap [4,6): 2² = 4; the zero-length unit against [4,6) does not overlap (it sits on the
    # edge). D_o = 2·(1 + 4)/(2·1·6²) = 10/72. (DKPro 2.3.1's sweep stops when both coders'
    # last units are reached and misses the 4, giving 2/72.)
    data = continuum([("A", 4, 0, "X"), ("B", 2, 1, "X"), ("B", 4, 2, "X")], 6, coders="AB")
    assert unitizing_alpha(data).observed == pytest.approx(10 / 72, rel=1e-12)
    # a zero-length unit strictly inside another coder's unit counts as overlapping it
    inside = continuum([("A", 5, 0, "X"), ("B", 4, 2, "X")], 6, coders="AB")
    # (5-4)² + (5-6)² = 2, both orders: D_o = 2·2/72
    assert unitizing_alpha(inside).observed == pytest.approx(4 / 72, rel=1e-12)


def test_bootstrap_over_documents_runs_on_the_decomposition() -> None:
    from metrics.uncertainty.bootstrap import bootstrap

    data = random_data(2, documents=30, zero_length=False)
    decomposition = decompose_unitizing_alpha(data)
    interval = bootstrap(decomposition, seed=3, replicates=200, confidence=0.9)
    assert interval.estimate == pytest.approx(unitizing_alpha(data).value, rel=1e-12)
    assert interval.low < interval.estimate < interval.high


def test_column_zero_is_each_documents_observed_disagreement() -> None:
    # docs/references.md#derived-unitizing-documents: d1 and d2 each hold half of D_o.
    data = SpanData.from_units(
        [("d1", "A", 0, 2, "X"), ("d1", "B", 0, 2, "X"), ("d2", "A", 1, 3, "X")],
        extents={"d1": (0, 4), "d2": (0, 4)},
        annotated=[("d1", "C"), ("d2", "B")],
    )
    column = decompose_unitizing_alpha(data).item_stats[:, 0].toarray().ravel()
    assert (column / column.sum()).tolist() == pytest.approx([0.5, 0.5], rel=1e-12)
