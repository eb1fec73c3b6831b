"""Leave-one-item-out values of the kappa-family models, from sparse rows.

The jackknife behind BCa intervals needs ``finalize(T - s_u)`` for every item ``u``. With
pooled chance the totals ``T`` hold ``V`` value shares, with coder chance ``C·V`` coder ×
value counts: a dense copy per item would cost ``n_items × V``, which a domain of many
distinct numbers (hundreds of thousands) makes impossible. These functions update the few
sums the chance models read, by each item's non-zero entries only.

Pooled chance (Scott's and Fleiss' pi) and Gwet's AC1, with ``S`` the share totals:

.. math:: \\sum_k (S_k - s_{uk})^2 = \\sum_k S_k^2 - 2\\, s_u \\cdot S + \\sum_k s_{uk}^2

Coder chance (Cohen's and Conger's kappa), :math:`p_g = T_g / n_g`, :math:`P = \\sum_g p_g`:
leaving item ``u`` out changes only the coders ``g`` who labelled it (value :math:`k_g`),
:math:`p'_g = p_g + \\delta_g` with :math:`\\delta_g = a_g T_g - e_{k_g} / n'_g` and
:math:`a_g = 1/n'_g - 1/n_g` (:math:`1/n'_g` read as 0 when the coder has no value left), so

.. math::

    |P'|^2 = |P|^2 + 2 \\sum_g P \\cdot \\delta_g + \\sum_{g, h} \\delta_g \\cdot \\delta_h,
    \\qquad
    \\delta_g \\cdot \\delta_h = a_g a_h\\, T_g \\cdot T_h - \\frac{a_g T_{g k_h}}{n'_h}
        - \\frac{a_h T_{h k_g}}{n'_g} + \\frac{[k_g = k_h]}{n'_g n'_h}

and :math:`|p'_g|^2 = (|T_g|^2 - 2 T_{g k_g} + 1) / n'^2_g`; the coders' inner products
:math:`T_g \\cdot T_h` come from one sparse product. Each item costs :math:`O(r_u^2)`.

Weighted kappa (a symmetric ``V × V`` matrix ``w``, so ``V`` at most ``MAX_MATRIX_VALUES``)
is the same update with every inner product taken through ``w``: :math:`T_g w T_h`,
:math:`(T_g w)_{k}` for :math:`T_{gk}`, :math:`(w P)_k` for :math:`P_k` and :math:`w_{kl}`
for :math:`[k = l]`, from the dense ``C × V`` product :math:`T w`. This is the only
leave-one-out of multi-kappa (Cohen's, Conger's and weighted kappa), on dense and sparse
counts alike; Light's kappa has its own (:mod:`metrics.coefficients.coder_chance`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.coder_chance import chance_corrected, divide
from metrics.decomposition import ItemStats, LeaveOneOut

__all__ = ["jackknife_factory"]


def jackknife_factory(
    chance: str,
    n_values: int,
    n_coders: int,
    weight_total: float,
    weights: NDArray[np.float64] | None = None,
) -> LeaveOneOut:
    """The ``leave_one_out`` of a model with ``pooled``, ``gwet`` or ``coder`` chance over
    columns ``[p_a, pairable, ...]`` as
    :func:`metrics.coefficients.agreement.build_decomposition` lays them out: unweighted;
    ``gwet`` weighted (AC2), whose weights enter only through their sum ``weight_total``
    (``V`` unweighted); ``coder`` weighted by the ``V × V`` matrix ``weights``."""
    if chance not in ("pooled", "gwet", "coder"):
        raise ValueError(f"No sparse leave-one-out for chance {chance!r}.")
    matrix = None if weights is None else np.asarray(weights, dtype=np.float64)
    return _LeaveOneOut(chance, n_values, n_coders, weight_total, matrix)


@dataclass(frozen=True)
class _LeaveOneOut:
    """A plain object rather than a closure, so that a decomposition stays picklable."""

    chance: str
    n_values: int
    n_coders: int
    weight_total: float
    weights: NDArray[np.float64] | None = field(default=None, compare=False)

    def __call__(self, totals: NDArray[np.float64]) -> Callable[[ItemStats], NDArray[np.float64]]:
        totals = np.asarray(totals, dtype=np.float64)
        if self.chance == "coder":
            return _coder(totals, self.n_values, self.n_coders, self.weights)
        return _pooled(totals, self.n_values, self.chance, self.weight_total)


def _observed(rows: sparse.csr_matrix, totals: NDArray[np.float64]) -> NDArray[np.float64]:
    head = rows[:, :2].toarray()
    return divide(totals[0] - head[:, 0], totals[1] - head[:, 1])


def _row_sums(matrix: sparse.csr_matrix) -> NDArray[np.float64]:
    return np.asarray(matrix.sum(axis=1), dtype=np.float64).ravel()


def _pooled(
    totals: NDArray[np.float64], size: int, chance: str, weight_total: float
) -> Callable[[ItemStats], NDArray[np.float64]]:
    shares_total = totals[2 : 2 + size]
    rated_total = totals[2 + size]
    square = float(shares_total @ shares_total)
    linear = float(shares_total.sum())

    def values(block: ItemStats) -> NDArray[np.float64]:
        rows = sparse.csr_matrix(block)
        shares = rows[:, 2 : 2 + size]
        left = rated_total - rows[:, 2 + size].toarray().ravel()
        squares = square - 2.0 * np.asarray(shares @ shares_total).ravel()
        squares = squares + _row_sums(shares.multiply(shares))
        if chance == "pooled":
            expected = divide(squares, left * left)
        else:
            spread = divide(linear - _row_sums(shares), left) - divide(squares, left * left)
            factor = weight_total / (size * (size - 1)) if size > 1 else 0.0
            expected = factor * spread if size > 1 else spread + 1.0
        return chance_corrected(_observed(rows, totals), expected)

    return values


def _pairs_within_rows(indptr: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every pair ``e < f`` of entries of the same CSR row, as entry positions."""
    sizes = np.diff(indptr)
    n = int(indptr[-1])
    row_of = np.repeat(np.arange(sizes.size), sizes)
    after = sizes[row_of] - (np.arange(n) - indptr[row_of]) - 1
    left = np.repeat(np.arange(n), after)
    block_start = np.cumsum(after) - after
    right = left + 1 + (np.arange(left.size) - np.repeat(block_start, after))
    return left, right


@dataclass(frozen=True)
class _CoderProducts:
    """The coders' count vectors ``T_g`` read through the weights (the identity if none)."""

    counts: NDArray[np.float64]  # (C·V,) the totals' coder × value counts
    size: int
    weights: NDArray[np.float64] | None
    weighted_counts: NDArray[np.float64] | None  # (C, V): T w, with weights only

    def towards(self, coder: NDArray[np.int64], value: NDArray[np.int64]) -> NDArray[np.float64]:
        """:math:`(T_g w)_k`."""
        if self.weighted_counts is None:
            return self.counts[coder * self.size + value]
        return self.weighted_counts[coder, value]

    def weight(self, first: NDArray[np.int64], second: NDArray[np.int64]) -> NDArray[np.float64]:
        """:math:`w_{kl}`."""
        if self.weights is None:
            return (first == second).astype(np.float64)
        return self.weights[first, second]


def _coder(
    totals: NDArray[np.float64],
    size: int,
    n_coders: int,
    weights: NDArray[np.float64] | None,
) -> Callable[[ItemStats], NDArray[np.float64]]:
    counts = totals[2:]
    present = np.flatnonzero(counts)
    coder_of, value_of, t = present // size, present % size, counts[present]
    n_g = np.bincount(coder_of, weights=t, minlength=n_coders).astype(np.float64)
    inv_n = divide(np.ones(n_coders), n_g)
    inv_n = np.where(n_g > 0, inv_n, 0.0)
    pooled = np.bincount(value_of, weights=t * inv_n[coder_of], minlength=size).astype(np.float64)
    by_coder = sparse.csr_matrix((t, (coder_of, value_of)), shape=(n_coders, size))
    gram: sparse.csr_matrix | NDArray[np.float64]
    weighted_pooled: NDArray[np.float64]
    if weights is None:
        weighted_pooled = pooled
        q_g = np.bincount(coder_of, weights=t * t, minlength=n_coders).astype(np.float64)
        gram = (by_coder @ by_coder.T).tocsr()
        gram.sort_indices()  # reading 2M (g, h) entries: 0.2 s sorted, 2.9 s unsorted
        products = _CoderProducts(counts, size, None, None)
    else:
        weighted_pooled = np.asarray(weights @ pooled, dtype=np.float64)
        weighted_counts = np.asarray(by_coder @ weights, dtype=np.float64)
        q_g = np.asarray(by_coder.multiply(weighted_counts).sum(axis=1), np.float64).ravel()
        gram = np.asarray(by_coder @ weighted_counts.T, dtype=np.float64)
        products = _CoderProducts(counts, size, weights, weighted_counts)
    pooled_dot_coder = np.bincount(
        coder_of, weights=weighted_pooled[value_of] * t, minlength=n_coders
    )
    all_pairs = float(pooled @ weighted_pooled)
    same = float(q_g @ (inv_n * inv_n))
    n_rated = float(np.count_nonzero(n_g > 0))

    def values(block: ItemStats) -> NDArray[np.float64]:
        rows = sparse.csr_matrix(block)
        body = rows[:, 2:].tocsr()
        n_rows = body.shape[0]
        row_of = np.repeat(np.arange(n_rows), np.diff(body.indptr))
        column = body.indices.astype(np.int64)
        g, k = column // size, column % size
        remaining = n_g[g] - 1.0
        inv_left = np.where(remaining > 0, 1.0 / np.where(remaining > 0, remaining, 1.0), 0.0)
        a = inv_left - inv_n[g]
        own = products.towards(g, k)
        own_weight = products.weight(k, k)

        def per_row(terms: NDArray[np.float64], rows_of: NDArray[np.intp]) -> NDArray[np.float64]:
            return np.bincount(rows_of, weights=terms, minlength=n_rows).astype(np.float64)

        towards_pooled = a * pooled_dot_coder[g] - inv_left * weighted_pooled[k]
        with_itself = a * a * q_g[g] - 2.0 * a * inv_left * own + inv_left * inv_left * own_weight
        own_square = (q_g[g] - 2.0 * own + own_weight) * inv_left**2 - q_g[g] * inv_n[g] ** 2
        e, f = _pairs_within_rows(body.indptr)
        shared = np.asarray(gram[g[e], g[f]], dtype=np.float64).ravel() if e.size else e * 0.0
        between = (
            a[e] * a[f] * shared
            - a[e] * inv_left[f] * products.towards(g[e], k[f])
            - a[f] * inv_left[e] * products.towards(g[f], k[e])
            + inv_left[e] * inv_left[f] * products.weight(k[e], k[f])
        )
        all_left = (
            all_pairs
            + per_row(2.0 * towards_pooled + with_itself, row_of)
            + 2.0 * per_row(between, row_of[e])
        )
        same_left = same + per_row(own_square, row_of)
        rated_left = n_rated - per_row((remaining == 0).astype(np.float64), row_of)
        expected = divide(all_left - same_left, rated_left * (rated_left - 1.0))
        return chance_corrected(_observed(rows, totals), expected)

    return values
