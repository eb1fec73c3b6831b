"""Closed forms for the common cases: a plain numeric array, or long-format reliability data.

When a caller passes a plain NumPy array of numbers (``nan`` for missing) and no ``domain=``,
the value domain is the sorted set of numbers that occur (see :mod:`metrics.data`), so
Krippendorff's interval and ordinal alpha, Cohen's kappa and two-coder weighted kappa can be
computed from a few sums without coding the labels first:

- **interval alpha** from per-item sums of the values and of their squared deviations from
  the item mean (two passes over the array, no sort):
  :math:`\\sum_{k,k'} n_{uk} n_{uk'} (x_k - x_{k'})^2 = 2 m_u \\sum_{i \\in u} (x_i - \\bar x_u)^2`,
  and the same over all pairable values for :math:`D_e`;
- **ordinal alpha** (whole-number labels spanning a small range) from the items × values
  count table, each item's rank sums around its mean rank, mid-ranks
  :math:`r_k = \\sum_{g<k} n_g + n_k/2` from the column totals;
- **nominal alpha** from the same table in integers: per item
  :math:`m_u^2 - \\sum_k n_{uk}^2`, over the pairable values :math:`n^2 - \\sum_k n_k^2`
  (for up to 32 values the table is counted value by value straight from the array, one
  comparison and one sum over coders each, in the narrowest integer type; no coding pass);
- **multi-pi** (Fleiss' kappa, unweighted) from the same count table;
- **Cohen's and weighted kappa** (two coders, whole-number labels spanning a small range) from
  one ``bincount`` of the pairs into a ``(V+1) × (V+1)`` table whose extra row and column
  count values the other coder left missing: observed agreement
  :math:`\\sum_{kl} w_{kl} t_{kl} / \\sum_{kl} t_{kl}` over items both coders labelled,
  chance :math:`p_1^T w\\, p_2` from each coder's values (Gwet's convention for missing
  values, as in :mod:`metrics.coefficients.agreement`).

The same forms are fed from a :class:`~metrics.data.ReliabilityData`'s long arrays (any
domain, the server's path) by :func:`two_coder_kappa_from_data` (pair table from the items'
codes), :func:`interval_alpha_from_data` (the domain as floats at each ``value_code``, per-item
sums by ``bincount`` on ``item_index``) and :func:`nominal_alpha_from_data` (the values × items
count table from one ``bincount``, while it is no larger than a few times the data).

Each function returns ``None`` when its case does not apply or the coefficient is undefined
(nothing pairable, no variation); the caller then takes the general path, which gives the
same numbers (to rounding, 1e-12) and the explanatory ``ValueError``.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics.coefficients.result import CoefficientResult
from metrics.data import ReliabilityData
from metrics.distances import DistanceLike, check_matrix, resolve_distance
from metrics.distances.scalar import IntervalDistance, NominalDistance, OrdinalDistance, midranks

#: Widest range of whole-number labels (largest minus smallest, plus one) taken by the
#: count-table forms; wider ranges take the general path.
MAX_SPAN = 1024
#: Ranges up to this many whole numbers are counted value by value (one comparison and one
#: sum over coders each); wider ones by one ``bincount`` of the codes.
_COUNTED_BY_VALUE = 32

__all__ = [
    "MAX_SPAN",
    "alpha_from_array",
    "alpha_from_data",
    "fleiss_pi_from_array",
    "interval_alpha_from_data",
    "nominal_alpha_from_data",
    "two_coder_kappa_from_array",
    "two_coder_kappa_from_data",
]


def numeric_array(data: object, domain: Sequence[Hashable] | None) -> NDArray[Any] | None:
    """``data`` itself when it is a 2-D integer or float ndarray and no domain is declared."""
    if domain is not None or not isinstance(data, np.ndarray):
        return None
    if data.ndim != 2 or data.dtype.kind not in "iuf" or data.size == 0:
        return None
    return data


def _whole_number_codes(array: NDArray[Any]) -> tuple[NDArray[np.intp], int, int] | None:
    """``(codes, lowest, span)``: labels as offsets from the lowest, ``nan`` as ``span``.

    ``None`` unless every present label is a whole number and they span at most
    ``MAX_SPAN`` values.
    """
    if array.dtype.kind in "iu":
        lowest, highest = int(array.min()), int(array.max())
        span = highest - lowest + 1
        if span > MAX_SPAN:
            return None
        # Subtract in intp: in a narrow type (int8) the offsets could wrap around.
        codes = array.astype(np.intp) - lowest
        return codes, lowest, span
    finite = np.isfinite(array)
    n_finite = int(np.count_nonzero(finite))
    if n_finite == 0 or n_finite + int(np.count_nonzero(np.isnan(array))) != array.size:
        return None  # nothing present, or an infinite label
    low, high = np.fmin.reduce(array, axis=None), np.fmax.reduce(array, axis=None)
    if not (high - low < MAX_SPAN) or low != np.floor(low):
        return None
    span = int(high - low) + 1
    offsets = array - low
    with np.errstate(invalid="ignore"):
        codes = offsets.astype(np.intp)
    whole = codes == offsets
    if int(np.count_nonzero(whole)) != n_finite:
        return None
    codes[~whole] = span
    return codes, int(low), span


# -- alpha -------------------------------------------------------------------------------


def alpha_from_array(
    data: object, distance: DistanceLike, domain: Sequence[Hashable] | None
) -> CoefficientResult | None:
    """Interval or ordinal alpha of a plain numeric array, or ``None`` for the general path.

    Examples
    --------
    Krippendorff (2011) reliability data (docs/references.md#k2011-reliability-data):

    >>> nan = np.nan
    >>> data = np.array([[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...                  [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    ...                  [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    ...                  [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]])
    >>> round(alpha_from_array(data, "interval", None).value, 3)
    0.849
    >>> round(alpha_from_array(data, "ordinal", None).value, 3)
    0.815
    """
    array = numeric_array(data, domain)
    if array is None:
        return None
    name = _scalar_distance_name(distance)
    if name == "interval":
        return _interval_alpha(array)
    if name == "ordinal":
        return _ordinal_alpha(array)
    if name == "nominal":
        return _nominal_alpha(array)
    return None


def alpha_from_data(data: ReliabilityData, distance: DistanceLike) -> CoefficientResult | None:
    """Interval or nominal alpha of long-format data by its closed form, or ``None``."""
    name = _scalar_distance_name(distance)
    if name == "interval":
        return interval_alpha_from_data(data, distance)
    if name == "nominal":
        return nominal_alpha_from_data(data, distance)
    return None


def _scalar_distance_name(distance: DistanceLike) -> str | None:
    """``"interval"``, ``"ordinal"`` or ``"nominal"`` for those distances (by name or
    object), else ``None`` (a matrix, a set or hierarchy distance: no closed form here)."""
    if isinstance(distance, str):
        return distance.strip().lower()
    if isinstance(distance, IntervalDistance | OrdinalDistance | NominalDistance):
        return distance.name
    return None


def _alpha_result(
    observed_sum: float,
    expected_sum: float,
    n: float,
    n_pairable: int,
    *,
    n_items: int,
    n_coders: int,
) -> CoefficientResult | None:
    if n_pairable == 0:
        return None
    observed = observed_sum / n
    expected = expected_sum / (n * (n - 1.0))
    if not expected > 0:
        return None
    return CoefficientResult(
        name="alpha",
        value=float(1.0 - observed / expected),
        observed=float(observed),
        expected=float(expected),
        kind="disagreement",
        n_items=n_items,
        n_pairable_items=n_pairable,
        n_coders=n_coders,
    )


def _interval_alpha(array: NDArray[Any]) -> CoefficientResult | None:
    values = np.asarray(array, dtype=np.float64)
    missing = np.isnan(values)
    n_missing = int(np.count_nonzero(missing))
    if int(np.count_nonzero(np.isfinite(values))) + n_missing != values.size:
        return None  # infinite labels: the general path explains
    per_item = values.shape[0] - np.add.reduce(missing, axis=0, dtype=np.intp)
    pairable = per_item >= 2
    n_pairable = int(np.count_nonzero(pairable))
    if n_pairable == 0:
        return None
    if n_pairable < pairable.size:
        missing = missing | ~pairable  # a lone value is left out of both sums
        n_missing = 1
    m = np.where(pairable, per_item, 0).astype(np.float64)
    n = float(m.sum())
    filled = np.where(missing, 0.0, values) if n_missing else values.copy()
    center = float(filled.sum()) / n
    filled -= center
    if n_missing:
        filled[missing] = 0.0
    # D_e: 2 (n Σ x_c² - (Σ x_c)²) over all pairable values, centred for accuracy.
    total_square = float(np.einsum("ij,ij->", filled, filled))
    expected_sum = 2.0 * (n * total_square - float(filled.sum()) ** 2)
    # D_o: Σ_u 2 m_u Σ_i (x_i - x̄_u)² / (m_u - 1), around each item's mean.
    filled -= filled.sum(axis=0) / np.maximum(m, 1.0)
    if n_missing:
        filled[missing] = 0.0
    squares = np.einsum("ij,ij->j", filled, filled)
    weight = np.where(pairable, 2.0 * m / np.maximum(m - 1.0, 1.0), 0.0)
    observed_sum = float(np.dot(weight, squares))
    return _alpha_result(
        observed_sum,
        expected_sum,
        n,
        n_pairable,
        n_items=int(array.shape[1]),
        n_coders=int(array.shape[0]),
    )


def interval_alpha_from_data(
    data: ReliabilityData, distance: DistanceLike
) -> CoefficientResult | None:
    """Interval alpha of long-format data from per-item sums, or ``None`` for the general path.

    The numbers are the domain read as floats at each annotation's code; the sums are those
    of :func:`alpha_from_array` over the pairable annotations, per item by ``bincount`` on
    ``item_index``. ``None`` for another distance, a domain that is not all finite numbers,
    nothing pairable or no variation (the general path then explains).

    Examples
    --------
    Krippendorff (2011) reliability data (docs/references.md#k2011-reliability-data):

    >>> items = [0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5]
    >>> items += [6, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 8, 9, 9, 9, 10, 10, 11]
    >>> coders = [0, 1, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3]
    >>> coders += [0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3, 1, 2, 3, 2, 3, 2]
    >>> values = [1, 1, 1, 2, 2, 3, 2, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 2, 2, 1, 2, 3, 4]
    >>> values += [4, 4, 4, 4, 1, 1, 2, 1, 2, 2, 2, 2, 5, 5, 5, 1, 1, 3]
    >>> data = ReliabilityData.from_long(items, coders, values)
    >>> round(interval_alpha_from_data(data, "interval").value, 3)
    0.849
    """
    if _scalar_distance_name(distance) != "interval" or data.n_values == 0:
        return None
    positions = data.domain_as_floats
    if positions is None:
        return None
    per_item = data.values_per_item
    pairable = per_item >= 2
    n_pairable = int(np.count_nonzero(pairable))
    if n_pairable == 0:
        return None
    item = data.item_index
    values = positions[data.value_code]
    if n_pairable < pairable.size:
        kept = pairable[item]
        item, values = item[kept], values[kept]
    n = float(values.size)
    # D_e: 2 (n Σ x_c² - (Σ x_c)²) over all pairable values, centred for accuracy.
    values -= float(values.sum()) / n
    expected_sum = 2.0 * (n * float(values @ values) - float(values.sum()) ** 2)
    # D_o: Σ_u 2 m_u Σ_i (x_i - x̄_u)² / (m_u - 1), around each item's mean.
    n_items = pairable.size
    m = per_item.astype(np.float64)
    means = np.bincount(item, weights=values, minlength=n_items) / np.maximum(m, 1.0)
    values -= means[item]
    squares = np.bincount(item, weights=values * values, minlength=n_items)
    weight = np.where(pairable, 2.0 * m / np.maximum(m - 1.0, 1.0), 0.0)
    observed_sum = float(np.dot(weight, squares))
    return _alpha_result(
        observed_sum, expected_sum, n, n_pairable, n_items=data.n_items, n_coders=data.n_coders
    )


def nominal_alpha_from_data(
    data: ReliabilityData, distance: DistanceLike
) -> CoefficientResult | None:
    """Nominal alpha of long-format data from its items × values count table, or ``None``.

    The table is one ``bincount`` of the annotations in any order; the sums are those of the
    array form (:func:`alpha_from_array` with ``"nominal"``), in integers. ``None`` for
    another distance, a table that would be more than a few times the size of the data (many
    values), nothing pairable or no variation (the general path then explains).

    Examples
    --------
    Artstein & Poesio (2008), Table 1 as triples (docs/references.md#ap2008-table1):
    alpha = 313/910.

    >>> pairs = [(0, 0)] * 20 + [(1, 0)] * 20 + [(0, 1)] * 10 + [(1, 1)] * 50
    >>> items, coders = np.repeat(np.arange(100), 2), np.tile([0, 1], 100)
    >>> data = ReliabilityData.from_long(items, coders, np.ravel(pairs))
    >>> round(nominal_alpha_from_data(data, "nominal").value, 4)
    0.344
    """
    if _scalar_distance_name(distance) != "nominal" or data.n_values == 0:
        return None
    if not data.dense_counts_are_linear:
        return None
    # values × items (each value's row contiguous): the sums over values add whole rows.
    key = np.multiply(data.value_code, data.n_items)
    key += data.item_index
    table = np.bincount(key, minlength=data.n_values * data.n_items)
    tallies = table.reshape(data.n_values, data.n_items)
    return _nominal_from_tallies(
        tallies,
        np.add.reduce(tallies, axis=1),
        np.add.reduce(tallies, axis=0),
        n_items=data.n_items,
        n_coders=data.n_coders,
    )


def _item_value_counts(array: NDArray[Any]) -> NDArray[np.float64] | None:
    """``(n_items, span)`` counts ``n_uk`` of each whole-number label from the lowest on.

    ``None`` when :func:`_value_tallies` has no table for this array.
    """
    tallied = _value_tallies(array)
    return None if tallied is None else tallied[0].T.astype(np.float64)


def _value_tallies(
    array: NDArray[Any],
) -> tuple[NDArray[np.integer[Any]], NDArray[np.int64]] | None:
    """``(span, n_items)``: how many coders gave each item each whole number from the lowest.

    Returned with the table's row sums (how often each number occurs, ``(span,)``).

    ``None`` unless every present label is a whole number (of magnitude below 2⁵² for
    float64, where every whole number is a float), they span at most ``MAX_SPAN`` values
    and the table stays within a few times the size of the data. A narrow range is counted
    value by value straight from the array, each count in the narrowest integer type that
    holds the number of coders (no coding pass); a wider one by one ``bincount`` of the
    codes. Every label is a whole number when the counts add up to the labels present.
    """
    n_coders, n_items = array.shape
    small = _as_small_whole_numbers(array)
    if small is not None:  # complete data of small labels: count on one byte per label
        low, high = int(small.min()), int(small.max())
        span = high - low + 1
        if span <= _COUNTED_BY_VALUE and n_items * span <= 8 * array.size + (1 << 16):
            return _tally_by_value(small, low, span)
    if array.dtype.kind == "f":
        low = array.min()  # nan when a value is missing: then count the missing values
        if np.isnan(low):
            n_present = array.size - int(np.count_nonzero(np.isnan(array)))
            if n_present == 0:
                return None
            low, high = np.fmin.reduce(array, axis=None), np.fmax.reduce(array, axis=None)
        else:
            n_present, high = array.size, array.max()
        exact = 2.0 ** np.finfo(array.dtype).nmant  # every whole number below is a label
        if not (-exact < low and high < exact) or low != np.floor(low):
            return None  # infinite, too large to count by adding 1, or not whole
    else:
        n_present = array.size
        low, high = int(array.min()), int(array.max())  # Python ints: no wrap-around
    if not high - low < MAX_SPAN:
        return None
    span = int(high - low) + 1
    if n_items * span > 8 * array.size + (1 << 16):
        return None  # the items × values table would be much larger than the data
    if span <= _COUNTED_BY_VALUE:
        tallies, totals = _tally_by_value(array, low, span)
        if int(totals.sum()) != n_present:
            return None  # a label that is not a whole number
        return tallies, totals
    coded = _whole_number_codes(array)
    if coded is None:
        return None
    codes = coded[0] + (span + 1) * np.arange(n_items, dtype=np.intp)
    table = np.bincount(codes.ravel(), minlength=n_items * (span + 1))
    tallies = table.reshape(n_items, span + 1)[:, :span].T.astype(np.min_scalar_type(n_coders))
    return tallies, tallies.sum(axis=1, dtype=np.int64)


def _as_small_whole_numbers(array: NDArray[Any]) -> NDArray[np.uint8] | None:
    """The float array as bytes when every label is a whole number from 0 to 255, else None.

    One cast and one exact comparison: a label that is missing (``nan``), negative, larger
    than 255 or not whole cannot equal its byte, whatever the cast made of it.
    """
    if array.dtype.kind != "f":
        return None
    with np.errstate(invalid="ignore", over="ignore"):
        small = array.astype(np.uint8)
    if not np.array_equal(small, array):
        return None
    return small


def _tally_by_value(
    array: NDArray[Any], low: Any, span: int
) -> tuple[NDArray[np.integer[Any]], NDArray[np.int64]]:
    """``(span, n_items)`` counts of each number from ``low``, one comparison per value."""
    n_coders, n_items = array.shape
    count_type = np.min_scalar_type(n_coders)
    tallies = np.empty((span, n_items), dtype=count_type)
    for code in range(span):  # over values, not annotations
        np.add.reduce(array == low + code, axis=0, dtype=count_type, out=tallies[code])
    return tallies, tallies.sum(axis=1, dtype=np.int64)


def _nominal_alpha(array: NDArray[Any]) -> CoefficientResult | None:
    """Nominal alpha of a numeric array from its values × items count table."""
    tallied = _value_tallies(array)
    if tallied is None:
        return None
    tallies, marginals = tallied
    n_coders, n_items = array.shape
    complete = int(marginals.sum()) == n_coders * n_items
    per_item = None if complete else tallies.sum(axis=0, dtype=np.int64)
    return _nominal_from_tallies(tallies, marginals, per_item, n_items=n_items, n_coders=n_coders)


def _nominal_from_tallies(
    tallies: NDArray[np.integer[Any]],
    marginals: NDArray[np.integer[Any]],
    per_item: NDArray[np.integer[Any]] | None,
    *,
    n_items: int,
    n_coders: int,
) -> CoefficientResult | None:
    """Nominal alpha from ``(V, n_items)`` counts, their row sums (``marginals``) and column
    sums (``per_item``; ``None`` when every item has all ``n_coders`` values).

    Per item ``Σ_{k≠k'} n_uk n_uk' = m_u² - Σ_k n_uk²``, and over the pairable values
    ``n² - Σ_k n_k²``: integer sums, exact (complete data: one division in all).
    """
    if per_item is None:
        n_pairable = n_items if n_coders >= 2 else 0
    else:
        pairable = per_item >= 2
        n_pairable = int(np.count_nonzero(pairable))
        if 0 < n_pairable < n_items:
            tallies, per_item = tallies[:, pairable], per_item[pairable]
            marginals = tallies.sum(axis=1, dtype=np.int64)
    if n_pairable == 0:
        return None
    # Σ_k n_uk² ≤ m_u² ≤ coders²; never narrower than the counts themselves.
    square_type = np.promote_types(tallies.dtype, np.min_scalar_type(n_coders * n_coders))
    squares = np.zeros(n_pairable, dtype=square_type)
    for counts in tallies:  # over values, not annotations
        squares += np.multiply(counts, counts, dtype=square_type)
    n = int(marginals.sum())
    expected_sum = float(n * n - int(marginals @ marginals))
    if per_item is None:
        observed_sum = (n_coders * n - int(squares.sum(dtype=np.int64))) / (n_coders - 1.0)
    else:
        m = per_item.astype(np.float64)
        observed_sum = float(np.dot(1.0 / (m - 1.0), m * m - squares))
    return _alpha_result(
        observed_sum, expected_sum, float(n), n_pairable, n_items=n_items, n_coders=n_coders
    )


def _ordinal_alpha(array: NDArray[Any]) -> CoefficientResult | None:
    counts = _item_value_counts(array)
    if counts is None:
        return None
    per_item = counts.sum(axis=1)
    pairable = per_item >= 2
    n_pairable = int(np.count_nonzero(pairable))
    if n_pairable == 0:
        return None
    if n_pairable < pairable.size:
        counts, per_item = counts[pairable], per_item[pairable]
    marginals = counts.sum(axis=0)
    n = float(marginals.sum())
    ranks = midranks(marginals)
    ranks = ranks - float(marginals @ ranks) / n
    expected_sum = 2.0 * (n * float(marginals @ ranks**2) - float(marginals @ ranks) ** 2)
    weight = 1.0 / (per_item - 1.0)
    span = ranks.size
    if span <= 32:
        # Σ_kk' n_uk n_uk' (r_k - r_k')²: every term non-negative, no cancellation.
        squared = np.subtract.outer(ranks, ranks) ** 2
        within = np.einsum("uk,uk->u", counts @ squared, counts)
        observed_sum = float(np.dot(weight, within))
    else:
        # 2 m_u Σ_k n_uk (r_k - r̄_u)², around each item's mean rank.
        means = (counts @ ranks) / per_item
        deviations = ranks[None, :] - means[:, None]
        squares = np.einsum("uk,uk->u", counts, deviations * deviations)
        observed_sum = float(np.dot(2.0 * per_item * weight, squares))
    return _alpha_result(
        observed_sum,
        expected_sum,
        n,
        n_pairable,
        n_items=int(array.shape[1]),
        n_coders=int(array.shape[0]),
    )


# -- multi-pi ------------------------------------------------------------------------------


def fleiss_pi_from_array(
    data: object, distance: DistanceLike | None, domain: Sequence[Hashable] | None
) -> CoefficientResult | None:
    """Unweighted multi-pi (Fleiss' kappa) of a plain array of whole-number labels.

    From the items × values count table: :math:`A_o` the mean over pairable items of
    :math:`\\sum_k n_{ik}(n_{ik}-1) / (r_i(r_i-1))`, :math:`\\pi_k` the mean over rated items
    of :math:`n_{ik}/r_i` (Gwet's convention for missing values, as in
    :func:`metrics.coefficients.agreement.fleiss_pi`). ``None`` for other input or when
    multi-pi is undefined.

    Examples
    --------
    Two coders: Artstein & Poesio (2008), Table 1 (docs/references.md#ap2008-table1),
    π ≈ 0.341.

    >>> pairs = np.array([(0, 0)] * 20 + [(1, 0)] * 20 + [(0, 1)] * 10 + [(1, 1)] * 50).T
    >>> round(fleiss_pi_from_array(pairs, None, None).value, 3)
    0.341
    """
    array = numeric_array(data, domain)
    if array is None or distance is not None:
        return None
    counts = _item_value_counts(array)
    if counts is None:
        return None
    per_item = counts.sum(axis=1)
    pairable = per_item >= 2
    n_pairable = int(np.count_nonzero(pairable))
    rated = per_item > 0
    if n_pairable == 0:
        return None
    m = per_item[pairable]
    same = np.einsum("ik,ik->i", counts[pairable], counts[pairable]) - m
    observed = float((same / (m * (m - 1.0))).sum()) / n_pairable
    pooled = (counts[rated] / per_item[rated, None]).sum(axis=0) / float(np.count_nonzero(rated))
    expected = float(pooled @ pooled)
    if not abs(1.0 - expected) > 1e-12:
        return None
    return CoefficientResult(
        name="fleiss_pi",
        value=float((observed - expected) / (1.0 - expected)),
        observed=observed,
        expected=expected,
        kind="agreement",
        n_items=int(array.shape[1]),
        n_pairable_items=n_pairable,
        n_coders=int(array.shape[0]),
    )


# -- two coders ---------------------------------------------------------------------------


def two_coder_kappa_from_array(
    data: object,
    distance: DistanceLike | None,
    domain: Sequence[Hashable] | None,
    name: str,
) -> CoefficientResult | None:
    """Cohen's kappa (``distance=None``) or weighted kappa of a ``2 × n`` numeric array.

    ``None`` for any other input, or when the coefficient is undefined (the general path
    then raises the explanation).

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (docs/references.md#ap2008-table1): kappa ≈ 0.348.

    >>> pairs = np.array([(0, 0)] * 20 + [(1, 0)] * 20 + [(0, 1)] * 10 + [(1, 1)] * 50).T
    >>> round(two_coder_kappa_from_array(pairs, None, None, "cohen_kappa").value, 3)
    0.348
    """
    array = numeric_array(data, domain)
    if array is None or array.shape[0] != 2:
        return None
    coded = _whole_number_codes(array)
    if coded is None:
        return None
    codes, lowest, span = coded
    full = _pair_table(codes[0], codes[1], span)
    # The inferred domain is the values that occur, in order.
    occurring = np.flatnonzero(full[:span, :].sum(axis=1) + full[:, :span].sum(axis=0) > 0)
    keep = np.append(occurring, span)
    full = full[np.ix_(keep, keep)]
    domain_values = (occurring + lowest).astype(array.dtype).tolist()
    weights = None
    if distance is not None:
        # An empty table over the domain, to check the distance against the labels.
        size = len(domain_values)
        proxy = ReliabilityData.from_contingency(np.zeros((size, size)), domain=domain_values)
        both = full[:-1, :-1]
        weights = _weights(distance, proxy, domain_values, both.sum(axis=0) + both.sum(axis=1))
        if weights is None:
            return None
    return _kappa_from_table(full, weights, name, int(array.shape[1]))


def two_coder_kappa_from_data(
    data: ReliabilityData, weights: NDArray[np.float64] | None, name: str
) -> CoefficientResult | None:
    """Cohen's kappa (``weights=None``) or weighted kappa of two coders' long-format data.

    ``weights`` are the symmetric ``V × V`` agreement weights over ``data.domain``
    (:func:`metrics.coefficients.agreement.agreement_weights`). The pair table comes from
    one ``bincount`` of the items' codes, ``V`` standing for a value the coder left missing.
    ``None`` unless the data has two identified coders and at most ``MAX_SPAN`` values, or
    when kappa is undefined (the general path then explains).

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (docs/references.md#ap2008-table1): kappa ≈ 0.348.

    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> round(two_coder_kappa_from_data(data, None, "cohen_kappa").value, 3)
    0.348
    """
    if not data.coders_identified or data.n_coders != 2:
        return None
    span = data.n_values
    if span == 0 or span > MAX_SPAN:
        return None
    n_items = data.n_items
    code = data.value_code
    if code.size == 2 * n_items:
        # Complete: sorted item-major then by coder, so the two coders alternate.
        first, second = code[0::2], code[1::2]
    else:
        codes = np.full((2, n_items), span, dtype=np.intp)
        codes[data.coder_index, data.item_index] = code
        first, second = codes[0], codes[1]
    full = _pair_table(first, second, span)
    return _kappa_from_table(full, weights, name, n_items)


def _pair_table(
    first: NDArray[np.intp], second: NDArray[np.intp], span: int
) -> NDArray[np.float64]:
    """``(span+1) × (span+1)`` counts of code pairs; code ``span`` stands for missing."""
    size = span + 1
    table = np.bincount(first * size + second, minlength=size * size)
    return table.reshape(size, size).astype(np.float64)


def _kappa_from_table(
    full: NDArray[np.float64],
    weights: NDArray[np.float64] | None,
    name: str,
    n_items: int,
) -> CoefficientResult | None:
    """Kappa from a pair table whose last row and column count values without a partner.

    Gwet's convention for missing values: observed agreement over items both coders
    labelled, each coder's distribution from all of that coder's values.
    """
    span = full.shape[0] - 1
    both = full[:span, :span]
    first_all, second_all = full[:span, :].sum(axis=1), full[:, :span].sum(axis=0)
    n_both, n_first, n_second = float(both.sum()), float(first_all.sum()), float(second_all.sum())
    if n_both == 0 or n_first == 0 or n_second == 0:
        return None
    if weights is None:
        observed = float(np.trace(both)) / n_both
        expected = float((first_all / n_first) @ (second_all / n_second))
    else:
        observed = float(np.einsum("kl,kl->", weights, both)) / n_both
        expected = float((first_all / n_first) @ weights @ (second_all / n_second))
    if not abs(1.0 - expected) > 1e-12:
        return None
    return CoefficientResult(
        name=name,
        value=float((observed - expected) / (1.0 - expected)),
        observed=observed,
        expected=expected,
        kind="agreement",
        n_items=n_items,
        n_pairable_items=int(n_both),
        n_coders=2,
    )


def _weights(
    distance: DistanceLike,
    data: ReliabilityData,
    domain_values: Sequence[Hashable],
    pairable_counts: NDArray[np.float64],
) -> NDArray[np.float64] | None:
    """Symmetric agreement weights ``1 - d/d_max`` as in
    :func:`metrics.coefficients.agreement.agreement_weights`, the distance checked against
    ``data`` and given the pairable-value counts (for the ordinal metric)."""
    resolved = resolve_distance(distance, data)
    matrix = np.asarray(resolved.matrix(domain_values, pairable_counts), dtype=np.float64)
    check_matrix(matrix, len(domain_values), str(resolved.name))
    largest = float(matrix.max())
    if largest == 0:
        return None
    weights = 1.0 - matrix / largest
    return np.asarray((weights + weights.T) / 2.0, dtype=np.float64)
