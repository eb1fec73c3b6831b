"""Coefficients as functions of per-item sufficient statistics: :class:`Decomposition`.

Every coefficient in this library is computed from *column sums* of a per-item statistics
matrix: row ``u`` holds item ``u``'s contribution (its agreement, its value counts, its
coder × value counts, ...), and ``finalize`` turns the totals into the coefficient. That one
shape serves three uses without recomputing anything per item:

- the coefficient itself: ``finalize(stats.sum(axis=0))``;
- a bootstrap over items: ``finalize(W @ stats)`` for a replicates × items matrix ``W`` of
  resampling counts (one matrix product for all replicates);
- the jackknife behind BCa intervals: ``finalize(total - stats)`` (leave one item out).
  That costs items × columns; a coefficient whose rows are wide and sparse (one column per
  value, per coder and category, or per coder pair) can give ``leave_one_out``, the same
  values by an update of the totals that reads only each row's non-zero columns.

``finalize`` is vectorised over leading axes and returns ``nan`` where the totals leave the
coefficient undefined (for example expected disagreement zero); the bootstrap counts those
replicates as degenerate. Public scalar functions never return that ``nan``: they raise
``ValueError`` with the reason instead.

Every coefficient ``f`` has a ``decompose_f`` twin returning its ``Decomposition``
(``metrics.decompose_krippendorff_alpha`` and so on); :mod:`metrics.uncertainty.bootstrap`
resamples any of them, and the server stacks several to draw one resample for all.

Examples
--------
Observed agreement of 10 items, 7 agreed on: one column for agreement, one for the item.

>>> import numpy as np
>>> stats = np.array([[1.0, 1.0]] * 7 + [[0.0, 1.0]] * 3)
>>> ao = Decomposition("ao", stats, lambda totals: totals[..., 0] / totals[..., 1])
>>> float(ao.evaluate()), ao.n_items
(0.7, 10)
>>> ao.evaluate(np.array([[2.0] * 7 + [0.0] * 3])).tolist()  # items 1-7 drawn twice
[1.0]
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TypeAlias

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

#: One row of statistics per item: dense, or sparse when the rows are wide and mostly zero.
ItemStats: TypeAlias = NDArray[np.float64] | sparse.csr_matrix
#: Maps column totals ``(..., k)`` to coefficient values ``(...)``.
Finalize: TypeAlias = Callable[[NDArray[np.float64]], NDArray[np.float64]]
#: Given the totals, maps a block of rows ``s_u`` to ``finalize(totals - s_u)`` per row.
LeaveOneOut: TypeAlias = Callable[[NDArray[np.float64]], Callable[[ItemStats], NDArray[np.float64]]]

__all__ = ["Decomposition", "Finalize", "ItemStats", "LeaveOneOut"]


@dataclass(frozen=True)
class Decomposition:
    """A coefficient written as ``finalize(sum of item_stats rows)``.

    Attributes
    ----------
    name : str
        The coefficient's key (``"alpha"``, ``"kappa"``, ...).
    item_stats : ndarray or scipy.sparse.csr_matrix, shape (n_items, k)
        One row per item of the data the coefficient was built from.
    finalize : callable
        Maps totals of shape ``(..., k)`` to values of shape ``(...)``; ``nan`` marks
        undefined totals.
    leave_one_out : callable, optional
        ``leave_one_out(totals)(rows)`` gives ``finalize(totals - row)`` for every row of a
        block of rows of this layout (from any items), equal to it up to rounding, in time
        proportional to the rows' non-zero entries: the jackknife's way past ``finalize`` on
        a dense ``k``-wide array per item when the rows are wide and sparse. The work that
        depends on the totals only is done once, in ``leave_one_out(totals)``. It depends on
        the column layout, not on the items, so it stays valid when rows are selected,
        stacked or spread (:meth:`with_rows`, :meth:`on_items`);
        :func:`metrics.jackknife_values` uses it when given, else calls ``finalize``.
    """

    name: str
    item_stats: ItemStats
    finalize: Finalize
    leave_one_out: LeaveOneOut | None = field(default=None, compare=False)

    @property
    def n_items(self) -> int:
        return int(self.item_stats.shape[0])

    def totals(self, weights: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """Column sums, or ``weights @ item_stats`` for a (replicates × items) weight matrix."""
        if weights is None:
            return np.asarray(self.item_stats.sum(axis=0)).ravel()
        return np.asarray(weights @ self.item_stats)

    def evaluate(self, weights: NDArray[np.float64] | None = None) -> NDArray[np.float64]:
        """``finalize(totals(weights))``: the coefficient, or one value per row of weights."""
        return np.asarray(self.finalize(self.totals(weights)), dtype=np.float64)

    def on_items(self, kept: NDArray[np.bool_]) -> Decomposition:
        """This decomposition's rows belong to the items where ``kept`` is True: spread them
        over every item, the others getting zero rows.

        Items a coefficient leaves out (unpairable, or not labelled by both coders) add
        nothing to its sums, but coefficients bootstrapped together must all have one row
        per item of the data, so that a resample draws the same items for each of them.
        """
        rows = np.flatnonzero(kept)
        if rows.size != self.n_items:
            raise ValueError(f"{rows.size} kept items for a decomposition of {self.n_items}.")
        stats = self.item_stats
        if sparse.issparse(stats):
            coo = sparse.coo_matrix(stats)
            spread: ItemStats = sparse.csr_matrix(
                (coo.data, (rows[coo.row], coo.col)), shape=(kept.size, stats.shape[1])
            )
        else:
            spread = np.zeros((kept.size, stats.shape[1]))
            spread[rows] = stats
        return self.with_rows(spread)

    def with_rows(self, item_stats: ItemStats) -> Decomposition:
        """The same coefficient (``finalize``, ``leave_one_out``) on other rows of the same
        columns: a selection of the items, or rows stacked from several ranges of items."""
        return replace(self, item_stats=item_stats)
