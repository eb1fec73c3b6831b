"""Krippendorff's alpha with any distance and missing data, and its kappa-like variant.

Alpha compares the disagreement observed between values given to the same item with the
disagreement expected between values drawn at random from all pairable values:

.. math::

    \\alpha = 1 - \\frac{D_o}{D_e}, \\qquad
    D_o = \\frac{1}{n} \\sum_{k, k'} o_{kk'} d_{kk'}, \\qquad
    D_e = \\frac{1}{n(n-1)} \\sum_{k, k'} n_k n_{k'} d_{kk'}

with the coincidence matrix :math:`o_{kk'} = \\sum_u (n_{uk} n_{uk'} - [k = k'] n_{uk}) /
(m_u - 1)` over the items ``u`` with at least two values (``m_u`` values, ``n_{uk}`` of them
equal to ``k``), ``n_k`` its marginals and ``n`` the number of pairable values. With complete
data this is Artstein & Poesio's (2008, §2.6.1) D_o^α and D_e^α.

Memory stays linear in the data. Nominal, interval and ordinal alpha use closed forms (the
ordinal metric is the interval metric on mid-ranks, see
:func:`~metrics.distances.scalar.midranks`); the ratio metric on a large domain is summed in
chunks; only other distances build their ``V × V`` matrix, and that only for domains of at
most ``MAX_MATRIX_VALUES`` values. No ``n_items × V`` array is built unless it is no larger
than a few times the data.

A plain numeric array without ``domain=`` skips coding the labels: interval alpha, and
nominal and ordinal alpha of whole-number labels, are computed from it directly
(:mod:`metrics.coefficients.closed_forms`, the same value to 1e-12).

References
----------
Krippendorff, K. (2004). *Content Analysis: An Introduction to Its Methodology*, 2nd ed., ch. 11.
Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability.
https://repository.upenn.edu/asc_papers/43
Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
*Computational Linguistics* 34(4), 555–596, §2.6.1, §3.1. https://doi.org/10.1162/coli.07-034-R2
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.closed_forms import alpha_from_array, alpha_from_data
from metrics.coefficients.result import CoefficientResult
from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.decomposition import Decomposition
from metrics.distances import DistanceLike, check_matrix, resolve_distance
from metrics.distances.scalar import (
    IntervalDistance,
    NominalDistance,
    OrdinalDistance,
    RatioDistance,
    midranks,
    numeric_domain,
    ratio_pairs,
)

#: Largest domain for which a distance is materialised as a ``V × V`` matrix.
MAX_MATRIX_VALUES = 5000
#: Pairs of values evaluated at once when a distance is summed in chunks.
_CHUNK = 1 << 22
_TINY = float(np.finfo(np.float64).tiny)
#: Distances computed at once when the ratio metric is summed over value pairs.
_CROSS_BLOCK = 1 << 20

__all__ = [
    "MAX_MATRIX_VALUES",
    "alpha_individual",
    "coincidence_matrix",
    "decompose_alpha_individual",
    "decompose_krippendorff_alpha",
    "krippendorff_alpha",
]


@dataclass(frozen=True)
class _Pairable:
    """The pairable values, item by item (items with fewer than two values dropped).

    ``item`` indexes the pairable items ``0..n_items-1`` and is sorted; ``code`` and ``coder``
    are the value and the coder of each pairable value; ``m`` and ``weight`` are per item
    (``m_u`` and ``1 / (m_u - 1)``); ``counts`` are the value marginals ``n_k``.
    """

    item: NDArray[np.intp]
    code: NDArray[np.intp]
    coder: NDArray[np.intp]
    m: NDArray[np.float64]
    weight: NDArray[np.float64]
    counts: NDArray[np.float64]
    n_values: int

    @property
    def n_items(self) -> int:
        return int(self.m.size)

    @property
    def n(self) -> float:
        return float(self.code.size)


def _pairable(data: ReliabilityData) -> _Pairable:
    per_item = data.values_per_item
    pairable = data.pairable
    if pairable.all():  # every item pairable (complete data): the arrays as they are
        item, coder, code = data.item_index, data.coder_index, data.value_code
        m = per_item.astype(np.float64)
    else:
        kept = pairable[data.item_index]
        item_all = data.item_index[kept]
        coder, code = data.coder_index[kept], data.value_code[kept]
        renumber = np.cumsum(pairable) - 1
        item = renumber[item_all] if item_all.size else item_all
        m = per_item[pairable].astype(np.float64)
    counts = np.bincount(code, minlength=data.n_values).astype(np.float64)
    return _Pairable(item, code, coder, m, 1.0 / (m - 1.0), counts, data.n_values)


def _require_pairable(pairs: _Pairable) -> None:
    if pairs.n_items == 0:
        raise ValueError(
            "Alpha needs at least one item with values from at least two coders; no item has."
        )


# -- per-item value counts ----------------------------------------------------------------


def _item_counts_csr(pairs: _Pairable) -> sparse.csr_matrix:
    """``(n_items, V)`` sparse counts ``n_uk`` of the pairable items."""
    matrix = sparse.csr_matrix(
        (np.ones(pairs.code.size), (pairs.item, pairs.code)),
        shape=(pairs.n_items, pairs.n_values),
    )
    matrix.sum_duplicates()
    return matrix


def _dense_is_linear(pairs: _Pairable) -> bool:
    return pairs.n_items * pairs.n_values <= max(4 * pairs.code.size, 1 << 16)


def _sum_squared_counts(pairs: _Pairable) -> NDArray[np.float64]:
    """``Σ_k n_uk²`` for every pairable item, shape ``(n_items,)``."""
    if _dense_is_linear(pairs):
        flat = pairs.item * pairs.n_values + pairs.code
        dense = np.bincount(flat, minlength=pairs.n_items * pairs.n_values)
        dense = dense.reshape(pairs.n_items, pairs.n_values)
        return np.einsum("uv,uv->u", dense, dense).astype(np.float64)
    flat_keys = pairs.item.astype(np.int64) * pairs.n_values + pairs.code
    keys, counts = np.unique(flat_keys, return_counts=True)
    squares = counts.astype(np.float64) ** 2
    return np.asarray(
        np.bincount(keys // pairs.n_values, weights=squares, minlength=pairs.n_items),
        dtype=np.float64,
    )


def _row_pairs(
    indptr: NDArray[np.intp], budget: int = _CHUNK
) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """All ordered pairs of entries within each CSR row, in chunks of about ``budget`` pairs.

    Yields ``(left, right)`` entry indices; ``left[i]`` and ``right[i]`` share a row.
    """
    sizes = np.diff(indptr).astype(np.int64)
    cumulative = np.cumsum(sizes * sizes)
    start = 0
    n_rows = sizes.size
    while start < n_rows:
        done = cumulative[start - 1] if start else 0
        stop = int(np.searchsorted(cumulative, done + budget, side="right"))
        stop = max(stop, start + 1)
        rows = np.arange(start, stop)
        entries = np.arange(indptr[start], indptr[stop])
        row_of_entry = np.repeat(rows, sizes[start:stop])
        reps = sizes[row_of_entry]
        left = np.repeat(entries, reps)
        block_start = np.cumsum(reps) - reps
        offset = np.arange(left.size) - np.repeat(block_start, reps)
        right = np.repeat(indptr[row_of_entry], reps) + offset
        yield left, right
        start = stop


# -- distances as operations on counts ----------------------------------------------------


class _Metric:
    """A distance seen through the two sums alpha needs.

    ``within(pairs)``: per item ``Σ_{k,k'} n_uk n_uk' d_kk'`` (shape ``(n_items,)``).
    ``cross(a, b)``: ``Σ_{k,k'} a_k b_k' d_kk'`` for count vectors with leading axes.
    """

    def within(self, pairs: _Pairable) -> NDArray[np.float64]:
        raise NotImplementedError

    def cross(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        raise NotImplementedError


class _Nominal(_Metric):
    def within(self, pairs: _Pairable) -> NDArray[np.float64]:
        return pairs.m**2 - _sum_squared_counts(pairs)

    def cross(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(a.sum(-1) * b.sum(-1) - (a * b).sum(-1), dtype=np.float64)


class _Interval(_Metric):
    """``(x_k - x_k')²`` on per-value positions ``x`` (numeric labels, or mid-ranks)."""

    def __init__(self, positions: NDArray[np.float64]) -> None:
        self.positions = positions

    def within(self, pairs: _Pairable) -> NDArray[np.float64]:
        x = self.positions[pairs.code]
        sums = np.bincount(pairs.item, weights=x, minlength=pairs.n_items)
        means = sums / np.maximum(pairs.m, 1.0)
        deviations = x - means[pairs.item]
        squares = np.bincount(pairs.item, weights=deviations**2, minlength=pairs.n_items)
        return np.asarray(2.0 * pairs.m * squares, dtype=np.float64)

    def cross(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        x = self.positions
        both = a + b
        center = (both * x).sum(-1, keepdims=True) / np.maximum(both.sum(-1, keepdims=True), 1.0)
        xc = x - center
        s0a, s0b = a.sum(-1), b.sum(-1)
        s1a, s1b = (a * xc).sum(-1), (b * xc).sum(-1)
        s2a, s2b = (a * xc**2).sum(-1), (b * xc**2).sum(-1)
        return np.asarray(s0a * s2b + s0b * s2a - 2.0 * s1a * s1b, dtype=np.float64)


class _Matrix(_Metric):
    def __init__(self, matrix: NDArray[np.float64]) -> None:
        self.matrix = matrix

    def pair(self, left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
        return np.asarray(self.matrix[left, right], dtype=np.float64)

    def within(self, pairs: _Pairable) -> NDArray[np.float64]:
        counts = _item_counts_csr(pairs)
        total = np.zeros(pairs.n_items)
        row_of_entry = np.repeat(np.arange(pairs.n_items), np.diff(counts.indptr))
        for left, right in _row_pairs(counts.indptr):
            values = counts.data[left] * counts.data[right]
            values = values * self.pair(counts.indices[left], counts.indices[right])
            total += np.bincount(row_of_entry[left], weights=values, minlength=pairs.n_items)
        return total

    def cross(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.asarray(np.einsum("...j,jk,...k->...", a, self.matrix, b), dtype=np.float64)


class _ChunkedRatio(_Matrix):
    """The ratio metric on a domain too large for a ``V × V`` matrix: summed block by block."""

    def __init__(self, values: NDArray[np.float64]) -> None:
        self.values = values
        if np.any(values < 0):
            raise ValueError("The ratio distance needs non-negative labels.")

    def pair(self, left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
        return ratio_pairs(self.values[left], self.values[right])

    def cross(self, a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Σ_jk a_j b_k d_jk`` over row blocks of the upper triangle (``d`` is symmetric)."""
        values = self.values
        size = values.size
        block = max(1, _CROSS_BLOCK // size)
        total = np.zeros(np.broadcast_shapes(a.shape, b.shape)[:-1])
        for start in range(0, size, block):
            rows = slice(start, min(start + block, size))
            x = values[rows, None]
            y = values[None, start:]
            # Labels are non-negative, so x + y = 0 only where x = y = 0 and x - y = 0 too.
            d = (x - y) / np.maximum(x + y, _TINY)
            d *= d
            width = rows.stop - start
            square, rest = d[:, :width], d[:, width:]
            total = total + ((a[..., rows] @ square) * b[..., rows]).sum(-1)
            total = total + ((a[..., rows] @ rest) * b[..., rows.stop :]).sum(-1)
            total = total + ((b[..., rows] @ rest) * a[..., rows.stop :]).sum(-1)
        return np.asarray(total, dtype=np.float64)


def _metric(distance: DistanceLike, data: ReliabilityData, counts: NDArray[np.float64]) -> _Metric:
    """The cheapest exact way to sum ``distance`` over this data's domain.

    ``distance`` goes through :func:`metrics.distances.resolve_distance` (checked against the
    data); nominal, interval and ordinal are closed forms, ratio on a large domain is summed
    in chunks, any other distance is its checked ``V × V`` matrix (whose symmetric part is
    all alpha's sums see).
    """
    resolved = resolve_distance(distance)
    if isinstance(resolved, IntervalDistance):
        # Checking it against the data is reading the domain as numbers: done once here.
        return _Interval(numeric_domain(data.domain, "interval"))
    resolved = resolve_distance(resolved, data)
    if isinstance(resolved, NominalDistance):
        return _Nominal()
    if isinstance(resolved, OrdinalDistance):
        return _Interval(midranks(counts))
    if isinstance(resolved, RatioDistance) and data.n_values > MAX_MATRIX_VALUES:
        return _ChunkedRatio(numeric_domain(data.domain, "ratio"))
    if data.n_values > MAX_MATRIX_VALUES:
        raise ValueError(
            f"The {resolved.name} distance needs a {data.n_values} × {data.n_values} matrix, "
            f"larger than the limit of {MAX_MATRIX_VALUES} values; nominal, ordinal, interval and "
            "ratio alpha have no such limit."
        )
    matrix = np.asarray(resolved.matrix(data.domain, counts), dtype=np.float64)
    check_matrix(matrix, data.n_values, resolved.name)
    return _Matrix(matrix)


# -- alpha -------------------------------------------------------------------------------


def _finish(observed_sum: float, expected_sum: float, n: float) -> tuple[float, float]:
    observed = observed_sum / n
    expected = expected_sum / (n * (n - 1.0))
    if not expected > 0:
        raise ValueError(
            "Alpha is undefined: the expected disagreement is 0 because all pairable values are "
            "the same (or at distance 0 from each other). Alpha needs variation in the values."
        )
    return observed, expected


def krippendorff_alpha(
    data: DataLike,
    *,
    distance: DistanceLike = "nominal",
    domain: Sequence[Hashable] | None = None,
) -> CoefficientResult:
    """Krippendorff's alpha for any number of coders, any distance, with missing values.

    .. math::

        \\alpha = 1 - \\frac{D_o}{D_e}, \\quad
        D_o = \\frac{1}{n}\\sum_u \\frac{1}{m_u - 1}\\sum_{k,k'} n_{uk} n_{uk'} d_{kk'}, \\quad
        D_e = \\frac{1}{n(n-1)}\\sum_{k,k'} n_k n_{k'} d_{kk'}

    Items with fewer than two values are not pairable and are left out of both sums; ``n_k``
    counts value ``k`` among pairable values and ``n = Σ n_k``.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Coders × items values with ``nan`` (or ``None``) for a missing value.
    distance : str, Distance or array_like of shape (V, V), default "nominal"
        A registry name (``nominal``, ``ordinal``, ``interval``, ``ratio``, set and hierarchy
        names, see :func:`metrics.distances.get_distance`), a ``Distance``, or a matrix over
        the domain in order. Ordinal is Krippendorff's rank-frequency metric over the domain
        order (not Gwet's ordinal weights).
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`); required for ordinal alpha on string
        labels.

    Returns
    -------
    CoefficientResult
        ``name="alpha"``, ``kind="disagreement"``, ``observed=D_o``, ``expected=D_e``.

    Raises
    ------
    ValueError
        If no item has two values (nothing is pairable), or if the expected disagreement is 0
        (every pairable value the same): alpha is undefined then, and no number is returned.

    References
    ----------
    Artstein & Poesio (2008), §2.6.1; Krippendorff (2011), "Computing Krippendorff's
    alpha-reliability".

    Examples
    --------
    Artstein & Poesio (2008), Table 4 with the §2.6.2 weights (Table 6): α ≈ 0.8156.

    >>> from metrics import MatrixDistance
    >>> pairs = [("S", "S")] * 46 + [("I", "S")] * 6 + [("I", "I")] * 32
    >>> pairs += [("I", "C")] * 6 + [("C", "C")] * 10
    >>> weights = MatrixDistance([[0, .5, .5], [.5, 0, 1], [.5, 1, 0]], labels=["C", "I", "S"])
    >>> result = krippendorff_alpha(np.array(pairs, dtype=object).T, distance=weights)
    >>> round(result.value, 4), round(result.observed, 2), round(result.expected, 4)
    (0.8156, 0.09, 0.4879)

    Krippendorff (2011) reliability data with missing values, nominal: 0.743.

    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> round(krippendorff_alpha(data).value, 3)
    0.743
    """
    direct = alpha_from_array(data, distance, domain)
    if direct is not None:
        return direct
    reliability = as_reliability_data(data, domain=domain)
    direct = alpha_from_data(reliability, distance)
    if direct is not None:
        return direct
    return _general_alpha(reliability, distance)


def _general_alpha(reliability: ReliabilityData, distance: DistanceLike) -> CoefficientResult:
    """Alpha from the pairable values' per-item sums for any distance (no closed form)."""
    pairs = _pairable(reliability)
    _require_pairable(pairs)
    metric = _metric(distance, reliability, pairs.counts)
    observed_sum = float(np.dot(pairs.weight, metric.within(pairs)))
    expected_sum = float(metric.cross(pairs.counts, pairs.counts))
    observed, expected = _finish(observed_sum, expected_sum, pairs.n)
    return CoefficientResult(
        name="alpha",
        value=float(1.0 - observed / expected),
        observed=float(observed),
        expected=float(expected),
        kind="disagreement",
        n_items=reliability.n_items,
        n_pairable_items=pairs.n_items,
        n_coders=reliability.n_coders,
    )


def coincidence_matrix(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> NDArray[np.float64]:
    """Krippendorff's coincidence matrix of the pairable values.

    .. math:: o_{kk'} = \\sum_u \\frac{n_{uk} n_{uk'} - [k = k'] n_{uk}}{m_u - 1}

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    ndarray, shape (V, V)
        Symmetric; rows and columns follow the domain; row sums are the pairable-value
        marginals ``n_k`` and the total is ``n``. Builds a ``V × V`` array, so meant for
        display and diagnostics on categorical data.

    Examples
    --------
    Artstein & Poesio (2008), Table 1: 100 items, two coders.

    >>> pairs = [(0, 0)] * 20 + [(1, 0)] * 20 + [(0, 1)] * 10 + [(1, 1)] * 50
    >>> coincidence_matrix(np.array(pairs).T).tolist()
    [[40.0, 30.0], [30.0, 100.0]]
    """
    reliability = as_reliability_data(data, domain=domain)
    pairs = _pairable(reliability)
    counts = _item_counts_csr(pairs)
    weighted = sparse.diags(pairs.weight) @ counts
    coincidences = np.asarray((counts.T @ weighted).todense(), dtype=np.float64)
    coincidences -= np.diag(np.asarray(weighted.sum(axis=0)).ravel())
    return coincidences


# -- decomposition for the bootstrap ------------------------------------------------------


def decompose_krippendorff_alpha(
    data: DataLike,
    *,
    distance: DistanceLike = "nominal",
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """Alpha as ``finalize(sum of per-item statistics)``, for bootstrap and jackknife.

    One row per item of ``data``, all zeros for an unpairable item (so that every
    coefficient of the same data resamples the same items). Columns: for interval alpha
    ``[D_o contribution, m_u, Σ x, Σ x²]`` (values centred); for ordinal alpha the item's
    coincidences ``o_u`` flattened to ``V²`` columns (sparse), since the ordinal metric is
    recomputed from the resampled marginals; for every other distance
    ``[D_o contribution, n_u1, ..., n_uV]`` (sparse when ``V`` is large). ``finalize`` maps
    totals ``(..., k)`` to alpha ``(...)``, ``nan`` where the expected disagreement is 0.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
    distance : str, Distance or array_like of shape (V, V), default "nominal"
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    Decomposition
        ``name="alpha"``; ``evaluate()`` equals :func:`krippendorff_alpha`'s value.

    Raises
    ------
    ValueError
        If no item is pairable.

    Examples
    --------
    >>> nan = np.nan
    >>> data = [[1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    ...         [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    ...         [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    ...         [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan]]
    >>> decomposition = decompose_krippendorff_alpha(data, distance="ordinal")
    >>> round(float(decomposition.evaluate()), 3)
    0.815
    """
    reliability = as_reliability_data(data, domain=domain)
    return _decompose_pairable(reliability, distance).on_items(reliability.pairable)


def _decompose_pairable(reliability: ReliabilityData, distance: DistanceLike) -> Decomposition:
    """Alpha's decomposition with one row per pairable item."""
    pairs = _pairable(reliability)
    _require_pairable(pairs)
    resolved = resolve_distance(distance, reliability)
    if isinstance(resolved, OrdinalDistance):
        return _decompose_ordinal(pairs)
    metric = _metric(resolved, reliability, pairs.counts)
    if isinstance(metric, _Interval):
        return _decompose_interval(pairs, metric.positions)
    observed = pairs.weight * metric.within(pairs)
    counts = _item_counts_csr(pairs)
    if _dense_is_linear(pairs):
        stats: NDArray[np.float64] | sparse.csr_matrix = np.column_stack(
            [observed, counts.toarray()]
        )
    else:
        stats = sparse.hstack([sparse.csr_matrix(observed[:, None]), counts], format="csr")

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        marginals = totals[..., 1:]
        n = marginals.sum(-1)
        return _alpha_from_sums(totals[..., 0], metric.cross(marginals, marginals), n)

    return Decomposition("alpha", stats, finalize)


def _alpha_from_sums(
    observed_sum: NDArray[np.float64], expected_sum: NDArray[np.float64], n: NDArray[np.float64]
) -> NDArray[np.float64]:
    """``1 - D_o / D_e`` elementwise; ``nan`` where ``n < 2`` or ``D_e`` is (numerically) 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = observed_sum / n
        expected = expected_sum / (n * (n - 1.0))
        value = 1.0 - observed / expected
    scale = np.maximum(np.abs(observed), 1.0)
    undefined = (n < 2) | ~(expected > 1e-12 * scale)
    return np.asarray(np.where(undefined, np.nan, value), dtype=np.float64)


def _decompose_interval(pairs: _Pairable, positions: NDArray[np.float64]) -> Decomposition:
    x = positions[pairs.code]
    x = x - x.mean()
    observed = pairs.weight * _Interval(positions).within(pairs)
    s1 = np.bincount(pairs.item, weights=x, minlength=pairs.n_items)
    s2 = np.bincount(pairs.item, weights=x**2, minlength=pairs.n_items)
    stats = np.column_stack([observed, pairs.m, s1, s2])

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        n = totals[..., 1]
        expected_sum = 2.0 * (n * totals[..., 3] - totals[..., 2] ** 2)
        return _alpha_from_sums(totals[..., 0], expected_sum, n)

    return Decomposition("alpha", stats, finalize)


def _decompose_ordinal(pairs: _Pairable) -> Decomposition:
    size = pairs.n_values
    counts = _item_counts_csr(pairs)
    row_of_entry = np.repeat(np.arange(pairs.n_items), np.diff(counts.indptr))
    rows, columns, values = [], [], []
    for left, right in _row_pairs(counts.indptr):
        row = row_of_entry[left]
        product = counts.data[left] * counts.data[right] - np.where(
            left == right, counts.data[left], 0.0
        )
        rows.append(row)
        columns.append(counts.indices[left].astype(np.int64) * size + counts.indices[right])
        values.append(product * pairs.weight[row])
    stats = sparse.csr_matrix(
        (np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
        shape=(pairs.n_items, size * size),
    )
    stats.eliminate_zeros()

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        coincidences = np.asarray(totals, dtype=np.float64).reshape(
            *np.shape(totals)[:-1], size, size
        )
        marginals = coincidences.sum(-1)
        n = marginals.sum(-1)
        ranks = midranks(marginals)
        ranks = ranks - (marginals * ranks).sum(-1, keepdims=True) / np.maximum(n, 1.0)[..., None]
        second = (marginals * ranks**2).sum(-1)
        observed_sum = 2.0 * second - 2.0 * np.einsum(
            "...j,...jk,...k->...", ranks, coincidences, ranks
        )
        expected_sum = 2.0 * (n * second - (marginals * ranks).sum(-1) ** 2)
        return _alpha_from_sums(observed_sum, expected_sum, n)

    return Decomposition("alpha", stats, finalize)


# -- alpha with individual coder distributions --------------------------------------------


def alpha_individual(
    data: DataLike,
    *,
    distance: DistanceLike = "nominal",
    domain: Sequence[Hashable] | None = None,
) -> CoefficientResult:
    """Alpha with expected disagreement from each coder's own distribution (kappa-like alpha).

    Artstein & Poesio (2008, §3.1, §4.4.2) mention "a variant [of α] which uses individual
    coder distributions to calculate expected agreement" (the extended version calls it β).
    ``D_o`` is alpha's; ``D_e`` pairs values of *different* coders at random:

    .. math::

        D_e = \\frac{\\sum_{c \\ne c'} \\sum_{k,k'} n_{ck} n_{c'k'} d_{kk'}}
                   {\\sum_{c \\ne c'} n_c n_{c'}}

    with ``n_ck`` coder ``c``'s pairable values equal to ``k``. With complete data this is the
    mean over coder pairs of ``Σ P(k|c) P(k'|c') d_kk'``: Cohen's κ_w for two coders, and
    multi-κ (Davies & Fleiss 1982) with the nominal distance.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Coders must be identified (not an anonymous agreement table).
    distance : str, Distance or array_like of shape (V, V), default "nominal"
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult
        ``name="alpha_individual"``, ``kind="disagreement"``.

    Raises
    ------
    ValueError
        For anonymous coders, no pairable item, or an expected disagreement of 0.

    Examples
    --------
    Artstein & Poesio (2008), Table 4 with the §2.6.2 weights: equals κ_w ≈ 0.8163.

    >>> from metrics import MatrixDistance
    >>> pairs = [("S", "S")] * 46 + [("I", "S")] * 6 + [("I", "I")] * 32
    >>> pairs += [("I", "C")] * 6 + [("C", "C")] * 10
    >>> weights = MatrixDistance([[0, .5, .5], [.5, 0, 1], [.5, 1, 0]], labels=["C", "I", "S"])
    >>> round(alpha_individual(np.array(pairs, dtype=object).T, distance=weights).value, 4)
    0.8163
    """
    reliability = as_reliability_data(data, domain=domain)
    if not reliability.coders_identified:
        raise ValueError(
            "The kappa-like alpha needs each coder's own distribution; these data have "
            "anonymous coders (an agreement table). Use krippendorff_alpha instead."
        )
    pairs = _pairable(reliability)
    _require_pairable(pairs)
    metric = _metric(distance, reliability, pairs.counts)
    observed = float(np.dot(pairs.weight, metric.within(pairs))) / pairs.n
    # Σ_{c≠c'} = all ordered pairs of pairable values minus the pairs within each coder; the
    # within-coder sums are alpha's per-item sums with coders as the groups.
    sizes = np.bincount(pairs.coder, minlength=reliability.n_coders).astype(np.float64)
    by_coder = _Pairable(
        pairs.coder, pairs.code, pairs.coder, sizes, np.ones_like(sizes), pairs.counts,
        pairs.n_values,
    )  # fmt: skip
    numerator = float(metric.cross(pairs.counts, pairs.counts)) - float(
        metric.within(by_coder).sum()
    )
    denominator = pairs.n**2 - float((sizes**2).sum())
    expected = numerator / denominator if denominator > 0 else 0.0
    if not expected > 0:
        raise ValueError(
            "The kappa-like alpha is undefined: the expected disagreement between coders is 0 "
            "(every coder used one and the same value)."
        )
    return CoefficientResult(
        name="alpha_individual",
        value=float(1.0 - observed / expected),
        observed=float(observed),
        expected=float(expected),
        kind="disagreement",
        n_items=reliability.n_items,
        n_pairable_items=pairs.n_items,
        n_coders=reliability.n_coders,
    )


def decompose_alpha_individual(
    data: DataLike,
    *,
    distance: DistanceLike = "nominal",
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """The kappa-like alpha as ``finalize(sum of per-item statistics)``, for the bootstrap.

    One row per item (zeros when unpairable): ``[D_o contribution, n_{u,c,k} for every coder
    c and value k]``
    (sparse, ``1 + n_coders · V`` columns); ``finalize`` rebuilds each coder's distribution
    from the totals. The ordinal metric, which would have to be recomputed from resampled
    marginals inside each coder's sums, is not supported here.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
    distance : str, Distance or array_like of shape (V, V), default "nominal"
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    Decomposition
        ``name="alpha_individual"``; ``evaluate()`` equals :func:`alpha_individual`'s value.

    Raises
    ------
    ValueError
        For anonymous coders, no pairable item, or the ordinal distance.

    Examples
    --------
    >>> pairs = [("S", "S")] * 46 + [("I", "S")] * 6 + [("I", "I")] * 32
    >>> pairs += [("I", "C")] * 6 + [("C", "C")] * 10
    >>> decomposition = decompose_alpha_individual(np.array(pairs, dtype=object).T)
    >>> round(float(decomposition.evaluate()), 4)
    0.8013
    """
    reliability = as_reliability_data(data, domain=domain)
    if not reliability.coders_identified:
        raise ValueError("The kappa-like alpha needs identified coders, not an agreement table.")
    resolved = resolve_distance(distance, reliability)
    if isinstance(resolved, OrdinalDistance):
        raise ValueError(
            "The kappa-like alpha's decomposition does not support the ordinal distance; "
            "use decompose_krippendorff_alpha or another distance."
        )
    pairs = _pairable(reliability)
    _require_pairable(pairs)
    metric = _metric(resolved, reliability, pairs.counts)
    size, n_coders = pairs.n_values, reliability.n_coders
    observed = pairs.weight * metric.within(pairs)
    rows = np.concatenate([np.arange(pairs.n_items), pairs.item])
    columns = np.concatenate(
        [np.zeros(pairs.n_items, np.intp), 1 + pairs.coder * size + pairs.code]
    )
    values = np.concatenate([observed, np.ones(pairs.code.size)])
    stats = sparse.csr_matrix((values, (rows, columns)), shape=(pairs.n_items, 1 + n_coders * size))

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        per_coder = totals[..., 1:].reshape(*totals.shape[:-1], n_coders, size)
        marginals = per_coder.sum(-2)
        n = marginals.sum(-1)
        sizes = per_coder.sum(-1)
        numerator = metric.cross(marginals, marginals) - metric.cross(per_coder, per_coder).sum(-1)
        denominator = n**2 - (sizes**2).sum(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = numerator / denominator
            value = 1.0 - (totals[..., 0] / n) / expected
        undefined = ~(denominator > 0) | ~(expected > 1e-12 * np.maximum(totals[..., 0] / n, 1.0))
        return np.asarray(np.where(undefined, np.nan, value), dtype=np.float64)

    return Decomposition("alpha_individual", stats, finalize).on_items(reliability.pairable)
