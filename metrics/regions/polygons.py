"""Exact area, intersection and IoU of simple polygons (convex or not), in numpy.

The intersection area is computed by vertical *slabs*. Cut the plane at the ``x`` of every
vertex of both polygons and of every point where an edge of one crosses an edge of the other.
Between two consecutive cuts no edge begins, ends or crosses another, so the edges that span
the slab keep their vertical order across it, and the part of the slab inside a polygon is a
union of trapezoids between consecutive edges (even–odd rule: a point is inside when an odd
number of the polygon's edges lie below it). The part inside *both* polygons is therefore
piecewise linear in ``x`` within the slab, and its length at the slab's midpoint times the
slab's width is its exact area. One ``edges × slabs`` array, sorted along the edges, gives
every slab at once; nothing is rasterised or approximated.

Polygons must be simple: at least three distinct vertices, edges meeting only at shared
consecutive vertices (:func:`check_simple_polygon` says which edges cross). Their orientation
does not matter; a closing vertex equal to the first is dropped.

The tests compare the areas and IoUs with shapely (a test extra) on random polygons, convex and
not (docs/references.md#shapely-polygon-iou).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

__all__ = [
    "as_polygon",
    "check_simple_polygon",
    "polygon_area",
    "polygon_intersection_area",
    "polygon_iou",
]

Polygon = NDArray[np.float64]


def as_polygon(points: npt.ArrayLike) -> Polygon:
    """``(n, 2)`` float vertices, a closing vertex equal to the first dropped, and repeated
    consecutive vertices merged.

    Raises
    ------
    ValueError
        If the points are not an ``(n, 2)`` array of finite numbers with at least three
        distinct consecutive vertices.
    """
    array = np.asarray(points, dtype=np.float64)
    if array.ndim != 2 or array.shape[1] != 2:
        raise ValueError("A polygon is a sequence of (x, y) points.")
    if not np.all(np.isfinite(array)):
        raise ValueError("A polygon's coordinates must be finite numbers.")
    if len(array) and np.array_equal(array[0], array[-1]):
        array = array[:-1]
    if len(array):
        keep = np.any(array != np.roll(array, 1, axis=0), axis=1)
        keep[0] = keep[0] or len(array) == 1
        array = array[keep] if keep.any() else array[:1]
    if len(array) < 3:
        raise ValueError("A polygon needs at least three distinct vertices.")
    return array


def polygon_area(points: npt.ArrayLike) -> float:
    """Area of a simple polygon by the shoelace formula (orientation ignored).

    Examples
    --------
    >>> polygon_area([(0, 0), (4, 0), (4, 3)])
    6.0
    """
    polygon = as_polygon(points)
    x, y = polygon[:, 0], polygon[:, 1]
    return float(abs(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))) / 2.0)


def _edges(polygon: Polygon) -> NDArray[np.float64]:
    """``(n, 4)`` edges ``(x0, y0, x1, y1)``, the last one closing the polygon."""
    return np.hstack([polygon, np.roll(polygon, -1, axis=0)])


def _cross(ax: NDArray, ay: NDArray, bx: NDArray, by: NDArray) -> NDArray[np.float64]:
    return np.asarray(ax * by - ay * bx, dtype=np.float64)


def _crossing_x(first: NDArray[np.float64], second: NDArray[np.float64]) -> NDArray[np.float64]:
    """``x`` of every point where an edge of ``first`` meets an edge of ``second``
    (non-parallel pairs; parallel overlapping edges meet at endpoints, which are cuts anyway)."""
    p = first[:, None, :2]
    r = first[:, None, 2:] - first[:, None, :2]
    q = second[None, :, :2]
    s = second[None, :, 2:] - second[None, :, :2]
    denominator = _cross(r[..., 0], r[..., 1], s[..., 0], s[..., 1])
    qp = q - p
    with np.errstate(divide="ignore", invalid="ignore"):
        t = _cross(qp[..., 0], qp[..., 1], s[..., 0], s[..., 1]) / denominator
        u = _cross(qp[..., 0], qp[..., 1], r[..., 0], r[..., 1]) / denominator
        meets = (denominator != 0) & (t >= 0) & (t <= 1) & (u >= 0) & (u <= 1)
        return np.asarray((p[..., 0] + t * r[..., 0])[meets], dtype=np.float64)


def polygon_intersection_area(first: npt.ArrayLike, second: npt.ArrayLike) -> float:
    """Exact area of the intersection of two simple polygons (see the module docstring).

    Examples
    --------
    An L-shaped hexagon (a 2 × 2 square without its top-right unit square) and the unit
    square at (1, 0)–(2, 1): they share exactly that unit square.

    >>> ell = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)]
    >>> polygon_intersection_area(ell, [(1, 0), (2, 0), (2, 1), (1, 1)])
    1.0
    """
    a, b = as_polygon(first), as_polygon(second)
    if not _boxes_overlap(a, b):
        return 0.0
    edges_a, edges_b = _edges(a), _edges(b)
    cuts = np.unique(np.concatenate([a[:, 0], b[:, 0], _crossing_x(edges_a, edges_b)]))
    if cuts.size < 2:
        return 0.0
    middle = (cuts[:-1] + cuts[1:]) / 2.0
    width = np.diff(cuts)
    edges = np.vstack([edges_a, edges_b])
    owner = np.concatenate([np.zeros(len(edges_a), bool), np.ones(len(edges_b), bool)])
    x0, y0, x1, y1 = edges.T
    sloped = x0 != x1
    x0, y0, x1, y1, owner = x0[sloped], y0[sloped], x1[sloped], y1[sloped], owner[sloped]
    low, high = np.minimum(x0, x1), np.maximum(x0, x1)
    spans = (low[:, None] < middle[None, :]) & (middle[None, :] < high[:, None])
    slope = (y1 - y0) / (x1 - x0)
    heights = y0[:, None] + (middle[None, :] - x0[:, None]) * slope[:, None]
    heights = np.where(spans, heights, np.inf)
    order = np.argsort(heights, axis=0, kind="stable")
    sorted_heights = np.take_along_axis(heights, order, axis=0)
    sorted_owner = owner[order]
    valid = np.isfinite(sorted_heights)
    inside_a = np.cumsum(valid & ~sorted_owner, axis=0) % 2 == 1
    inside_b = np.cumsum(valid & sorted_owner, axis=0) % 2 == 1
    with np.errstate(invalid="ignore"):
        gaps = np.diff(sorted_heights, axis=0)
    both = inside_a[:-1] & inside_b[:-1] & valid[1:]
    lengths = np.where(both, gaps, 0.0).sum(axis=0)
    return float(np.dot(lengths, width))


def _boxes_overlap(a: Polygon, b: Polygon) -> bool:
    low_a, high_a = a.min(axis=0), a.max(axis=0)
    low_b, high_b = b.min(axis=0), b.max(axis=0)
    return bool(np.all(np.minimum(high_a, high_b) > np.maximum(low_a, low_b)))


def polygon_iou(first: npt.ArrayLike, second: npt.ArrayLike) -> float:
    """Intersection over union of two simple polygons, exact up to rounding.

    Examples
    --------
    The unit square and the triangle halving it: intersection 1/2, union 1.

    >>> polygon_iou([(0, 0), (1, 0), (1, 1), (0, 1)], [(0, 0), (1, 0), (1, 1)])
    0.5
    """
    inter = polygon_intersection_area(first, second)
    if inter <= 0:
        return 0.0
    union = polygon_area(first) + polygon_area(second) - inter
    return float(inter / union) if union > 0 else 0.0


def check_simple_polygon(points: npt.ArrayLike) -> str | None:
    """Why a polygon is not simple, or None when it is.

    A polygon is simple when it has at least three distinct vertices, a positive area, and
    no two edges meet except consecutive edges at their shared vertex (and those do not fold
    back onto each other).

    Examples
    --------
    >>> check_simple_polygon([(0, 0), (2, 2), (2, 0), (0, 2)])
    'edges 1 and 3 cross'
    >>> check_simple_polygon([(0, 0), (1, 0), (0, 1)]) is None
    True
    """
    try:
        polygon = as_polygon(points)
    except ValueError as error:
        return str(error)
    edges = _edges(polygon)
    n = len(edges)
    first, second = np.triu_indices(n, k=1)
    adjacent = (second == first + 1) | ((first == 0) & (second == n - 1))
    touching = _segments_touch(edges[first], edges[second])
    crossing = touching & ~adjacent
    if crossing.any():
        k = int(np.flatnonzero(crossing)[0])
        return f"edges {int(first[k]) + 1} and {int(second[k]) + 1} cross"
    folded = _folds_back(edges[first[adjacent]], edges[second[adjacent]])
    if folded.any():
        k = int(np.flatnonzero(adjacent)[np.flatnonzero(folded)[0]])
        return f"edges {int(first[k]) + 1} and {int(second[k]) + 1} overlap"
    if polygon_area(polygon) <= 0:
        return "its area is zero"
    return None


def _orientation(p: NDArray, q: NDArray, r: NDArray) -> NDArray[np.float64]:
    return _cross(q[:, 0] - p[:, 0], q[:, 1] - p[:, 1], r[:, 0] - p[:, 0], r[:, 1] - p[:, 1])


def _on_segment(p: NDArray, q: NDArray, r: NDArray) -> NDArray[np.bool_]:
    """Whether ``r``, collinear with segment ``pq``, lies within its bounding box."""
    return np.asarray(
        (np.minimum(p[:, 0], q[:, 0]) <= r[:, 0])
        & (r[:, 0] <= np.maximum(p[:, 0], q[:, 0]))
        & (np.minimum(p[:, 1], q[:, 1]) <= r[:, 1])
        & (r[:, 1] <= np.maximum(p[:, 1], q[:, 1])),
        dtype=bool,
    )


def _segments_touch(first: NDArray[np.float64], second: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each pair of segments has at least one point in common."""
    p1, q1, p2, q2 = first[:, :2], first[:, 2:], second[:, :2], second[:, 2:]
    o1, o2 = _orientation(p1, q1, p2), _orientation(p1, q1, q2)
    o3, o4 = _orientation(p2, q2, p1), _orientation(p2, q2, q1)
    proper = (np.sign(o1) * np.sign(o2) < 0) & (np.sign(o3) * np.sign(o4) < 0)
    collinear = (
        ((o1 == 0) & _on_segment(p1, q1, p2))
        | ((o2 == 0) & _on_segment(p1, q1, q2))
        | ((o3 == 0) & _on_segment(p2, q2, p1))
        | ((o4 == 0) & _on_segment(p2, q2, q1))
    )
    return np.asarray(proper | collinear, dtype=bool)


def _folds_back(first: NDArray[np.float64], second: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Consecutive edges that are collinear and point in opposite directions (a spike)."""
    r = first[:, 2:] - first[:, :2]
    s = second[:, 2:] - second[:, :2]
    parallel = _cross(r[:, 0], r[:, 1], s[:, 0], s[:, 1]) == 0
    return np.asarray(parallel & ((r * s).sum(axis=1) < 0), dtype=bool)
