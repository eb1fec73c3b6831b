"""True-agreement intervals against Krenn, Evert & Zinsmeister (2004), Tables 1 and 2.

The paper does not publish the twelve 2 × 2 tables (expert BK against annotators NN1–NN12);
they were reconstructed from the printed kappa and interval ends, and every printed digit of
both tables is reproduced under one reading: confidence 95%, two-sided p = min(1,
2·min(tails)), feasibility check for homogeneity (docs/references.md#kez2004-tables). The
printed percentages are the paper's.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from metrics.data import ReliabilityData
from metrics.uncertainty.true_agreement import (
    TrueAgreementInterval,
    binomial_p_values,
    fisher_p_values,
    true_agreement_by_pair,
    true_agreement_interval,
)

# NN: ((n11, n12, n21, n22), printed kappa (Table 2), Table 1 prop.min/prop.max,
#      Table 2 homogeneity min/max, implied integer m ends (cons. min, max, hom. min, max)).
KEZ_TABLES = {
    1: (
        (109, 20, 55, 671),
        ".692",
        ("12.16%", "86.08%"),
        ("63.39%", "75.91%"),
        (104, 736, 542, 649),
    ),
    2: ((85, 33, 43, 694), ".639", ("9.24%", "85.03%"), ("56.14%", "70.64%"), (79, 727, 480, 604)),
    3: (
        (124, 5, 148, 578),
        ".520",
        ("13.92%", "78.95%"),
        ("51.70%", "64.33%"),
        (119, 675, 442, 550),
    ),
    4: (
        (120, 22, 57, 656),
        ".696",
        ("13.33%", "85.26%"),
        ("64.09%", "75.91%"),
        (114, 729, 548, 649),
    ),
    5: (
        (104, 37, 42, 672),
        ".669",
        ("11.46%", "84.33%"),
        ("60.12%", "72.75%"),
        (98, 721, 514, 622),
    ),
    6: (
        (114, 28, 56, 657),
        ".671",
        ("12.63%", "83.74%"),
        ("61.05%", "73.33%"),
        (108, 716, 522, 627),
    ),
    7: (
        (123, 23, 33, 676),
        ".775",
        ("13.92%", "89.36%"),
        ("71.93%", "82.22%"),
        (119, 764, 615, 703),
    ),
    8: (
        (126, 20, 231, 478),
        ".341",
        ("12.51%", "59.18%"),
        ("33.68%", "49.71%"),
        (107, 506, 288, 425),
    ),
    9: (
        (115, 29, 32, 679),
        ".747",
        ("12.98%", "88.19%"),
        ("68.65%", "79.77%"),
        (111, 754, 587, 682),
    ),
    10: (
        (123, 26, 53, 651),
        ".700",
        ("13.72%", "84.76%"),
        ("64.36%", "75.85%"),
        (117, 723, 549, 647),
    ),
    11: (
        (108, 41, 66, 638),
        ".592",
        ("11.61%", "78.55%"),
        ("52.40%", "65.65%"),
        (99, 670, 447, 560),
    ),
    12: ((61, 90, 95, 607), ".265", ("4.34%", "60.73%"), ("17.00%", "35.05%"), (37, 518, 145, 299)),
}

# Other splits of the disagreements (n12/n21) that fit the printed numbers equally
# (docs/references.md#kez2004-tables).
KEZ_ALTERNATIVES = {
    2: [(32, 44), (34, 42), (35, 41)],
    5: [(38, 41)],
    7: [(24, 32)],
    9: [(30, 31)],
    12: [(88, 97), (89, 96), (91, 94), (92, 93)],
}


def _kappa(n11: int, n12: int, n21: int, n22: int) -> float:
    n = n11 + n12 + n21 + n22
    p_o = (n11 + n22) / n
    p_c = ((n11 + n12) * (n11 + n21) + (n21 + n22) * (n12 + n22)) / n**2
    return (p_o - p_c) / (1 - p_c)


def _table(cells: tuple[int, int, int, int]) -> np.ndarray:
    return np.array(cells).reshape(2, 2)


@pytest.mark.parametrize("nn", sorted(KEZ_TABLES))
def test_krenn_tables_1_and_2_are_reproduced_digit_for_digit(nn):
    cells, kappa, conservative, homogeneity, m_ends = KEZ_TABLES[nn]
    assert f"{_kappa(*cells):.3f}".lstrip("0") == kappa  # the reconstruction fits Table 2
    cons = true_agreement_interval(_table(cells), model="conservative")
    hom = true_agreement_interval(_table(cells), model="homogeneity")
    assert (cons.m_low, cons.m_high, hom.m_low, hom.m_high) == m_ends
    assert (f"{cons.low:.2%}", f"{cons.high:.2%}") == conservative
    assert (f"{hom.low:.2%}", f"{hom.high:.2%}") == homogeneity


@pytest.mark.parametrize(
    ("nn", "n12", "n21"),
    [(nn, b, c) for nn, alternatives in KEZ_ALTERNATIVES.items() for b, c in alternatives],
)
def test_krenn_alternative_reconstructions_give_the_same_intervals(nn, n12, n21):
    (n11, _, _, n22), _, _, _, m_ends = KEZ_TABLES[nn]
    table = _table((n11, n12, n21, n22))
    cons = true_agreement_interval(table, model="conservative")
    hom = true_agreement_interval(table, model="homogeneity")
    assert (cons.m_low, cons.m_high, hom.m_low, hom.m_high) == m_ends


def test_krenn_interval_sizes_and_the_rounding_erratum():
    # Table 2 prints sizes from rounded bounds: NN1 12.52, NN4 11.82, NN8 16.03, NN9 11.12;
    # exact (docs/references.md#kez2004-tables): 107/855, 101/855, 137/855, 95/855 = 12.51,
    # 11.81, 16.02, 11.11.
    exact = {1: "12.51", 4: "11.81", 8: "16.02", 9: "11.11", 7: "10.29", 12: "18.05"}
    for nn, size in exact.items():
        hom = true_agreement_interval(_table(KEZ_TABLES[nn][0]), model="homogeneity")
        assert f"{100 * hom.width:.2f}" == size


def test_krenn_nn3_needs_the_feasibility_check():
    # NN3's printed homogeneity ends (51.70%–64.33%) only come out when an m that would give
    # a coder a negative TP count in C₂ is not admissible (docs/references.md#kez2004-tables).
    hom = true_agreement_interval(_table(KEZ_TABLES[3][0]), model="homogeneity")
    assert hom.m_high == 550
    n11, n12, n21, _ = KEZ_TABLES[3][0]
    n = 855
    pi = ((n11 + n12) + (n11 + n21)) / (2 * n)
    # 550 is the last m at which coder A keeps a non-negative TP count in C₂ (π·m ≤ n₁·);
    # without the check the interval would run on to 67.60%.
    assert pi * hom.m_high <= n11 + n12 < pi * (hom.m_high + 1)


# Krenn et al. (2004) Figure 2 (= Di Eugenio & Glass 2004, Example 5); derived vectors under
# both rules (docs/references.md#kez2004-figure2).
FIGURE_2 = [[40, 15], [20, 25]]


@pytest.mark.parametrize(
    ("rule", "conservative", "homogeneity"),
    [("paper", (6, 46), (9, 44)), ("minlike", (7, 46), (10, 44))],
)
def test_krenn_figure_2_intervals(rule, conservative, homogeneity):
    cons = true_agreement_interval(FIGURE_2, model="conservative", rule=rule)
    hom = true_agreement_interval(FIGURE_2, model="homogeneity", rule=rule)
    assert (cons.m_low, cons.m_high) == conservative
    assert (hom.m_low, hom.m_high) == homogeneity
    assert (cons.low, cons.high) == (conservative[0] / 100, conservative[1] / 100)


@pytest.mark.parametrize(
    ("table", "paper", "minlike"),
    [
        ([[15, 15], [20, 10]], 0.294912, 0.294912),  # Figure 3's C₂ (m = 40, m₊ = 25)
        ([[0, 15], [20, 25]], 0.001512, 0.001069),  # Figure 4's C₂ (m = 40, m₊ = 40)
        ([[40, 15], [20, 25]], 0.007478, 0.007279),  # the whole table
    ],
)
def test_krenn_figure_2_fisher_p_values(table, paper, minlike):
    cells = np.array(table).ravel()
    assert float(fisher_p_values(*cells)) == pytest.approx(paper, abs=1e-6)
    assert float(fisher_p_values(*cells, rule="minlike")) == pytest.approx(minlike, abs=1e-6)


def test_krenn_figure_2_homogeneity_at_m_40():
    # m₊ = 23, pA₂ = 32/60, pB₂ = 37/60, p_c = 0.507778, x = 25 of 60
    # (docs/references.md#kez2004-figure2).
    p_a, p_b = 32 / 60, 37 / 60
    p_c = p_a * p_b + (1 - p_a) * (1 - p_b)
    assert p_c == pytest.approx(0.507778, abs=1e-6)
    assert float(binomial_p_values(25, 60, p_c)) == pytest.approx(0.199411, abs=1e-6)
    assert float(binomial_p_values(25, 60, p_c, rule="minlike")) == pytest.approx(
        0.196258, abs=1e-6
    )


def test_minlike_p_values_match_scipy():
    rng = np.random.default_rng(7)
    for _ in range(60):
        cells = rng.integers(0, 25, size=4)
        if cells.sum() == 0:
            continue
        expected = stats.fisher_exact(cells.reshape(2, 2)).pvalue
        assert float(fisher_p_values(*cells, rule="minlike")) == pytest.approx(expected, abs=1e-10)
        n = int(rng.integers(1, 50))
        x = int(rng.integers(0, n + 1))
        p = float(rng.random())
        expected = stats.binomtest(x, n, p).pvalue
        assert float(binomial_p_values(x, n, p, rule="minlike")) == pytest.approx(
            expected, abs=1e-10
        )


def test_paper_p_values_double_the_smaller_tail():
    a, b, c, d = 15, 15, 20, 10
    dist = stats.hypergeom(a + b + c + d, a + b, a + c)
    expected = min(1.0, 2 * min(dist.cdf(a), dist.sf(a - 1)))
    assert float(fisher_p_values(a, b, c, d)) == pytest.approx(expected, rel=1e-12)
    assert float(fisher_p_values(0, 0, 0, 0)) == 1.0
    assert float(binomial_p_values(0, 0, 0.5)) == 1.0


def _brute_force_conservative(cells, rule, confidence=0.95):
    """Every m whose best split over every admissible m₊ passes Fisher's test (one call)."""
    n11, n12, n21, n22 = cells
    m, m_plus = np.meshgrid(np.arange(n11 + n22 + 1), np.arange(n11 + 1), indexing="ij")
    admissible = (m_plus >= np.maximum(0, m - n22)) & (m_plus <= np.minimum(m, n11))
    m, m_plus = m[admissible], m_plus[admissible]
    p = fisher_p_values(n11 - m_plus, n12, n21, n22 - (m - m_plus), rule=rule)
    best = np.full(n11 + n22 + 1, -1.0)
    np.maximum.at(best, m, p)
    return np.flatnonzero(best >= 1 - confidence).tolist()


@pytest.mark.parametrize("rule", ["paper", "minlike"])
def test_conservative_search_equals_testing_every_split(rule):
    rng = np.random.default_rng(11)
    for _ in range(40):
        cells = tuple(int(v) for v in rng.integers(0, 30, size=4) * rng.integers(1, 3, size=4))
        if sum(cells) == 0:
            continue
        accepted = _brute_force_conservative(cells, rule)
        result = true_agreement_interval(_table(cells), model="conservative", rule=rule)
        if accepted:
            assert accepted == list(range(accepted[0], accepted[-1] + 1))  # an interval
            assert (result.m_low, result.m_high) == (accepted[0], accepted[-1])
        else:
            assert result.is_empty


@pytest.mark.parametrize("model", ["conservative", "homogeneity"])
def test_interval_is_invariant_to_swapping_coders_and_labels(model):
    cells = KEZ_TABLES[8][0]
    base = true_agreement_interval(_table(cells), model=model)
    n11, n12, n21, n22 = cells
    transposed = true_agreement_interval(_table((n11, n21, n12, n22)), model=model)
    swapped = true_agreement_interval(_table((n22, n21, n12, n11)), model=model)
    assert (base.m_low, base.m_high) == (transposed.m_low, transposed.m_high)
    assert (base.m_low, base.m_high) == (swapped.m_low, swapped.m_high)


def test_result_records_confidence_test_and_rule():
    result = true_agreement_interval(FIGURE_2, model="homogeneity", confidence=0.9, rule="minlike")
    assert isinstance(result, TrueAgreementInterval)
    assert (result.confidence, result.model, result.test, result.rule) == (
        0.9,
        "homogeneity",
        "binomial",
        "minlike",
    )
    assert result.n == 100
    assert result.observed_agreement == pytest.approx(0.65)
    cons = true_agreement_interval(FIGURE_2, model="conservative")
    assert cons.test == "fisher"
    assert type(cons.low) is float


def test_a_higher_confidence_gives_a_wider_interval():
    for model in ("conservative", "homogeneity"):
        narrow = true_agreement_interval(FIGURE_2, model=model, confidence=0.9)
        wide = true_agreement_interval(FIGURE_2, model=model, confidence=0.99)
        assert wide.m_low <= narrow.m_low <= narrow.m_high <= wide.m_high


def test_systematic_disagreement_gives_an_empty_interval():
    result = true_agreement_interval([[0, 30], [30, 0]], model="conservative")
    assert result.is_empty
    assert (result.low, result.high, result.width) == (None, None, None)
    assert true_agreement_interval([[0, 30], [30, 0]], model="homogeneity").is_empty


def test_perfect_agreement_keeps_all_items_as_true_agreement():
    for model in ("conservative", "homogeneity"):
        result = true_agreement_interval([[10, 0], [0, 30]], model=model)
        assert result.high == 1.0


@pytest.mark.parametrize(
    ("table", "options", "message"),
    [
        ([[1, 2, 3], [4, 5, 6]], {}, "2 × 2"),
        ([[1, -2], [3, 4]], {}, "non-negative"),
        ([[1.5, 2], [3, 4]], {}, "whole counts"),
        ([[0, 0], [0, 0]], {}, "empty"),
        ([[1, 2], [3, 4]], {"model": "bayes"}, "model must be"),
        ([[1, 2], [3, 4]], {"rule": "midp"}, "rule must be"),
        ([[1, 2], [3, 4]], {"confidence": 95}, "confidence must be"),
    ],
)
def test_invalid_input_is_refused(table, options, message):
    kwargs = {"model": "conservative", **options}
    with pytest.raises(ValueError, match=message):
        true_agreement_interval(table, **kwargs)


def test_true_agreement_by_pair_on_a_contingency_table():
    data = ReliabilityData.from_contingency(_table(KEZ_TABLES[7][0]), domain=["TP", "FP"])
    pairs = true_agreement_by_pair(data, model="homogeneity")
    assert [p.positive for p in pairs] == ["TP", "FP"]
    tp, fp = pairs
    assert tp.table == (123, 23, 33, 676)
    assert fp.table == (676, 33, 23, 123)
    assert (tp.interval.m_low, tp.interval.m_high) == (615, 703)
    assert (fp.interval.m_low, fp.interval.m_high) == (615, 703)
    assert (tp.coder_a, tp.coder_b) == ("A", "B")


def test_true_agreement_by_pair_with_three_coders_and_missing_values():
    nan = np.nan
    matrix = [
        ["x", "y", "x", "z", "x", nan],
        ["x", "y", "y", "z", nan, "x"],
        [nan, nan, nan, nan, nan, nan],
    ]
    data = ReliabilityData.from_matrix(np.array(matrix, dtype=object))
    pairs = true_agreement_by_pair(data, model="conservative", positive="x")
    assert len(pairs) == 1  # coder 2 labelled nothing: its pairs have no table
    (pair,) = pairs
    assert pair.table == (1, 1, 0, 2)
    assert pair.interval.n == 4


def test_true_agreement_by_pair_refuses_anonymous_coders_and_unknown_categories():
    anonymous = ReliabilityData.from_agreement_table([[2, 0], [1, 1]])
    with pytest.raises(ValueError, match="identified coders"):
        true_agreement_by_pair(anonymous, model="homogeneity")
    data = ReliabilityData.from_contingency([[3, 1], [1, 3]])
    with pytest.raises(ValueError, match="not in the value domain"):
        true_agreement_by_pair(data, model="homogeneity", positive="maybe")


def test_minlike_hole_near_an_end_is_spanned():
    # Under the minimum-likelihood rule m = 3 is rejected while m = 2 and 4..21 are kept
    # (found by testing every m); the interval runs from the smallest to the largest m kept.
    result = true_agreement_interval([[10, 0], [13, 12]], model="homogeneity", rule="minlike")
    assert (result.m_low, result.m_high) == (2, 21)
