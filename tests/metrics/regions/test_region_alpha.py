"""Alpha with a region-set distance: a hand-worked case, the krippendorff package on the same
set distances computed independently (brute force over assignments), and the sampled
expected disagreement against the exact one.

docs/references.md#region-alpha-hand-case and #region-alpha-krippendorff-package.
"""

from __future__ import annotations

import importlib
from itertools import permutations
from typing import Any

import numpy as np
import pytest

from metrics.regions.data import RegionData
from metrics.regions.region_alpha import (
    decompose_region_alpha,
    image_disagreement,
    region_alpha,
)

region_alpha_module = importlib.import_module("metrics.regions.region_alpha")

HAND_ROWS = [
    ("i1", "a", 0, 0, 10, 10, "cat"),
    ("i1", "b", 0, 0, 10, 5, "cat"),
    ("i2", "a", 0, 0, 10, 10, "cat"),
]


def test_hand_case() -> None:
    # Values: v1 = i1/a, v2 = i1/b (IoU 1/2 with v1), v3 = i2/a (= v1), v4 = i2/b (empty).
    # d(v1,v2) = 1/2, d(v1,v3) = 0, d(v1,v4) = 1, d(v2,v3) = 1/2, d(v2,v4) = 1, d(v3,v4) = 1.
    # D_o = (2 · 1/2 + 2 · 1) / 4 = 3/4; D_e = 2 · 4 / (4 · 3) = 2/3; alpha = −1/8.
    data = RegionData.from_boxes(HAND_ROWS, annotated=[("i2", "b")])
    result = region_alpha(data, distance="iou")
    assert (result.observed, result.expected, result.value) == pytest.approx((0.75, 2 / 3, -0.125))
    assert result.n_values == 4
    assert result.expected_sampled is False
    assert image_disagreement(data).tolist() == pytest.approx([0.5, 1.0])


def test_hand_case_giou_and_corner_l2() -> None:
    # i1: the 10 × 5 box lies in the 10 × 10 one: GIoU = IoU = 1/2, distance (1 − 1/2) / 2.
    # Corner L2: corners (0,0,10,10) vs (0,0,10,5): ‖(0,0,0,5)‖ = 5 over √2 × the diagonal of
    # i1's extent (10 × 10, √200 = 10√2): 5 / 20 = 1/4.
    data = RegionData.from_boxes(HAND_ROWS, annotated=[("i2", "b")])
    assert image_disagreement(data, distance="giou").tolist() == pytest.approx([0.25, 1.0])
    assert image_disagreement(data, distance="corner_l2").tolist() == pytest.approx([0.25, 1.0])


def test_labels_must_agree_and_unmatched_regions_cost_one() -> None:
    # a: two cats; b: the same two boxes, one labelled dog, plus a third box.
    # Matching: cat–cat 0, the relabelled box 1 (different label), the extra box 1: 2 / 3.
    rows = [
        ("i", "a", 0, 0, 10, 10, "cat"),
        ("i", "a", 20, 0, 10, 10, "cat"),
        ("i", "b", 0, 0, 10, 10, "cat"),
        ("i", "b", 20, 0, 10, 10, "dog"),
        ("i", "b", 50, 0, 10, 10, "cat"),
    ]
    assert image_disagreement(RegionData.from_boxes(rows)).tolist() == pytest.approx([2 / 3])


# -- the krippendorff package on independently computed set distances --------------------------


def plain_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    width = max(0.0, min(a[0] + a[2], b[0] + b[2]) - max(a[0], b[0]))
    height = max(0.0, min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1]))
    inter = width * height
    return 0.0 if inter == 0 else inter / (a[2] * a[3] + b[2] * b[3] - inter)


def brute_force_set_distance(first: list[tuple[Any, ...]], second: list[tuple[Any, ...]]) -> float:
    """min over every injective assignment of the smaller set into the larger one."""
    if not first and not second:
        return 0.0
    small, large = sorted([first, second], key=len)
    best = float("inf")
    for chosen in permutations(range(len(large)), len(small)):
        cost = sum(
            1.0 if s[4] != large[j][4] else 1.0 - plain_iou(s[:4], large[j][:4])
            for s, j in zip(small, chosen, strict=True)
        )
        best = min(best, cost)
    return (best + len(large) - len(small)) / len(large)


def random_rows(seed: int, images: int = 8) -> tuple[list[tuple[Any, ...]], list[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    rows, annotated = [], []
    for image in range(images):
        objects = np.column_stack([rng.uniform(0, 80, (3, 2)), rng.uniform(5, 30, (3, 2))])
        for coder in ["a", "b", "c"]:
            if rng.random() < 0.15:
                continue
            annotated.append((f"i{image}", coder))
            for box in objects:
                if rng.random() < 0.3:
                    continue
                moved = np.round(box + rng.normal(0, 4, 4), 1)
                moved[2:] = np.abs(moved[2:]) + 1
                rows.append(
                    (f"i{image}", coder, *moved.tolist(), str(rng.choice(["x", "y"], p=[0.8, 0.2])))
                )
    return rows, annotated


@pytest.mark.parametrize("seed", range(6))
def test_equals_the_krippendorff_package_on_brute_force_set_distances(seed: int) -> None:
    krippendorff = importlib.import_module("krippendorff")
    rows, annotated = random_rows(seed)
    coders = sorted({c for _, c in annotated})
    images = sorted({i for i, _ in annotated})
    pairable = [i for i in images if sum(1 for j, _ in annotated if j == i) >= 2]
    values = [(i, c) for i in pairable for c in coders if (i, c) in annotated]
    sets = [[r[2:7] for r in rows if (r[0], r[1]) == value] for value in values]
    matrix = np.array([[brute_force_set_distance(a, b) for b in sets] for a in sets])
    table = np.full((len(coders), len(pairable)), np.nan)
    for k, (image, coder) in enumerate(values):
        table[coders.index(coder), pairable.index(image)] = k

    def metric(v1: np.ndarray, v2: np.ndarray, **_: Any) -> np.ndarray:
        return matrix[v1.astype(int), v2.astype(int)]

    expected = krippendorff.alpha(reliability_data=table, level_of_measurement=metric)
    result = region_alpha(RegionData.from_boxes(rows, annotated=annotated), distance="iou")
    assert result.value == pytest.approx(expected, abs=1e-12)


def test_sampled_expected_disagreement_is_close_to_the_exact_one(monkeypatch: Any) -> None:
    rows, annotated = random_rows(11, images=130)
    data = RegionData.from_boxes(rows, annotated=annotated)
    exact = region_alpha(data)
    assert exact.n_values > 300
    assert exact.expected_sampled is True
    assert region_alpha(data, seed=0).value == exact.value  # seeded: the same draw
    monkeypatch.setattr(region_alpha_module, "EXACT_VALUES", 10_000)
    full = region_alpha(data)
    assert full.expected_sampled is False
    assert exact.observed == pytest.approx(full.observed, abs=1e-12)
    assert exact.expected == pytest.approx(full.expected, rel=0.01)
    assert exact.value == pytest.approx(full.value, abs=0.02)


@pytest.mark.parametrize("distance", ["iou", "giou", "corner_l2"])
def test_decomposition_evaluates_to_the_value(distance: str) -> None:
    rows, annotated = random_rows(2)
    data = RegionData.from_boxes(rows, annotated=annotated)
    decomposition = decompose_region_alpha(data, distance=distance)
    assert decomposition.n_items == data.n_images
    assert float(decomposition.evaluate()) == pytest.approx(
        region_alpha(data, distance=distance).value, abs=1e-12
    )


def test_unknown_distance_is_refused() -> None:
    data = RegionData.from_boxes(HAND_ROWS, annotated=[("i2", "b")])
    with pytest.raises(ValueError, match="distance must be one of"):
        region_alpha(data, distance="hausdorff")
