"""Rankings: each coder's ranking of an item's options, ties allowed, full or partial.

An *item* is a ranking task (a prompt and its options); a coder's value is a ranking of the
options, given as a rank per option (1 best; equal ranks are ties). Ranks are read as an
order only, so ``1, 2, 2, 4`` and ``1, 2, 2, 3`` are the same ranking. Every measure uses
**mid-ranks** (Kendall & Babington Smith 1939; Siegel & Castellan 1988): tied options share
the mean of the places they occupy, so ``1, 2, 2, 4`` becomes ``1, 2.5, 2.5, 4``.

An item's options are all the options any coder ranked in it. A coder who ranked only some
of them (a partial ranking, e.g. a top-2) is read as placing the others after the ranked
ones, tied with each other; :attr:`RankingData.completed` counts such rankings.

Examples
--------
>>> data = RankingData.from_long(["q"] * 4, ["ann"] * 4, ["a", "b", "c", "d"], [1, 2, 2, 4])
>>> data.slot_midrank.tolist()
[1.0, 2.5, 2.5, 4.0]
>>> partial = RankingData.from_long(["q"] * 3, ["ann", "ann", "bob"], ["a", "b", "c"], [1, 2, 1])
>>> partial.slot_midrank.tolist(), partial.completed
([1.0, 2.0, 3.0, 2.5, 2.5, 1.0], 2)
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.structured._common import factorize

__all__ = ["RankingData"]


@dataclass(frozen=True, eq=False)
class RankingData:
    """Rankings of several coders on several items.

    Attributes
    ----------
    items, coders, options : tuple
        Identifiers; the index arrays index them.
    item_index, coder_index, option_index : ndarray of int, shape (n_rows,)
        One entry per given rank, sorted by item, coder, option.
    rank : ndarray of float, shape (n_rows,)
        The ranks as given (smaller is better).
    """

    items: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    options: tuple[Hashable, ...]
    item_index: NDArray[np.intp]
    coder_index: NDArray[np.intp]
    option_index: NDArray[np.intp]
    rank: NDArray[np.float64]

    @classmethod
    def from_long(
        cls,
        items: npt.ArrayLike | Sequence[Hashable],
        coders: npt.ArrayLike | Sequence[Hashable],
        options: npt.ArrayLike | Sequence[Hashable],
        ranks: npt.ArrayLike,
    ) -> RankingData:
        """Build from (item, coder, option, rank) rows given as four parallel sequences.

        Raises
        ------
        ValueError
            Sequences of different lengths, a rank that is not a finite number, or a coder
            ranking one option of an item twice.
        """
        item_names, item = factorize(items, "items")
        coder_names, coder = factorize(coders, "coders")
        option_names, option = factorize(options, "options")
        rank = np.asarray(ranks, dtype=np.float64).reshape(-1)
        if not (item.size == coder.size == option.size == rank.size):
            raise ValueError("items, coders, options and ranks must have the same length.")
        if rank.size and not np.all(np.isfinite(rank)):
            bad = int(np.flatnonzero(~np.isfinite(rank))[0])
            raise ValueError(f"rank {bad} is {rank[bad]}: ranks must be finite numbers.")
        order = np.lexsort((option, coder, item))
        item, coder, option, rank = item[order], coder[order], option[order], rank[order]
        repeated = np.flatnonzero(
            (item[1:] == item[:-1]) & (coder[1:] == coder[:-1]) & (option[1:] == option[:-1])
        )
        if repeated.size:
            at = int(repeated[0]) + 1
            raise ValueError(
                f"Coder {coder_names[coder[at]]!r} ranked option {option_names[option[at]]!r} "
                f"of item {item_names[item[at]]!r} twice."
            )
        return cls(item_names, coder_names, option_names, item, coder, option, rank)

    # -- shape -----------------------------------------------------------------------------

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_rows(self) -> int:
        return int(self.rank.size)

    @cached_property
    def _rankings(self) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
        """(ranking of each row, item of each ranking, coder of each ranking)."""
        new = np.r_[
            True,
            (self.item_index[1:] != self.item_index[:-1])
            | (self.coder_index[1:] != self.coder_index[:-1]),
        ]
        ranking = (np.cumsum(new) - 1).astype(np.intp)
        first = np.flatnonzero(new)
        return ranking, self.item_index[first], self.coder_index[first]

    @property
    def n_rankings(self) -> int:
        return int(self._rankings[1].size)

    @property
    def ranking_item(self) -> NDArray[np.intp]:
        """The item of each ranking (a coder's ranking of one item), sorted."""
        return self._rankings[1]

    @property
    def ranking_coder(self) -> NDArray[np.intp]:
        return self._rankings[2]

    @cached_property
    def _item_options(self) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """(offsets into the item options, option of each (item, option)), items in order."""
        keys = np.unique(
            self.item_index.astype(np.int64) * max(len(self.options), 1) + self.option_index
        )
        item = (keys // max(len(self.options), 1)).astype(np.intp)
        option = (keys % max(len(self.options), 1)).astype(np.intp)
        counts = np.bincount(item, minlength=self.n_items)
        offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        return offsets, option

    @property
    def options_per_item(self) -> NDArray[np.intp]:
        """How many options each item has (any coder ranked them)."""
        return np.diff(self._item_options[0]).astype(np.intp)

    def item_options(self, item: int) -> NDArray[np.intp]:
        """The options of item ``item`` (indices into ``options``), sorted."""
        offsets, option = self._item_options
        return option[offsets[item] : offsets[item + 1]]

    # -- completed rankings as mid-ranks -----------------------------------------------------

    @cached_property
    def _slots(
        self,
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64], NDArray[np.float64], int]:
        """Every (ranking, option of its item): ranking, option, mid-rank; ties per ranking.

        Slots are sorted by ranking, then option. Returns (ranking, option, midrank,
        tie sum Σ(t³ - t) per ranking, number of completed rankings).
        """
        ranking, ranking_item, _ = self._rankings
        offsets, item_option = self._item_options
        size = self.options_per_item[ranking_item]
        slot_ranking = np.repeat(np.arange(ranking_item.size, dtype=np.intp), size)
        start = np.repeat(offsets[ranking_item] - (np.cumsum(size) - size), size)
        slot_option = item_option[np.arange(slot_ranking.size) + start]
        # The given rank of each slot; +inf (tied last) where the coder did not rank it.
        value = np.full(slot_ranking.size, np.inf)
        n_options = max(len(self.options), 1)
        slot_key = slot_ranking.astype(np.int64) * n_options + slot_option
        row_key = ranking.astype(np.int64) * n_options + self.option_index
        value[np.searchsorted(slot_key, row_key)] = self.rank
        completed = int(
            np.count_nonzero(
                np.bincount(slot_ranking[np.isinf(value)], minlength=ranking_item.size)
            )
        )
        midrank, ties = _midranks(slot_ranking, value, ranking_item.size)
        return slot_ranking, slot_option, midrank, ties, completed

    @property
    def slot_ranking(self) -> NDArray[np.intp]:
        """The ranking of each slot: every option of each ranked item, once per coder."""
        return self._slots[0]

    @property
    def slot_option(self) -> NDArray[np.intp]:
        return self._slots[1]

    @property
    def slot_midrank(self) -> NDArray[np.float64]:
        """Each slot's mid-rank in its coder's completed ranking (1 best)."""
        return self._slots[2]

    @property
    def ranking_ties(self) -> NDArray[np.float64]:
        """Σ (t³ - t) over the tie groups of each ranking (0 without ties)."""
        return self._slots[3]

    @property
    def completed(self) -> int:
        """Rankings that left some of their item's options unranked (placed last, tied)."""
        return self._slots[4]


def _midranks(
    group: NDArray[np.intp], value: NDArray[np.float64], n_groups: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mid-ranks of ``value`` within each ``group`` (sorted groups), and Σ(t³ - t) per group.

    >>> _midranks(np.array([0, 0, 0, 0, 1, 1]), np.array([1, 2, 2, 4, 7.0, 7.0]), 2)
    (array([1. , 2.5, 2.5, 4. , 1.5, 1.5]), array([6., 6.]))
    """
    order = np.lexsort((value, group))
    sorted_group, sorted_value = group[order], value[order]
    n = group.size
    group_start = np.flatnonzero(np.r_[True, sorted_group[1:] != sorted_group[:-1]])
    group_size = np.diff(np.r_[group_start, n])
    place = np.arange(n) - np.repeat(group_start, group_size) + 1.0
    run_start = np.flatnonzero(
        np.r_[
            True, (sorted_group[1:] != sorted_group[:-1]) | (sorted_value[1:] != sorted_value[:-1])
        ]
    )
    run_size = np.diff(np.r_[run_start, n])
    run_mid = place[run_start] + (run_size - 1) / 2.0
    midrank = np.empty(n)
    midrank[order] = np.repeat(run_mid, run_size)
    t = run_size.astype(np.float64)
    ties = np.bincount(sorted_group[run_start], weights=t**3 - t, minlength=n_groups)
    return midrank, np.asarray(ties, dtype=np.float64)
