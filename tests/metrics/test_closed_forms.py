"""The closed forms (metrics.coefficients.closed_forms).

A plain coders × items array with no ``domain=`` goes through the array closed forms; a
``ReliabilityData`` goes through the long-format ones for Cohen's kappa, two-coder weighted
kappa and interval alpha, and through the general path otherwise. The general path is also
called directly here (``general_path``). All are checked against the peers live
(``krippendorff``, scikit-learn, statsmodels) on seeded random data with missing values,
against each other to 1e-12, and against published values.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import MatrixDistance
from metrics.coefficients import agreement, closed_forms
from metrics.coefficients import alpha as alpha_module
from metrics.coefficients import weighted as weighted_module
from metrics.coefficients.agreement import cohen_kappa, fleiss_pi
from metrics.coefficients.alpha import krippendorff_alpha
from metrics.coefficients.result import CoefficientResult
from metrics.coefficients.weighted import weighted_kappa
from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.distances import DistanceLike

krippendorff = importlib.import_module("krippendorff")
sklearn_metrics = importlib.import_module("sklearn.metrics")
inter_rater = importlib.import_module("statsmodels.stats.inter_rater")

EXACT = 1e-12
PEER = 1e-9


# Krippendorff (2011)'s reliability data, 4 coders × 12 items
# (docs/references.md#k2011-reliability-data).
K2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, np.nan],
        [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
    ]
)


def categorical(seed: int, *, coders: int, items: int, missing: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 9))
    truth = rng.integers(1, size + 1, size=items)
    noise = rng.integers(1, size + 1, size=(coders, items))
    values = np.where(rng.random((coders, items)) < 0.6, truth, noise).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values


def reals(seed: int, *, coders: int, items: int, missing: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.normal(loc=50.0, scale=3.0, size=items)
    values = np.round(truth + rng.normal(scale=1.0, size=(coders, items)), 4)
    values[rng.random(values.shape) < missing] = np.nan
    return values


def general(values: np.ndarray) -> ReliabilityData:
    """The same data as ReliabilityData."""
    return ReliabilityData.from_matrix(values)


def general_alpha(data: DataLike, distance: DistanceLike) -> CoefficientResult:
    """Alpha by the general path (per-item sums for any distance), no closed form."""
    return alpha_module._general_alpha(as_reliability_data(data), distance)


def general_cohen_kappa(data: DataLike) -> CoefficientResult:
    """Cohen's kappa by the general path (the per-item decomposition), no closed form."""
    rd = as_reliability_data(data)
    agreement.require_identified(rd, "Cohen's kappa")
    agreement.require_two_coders(rd, "Cohen's kappa")
    decomposition, model = agreement.build_decomposition(rd, "cohen_kappa", "coder")
    return agreement.evaluate(rd, decomposition, model, "Cohen's kappa")


def general_weighted_kappa(data: DataLike, distance: DistanceLike) -> CoefficientResult:
    """Weighted kappa by the general path (the per-item decomposition), no closed form."""
    rd, decomposition, model = weighted_module._prepare(data, distance, None)
    return agreement.evaluate(rd, decomposition, model, "Weighted kappa")


def general_path(name: str, data: DataLike, **options: object) -> CoefficientResult:
    if name == "alpha":
        return general_alpha(data, options.get("distance", "nominal"))  # type: ignore[arg-type]
    if name == "cohen_kappa":
        return general_cohen_kappa(data)
    return general_weighted_kappa(data, options["distance"])  # type: ignore[arg-type]


def same_result(direct: object, reference: object) -> None:
    assert direct.value == pytest.approx(reference.value, abs=EXACT)  # type: ignore[attr-defined]
    for field in ("observed", "expected"):  # in the distance's units: relative
        assert getattr(direct, field) == pytest.approx(
            getattr(reference, field), rel=EXACT, abs=EXACT
        )
    for field in ("name", "kind", "n_items", "n_pairable_items", "n_coders"):
        assert getattr(direct, field) == getattr(reference, field)


# -- alpha ---------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(10))
@pytest.mark.parametrize("level", ["interval", "ordinal", "nominal"])
def test_alpha_matches_krippendorff_and_the_general_path(seed: int, level: str) -> None:
    make = reals if level == "interval" and seed % 2 else categorical
    values = make(seed, coders=2 + seed % 5, items=40 + 7 * seed, missing=0.3)
    assert closed_forms.alpha_from_array(values, level, None) is not None
    direct = krippendorff_alpha(values, distance=level)
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement=level)
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, krippendorff_alpha(general(values), distance=level))
    same_result(direct, general_alpha(values, level))


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint8])
def test_alpha_on_integer_arrays(dtype: type) -> None:
    values: np.ndarray = np.nan_to_num(categorical(3, coders=4, items=50, missing=0.0)).astype(
        dtype
    )
    for level in ("interval", "ordinal", "nominal"):
        direct = krippendorff_alpha(values, distance=level)
        # The peer is given floats: it squares uint8 differences in uint8 and wraps around.
        expected = krippendorff.alpha(
            reliability_data=values.astype(float), level_of_measurement=level
        )
        assert direct.value == pytest.approx(expected, abs=PEER)
        same_result(direct, krippendorff_alpha(general(values), distance=level))
        same_result(direct, general_alpha(values, level))


def test_ordinal_alpha_on_a_wide_range_of_whole_numbers() -> None:
    # 33 and more values are counted with one bincount rather than value by value.
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 300, size=200)
    values = (truth + rng.integers(-20, 21, size=(3, 200))).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    direct = krippendorff_alpha(values, distance="ordinal")
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement="ordinal")
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, krippendorff_alpha(general(values), distance="ordinal"))


def test_ordinal_alpha_on_fractional_labels_takes_the_general_path() -> None:
    values = np.array([[0.5, 1.5, 2.5, 1.5], [0.5, 2.5, 2.5, np.nan], [1.5, 1.5, 2.5, 0.5]])
    assert closed_forms.alpha_from_array(values, "ordinal", None) is None
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement="ordinal")
    assert krippendorff_alpha(values, distance="ordinal").value == pytest.approx(expected, abs=PEER)


def test_interval_alpha_keeps_digits_far_from_zero() -> None:
    # Values around 10⁶ that differ in the sixth decimal: sums of squares without centring
    # would lose every digit.
    rng = np.random.default_rng(11)
    truth = 1e6 + rng.normal(scale=1e-4, size=60)
    values = truth + rng.normal(scale=2e-5, size=(3, 60))
    values[rng.random(values.shape) < 0.2] = np.nan
    direct = krippendorff_alpha(values, distance="interval")
    same_result(direct, krippendorff_alpha(general(values), distance="interval"))
    same_result(direct, general_alpha(values, "interval"))


def test_interval_alpha_leaves_lone_values_out() -> None:
    values = reals(5, coders=3, items=30, missing=0.0)
    values[1:, :4] = np.nan  # four items with one value each
    direct = krippendorff_alpha(values, distance="interval")
    assert direct.n_pairable_items == 26
    same_result(direct, krippendorff_alpha(general(values), distance="interval"))
    same_result(direct, general_alpha(values, "interval"))
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement="interval")
    assert direct.value == pytest.approx(expected, abs=PEER)


def test_published_interval_and_ordinal_alpha_on_arrays() -> None:
    nan = np.nan
    # docs/references.md#k2011-reliability-data
    k2011 = K2011.copy()
    interval = krippendorff_alpha(k2011, distance="interval")
    assert interval.value == pytest.approx(0.849, abs=5e-4)
    assert interval.observed == pytest.approx(0.433, abs=5e-4)
    assert interval.expected == pytest.approx(2.872, abs=5e-4)
    assert krippendorff_alpha(k2011, distance="ordinal").value == pytest.approx(0.8153875, abs=1e-7)
    # docs/references.md#krippendorff-wikipedia-example
    wikipedia = np.array(
        [
            [nan, nan, nan, nan, nan, 3, 4, 1, 2, 1, 1, 3, 3, nan, 3],
            [1, nan, 2, 1, 3, 3, 4, 3, nan, nan, nan, nan, nan, nan, nan],
            [nan, nan, 2, 1, 3, 4, 4, nan, 2, 1, 1, 3, 3, nan, 4],
        ]
    )
    assert krippendorff_alpha(wikipedia, distance="interval").value == pytest.approx(
        0.810845, abs=5e-7
    )
    assert krippendorff_alpha(wikipedia, distance="ordinal").value == pytest.approx(
        0.8067214199, abs=1e-10
    )
    # docs/references.md#krippendorff1980-p139
    p139 = np.array(
        [[1, 1, 1], [1, 2, 2], [2, 2, 2], [4, 4, 4], [1, 4, 4], [2, 2, 2], [1, 2, 3], [3, 3, 3],
         [2, 2, 2]]
    ).T  # fmt: skip
    assert krippendorff_alpha(p139, distance="interval").value == pytest.approx(0.547, abs=5e-4)
    assert krippendorff_alpha(p139, distance="ordinal").value == pytest.approx(
        0.4994238683, abs=1e-10
    )


def nominal_references(values: np.ndarray) -> tuple[CoefficientResult, float]:
    """Nominal alpha by the general path, and the ``krippendorff`` package's value (floats)."""
    peer = krippendorff.alpha(reliability_data=values.astype(float), level_of_measurement="nominal")
    return general_alpha(values, "nominal"), float(peer)


@pytest.mark.parametrize(
    ("name", "values"),
    [
        # Whole numbers with missing values, negative ones, a range wider than 32 values (one
        # bincount), 300 coders (counts in uint16), float32 labels.
        ("missing", categorical(4, coders=6, items=300, missing=0.4)),
        ("negative", categorical(5, coders=4, items=200, missing=0.2) - 5.0),
        ("wide range", np.round(reals(6, coders=3, items=400, missing=0.1)) * 3.0 - 150.0),
        ("many coders", categorical(7, coders=300, items=25, missing=0.3)),
        ("32 values", np.random.default_rng(10).integers(0, 32, (4, 300)).astype(float)),
        ("float32", categorical(8, coders=5, items=100, missing=0.2).astype(np.float32)),
        ("int16", np.nan_to_num(categorical(9, coders=5, items=100, missing=0.0) - 4, nan=0)
         .astype(np.int16)),
        # Complete floats: counted on one byte per label when every label fits in a byte.
        ("complete", categorical(11, coders=4, items=120, missing=0.0)),
        ("complete, negative", categorical(12, coders=4, items=120, missing=0.0) - 3.0),
        ("complete, above a byte", categorical(13, coders=4, items=120, missing=0.0) + 254.0),
    ],
)  # fmt: skip
def test_nominal_alpha_of_whole_numbers_takes_the_count_table(
    name: str, values: np.ndarray
) -> None:
    direct = closed_forms.alpha_from_array(values, "nominal", None)
    assert direct is not None, name
    reference, peer = nominal_references(values)
    same_result(direct, reference)
    same_result(krippendorff_alpha(values), reference)
    assert direct.value == pytest.approx(peer, abs=PEER)


def test_nominal_alpha_of_a_complete_dense_array_equals_the_general_path() -> None:
    # The benchmark's shape in small: complete data, five categories, ten coders.
    rng = np.random.default_rng(12)
    truth = rng.integers(0, 5, size=5000)
    values = np.where(rng.random((10, 5000)) < 0.7, truth, rng.integers(0, 5, (10, 5000)))
    for array in (values.astype(float), values):
        direct = closed_forms.alpha_from_array(array, "nominal", None)
        assert direct is not None
        reference, peer = nominal_references(array)
        same_result(direct, reference)
        assert direct.value == pytest.approx(peer, abs=PEER)
        assert (direct.n_items, direct.n_pairable_items, direct.n_coders) == (5000, 5000, 10)


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("fractions", np.array([[0.5, 1.5, 2.5, 1.5], [0.5, 2.5, 2.5, np.nan]])),
        ("one fraction", np.array([[1.0, 2.0, 3.0, 2.0], [1.0, 2.0, 2.5, np.nan]])),
        ("large gap", np.array([[0.0, 1e9, 0.0, np.nan], [0.0, 1e9, 1e9, 0.0]])),
        ("large gap, int64", np.array([[0, 10**9, 0, 0], [0, 10**9, 10**9, 0]])),
        ("complete fractions", np.array([[0.5, 1.5, 2.5, 1.5], [0.5, 2.5, 2.5, 1.0]])),
        # Floats above 2**53 skip odd numbers: 2**53 + 1 rounds to 2**53.
        ("beyond 2**52", 2.0**53 + np.array([[0.0, 2.0, 0.0], [0.0, 0.0, 2.0]])),
    ],
)  # fmt: skip
def test_nominal_alpha_of_other_labels_takes_the_general_path(
    name: str, values: np.ndarray
) -> None:
    assert closed_forms.alpha_from_array(values, "nominal", None) is None, name
    reference, peer = nominal_references(values)
    same_result(krippendorff_alpha(values), reference)
    assert reference.value == pytest.approx(peer, abs=PEER)


def test_published_nominal_alpha_on_an_array() -> None:
    # docs/references.md#k2011-reliability-data: 0.743 (0.7434210526), D_o 0.200, D_e 0.779.
    k2011 = K2011.copy()
    result = closed_forms.alpha_from_array(k2011, "nominal", None)
    assert result is not None
    assert result.value == pytest.approx(0.7434210526, abs=1e-9)
    assert result.observed == pytest.approx(0.2, abs=1e-12)
    assert result.expected == pytest.approx(0.7794871795, abs=1e-10)
    assert (result.n_items, result.n_pairable_items, result.n_coders) == (12, 11, 4)
    # docs/references.md#ap2008-table1: alpha = 313/910, D_o 0.3 (two coders, complete).
    pairs = np.array([(0, 0)] * 20 + [(1, 0)] * 20 + [(0, 1)] * 10 + [(1, 1)] * 50).T
    table_1 = closed_forms.alpha_from_array(pairs, "nominal", None)
    assert table_1 is not None
    assert table_1.value == pytest.approx(313 / 910, abs=1e-12)
    assert table_1.observed == pytest.approx(0.3, abs=1e-12)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (np.array([[2.0, 2.0, 2.0], [2.0, 2.0, np.nan]]), "expected disagreement is 0"),
        (np.array([[3, 3, 3], [3, 3, 3]]), "expected disagreement is 0"),
        (np.array([[1.0, 2.0], [np.nan, np.nan]]), "at least one item"),
        (np.array([[1.0, 2.0, 3.0]]), "at least one item"),
        (np.full((2, 3), np.nan), "at least one item"),
    ],
)
def test_undefined_nominal_alpha_still_explains(values: np.ndarray, message: str) -> None:
    # A single category, one coder, nothing present: the general path raises the reason.
    assert closed_forms.alpha_from_array(values, "nominal", None) is None
    with pytest.raises(ValueError, match=message):
        krippendorff_alpha(values)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (np.array([[1.0, 2.0], [np.nan, np.nan]]), "at least one item"),
        (np.array([[2.0, 2.0, 2.0], [2.0, 2.0, np.nan]]), "expected disagreement is 0"),
        (np.array([[1.0, np.inf], [2.0, 3.0]]), "finite"),
    ],
)
def test_undefined_alpha_still_explains(values: np.ndarray, message: str) -> None:
    assert closed_forms.alpha_from_array(values, "interval", None) is None
    with pytest.raises(ValueError, match=message):
        krippendorff_alpha(values, distance="interval")


def test_other_distances_and_declared_domains_take_the_general_path() -> None:
    values = categorical(1, coders=3, items=20, missing=0.2)
    assert closed_forms.alpha_from_array(values, "ratio", None) is None
    assert closed_forms.alpha_from_array(values, "nominal", list(range(1, 9))) is None
    assert closed_forms.alpha_from_array(values, "ordinal", list(range(1, 9))) is None
    assert closed_forms.alpha_from_array(values.tolist(), "ordinal", None) is None


# -- Cohen's and weighted kappa --------------------------------------------------------------


def two_coders(seed: int, *, items: int, missing: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 7))
    first = rng.integers(0, size, size=items)
    second = np.where(rng.random(items) < 0.6, first, rng.integers(0, size, size=items))
    values = np.vstack([first, second]).astype(float)
    values[rng.random(values.shape) < missing] = np.nan
    return values


@pytest.mark.parametrize("seed", range(8))
def test_cohen_kappa_matches_sklearn(seed: int) -> None:
    values = two_coders(seed, items=50 + 11 * seed).astype(np.int64) + seed
    expected = sklearn_metrics.cohen_kappa_score(values[0], values[1])
    direct = cohen_kappa(values)
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, cohen_kappa(general(values)))
    same_result(direct, general_cohen_kappa(values))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_matches_sklearn(seed: int, weights: str) -> None:
    values = two_coders(seed, items=60 + 5 * seed).astype(np.int64)
    used = np.unique(values)
    steps = np.abs(np.subtract.outer(used, used)).astype(float)
    distance = steps if weights == "linear" else "interval"
    expected = sklearn_metrics.cohen_kappa_score(values[0], values[1], weights=weights)
    direct = weighted_kappa(values, distance=distance)
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, weighted_kappa(general(values), distance=distance))
    same_result(direct, general_weighted_kappa(values, distance))


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("distance", [None, "interval", "ordinal", "ratio"])
def test_two_coder_kappa_with_missing_values_equals_the_general_path(
    seed: int, distance: str | None
) -> None:
    values = two_coders(seed, items=70, missing=0.2) + 1
    if distance is None:
        same_result(cohen_kappa(values), cohen_kappa(general(values)))
        same_result(cohen_kappa(values), general_cohen_kappa(values))
    else:
        direct = weighted_kappa(values, distance=distance)
        same_result(direct, weighted_kappa(general(values), distance=distance))
        same_result(direct, general_weighted_kappa(values, distance))


def test_weighted_kappa_with_labelled_matrix_on_an_array() -> None:
    # docs/references.md#ap2008-table4 with the §2.7.2 weights: κ_w ≈ 0.8163.
    pairs = [(0, 0)] * 46 + [(1, 0)] * 6 + [(1, 1)] * 32 + [(1, 2)] * 6 + [(2, 2)] * 10
    values = np.array(pairs).T
    d = MatrixDistance([[0, 1, 0.5], [1, 0, 0.5], [0.5, 0.5, 0]], labels=[0, 1, 2])
    assert weighted_kappa(values, distance=d).value == pytest.approx(0.8163, abs=5e-5)


def test_published_cohen_kappa_on_arrays() -> None:
    # docs/references.md#ap2008-table1: κ = 8/23.
    pairs = [(0, 0)] * 20 + [(1, 0)] * 20 + [(0, 1)] * 10 + [(1, 1)] * 50
    assert cohen_kappa(np.array(pairs).T).value == pytest.approx(8 / 23, abs=EXACT)
    # docs/references.md#statsmodels-sas-table10: table [[0, 4, 1], [0, 8, 0], [0, 1, 5]].
    table = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    cells = np.repeat(np.arange(9), table.ravel())
    values = np.vstack([cells // 3, cells % 3])
    assert cohen_kappa(values).value == pytest.approx(0.4841628959, abs=1e-10)
    linear = np.abs(np.subtract.outer(np.arange(3), np.arange(3))).astype(float)
    assert weighted_kappa(values, distance=linear).value == pytest.approx(0.4701195219, abs=1e-10)


@pytest.mark.parametrize(
    ("values", "message"),
    [
        (np.array([[1, 1, 1], [1, 1, 1]]), "expected agreement"),
        (np.array([[1.0, np.nan], [np.nan, 2.0]]), "no item"),
        (np.array([[1, 2], [1, 2], [2, 2]]), "exactly two coders"),
    ],
)
def test_undefined_cohen_kappa_still_explains(values: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        cohen_kappa(values)


def test_two_coder_kappa_on_a_wide_range_takes_the_general_path() -> None:
    values = np.array([[0, 5000, 5000, 0], [0, 5000, 0, 0]])
    assert closed_forms.two_coder_kappa_from_array(values, None, None, "cohen_kappa") is None
    expected = sklearn_metrics.cohen_kappa_score(values[0], values[1])
    assert cohen_kappa(values).value == pytest.approx(expected, abs=PEER)


# -- Fleiss' multi-pi ----------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_pi_matches_statsmodels(seed: int) -> None:
    values = categorical(seed, coders=3 + seed, items=80, missing=0.0).astype(int)
    table, _ = inter_rater.aggregate_raters(values.T)
    expected = inter_rater.fleiss_kappa(table, method="fleiss")
    assert fleiss_pi(values).value == pytest.approx(expected, abs=PEER)


@pytest.mark.parametrize("seed", range(6))
def test_fleiss_pi_with_missing_values_equals_the_general_path(seed: int) -> None:
    values = categorical(seed, coders=2 + seed, items=60, missing=0.3)
    values[:, :3] = np.nan
    values[0, 3] = 1.0  # an item with one value counts for chance, not for A_o
    values[1:, 3] = np.nan
    assert closed_forms.fleiss_pi_from_array(values, None, None) is not None
    same_result(fleiss_pi(values), fleiss_pi(general(values)))


def test_published_fleiss_pi_on_an_array() -> None:
    # docs/references.md#ap2008-table4: π = 2393/2993.
    pairs = [(0, 0)] * 46 + [(1, 0)] * 6 + [(1, 1)] * 32 + [(1, 2)] * 6 + [(2, 2)] * 10
    assert fleiss_pi(np.array(pairs).T).value == pytest.approx(2393 / 2993, abs=EXACT)


def test_weighted_multi_pi_takes_the_general_path() -> None:
    values = categorical(2, coders=3, items=30, missing=0.1)
    assert closed_forms.fleiss_pi_from_array(values, "interval", None) is None


# -- any small array: the closed form and the general path agree, or both refuse -----------


@st.composite
def small_arrays(draw: st.DrawFn) -> np.ndarray:
    coders = draw(st.integers(1, 5))
    items = draw(st.integers(1, 12))
    low = draw(st.integers(-3, 3))
    labels = st.one_of(
        st.integers(low, low + draw(st.integers(0, 40))).map(float),
        st.just(np.nan),
        st.sampled_from([0.5, 1e6, -2.25]),
    )
    flat = draw(st.lists(labels, min_size=coders * items, max_size=coders * items))
    values = np.array(flat, dtype=float).reshape(coders, items)
    if draw(st.booleans()) and not np.isnan(values).any():
        values = values.astype(draw(st.sampled_from([np.int64, np.int16])))
    return values


def outcome(
    case: Callable[[DataLike], CoefficientResult], data: DataLike
) -> CoefficientResult | str:
    try:
        return case(data)
    except ValueError as error:
        return str(error)


CASES: list[Callable[[DataLike], CoefficientResult]] = [
    lambda data: krippendorff_alpha(data, distance="interval"),
    lambda data: krippendorff_alpha(data, distance="ordinal"),
    lambda data: krippendorff_alpha(data, distance="nominal"),
    lambda data: cohen_kappa(data),
    lambda data: weighted_kappa(data, distance="interval"),
    lambda data: weighted_kappa(data, distance="ordinal"),
    lambda data: fleiss_pi(data),
]
# The general path of the first six CASES, without any closed form.
GENERAL_CASES: list[Callable[[DataLike], CoefficientResult]] = [
    lambda data: general_alpha(data, "interval"),
    lambda data: general_alpha(data, "ordinal"),
    lambda data: general_alpha(data, "nominal"),
    general_cohen_kappa,
    lambda data: general_weighted_kappa(data, "interval"),
    lambda data: general_weighted_kappa(data, "ordinal"),
]


def agree(direct: CoefficientResult | str, reference: CoefficientResult | str) -> None:
    if isinstance(reference, str):
        assert direct == reference
    else:
        assert not isinstance(direct, str), direct
        same_result(direct, reference)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=small_arrays())
def test_closed_forms_equal_the_general_path_on_any_array(values: np.ndarray) -> None:
    for case in CASES:
        agree(outcome(case, values), outcome(case, general(values)))
    for case, general_case in zip(CASES, GENERAL_CASES, strict=False):
        agree(outcome(case, values), outcome(general_case, general(values)))


def test_narrow_integer_types_do_not_wrap_around() -> None:
    # -100 .. 100 in int8: offsets from the lowest label (up to 200) do not fit in int8.
    narrow = np.array([[-100, 100, 5, 7, -100, 3], [-100, 90, 5, 8, 100, 3]], dtype=np.int8)
    wide = general(narrow.astype(np.int64))
    for case in CASES:
        same_result(case(narrow), case(wide))


# -- long-format ReliabilityData: the closed forms from item_index / coder_index / value_code --


def shuffled_long(
    values: np.ndarray, seed: int, domain: list[float] | None = None
) -> ReliabilityData:
    """The annotations of a coders × items array (``nan`` missing) as shuffled triples."""
    coders, items = np.nonzero(~np.isnan(values))
    labels = values[coders, items]
    order = np.random.default_rng(seed).permutation(labels.size)
    names = [f"coder {c}" for c in coders[order]]
    return ReliabilityData.from_long(
        (items[order] * 7 + 3).tolist(), names, labels[order].tolist(), domain=domain
    )


def whole_number_domain(values: np.ndarray) -> list[float]:
    """Every whole number from the lowest label to two past the highest (unused ones too)."""
    low, high = int(np.nanmin(values)), int(np.nanmax(values))
    return [float(v) for v in range(low, high + 3)]


@pytest.mark.parametrize("seed", range(6))
def test_cohen_kappa_on_long_data_matches_sklearn_and_the_general_path(seed: int) -> None:
    values = two_coders(seed, items=80 + 9 * seed) + seed
    domain = whole_number_domain(values)
    data = shuffled_long(values, seed, domain)
    assert closed_forms.two_coder_kappa_from_data(data, None, "cohen_kappa") is not None
    direct = cohen_kappa(data)
    expected = sklearn_metrics.cohen_kappa_score(values[0], values[1], labels=domain)
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, general_cohen_kappa(data))
    same_result(direct, cohen_kappa(values))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("weights", ["linear", "quadratic"])
def test_weighted_kappa_on_long_data_matches_sklearn_and_the_general_path(
    seed: int, weights: str
) -> None:
    values = two_coders(seed, items=70 + 5 * seed)
    domain = whole_number_domain(values)
    data = shuffled_long(values, seed + 100, domain)
    steps = np.abs(np.subtract.outer(domain, domain))
    distance: DistanceLike = steps if weights == "linear" else "interval"
    direct = weighted_kappa(data, distance=distance)
    # kappa_w does not change when every weight is scaled, so the unused labels at the end
    # of the domain (which set the largest distance) give sklearn's value too.
    expected = sklearn_metrics.cohen_kappa_score(
        values[0], values[1], labels=domain, weights=weights
    )
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, general_weighted_kappa(data, distance))


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("distance", [None, "interval", "ordinal", "ratio", "nominal"])
def test_two_coder_kappa_on_long_data_with_missing_values(seed: int, distance: str | None) -> None:
    values = two_coders(seed, items=90, missing=0.25) + 1
    data = shuffled_long(values, seed, whole_number_domain(values))
    assert data.n_annotations < 2 * data.n_items  # the scattered (not alternating) case
    if distance is None:
        same_result(cohen_kappa(data), general_cohen_kappa(data))
    else:
        same_result(weighted_kappa(data, distance=distance), general_weighted_kappa(data, distance))


@pytest.mark.parametrize("seed", range(6))
def test_interval_alpha_on_long_data_matches_krippendorff_and_the_general_path(
    seed: int,
) -> None:
    values = reals(seed, coders=2 + seed % 4, items=50 + 13 * seed, missing=0.3)
    values[1:, :2] = np.nan  # two items with a lone value, left out
    used = np.unique(values[~np.isnan(values)])
    domain = [-1e3, *used.tolist(), 1e4]  # unused values at both ends change nothing
    data = shuffled_long(values, seed, domain if seed % 2 else None)
    assert closed_forms.interval_alpha_from_data(data, "interval") is not None
    direct = krippendorff_alpha(data, distance="interval")
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement="interval")
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, general_alpha(data, "interval"))
    # Items nobody labelled are not in the triples: only the numbers compare.
    array = krippendorff_alpha(values, distance="interval")
    numbers = (array.value, array.observed)
    assert (direct.value, direct.observed) == pytest.approx(numbers, rel=EXACT)


@pytest.mark.parametrize("seed", range(6))
def test_nominal_alpha_on_long_data_matches_krippendorff_and_the_general_path(seed: int) -> None:
    values = categorical(seed, coders=2 + seed % 4, items=60 + 11 * seed, missing=0.3)
    values[1:, :2] = np.nan  # two items with a lone value, left out
    values[:, 2] = np.nan  # an item nobody labelled
    data = shuffled_long(values, seed, whole_number_domain(values) if seed % 2 else None)
    assert closed_forms.nominal_alpha_from_data(data, "nominal") is not None
    direct = krippendorff_alpha(data)
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement="nominal")
    assert direct.value == pytest.approx(expected, abs=PEER)
    same_result(direct, general_alpha(data, "nominal"))


def test_published_nominal_alpha_on_long_data() -> None:
    # docs/references.md#k2011-reliability-data: 0.743 (0.7434210526), D_o 0.200, D_e 0.779.
    data = shuffled_long(K2011, seed=3)
    result = closed_forms.nominal_alpha_from_data(data, "nominal")
    assert result is not None
    assert result.value == pytest.approx(0.7434210526, abs=1e-9)
    assert result.observed == pytest.approx(0.2, abs=1e-12)
    assert result.expected == pytest.approx(0.7794871795, abs=1e-10)
    assert (result.n_items, result.n_pairable_items, result.n_coders) == (12, 11, 4)


def test_nominal_alpha_of_long_data_with_many_values_takes_the_general_path() -> None:
    # 1,000 items, two coders who agree on every third item: 1,666 distinct values, so an
    # items × values table would hold 1,666,000 counts for 2,000 annotations.
    items = np.repeat(np.arange(1000), 2)
    coders = np.tile([0, 1], 1000)
    labels = 2 * items + coders * (items % 3 != 0)
    data = ReliabilityData.from_long(items, coders, labels)
    assert data.n_values == 1666
    assert closed_forms.nominal_alpha_from_data(data, "nominal") is None
    assert closed_forms.nominal_alpha_from_data(data, "interval") is None
    # By hand (the peer would build a 1,000 × 1,666 × 1,666 array): n = 2,000 values;
    # D_o = 666 · 2 / 2,000 (each disagreeing item contributes 2, m_u - 1 = 1); 334 values
    # occur twice and 1,332 once, so D_e = (2,000² - (334 · 4 + 1,332)) / (2,000 · 1,999).
    result = krippendorff_alpha(data)
    assert result.observed == pytest.approx(1332 / 2000, rel=EXACT)
    assert result.expected == pytest.approx(3_997_332 / 3_998_000, rel=EXACT)
    assert result.value == pytest.approx(1 - (1332 / 2000) / (3_997_332 / 3_998_000), abs=EXACT)


def test_long_data_without_a_closed_form_takes_the_general_path() -> None:
    words = ReliabilityData.from_long([1, 1, 2, 2], ["a", "b", "a", "b"], ["x", "y", "x", "x"])
    assert closed_forms.interval_alpha_from_data(words, "interval") is None
    assert closed_forms.interval_alpha_from_data(words, "nominal") is None
    with pytest.raises(ValueError, match="numeric labels"):
        krippendorff_alpha(words, distance="interval")
    three = ReliabilityData.from_long([1, 1, 1], ["a", "b", "c"], [1, 2, 2])
    assert closed_forms.two_coder_kappa_from_data(three, None, "cohen_kappa") is None
    table = ReliabilityData.from_contingency([[3, 1], [1, 3]])
    assert closed_forms.two_coder_kappa_from_data(table, None, "cohen_kappa") is not None
    agreement_table = ReliabilityData.from_agreement_table([[2, 0], [1, 1]])
    assert closed_forms.two_coder_kappa_from_data(agreement_table, None, "x") is None
    lone = ReliabilityData.from_long([1, 2], ["a", "b"], [1.0, 2.0])
    assert closed_forms.interval_alpha_from_data(lone, "interval") is None
    with pytest.raises(ValueError, match="at least one item"):
        krippendorff_alpha(lone, distance="interval")
    same = ReliabilityData.from_long([1, 1], ["a", "b"], [1, 1], domain=[1, 2])
    assert closed_forms.two_coder_kappa_from_data(same, None, "cohen_kappa") is None
    with pytest.raises(ValueError, match="expected agreement"):
        cohen_kappa(same)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(values=small_arrays(), seed=st.integers(0, 100))
def test_long_data_closed_forms_equal_the_general_path(values: np.ndarray, seed: int) -> None:
    values = values.astype(float)
    if np.isnan(values).all():
        return
    data = shuffled_long(values, seed)
    for case, general_case in zip(CASES, GENERAL_CASES, strict=False):
        agree(outcome(case, data), outcome(general_case, data))


def test_domain_as_floats_is_kept_from_a_numeric_array() -> None:
    values = np.array([[2.5, 10.0, np.nan], [-1.0, 2.5, 7.0]])
    kept = ReliabilityData.from_matrix(values).domain_as_floats
    assert kept is not None
    assert kept.tolist() == [-1.0, 2.5, 7.0, 10.0]
    triples = ReliabilityData.from_long([1, 2], ["a", "a"], [3, 1], domain=[1, 2, 3])
    assert triples.domain_as_floats is not None
    assert triples.domain_as_floats.tolist() == [1.0, 2.0, 3.0]
    words = ReliabilityData.from_long([1, 2], ["a", "a"], ["x", "y"])
    assert words.domain_as_floats is None
