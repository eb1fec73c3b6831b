"""Krippendorff's alpha with a distance between coders' whole sets of regions.

Braylan, Alonso & Lease (2022, §3) apply Krippendorff's alpha in its general form to complex
annotations: an item's value is a coder's whole annotation and only a distance between two
annotations is needed,

.. math::

    \\alpha = 1 - \\frac{D_o}{D_e}, \\quad
    D_o = \\frac{1}{n}\\sum_u \\frac{1}{m_u - 1}\\sum_{c \\ne c'} d(v_{uc}, v_{uc'}), \\quad
    D_e = \\frac{1}{n(n-1)}\\sum_{v \\ne w} d(v, w)

over the ``n`` pairable values (images annotated by at least two coders; ``m_u`` coders on
image ``u``; the last sum over ordered pairs of distinct values of all images). Here a value
is the set of regions one coder drew on one image (possibly empty: "annotated, drew nothing"),
and the distance between two sets ``A`` and ``B`` comes from the optimal one-to-one matching of
their regions (:func:`scipy.optimize.linear_sum_assignment`):

.. math:: d(A, B) = \\frac{1}{\\max(|A|, |B|)}\\Big(\\min_\\pi \\sum_{(a, b) \\in \\pi} d(a, b)
          + \\big||A| - |B|\\big|\\Big), \\qquad d(\\emptyset, \\emptyset) = 0,

each unmatched region costing 1 — Schuhmacher, Vo & Vo's (2008) OSPA distance with cut-off 1
and order 1, in ``[0, 1]``. The distance of two regions is

- ``"iou"``: ``1 − IoU``;
- ``"giou"``: ``(1 − GIoU) / 2`` (Rezatofighi et al. 2019: ``1 − GIoU`` lies in ``[0, 2)``;
  halved, a pair never costs more than leaving both regions unmatched);
- ``"corner_l2"``: the corner L2 distance over ``√2 ×`` the image diagonal
  (:func:`~metrics.regions.boxes.corner_l2`);

and 1 for two regions of different labels.

``D_e`` needs the distance of every pair of values across images. Up to
:data:`EXACT_VALUES` values it is computed exactly, and alpha by the library's own alpha with
the values' distance matrix (:func:`metrics.krippendorff_alpha` with a
:class:`~metrics.distances.MatrixDistance`). Beyond that ``D_e`` is estimated from
``expected_pairs`` pairs of distinct values drawn uniformly with a seed (Braylan et al.'s code
also samples the pairs behind ``D_e``, from different items); ``D_o`` stays exact. The
bootstrap over images then holds ``D_e`` at the full data's estimate.

References
----------
Braylan, A., Alonso, O. & Lease, M. (2022). Measuring Annotator Agreement Generally across
Complex Structured, Multi-object, and Free-text Annotation Tasks. WWW '22, 1720–1730.
https://doi.org/10.1145/3485447.3512242

Schuhmacher, D., Vo, B.-T. & Vo, B.-N. (2008). A Consistent Metric for Performance Evaluation
of Multi-Object Filters. IEEE Trans. Signal Processing 56(8), 3447–3457.
https://doi.org/10.1109/TSP.2008.920469
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from metrics.coefficients.alpha import decompose_krippendorff_alpha, krippendorff_alpha
from metrics.data import ReliabilityData
from metrics.decomposition import Decomposition
from metrics.distances.scalar import MatrixDistance
from metrics.regions.data import RegionData
from metrics.regions.pairwise import pair_corner_l2, pair_giou, pair_similarity

__all__ = [
    "EXACT_VALUES",
    "REGION_DISTANCES",
    "RegionAlpha",
    "decompose_region_alpha",
    "image_disagreement",
    "region_alpha",
    "set_distances",
]

#: The region distances :func:`region_alpha` knows.
REGION_DISTANCES: tuple[str, ...] = ("iou", "giou", "corner_l2")
#: Largest number of pairable values for which ``D_e`` is computed over every pair.
EXACT_VALUES = 300
#: Region pairs whose distances are computed in one vectorised block.
_BLOCK = 1 << 20


@dataclass(frozen=True)
class RegionAlpha:
    """Alpha with a region-set distance.

    Attributes
    ----------
    value, observed, expected : float
        ``1 − D_o / D_e``, ``D_o`` and ``D_e``.
    distance : str
    n_values : int
        Pairable values (coders' sets of regions on images annotated by two coders or more).
    expected_pairs : int
        Unordered pairs of values behind ``D_e``.
    expected_sampled : bool
        Whether those pairs were a seeded sample (more than :data:`EXACT_VALUES` values).
    """

    value: float
    observed: float
    expected: float
    distance: str
    n_values: int
    expected_pairs: int
    expected_sampled: bool


@dataclass(frozen=True)
class _Values:
    """The pairable values: value ``v`` is coder ``coder[v]``'s regions on ``image[v]``,
    ``start[v]:stop[v]`` in the data's region order."""

    image: NDArray[np.intp]
    coder: NDArray[np.intp]
    start: NDArray[np.intp]
    stop: NDArray[np.intp]

    @property
    def size(self) -> int:
        return int(self.image.size)


def _values(data: RegionData) -> _Values:
    pairable = data.annotated & (data.annotated.sum(axis=1) >= 2)[:, None]
    image, coder = np.nonzero(pairable)
    keys = data.image.astype(np.int64) * data.n_coders + data.coder
    wanted = image.astype(np.int64) * data.n_coders + coder
    start = np.searchsorted(keys, wanted, side="left")
    stop = np.searchsorted(keys, wanted, side="right")
    return _Values(image, coder, start.astype(np.intp), stop.astype(np.intp))


def _region_distances(
    data: RegionData, left: NDArray[np.intp], right: NDArray[np.intp], distance: str
) -> NDArray[np.float64]:
    if distance == "iou":
        result = 1.0 - pair_similarity(data, left, right)
    elif distance == "giou":
        result = (1.0 - pair_giou(data, left, right)) / 2.0
    else:
        result = pair_corner_l2(data, left, right)
    different = data.category[left] != data.category[right]
    return np.asarray(np.where(different, 1.0, np.clip(result, 0.0, 1.0)), dtype=np.float64)


def _check_distance(distance: str) -> None:
    if distance not in REGION_DISTANCES:
        raise ValueError(
            f"distance must be one of {', '.join(REGION_DISTANCES)}; got {distance!r}."
        )


def set_distances(
    data: RegionData,
    values: _Values,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    distance: str,
) -> NDArray[np.float64]:
    """The set distance of value pairs ``(first[k], second[k])`` (see the module docstring)."""
    size_a = values.stop[first] - values.start[first]
    size_b = values.stop[second] - values.start[second]
    result = np.where((size_a == 0) & (size_b == 0), 0.0, 1.0)
    both = np.flatnonzero((size_a > 0) & (size_b > 0))
    if both.size == 0:
        return result
    cells = size_a[both] * size_b[both]
    bounds = np.concatenate([[0], np.cumsum(cells)])
    cut = 0
    while cut < both.size:
        end = int(np.searchsorted(bounds, bounds[cut] + _BLOCK, side="right")) - 1
        end = min(max(end, cut + 1), both.size)
        block = both[cut:end]
        result[block] = _block_distances(data, values, first[block], second[block], distance)
        cut = end
    return result


def _block_distances(
    data: RegionData,
    values: _Values,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    distance: str,
) -> NDArray[np.float64]:
    size_a = values.stop[first] - values.start[first]
    size_b = values.stop[second] - values.start[second]
    cells = size_a * size_b
    pair = np.repeat(np.arange(first.size), cells)
    within = np.arange(int(cells.sum())) - np.repeat(np.cumsum(cells) - cells, cells)
    left = values.start[first][pair] + within // size_b[pair]
    right = values.start[second][pair] + within % size_b[pair]
    costs = _region_distances(data, left, right, distance)
    offsets = np.concatenate([[0], np.cumsum(cells)])
    result = np.empty(first.size)
    for k in range(first.size):
        a, b = int(size_a[k]), int(size_b[k])
        matrix = costs[offsets[k] : offsets[k + 1]].reshape(a, b)
        if a == 1 or b == 1:
            matched = float(matrix.min())
        else:
            rows, columns = linear_sum_assignment(matrix)
            matched = float(matrix[rows, columns].sum())
        result[k] = (matched + abs(a - b)) / max(a, b)
    return result


def _within_image_pairs(values: _Values) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every unordered pair of values on the same image (values are sorted by image)."""
    counts = np.bincount(values.image)
    counts = counts[counts > 0]
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    firsts, seconds = [], []
    for size in np.unique(counts).tolist():
        local_a, local_b = np.triu_indices(size, k=1)
        base = starts[counts == size]
        firsts.append((base[:, None] + local_a[None, :]).ravel())
        seconds.append((base[:, None] + local_b[None, :]).ravel())
    if not firsts:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    return np.concatenate(firsts).astype(np.intp), np.concatenate(seconds).astype(np.intp)


def _observed_rows(
    data: RegionData, values: _Values, distance: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per image: ``Σ_{c≠c'} d / (m_u − 1)`` and ``m_u`` (zeros for images left out)."""
    first, second = _within_image_pairs(values)
    distances = set_distances(data, values, first, second, distance)
    image = values.image[first]
    sums = np.bincount(image, weights=2.0 * distances, minlength=data.n_images)
    m = np.bincount(values.image, minlength=data.n_images).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = np.where(m > 1, sums / (m - 1.0), 0.0)
    return np.asarray(observed, dtype=np.float64), m


def image_disagreement(data: RegionData, *, distance: str = "iou") -> NDArray[np.float64]:
    """Each image's mean set distance over its pairs of coders (``nan`` with fewer than two)."""
    _check_distance(distance)
    values = _values(data)
    first, second = _within_image_pairs(values)
    distances = set_distances(data, values, first, second, distance)
    image = values.image[first]
    sums = np.bincount(image, weights=distances, minlength=data.n_images)
    pairs = np.bincount(image, minlength=data.n_images)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(pairs > 0, sums / pairs, np.nan), dtype=np.float64)


def _exact_reliability(
    data: RegionData, values: _Values, distance: str
) -> tuple[ReliabilityData, MatrixDistance]:
    """Reliability data with one value per set and the sets' full distance matrix."""
    n = values.size
    first, second = np.triu_indices(n, k=1)
    matrix = np.zeros((n, n))
    matrix[first, second] = set_distances(data, values, first, second, distance)
    matrix = matrix + matrix.T
    reliability = ReliabilityData.from_codes(
        values.image, values.coder, np.arange(n), tuple(range(n)), data.images, data.coders
    )
    return reliability, MatrixDistance(matrix, name=f"region {distance}")


def _sampled_expected(
    data: RegionData, values: _Values, distance: str, pairs: int, seed: int
) -> float:
    rng = np.random.default_rng(seed)
    n = values.size
    first = rng.integers(0, n, size=pairs)
    second = rng.integers(0, n - 1, size=pairs)
    second = second + (second >= first)
    return float(set_distances(data, values, first, second, distance).mean())


def _require(values: _Values) -> None:
    if values.size < 2:
        raise ValueError(
            "Region alpha needs at least one image annotated by two coders; no image is."
        )


def _undefined_expected() -> ValueError:
    return ValueError(
        "Region alpha is undefined: every set of regions is at distance 0 from every other "
        "(expected disagreement 0)."
    )


def region_alpha(
    data: RegionData,
    *,
    distance: str = "iou",
    expected_pairs: int = 50_000,
    seed: int = 0,
) -> RegionAlpha:
    """Krippendorff's alpha with a distance between coders' sets of regions.

    Parameters
    ----------
    data : RegionData
    distance : {"iou", "giou", "corner_l2"}, default "iou"
        The distance of two regions (see the module docstring).
    expected_pairs : int, default 50000
        Pairs of values drawn for ``D_e`` when there are more than :data:`EXACT_VALUES`.
    seed : int, default 0
        Seed of that draw.

    Returns
    -------
    RegionAlpha

    Raises
    ------
    ValueError
        If no image is annotated by two coders, or the expected disagreement is 0.

    Examples
    --------
    docs/references.md#region-alpha-hand-case: two images, two coders; on the first the
    boxes overlap with IoU 1/2, on the second one coder drew nothing. ``D_o = 3/4``,
    ``D_e = 2/3``, alpha = −1/8.

    >>> data = RegionData.from_boxes([("i1", "a", 0, 0, 10, 10, "cat"),
    ...     ("i1", "b", 0, 0, 10, 5, "cat"), ("i2", "a", 0, 0, 10, 10, "cat")],
    ...     annotated=[("i2", "b")])
    >>> result = region_alpha(data)
    >>> result.value, result.observed, round(result.expected, 6)
    (-0.125, 0.75, 0.666667)
    """
    _check_distance(distance)
    values = _values(data)
    _require(values)
    n = values.size
    if n <= EXACT_VALUES:
        reliability, matrix = _exact_reliability(data, values, distance)
        try:
            result = krippendorff_alpha(reliability, distance=matrix)
        except ValueError:
            raise _undefined_expected() from None
        return RegionAlpha(
            result.value, result.observed, result.expected, distance, n, n * (n - 1) // 2, False
        )
    observed_rows, m = _observed_rows(data, values, distance)
    observed = float(observed_rows.sum() / m.sum())
    expected = _sampled_expected(data, values, distance, int(expected_pairs), seed)
    if not expected > 0:
        raise _undefined_expected()
    return RegionAlpha(
        1.0 - observed / expected, observed, expected, distance, n, int(expected_pairs), True
    )


def decompose_region_alpha(
    data: RegionData,
    *,
    distance: str = "iou",
    expected_pairs: int = 50_000,
    seed: int = 0,
) -> Decomposition:
    """Region alpha with one row per image, for the bootstrap over images.

    Up to :data:`EXACT_VALUES` values, the library's alpha decomposition on the sets' distance
    matrix (``D_e`` recomputed on every resample); beyond, rows ``[Σ_{c≠c'} d / (m_u − 1),
    m_u]`` with ``D_e`` held at the full data's sampled estimate.
    """
    _check_distance(distance)
    values = _values(data)
    _require(values)
    if values.size <= EXACT_VALUES:
        reliability, matrix = _exact_reliability(data, values, distance)
        return decompose_krippendorff_alpha(reliability, distance=matrix)
    observed_rows, m = _observed_rows(data, values, distance)
    expected = _sampled_expected(data, values, distance, int(expected_pairs), seed)
    stats = np.column_stack([observed_rows, m])

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = 1.0 - (totals[..., 0] / totals[..., 1]) / expected
        return np.asarray(np.where(totals[..., 1] >= 2, value, np.nan), dtype=np.float64)

    return Decomposition(f"region_alpha_{distance}", stats, finalize)
