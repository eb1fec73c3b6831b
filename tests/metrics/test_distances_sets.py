"""Set distances against Passonneau (2006), Artstein & Poesio (2008) and peer-library vectors.

Every figure below is copied from the cited paper or library test (with the errata noted).
"""

from __future__ import annotations

import importlib
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from metrics.distances.base import Distance
from metrics.distances.sets import (
    SET_DISTANCES,
    SetDistance,
    dice_distance,
    jaccard_distance,
    masi_ap_distance,
    masi_distance,
    membership_matrix,
    passonneau_distance,
)

F = frozenset


def _alpha(units: list[list[frozenset]], distance: Distance) -> tuple[float, float, float]:
    """Krippendorff's alpha for complete data (every unit coded by every coder).

    ``units[u]`` lists the values of unit u. Returns (alpha, D_o, D_e) with
    D_o = (1/n) Σ_u 1/(m_u − 1) Σ_{ordered pairs in u} δ and
    D_e = 1/(n(n − 1)) Σ_{ordered pairs of all values} δ (Krippendorff 1980).
    """
    domain = list(dict.fromkeys(v for unit in units for v in unit))
    index = {v: i for i, v in enumerate(domain)}
    d = distance.matrix(domain)
    n = sum(len(unit) for unit in units)
    d_o = 0.0
    for unit in units:
        codes = np.array([index[v] for v in unit])
        d_o += d[np.ix_(codes, codes)].sum() / (len(unit) - 1)
    d_o /= n
    all_codes = np.array([index[v] for unit in units for v in unit])
    d_e = d[np.ix_(all_codes, all_codes)].sum() / (n * (n - 1))
    return 1 - d_o / d_e, d_o, d_e


# Passonneau (2006) §3.3 (docs/references.md#passonneau2006-masi-units): (P, Q, J, M, 1 − J·M).
MASI_UNIT_VECTORS = [
    ({1, 2}, {1, 2}, Fraction(1), Fraction(1), Fraction(0)),
    ({1, 2}, {1, 2, 3, 4}, Fraction(1, 2), Fraction(2, 3), Fraction(2, 3)),
    ({1, 2, 3}, {2, 3, 4}, Fraction(1, 2), Fraction(1, 3), Fraction(5, 6)),
    ({1, 2}, {3, 4}, Fraction(0), Fraction(0), Fraction(1)),
    (set("xy"), set("xyz"), Fraction(2, 3), Fraction(2, 3), Fraction(5, 9)),
    (set("x"), set("xyz"), Fraction(1, 3), Fraction(2, 3), Fraction(7, 9)),
    (set("xy"), set("yz"), Fraction(1, 3), Fraction(1, 3), Fraction(8, 9)),
]


@pytest.mark.parametrize(("p", "q", "j", "m", "d"), MASI_UNIT_VECTORS)
def test_masi_unit_vectors_use_exact_thirds(p, q, j, m, d):
    assert masi_distance(F(p), F(q)) == float(d)
    assert masi_distance(F(q), F(p)) == float(d)
    assert jaccard_distance(F(p), F(q)) == float(1 - j)
    assert passonneau_distance(F(p), F(q)) == float(1 - m)


def test_masi_is_not_nltks_rounded_weights():
    # NLTK before PR #3695 (nltk#3361): M = 0.67 gave 0.665 for {1,2} vs {1,2,3,4}.
    assert masi_distance(F({1, 2}), F({1, 2, 3, 4})) != pytest.approx(0.665, abs=1e-4)
    # NLTK doctest s1={1,2,3,4}, s2={3,4,5}: jaccard 0.6, masi 0.868 rounded; exact 13/15.
    assert jaccard_distance(F({1, 2, 3, 4}), F({3, 4, 5})) == pytest.approx(0.6)
    assert masi_distance(F({1, 2, 3, 4}), F({3, 4, 5})) == pytest.approx(13 / 15, abs=1e-15)


def test_masi_bracket_bug_is_absent():
    # nltk PR #1535/#1881/#2049: (1 − J)·M gave disjoint sets distance 0.
    assert masi_distance(F("ab"), F("cd")) == 1.0
    assert masi_distance(F("ab"), F("ab")) == 0.0


def test_passonneau_distance_takes_the_four_values_exactly():
    # Artstein & Poesio (2008) §4.4.1; DKPro SetAnnotationDistanceFunction
    # (docs/references.md#set-distance-units).
    assert passonneau_distance(F("AB"), F("AB")) == 0.0
    assert passonneau_distance(F("A"), F("AB")) == 1 / 3
    assert passonneau_distance(F("AB"), F("BC")) == 2 / 3
    assert passonneau_distance(F("A"), F("B")) == 1.0


def test_dkpro_masi_is_the_artstein_poesio_product():
    # DKPro MASISetAnnotationDistanceFunction (docs/references.md#set-distance-units): {A}/{A,B}
    # 1/6; {A,B}/{B,C} 4/9.
    assert masi_ap_distance(F("A"), F("AB")) == pytest.approx(1 / 6, abs=1e-15)
    assert masi_ap_distance(F("AB"), F("BC")) == pytest.approx(4 / 9, abs=1e-15)
    assert masi_ap_distance(F("A"), F("B")) == 1.0


# Artstein & Poesio (2008) §4.5 (docs/references.md#ap2008-extended-senses): extended senses
# of "call".
WN1 = F({"WN1", "LABEL"})
WN3 = F({"WN3", "LABEL"})
SUPER = F({"LABEL"})


def test_artstein_poesio_extended_senses():
    assert passonneau_distance(WN1, WN3) == pytest.approx(2 / 3)  # printed d = 2/3
    assert passonneau_distance(WN1, SUPER) == pytest.approx(1 / 3)  # printed d = 1/3
    # Derived (docs/references.md#ap2008-extended-senses): d_J, d_D, A&P's d_P × d_J, 1 − J·M.
    assert jaccard_distance(WN1, WN3) == pytest.approx(2 / 3)
    assert jaccard_distance(WN1, SUPER) == pytest.approx(1 / 2)
    assert dice_distance(WN1, WN3) == pytest.approx(1 / 2)
    assert dice_distance(WN1, SUPER) == pytest.approx(1 / 3)
    assert masi_ap_distance(WN1, WN3) == pytest.approx(4 / 9)
    assert masi_ap_distance(WN1, SUPER) == pytest.approx(1 / 6)
    assert masi_distance(WN1, WN3) == pytest.approx(8 / 9)
    assert masi_distance(WN1, SUPER) == pytest.approx(2 / 3)


def _mean_similarity(pairs, distance):
    return np.mean([1 - distance(F(a), F(b)) for a, b in pairs])


# Passonneau (2006) Figure 2 (columns x, y, z; A3 vs A4), raw sets as the paper computes
# (docs/references.md#passonneau2006-figure2).
FIG2 = [("xy", "xyz"), ("xy", "xyz"), ("x", "xyz")]
# The same with the coding unit removed from its own set (Passonneau's §3.3 prescription;
# derived).
FIG2_UNIT_REMOVED = [("y", "yz"), ("x", "xz"), ("x", "xy")]


def test_passonneau_figure_2():
    jaccards = [1 - jaccard_distance(F(a), F(b)) for a, b in FIG2]
    assert jaccards == pytest.approx([2 / 3, 2 / 3, 1 / 3])
    assert _mean_similarity(FIG2, jaccard_distance) == pytest.approx(5 / 9)
    assert _mean_similarity(FIG2, masi_distance) == pytest.approx(10 / 27)  # printed .37
    assert _mean_similarity(FIG2_UNIT_REMOVED, jaccard_distance) == pytest.approx(1 / 2)
    assert _mean_similarity(FIG2_UNIT_REMOVED, masi_distance) == pytest.approx(1 / 3)


# Passonneau (2006) Figure 3, A3 row rebuilt from the prose
# (docs/references.md#passonneau2006-figure3).
FIG3 = [("xy", "x"), ("xy", "yz"), ("z", "yz")]


def test_passonneau_figure_3_with_erratum():
    # Paper error (docs/references.md#passonneau2006-figure3): it prints J = 1/3, 2/3, 1/3 and mean
    # MASI 6/27 (.22);
    # no sets over {x,y,z} give those Jaccard values. Correct: J = 1/2, 1/3, 1/2; mean 7/27.
    jaccards = [1 - jaccard_distance(F(a), F(b)) for a, b in FIG3]
    assert jaccards == pytest.approx([1 / 2, 1 / 3, 1 / 2])
    masis = [1 - masi_distance(F(a), F(b)) for a, b in FIG3]
    assert masis == pytest.approx([1 / 3, 1 / 9, 1 / 3])
    assert _mean_similarity(FIG3, jaccard_distance) == pytest.approx(4 / 9)  # printed 4/9
    assert _mean_similarity(FIG3, masi_distance) == pytest.approx(7 / 27)
    # With the unit removed every column is disjoint or empty-vs-set: MASI 0 (derived).
    removed = [("y", ""), ("x", "z"), ("", "y")]
    assert _mean_similarity(removed, masi_distance) == 0.0


# Passonneau (2006) Figures 1/4: spans as units, A1 vs A2 (raw sets).
A1_SETS = [F({1, 2, 3, 4})] * 4 + [F({5, 7}), F({6}), F({5, 7})]
A2_SETS = [F(range(1, 8))] * 7


def test_passonneau_figure_4_per_span_similarities():
    # docs/references.md#passonneau2006-figure4: spans 1–4 J 4/7 MASI 8/21; spans 5, 7 J 2/7
    # MASI 4/21; span 6 1/7, 2/21.
    expected = [(4 / 7, 8 / 21)] * 4 + [(2 / 7, 4 / 21), (1 / 7, 2 / 21), (2 / 7, 4 / 21)]
    for a, b, (j, masi) in zip(A1_SETS, A2_SETS, expected, strict=True):
        assert 1 - jaccard_distance(a, b) == pytest.approx(j)
        assert 1 - masi_distance(a, b) == pytest.approx(masi)
        assert passonneau_distance(a, b) == pytest.approx(1 / 3)


def test_passonneau_figure_4_alpha_recomputed():
    # docs/references.md#passonneau2006-figure4: raw sets, and each unit removed from its set.
    units = [[a, b] for a, b in zip(A1_SETS, A2_SETS, strict=True)]
    removed = [[a - {u}, b - {u}] for u, (a, b) in enumerate(units, start=1)]
    alpha, d_o, d_e = _alpha(units, SET_DISTANCES["jaccard"])
    assert (alpha, d_o, d_e) == pytest.approx((-0.2381, 0.5714, 0.4615), abs=1e-4)
    alpha, d_o, d_e = _alpha(units, SET_DISTANCES["masi"])
    assert (alpha, d_o, d_e) == pytest.approx((-0.3265, 0.7143, 0.5385), abs=1e-4)
    assert _alpha(removed, SET_DISTANCES["jaccard"])[0] == pytest.approx(-0.0184, abs=1e-4)
    assert _alpha(removed, SET_DISTANCES["masi"])[0] == pytest.approx(0.0831, abs=1e-4)


def test_passonneau_figure_5_derived_values():
    # docs/references.md#passonneau2006-figure5: A1 {1,2},{3}; A2 {1,3},{2}; spans 1, 2, 3.
    units = [[F({1, 2}), F({1, 3})], [F({1, 2}), F({2})], [F({3}), F({1, 3})]]
    masis = [1 - masi_distance(a, b) for a, b in units]
    assert masis == pytest.approx([1 / 9, 1 / 3, 1 / 3])
    assert _alpha(units, SET_DISTANCES["jaccard"])[0] == pytest.approx(0.1379, abs=1e-4)
    assert _alpha(units, SET_DISTANCES["masi"])[0] == pytest.approx(0.0099, abs=1e-4)


# DKPro Agreement SetAnnotationsTest, 9 items × 2 raters (docs/references.md#dkpro-set-annotations).
TV50 = [
    ("", ""),
    ("A", ""),
    ("A", "A"),
    ("A", "B"),
    ("AB", "A"),
    ("AB", "AC"),
    ("ABC", "ABC"),
    ("C", "AC"),
    ("C", "AC"),
]


@pytest.mark.parametrize(
    ("distance", "d_o", "d_e", "alpha", "tol"),
    [
        # DKPro asserts to 0.001 with d({A},{}) = 1/3 (the empty set as a subset).
        (SetDistance("passonneau", empty="subset"), 0.333, 0.409, 0.186, 1e-3),
        (SetDistance("masi_ap", empty="subset"), 0.253, 0.338, 0.252, 1e-3),
        # Recomputed only (no peer): true MASI and Jaccard.
        (SET_DISTANCES["masi"], 0.5432, 0.7473, 0.2731, 1e-4),
        (SET_DISTANCES["jaccard"], 0.4630, 0.6765, 0.3156, 1e-4),
    ],
)
def test_dkpro_set_annotations_alpha(distance, d_o, d_e, alpha, tol):
    units = [[F(a), F(b)] for a, b in TV50]
    assert _alpha(units, distance) == pytest.approx((alpha, d_o, d_e), abs=tol)


def test_dkpro_alpha_cross_checks_to_ten_digits():
    units = [[F(a), F(b)] for a, b in TV50]
    passonneau = SetDistance("passonneau", empty="subset")
    assert _alpha(units, passonneau)[0] == pytest.approx(0.1861702128, abs=1e-9)
    assert _alpha(units, SetDistance("masi_ap", empty="subset"))[0] == pytest.approx(
        0.2529474812, abs=1e-9
    )


def test_single_item_gives_observed_equal_to_expected():
    # nltk#2991 (docs/references.md#nltk-2991-masi): one item {l1} vs {l1, l2}: D_o = D_e = 2/3, so
    # alpha = 0.
    alpha, d_o, d_e = _alpha([[F({"l1"}), F({"l1", "l2"})]], SET_DISTANCES["masi"])
    assert d_o == pytest.approx(2 / 3)
    assert d_e == pytest.approx(2 / 3)
    assert alpha == pytest.approx(0.0, abs=1e-12)


def test_empty_sets_have_a_documented_convention():
    # NLTK raises ZeroDivisionError on ({}, {}); here two empty sets are identical.
    for name in SET_DISTANCES:
        assert SET_DISTANCES[name].matrix([F(), F()])[0, 1] == 0.0
    for function in (jaccard_distance, dice_distance, masi_distance):
        assert function(F(), F()) == 0.0
        assert function(F(), F("A")) == 1.0
    assert passonneau_distance(F(), F("A")) == 1.0
    assert passonneau_distance(F(), F("A"), empty="subset") == 1 / 3
    assert masi_ap_distance(F(), F("A")) == 1.0
    assert masi_ap_distance(F(), F("A"), empty="subset") == 1 / 3


def test_non_set_labels_are_refused():
    with pytest.raises(ValueError, match="set or frozenset"):
        jaccard_distance("ab", F("a"))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="set or frozenset"):
        SET_DISTANCES["masi"].matrix([F("a"), "b"])
    with pytest.raises(ValueError, match="Unknown set distance"):
        SetDistance("cosine")
    with pytest.raises(ValueError, match="empty must be"):
        passonneau_distance(F("a"), F("b"), empty="both")  # type: ignore[arg-type]


def test_registry_holds_the_five_distances():
    assert set(SET_DISTANCES) == {"jaccard", "dice", "passonneau", "masi", "masi_ap"}
    for name, distance in SET_DISTANCES.items():
        assert isinstance(distance, Distance)
        assert distance.name == name


def test_membership_matrix_lists_the_category_universe():
    membership, categories = membership_matrix([F("ab"), F("b"), F()])
    assert set(categories) == {"a", "b"}
    assert membership.sum(axis=1).tolist() == [2, 1, 0]


PAIRWISE = {
    "jaccard": jaccard_distance,
    "dice": dice_distance,
    "passonneau": passonneau_distance,
    "masi": masi_distance,
    "masi_ap": masi_ap_distance,
}

sets_strategy = st.lists(st.frozensets(st.integers(0, 5), max_size=5), min_size=1, max_size=8)


@settings(max_examples=60, deadline=None)
@given(domain=sets_strategy)
def test_matrix_equals_pairwise_and_is_a_distance(domain):
    for name, function in PAIRWISE.items():
        d = SET_DISTANCES[name].matrix(domain)
        expected = [[function(a, b) for b in domain] for a in domain]
        assert d.tolist() == expected
        assert np.array_equal(d, d.T)
        assert np.all(np.diag(d) == 0)
        assert np.all((d >= 0) & (d <= 1))


def test_matrix_does_not_read_counts_and_returns_floats():
    d = SET_DISTANCES["masi"].matrix([F("ab"), F("b")], counts=np.array([3.0, 4.0]))
    assert d.dtype == np.float64
    assert d.shape == (2, 2)


@settings(max_examples=80, deadline=None)
@given(
    a=st.frozensets(st.integers(0, 6), min_size=1, max_size=6),
    b=st.frozensets(st.integers(0, 6), min_size=1, max_size=6),
)
def test_agrees_with_nltk_on_non_empty_sets(a, b):
    # NLTK 3.10.4 (dev-only oracle; exact thirds since PR #3695). NLTK raises on two empty sets.
    distance = importlib.import_module("nltk.metrics.distance")
    assert masi_distance(a, b) == pytest.approx(distance.masi_distance(set(a), set(b)), abs=1e-12)
    assert jaccard_distance(a, b) == pytest.approx(distance.jaccard_distance(set(a), set(b)))
