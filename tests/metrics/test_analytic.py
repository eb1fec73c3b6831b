"""Analytic standard errors: published values, peer vectors, and cross-checks with peers."""

from __future__ import annotations

import importlib
import warnings

import numpy as np
import pytest

from metrics.data import ReliabilityData
from metrics.uncertainty.analytic import (
    AnalyticResult,
    cohen_kappa_se,
    fleiss_kappa_se,
    linearized_se,
)

N = None


def raw(units: list[list[object]]) -> ReliabilityData:
    """Unit-major rows (one entry per coder, None missing) → ReliabilityData."""
    coders = np.array(units, dtype=object).T
    return ReliabilityData.from_matrix(coders)


def letters(*raters: str) -> ReliabilityData:
    """Coders given as strings, unit j = j-th letter ('N' missing) (irrCAC datasets)."""
    return raw([[None if c == "N" else c for c in unit] for unit in zip(*raters, strict=True)])


def positions(k: int) -> np.ndarray:
    return np.subtract.outer(np.arange(k), np.arange(k)).astype(float)


# -- Cohen's kappa: Fleiss, Cohen & Everitt (1969) ------------------------------------------

# SAS PROC FREQ printout used by statsmodels 0.15 (stats/tests/test_inter_rater.py,
# TestUnweightedCohens / TestWeightedCohens); docs/references.md#statsmodels-sas-table10.
TABLE10 = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]


def test_cohen_kappa_matches_the_sas_printout() -> None:
    result = cohen_kappa_se(TABLE10)
    # kappa, ASE, 95% CI, ASE under H0, Z, two-sided p (4 dp, as printed).
    expected = [0.4842, 0.1380, 0.2137, 0.7547, 0.1484, 3.2626, 0.0011]
    got = [result.estimate, result.se, result.low, result.high, result.se_null, result.z]
    assert [*got, result.p_value] == pytest.approx(expected, abs=5e-5)
    # Independent recomputation (docs/references.md#statsmodels-sas-table10).
    assert result.estimate == pytest.approx(0.4841628959, abs=1e-10)
    assert result.se == pytest.approx(0.1380135783, abs=1e-10)
    assert result.se_null == pytest.approx(0.1483982819, abs=1e-10)
    assert result.z == pytest.approx(3.2625909799, abs=1e-9)
    assert result.coefficient == "cohen_kappa"
    assert result.df is None


def test_weighted_cohen_kappa_matches_the_sas_printout() -> None:
    # statsmodels weights=[0, 1, 2] are linear (Cicchetti-Allison) scores: d = |i - j|.
    result = cohen_kappa_se(TABLE10, distance=np.abs(positions(3)))
    expected = [0.4701, 0.1457, 0.1845, 0.7558, 0.1426, 3.2971, 0.0010]
    got = [result.estimate, result.se, result.low, result.high, result.se_null, result.z]
    assert [*got, result.p_value] == pytest.approx(expected, abs=5e-5)
    assert result.estimate == pytest.approx(0.4701195219, abs=1e-10)
    assert result.coefficient == "cohen_weighted_kappa"


# R irr::kappa2 on raters 2 and 3 of irr's `anxiety` data (docs/references.md#irr-anxiety-kappa2),
# as recorded in statsmodels 0.15 (test_inter_rater.py::test_cohens_kappa_irr). irr drops the unused
# level 5, as does ReliabilityData.from_matrix (domain = observed values).
ANXIETY_2_3 = [
    [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4],
    [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2],
]


@pytest.mark.parametrize(
    ("distance", "kappa", "z", "p"),
    [
        (None, -0.006289308, -0.0604067, 0.9518317),  # unweighted
        (np.abs(positions(5)), 0.1459075, 1.282472, 0.1996772),  # "equal"
        (positions(5) ** 2, 0.2520325, 1.437451, 0.1505898),  # "squared"
        (
            np.array([0, 0, 1, 1, 2.0])[np.abs(positions(5)).astype(int)],
            0.2391304,
            1.223734,
            0.2210526,
        ),
    ],
)
def test_cohen_kappa_z_matches_r_irr(
    distance: np.ndarray | None, kappa: float, z: float, p: float
) -> None:
    result = cohen_kappa_se(ReliabilityData.from_matrix(ANXIETY_2_3), distance=distance)
    assert result.estimate == pytest.approx(kappa, abs=1e-6)
    assert result.z == pytest.approx(z, abs=1e-5)
    assert result.p_value == pytest.approx(p, abs=1e-6)


def test_cohen_kappa_se_on_krenn_evert_zinsmeister_figure_2() -> None:
    # Krenn, Evert & Zinsmeister (2004) Fig. 2 (= Di Eugenio & Glass 2004, Example 5):
    # kappa 0.285714, sigma 0.096077 (eq. 5), CI kappa ± 1.96 sigma = [0.097403, 0.474026]
    # (derived, docs/references.md#kez2004-figure2; sigma also checked by simulation:
    # 0.0959 over 50,000 tables).
    result = cohen_kappa_se([[40, 15], [20, 25]])
    assert result.estimate == pytest.approx(0.285714, abs=1e-6)
    assert result.se == pytest.approx(0.096077, abs=1e-6)
    # 1.959964 rather than 1.96: the bounds move by 4e-6.
    assert result.low == pytest.approx(0.097403, abs=1e-5)
    assert result.high == pytest.approx(0.474026, abs=1e-5)


@pytest.mark.parametrize(
    ("table", "kappa", "sigma", "low", "high"),
    [
        # Krenn, Evert & Zinsmeister (2004) Tables 1-2: printed kappa; tables, sigma and CI
        # reconstructed (docs/references.md#kez2004-tables, NN1, NN8, NN12).
        ([[109, 20], [55, 671]], 0.692, 0.0330, 0.627, 0.757),
        ([[126, 20], [231, 478]], 0.341, 0.0287, 0.285, 0.398),
        ([[61, 90], [95, 607]], 0.265, 0.0405, 0.186, 0.345),
    ],
)
def test_cohen_kappa_se_on_krenn_evert_zinsmeister_annotators(
    table: list[list[int]], kappa: float, sigma: float, low: float, high: float
) -> None:
    result = cohen_kappa_se(table)
    assert round(result.estimate, 3) == kappa
    assert round(result.se, 4) == sigma
    assert (round(result.low, 3), round(result.high, 3)) == (low, high)


def test_cohen_kappa_from_reliability_data_uses_items_both_coders_labelled() -> None:
    data = raw([["a", "a"], ["a", "b"], ["b", "b"], ["b", None], ["a", "a"], [None, "b"]])
    table = [[2, 1], [0, 1]]
    assert cohen_kappa_se(data) == cohen_kappa_se(table)


def test_cohen_kappa_agrees_with_statsmodels_on_random_tables() -> None:
    inter_rater = importlib.import_module("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(1)
    for _ in range(30):
        k = int(rng.integers(2, 6))
        table = rng.integers(0, 15, (k, k)) + np.diag(rng.integers(0, 30, k))
        for wt, distance in [
            (None, None),
            ("linear", np.abs(positions(k))),
            ("quadratic", positions(k) ** 2),
        ]:
            peer = inter_rater.cohens_kappa(table, wt=wt)
            ours = cohen_kappa_se(table, distance=distance)
            assert ours.estimate == pytest.approx(peer.kappa, abs=1e-9)
            assert ours.se == pytest.approx(peer.std_kappa, abs=1e-9)
            assert ours.se_null == pytest.approx(peer.std_kappa0, abs=1e-9)
            assert ours.z == pytest.approx(peer.z_value, rel=1e-9)
            assert ours.p_value == pytest.approx(peer.pvalue_two_sided, abs=1e-9)
            assert ours.low == pytest.approx(peer.kappa_low, abs=1e-9)
            assert ours.high == pytest.approx(min(1.0, peer.kappa_upp), abs=1e-9)


def test_cohen_kappa_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="square"):
        cohen_kappa_se([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(ValueError, match="two identified coders"):
        cohen_kappa_se(raw([[1, 1, 1], [1, 2, 2]]))
    with pytest.raises(ValueError, match="Expected agreement is 1"):
        cohen_kappa_se([[10, 0], [0, 0]])
    with pytest.raises(ValueError, match="confidence"):
        cohen_kappa_se(TABLE10, confidence=95)


# -- Fleiss' multi-pi: Fleiss, Nee & Landis (1979) ------------------------------------------

# Fleiss (1971): 30 patients × 6 psychiatrists, 5 diagnoses, as items × categories counts
# (docs/references.md#fleiss1971-diagnoses) (R irr `diagnoses`, statsmodels test_inter_rater.py
# `diagnoses` aggregated).
DIAGNOSES = [
    [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0],
    [2, 0, 4, 0, 0], [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6],
    [1, 0, 0, 5, 0], [1, 1, 0, 4, 0], [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1],
    [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0], [0, 2, 0, 4, 0], [1, 0, 2, 0, 3],
    [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0], [1, 0, 0, 4, 1],
    [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
]  # fmt: skip


def test_fleiss_kappa_z_matches_r_irr() -> None:
    # R irr::kappam.fleiss(diagnoses) (docs/references.md#fleiss1971-diagnoses): Kappa 0.4302445, z
    # 17.65183 (recorded in statsmodels 0.15 test_inter_rater.py::test_fleiss_kappa_irr).
    result = fleiss_kappa_se(ReliabilityData.from_agreement_table(DIAGNOSES))
    assert result.estimate == pytest.approx(0.4302445, abs=1e-7)
    assert result.z == pytest.approx(17.65183, abs=1e-5)
    assert result.p_value < 1e-60
    assert result.coefficient == "fleiss_kappa"
    assert result.n_items == 30


def test_fleiss_per_category_kappas_match_r_irr_detail() -> None:
    # R irr manual, kappam.fleiss(diagnoses, detail=TRUE) (docs/references.md#fleiss1971-diagnoses):
    # per-category Kappa and z (Depression, Personality Disorder, Schizophrenia, Neurosis, Other);
    # se_0 = sqrt(2 / (n m (m - 1))).
    expected = [(0.245, 5.192), (0.245, 5.192), (0.520, 11.031), (0.471, 9.994), (0.566, 12.009)]
    result = fleiss_kappa_se(ReliabilityData.from_agreement_table(DIAGNOSES))
    got = [(round(c.kappa, 3), round(c.z, 3)) for c in result.per_category]
    assert got == expected
    assert [c.category for c in result.per_category] == [0, 1, 2, 3, 4]
    assert all(c.se_null == pytest.approx(np.sqrt(2 / (30 * 6 * 5))) for c in result.per_category)


def test_fleiss_per_category_kappa_is_fleiss_kappa_of_the_binarised_table() -> None:
    inter_rater = importlib.import_module("statsmodels.stats.inter_rater")
    rng = np.random.default_rng(3)
    counts = rng.multinomial(5, [0.5, 0.3, 0.2], size=40)
    result = fleiss_kappa_se(ReliabilityData.from_agreement_table(counts))
    assert result.estimate == pytest.approx(inter_rater.fleiss_kappa(counts), abs=1e-12)
    for j, category in enumerate(result.per_category):
        binary = np.column_stack([counts[:, j], 5 - counts[:, j]])
        assert category.kappa == pytest.approx(inter_rater.fleiss_kappa(binary), abs=1e-12)


def test_fleiss_interval_uses_gwets_linearised_se_as_irrcac() -> None:
    data = ReliabilityData.from_agreement_table(DIAGNOSES)
    result = fleiss_kappa_se(data)
    linearized = linearized_se(data, coefficient="fleiss")
    assert (result.se, result.low, result.high, result.df) == (
        linearized.se,
        linearized.low,
        linearized.high,
        29.0,
    )


def test_fleiss_needs_equal_numbers_of_values() -> None:
    data = raw([[1, 1, 2], [1, 1, None], [2, 2, 2]])
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa_se(data)
    with pytest.raises(ValueError, match="from_agreement_table"):
        fleiss_kappa_se(DIAGNOSES)  # type: ignore[arg-type]


# -- Gwet's linearised variances: irrCAC vectors (docs/references.md#irrcac-raw-4raters) ----

# docs/references.md#irrcac-raw-4raters: Krippendorff (2004) p. 230 = irrCAC raw_4raters (irrCAC
# 0.4.4 raw tests, digits 3).
RAW_4RATERS = [
    [1, 1, N, 1], [2, 2, 3, 2], [3, 3, 3, 3], [3, 3, 3, 3], [2, 2, 2, 2], [1, 2, 3, 4],
    [4, 4, 4, 4], [1, 1, 2, 1], [2, 2, 2, 2], [N, 5, 5, 5], [N, N, 1, 1], [N, N, 3, N],
]  # fmt: skip


@pytest.mark.parametrize(
    ("coefficient", "estimate", "se", "low", "p"),
    [
        ("ac1", 0.775, 0.143, 0.461, 0.00021),
        ("fleiss", 0.761, None, 0.424, 0.00042),
        ("conger", 0.763, None, 0.435, 0.00034),
        ("alpha", 0.743, 0.146, 0.419, 0.00046),
    ],
)
def test_raw_4raters_matches_irrcac(
    coefficient: str, estimate: float, se: float | None, low: float, p: float
) -> None:
    result = linearized_se(raw(RAW_4RATERS), coefficient=coefficient)  # type: ignore[arg-type]
    assert round(result.estimate, 3) == estimate
    if se is not None:
        assert round(result.se, 3) == se
    assert (round(result.low, 3), result.high) == (low, 1.0)
    assert round(result.p_value, 5) == p


def test_raw_4raters_brennan_prediger_p_value_is_two_sided() -> None:
    # irrCAC 0.4.4 (Python) raw bp() reports the one-sided t tail (no factor 2, unlike its
    # other coefficients); the two-sided p-value is twice the printed 0.00012
    # (docs/references.md#irrcac-raw-4raters).
    result = linearized_se(raw(RAW_4RATERS), coefficient="brennan_prediger")
    assert (round(result.estimate, 3), round(result.se, 3), round(result.low, 3)) == (
        0.773,
        0.145,
        0.454,
    )
    assert result.p_value / 2 == pytest.approx(0.00012, abs=5e-6)


@pytest.mark.parametrize(
    ("weights", "expected"),
    [
        # docs/references.md#irrcac-raw-4raters weighted table: coef/se/CI-lo for gwet,
        # krippendorff, fleiss, conger, bp.
        ("quadratic", {"ac1": (0.914, 0.104, 0.685), "alpha": (0.849, 0.129, 0.561),
                       "fleiss": (0.865, 0.146, 0.544), "conger": (0.858, 0.144, 0.541),
                       "brennan_prediger": (0.902, 0.111, 0.657)}),
        ("linear", {"ac1": (0.859, 0.117, 0.600), "alpha": (0.800, 0.135, 0.499),
                    "fleiss": (0.818, 0.149, 0.491), "conger": (0.814, 0.145, 0.494),
                    "brennan_prediger": (0.848, 0.123, 0.577)}),
    ],
)  # fmt: skip
def test_raw_4raters_weighted_matches_irrcac(
    weights: str, expected: dict[str, tuple[float, float, float]]
) -> None:
    # irrCAC weights for categories 1..5: quadratic 1 - (i-j)^2/16, linear 1 - |i-j|/4;
    # as distances (i-j)^2 and |i-j| (the normalisation by the largest distance is theirs).
    distance = positions(5) ** 2 if weights == "quadratic" else np.abs(positions(5))
    for coefficient, (estimate, se, low) in expected.items():
        result = linearized_se(raw(RAW_4RATERS), coefficient=coefficient, distance=distance)  # type: ignore[arg-type]
        got = (round(result.estimate, 3), round(result.se, 3), round(result.low, 3))
        assert got == (estimate, se, low), coefficient
        assert result.high == 1.0


# docs/references.md#irrcac-raw-datasets: irrCAC raw datasets with missing values (irrCAC 0.4.4 raw
# tests, digits 3).
RAW_DATASETS = {
    "raw_5observers": raw(
        [
            [1, 1, 2, N, 2], [1, 1, 0, 1, N], [2, 3, 3, 3, N], [N, 0, 0, N, 0], [0, 0, 0, N, 0],
            [0, 0, 0, N, 0], [1, 0, 2, N, 1], [1, N, 2, 0, N], [2, 2, 2, N, 2], [2, 1, 1, 1, N],
            [N, 1, 0, 0, N], [0, 0, 0, 0, N], [1, 2, 2, 2, N], [3, 3, 2, 2, 3], [1, 1, 1, N, 1],
        ]
    ),
    "raw_g1g2": raw(
        [
            ["a", "a", N, "a"], ["b", "b", "c", "b"], ["c", "c", "c", "c"], ["c", "c", "c", "c"],
            ["b", "b", "b", "b"], ["a", "b", "c", "d"], ["d", "d", "d", "d"], ["a", "a", "b", "a"],
            ["b", "b", "b", "b"], [N, "e", "e", "e"], [N, N, "a", "a"], [N, N, "c", N],
            ["b", "b", "c", "b"], ["b", "a", "c", "b"],
        ]
    ),
    "raw_gender": letters(
        "aaaaabbbcaaaaab", "aaaababccaaaaba", "abbcaabbcabbcaa", "ccccaabbcccccaa"
    ),
    "raw_ben_gerry": letters("aabbdcccedda", "babbbccceNdd"),
}  # fmt: skip

RAW_EXPECTED = {
    # dataset: {coefficient: (coef, se, low, high)}
    "raw_5observers": {
        "ac1": (0.497, 0.122, 0.235, 0.758), "fleiss": (0.458, 0.120, 0.199, 0.716),
        "conger": (0.469, 0.117, 0.219, 0.719), "brennan_prediger": (0.487, 0.121, 0.228, 0.747),
        "alpha": (0.481, 0.114, 0.237, 0.724),
    },
    "raw_g1g2": {
        "ac1": (0.685, 0.134, 0.396, 0.973), "fleiss": (0.657, 0.150, 0.333, 0.981),
        "conger": (0.659, 0.146, 0.343, 0.974), "brennan_prediger": (0.679, 0.136, 0.385, 0.974),
        "alpha": (0.632, 0.150, 0.306, 0.958),
    },
    "raw_gender": {
        "ac1": (0.208, 0.091, 0.014, 0.403), "fleiss": (0.129, 0.141, -0.172, 0.430),
        "conger": (0.166, 0.121, -0.094, 0.426), "brennan_prediger": (0.183, 0.102, -0.035, 0.402),
        "alpha": (0.143, 0.141, -0.158, 0.445),
    },
    "raw_ben_gerry": {
        "ac1": (0.661, 0.184, 0.257, 1.0), "fleiss": (0.649, 0.191, 0.228, 1.0),
        "conger": (0.657, 0.179, 0.262, 1.0), "brennan_prediger": (0.659, 0.185, 0.251, 1.0),
        "alpha": (0.665, 0.180, 0.264, 1.0),
    },
}  # fmt: skip


@pytest.mark.parametrize("dataset", sorted(RAW_EXPECTED))
def test_raw_datasets_with_missing_values_match_irrcac(dataset: str) -> None:
    for coefficient, expected in RAW_EXPECTED[dataset].items():
        result = linearized_se(RAW_DATASETS[dataset], coefficient=coefficient)  # type: ignore[arg-type]
        got = tuple(round(v, 3) for v in (result.estimate, result.se, result.low, result.high))
        assert got == pytest.approx(expected, abs=1.01e-3), (dataset, coefficient)


# docs/references.md#irrcac-table-abstractors: irrCAC contingency-table tests (digits 3, t-based
# CI).
ABSTRACTORS = [[13, 0, 0], [0, 20, 7], [0, 4, 56]]
DIAGNOSIS_4X4 = [[40, 4, 4, 17], [6, 25, 2, 13], [4, 1, 21, 12], [15, 5, 9, 45]]


@pytest.mark.parametrize(
    ("table", "coefficient", "estimate", "se", "low", "high"),
    [
        (ABSTRACTORS, "cohen", 0.796, None, 0.680, 0.913),
        (ABSTRACTORS, "scott", 0.796, 0.059, 0.679, 0.913),
        (ABSTRACTORS, "ac1", 0.849, None, 0.764, 0.935),
        (ABSTRACTORS, "brennan_prediger", 0.835, None, 0.742, 0.928),
        (ABSTRACTORS, "alpha", 0.797, None, 0.680, 0.914),
        (ABSTRACTORS, "percent_agreement", 0.890, 0.031, 0.828, 0.952),
        (DIAGNOSIS_4X4, "cohen", 0.432, 0.046, 0.341, 0.522),
        (DIAGNOSIS_4X4, "scott", 0.430, 0.046, 0.339, 0.521),
        (DIAGNOSIS_4X4, "ac1", 0.456, 0.043, 0.371, 0.542),
        (DIAGNOSIS_4X4, "brennan_prediger", 0.450, 0.044, 0.363, 0.537),
        (DIAGNOSIS_4X4, "percent_agreement", 0.587, 0.033, 0.522, 0.652),
    ],
)
def test_contingency_tables_match_irrcac(
    table: list[list[int]],
    coefficient: str,
    estimate: float,
    se: float | None,
    low: float,
    high: float,
) -> None:
    result = linearized_se(table, coefficient=coefficient)  # type: ignore[arg-type]
    assert round(result.estimate, 3) == estimate
    if se is not None:
        assert round(result.se, 3) == se
    assert round(result.low, 3) == pytest.approx(low, abs=1.01e-3)
    assert round(result.high, 3) == pytest.approx(high, abs=1.01e-3)
    assert result.df == float(np.sum(table)) - 1


def test_contingency_table_quadratic_and_custom_weights_match_irrcac() -> None:
    # docs/references.md#irrcac-table-abstractors: quadratic weights, 3x3 cohen 0.892 [0.822,
    # 0.962], gwet 0.940 [0.905, 0.976], bp 0.918 [0.871, 0.964], krippendorff 0.893 [0.822, 0.963];
    # 4x4 cohen 0.383 (0.066).
    quadratic = positions(3) ** 2
    for coefficient, expected in {
        "cohen": (0.892, 0.822, 0.962),
        "ac1": (0.940, 0.905, 0.976),
        "brennan_prediger": (0.918, 0.871, 0.964),
        "alpha": (0.893, 0.822, 0.963),
    }.items():
        result = linearized_se(ABSTRACTORS, coefficient=coefficient, distance=quadratic)  # type: ignore[arg-type]
        got = (round(result.estimate, 3), round(result.low, 3), round(result.high, 3))
        assert got == pytest.approx(expected, abs=1.01e-3), coefficient
    cohen = linearized_se(DIAGNOSIS_4X4, coefficient="cohen", distance=positions(4) ** 2)
    assert (round(cohen.estimate, 3), round(cohen.se, 3)) == (0.383, 0.066)


def test_contingency_table_with_asymmetric_weights_uses_their_symmetric_part() -> None:
    # irrCAC 0.4.4's table test with custom agreement weights prints krippendorff 0.816 (se
    # .057) [0.703, 0.928] (docs/references.md#irrcac-table-abstractors): irrCAC.table reads
    # the weights as directed. Our one convention (docs/metrics.md, "Weights") uses their
    # symmetric part, so we equal irrCAC.table run on (w + w')/2, computed here.
    import pandas as pd
    from irrCAC.table import CAC

    custom = np.array([[1, 0.5, 0], [0, 1, 0.5], [0.5, 0, 1]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        directed = CAC(pd.DataFrame(ABSTRACTORS), weights=custom, digits=15).krippendorff()
        peer = CAC(pd.DataFrame(ABSTRACTORS), weights=(custom + custom.T) / 2, digits=15)
        symmetric = peer.krippendorff()["est"]
    assert round(directed["est"]["coefficient_value"], 3) == 0.816
    alpha = linearized_se(ABSTRACTORS, coefficient="alpha", distance=1 - custom)
    assert alpha.estimate == pytest.approx(symmetric["coefficient_value"], abs=1e-12)
    assert alpha.se == pytest.approx(symmetric["se"], abs=1e-12)
    assert (alpha.low, alpha.high) == pytest.approx(symmetric["confidence_interval"], abs=1e-12)


# -- cross-checks against the peers on random data ------------------------------------------


def _random_raw(rng: np.random.Generator) -> np.ndarray:
    """Units × raters with values 1..q and about a quarter missing."""
    r, n, q = int(rng.integers(2, 6)), int(rng.integers(8, 60)), int(rng.integers(2, 6))
    truth = rng.integers(1, q + 1, n)
    ratings = np.where(
        rng.random((n, r)) < 0.6, truth[:, None], rng.integers(1, q + 1, (n, r))
    ).astype(float)
    ratings[rng.random((n, r)) < 0.25] = np.nan
    return ratings


def test_raw_linearised_se_agrees_with_irrcac_on_random_data_with_missing_values() -> None:
    pd = importlib.import_module("pandas")
    irrcac_raw = importlib.import_module("irrCAC.raw")
    irrcac_weights = importlib.import_module("irrCAC.weights")
    rng = np.random.default_rng(0)
    methods = {
        "ac1": "gwet",
        "fleiss": "fleiss",
        "conger": "conger",
        "brennan_prediger": "bp",
        "alpha": "krippendorff",
    }
    for _ in range(15):
        ratings = _random_raw(rng)
        observed = ~np.isnan(ratings)
        categories = sorted(np.unique(ratings[observed]).tolist())
        data = ReliabilityData.from_matrix(ratings.T)
        for scheme in ("identity", "quadratic", "ordinal"):
            weights = irrcac_weights.Weights(categories)[scheme]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                peer = irrcac_raw.CAC(
                    pd.DataFrame(ratings), weights=weights, categories=categories, digits=15
                )
            distance = None if scheme == "identity" else 1 - weights
            for ours_name, peer_name in methods.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = getattr(peer, peer_name)()["est"]
                ours = linearized_se(data, coefficient=ours_name, distance=distance)  # type: ignore[arg-type]
                assert ours.estimate == pytest.approx(expected["coefficient_value"], abs=1e-9)
                assert ours.se == pytest.approx(expected["se"], abs=1e-9)
                low, high = expected["confidence_interval"]
                assert ours.low == pytest.approx(low, abs=1e-9)
                assert ours.high == pytest.approx(high, abs=1e-9)
                if peer_name == "bp":  # irrCAC 0.4.4 reports the one-sided tail for raw bp
                    assert ours.p_value == pytest.approx(2 * expected["p_value"], abs=1e-9)
                else:
                    assert ours.p_value == pytest.approx(expected["p_value"], abs=1e-9)


def test_table_linearised_se_agrees_with_irrcac_on_random_tables() -> None:
    pd = importlib.import_module("pandas")
    irrcac_table = importlib.import_module("irrCAC.table")
    irrcac_weights = importlib.import_module("irrCAC.weights")
    rng = np.random.default_rng(2)
    methods = {
        "ac1": "gwet",
        "scott": "scott",
        "cohen": "cohen",
        "brennan_prediger": "bp",
        "alpha": "krippendorff",
        "percent_agreement": "pa2",
    }
    for _ in range(15):
        k = int(rng.integers(2, 6))
        table = rng.integers(0, 15, (k, k)) + np.diag(rng.integers(0, 30, k))
        for scheme in ("identity", "quadratic", "linear"):
            weights = irrcac_weights.Weights(list(range(1, k + 1)))[scheme]
            peer = irrcac_table.CAC(pd.DataFrame(table), weights=weights, digits=15)
            distance = None if scheme == "identity" else 1 - weights
            for ours_name, peer_name in methods.items():
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    expected = getattr(peer, peer_name)()["est"]
                ours = linearized_se(table, coefficient=ours_name, distance=distance)  # type: ignore[arg-type]
                if not expected["se"] > 0:
                    # A zero variance (or -1e-17 from rounding) gives irrCAC a nan se or
                    # interval; ours clips the variance at 0 and the interval is the point.
                    assert ours.se < 1e-7
                    continue
                assert ours.estimate == pytest.approx(expected["coefficient_value"], abs=1e-9)
                assert ours.se == pytest.approx(expected["se"], abs=1e-9)
                low, high = expected["confidence_interval"]
                assert ours.low == pytest.approx(low, abs=1e-9)
                assert ours.high == pytest.approx(high, abs=1e-9)


def test_finite_population_correction_scales_the_variance() -> None:
    data = raw(RAW_4RATERS)
    infinite = linearized_se(data, coefficient="ac1")
    finite = linearized_se(data, coefficient="ac1", population_size=24)
    # 12 items with values out of N = 24: variance × (1 - 12/24).
    assert finite.se == pytest.approx(infinite.se * np.sqrt(0.5), rel=1e-12)


def test_linearised_se_validates_options() -> None:
    with pytest.raises(ValueError, match="Unknown coefficient"):
        linearized_se(raw(RAW_4RATERS), coefficient="percent_agreement")
    with pytest.raises(ValueError, match="Unknown coefficient"):
        linearized_se(TABLE10, coefficient="kappa")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="population_size"):
        linearized_se(TABLE10, coefficient="cohen", population_size=0)
    with pytest.raises(ValueError, match="at least two items"):
        linearized_se(raw([[1, None], [2, None], [1, None]]), coefficient="ac1")


def test_results_are_frozen_python_floats() -> None:
    result = linearized_se(raw(RAW_4RATERS), coefficient="fleiss")
    assert isinstance(result, AnalyticResult)
    for name in ("estimate", "se", "z", "p_value", "low", "high", "confidence"):
        assert type(getattr(result, name)) is float
    assert result.se_null is None
    with pytest.raises(AttributeError):
        result.se = 0.0  # type: ignore[misc]
