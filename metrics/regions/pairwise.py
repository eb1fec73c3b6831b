"""Overlap and distance of pairs of regions of a :class:`RegionData`, by region index.

Every function takes two equally long index arrays ``left`` and ``right`` into the data's
regions and returns one number per pair. Axis-aligned boxes are computed in one vectorised
step; rotated boxes and polygons go through the exact polygon intersection
(:mod:`metrics.regions.polygons`), only for the pairs whose bounding boxes overlap.

- :func:`pair_similarity`: IoU of boxes and polygons; for keypoints their OKS when both have
  a scale (the mean of the two scales as the object's area), else ``1 −`` their distance
  over the image diagonal;
- :func:`pair_giou`: GIoU with the smallest enclosing axis-aligned box (boxes, polygons);
- :func:`pair_corner_l2`: corner L2 of the bounding boxes over the image diagonal (for
  keypoints, their distance over the diagonal).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from metrics.regions.boxes import box_iou, corner_l2, giou_from_areas
from metrics.regions.data import RegionData
from metrics.regions.keypoints import keypoint_distance, keypoint_similarity
from metrics.regions.polygons import polygon_intersection_area

__all__ = ["pair_corner_l2", "pair_giou", "pair_similarity"]

#: The κ of :func:`~metrics.regions.keypoints.keypoint_similarity` for keypoints with a scale.
KEYPOINT_KAPPA = 0.1


def _as_xywh(corners: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.column_stack([corners[:, :2], corners[:, 2:] - corners[:, :2]])


def _exact_pairs(data: RegionData, left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray:
    """Which pairs need the polygon intersection (rotated boxes, polygons)."""
    if data.kind == "polygon":
        return np.ones(left.size, dtype=bool)
    if data.kind == "box":
        return np.asarray(data.rotated[left] | data.rotated[right], dtype=bool)
    return np.zeros(left.size, dtype=bool)


def _intersections(
    data: RegionData, left: NDArray[np.intp], right: NDArray[np.intp]
) -> NDArray[np.float64]:
    """Exact intersection areas of the pairs (polygon path), 0 where the bounds are apart."""
    box = data.bounds
    low = np.maximum(box[left, :2], box[right, :2])
    high = np.minimum(box[left, 2:], box[right, 2:])
    apart = np.any(high <= low, axis=1)
    areas = np.zeros(left.size)
    for k in np.flatnonzero(~apart).tolist():
        areas[k] = polygon_intersection_area(
            data.outline(int(left[k])), data.outline(int(right[k]))
        )
    return areas


def _check(left: NDArray, right: NDArray) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    first = np.asarray(left, dtype=np.intp).reshape(-1)
    second = np.asarray(right, dtype=np.intp).reshape(-1)
    if first.size != second.size:
        raise ValueError("left and right must index as many regions each.")
    return first, second


def pair_similarity(data: RegionData, left: NDArray, right: NDArray) -> NDArray[np.float64]:
    """IoU of each pair of regions (boxes, polygons); similarity of keypoints (see module)."""
    left, right = _check(left, right)
    if data.kind == "keypoint":
        return _keypoint_similarity(data, left, right)
    result = np.zeros(left.size)
    exact = _exact_pairs(data, left, right)
    plain = ~exact
    if plain.any():
        result[plain] = box_iou(data.boxes[left[plain], :4], data.boxes[right[plain], :4])
    if exact.any():
        first, second = left[exact], right[exact]
        inter = _intersections(data, first, second)
        union = data.areas[first] + data.areas[second] - inter
        with np.errstate(divide="ignore", invalid="ignore"):
            result[exact] = np.where(inter > 0, inter / union, 0.0)
    return result


def _keypoint_similarity(
    data: RegionData, left: NDArray[np.intp], right: NDArray[np.intp]
) -> NDArray[np.float64]:
    points_l, points_r = data.boxes[left, :2], data.boxes[right, :2]
    scale = (data.areas[left] + data.areas[right]) / 2.0
    with_scale = ~np.isnan(scale)
    result = 1.0 - keypoint_distance(points_l, points_r, data.diagonals[data.image[left]])
    if with_scale.any():
        result[with_scale] = keypoint_similarity(
            points_l[with_scale],
            points_r[with_scale],
            scale=scale[with_scale],
            kappa=KEYPOINT_KAPPA,
        )
    return np.asarray(result, dtype=np.float64)


def pair_giou(data: RegionData, left: NDArray, right: NDArray) -> NDArray[np.float64]:
    """GIoU of each pair (Rezatofighi et al. 2019), ``C`` the enclosing axis-aligned box."""
    left, right = _check(left, right)
    if data.kind == "keypoint":
        raise ValueError("GIoU is defined for boxes and polygons, not keypoints.")
    box = data.bounds
    inter = np.zeros(left.size)
    exact = _exact_pairs(data, left, right)
    plain = ~exact
    if plain.any():
        first, second = box[left[plain]], box[right[plain]]
        width = np.maximum(
            np.minimum(first[:, 2], second[:, 2]) - np.maximum(first[:, 0], second[:, 0]), 0
        )
        height = np.maximum(
            np.minimum(first[:, 3], second[:, 3]) - np.maximum(first[:, 1], second[:, 1]), 0
        )
        inter[plain] = width * height
    if exact.any():
        inter[exact] = _intersections(data, left[exact], right[exact])
    union = data.areas[left] + data.areas[right] - inter
    enclosing_width = np.maximum(box[left, 2], box[right, 2]) - np.minimum(
        box[left, 0], box[right, 0]
    )
    enclosing_height = np.maximum(box[left, 3], box[right, 3]) - np.minimum(
        box[left, 1], box[right, 1]
    )
    return giou_from_areas(inter, union, enclosing_width * enclosing_height)


def pair_corner_l2(data: RegionData, left: NDArray, right: NDArray) -> NDArray[np.float64]:
    """Corner L2 of the pairs' bounding boxes over the image diagonal (keypoints: their
    distance over the diagonal)."""
    left, right = _check(left, right)
    diagonal = data.diagonals[data.image[left]]
    if data.kind == "keypoint":
        return keypoint_distance(data.boxes[left, :2], data.boxes[right, :2], diagonal)
    box = data.bounds
    return corner_l2(_as_xywh(box[left]), _as_xywh(box[right]), diagonal)
