"""Keypoints: distance normalised by the image diagonal, and COCO's object keypoint similarity.

- :func:`keypoint_distance`: ``‖p − q‖ / diagonal`` (clipped to 1), 0 for the same point;
- :func:`keypoint_similarity` (OKS of one keypoint; Lin et al. 2014, COCO keypoint
  evaluation): ``exp(−‖p − q‖² / (2 s² κ²))`` with ``s²`` the object's area (its *scale*)
  and ``κ`` the keypoint's constant (COCO's ``2σ``, for example ``2 × 0.026`` for a nose).
  pycocotools computes the same, ``e = d² / (2σ)² / (area + ε) / 2`` and ``exp(−e)``
  (``COCOeval.computeOks``).

References
----------
Lin, T.-Y., Maire, M., Belongie, S., et al. (2014). Microsoft COCO: Common Objects in
Context. ECCV 2014, LNCS 8693, 740–755. https://doi.org/10.1007/978-3-319-10602-1_48
(keypoint evaluation: https://cocodataset.org/#keypoints-eval)
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

__all__ = ["keypoint_distance", "keypoint_similarity"]


def keypoint_distance(
    a: npt.ArrayLike, b: npt.ArrayLike, diagonal: npt.ArrayLike
) -> NDArray[np.float64]:
    """Euclidean distance of points ``(..., 2)`` divided by the image diagonal, at most 1.

    Examples
    --------
    In a 30 × 40 image (diagonal 50), points 3 and 4 pixels apart in x and y: 5 / 50.

    >>> float(keypoint_distance([10, 10], [13, 14], 50.0))
    0.1
    """
    pa, pb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    distance = np.sqrt(((pa - pb) ** 2).sum(axis=-1))
    scale = np.asarray(diagonal, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        normalised = np.where(scale > 0, distance / scale, np.where(distance > 0, 1.0, 0.0))
    return np.asarray(np.minimum(normalised, 1.0), dtype=np.float64)


def keypoint_similarity(
    a: npt.ArrayLike, b: npt.ArrayLike, *, scale: npt.ArrayLike, kappa: float = 0.1
) -> NDArray[np.float64]:
    """Object keypoint similarity of single keypoints: ``exp(−d² / (2 · scale · κ²))``.

    Parameters
    ----------
    a, b : array_like, shape (..., 2)
    scale : array_like
        The object's area ``s²`` in square pixels (COCO's segment area), positive.
    kappa : float, default 0.1
        The keypoint constant ``κ = 2σ`` (COCO's per-keypoint σ range from 0.025 to 0.107).

    Examples
    --------
    ``d = 5``, area 100, κ = 0.5: ``exp(−25 / (2 · 100 · 0.25)) = exp(−0.5)``.

    >>> round(float(keypoint_similarity([0, 0], [3, 4], scale=100.0, kappa=0.5)), 6)
    0.606531
    """
    if not kappa > 0:
        raise ValueError(f"kappa must be positive; got {kappa}.")
    pa, pb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    squared = ((pa - pb) ** 2).sum(axis=-1)
    area = np.asarray(scale, dtype=np.float64)
    if np.any(~(area > 0)):
        raise ValueError("A keypoint scale (the object's area) must be positive.")
    return np.asarray(np.exp(-squared / (2.0 * area * kappa**2)), dtype=np.float64)
