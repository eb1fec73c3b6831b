"""Box IoU, GIoU, corner L2, rotated boxes, polygon IoU and keypoints.

Hand-worked cases are in docs/references.md#region-geometry-hand-cases; the polygon areas,
intersections and IoUs are compared with shapely on random polygons
(docs/references.md#shapely-polygon-iou), and GIoU with its definition evaluated by shapely
(docs/references.md#giou-definition).
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from metrics.regions.boxes import box_corners, box_giou, box_iou, corner_l2
from metrics.regions.data import RegionData
from metrics.regions.keypoints import keypoint_distance, keypoint_similarity
from metrics.regions.pairwise import pair_corner_l2, pair_giou, pair_similarity
from metrics.regions.polygons import (
    check_simple_polygon,
    polygon_area,
    polygon_intersection_area,
    polygon_iou,
)

shapely_geometry = importlib.import_module("shapely.geometry")
Polygon = shapely_geometry.Polygon
box = shapely_geometry.box


# -- hand-worked cases -----------------------------------------------------------------------


def test_box_iou_of_squares_overlapping_in_a_strip_is_one_third() -> None:
    # 2 × 2 squares at x = 0 and x = 1: intersection 1 × 2 = 2, union 4 + 4 − 2 = 6.
    assert float(box_iou([0, 0, 2, 2], [1, 0, 2, 2])) == pytest.approx(1 / 3)


def test_box_iou_is_zero_for_boxes_that_only_touch() -> None:
    assert float(box_iou([0, 0, 1, 1], [1, 0, 1, 1])) == 0.0


def test_box_iou_broadcasts_to_a_matrix() -> None:
    a = np.array([[0, 0, 2, 2], [10, 10, 1, 1]], dtype=float)
    b = np.array([[0, 0, 2, 2], [1, 1, 2, 2], [50, 50, 3, 3]], dtype=float)
    matrix = box_iou(a[:, None], b[None, :])
    # (0,0,2,2) vs (1,1,2,2): intersection 1, union 7.
    assert matrix.ravel().tolist() == pytest.approx([1.0, 1 / 7, 0.0, 0.0, 0.0, 0.0])


def test_giou_of_disjoint_unit_squares_a_unit_apart_is_minus_one_third() -> None:
    # C is 3 × 1 = 3, the union 2: GIoU = 0 − (3 − 2) / 3.
    assert float(box_giou([0, 0, 1, 1], [2, 0, 1, 1])) == pytest.approx(-1 / 3)


def test_giou_equals_iou_when_one_box_contains_the_other() -> None:
    # A 4 × 4 box holding a 2 × 2 box: IoU 4 / 16, C is the big box, so no penalty.
    assert float(box_giou([0, 0, 4, 4], [1, 1, 2, 2])) == pytest.approx(0.25)
    assert float(box_iou([0, 0, 4, 4], [1, 1, 2, 2])) == pytest.approx(0.25)


def test_giou_of_diagonal_neighbours() -> None:
    # Unit squares at (0, 0) and (1, 1): IoU 0, C 2 × 2 = 4, union 2: GIoU = −(4 − 2) / 4.
    assert float(box_giou([0, 0, 1, 1], [1, 1, 1, 1])) == pytest.approx(-0.5)


def test_corner_l2_of_a_box_moved_five_pixels_in_a_30_by_40_image() -> None:
    # Both corners move by 5: ‖(5, 0, 5, 0)‖ = 5√2, over √2 × 50.
    assert float(corner_l2([0, 0, 10, 10], [5, 0, 10, 10], 50.0)) == pytest.approx(0.1)


def test_rotated_box_turns_clockwise_on_screen_about_its_top_left_corner() -> None:
    # 90° clockwise with y down: the top edge (pointing right) now points down.
    corners = box_corners([10, 20, 4, 2, 90])
    assert corners.round(9).tolist() == [[10, 20], [10, 24], [8, 24], [8, 20]]


def test_polygon_hand_cases() -> None:
    ell = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    square = [(1, 0), (2, 0), (2, 1), (1, 1)]
    # The L-shape (area 3) holds the unit square at (1, 0): intersection 1, IoU 1 / 3.
    assert polygon_area(ell) == 3.0
    assert polygon_intersection_area(ell, square) == pytest.approx(1.0)
    assert polygon_iou(ell, square) == pytest.approx(1 / 3)
    # The unit square at (1, 1) sits in the L's notch: they share only edges.
    assert polygon_iou(ell, [(1, 1), (2, 1), (2, 2), (1, 2)]) == 0.0
    # A triangle halving the unit square: IoU 1/2 (orientation does not matter).
    assert polygon_iou([(0, 0), (1, 0), (1, 1), (0, 1)], [(0, 1), (1, 1), (0, 0)]) == 0.5


def test_check_simple_polygon_names_crossing_edges() -> None:
    assert check_simple_polygon([(0, 0), (2, 2), (2, 0), (0, 2)]) == "edges 1 and 3 cross"
    assert check_simple_polygon([(0, 0), (1, 0), (2, 0)]) == "edges 1 and 3 overlap"
    assert check_simple_polygon([(0, 0), (1, 0)]) is not None
    assert check_simple_polygon([(0, 0), (4, 0), (4, 4), (2, 1), (0, 4)]) is None


def test_keypoint_distance_and_oks_hand_cases() -> None:
    # 3-4-5 triangle in a 30 × 40 image (diagonal 50).
    assert float(keypoint_distance([10, 10], [13, 14], 50.0)) == pytest.approx(0.1)
    # OKS: exp(−d² / (2 s² κ²)) with d² = 25, s² = 100, κ = 0.5: exp(−0.5).
    similarity = keypoint_similarity([0, 0], [3, 4], scale=100.0, kappa=0.5)
    assert float(similarity) == pytest.approx(np.exp(-0.5))


def test_keypoint_similarity_matches_the_pycocotools_formula() -> None:
    # pycocotools COCOeval.computeOks: e = (dx² + dy²) / vars / (area + eps) / 2, vars = (2σ)².
    sigma, area, dx, dy = 0.026, 850.0, 2.0, -3.0
    coco = np.exp(-((dx**2 + dy**2) / (2 * sigma) ** 2 / (area + np.spacing(1)) / 2))
    ours = keypoint_similarity([0, 0], [dx, dy], scale=area, kappa=2 * sigma)
    assert float(ours) == pytest.approx(coco, rel=1e-12)


# -- against shapely ---------------------------------------------------------------------------


def random_polygon(rng: np.random.Generator, *, convex: bool = False) -> np.ndarray:
    """A star-shaped (so simple) polygon: angles spread around a centre, random radii."""
    n = int(rng.integers(3, 18))
    angles = (np.arange(n) + rng.uniform(0, 0.9, n)) * 2 * np.pi / n
    radii = np.full(n, 2.0) if convex else rng.uniform(0.3, 4.0, n)
    centre = rng.uniform(0, 5, 2)
    return np.column_stack([centre[0] + radii * np.cos(angles), centre[1] + radii * np.sin(angles)])


@pytest.mark.parametrize("convex", [False, True])
def test_polygon_area_intersection_and_iou_equal_shapely(convex: bool) -> None:
    rng = np.random.default_rng(20 + convex)
    for _ in range(300):
        a, b = random_polygon(rng, convex=convex), random_polygon(rng, convex=convex)
        shape_a, shape_b = Polygon(a), Polygon(b)
        assert shape_a.is_valid
        assert shape_b.is_valid
        assert check_simple_polygon(a) is None
        intersection = shape_a.intersection(shape_b).area
        assert polygon_area(a) == pytest.approx(shape_a.area, rel=1e-12)
        assert polygon_intersection_area(a, b) == pytest.approx(intersection, abs=1e-9)
        expected = intersection / shape_a.union(shape_b).area
        assert polygon_iou(a, b) == pytest.approx(expected, abs=1e-12)


def test_rotated_box_iou_equals_shapely() -> None:
    rng = np.random.default_rng(5)
    rows = []
    for k in range(60):
        x, y = rng.uniform(0, 20, 2)
        width, height = rng.uniform(1, 10, 2)
        rows.append(("img", f"c{k % 2}", x, y, width, height, "a", float(rng.uniform(-90, 90))))
    data = RegionData.from_boxes(rows)
    left, right = np.triu_indices(data.n_regions, k=1)
    ours = pair_similarity(data, left, right)
    shapes = [Polygon(data.outline(r)) for r in range(data.n_regions)]
    expected = [
        shapes[i].intersection(shapes[j]).area / shapes[i].union(shapes[j]).area
        for i, j in zip(left.tolist(), right.tolist(), strict=True)
    ]
    assert ours == pytest.approx(expected, abs=1e-12)


def test_giou_equals_its_definition_evaluated_by_shapely() -> None:
    rng = np.random.default_rng(8)
    a = np.column_stack([rng.uniform(0, 20, (200, 2)), rng.uniform(0.5, 8, (200, 2))])
    b = np.column_stack([rng.uniform(0, 20, (200, 2)), rng.uniform(0.5, 8, (200, 2))])
    ours = box_giou(a, b)
    for k in range(200):
        first = box(a[k, 0], a[k, 1], a[k, 0] + a[k, 2], a[k, 1] + a[k, 3])
        second = box(b[k, 0], b[k, 1], b[k, 0] + b[k, 2], b[k, 1] + b[k, 3])
        union = first.union(second)
        enclosing = union.envelope
        expected = first.intersection(second).area / union.area
        expected -= (enclosing.area - union.area) / enclosing.area
        assert ours[k] == pytest.approx(expected, abs=1e-12)


def test_polygon_region_giou_and_corner_l2_use_bounding_boxes() -> None:
    triangle = [(0, 0), (4, 0), (0, 4)]
    shifted = [(4, 0), (8, 0), (4, 4)]
    data = RegionData.from_polygons(
        [("img", "a", triangle, "x"), ("img", "b", shifted, "x")], sizes={"img": (30, 40)}
    )
    # Touching triangles: IoU 0; C is 8 × 4 = 32, union 16: GIoU = −16 / 32.
    assert pair_similarity(data, [0], [1]).tolist() == [0.0]
    assert pair_giou(data, [0], [1]).tolist() == pytest.approx([-0.5])
    # Bounding boxes (0, 0, 4, 4) and (4, 0, 8, 4): ‖(4, 0, 4, 0)‖ = 4√2 over √2 × 50.
    assert pair_corner_l2(data, [0], [1]).tolist() == pytest.approx([0.08])
