"""Krippendorff's alpha on matched regions: per image as kalphacv, and pooled over images.

The units of :func:`~metrics.regions.matched_units.match_units` are items whose values are the
coders' labels, or "empty" for a coder with no region in the unit. Their nominal alpha is
computed by the library's own alpha (:func:`metrics.decompose_krippendorff_alpha` on the
units), whose per-unit statistics add up image by image:

- :func:`alpha_matched` (Tschirschwitz et al. 2022; kalphacv 1.5.2): nominal alpha of each
  image's units, 1 when fewer than two distinct values occur in the image (including an
  image with no regions), images annotated by fewer than two coders left out; ``value`` is
  the unweighted mean over images. kalphacv rounds each image's alpha to four decimals
  before the mean; this function does not, so values agree to 5e-5.
- :func:`alpha_matched_pooled`: the same units, one alpha over all images, with its observed
  and expected disagreement. Each image weighs by its number of values rather than equally,
  and an image with one kind of value does not count as perfect agreement by itself.

Both have a ``decompose_*`` twin with one row per image, so the bootstrap resamples images.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.alpha import decompose_krippendorff_alpha
from metrics.data import ReliabilityData
from metrics.decomposition import Decomposition
from metrics.regions.data import RegionData
from metrics.regions.matched_units import EMPTY, NOT_ANNOTATED, MatchedUnits, match_units

__all__ = [
    "EMPTY_VALUE",
    "MatchedAlpha",
    "PooledMatchedAlpha",
    "alpha_matched",
    "alpha_matched_pooled",
    "decompose_alpha_matched",
    "decompose_alpha_matched_pooled",
    "units_reliability_data",
]


class _Empty:
    """The value of a coder with no region in a unit."""

    def __repr__(self) -> str:
        return "EMPTY"

    def __lt__(self, other: object) -> bool:
        return False


#: The value "empty" in the units' reliability data.
EMPTY_VALUE = _Empty()


@dataclass(frozen=True)
class MatchedAlpha:
    """alpha_matched: the mean of the images' alphas.

    Attributes
    ----------
    value : float
        Unweighted mean of ``images`` values.
    images : dict
        Image → its nominal alpha on its units (images annotated by at least two coders).
    n_units : int
    iou_threshold : float
    """

    value: float
    images: dict[Hashable, float]
    n_units: int
    iou_threshold: float


@dataclass(frozen=True)
class PooledMatchedAlpha:
    """alpha_matched_pooled: one nominal alpha over every image's units.

    ``value = 1 − observed / expected`` (disagreements).
    """

    value: float
    observed: float
    expected: float
    n_units: int
    n_values: int
    iou_threshold: float


def units_reliability_data(data: RegionData, units: MatchedUnits) -> ReliabilityData:
    """The units as reliability data: one item per unit, the coders' labels or
    :data:`EMPTY_VALUE` as values (domain: the data's categories, then ``EMPTY_VALUE``)."""
    unit, coder = np.nonzero(units.cells != NOT_ANNOTATED)
    region = units.cells[unit, coder]
    empty_code = len(data.categories)
    value = np.where(region == EMPTY, empty_code, data.category[np.maximum(region, 0)])
    return ReliabilityData.from_codes(
        unit,
        coder,
        value,
        (*data.categories, EMPTY_VALUE),
        tuple(range(units.n_units)),
        data.coders,
    )


def _image_rows(data: RegionData, units: MatchedUnits) -> Decomposition | None:
    """Alpha's decomposition of the units with one row per image (None without units)."""
    if units.n_units == 0:
        return None
    per_unit = decompose_krippendorff_alpha(units_reliability_data(data, units))
    indicator = sparse.csr_matrix(
        (np.ones(units.n_units), (units.image, np.arange(units.n_units))),
        shape=(data.n_images, units.n_units),
    )
    rows = indicator @ per_unit.item_stats
    rows = rows.toarray() if sparse.issparse(rows) else np.asarray(rows)
    return per_unit.with_rows(np.asarray(rows, dtype=np.float64))


def image_alphas(data: RegionData, units: MatchedUnits) -> NDArray[np.float64]:
    """Each image's alpha (1 where undefined); ``nan`` for images left out."""
    alphas = np.where(units.images_with_coders, 1.0, np.nan)
    rows = _image_rows(data, units)
    if rows is not None:
        values = np.asarray(rows.finalize(np.asarray(rows.item_stats)), dtype=np.float64)
        defined = units.images_with_coders & ~np.isnan(values)
        alphas[defined] = values[defined]
    return alphas


def _require_images(units: MatchedUnits) -> None:
    if not units.images_with_coders.any():
        raise ValueError(
            "alpha_matched needs at least one image annotated by two coders; no image is."
        )


def alpha_matched(data: RegionData, *, iou_threshold: float = 0.5) -> MatchedAlpha:
    """Tschirschwitz et al.'s alpha for regions, exactly as kalphacv 1.5.2 computes it.

    .. math:: \\alpha_{matched} = \\frac{1}{|I|}\\sum_{i \\in I} \\alpha_i

    with ``α_i`` the nominal alpha of image ``i``'s units (see
    :mod:`metrics.regions.matched_units`), 1 when fewer than two distinct values occur, and
    ``I`` the images annotated by at least two coders.

    Parameters
    ----------
    data : RegionData
    iou_threshold : float, default 0.5
        Regions match when their IoU is strictly above it.

    Returns
    -------
    MatchedAlpha

    Raises
    ------
    ValueError
        If no image is annotated by two coders.

    Examples
    --------
    Two coders agree on one box and the second adds one: the units hold (x, x) and
    (empty, x), so ``D_o = D_e = 1/2`` and the image's alpha is 0.

    >>> data = RegionData.from_boxes([("i", "a", 0, 0, 10, 10, "x"),
    ...     ("i", "b", 1, 0, 10, 10, "x"), ("i", "b", 50, 50, 5, 5, "x")])
    >>> alpha_matched(data).value
    0.0
    """
    units = match_units(data, iou_threshold=iou_threshold)
    _require_images(units)
    alphas = image_alphas(data, units)
    kept = np.flatnonzero(units.images_with_coders)
    return MatchedAlpha(
        value=float(np.mean(alphas[kept])),
        images={data.images[i]: float(alphas[i]) for i in kept.tolist()},
        n_units=units.n_units,
        iou_threshold=float(iou_threshold),
    )


def decompose_alpha_matched(data: RegionData, *, iou_threshold: float = 0.5) -> Decomposition:
    """alpha_matched as the mean of per-image rows ``[α_i, 1]`` (zeros for images left out)."""
    units = match_units(data, iou_threshold=iou_threshold)
    _require_images(units)
    alphas = image_alphas(data, units)
    kept = units.images_with_coders
    stats = np.column_stack([np.where(kept, alphas, 0.0), kept.astype(np.float64)])

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.asarray(
                np.where(totals[..., 1] > 0, totals[..., 0] / totals[..., 1], np.nan),
                dtype=np.float64,
            )

    return Decomposition("alpha_matched", stats, finalize)


def decompose_alpha_matched_pooled(
    data: RegionData, *, iou_threshold: float = 0.5
) -> Decomposition:
    """alpha_matched_pooled with one row per image (the sum of its units' rows of
    :func:`metrics.decompose_krippendorff_alpha`)."""
    return pooled_decomposition(data, match_units(data, iou_threshold=iou_threshold))


def pooled_decomposition(data: RegionData, units: MatchedUnits) -> Decomposition:
    rows = _image_rows(data, units)
    if rows is None:
        raise ValueError(
            "alpha_matched_pooled needs at least one region on an image annotated by two "
            "coders; there is none."
        )
    return Decomposition("alpha_matched_pooled", rows.item_stats, rows.finalize)


def alpha_matched_pooled(data: RegionData, *, iou_threshold: float = 0.5) -> PooledMatchedAlpha:
    """Nominal alpha over the matched units of all images at once.

    .. math:: \\alpha = 1 - \\frac{D_o}{D_e}, \\quad
              D_o = \\frac{1}{n}\\sum_u \\frac{1}{m_u - 1}\\sum_{k \\ne k'} n_{uk} n_{uk'},
              \\quad D_e = \\frac{1}{n(n-1)}\\sum_{k \\ne k'} n_k n_{k'}

    over the units ``u`` of every image (values: labels and "empty").

    Raises
    ------
    ValueError
        If there are no units, or every value is the same (expected disagreement 0).

    Examples
    --------
    The docstring case of :func:`alpha_matched`: values (x, x) and (empty, x), so
    ``D_o = 2/4``, ``D_e = 2·3·1 / (4·3) = 1/2`` and alpha 0.

    >>> data = RegionData.from_boxes([("i", "a", 0, 0, 10, 10, "x"),
    ...     ("i", "b", 1, 0, 10, 10, "x"), ("i", "b", 50, 50, 5, 5, "x")])
    >>> result = alpha_matched_pooled(data)
    >>> result.value, result.observed, result.expected
    (0.0, 0.5, 0.5)
    """
    units = match_units(data, iou_threshold=iou_threshold)
    decomposition = pooled_decomposition(data, units)
    totals = decomposition.totals()
    marginals = totals[1:]
    n = float(marginals.sum())
    observed = float(totals[0] / n)
    expected = float((n * n - float(np.dot(marginals, marginals))) / (n * (n - 1.0)))
    if not expected > 0:
        raise ValueError(
            "alpha_matched_pooled is undefined: every unit has the same value (expected "
            "disagreement 0)."
        )
    return PooledMatchedAlpha(
        value=1.0 - observed / expected,
        observed=observed,
        expected=expected,
        n_units=units.n_units,
        n_values=int(n),
        iou_threshold=float(iou_threshold),
    )
