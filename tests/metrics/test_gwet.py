"""Gwet's AC1/AC2 and Brennan-Prediger against published and peer-library values."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.coefficients.agreement import bennett_s
from metrics.coefficients.gwet import (
    brennan_prediger,
    decompose_brennan_prediger,
    decompose_gwet_ac1,
    gwet_ac1,
)
from metrics.data import ReliabilityData

from .test_agreement import IRRCAC_RAW, RAW_4RATERS, items, pairs


def quadratic(size: int) -> np.ndarray:
    """Squared-difference distance over categories 1..size (irrCAC "quadratic" weights)."""
    values = np.arange(size, dtype=float)
    return np.subtract.outer(values, values) ** 2


def linear(size: int) -> np.ndarray:
    values = np.arange(size, dtype=float)
    return np.abs(np.subtract.outer(values, values))


# irrCAC raw test "custom" agreement weights (docs/references.md#irrcac-raw-4raters); asymmetric and
# non-monotone.
CUSTOM_WEIGHTS = np.array(
    [
        [1, 0.75, 0.5, 0.25, 0],
        [0, 1, 0.75, 0.5, 0.25],
        [0.25, 0, 1, 0.75, 0.5],
        [0.5, 0.25, 0, 1, 0.75],
        [0.75, 0.5, 0.25, 0, 1],
    ]
)


def test_gwet_2008_hand_example() -> None:
    # DKPro Gwet2008Test (docs/references.md#gwet2008-hand-example), tol 1e-4: Ao 0.9, Ae 0.255, AC1
    # 0.8658.
    result = gwet_ac1(pairs([(8, "y", "y"), (1, "n", "n"), (1, "y", "n")]))
    assert result.observed == pytest.approx(0.9)
    assert result.expected == pytest.approx(0.255, abs=1e-4)
    assert result.value == pytest.approx(0.8658, abs=1e-4)
    assert result.name == "gwet_ac1"


def test_gwet_2008_missing_data_variant() -> None:
    # docs/references.md#gwet2008-hand-example: adding single-rated items keeps Ao at 0.9, and AC2
    # with nominal weights == AC1.
    full = [["y", "y"]] * 8 + [["n", "n"], ["y", "n"]]
    data = items([*full, ["y", None], ["y", None], ["n", None]])
    ac1 = gwet_ac1(data)
    ac2 = gwet_ac1(data, distance=1 - np.eye(2))
    assert ac1.observed == pytest.approx(0.9)
    assert ac2.value == pytest.approx(ac1.value)
    assert ac2.name == "gwet_ac2"


def test_single_category_study_raises() -> None:
    # docs/references.md#gwet2008-hand-example: a single-category study (10 × (y, y)) must raise for
    # AC1 and AC2.
    data = pairs([(10, "y", "y")])
    with pytest.raises(ValueError, match="at least two categories"):
        gwet_ac1(data)
    with pytest.raises(ValueError, match="at least two categories"):
        brennan_prediger(data)


@pytest.mark.parametrize(
    ("table", "ac1", "ac2"),
    [
        # DKPro gwet fixtures generated with R irrCAC 1.4 (docs/references.md#gwet-r-fixtures):
        # (pa, pe, coefficient);
        # pa/pe tol 1e-9, coefficient tol 1e-5; AC2 with quadratic weights.
        ([[80, 7], [8, 5]], (0.85, 0.21875, 0.808), (0.85, 0.21875, 0.808)),
        (
            [[25, 12, 3], [13, 2, 15], [12, 16, 2]],
            (0.29, 0.3225, -0.04797),
            (0.71, 0.645, 0.1831),
        ),
        (
            [[88, 14, 18], [10, 40, 10], [2, 6, 12]],
            (0.7, 0.2925, 0.57597),
            (0.85, 0.585, 0.63855),
        ),
        (
            [[20, 5, 1, 0], [4, 15, 6, 1], [0, 5, 18, 4], [0, 1, 3, 12]],
            (0.684210526315789, 0.247294552169898, 0.58046),
            (0.95438596491228, 0.714406484046373, 0.84028),
        ),
        (
            [
                [15, 4, 1, 0, 0],
                [3, 12, 4, 1, 0],
                [1, 3, 14, 3, 1],
                [0, 1, 3, 10, 2],
                [0, 0, 1, 2, 8],
            ],
            (0.662921348314607, 0.197497159449564, 0.57997),
            (0.966292134831461, 0.740614347935867, 0.87005),
        ),
    ],
)
def test_r_irrcac_fixtures(
    table: list[list[int]], ac1: tuple[float, float, float], ac2: tuple[float, float, float]
) -> None:
    data = ReliabilityData.from_contingency(table)
    for result, (pa, pe, value) in (
        (gwet_ac1(data), ac1),
        (gwet_ac1(data, distance=quadratic(len(table))), ac2),
    ):
        assert result.observed == pytest.approx(pa, abs=1e-9)
        assert result.expected == pytest.approx(pe, abs=1e-9)
        assert result.value == pytest.approx(value, abs=1e-5)


def test_cohen_1960_example_1_ac1() -> None:
    # DKPro Gwet2008Test / Cohen1960Test (docs/references.md#cohen1960-examples): AC1 −0.0480 (tol
    # 1e-4).
    table = [[25, 12, 3], [13, 2, 15], [12, 16, 2]]
    assert gwet_ac1(ReliabilityData.from_contingency(table)).value == pytest.approx(
        -0.0480, abs=1e-4
    )


class TestIrrcacRaw4Raters:
    """irrCAC raw tests on Krippendorff (2004) p. 230 data, digits = 3.

    docs/references.md#irrcac-raw-4raters
    """

    data = items(RAW_4RATERS)

    def test_ac1(self) -> None:
        result = gwet_ac1(self.data)
        assert result.value == pytest.approx(0.7754440681, abs=1e-9)
        assert result.observed == pytest.approx(0.8181818, abs=1e-7)
        assert result.expected == pytest.approx(0.1903212, abs=1e-7)

    def test_brennan_prediger(self) -> None:
        result = brennan_prediger(self.data)
        assert (round(result.observed, 3), round(result.expected, 3)) == (0.818, 0.2)
        assert round(result.value, 3) == 0.773
        assert bennett_s(self.data).value == pytest.approx(result.value)

    @pytest.mark.parametrize(
        ("distance", "gwet", "bp"),
        [
            (quadratic(5), (0.975, 0.714, 0.914), (0.975, 0.750, 0.902)),
            (linear(5), (0.939, 0.571, 0.859), (0.939, 0.600, 0.848)),
            (1 - CUSTOM_WEIGHTS, (0.886, 0.476, 0.783), (0.886, 0.500, 0.773)),
        ],
    )
    def test_weighted(
        self,
        distance: np.ndarray,
        gwet: tuple[float, float, float],
        bp: tuple[float, float, float],
    ) -> None:
        for result, expected in (
            (gwet_ac1(self.data, distance=distance), gwet),
            (brennan_prediger(self.data, distance=distance), bp),
        ):
            rounded = (round(result.observed, 3), round(result.expected, 3), round(result.value, 3))
            assert rounded == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize(
    ("name", "ac1", "bp"),
    [
        # irrCAC raw tests (docs/references.md#irrcac-raw-datasets), digits 3; AC1 recomputed
        # 0.49662 / 0.68460 / 0.20808 / 0.66144.
        ("raw_5observers", 0.49662, 0.487),
        ("raw_g1g2", 0.68460, 0.679),
        ("raw_gender", 0.20808, 0.183),
        ("raw_ben_gerry", 0.66144, 0.659),
    ],
)
def test_irrcac_raw_datasets(name: str, ac1: float, bp: float) -> None:
    data = items(IRRCAC_RAW[name])
    assert gwet_ac1(data).value == pytest.approx(ac1, abs=5e-6)
    assert round(brennan_prediger(data).value, 3) == bp


def test_agreement_tables_are_accepted() -> None:
    data = ReliabilityData.from_agreement_table([[2, 0], [1, 1], [0, 2], [2, 0]])
    assert gwet_ac1(data).observed == pytest.approx(0.75)
    assert brennan_prediger(data).value == pytest.approx(0.5)


@pytest.mark.parametrize("distance", [None, "quadratic"])
def test_public_values_equal_decompositions(distance: str | None) -> None:
    data = items(RAW_4RATERS)
    matrix = None if distance is None else quadratic(5)
    for public, decompose in (
        (gwet_ac1, decompose_gwet_ac1),
        (brennan_prediger, decompose_brennan_prediger),
    ):
        decomposition = decompose(data, distance=matrix)
        assert public(data, distance=matrix).value == float(decomposition.evaluate())
