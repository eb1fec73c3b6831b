"""Detection F1: a hand-worked case, maximum vs greedy matching, and an independent computation.

The hand cases are docs/references.md#detection-f1-hand-case; the independent computation
below is plain Python: IoU written out box by box and Kuhn's augmenting-path matching per
image and label.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import pytest

from metrics import bootstrap
from metrics.regions.data import RegionData
from metrics.regions.detection_f1 import (
    decompose_detection_f1,
    detection_f1,
    image_detection_f1,
)

# Two images, coders a, b, c; IoU ≥ 0.5.
#   i1  a: A1 (0,0,10,10) cat, A2 (20,0,10,10) cat, A3 (50,0,10,10) dog
#       b: B1 (0,0,10,10) cat, B2 (50,0,10,10) cat (where a saw a dog)
#       c: annotated, drew nothing
#   i2  a: A4 (0,0,10,10) dog;  c: C1 (0,1,10,10) dog (IoU 90/110);  b did not annotate
# (a, b) on i1: 5 regions, A1–B1 match: 2/5. (a, c) on i1 and i2: 3 + 2 regions, A4–C1: 2/5.
# (b, c) on i1: 2 regions, no match: 0. Mean 4/15.
# cat: (a, b) 2·1/4, (a, c) 0 of 2, (b, c) 0 of 2: mean 1/6.
# dog: (a, b) 0 of 1, (a, c) 2·1/3, (b, c) has no dog (left out): mean 1/3.
HAND_ROWS = [
    ("i1", "a", 0, 0, 10, 10, "cat"),
    ("i1", "a", 20, 0, 10, 10, "cat"),
    ("i1", "a", 50, 0, 10, 10, "dog"),
    ("i1", "b", 0, 0, 10, 10, "cat"),
    ("i1", "b", 50, 0, 10, 10, "cat"),
    ("i2", "a", 0, 0, 10, 10, "dog"),
    ("i2", "c", 0, 1, 10, 10, "dog"),
]
HAND_ANNOTATED = [("i1", "c")]


def test_hand_case() -> None:
    result = detection_f1(RegionData.from_boxes(HAND_ROWS, annotated=HAND_ANNOTATED))
    assert result.value == pytest.approx(4 / 15)
    assert result.categories == pytest.approx({"cat": 1 / 6, "dog": 1 / 3})
    pairs = {pair.coders: pair for pair in result.pairs}
    assert pairs["a", "b"].value == pytest.approx(2 / 5)
    assert (pairs["a", "b"].matches, pairs["a", "b"].regions, pairs["a", "b"].images) == (1, 5, 1)
    assert pairs["a", "c"].value == pytest.approx(2 / 5)
    assert pairs["a", "c"].images == 2
    assert pairs["b", "c"].value == 0.0


def test_hand_case_images_and_decomposition() -> None:
    data = RegionData.from_boxes(HAND_ROWS, annotated=HAND_ANNOTATED)
    # i1: matches 1 (a, b) of 5 + 3 + 2 regions: 2/10. i2: 1 match of 2: 1.
    assert image_detection_f1(data).tolist() == pytest.approx([0.2, 1.0])
    assert float(decompose_detection_f1(data).evaluate()) == pytest.approx(4 / 15)


def test_matching_is_maximum_not_greedy() -> None:
    # b1 overlaps a1 (IoU 0.818) and a2 (0.538); b2 only a1 (0.667). Greedy by largest IoU
    # pairs a1–b1 and leaves a2 and b2 apart (F1 1/2); the maximum matching pairs a1–b2 and
    # a2–b1 (F1 1).
    rows = [
        ("i", "a", 0, 0, 10, 10, "x"),
        ("i", "a", 4, 0, 10, 10, "x"),
        ("i", "b", 1, 0, 10, 10, "x"),
        ("i", "b", -2, 0, 10, 10, "x"),
    ]
    assert detection_f1(RegionData.from_boxes(rows)).value == 1.0


def test_threshold_is_inclusive() -> None:
    # IoU exactly 1/2: a 10 × 5 box inside a 10 × 10 box (50 / 100).
    rows = [("i", "a", 0, 0, 10, 10, "x"), ("i", "b", 0, 0, 10, 5, "x")]
    assert detection_f1(RegionData.from_boxes(rows), iou_threshold=0.5).value == 1.0
    assert detection_f1(RegionData.from_boxes(rows), iou_threshold=0.51).value == 0.0


def test_no_regions_anywhere_is_undefined() -> None:
    data = RegionData.from_boxes([], annotated=[("i", "a"), ("i", "b")])
    with pytest.raises(ValueError, match="no coder pair has a region"):
        detection_f1(data)


# -- an independent computation ----------------------------------------------------------------


def plain_iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    ax2, ay2, bx2, by2 = a[0] + a[2], a[1] + a[3], b[0] + b[2], b[1] + b[3]
    width = max(0.0, min(ax2, bx2) - max(a[0], b[0]))
    height = max(0.0, min(ay2, by2) - max(a[1], b[1]))
    inter = width * height
    return 0.0 if inter == 0 else inter / (a[2] * a[3] + b[2] * b[3] - inter)


def kuhn(edges: dict[int, list[int]]) -> int:
    partner: dict[int, int] = {}

    def augment(node: int, seen: set[int]) -> bool:
        for other in edges.get(node, []):
            if other in seen:
                continue
            seen.add(other)
            if other not in partner or augment(partner[other], seen):
                partner[other] = node
                return True
        return False

    return sum(augment(node, set()) for node in edges)


def plain_detection_f1(rows: list[tuple[Any, ...]], annotated: set[tuple[str, str]], t: float):
    coders = sorted({c for _, c in annotated})
    labels = sorted({row[6] for row in rows})
    pair_values, label_values = [], {label: [] for label in labels}
    for a, b in combinations(coders, 2):
        shared = {i for i, c in annotated if c == a and (i, b) in annotated}
        if not shared:
            continue
        total = {label: [0, 0] for label in labels}
        for image in shared:
            for label in labels:
                first = [r[2:6] for r in rows if r[0] == image and r[1] == a and r[6] == label]
                second = [r[2:6] for r in rows if r[0] == image and r[1] == b and r[6] == label]
                edges = {
                    i: [j for j, y in enumerate(second) if plain_iou(x, y) >= t]
                    for i, x in enumerate(first)
                }
                total[label][0] += kuhn(edges)
                total[label][1] += len(first) + len(second)
        matches = sum(m for m, _ in total.values())
        regions = sum(r for _, r in total.values())
        if regions:
            pair_values.append(2 * matches / regions)
        for label, (m, r) in total.items():
            if r:
                label_values[label].append(2 * m / r)
    categories = {label: float(np.mean(v)) for label, v in label_values.items() if v}
    return float(np.mean(pair_values)), categories


def random_rows(seed: int) -> tuple[list[tuple[Any, ...]], set[tuple[str, str]]]:
    rng = np.random.default_rng(seed)
    rows, annotated = [], set()
    for image in range(10):
        objects = np.column_stack([rng.uniform(0, 100, (5, 2)), rng.uniform(5, 30, (5, 2))])
        for coder in ["a", "b", "c", "d"]:
            if rng.random() < 0.2:
                continue
            annotated.add((f"i{image}", coder))
            for box in objects:
                if rng.random() < 0.3:
                    continue
                moved = np.round(box + rng.normal(0, 3, 4), 1)
                moved[2:] = np.abs(moved[2:]) + 1
                label = str(rng.choice(["x", "y", "z"], p=[0.6, 0.3, 0.1]))
                rows.append((f"i{image}", coder, *moved.tolist(), label))
    return rows, annotated


@pytest.mark.parametrize("seed", range(15))
def test_equals_an_independent_computation(seed: int) -> None:
    rows, annotated = random_rows(seed)
    threshold = [0.3, 0.5, 0.7][seed % 3]
    expected, categories = plain_detection_f1(rows, annotated, threshold)
    result = detection_f1(RegionData.from_boxes(rows, annotated=annotated), iou_threshold=threshold)
    assert result.value == pytest.approx(expected, abs=1e-12)
    assert result.categories == pytest.approx(categories, abs=1e-12)


def test_bootstrap_over_images_is_seeded() -> None:
    rows, annotated = random_rows(1)
    decomposition = decompose_detection_f1(RegionData.from_boxes(rows, annotated=annotated))
    first = bootstrap(decomposition, replicates=200, seed=3)
    second = bootstrap(decomposition, replicates=200, seed=3)
    assert (first.low, first.high) == (second.low, second.high)
    assert first.low <= first.estimate <= first.high
