"""Krippendorff's alpha against every published value we have.

Sources (figures copied here; the tests read nothing from outside the repository):
- Artstein & Poesio (2008), "Inter-coder agreement for computational linguistics",
  Computational Linguistics 34(4): Tables 1, 4, 6, 8 (§2.3, §2.7, §4.3.1).
- Krippendorff (2011), "Computing Krippendorff's alpha-reliability" / Krippendorff (2004),
  *Content Analysis* p. 230: the 12 units × 4 coders example with missing values, as asserted by
  fast-krippendorff 0.8 doctests, NLTK ``test_disagreement.test_advanced`` and DKPro Agreement.
- The Wikipedia reliability-data example used by the fast-krippendorff doctest.
- Krippendorff (1980) p. 139 and (2004) pp. 224, 227, as asserted by DKPro Agreement 2.3 tests.
- Peer-library regression cases (NLTK #2865, #3265; fast-krippendorff #11, #27; DKPro #35).
"""

from __future__ import annotations

import numpy as np
import pytest

from metrics.coefficients.alpha import (
    alpha_individual,
    coincidence_matrix,
    decompose_krippendorff_alpha,
    krippendorff_alpha,
)
from metrics.data import ReliabilityData
from metrics.distances import CallableDistance, MatrixDistance, get_distance

N = None
nan = np.nan


def from_rows(rows: list[tuple[int, object, object]]) -> ReliabilityData:
    """Two coders' data from ``(count, coder A's label, coder B's label)`` rows."""
    pairs = [(a, b) for count, a, b in rows for _ in range(count)]
    return ReliabilityData.from_matrix(np.array(pairs, dtype=object).T)


def from_units(units: list[list[object]]) -> ReliabilityData:
    """Data written one list per unit (one entry per coder, None = missing), DKPro layout."""
    return ReliabilityData.from_matrix(np.array(units, dtype=object).T)


# Artstein & Poesio (2008), Table 1 (rows coder B, columns coder A), as (count, A, B)
# (docs/references.md#ap2008-table1).
TABLE_1 = [(20, "STAT", "STAT"), (10, "STAT", "IREQ"), (20, "IREQ", "STAT"), (50, "IREQ", "IREQ")]
# Artstein & Poesio (2008), Table 4 (the integrated example), as (count, A, B)
# (docs/references.md#ap2008-table4).
TABLE_4 = [
    (46, "STAT", "STAT"),
    (6, "IREQ", "STAT"),
    (32, "IREQ", "IREQ"),
    (6, "IREQ", "CHCK"),
    (10, "CHCK", "CHCK"),
]
# Artstein & Poesio (2008), §2.6.2 weights of the integrated example (Table 6;
# docs/references.md#ap2008-table6).
AP_WEIGHTS = MatrixDistance(
    [[0, 1, 0.5], [1, 0, 0.5], [0.5, 0.5, 0]], labels=["STAT", "IREQ", "CHCK"], name="ap"
)

# Krippendorff (2011) / (2004) p. 230: 12 units × 4 coders with missing values
# (docs/references.md#k2011-reliability-data).
K2011 = [
    [1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, N, 3, N],
]  # fmt: skip

# Wikipedia example (fast-krippendorff doctest): coders A, B, C over 15 units
# (docs/references.md#krippendorff-wikipedia-example).
WIKIPEDIA = [
    [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
    [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
    [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
]

# Krippendorff (1980) p. 139: 9 items × 3 coders (DKPro Krippendorff1980Test;
# docs/references.md#krippendorff1980-p139).
K1980 = [[1, 1, 1], [1, 2, 2], [2, 2, 2], [4, 4, 4], [1, 4, 4], [2, 2, 2], [1, 2, 3], [3, 3, 3],
         [2, 2, 2]]  # fmt: skip


class TestArtsteinPoesio2008:
    def test_table_4_weighted_alpha_is_the_printed_0_8156(self) -> None:
        # A&P (2008) Table 6 / §2.7.2: D_o = 0.09, D_e = 0.4879, alpha ≈ 0.8156 (7919/9710; the
        # printed 0.8156 comes from the unrounded D_e; docs/references.md#ap2008-table6).
        result = krippendorff_alpha(from_rows(TABLE_4), distance=AP_WEIGHTS)
        assert result.observed == pytest.approx(0.09, abs=1e-12)
        assert result.expected == pytest.approx(19420 / 39800, abs=1e-12)
        assert round(result.expected, 4) == 0.4879
        assert result.value == pytest.approx(7919 / 9710, abs=1e-12)
        assert round(result.value, 4) == 0.8156
        assert result.kind == "disagreement"
        assert (result.n_items, result.n_pairable_items, result.n_coders) == (100, 100, 2)

    def test_table_4_nominal_alpha(self) -> None:
        # Nominal alpha on Table 4: D_o = 0.12, alpha = 2396/2993 (recomputed in the spec, E5;
        # DKPro ArtsteinPoesio2008Test asserts Do 0.120, De 0.601, alpha 0.800).
        result = krippendorff_alpha(from_rows(TABLE_4))
        assert result.observed == pytest.approx(0.12, abs=1e-12)
        assert result.expected == pytest.approx(0.601608, abs=1e-6)
        assert result.value == pytest.approx(2396 / 2993, abs=1e-12)

    def test_table_4_nominal_alpha_relates_to_pi_by_the_ic_factor(self) -> None:
        # A&P (2008) §2.6.1: D_e^α = (ic / (ic - 1)) (1 - A_e^π) with A_e^π = 0.4014 (Table 5,
        # recomputed; docs/references.md#ap2008-table4).
        result = krippendorff_alpha(from_rows(TABLE_4))
        assert result.expected == pytest.approx(200 / 199 * (1 - 0.4014), abs=1e-12)
        assert result.observed == pytest.approx(1 - 0.88, abs=1e-12)

    def test_table_1_nominal_alpha(self) -> None:
        # Table 1: alpha = 313/910 (docs/references.md#ap2008-table1, derived; 0.3439560440, Do 0.3,
        # De 0.4572864322).
        result = krippendorff_alpha(from_rows(TABLE_1))
        assert result.value == pytest.approx(313 / 910, abs=1e-12)
        assert result.observed == pytest.approx(0.3, abs=1e-12)
        assert result.expected == pytest.approx(0.4572864322, abs=1e-10)

    @pytest.mark.parametrize(
        ("table", "expected"),
        [
            # Table 8 case 1 (broad segments) and case 2 (fine units), A&P §4.3.1; derived
            # recomputed nominal alpha 0.648936 and 0.747878.
            ([(2, "B", "B"), (1, "B", "N"), (1, "N", "B"), (46, "N", "N")], 0.648936),
            ([(16, "B", "B"), (3, "B", "N"), (3, "N", "B"), (28, "N", "N")], 0.747878),
        ],
    )
    def test_table_8_boundaries(self, table: list[tuple[int, str, str]], expected: float) -> None:
        assert krippendorff_alpha(from_rows(table)).value == pytest.approx(expected, abs=5e-7)

    def test_table_4_kappa_like_alpha_equals_weighted_kappa(self) -> None:
        # A&P (2008) §2.7.2 / Table 6 (docs/references.md#ap2008-table6): κ_w = 1 - 0.09 / 0.49 ≈
        # 0.8163 (exactly 40/49); with complete two-coder data the individual-distribution alpha is
        # κ_w.
        result = alpha_individual(from_rows(TABLE_4), distance=AP_WEIGHTS)
        assert result.expected == pytest.approx(0.49, abs=1e-12)
        assert result.value == pytest.approx(40 / 49, abs=1e-12)
        assert round(result.value, 4) == 0.8163

    def test_kappa_like_alpha_nominal_is_cohens_kappa_on_tables_1_and_4(self) -> None:
        # Table 2: κ ≈ 0.348 (8/23); Table 5: A_e^κ = 0.396, κ = 121/151 (recomputed).
        assert alpha_individual(from_rows(TABLE_1)).value == pytest.approx(8 / 23, abs=1e-12)
        table_4 = alpha_individual(from_rows(TABLE_4))
        assert table_4.expected == pytest.approx(1 - 0.396, abs=1e-12)
        assert table_4.value == pytest.approx(121 / 151, abs=1e-12)

    def test_kappa_like_alpha_ignores_a_coder_without_pairable_values(self) -> None:
        base = from_rows(TABLE_4)
        codes = np.vstack([base.codes, np.full(base.n_items, -1)])
        codes = np.hstack([codes, np.array([[-1], [-1], [0]])])
        extended = ReliabilityData(
            codes, base.domain, (*base.items, "extra"), (*base.coders, "lone coder")
        )
        assert alpha_individual(extended).value == pytest.approx(121 / 151, abs=1e-12)

    def test_coincidence_matrix_of_table_4(self) -> None:
        # Table 6 marginals: n_STAT = 98, n_IREQ = 76, n_CHCK = 26 (2·100 values).
        data = from_rows(TABLE_4)
        matrix = coincidence_matrix(data)
        order = [data.domain.index(label) for label in ("STAT", "IREQ", "CHCK")]
        assert matrix.sum(axis=1)[order].tolist() == [98.0, 76.0, 26.0]
        assert np.allclose(matrix, matrix.T)
        assert matrix[data.domain.index("STAT"), data.domain.index("IREQ")] == 6.0


class TestKrippendorffPublishedExamples:
    @pytest.mark.parametrize(
        ("distance", "expected"),
        [
            # nominal: Krippendorff 2011 0.743; NLTK test_advanced 0.743421052632 (7 dp).
            ("nominal", 0.7434210526),
            # ordinal: fast-krippendorff doctest 0.815.
            ("ordinal", 0.8153875038),
            # interval: DKPro testIntervallAgreement 0.849.
            ("interval", 0.8491071429),
            # ratio: fast-krippendorff doctest 0.797.
            ("ratio", 0.7974027747),
        ],
    )
    def test_krippendorff_2011_missing_data(self, distance: str, expected: float) -> None:
        assert krippendorff_alpha(from_units(K2011), distance=distance).value == pytest.approx(
            expected, abs=1e-9
        )

    def test_krippendorff_2011_disagreements(self) -> None:
        # DKPro: Do 0.200, De 0.779 (nominal); Do 0.433, De 2.872 (interval).
        nominal = krippendorff_alpha(from_units(K2011))
        assert nominal.observed == pytest.approx(0.2, abs=1e-12)
        assert nominal.expected == pytest.approx(0.7794871795, abs=1e-10)
        assert nominal.n_pairable_items == 11
        assert nominal.n_items == 12
        interval = krippendorff_alpha(from_units(K2011), distance="interval")
        assert round(interval.observed, 3) == 0.433
        assert round(interval.expected, 3) == 2.872

    def test_krippendorff_2011_ordinal_with_string_labels_and_declared_order(self) -> None:
        # fast-krippendorff doctest: the same data as "very low".."very high" with an ordered
        # value_domain gives ordinal 0.815.
        names = ["very low", "low", "medium", "high", "very high"]
        units = [[None if v is None else names[v - 1] for v in unit] for unit in K2011]
        matrix = np.array(units, dtype=object).T
        result = krippendorff_alpha(matrix, distance="ordinal", domain=names)
        assert result.value == pytest.approx(0.8153875038, abs=1e-9)

    @pytest.mark.parametrize(
        ("distance", "expected"),
        [
            ("nominal", 0.6913580247),  # fast-krippendorff doctest 0.691358
            ("interval", 0.8108448928),  # fast-krippendorff doctest 0.810845
            ("ordinal", 0.8067214199),  # recomputed
            ("ratio", 0.8089436708),  # recomputed
        ],
    )
    def test_wikipedia_example(self, distance: str, expected: float) -> None:
        assert krippendorff_alpha(WIKIPEDIA, distance=distance).value == pytest.approx(
            expected, abs=1e-9
        )

    @pytest.mark.parametrize(
        ("distance", "expected"),
        [
            ("nominal", 0.6417322835),  # DKPro 0.642 (Do 0.259, De 0.724)
            ("interval", 0.5469168901),  # DKPro 0.547
            ("ratio", 0.4832542916),  # DKPro 0.483
            ("ordinal", 0.4994238683),  # recomputed (not asserted by DKPro)
        ],
    )
    def test_krippendorff_1980_p139(self, distance: str, expected: float) -> None:
        assert krippendorff_alpha(from_units(K1980), distance=distance).value == pytest.approx(
            expected, abs=1e-9
        )

    def test_krippendorff_2004_p227_three_categories(self) -> None:
        # DKPro testMultipleCategories: Do 0.1667, De 0.6268, alpha 0.734 (0.7341040462;
        # docs/references.md#krippendorff2004-p227).
        units = [["a", "a"], ["a", "b"]] + [["b", "b"]] * 4 + [["b", "c"]] + [["c", "c"]] * 5
        result = krippendorff_alpha(from_units(units))
        assert result.value == pytest.approx(0.7341040462, abs=1e-9)
        assert round(result.observed, 4) == 0.1667
        assert round(result.expected, 4) == 0.6268

    @pytest.mark.parametrize(
        "units",
        [
            # Krippendorff 1980 p. 133 and 2004 p. 224 dichotomies (DKPro): alpha 0.095
            # (docs/references.md#krippendorff-dichotomy).
            [[0, 0], [1, 1], [0, 1], [0, 0], [0, 0], [0, 1], [0, 0], [0, 1], [1, 0], [0, 0]],
            [[1, 0], [1, 1], [0, 1], [0, 0], [0, 0], [0, 1], [0, 0], [0, 1], [0, 0], [0, 0]],
        ],
    )
    def test_dichotomy(self, units: list[list[int]]) -> None:
        result = krippendorff_alpha(from_units(units))
        assert result.value == pytest.approx(0.0952380952, abs=1e-9)
        assert result.expected == pytest.approx(0.4421052632, abs=1e-9)
        assert result.observed == pytest.approx(0.4, abs=1e-12)

    def test_krippendorff_1995_digitized_continuum_a(self) -> None:
        # DKPro Krippendorff1995Test.testDigitizedAgreement, case A: alpha 0.329 (tol 0.001;
        # docs/references.md#krippendorff1995-digitized).
        pairs = [(0, 0), (0, 0), (1, 0), (1, 0), (1, 1), (1, 1), (1, 1), (1, 1), (1, 0), (1, 0),
                 (0, 0), (0, 0), (0, 0), (0, 0), (1, 0), (1, 1), (1, 1), (1, 0), (1, 0), (1, 0),
                 (0, 0), (0, 0), (0, 0), (0, 0)]  # fmt: skip
        assert krippendorff_alpha(np.array(pairs).T).value == pytest.approx(0.329, abs=1e-3)

    def test_low_variance_two_coders(self) -> None:
        # DKPro WeightedAgreementTest.testMissingVariance: Do 0.153, De 0.150, alpha -0.020
        # (docs/references.md#dkpro-weighted-missing-variance).
        result = krippendorff_alpha(from_rows([(11, 1, 1), (1, 1, 2), (1, 1, 3)]))
        assert result.observed == pytest.approx(0.153, abs=1e-3)
        assert result.expected == pytest.approx(0.150, abs=1e-3)
        assert result.value == pytest.approx(-0.020, abs=1e-3)

    @pytest.mark.parametrize(
        ("units", "expected"),
        [
            # irrCAC 0.4.4 datasets (docs/references.md#irrcac-raw-datasets): raw_5observers,
            # raw_g1g2, raw_gender, raw_ben_gerry; irrCAC prints 0.481 / 0.632 / 0.143 / 0.665.
            (
                [[1, 1, 2, N, 2], [1, 1, 0, 1, N], [2, 3, 3, 3, N], [N, 0, 0, N, 0],
                 [0, 0, 0, N, 0], [0, 0, 0, N, 0], [1, 0, 2, N, 1], [1, N, 2, 0, N],
                 [2, 2, 2, N, 2], [2, 1, 1, 1, N], [N, 1, 0, 0, N], [0, 0, 0, 0, N],
                 [1, 2, 2, 2, N], [3, 3, 2, 2, 3], [1, 1, 1, N, 1]],
                0.48053,
            ),
            (
                [["a", "a", N, "a"], ["b", "b", "c", "b"], ["c", "c", "c", "c"],
                 ["c", "c", "c", "c"], ["b", "b", "b", "b"], ["a", "b", "c", "d"],
                 ["d", "d", "d", "d"], ["a", "a", "b", "a"], ["b", "b", "b", "b"],
                 [N, "e", "e", "e"], [N, N, "a", "a"], [N, N, "c", N], ["b", "b", "c", "b"],
                 ["b", "a", "c", "b"]],
                0.63181,
            ),
            (
                [list(unit) for unit in zip("aaaaabbbcaaaaab", "aaaababccaaaaba",
                                            "abbcaabbcabbcaa", "ccccaabbcccccaa",
                                            strict=True)],
                0.14341,
            ),
            (
                [[b, None if g == "N" else g] for b, g in zip("aabbdcccedda", "babbbccceNdd",
                                                              strict=True)],
                0.66489,
            ),
        ],
    )  # fmt: skip
    def test_irrcac_datasets(self, units: list[list[object]], expected: float) -> None:
        assert krippendorff_alpha(from_units(units)).value == pytest.approx(expected, abs=5e-6)


class TestRegressionCases:
    def test_two_items_in_full_disagreement(self) -> None:
        # fast-krippendorff #27: [["A","B"],["B","A"]] → -0.5 (Do 1, De 2/3;
        # docs/references.md#alpha-edge-cases).
        assert krippendorff_alpha([["A", "B"], ["B", "A"]]).value == pytest.approx(-0.5)

    def test_one_disagreement_gives_zero(self) -> None:
        # fast-krippendorff #11: alpha 0.0 for nominal and interval (Do = De).
        coders = [[3, 3, 3, 3, 3], [3, 3, 3, 3, 3], [3, 3, nan, nan, 3], [3, 3, 3, 3, 1],
                  [3, nan, 3, 3, 3]]  # fmt: skip
        for distance in ("nominal", "interval"):
            assert krippendorff_alpha(coders, distance=distance).value == pytest.approx(0.0)

    def test_none_is_missing_not_a_label(self) -> None:
        # NLTK #2865: raters [1,1,2], [1,1,None], [None,1,2] → 1.0 when None is missing.
        assert krippendorff_alpha([[1, 1, 2], [1, 1, None], [None, 1, 2]]).value == 1.0

    def test_only_one_pairable_item_with_unpairable_ones(self) -> None:
        # NLTK PR #3265: items 1 (1, 1) and 2 (2, -): only item 1 is pairable, and it carries
        # one value, so D_e = 0: we raise (documented) instead of NLTK's 1.0.
        with pytest.raises(ValueError, match="expected disagreement is 0"):
            krippendorff_alpha([[1, 2], [1, nan]])

    def test_easy_nltk_example_with_single_rated_item(self) -> None:
        # NLTK test_disagreement.test_easy: -1/3, the single-rated dress3 does not count
        # (docs/references.md#nltk-disagreement).
        data = ReliabilityData.from_long(
            ["dress1", "dress1", "dress1", "dress2", "dress2", "dress3"],
            ["c1", "c2", "c3", "c1", "c2", "c3"],
            ["YES", "NO", "NO", "YES", "NO", "NO"],
        )
        result = krippendorff_alpha(data)
        assert result.value == pytest.approx(-1 / 3)
        assert result.observed == pytest.approx(0.8)
        assert result.expected == pytest.approx(0.6)

    def test_full_agreement_on_two_values_is_one(self) -> None:
        # DKPro #35: (A,A),(B,B),(A,A),(B,B) → 1.0.
        assert krippendorff_alpha([["A", "B", "A", "B"], ["A", "B", "A", "B"]]).value == 1.0

    def test_one_value_everywhere_raises(self) -> None:
        # DKPro #35 gives 1.0 for three (A,A) items with B declared; we document a ValueError.
        data = ReliabilityData.from_matrix([["A"] * 3, ["A"] * 3], domain=["A", "B"])
        with pytest.raises(ValueError, match="expected disagreement is 0"):
            krippendorff_alpha(data)

    def test_nothing_pairable_raises(self) -> None:
        with pytest.raises(ValueError, match="at least two coders"):
            krippendorff_alpha([[1, nan], [nan, 2]])

    def test_interval_on_text_labels_raises(self) -> None:
        with pytest.raises(ValueError, match="numeric labels"):
            krippendorff_alpha([["a", "b"], ["a", "a"]], distance="interval")

    def test_unknown_distance_lists_the_known_ones(self) -> None:
        with pytest.raises(ValueError, match="known distances: nominal, ordinal"):
            krippendorff_alpha([[1, 2], [1, 2]], distance="euclid")

    def test_caller_array_is_not_mutated(self) -> None:
        data = np.array(WIKIPEDIA)
        before = data.copy()
        krippendorff_alpha(data, distance="interval")
        assert np.array_equal(data, before, equal_nan=True)


class TestDistancesInAlpha:
    def test_passonneau_set_distance_through_a_callable(self) -> None:
        # DKPro SetAnnotationsTest: Passonneau (2004) set distance, Do 0.333, De 0.409,
        # alpha 0.186 (0.1861702128; docs/references.md#dkpro-set-annotations).
        def passonneau(a: frozenset[str], b: frozenset[str]) -> float:
            if a == b:
                return 0.0
            if a <= b or b <= a:
                return 1 / 3
            return 2 / 3 if a & b else 1.0

        s = frozenset
        units = [(s(), s()), (s("A"), s()), (s("A"), s("A")), (s("A"), s("B")),
                 (s("AB"), s("A")), (s("AB"), s("AC")), (s("ABC"), s("ABC")), (s("C"), s("AC")),
                 (s("C"), s("AC"))]  # fmt: skip
        data = ReliabilityData.from_long(
            [i for i in range(9) for _ in range(2)], [0, 1] * 9, [v for u in units for v in u]
        )
        result = krippendorff_alpha(data, distance=CallableDistance(passonneau))
        assert result.value == pytest.approx(0.1861702128, abs=1e-9)
        assert result.observed == pytest.approx(0.333, abs=1e-3)
        assert result.expected == pytest.approx(0.409, abs=1e-3)

    def test_matrix_without_labels_follows_the_domain(self) -> None:
        data = from_rows(TABLE_4)  # domain sorted: CHCK, IREQ, STAT
        matrix = [[0, 0.5, 0.5], [0.5, 0, 1], [0.5, 1, 0]]
        assert krippendorff_alpha(data, distance=matrix).value == pytest.approx(7919 / 9710)

    def test_ordinal_distance_matrix_of_krippendorff_1980(self) -> None:
        # DKPro testOrdinalMetric (Krippendorff 1980): unsquared ordinal differences
        # (docs/references.md#krippendorff1980-ordinal-metric).
        values = [1, 2, 3, 4, 5, 10]
        coder = [1, 2, 3, 3, 4, 4, 4, 4, 5, 10]
        data = ReliabilityData.from_matrix([coder, coder])
        from metrics.distances import OrdinalDistance

        counts = coincidence_matrix(data).sum(axis=1)
        distance = OrdinalDistance().matrix(values, counts=counts)
        expected = [[0, 2, 5, 11, 16, 18], [2, 0, 3, 9, 14, 16], [5, 3, 0, 6, 11, 13],
                    [11, 9, 6, 0, 5, 7], [16, 14, 11, 5, 0, 2], [18, 16, 13, 7, 2, 0]]  # fmt: skip
        assert np.allclose(np.sqrt(distance), expected)


class TestDecomposition:
    @pytest.mark.parametrize("distance", ["nominal", "ordinal", "interval", "ratio"])
    def test_decomposition_totals_give_alpha(self, distance: str) -> None:
        decomposition = decompose_krippendorff_alpha(from_units(K2011), distance=distance)
        expected = krippendorff_alpha(from_units(K2011), distance=distance).value
        assert decomposition.n_items == 12  # every item; the unpairable one's row is zero
        assert float(decomposition.evaluate()) == pytest.approx(expected, abs=1e-12)

    @pytest.mark.parametrize("distance", ["nominal", "ordinal", "interval", "ratio"])
    def test_weighted_totals_equal_alpha_of_the_resampled_items(self, distance: str) -> None:
        rng = np.random.default_rng(3)
        values = rng.integers(1, 6, size=(4, 30)).astype(float)
        values[rng.random(values.shape) < 0.25] = nan
        decomposition = decompose_krippendorff_alpha(values, distance=distance)
        items = values.shape[1]
        weights = np.zeros((3, items))
        for row in range(3):
            np.add.at(weights[row], rng.integers(0, items, size=items), 1.0)
        replicates = decomposition.evaluate(weights)
        for row in range(3):
            resampled = values[:, np.repeat(np.arange(items), weights[row].astype(int))]
            direct = krippendorff_alpha(resampled, distance=distance).value
            assert replicates[row] == pytest.approx(direct, abs=1e-10)

    def test_jackknife_of_a_single_value_item_set_is_nan(self) -> None:
        decomposition = decompose_krippendorff_alpha([["A", "A", "B"], ["A", "A", "B"]])
        leave_one_out = decomposition.totals()[None, :] - np.asarray(decomposition.item_stats)
        values = decomposition.finalize(leave_one_out)
        assert np.isnan(values[2])
        assert values[0] == pytest.approx(1.0)


class TestMemory:
    def test_interval_alpha_on_many_distinct_real_values_builds_no_square_matrix(self) -> None:
        # fast-krippendorff #38: a V × V matrix for 20,000 distinct values would be 3.2 GB.
        import tracemalloc

        rng = np.random.default_rng(0)
        truth = rng.normal(size=5000)
        values = truth + rng.normal(scale=0.5, size=(4, 5000))
        values[rng.random(values.shape) < 0.1] = nan
        tracemalloc.start()
        result = krippendorff_alpha(values, distance="interval")
        decomposition = decompose_krippendorff_alpha(values, distance="interval")
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        assert peak < 50 * values.nbytes
        # Theoretical value: 1 - within variance / total variance ≈ 1 - 0.25 / 1.25.
        assert result.value == pytest.approx(0.8, abs=0.02)
        assert float(decomposition.evaluate()) == pytest.approx(result.value, abs=1e-12)


class TestLargeDomains:
    @pytest.mark.parametrize("distance", ["ratio", "interval", "ordinal", "nominal"])
    def test_chunked_and_closed_forms_equal_the_matrix_path(
        self, distance: str, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import metrics.coefficients.alpha as alpha_module

        rng = np.random.default_rng(5)
        values = np.round(rng.gamma(2.0, 2.0, size=(4, 40)), 1)
        values[rng.random(values.shape) < 0.2] = nan
        expected = krippendorff_alpha(values, distance=distance)
        individual = alpha_individual(values, distance=distance).value
        monkeypatch.setattr(alpha_module, "MAX_MATRIX_VALUES", 3)
        monkeypatch.setattr(alpha_module, "_CHUNK", 64)
        monkeypatch.setattr(alpha_module, "_CROSS_BLOCK", 200)
        chunked = krippendorff_alpha(values, distance=distance)
        assert chunked.value == pytest.approx(expected.value, abs=1e-12)
        assert chunked.expected == pytest.approx(expected.expected, rel=1e-12)
        assert alpha_individual(values, distance=distance).value == pytest.approx(individual)
        decomposition = decompose_krippendorff_alpha(values, distance=distance)
        assert float(decomposition.evaluate()) == pytest.approx(expected.value, abs=1e-12)

    def test_other_distances_refuse_a_domain_too_large_for_a_matrix(
        self, monkeypatch: pytest.MonkeyPatch
    ) -> None:
        import metrics.coefficients.alpha as alpha_module

        monkeypatch.setattr(alpha_module, "MAX_MATRIX_VALUES", 3)
        with pytest.raises(ValueError, match="larger than the limit"):
            krippendorff_alpha(
                [[1, 2, 3, 4], [1, 2, 3, 5]], distance=CallableDistance(lambda a, b: abs(a - b))
            )


SET_UNITS = [("", ""), ("A", ""), ("A", "A"), ("A", "B"), ("AB", "A"), ("AB", "AC"),
             ("ABC", "ABC"), ("C", "AC"), ("C", "AC")]  # fmt: skip


class TestSetDistances:
    @pytest.mark.parametrize(
        ("name", "expected", "tolerance"),
        [
            # DKPro Agreement 2.3 SetAnnotationsTest (9 items × 2 raters),
            # docs/references.md#dkpro-set-annotations:
            ("passonneau", 0.1861702128, 1e-9),  # Passonneau 2004 distance (DKPro 0.186)
            ("masi_ap", 0.2529474812, 1e-9),  # d_P × d_J = DKPro's "MASI" (DKPro 0.252)
            ("masi", 0.2731, 5e-5),  # Passonneau 2006 1 - J·M (recomputed)
            ("jaccard", 0.3156, 5e-5),  # recomputed
        ],
    )
    def test_dkpro_set_annotations(self, name: str, expected: float, tolerance: float) -> None:
        labels = [frozenset(label) for unit in SET_UNITS for label in unit]
        data = ReliabilityData.from_long(
            [i for i in range(9) for _ in range(2)], [0, 1] * 9, labels
        )
        # DKPro's convention: the empty set is a subset of every set (d_P({A}, {}) = 1/3).
        distance = get_distance(name, empty="subset")
        assert krippendorff_alpha(data, distance=distance).value == pytest.approx(
            expected, abs=tolerance
        )

    def test_single_item_gives_zero_whatever_the_distance(self) -> None:
        # NLTK #2991 (docs/references.md#nltk-2991-masi): one item {l1} vs {l1, l2} with MASI: D_o =
        # D_e, alpha 0.
        data = ReliabilityData.from_long(
            [0, 0], ["a", "b"], [frozenset({"l1"}), frozenset({"l1", "l2"})]
        )
        result = krippendorff_alpha(data, distance="masi")
        assert result.value == pytest.approx(0.0, abs=1e-12)
        assert result.observed == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    "values",
    [[3.0, 1.0, 3.0, -2.0], [5, 5, 7], [0.5, 1.5, 0.5], [1e12, 1.0], [np.inf, 1.0], []],
)
def test_numeric_factorisation_equals_np_unique(values: list[float]) -> None:
    from metrics.data import _factorize_numbers

    array = np.array(values, dtype=float if not values or isinstance(values[0], float) else int)
    unique, inverse = _factorize_numbers(array)
    expected_unique, expected_inverse = np.unique(array, return_inverse=True)
    assert unique.tolist() == expected_unique.tolist()
    assert inverse.tolist() == expected_inverse.tolist()


class TestKappaLikeDecomposition:
    @pytest.mark.parametrize("distance", ["nominal", "interval", "ratio"])
    def test_resampled_totals_equal_the_coefficient_of_the_resampled_items(
        self, distance: str
    ) -> None:
        from metrics.coefficients.alpha import decompose_alpha_individual

        rng = np.random.default_rng(11)
        values = rng.integers(1, 6, size=(4, 30)).astype(float)
        values[rng.random(values.shape) < 0.25] = nan
        decomposition = decompose_alpha_individual(values, distance=distance)
        assert float(decomposition.evaluate()) == pytest.approx(
            alpha_individual(values, distance=distance).value, abs=1e-12
        )
        items = values.shape[1]
        weights = np.zeros((3, items))
        for row in range(3):
            np.add.at(weights[row], rng.integers(0, items, size=items), 1.0)
        replicates = decomposition.evaluate(weights)
        for row in range(3):
            resampled = values[:, np.repeat(np.arange(items), weights[row].astype(int))]
            direct = alpha_individual(resampled, distance=distance).value
            assert replicates[row] == pytest.approx(direct, abs=1e-10)

    def test_table_4_weighted_and_ordinal_refused(self) -> None:
        from metrics.coefficients.alpha import decompose_alpha_individual

        decomposition = decompose_alpha_individual(from_rows(TABLE_4), distance=AP_WEIGHTS)
        assert float(decomposition.evaluate()) == pytest.approx(40 / 49)  # κ_w, A&P Table 6
        with pytest.raises(ValueError, match="ordinal"):
            decompose_alpha_individual(from_units(K2011), distance="ordinal")
