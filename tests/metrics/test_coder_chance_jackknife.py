"""The leave-one-item-out update of the per-coder chance coefficients (multi-kappa, Cohen's and
weighted kappa, Light's kappa) gives, item by item, the coefficient recomputed on the data
without that item, and the values of the jackknife that evaluates ``finalize(total - row)``
on every row; BCa intervals built on it are those of that jackknife."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from metrics import (
    Decomposition,
    ReliabilityData,
    bootstrap,
    conger_kappa,
    decompose_conger_kappa,
    decompose_light_kappa,
    jackknife_values,
    light_kappa,
)
from metrics.coefficients.agreement import cohen_kappa, decompose_cohen_kappa
from metrics.coefficients.weighted import decompose_weighted_kappa, weighted_kappa

DOMAIN = (0.0, 1.0, 2.0)
QUADRATIC = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])


def crowd_matrix(seed: int = 5) -> np.ndarray:
    """30 items × 6 coders, 3 categories, about a third of the cells missing; coders 4 and 5
    share exactly one item (item 7), and coder 3 labels a single item (item 12), so leaving
    those items out empties a pair and a coder."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 3, 30)
    values = np.where(rng.random((6, 30)) < 0.65, truth, rng.integers(0, 3, (6, 30)))
    matrix = values.astype(np.float64)
    matrix[rng.random((6, 30)) < 0.3] = np.nan
    matrix[4, 7] = matrix[5, 7] = 1.0
    matrix[5, np.flatnonzero(~np.isnan(matrix[4]))] = np.nan
    matrix[5, 7] = 1.0
    matrix[3] = np.nan
    matrix[3, 12] = 2.0
    return matrix


def without_item(matrix: np.ndarray, item: int) -> ReliabilityData:
    return ReliabilityData.from_matrix(np.delete(matrix, item, axis=1), domain=DOMAIN)


def recomputed(coefficient: Callable[[ReliabilityData], Any], data: ReliabilityData) -> float:
    """The coefficient's value, nan where the library says it is undefined."""
    try:
        return float(coefficient(data).value)
    except ValueError:
        return float("nan")


def generic(decomposition: Decomposition) -> Decomposition:
    """The same decomposition without its update: the jackknife evaluates
    ``finalize(total - row)`` row by row (the path the update replaces)."""
    return dataclasses.replace(decomposition, leave_one_out=None)


CASES = [
    ("conger", decompose_conger_kappa, conger_kappa, slice(None)),
    ("light", decompose_light_kappa, light_kappa, slice(None)),
    (
        "weighted multi-kappa",
        lambda d: decompose_weighted_kappa(d, distance=QUADRATIC),
        lambda d: weighted_kappa(d, distance=QUADRATIC),
        slice(None),
    ),
    ("cohen", decompose_cohen_kappa, cohen_kappa, slice(0, 2)),
]


@pytest.mark.parametrize(("name", "decompose", "coefficient", "coders"), CASES)
def test_each_leave_one_out_value_is_the_coefficient_recomputed_without_the_item(
    name: str, decompose: Any, coefficient: Any, coders: slice
) -> None:
    matrix = crowd_matrix()[coders]
    decomposition = decompose(ReliabilityData.from_matrix(matrix, domain=DOMAIN))
    assert decomposition.leave_one_out is not None
    values = jackknife_values(decomposition)
    expected = np.array(
        [recomputed(coefficient, without_item(matrix, u)) for u in range(matrix.shape[1])]
    )
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)
    assert np.isfinite(expected).sum() >= 25  # the comparison is about values, not nans


def test_leaving_out_the_only_shared_item_drops_the_pair_from_lights_mean() -> None:
    matrix = crowd_matrix()
    data = ReliabilityData.from_matrix(matrix, domain=DOMAIN)
    full = light_kappa(data)
    assert (4, 5) in full.pairs  # the pair sharing item 7 has a defined kappa
    reduced = light_kappa(without_item(matrix, 7))
    assert (4, 5) not in reduced.pairs
    assert jackknife_values(decompose_light_kappa(data))[7] == pytest.approx(
        reduced.value, abs=1e-12, rel=0
    )
    assert reduced.value == pytest.approx(np.mean(reduced.pair_values), abs=1e-15, rel=0)


@pytest.mark.parametrize(("name", "decompose", "coefficient", "coders"), CASES)
def test_the_update_equals_the_row_by_row_jackknife(
    name: str, decompose: Any, coefficient: Any, coders: slice
) -> None:
    for seed in range(20):
        matrix = crowd_matrix(seed)[coders]
        decomposition = decompose(ReliabilityData.from_matrix(matrix, domain=DOMAIN))
        fast = jackknife_values(decomposition)
        slow = jackknife_values(generic(decomposition))
        assert np.array_equal(np.isnan(fast), np.isnan(slow)), seed
        np.testing.assert_allclose(fast, slow, rtol=0, atol=1e-12)


def test_light_with_undefined_pairs_and_coders_left_without_values() -> None:
    # Coders 0 and 1 use one category only (their kappa is undefined: expected agreement 1),
    # coder 2 labels one item only, and every item has two or three coders.
    matrix = np.array(
        [
            [0, 0, 0, 0, np.nan, np.nan, 0, 0],
            [0, 0, np.nan, 0, 0, 0, np.nan, 0],
            [np.nan, 1, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan],
            [1, np.nan, 0, 2, 1, 0, 2, np.nan],
        ]
    )
    data = ReliabilityData.from_matrix(matrix, domain=DOMAIN)
    values = jackknife_values(decompose_light_kappa(data))
    expected = [recomputed(light_kappa, without_item(matrix, u)) for u in range(8)]
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(
        values, jackknife_values(generic(decompose_light_kappa(data))), rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("decompose", [decompose_conger_kappa, decompose_light_kappa])
def test_slices_and_spread_rows_give_the_same_values(decompose: Any) -> None:
    decomposition = decompose(ReliabilityData.from_matrix(crowd_matrix(), domain=DOMAIN))
    whole = jackknife_values(decomposition)
    parts = [jackknife_values(decomposition, start=a, stop=b) for a, b in [(0, 11), (11, 30)]]
    assert np.array_equal(np.concatenate(parts), whole, equal_nan=True)
    # Zero rows (items the coefficient leaves out) leave the full-data value.
    kept = np.ones(33, dtype=bool)
    kept[[0, 15, 32]] = False
    spread = decomposition.on_items(kept)
    assert spread.leave_one_out is decomposition.leave_one_out
    values = jackknife_values(spread)
    assert np.array_equal(values[kept], whole, equal_nan=True)
    np.testing.assert_allclose(
        values[~kept], [float(decomposition.evaluate())] * 3, rtol=0, atol=1e-12
    )


@pytest.mark.parametrize("decompose", [decompose_conger_kappa, decompose_light_kappa])
def test_the_update_never_evaluates_finalize_row_by_row(decompose: Any) -> None:
    decomposition = decompose(ReliabilityData.from_matrix(crowd_matrix(), domain=DOMAIN))

    def refuse(totals: np.ndarray) -> np.ndarray:
        raise AssertionError("finalize called on the jackknife path")

    values = jackknife_values(dataclasses.replace(decomposition, finalize=refuse))
    assert np.array_equal(values, jackknife_values(decomposition), equal_nan=True)


@pytest.mark.parametrize("decompose", [decompose_conger_kappa, decompose_light_kappa])
def test_bca_interval_equals_the_row_by_row_jackknifes(decompose: Any) -> None:
    decomposition = decompose(ReliabilityData.from_matrix(crowd_matrix(), domain=DOMAIN))
    fast = bootstrap(decomposition, replicates=500, seed=3, method="bca")
    slow = bootstrap(generic(decomposition), replicates=500, seed=3, method="bca")
    assert fast.method == slow.method == "bca"
    assert fast.fallback is None
    for field in ("estimate", "low", "high", "se"):
        assert getattr(fast, field) == pytest.approx(getattr(slow, field), abs=1e-12, rel=0)
    assert fast.quantiles == slow.quantiles  # the replicates themselves are untouched
    # The acceleration matters here: the BCa bounds are not the percentile ones.
    percentile = bootstrap(decomposition, replicates=500, seed=3, method="percentile")
    assert (fast.low, fast.high) != (percentile.low, percentile.high)
