"""Scalar distances and the distance registry."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.distances import (
    CallableDistance,
    IntervalDistance,
    MatrixDistance,
    NominalDistance,
    OrdinalDistance,
    RatioDistance,
    distance_names,
    get_distance,
)
from metrics.distances.base import Distance


def test_nominal_is_zero_on_the_diagonal_and_one_elsewhere() -> None:
    assert NominalDistance().matrix(["a", "b", "c"]).tolist() == [
        [0, 1, 1],
        [1, 0, 1],
        [1, 1, 0],
    ]


def test_interval_is_the_squared_difference() -> None:
    # NLTK interval_distance(1, 10) == 81 (nltk/metrics/distance.py doctest).
    assert IntervalDistance().matrix([1, 10])[0, 1] == 81.0


def test_ratio_distance_and_zero() -> None:
    matrix = RatioDistance().matrix([0, 1, 3])
    assert matrix[1, 2] == pytest.approx(0.25)
    assert matrix[0, 1] == 1.0
    assert matrix[0, 0] == 0.0


def test_ratio_refuses_negative_labels() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        RatioDistance().matrix([-1, 2])


def test_ordinal_matches_krippendorff_1980_table() -> None:
    # DKPro testOrdinalMetric (Krippendorff 1980): n = 2, 2, 4, 8, 2, 2 for 1, 2, 3, 4, 5, 10;
    # the table gives the unsquared differences.
    counts = np.array([2, 2, 4, 8, 2, 2], dtype=float)
    expected = np.array(
        [
            [0, 2, 5, 11, 16, 18],
            [2, 0, 3, 9, 14, 16],
            [5, 3, 0, 6, 11, 13],
            [11, 9, 6, 0, 5, 7],
            [16, 14, 11, 5, 0, 2],
            [18, 16, 13, 7, 2, 0],
        ]
    )
    assert np.array_equal(OrdinalDistance().matrix([1, 2, 3, 4, 5, 10], counts), expected**2)


def test_ordinal_follows_the_definition_with_sums() -> None:
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 9, size=7).astype(float)
    matrix = OrdinalDistance().matrix(list(range(7)), counts)
    for c in range(7):
        for k in range(7):
            low, high = min(c, k), max(c, k)
            direct = (counts[low : high + 1].sum() - (counts[c] + counts[k]) / 2) ** 2
            assert matrix[c, k] == pytest.approx(direct)


def test_ordinal_is_vectorised_over_leading_axes() -> None:
    counts = np.array([[1, 2, 3.0], [3, 2, 1.0]])
    stacked = OrdinalDistance().matrix("abc", counts)
    assert stacked.shape == (2, 3, 3)
    assert np.array_equal(stacked[1], OrdinalDistance().matrix("abc", counts[1]))


def test_ordinal_needs_counts() -> None:
    with pytest.raises(ValueError, match="pass counts"):
        OrdinalDistance().matrix([1, 2])


def test_matrix_distance_aligns_by_labels_and_validates() -> None:
    distance = MatrixDistance([[0, 1, 2], [1, 0, 3], [2, 3, 0]], labels=["x", "y", "z"])
    assert distance.matrix(["z", "x"]).tolist() == [[0, 2], [2, 0]]
    with pytest.raises(ValueError, match="no row"):
        distance.matrix(["w"])
    with pytest.raises(ValueError, match="diagonal"):
        MatrixDistance([[1, 0], [0, 0]])
    with pytest.raises(ValueError, match="square"):
        MatrixDistance([[0, 1]])


def test_callable_is_called_once_per_pair_of_domain_values() -> None:
    calls: list[tuple[int, int]] = []

    def absolute(a: int, b: int) -> float:
        calls.append((a, b))
        return abs(a - b)

    matrix = CallableDistance(absolute).matrix([1, 2, 5])
    assert len(calls) == 9
    assert matrix[0, 2] == 4.0


def test_every_scalar_distance_is_a_distance() -> None:
    for name in ("nominal", "ordinal", "interval", "ratio"):
        assert isinstance(get_distance(name), Distance)
    assert isinstance(MatrixDistance([[0.0]]), Distance)


def test_registry_lists_scalar_names_first_and_rejects_unknown_names() -> None:
    assert distance_names()[:4] == ["nominal", "ordinal", "interval", "ratio"]
    with pytest.raises(ValueError, match="Unknown distance 'cosine'; known distances: nominal"):
        get_distance("cosine")
    with pytest.raises(ValueError, match="takes no options"):
        get_distance("nominal", scale=2)


def test_registry_finds_set_distances_when_present() -> None:
    masi = get_distance("masi")
    # Passonneau (2006) MASI distance {a} vs {a, b}: 1 - J·M = 1 - (1/2)(2/3) = 2/3.
    domain = [frozenset("a"), frozenset("ab")]
    assert masi.matrix(domain)[0, 1] == pytest.approx(2 / 3)
