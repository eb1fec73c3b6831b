"""A_o, S, pi, multi-pi, kappa, multi-kappa and Light's kappa against published values.

Every figure is copied here with its source: Artstein & Poesio (2008) tables and worked
examples, and peer-library test vectors (DKPro Agreement tests,
statsmodels, irrCAC) that reproduce values from the literature.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from metrics.coefficients.agreement import (
    bennett_s,
    cohen_kappa,
    conger_kappa,
    decompose_bennett_s,
    decompose_cohen_kappa,
    decompose_conger_kappa,
    decompose_fleiss_pi,
    decompose_light_kappa,
    decompose_observed_agreement,
    decompose_scott_pi,
    fleiss_pi,
    light_kappa,
    observed_agreement,
    scott_pi,
)
from metrics.data import ReliabilityData


def pairs(rows: list[tuple[int, object, object]]) -> ReliabilityData:
    """Two coders' data from (count, coder-1 value, coder-2 value) rows."""
    first = [a for count, a, _ in rows for _ in range(count)]
    second = [b for count, _, b in rows for _ in range(count)]
    n = len(first)
    return ReliabilityData.from_long(list(range(n)) * 2, ["c1"] * n + ["c2"] * n, first + second)


def items(matrix: list[list[object]]) -> ReliabilityData:
    """Data from one list per item, one entry per coder (None = missing)."""
    return ReliabilityData.from_matrix(np.array(matrix, dtype=object).T)


# Artstein & Poesio (2008) Table 1 (rows coder B, columns coder A) as (count, A, B) rows
# (docs/references.md#ap2008-table1).
AP_TABLE_1 = [
    (20, "STAT", "STAT"),
    (20, "IREQ", "STAT"),
    (10, "STAT", "IREQ"),
    (50, "IREQ", "IREQ"),
]
# Artstein & Poesio (2008) Table 4 (docs/references.md#ap2008-table4), (count, A, B).
AP_TABLE_4 = [
    (46, "STAT", "STAT"),
    (6, "IREQ", "STAT"),
    (32, "IREQ", "IREQ"),
    (6, "IREQ", "CHCK"),
    (10, "CHCK", "CHCK"),
]


class TestArtsteinPoesioTable1:
    """Artstein & Poesio (2008), Table 1 and §2.3–2.4 (Table 2).

    docs/references.md#ap2008-table1
    """

    data = pairs(AP_TABLE_1)

    def test_observed_agreement_is_0_7(self) -> None:
        assert observed_agreement(self.data).value == pytest.approx(0.7)

    def test_s_has_expected_0_5_and_value_0_4(self) -> None:
        result = bennett_s(self.data)
        assert result.expected == pytest.approx(0.5)
        assert result.value == pytest.approx(0.4)

    def test_pi_has_expected_0_545_and_value_31_91(self) -> None:
        result = scott_pi(self.data)
        assert result.expected == pytest.approx(0.545)
        assert result.value == pytest.approx(31 / 91)  # printed ≈ 0.341
        assert round(result.value, 3) == 0.341

    def test_kappa_has_expected_0_54_and_value_8_23(self) -> None:
        result = cohen_kappa(self.data)
        assert result.expected == pytest.approx(0.54)
        assert result.value == pytest.approx(8 / 23)  # printed ≈ 0.348
        assert round(result.value, 3) == 0.348

    def test_multi_coefficients_equal_two_coder_ones(self) -> None:
        assert fleiss_pi(self.data).value == pytest.approx(31 / 91)
        assert conger_kappa(self.data).value == pytest.approx(8 / 23)
        assert light_kappa(self.data).value == pytest.approx(8 / 23)


class TestArtsteinPoesioTable4:
    """Artstein & Poesio (2008), Table 4 and Table 5 (unweighted); docs/references.md#ap2008-table4.

    The printed pi and kappa are illegible in both copies; 0.7995 and 0.8013 are the
    recomputed values (also NLTK's doctest and DKPro's ArtsteinPoesio2008Test).
    """

    data = pairs(AP_TABLE_4)

    def test_observed_agreement_is_0_88(self) -> None:
        assert observed_agreement(self.data).value == pytest.approx(0.88)

    def test_s_is_0_82(self) -> None:
        result = bennett_s(self.data)
        assert result.expected == pytest.approx(1 / 3)
        assert result.value == pytest.approx(0.82)

    def test_pi_is_2393_over_2993(self) -> None:
        result = scott_pi(self.data)
        assert result.expected == pytest.approx(0.4014)
        assert result.value == pytest.approx(2393 / 2993)

    def test_kappa_expected_is_printed_0_396(self) -> None:
        result = cohen_kappa(self.data)
        assert result.expected == pytest.approx(0.396)
        assert result.value == pytest.approx(121 / 151)

    def test_pi_and_kappa_straddle_0_80(self) -> None:
        # A&P (2008) §3.1: the table was built so that pi and kappa straddle the 0.80 cutoff.
        assert scott_pi(self.data).value < 0.80 < cohen_kappa(self.data).value


@pytest.mark.parametrize(
    ("table", "observed", "expected", "k"),
    [
        # Artstein & Poesio (2008) Table 8, case 1 (docs/references.md#ap2008-table8): printed
        # A_o 0.96, A_e 0.89, K 0.65.
        ([[2, 1], [1, 46]], 0.96, 0.8872, Fraction(91, 141)),
        # Table 8, case 2: printed A_o 0.88, A_e 0.53, K 0.75.
        ([[16, 3], [3, 28]], 0.88, 0.5288, Fraction(439, 589)),
    ],
)
def test_artstein_poesio_table_8_boundaries(
    table: list[list[int]], observed: float, expected: float, k: Fraction
) -> None:
    data = ReliabilityData.from_contingency(table)
    result = fleiss_pi(data)
    assert result.observed == pytest.approx(observed)
    assert result.expected == pytest.approx(expected)
    assert result.value == pytest.approx(float(k))
    assert round(result.value, 2) == round(float(k), 2)
    # Symmetric marginals: kappa equals K (docs/references.md#ap2008-table8).
    assert cohen_kappa(data).value == pytest.approx(float(k))


@pytest.mark.parametrize(("categories", "expected"), [(2, 0.5), (3, 1 / 3)])
def test_uniform_chance_is_one_over_the_number_of_categories(
    categories: int, expected: float
) -> None:
    # Artstein & Poesio (2008) §2.3 (docs/references.md#ap2008-chance-uniform): 1/4 + 1/4 = 1/2; "a
    # third" for 3 categories.
    data = ReliabilityData.from_long([0, 0], ["a", "b"], [0, 0], domain=range(categories))
    assert bennett_s(data).expected == pytest.approx(expected)


def test_unused_declared_categories_lower_the_expected_agreement_of_s() -> None:
    # Artstein & Poesio (2008) §2.4.1: S's uniform chance counts unused categories.
    data = ReliabilityData.from_long(
        [0, 0, 1, 1], ["a", "b"] * 2, ["x", "x", "y", "x"], domain=["x", "y", "z", "w"]
    )
    result = bennett_s(data)
    assert result.expected == pytest.approx(0.25)
    assert result.value == pytest.approx((0.5 - 0.25) / 0.75)


def test_skewed_distribution_makes_90_percent_below_chance() -> None:
    # Artstein & Poesio (2008) §2.3 (docs/references.md#ap2008-chance-skewed): 95%/5% gives chance
    # agreement 0.905, so an observed 90% is below chance (Di Eugenio & Glass 2004, example 3
    # table; Krenn et al.'s lazy students, docs/references.md#kez2004-lazy-students).
    data = ReliabilityData.from_contingency([[90, 5], [5, 0]])
    result = scott_pi(data)
    assert result.observed == pytest.approx(0.9)
    assert result.expected == pytest.approx(0.905)
    assert result.value < 0


def test_agreement_table_3_item_agreements_and_chance() -> None:
    # Artstein & Poesio (2008) Table 3 (docs/references.md#ap2008-table3): agr_1 = 1/3 for (2 STAT,
    # 1 IREQ), agr_2 = 1 for (0, 3), agr_100 = 1/3; totals 90 / 210 give A_e^pi = 0.3² + 0.7² =
    # 0.58.
    for row, agreement in (([2, 1], 1 / 3), ([0, 3], 1.0), ([1, 2], 1 / 3)):
        data = ReliabilityData.from_agreement_table([row])
        assert observed_agreement(data).value == pytest.approx(agreement)
    rows = [[3, 0]] * 20 + [[0, 3]] * 50 + [[2, 1]] * 10 + [[1, 2]] * 10 + [[0, 3]] * 10
    data = ReliabilityData.from_agreement_table(rows)
    assert data.item_value_counts.sum(axis=0).tolist() == [90.0, 210.0]
    assert fleiss_pi(data).expected == pytest.approx(0.58)


class TestPeerVectors:
    """Test vectors from peer libraries' suites (each test cites its docs/references.md entry)."""

    def test_cohen_1960_example_1(self) -> None:
        # DKPro Cohen1960Test (docs/references.md#cohen1960-examples): Ao 0.29, Ae 0.35;
        # recomputed kappa −0.0923, pi −0.1008.
        data = pairs(
            [
                (25, 1, 1),
                (12, 1, 2),
                (3, 1, 3),
                (13, 2, 1),
                (2, 2, 2),
                (15, 2, 3),
                (12, 3, 1),
                (16, 3, 2),
                (2, 3, 3),
            ]
        )
        kappa = cohen_kappa(data)
        assert kappa.observed == pytest.approx(0.29)
        assert kappa.expected == pytest.approx(0.35, abs=0.01)
        assert kappa.value == pytest.approx(-0.0923, abs=1e-4)
        assert scott_pi(data).value == pytest.approx(-0.1008, abs=1e-4)

    def test_cohen_1960_example_2(self) -> None:
        # DKPro Cohen1960Test (docs/references.md#cohen1960-examples): Ao 0.70, Ae 0.41,
        # kappa 0.492 (recomputed 0.4915).
        data = pairs(
            [
                (88, 1, 1),
                (14, 1, 2),
                (18, 1, 3),
                (10, 2, 1),
                (40, 2, 2),
                (10, 2, 3),
                (2, 3, 1),
                (6, 3, 2),
                (12, 3, 3),
            ]
        )
        kappa = cohen_kappa(data)
        assert kappa.observed == pytest.approx(0.70)
        assert kappa.expected == pytest.approx(0.41, abs=0.01)
        assert kappa.value == pytest.approx(0.4915, abs=1e-4)

    @pytest.mark.parametrize(
        ("rows", "s", "pi", "kappa"),
        [
            # DKPro Zwick1988Test (docs/references.md#zwick1988-examples), tol 0.001; PA 0.600 in
            # all three.
            (
                [
                    (20, "A", "A"),
                    (5, "A", "D"),
                    (10, "B", "B"),
                    (15, "B", "C"),
                    (15, "C", "B"),
                    (10, "C", "C"),
                    (5, "D", "A"),
                    (20, "D", "D"),
                ],
                0.467,
                0.467,
                0.467,
            ),
            (
                [
                    (20, "A", "A"),
                    (10, "A", "B"),
                    (10, "A", "C"),
                    (10, "B", "A"),
                    (10, "B", "B"),
                    (10, "C", "A"),
                    (10, "C", "C"),
                    (20, "D", "D"),
                ],
                0.467,
                0.444,
                0.444,
            ),
            (
                [
                    (20, "A", "A"),
                    (5, "A", "B"),
                    (5, "A", "C"),
                    (10, "A", "D"),
                    (10, "B", "B"),
                    (5, "B", "C"),
                    (5, "B", "D"),
                    (5, "C", "B"),
                    (10, "C", "C"),
                    (5, "C", "D"),
                    (20, "D", "D"),
                ],
                0.467,
                0.460,
                0.474,
            ),
        ],
    )
    def test_zwick_1988(
        self, rows: list[tuple[int, str, str]], s: float, pi: float, kappa: float
    ) -> None:
        data = pairs(rows)
        assert observed_agreement(data).value == pytest.approx(0.6)
        assert bennett_s(data).value == pytest.approx(s, abs=1e-3)
        assert scott_pi(data).value == pytest.approx(pi, abs=1e-3)
        assert cohen_kappa(data).value == pytest.approx(kappa, abs=1e-3)

    @pytest.mark.parametrize(
        ("rows", "kappa_expected", "kappa", "s"),
        [
            # DKPro BrennanPrediger1981Test (docs/references.md#brennan-prediger1981-examples), tol
            # 0.01.
            ([(50, 1, 1), (10, 2, 1), (10, 2, 2), (10, 2, 3), (20, 3, 1)], 0.45, 0.27, 0.40),
            (
                [(50, 1, 1), (10, 1, 3), (10, 2, 2), (10, 2, 3), (10, 3, 1), (10, 3, 2)],
                0.44,
                0.29,
                0.40,
            ),
        ],
    )
    def test_brennan_prediger_1981(
        self, rows: list[tuple[int, int, int]], kappa_expected: float, kappa: float, s: float
    ) -> None:
        data = pairs(rows)
        assert cohen_kappa(data).expected == pytest.approx(kappa_expected, abs=0.01)
        assert cohen_kappa(data).value == pytest.approx(kappa, abs=0.01)
        assert bennett_s(data).value == pytest.approx(s, abs=0.01)

    def test_krippendorff_2004_kappa_rewards_bias(self) -> None:
        # DKPro Krippendorff2004Test.testOtherCoefficients
        # (docs/references.md#krippendorff2004-p246), tol 0.001.
        a = pairs(
            [
                (12, "a", "a"),
                (9, "a", "b"),
                (9, "a", "c"),
                (9, "b", "a"),
                (14, "b", "b"),
                (9, "b", "c"),
                (9, "c", "a"),
                (9, "c", "b"),
                (20, "c", "c"),
            ]
        )
        b = pairs(
            [
                (12, "a", "a"),
                (18, "a", "b"),
                (18, "a", "c"),
                (14, "b", "b"),
                (18, "b", "c"),
                (20, "c", "c"),
            ]
        )
        for data, kappa in ((a, 0.186), (b, 0.2582417582)):
            assert observed_agreement(data).value == pytest.approx(0.46)
            assert bennett_s(data).value == pytest.approx(0.19)
            assert scott_pi(data).value == pytest.approx(0.1857659831, abs=1e-3)
            assert cohen_kappa(data).value == pytest.approx(kappa, abs=1e-3)

    def test_agresti_1992_kappa(self) -> None:
        # DKPro Agresti1992Test (docs/references.md#agresti1992-example): kappa 0.493.
        data = pairs(AGRESTI_1992)
        assert cohen_kappa(data).value == pytest.approx(0.493, abs=1e-3)

    def test_gwet_2008_pi(self) -> None:
        # DKPro Gwet2008Test (docs/references.md#gwet2008-hand-example): Scott's pi 0.6078.
        data = pairs([(8, "y", "y"), (1, "n", "n"), (1, "y", "n")])
        assert scott_pi(data).value == pytest.approx(0.6078, abs=1e-4)

    @pytest.mark.parametrize(
        ("values", "kappa", "pi"),
        [
            # DKPro Krippendorff1995Test.testDigitizedAgreement
            # (docs/references.md#krippendorff1995-digitized), tol 0.001.
            ([(1, 1)] * 10 + [(1, 0)] * 8 + [(0, 0)] * 6, 0.385, 0.314),
            (
                [(0, 1)] * 2
                + [(1, 0)] * 2
                + [(1, 1)] * 6
                + [(0, 0)] * 2
                + [(0, 1)] * 2
                + [(1, 0)] * 2
                + [(1, 1)] * 4
                + [(0, 0)] * 4,
                0.314,
                0.314,
            ),
        ],
    )
    def test_krippendorff_1995_digitized(
        self, values: list[tuple[int, int]], kappa: float, pi: float
    ) -> None:
        data = pairs([(1, a, b) for a, b in values])
        assert cohen_kappa(data).value == pytest.approx(kappa, abs=1e-3)
        assert scott_pi(data).value == pytest.approx(pi, abs=1e-3)

    def test_krippendorff_1995_single_category_raises(self) -> None:
        # docs/references.md#krippendorff1995-digitized D: 24 × (1, 1); pi and kappa must refuse (a
        # single category).
        data = pairs([(24, 1, 1)])
        with pytest.raises(ValueError, match="expected agreement is 1"):
            scott_pi(data)
        with pytest.raises(ValueError, match="expected agreement below 1"):
            cohen_kappa(data)

    def test_statsmodels_sas_table10_kappa(self) -> None:
        # statsmodels test_inter_rater (docs/references.md#statsmodels-sas-table10): kappa
        # 0.4842 (recomputed 0.4841628959).
        table = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]
        data = ReliabilityData.from_contingency(table)
        assert cohen_kappa(data).value == pytest.approx(0.4841628959, abs=1e-9)

    def test_fleiss_1971_wikipedia_example(self) -> None:
        # statsmodels test_fleiss_kappa (docs/references.md#fleiss-wikipedia-14-raters):
        # 0.2099307044 (P̄ 0.3780, P̄e 0.2128).
        table = [
            [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0],
            [2, 2, 8, 1, 1], [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2],
            [6, 5, 2, 1, 0], [0, 2, 2, 3, 7],
        ]  # fmt: skip
        result = fleiss_pi(ReliabilityData.from_agreement_table(table))
        assert result.value == pytest.approx(0.2099307044, abs=1e-9)
        assert result.observed == pytest.approx(0.3780, abs=1e-4)
        assert result.expected == pytest.approx(0.2128, abs=1e-4)

    @pytest.mark.parametrize(
        ("rows", "observed", "expected", "fleiss", "randolph"),
        [
            # DKPro Randolph2005Test (docs/references.md#randolph2005-examples), tol 0.01;
            # Randolph's kappa is S.
            (
                [["Y", "Y", "Y"], ["Y", "Y", "N"], ["N", "N", "Y"], ["N", "N", "N"]],
                0.67,
                0.50,
                0.33,
                0.33,
            ),
            (
                [["Y", "Y", "Y"], ["Y", "Y", "N"], ["Y", "Y", "N"], ["Y", "Y", "Y"]],
                None,
                None,
                -0.20,
                0.33,
            ),
        ],
    )
    def test_randolph_2005(
        self,
        rows: list[list[str]],
        observed: float | None,
        expected: float | None,
        fleiss: float,
        randolph: float,
    ) -> None:
        data = items(rows)  # type: ignore[arg-type]
        result = fleiss_pi(data)
        if observed is not None:
            assert result.observed == pytest.approx(observed, abs=0.01)
            assert result.expected == pytest.approx(expected, abs=0.01)
        assert result.value == pytest.approx(fleiss, abs=0.01)
        assert bennett_s(data).value == pytest.approx(randolph, abs=0.01)

    def test_warrens_2010_eight_raters(self) -> None:
        # DKPro Warrens2010Test (docs/references.md#warrens2010-example): Randolph 0.8357143, Fleiss
        # 0.8323496, Light 0.8324380.
        rows = [
            (14, "NNNNNNNN"), (1, "NNNANNNN"), (1, "NNNNNNNA"), (10, "AAAAAAAA"),
            (2, "AANAAAAN"), (1, "AANANAAN"), (1, "AANANANN"),
        ]  # fmt: skip
        data = items([list(code) for count, code in rows for _ in range(count)])
        assert bennett_s(data).value == pytest.approx(0.8357143, abs=1e-6)
        assert fleiss_pi(data).value == pytest.approx(0.8323496, abs=1e-6)
        assert light_kappa(data).value == pytest.approx(0.8324380, abs=1e-6)

    def test_warrens_2012_first_two_raters(self) -> None:
        # DKPro Warrens2012Test (docs/references.md#warrens2012-examples): raters 0 and 1 of example
        # 1 give kappa 8/11.
        rows = [(10, [1, 1, 1, 1]), (2, [1, 0, 1, 0]), (2, [1, 0, 0, 0]), (1, [0, 0, 0, 1])]
        rows += [(15, [0, 0, 0, 0])]
        data = items([r[:2] for count, r in rows for _ in range(count)])
        assert cohen_kappa(data).value == pytest.approx(8 / 11)

    def test_mieskes_2009_pos_tags(self) -> None:
        # DKPro Mieskes2009Test (docs/references.md#mieskes2009-pos-tags), tol 0.01: Fleiss Ao 0.84,
        # Ae 0.20, kappa 0.80.
        result = fleiss_pi(items(MIESKES_2009))
        assert result.observed == pytest.approx(0.84, abs=0.01)
        assert result.expected == pytest.approx(0.20, abs=0.01)
        assert result.value == pytest.approx(0.80, abs=0.01)

    def test_multi_rater_percent_agreement(self) -> None:
        # DKPro MultiRaterAgreementTest (docs/references.md#dkpro-multirater-pa): PA 0.533.
        rows = [
            ["high", "high", "high"], ["high", "high", "low"], ["high", "low", "high"],
            ["low", "high", "high"], ["low", "low", "high"], ["low", "low", "low"],
            ["low", "low", "low"], ["low", "high", "low"], ["low", "low", "high"],
            ["low", "low", "high"],
        ]  # fmt: skip
        assert observed_agreement(items(rows)).value == pytest.approx(0.533, abs=1e-3)  # type: ignore[arg-type]


AGRESTI_1992 = [
    (22, 1, 1), (2, 1, 2), (2, 1, 3), (5, 2, 1), (7, 2, 2), (14, 2, 3), (2, 3, 2),
    (36, 3, 3), (1, 4, 2), (17, 4, 3), (10, 4, 4),
]  # fmt: skip

# DKPro Mieskes2009Test (docs/references.md#mieskes2009-pos-tags): 17 items × 3 raters.
MIESKES_2009: list[list[object]] = [
    ["UH", "VB", "UH"], ["INP"] * 3, ["UH"] * 3, ["INP"] * 3, ["RB"] * 3, ["JJ"] * 3,
    ["INP"] * 3, ["PRP"] * 3, ["NN", "NN", "RB"], ["VB", "VBP", "VB"], ["PRP"] * 3,
    ["INP"] * 3, ["RB", "UH", "UH"], ["INP"] * 3, ["MD"] * 3, ["PRP"] * 3, ["INP"] * 3,
]  # fmt: skip

# Krippendorff (2004) p. 230 = irrCAC raw_4raters (docs/references.md#irrcac-raw-4raters):
# 12 units × 4 coders.
RAW_4RATERS: list[list[object]] = [
    [1, 1, None, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [None, 5, 5, 5], [None, None, 1, 1],
    [None, None, 3, None],
]  # fmt: skip


class TestMissingData:
    """irrCAC raw tests with missing values, digits = 3.

    docs/references.md#irrcac-raw-4raters and #irrcac-raw-datasets
    """

    def test_raw_4raters(self) -> None:
        data = items(RAW_4RATERS)
        assert data.n_pairable_items == 11
        fleiss = fleiss_pi(data)
        assert (round(fleiss.observed, 3), round(fleiss.expected, 3)) == (0.818, 0.239)
        assert round(fleiss.value, 3) == 0.761
        conger = conger_kappa(data)
        assert (round(conger.expected, 3), round(conger.value, 3)) == (0.233, 0.763)
        assert fleiss.n_pairable_items == 11
        assert fleiss.n_items == 12

    @pytest.mark.parametrize(
        ("name", "fleiss", "conger"),
        [
            ("raw_5observers", 0.458, 0.469),
            ("raw_g1g2", 0.657, 0.659),
            ("raw_gender", 0.129, 0.166),
            ("raw_ben_gerry", 0.649, 0.657),
        ],
    )
    def test_irrcac_raw_datasets(self, name: str, fleiss: float, conger: float) -> None:
        data = items(IRRCAC_RAW[name])
        assert round(fleiss_pi(data).value, 3) == fleiss
        assert round(conger_kappa(data).value, 3) == conger


_N = None
IRRCAC_RAW: dict[str, list[list[object]]] = {
    "raw_5observers": [
        [1, 1, 2, _N, 2], [1, 1, 0, 1, _N], [2, 3, 3, 3, _N], [_N, 0, 0, _N, 0], [0, 0, 0, _N, 0],
        [0, 0, 0, _N, 0], [1, 0, 2, _N, 1], [1, _N, 2, 0, _N], [2, 2, 2, _N, 2], [2, 1, 1, 1, _N],
        [_N, 1, 0, 0, _N], [0, 0, 0, 0, _N], [1, 2, 2, 2, _N], [3, 3, 2, 2, 3], [1, 1, 1, _N, 1],
    ],
    "raw_g1g2": [
        ["a", "a", _N, "a"], ["b", "b", "c", "b"], ["c", "c", "c", "c"], ["c", "c", "c", "c"],
        ["b", "b", "b", "b"], ["a", "b", "c", "d"], ["d", "d", "d", "d"], ["a", "a", "b", "a"],
        ["b", "b", "b", "b"], [_N, "e", "e", "e"], [_N, _N, "a", "a"], [_N, _N, "c", _N],
        ["b", "b", "c", "b"], ["b", "a", "c", "b"],
    ],
    "raw_gender": [
        list(unit)
        for unit in zip(
            "aaaaabbbcaaaaab", "aaaababccaaaaba", "abbcaabbcabbcaa", "ccccaabbccccc" + "aa",
            strict=True,
        )
    ],
    "raw_ben_gerry": [
        [ben, gerry]
        for ben, gerry in zip(
            ["a", "a", "b", "b", "d", "c", "c", "c", "e", "d", "d", "a"],
            ["b", "a", "b", "b", "b", "c", "c", "c", "e", _N, "d", "d"],
            strict=True,
        )
    ],
}  # fmt: skip


class TestEdgeCases:
    def test_perfect_agreement_gives_one(self) -> None:
        data = pairs([(5, "a", "a"), (3, "b", "b")])
        for function in (bennett_s, scott_pi, fleiss_pi, cohen_kappa, conger_kappa, light_kappa):
            assert function(data).value == pytest.approx(1.0)

    def test_no_pairable_item_raises(self) -> None:
        data = ReliabilityData.from_long([0, 1], ["a", "b"], ["x", "y"])
        for function in (observed_agreement, bennett_s, fleiss_pi, conger_kappa):
            with pytest.raises(ValueError, match=r"no item is pairable|at least two coders"):
                function(data)

    def test_single_value_domain_raises_for_s(self) -> None:
        data = pairs([(3, "a", "a")])
        with pytest.raises(ValueError, match="at least two categories"):
            bennett_s(data)

    def test_unpairable_items_are_excluded_and_counted(self) -> None:
        # DKPro Gwet2008Test missing-data variant (docs/references.md#gwet2008-hand-example):
        # single-rated items leave A_o at 0.9.
        full = [["y", "y"]] * 8 + [["n", "n"], ["y", "n"]]
        data = items([*full, ["y", None], ["y", None], ["n", None]])  # type: ignore[operator]
        result = fleiss_pi(data)
        assert result.observed == pytest.approx(0.9)
        assert (result.n_items, result.n_pairable_items) == (13, 10)

    def test_kappa_family_refuses_agreement_tables(self) -> None:
        data = ReliabilityData.from_agreement_table([[2, 0], [1, 1], [0, 2]])
        for function in (cohen_kappa, conger_kappa, light_kappa):
            with pytest.raises(ValueError, match="agreement-table data"):
                function(data)
        assert fleiss_pi(data).value == pytest.approx(1 / 3)
        assert scott_pi(data).value == pytest.approx(1 / 3)

    def test_two_coder_functions_refuse_three_coders(self) -> None:
        data = items([["a", "a", "b"], ["b", "b", "b"]])
        with pytest.raises(ValueError, match="exactly two coders"):
            scott_pi(data)
        with pytest.raises(ValueError, match="exactly two coders"):
            cohen_kappa(data)

    def test_light_kappa_lists_its_pairs_and_skips_disjoint_ones(self) -> None:
        matrix = np.array(
            [
                [0, 1, 0, 1, np.nan, np.nan],
                [0, 1, 1, 1, 0, 1],
                [np.nan, np.nan, np.nan, np.nan, 0, 0],
            ]
        )
        result = light_kappa(matrix)
        assert result.pairs == ((0, 1), (1, 2))
        assert result.skipped_pairs == ((0, 2),)
        assert result.value == pytest.approx(np.mean(result.pair_values))

    def test_caller_array_is_not_mutated(self) -> None:
        matrix = np.array([[0.0, 1.0, np.nan], [0.0, 1.0, 1.0]])
        copy = matrix.copy()
        conger_kappa(matrix)
        np.testing.assert_array_equal(matrix, copy)


@pytest.mark.parametrize(
    ("public", "decompose"),
    [
        (observed_agreement, decompose_observed_agreement),
        (bennett_s, decompose_bennett_s),
        (fleiss_pi, decompose_fleiss_pi),
        (conger_kappa, decompose_conger_kappa),
        (light_kappa, decompose_light_kappa),
    ],
)
def test_public_value_equals_decomposition_on_full_data(public, decompose) -> None:  # type: ignore[no-untyped-def]
    data = items(IRRCAC_RAW["raw_5observers"])
    decomposition = decompose(data)
    assert decomposition.n_items == data.n_items
    assert public(data).value == pytest.approx(float(decomposition.evaluate()), abs=1e-15)
    # Leave-one-out and bootstrap weights go through the same finalize.
    weights = np.ones((3, data.n_items))
    weights[1, 0] = 0
    values = decomposition.evaluate(weights)
    assert values.shape == (3,)
    assert values[0] == pytest.approx(public(data).value)
    assert values[1] == pytest.approx(public(data.restricted_to_items(np.arange(15) != 0)).value)


def test_two_coder_decompositions_match() -> None:
    data = pairs(AP_TABLE_4)
    assert float(decompose_scott_pi(data).evaluate()) == pytest.approx(2393 / 2993)
    assert float(decompose_cohen_kappa(data).evaluate()) == pytest.approx(121 / 151)


def test_items_without_any_value_change_nothing() -> None:
    # irrCAC drops subjects with no rating; they must not count as rated items for pi / AC1.
    from metrics.coefficients.gwet import gwet_ac1

    data = items(IRRCAC_RAW["raw_5observers"])
    padded = ReliabilityData(
        np.hstack([data.codes, np.full((data.n_coders, 3), -1)]),
        data.domain,
        tuple(range(data.n_items + 3)),
        data.coders,
    )
    for function in (fleiss_pi, conger_kappa, gwet_ac1, bennett_s, light_kappa):
        assert function(padded).value == pytest.approx(function(data).value, abs=1e-15)
    assert fleiss_pi(padded).n_items == data.n_items + 3
