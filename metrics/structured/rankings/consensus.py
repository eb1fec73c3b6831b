"""Each coder against the consensus of the others: how far a coder's rankings lie from them.

For every item a coder ranked, the consensus is the other coders' ranking by mean mid-rank
(Kendall's estimate of the true ranking from the rank sums, leaving the coder out so that a
coder is not compared with itself). The coder's distance is the normalised Kendall tau
distance (:mod:`~metrics.structured.rankings.distances`) between its ranking and that
consensus, averaged over the items; ``tau = 1 - 2 · distance`` reads like Kendall's tau
(1: always the consensus order, 0: unrelated, -1: always reversed). Items where no other
coder ranked, or with one option, are left out.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics.structured._pairwise import within_item_pairs
from metrics.structured.rankings.data import RankingData

#: Option pairs handled at once.
_CHUNK = 1 << 22

__all__ = ["CoderConsensus", "consensus_agreement"]


@dataclass(frozen=True)
class CoderConsensus:
    """A coder's mean normalised Kendall tau distance to the others' consensus, ``tau = 1 -
    2 · distance``, over ``items`` items (None for both without such an item)."""

    distance: float | None
    tau: float | None
    items: int


def _ranking_distances(data: RankingData) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Each ranking's distance to the others' consensus, and whether it has one."""
    ranking_item = data.ranking_item
    m = np.bincount(ranking_item, minlength=data.n_items)
    slot_ranking, midrank = data.slot_ranking, data.slot_midrank
    size = data.options_per_item[ranking_item]
    ranking_start = np.cumsum(size) - size
    item_offset = np.cumsum(data.options_per_item) - data.options_per_item
    cell = item_offset[ranking_item[slot_ranking]] + (
        np.arange(slot_ranking.size) - ranking_start[slot_ranking]
    )
    sums = np.bincount(cell, weights=midrank, minlength=int(data.options_per_item.sum()))
    others = sums[cell] - midrank  # the others' rank sum: same order as their mean rank
    totals = np.zeros(ranking_item.size)
    pair_counts = size * (size - 1) / 2.0
    # Rankings in chunks of about _CHUNK option pairs.
    cumulative = np.cumsum(pair_counts)
    start = 0
    while start < ranking_item.size:
        done = cumulative[start - 1] if start else 0.0
        stop = max(int(np.searchsorted(cumulative, done + _CHUNK, side="right")), start + 1)
        first_slot = ranking_start[start]
        last_slot = ranking_start[stop - 1] + size[stop - 1]
        local = slot_ranking[first_slot:last_slot]
        left, right = within_item_pairs(local)
        left, right = left + first_slot, right + first_slot
        own = np.sign(midrank[left] - midrank[right])
        theirs = np.sign(others[left] - others[right])
        score = (own * theirs < 0) + 0.5 * ((own == 0) != (theirs == 0))
        totals[start:stop] += np.bincount(
            slot_ranking[left] - start, weights=score, minlength=stop - start
        )
        start = stop
    valid = (m[ranking_item] >= 2) & (size >= 2)
    distance = np.divide(totals, pair_counts, out=np.zeros_like(totals), where=valid)
    return distance, valid


def consensus_agreement(data: RankingData) -> dict[Hashable, CoderConsensus]:
    """Every coder's mean distance to the consensus of the others (see the module docstring).

    Examples
    --------
    Three coders, one item: a and b rank x > y > z, c ranks z > y > x. For a, the others (b
    and c) have equal rank sums for all three options: the consensus ties every pair, each
    counting one half (distance 1/2, tau 0); b likewise. For c the others agree on x > y > z
    and c reverses all three pairs (distance 1, tau -1).

    >>> data = RankingData.from_long([1] * 9, list("aaabbbccc"), list("xyzxyzxyz"),
    ...                              [1, 2, 3, 1, 2, 3, 3, 2, 1])
    >>> {coder: (c.distance, c.tau) for coder, c in consensus_agreement(data).items()}
    {'a': (0.5, 0.0), 'b': (0.5, 0.0), 'c': (1.0, -1.0)}
    """
    distance, valid = _ranking_distances(data)
    coder = data.ranking_coder
    counts = np.bincount(coder[valid], minlength=data.n_coders)
    sums = np.bincount(coder[valid], weights=distance[valid], minlength=data.n_coders)
    result: dict[Hashable, CoderConsensus] = {}
    for c, name in enumerate(data.coders):
        if counts[c] == 0:
            result[name] = CoderConsensus(None, None, 0)
            continue
        mean = float(sums[c] / counts[c])
        result[name] = CoderConsensus(mean, 1.0 - 2.0 * mean, int(counts[c]))
    return result
