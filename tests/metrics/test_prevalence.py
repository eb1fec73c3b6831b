"""Di Eugenio & Glass (2004) examples, Byrt et al. (1993) indices, Artstein & Poesio §3.

Tables are DEG04's, rows = coder 1, [[Acc/Acc, Acc/Ack], [Ack/Acc, Ack/Ack]], as rebuilt in
docs/references.md#deg2004-examples. Where DEG04's printed number is wrong the exact value is
tested and the error explained there.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from metrics.coefficients.agreement import cohen_kappa, scott_pi
from metrics.coefficients.prevalence import (
    annotator_bias,
    bias_index,
    contingency_table,
    decompose_kappa_max,
    decompose_pabak,
    kappa_comparison,
    kappa_max,
    pabak,
    prevalence_closed_form,
    prevalence_index,
)
from metrics.data import ReliabilityData

# example: (table, kappa_Co, kappa_S&C, PABAK, BI, PI), exact values
# (docs/references.md#deg2004-examples).
DEG04 = {
    # Ex. 1: printed 0.6724 / 0.6632 / 0.6666 from 4-dp intermediates (rounded intermediates).
    1: (
        [[70, 25], [0, 55]],
        Fraction(154, 229),
        Fraction(197, 297),
        Fraction(2, 3),
        Fraction(1, 6),
        Fraction(1, 10),
    ),
    # Ex. 2: printed kappa_Co 0.6632, exact 0.6637 (a paper error).
    2: (
        [[70, 10], [15, 55]],
        Fraction(148, 223),
        Fraction(197, 297),
        Fraction(2, 3),
        Fraction(-1, 30),
        Fraction(1, 10),
    ),
    # Ex. 3: printed −0.048, exact −1/19 = −0.0526 (a paper error); 2P(A) − 1 = 0.8 printed.
    3: (
        [[90, 5], [5, 0]],
        Fraction(-1, 19),
        Fraction(-1, 19),
        Fraction(4, 5),
        Fraction(0),
        Fraction(9, 10),
    ),
    # Ex. 4: printed kappa 0.80 and 2P(A) − 1 = 0.8.
    4: (
        [[45, 5], [5, 45]],
        Fraction(4, 5),
        Fraction(4, 5),
        Fraction(4, 5),
        Fraction(0),
        Fraction(0),
    ),
    # Ex. 5: printed 0.27 for both; exact 2/7 and 111/391 (a paper error).
    5: (
        [[40, 15], [20, 25]],
        Fraction(2, 7),
        Fraction(111, 391),
        Fraction(3, 10),
        Fraction(-1, 20),
        Fraction(3, 20),
    ),
    # Ex. 6: printed 0.418 / 0.27; exact 4/11 and 111/391 (a paper error); 2P(A) − 1 = 0.3.
    6: (
        [[40, 35], [0, 25]],
        Fraction(4, 11),
        Fraction(111, 391),
        Fraction(3, 10),
        Fraction(7, 20),
        Fraction(3, 20),
    ),
}


@pytest.mark.parametrize("example", sorted(DEG04))
def test_di_eugenio_glass_examples(example: int) -> None:
    table, kappa_co, kappa_sc, adjusted, bias, prevalence = DEG04[example]
    data = ReliabilityData.from_contingency(table)
    report = kappa_comparison(data)
    assert report.kappa_cohen == pytest.approx(float(kappa_co), abs=1e-12)
    assert report.kappa_siegel_castellan == pytest.approx(float(kappa_sc), abs=1e-12)
    assert report.pabak == pytest.approx(float(adjusted), abs=1e-12)
    assert report.bias_index == pytest.approx(float(bias), abs=1e-12)
    assert report.prevalence_index == pytest.approx(float(prevalence), abs=1e-12)
    # The library's coefficients give the same numbers.
    assert cohen_kappa(data).value == pytest.approx(report.kappa_cohen)
    assert scott_pi(data).value == pytest.approx(report.kappa_siegel_castellan)
    assert pabak(data).value == pytest.approx(report.pabak)
    assert bias_index(data) == pytest.approx(report.bias_index)
    assert prevalence_index(data) == pytest.approx(report.prevalence_index)
    # Byrt et al. (1993) identities, on all six examples (docs/references.md#deg2004-examples).
    pi2, bi2 = report.prevalence_index**2, report.bias_index**2  # type: ignore[operator]
    assert report.kappa_cohen == pytest.approx((report.pabak - pi2 + bi2) / (1 - pi2 + bi2))
    assert report.kappa_siegel_castellan == pytest.approx((report.pabak - pi2) / (1 - pi2))
    assert report.difference >= -1e-12


def test_example_1_printed_values_come_from_rounded_intermediates() -> None:
    # DEG04 Fig. 2: P(A) = 0.8333, P(E)_Co = 0.4912 (4 dp) give the printed 0.6724; exact
    # 0.6725 (docs/references.md#deg2004-examples). 2P(A) − 1 from 0.8333 is the printed 0.6666.
    report = kappa_comparison(ReliabilityData.from_contingency([[70, 25], [0, 55]]))
    observed, expected = round(report.observed, 4), round(report.expected_cohen, 4)
    assert (observed, expected) == (0.8333, 0.4911)
    assert round(report.kappa_cohen, 4) == 0.6725
    assert round(2 * observed - 1, 4) == 0.6666
    assert report.expected_siegel_castellan == pytest.approx(0.5050)  # p_Acc = 165/300


def test_kappa_is_sample_size_invariant() -> None:
    # Di Eugenio & Glass (2004) §2: multiplying every cell by 100 leaves kappa unchanged
    # (examples 3 and 4; docs/references.md#deg2004-examples).
    for example in (3, 4):
        table = np.array(DEG04[example][0])
        small = kappa_comparison(ReliabilityData.from_contingency(table))
        large = kappa_comparison(ReliabilityData.from_contingency(table * 100))
        assert large.kappa_cohen == pytest.approx(small.kappa_cohen)


def test_expected_agreement_minimum_is_one_over_m() -> None:
    # Di Eugenio & Glass (2004) §2 / example 4: labels spread equally give the minimum
    # P(E) = 1/m = 0.5 (docs/references.md#deg2004-examples).
    report = kappa_comparison(ReliabilityData.from_contingency(DEG04[4][0]))
    assert report.expected_cohen == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("table", "largest", "value"),
    [
        # Cohen (1960) ex. 1, DKPro Cohen1960Test (docs/references.md#cohen1960-examples):
        # max agreement 0.90; recomputed 0.84615.
        ([[25, 12, 3], [13, 2, 15], [12, 16, 2]], 0.90, 0.84615),
        # Cohen (1960) ex. 2 (docs/references.md#cohen1960-examples): max kappa 0.831, 0.83051.
        ([[88, 14, 18], [10, 40, 10], [2, 6, 12]], None, 0.83051),
    ],
)
def test_kappa_max_cohen_1960(table: list[list[int]], largest: float | None, value: float) -> None:
    data = ReliabilityData.from_contingency(table)
    result = kappa_max(data)
    if largest is not None:
        assert result.observed == pytest.approx(largest)
    assert result.value == pytest.approx(value, abs=1e-5)
    assert float(decompose_kappa_max(data).evaluate()) == pytest.approx(result.value)
    assert kappa_comparison(data).kappa_max == pytest.approx(result.value)


def test_multi_category_report_has_no_binary_indices() -> None:
    data = ReliabilityData.from_contingency([[25, 12, 3], [13, 2, 15], [12, 16, 2]])
    report = kappa_comparison(data)
    assert report.prevalence_index is None
    assert report.bias_index is None
    assert report.pabak == pytest.approx((3 * 0.29 - 1) / 2)
    with pytest.raises(ValueError, match="2 × 2"):
        prevalence_index(data)


class TestAnnotatorBias:
    def test_table_1(self) -> None:
        # A&P (2008) Table 1 (docs/references.md#ap2008-table1): B = 0.005, kappa − pi = 0.007167.
        result = annotator_bias(ReliabilityData.from_contingency([[20, 10], [20, 50]]))
        assert result.bias == pytest.approx(0.005)
        assert result.variance_form == pytest.approx(0.005)
        assert result.kappa_minus_pi == pytest.approx(0.007167, abs=1e-6)
        assert result.kappa_minus_pi_from_bias == pytest.approx(result.kappa_minus_pi)

    def test_table_4(self) -> None:
        # A&P (2008) Table 4 (docs/references.md#ap2008-table4): B = 0.4014 − 0.396 = 0.0054, κ − π
        # = 0.001792.
        table = [[46, 0, 0], [6, 32, 6], [0, 0, 10]]
        result = annotator_bias(ReliabilityData.from_contingency(table))
        assert result.bias == pytest.approx(0.0054)
        assert result.variance_form == pytest.approx(0.0054)
        assert result.kappa_minus_pi == pytest.approx(0.001792, abs=1e-6)

    def test_identities_on_random_five_coder_data(self) -> None:
        # A&P (2008) §3.1 (docs/references.md#ap2008-bias): B = Σ var/(c − 1) and κ − π, 5 coders.
        rng = np.random.default_rng(7)
        matrix = rng.integers(0, 4, size=(5, 60)).astype(float)
        result = annotator_bias(matrix)
        assert result.bias == pytest.approx(result.variance_form, abs=1e-12)
        assert result.kappa_minus_pi == pytest.approx(result.kappa_minus_pi_from_bias, abs=1e-12)


class TestPrevalenceClosedForm:
    def test_sample_value(self) -> None:
        # A&P (2008) Table 7 (docs/references.md#ap2008-table7): δ = 0.03, ε = 0.01 → 0.739583.
        assert prevalence_closed_form(0.03, 0.01) == pytest.approx(0.739583, abs=1e-6)

    def test_matches_pi_and_kappa_on_table_7(self) -> None:
        # Table 7 with N = 400: COMMON/COMMON 1 − (δ + 2ε), off-diagonal ε, RARE/RARE δ.
        data = ReliabilityData.from_contingency([[380, 4], [4, 12]])
        expected = prevalence_closed_form(0.03, 0.01)
        assert scott_pi(data).value == pytest.approx(expected)
        assert cohen_kappa(data).value == pytest.approx(expected)

    def test_rejects_impossible_proportions(self) -> None:
        with pytest.raises(ValueError, match="delta and epsilon"):
            prevalence_closed_form(0.8, 0.3)


def test_complete_case_and_validation() -> None:
    matrix = np.array([[0, 1, 1, np.nan], [0, 1, 0, 1]])
    np.testing.assert_array_equal(contingency_table(matrix), [[1, 0], [1, 1]])
    assert pabak(matrix).n_items == 3
    assert float(decompose_pabak(matrix).evaluate()) == pytest.approx(pabak(matrix).value)
    with pytest.raises(ValueError, match="exactly two coders"):
        kappa_comparison(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="expected agreement is 1"):
        kappa_comparison(ReliabilityData.from_contingency([[5, 0], [0, 0]]))
