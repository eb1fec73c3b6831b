"""Boxes: IoU, GIoU and normalised corner L2, vectorised over pairs of boxes.

A box is ``(x, y, width, height)`` with ``(x, y)`` its top-left corner in pixels (``y`` grows
downwards, as in images). A *rotated* box carries a fifth number, the rotation in degrees
as Label Studio writes it: clockwise on the screen about the top-left corner. A rotated box is
a convex quadrilateral; :func:`box_corners` gives its four corners and
:mod:`metrics.regions.polygons` its exact IoU.

Every function here takes two arrays of boxes of the same shape ``(..., 4)`` and returns one
number per pair (shape ``(...)``); broadcasting ``a[:, None]`` against ``b[None, :]`` gives
matrices.

- IoU: ``|A ∩ B| / |A ∪ B|``, 0 when the union is empty.
- GIoU (Rezatofighi et al. 2019, eq. in Algorithm 1): ``IoU − |C \\ (A ∪ B)| / |C|`` with
  ``C`` the smallest axis-aligned box enclosing both; between −1 and 1, equal to IoU when
  one box contains the other, and still telling apart two disjoint boxes by how far apart
  they are.
- Corner L2: the Euclidean distance between the corner vectors ``(x1, y1, x2, y2)`` of the
  two boxes divided by ``√2 ×`` the image diagonal, so that it lies in ``[0, 1]`` for boxes
  inside the image (Braylan, Alonso & Lease 2022 use the plain L2 distance of box vectors).

References
----------
Rezatofighi, H., Tsoi, N., Gwak, J., Sadeghian, A., Reid, I. & Savarese, S. (2019).
Generalized Intersection over Union: A Metric and a Loss for Bounding Box Regression. CVPR
2019, 658–666. https://doi.org/10.1109/CVPR.2019.00075
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

__all__ = [
    "box_area",
    "box_corners",
    "box_giou",
    "box_iou",
    "corner_l2",
    "enclosing_box_area",
]


def _split(boxes: npt.ArrayLike) -> tuple[NDArray[np.float64], ...]:
    array = np.asarray(boxes, dtype=np.float64)
    if array.shape[-1] < 4:
        raise ValueError("A box is (x, y, width, height); the last axis must have 4 entries.")
    x, y, width, height = (array[..., k] for k in range(4))
    return x, y, x + width, y + height


def box_area(boxes: npt.ArrayLike) -> NDArray[np.float64]:
    """``width × height`` of each box, shape ``(...)``."""
    x1, y1, x2, y2 = _split(boxes)
    return np.asarray(np.abs((x2 - x1) * (y2 - y1)), dtype=np.float64)


def _intersection(
    a: tuple[NDArray[np.float64], ...], b: tuple[NDArray[np.float64], ...]
) -> NDArray[np.float64]:
    width = np.maximum(np.minimum(a[2], b[2]) - np.maximum(a[0], b[0]), 0.0)
    height = np.maximum(np.minimum(a[3], b[3]) - np.maximum(a[1], b[1]), 0.0)
    return np.asarray(np.abs(width * height), dtype=np.float64)


def box_iou(a: npt.ArrayLike, b: npt.ArrayLike) -> NDArray[np.float64]:
    """Intersection over union of axis-aligned boxes, pair by pair.

    The corners are ``x + width`` and ``y + height`` and the areas ``|width × height|``, in
    that order of operations, as kalphacv 1.5.2 computes them (``iou.calc_iou_bbox``), so
    that the same boxes give the same floating-point IoU and the same matches at a threshold.

    Parameters
    ----------
    a, b : array_like, shape (..., 4)
        Boxes ``(x, y, width, height)``; they broadcast against each other.

    Returns
    -------
    ndarray, shape (...)
        IoU in ``[0, 1]``; 0 where the boxes do not overlap (or both are empty).

    Examples
    --------
    Two 2 × 2 squares overlapping in a 1 × 2 strip: 2 / (4 + 4 − 2) = 1/3.

    >>> float(box_iou([0, 0, 2, 2], [1, 0, 2, 2]))
    0.3333333333333333
    """
    corners_a, corners_b = _split(a), _split(b)
    inter = _intersection(corners_a, corners_b)
    area_a = np.abs((corners_a[2] - corners_a[0]) * (corners_a[3] - corners_a[1]))
    area_b = np.abs((corners_b[2] - corners_b[0]) * (corners_b[3] - corners_b[1]))
    union = area_a + area_b - inter
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = inter / union
    return np.asarray(np.where(inter > 0, iou, 0.0), dtype=np.float64)


def enclosing_box_area(a: npt.ArrayLike, b: npt.ArrayLike) -> NDArray[np.float64]:
    """Area of the smallest axis-aligned box holding both boxes, pair by pair."""
    corners_a, corners_b = _split(a), _split(b)
    width = np.maximum(corners_a[2], corners_b[2]) - np.minimum(corners_a[0], corners_b[0])
    height = np.maximum(corners_a[3], corners_b[3]) - np.minimum(corners_a[1], corners_b[1])
    return np.asarray(width * height, dtype=np.float64)


def box_giou(a: npt.ArrayLike, b: npt.ArrayLike) -> NDArray[np.float64]:
    """Generalised IoU of axis-aligned boxes (Rezatofighi et al. 2019), pair by pair.

    .. math:: \\mathrm{GIoU} = \\mathrm{IoU} - \\frac{|C \\setminus (A \\cup B)|}{|C|}

    with ``C`` the smallest axis-aligned box enclosing ``A`` and ``B``. Two degenerate boxes
    at one point (``|C| = 0``) have GIoU 1 when they coincide; otherwise ``|C| > 0``.

    Examples
    --------
    Unit squares side by side with a gap of 1: IoU 0, ``C`` is 3 × 1, the union 2, so
    GIoU = 0 − (3 − 2) / 3 = −1/3.

    >>> round(float(box_giou([0, 0, 1, 1], [2, 0, 1, 1])), 6)
    -0.333333
    """
    corners_a, corners_b = _split(a), _split(b)
    inter = _intersection(corners_a, corners_b)
    area_a = np.abs((corners_a[2] - corners_a[0]) * (corners_a[3] - corners_a[1]))
    area_b = np.abs((corners_b[2] - corners_b[0]) * (corners_b[3] - corners_b[1]))
    union = area_a + area_b - inter
    enclosing = enclosing_box_area(a, b)
    return giou_from_areas(inter, union, enclosing)


def giou_from_areas(
    inter: NDArray[np.float64], union: NDArray[np.float64], enclosing: NDArray[np.float64]
) -> NDArray[np.float64]:
    """GIoU from the intersection, union and enclosing-box areas (any shapes)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        iou = np.where(union > 0, inter / union, 0.0)
        penalty = np.where(enclosing > 0, (enclosing - union) / enclosing, 0.0)
    same_point = (enclosing <= 0) & (union <= 0)
    return np.asarray(np.where(same_point, 1.0, iou - penalty), dtype=np.float64)


def corner_l2(a: npt.ArrayLike, b: npt.ArrayLike, diagonal: npt.ArrayLike) -> NDArray[np.float64]:
    """Distance of the corner vectors ``(x1, y1, x2, y2)``, normalised by the image diagonal.

    .. math:: d = \\min\\Big(1, \\frac{\\lVert (x_1, y_1, x_2, y_2) - (x_1', y_1', x_2', y_2')
              \\rVert_2}{\\sqrt{2}\\, \\mathrm{diag}}\\Big)

    Parameters
    ----------
    a, b : array_like, shape (..., 4)
    diagonal : array_like, broadcastable to (...)
        The image diagonal ``√(width² + height²)`` of each pair (positive).

    Examples
    --------
    In a 30 × 40 image (diagonal 50), a box moved 5 pixels to the right: both corners move
    by 5, ``‖(5, 0, 5, 0)‖ = 5√2``, so ``d = 5√2 / (√2 · 50) = 0.1``.

    >>> round(float(corner_l2([0, 0, 10, 10], [5, 0, 10, 10], 50.0)), 12)
    0.1
    """
    corners_a, corners_b = _split(a), _split(b)
    squares = sum((p - q) ** 2 for p, q in zip(corners_a, corners_b, strict=True))
    scale = np.sqrt(2.0) * np.asarray(diagonal, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        distance = np.sqrt(squares) / scale
    return np.asarray(np.minimum(np.where(scale > 0, distance, 1.0), 1.0), dtype=np.float64)


def box_corners(boxes: npt.ArrayLike) -> NDArray[np.float64]:
    """The four corners of each (rotated) box, clockwise on screen from the top-left corner.

    A box ``(x, y, width, height, rotation)`` is rotated by ``rotation`` degrees clockwise on
    the screen (``y`` pointing down) about ``(x, y)``, as Label Studio's ``rectanglelabels``
    writes it: the corner ``(x + w, y)`` goes to ``(x + w cos θ, y + w sin θ)``.

    Parameters
    ----------
    boxes : array_like, shape (..., 4) or (..., 5)
        Without a fifth column the rotation is 0.

    Returns
    -------
    ndarray, shape (..., 4, 2)
        Corners in the order top-left, top-right, bottom-right, bottom-left of the unrotated
        box.

    Examples
    --------
    A 2 × 1 box at the origin turned by 90°: its top-right corner goes straight down.

    >>> box_corners([0, 0, 2, 1, 90]).round(12).tolist()
    [[0.0, 0.0], [0.0, 2.0], [-1.0, 2.0], [-1.0, 0.0]]
    """
    array = np.asarray(boxes, dtype=np.float64)
    x, y, width, height = (array[..., k] for k in range(4))
    theta = np.deg2rad(array[..., 4]) if array.shape[-1] > 4 else np.zeros_like(x)
    cos, sin = np.cos(theta), np.sin(theta)
    dx = np.stack([np.zeros_like(width), width, width, np.zeros_like(width)], axis=-1)
    dy = np.stack([np.zeros_like(height), np.zeros_like(height), height, height], axis=-1)
    corner_x = x[..., None] + dx * cos[..., None] - dy * sin[..., None]
    corner_y = y[..., None] + dx * sin[..., None] + dy * cos[..., None]
    return np.stack([corner_x, corner_y], axis=-1)
