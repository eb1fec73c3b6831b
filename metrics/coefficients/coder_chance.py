"""Chance from each coder's own distribution, on totals, and Light's kappa's leave-one-item-out
update; also the small helpers on totals the kappa family shares (:func:`divide`,
:func:`chance_corrected`).

Multi-kappa (with Cohen's and weighted kappa, its two-coder and weighted cases) and Light's
kappa take chance from each coder's distribution :math:`p_{gk} = n_{gk}/n_g`, so their rows
hold one column per coder and category (Light's kappa also two per coder pair: agreeing,
both labelled). The jackknife behind BCa intervals, ``finalize(total - row)`` for every
item, then costs items × columns: with 2,000 coders, minutes. Leaving one item out changes
only the distributions of the few coders who labelled it, so every leave-one-out value is an
update of the full-data quantities, read from each row's non-zero columns. Multi-kappa's
update is :mod:`metrics.coefficients.agreement_jackknife` (dense and sparse counts, weighted
or not); Light's kappa's is here:

- the mean of the defined :math:`\\kappa_{gh}` is :math:`\\sum \\kappa / \\#\\text{defined}`.
  Without one item, coder g's distribution is one of C × V (g, its value on the item), and
  every pair of g whose other coder is not on the item changes only through it: the change
  of the sum and of the count when g loses a value k is tabled once, over g's pairs
  (O(pairs × V²) time, O(pairs × V) memory). An item adds its coders' entries and, for each
  pair of coders both on it (both distributions and the pair's observed agreement change),
  replaces those two entries by the pair's exact change. Cost O(pairs × V² + annotations ×
  coders per item × V).

Each value equals ``finalize(total - row)`` up to rounding (the tests compare them to 1e-12
and to coefficients recomputed without the item).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.decomposition import ItemStats

#: ``|1 - A_e|`` at or below this leaves a kappa undefined (one category in use).
TOLERANCE = 1e-12


def divide(numerator: NDArray[np.float64], denominator: NDArray[np.float64]) -> NDArray[np.float64]:
    """``numerator / denominator``, ``nan`` where the denominator is not positive."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            denominator > 0, numerator / np.where(denominator > 0, denominator, 1), np.nan
        )


def coder_distributions(
    totals: NDArray[np.float64], n_coders: int, n_values: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each coder's :math:`p_{gk}`, ``(..., C, V)`` (zero rows for coders without values),
    and the number of coders with values, ``(...)``, from the last C·V columns of totals."""
    counts = totals[..., -n_coders * n_values :].reshape(*totals.shape[:-1], n_coders, n_values)
    per_coder = counts.sum(axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        shares = np.where(per_coder > 0, counts / np.where(per_coder > 0, per_coder, 1), 0.0)
    return shares, np.count_nonzero(per_coder[..., 0] > 0, axis=-1).astype(np.float64)


def chance_corrected(
    observed: NDArray[np.float64], expected: NDArray[np.float64]
) -> NDArray[np.float64]:
    """:math:`(A_o - A_e)/(1 - A_e)`, ``nan`` where :math:`|1 - A_e|` is within TOLERANCE."""
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (observed - expected) / (1 - expected)
    return np.where(np.abs(1 - expected) > TOLERANCE, value, np.nan)


# -- the rows' coders ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _RowCoders:
    """The (row, coder) groups of some rows' coder columns, sorted by ``row·C + coder``."""

    key: NDArray[np.int64]
    row: NDArray[np.intp]
    coder: NDArray[np.intp]
    removed: NDArray[np.float64]  # (groups, V): the coder's value counts on that row


def _row_coders(rows: sparse.csr_matrix, n_coders: int, n_values: int) -> _RowCoders:
    coder_block = rows[:, rows.shape[1] - n_coders * n_values :].tocoo()
    nonzero = coder_block.data != 0
    row = coder_block.row[nonzero].astype(np.int64)
    column = coder_block.col[nonzero].astype(np.int64)
    key, group = np.unique(row * n_coders + column // n_values, return_inverse=True)
    removed = np.bincount(
        group.reshape(-1) * n_values + column % n_values,
        weights=coder_block.data[nonzero],
        minlength=key.size * n_values,
    ).reshape(key.size, n_values)
    return _RowCoders(
        key=key,
        row=(key // n_coders).astype(np.intp),
        coder=(key % n_coders).astype(np.intp),
        removed=np.asarray(removed, dtype=np.float64),
    )


def _sum_by_row(row: NDArray[np.intp], values: NDArray[np.float64], n_rows: int) -> NDArray[Any]:
    """``out[r] = Σ values[i]`` over ``row[i] == r`` (values 1-D or 2-D)."""
    if values.ndim == 1:
        return np.bincount(row, weights=values, minlength=n_rows)
    width = values.shape[1]
    flat = (row[:, None] * width + np.arange(width)).reshape(-1)
    return np.bincount(flat, weights=values.reshape(-1), minlength=n_rows * width).reshape(
        n_rows, width
    )


def _as_csr(rows: ItemStats) -> sparse.csr_matrix:
    return sparse.csr_matrix(rows, dtype=np.float64)


# -- Light's kappa --------------------------------------------------------------------------------


@dataclass(frozen=True)
class _LightTables:
    """Full-data quantities of Light's kappa and the per-(coder, lost value) changes."""

    agree: NDArray[np.float64]  # (P,)
    both: NDArray[np.float64]
    observed: NDArray[np.float64]
    shares: NDArray[np.float64]  # (C, V)
    counts: NDArray[np.float64]  # (C, V): each coder's value counts
    kappa: NDArray[np.float64]  # (P,), 0 where undefined
    defined: NDArray[np.float64]  # (P,), 1 or 0
    kappa_sum: float
    n_defined: float
    gain: NDArray[np.float64]  # (C, V): change of Σκ when coder g loses a value k
    gain_defined: NDArray[np.float64]  # (C, V): change of the count of defined pairs


def _without(
    counts: NDArray[np.float64], coder: NDArray[np.intp], value: NDArray[np.intp] | int
) -> NDArray[np.float64]:
    """Each ``coder``'s distribution without one of its ``value`` labels, ``(n, V)`` (zeros
    for a coder left without labels); computed where needed, never a ``C × V × V`` table."""
    left = counts[coder].copy()
    left[np.arange(coder.size), value] -= 1.0
    left_per_coder = left.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(
            left_per_coder > 0, left / np.where(left_per_coder > 0, left_per_coder, 1), 0.0
        )


def _defined_parts(kappa: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    defined = ~np.isnan(kappa)
    return np.where(defined, kappa, 0.0), defined.astype(np.float64)


class LightLeaveOneOut:
    """``leave_one_out`` of Light's kappa: rows ``[agree_p, both_p (pairs), coder × value]``
    for the coder pairs ``(first[p], second[p])``; every pair of coders labelling an item
    has its columns on that item's row (as :func:`metrics.light_kappa` builds them).

    The tables depend on the totals only; the last ones are kept, so slices of the items
    computed one after the other (the server's bootstrap chunks) build them once.
    """

    def __init__(
        self, first: NDArray[np.intp], second: NDArray[np.intp], n_coders: int, n_values: int
    ) -> None:
        self.first = np.asarray(first, dtype=np.intp)
        self.second = np.asarray(second, dtype=np.intp)
        self.n_coders = int(n_coders)
        self.n_values = int(n_values)
        self._last: tuple[NDArray[np.float64], _LightTables] | None = None

    def tables(self, total: NDArray[np.float64]) -> _LightTables:
        last = self._last
        if last is not None and np.array_equal(last[0], total):
            return last[1]
        tables = self._build(total)
        self._last = (np.array(total, copy=True), tables)
        return tables

    def _build(self, total: NDArray[np.float64]) -> _LightTables:
        n_pairs, n_coders, n_values = self.first.size, self.n_coders, self.n_values
        first, second = self.first, self.second
        agree = total[0 : 2 * n_pairs : 2]
        both = total[1 : 2 * n_pairs : 2]
        observed = divide(agree, both)
        shares, _ = coder_distributions(total, n_coders, n_values)
        counts = total[-n_coders * n_values :].reshape(n_coders, n_values)
        # Pairs labelling no item together (when a caller lists every coder pair) have no
        # observed agreement with or without any item: they change nothing.
        shared = np.flatnonzero(both > 0)
        first, second, observed_shared = first[shared], second[shared], observed[shared]
        kappa = np.zeros(n_pairs)
        defined = np.zeros(n_pairs)
        kappa[shared], defined[shared] = _defined_parts(
            chance_corrected(observed_shared, (shares[first] * shares[second]).sum(axis=-1))
        )
        gain = np.zeros((n_coders, n_values))
        gain_defined = np.zeros((n_coders, n_values))
        for value in range(n_values):  # a loop over categories; every pair at once
            for coder, expected in (
                (first, (_without(counts, first, value) * shares[second]).sum(axis=-1)),
                (second, (shares[first] * _without(counts, second, value)).sum(axis=-1)),
            ):
                changed, changed_defined = _defined_parts(
                    chance_corrected(observed_shared, expected)
                )
                gain[:, value] += np.bincount(coder, changed - kappa[shared], minlength=n_coders)
                gain_defined[:, value] += np.bincount(
                    coder, changed_defined - defined[shared], minlength=n_coders
                )
        return _LightTables(
            agree=agree,
            both=both,
            observed=observed,
            shares=shares,
            counts=counts,
            kappa=kappa,
            defined=defined,
            kappa_sum=float(kappa.sum()),
            n_defined=float(defined.sum()),
            gain=gain,
            gain_defined=gain_defined,
        )

    def __call__(self, total: NDArray[np.float64]) -> Callable[[ItemStats], NDArray[np.float64]]:
        return partial(self._values, self.tables(np.asarray(total, dtype=np.float64)))

    def _values(self, t: _LightTables, rows: ItemStats) -> NDArray[np.float64]:
        csr = _as_csr(rows)
        n_rows = csr.shape[0]
        groups = _row_coders(csr, self.n_coders, self.n_values)
        if groups.removed.size and not (
            np.all(groups.removed.sum(axis=1) == 1) and np.all(groups.removed.max(axis=1) == 1)
        ):
            raise ValueError(
                "Light's kappa's leave-one-out update needs one value per coder and item."
            )
        lost = groups.removed.argmax(axis=1)
        change = _sum_by_row(groups.row, t.gain[groups.coder, lost], n_rows)
        change_defined = _sum_by_row(groups.row, t.gain_defined[groups.coder, lost], n_rows)

        row, pair, agreed, labelled = self._pairs_on_rows(csr)
        first, second = self.first[pair], self.second[pair]
        first_lost, first_on = self._lost_value(groups, row, first, lost)
        second_lost, second_on = self._lost_value(groups, row, second, lost)
        observed = t.observed[pair]
        # The two single-coder changes the tables counted for this pair ...
        counted = np.zeros(pair.size)
        counted_defined = np.zeros(pair.size)
        for on, expected in (
            (first_on, (_without(t.counts, first, first_lost) * t.shares[second]).sum(axis=-1)),
            (second_on, (t.shares[first] * _without(t.counts, second, second_lost)).sum(axis=-1)),
        ):
            single, single_defined = _defined_parts(chance_corrected(observed, expected))
            counted += np.where(on, single - t.kappa[pair], 0.0)
            counted_defined += np.where(on, single_defined - t.defined[pair], 0.0)
        # ... replaced by its exact change: both distributions and its agreement move.
        first_shares = np.where(
            first_on[:, None], _without(t.counts, first, first_lost), t.shares[first]
        )
        second_shares = np.where(
            second_on[:, None], _without(t.counts, second, second_lost), t.shares[second]
        )
        joint, joint_defined = _defined_parts(
            chance_corrected(
                divide(t.agree[pair] - agreed, t.both[pair] - labelled),
                (first_shares * second_shares).sum(axis=-1),
            )
        )
        change += _sum_by_row(row, joint - t.kappa[pair] - counted, n_rows)
        change_defined += _sum_by_row(
            row, joint_defined - t.defined[pair] - counted_defined, n_rows
        )
        return divide(t.kappa_sum + change, t.n_defined + change_defined)

    def _pairs_on_rows(
        self, csr: sparse.csr_matrix
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
        """(row, pair, agreeing, labelled by both) for each pair column set on a row."""
        n_pairs = self.first.size
        block = csr[:, : 2 * n_pairs].tocoo()
        nonzero = block.data != 0
        row = block.row[nonzero].astype(np.int64)
        column = block.col[nonzero].astype(np.int64)
        data = block.data[nonzero]
        key = row * max(n_pairs, 1) + column // 2
        labelled = column % 2 == 1
        instance, where = np.unique(key, return_inverse=True)
        where = where.reshape(-1)
        agreed: NDArray[np.float64] = np.asarray(
            np.bincount(where[~labelled], data[~labelled], minlength=instance.size), np.float64
        )
        both: NDArray[np.float64] = np.asarray(
            np.bincount(where[labelled], data[labelled], minlength=instance.size), np.float64
        )
        return (
            (instance // max(n_pairs, 1)).astype(np.intp),
            (instance % max(n_pairs, 1)).astype(np.intp),
            agreed,
            both,
        )

    def _lost_value(
        self,
        groups: _RowCoders,
        row: NDArray[np.intp],
        coder: NDArray[np.intp],
        lost: NDArray[np.intp],
    ) -> tuple[NDArray[np.intp], NDArray[np.bool_]]:
        """The value each coder gave on the row, and whether the coder is on it at all."""
        key = row.astype(np.int64) * self.n_coders + coder
        position = np.minimum(np.searchsorted(groups.key, key), max(groups.key.size - 1, 0))
        on = groups.key[position] == key if groups.key.size else np.zeros(key.size, dtype=bool)
        value = lost[position] if groups.key.size else np.zeros(key.size, dtype=np.intp)
        return np.where(on, value, 0), on
