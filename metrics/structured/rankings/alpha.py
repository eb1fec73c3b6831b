"""Krippendorff's alpha on rankings, with a ranking distance.

A coder's value for an item is its (completed) ranking, a vector of mid-ranks over the
item's options; alpha compares the rankings given to the same item with rankings paired at
random across items (Artstein & Poesio 2008, §2.6: alpha for any distance), with the
normalised Kendall tau distance or Spearman's footrule
(:mod:`~metrics.structured.rankings.distances`).

Pairing rankings across items only makes sense when they rank the same options (the four
responses of every prompt, by position): alpha refuses items with different option sets. It
is undefined for a single item (``D_o`` and ``D_e`` are then the same pairs: alpha is 0 by
construction). Distinct rankings of ``n`` options are few (75 weak orders of four options),
so the distances form a small matrix and the bootstrap recomputes ``D_e`` exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.decomposition import Decomposition
from metrics.structured._pairwise import PairwiseAlpha, pairwise_alpha
from metrics.structured.rankings.data import RankingData
from metrics.structured.rankings.distances import RankingDistance, ranking_pair_distance

__all__ = ["RankingAlpha", "decompose_ranking_alpha", "ranking_alpha"]


@dataclass(frozen=True)
class RankingAlpha:
    """Alpha on rankings: ``value = 1 - observed / expected`` (``D_o``, ``D_e``), the
    distance's name, pairable items and distinct rankings."""

    value: float
    observed: float
    expected: float
    distance: str
    n_items: int
    n_distinct: int


def _engine(data: RankingData, distance: RankingDistance) -> PairwiseAlpha:
    ranked = np.unique(data.ranking_item)
    if ranked.size < 2:
        raise ValueError(
            "Alpha on rankings needs at least two items: with one item its observed and "
            "expected disagreements are the same pairs (alpha would be 0 whatever the rankings)."
        )
    per_item = data.options_per_item
    first = data.item_options(int(ranked[0]))
    for item in ranked[1:].tolist():
        if per_item[item] != first.size or not np.array_equal(data.item_options(item), first):
            raise ValueError(
                "Alpha compares rankings across items and needs the same options in every item; "
                f"items {data.items[int(ranked[0])]!r} and {data.items[item]!r} differ."
            )
    matrix = data.slot_midrank.reshape(data.n_rankings, first.size)
    distinct, code = np.unique(matrix, axis=0, return_inverse=True)
    return pairwise_alpha(
        data.ranking_item,
        code.astype(np.intp).ravel(),
        data.n_items,
        distinct.shape[0],
        ranking_pair_distance(distinct, distance),
        name="alpha",
    )


def alpha_with_decomposition(
    data: RankingData, distance: RankingDistance
) -> tuple[RankingAlpha, Decomposition]:
    """:func:`ranking_alpha` and its decomposition, computed once."""
    result = _engine(data, distance)
    alpha = RankingAlpha(
        value=result.value,
        observed=result.observed,
        expected=result.expected,
        distance=distance,
        n_items=result.n_items,
        n_distinct=result.n_distinct,
    )
    return alpha, result.decomposition


def ranking_alpha(data: RankingData, *, distance: RankingDistance = "kendall_tau") -> RankingAlpha:
    """Krippendorff's alpha on rankings.

    Parameters
    ----------
    data : RankingData
    distance : {"kendall_tau", "footrule"}, default "kendall_tau"

    Raises
    ------
    ValueError
        One item only; items with different option sets; no item with two rankings; every
        ranking the same (``D_e = 0``).

    Examples
    --------
    Two items, two coders, three options. Item 1: both rank a > b > c; item 2: one ranks
    a > b > c, the other b > a > c (one discordant pair of three: distance 1/3). Of the four
    rankings three are equal, so D_o = (1/4)·2·(1/3) = 1/6 and D_e = 2·3·1·(1/3)/(4·3) = 1/6:
    alpha = 0.

    >>> data = RankingData.from_long([1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2], list("aaabbbaaabbb"),
    ...                              list("xyzxyzxyzxyz"), [1, 2, 3, 1, 2, 3, 1, 2, 3, 2, 1, 3])
    >>> result = ranking_alpha(data)
    >>> round(result.value, 12), round(result.observed, 6), round(result.expected, 6)
    (0.0, 0.166667, 0.166667)
    """
    return alpha_with_decomposition(data, distance)[0]


def decompose_ranking_alpha(
    data: RankingData, *, distance: RankingDistance = "kendall_tau"
) -> Decomposition:
    """Ranking alpha as ``finalize(sum of per-item rows)``, one row per item, for the bootstrap
    (rows ``[D_o part, n_u1 .. n_uV]`` over the distinct rankings)."""
    return alpha_with_decomposition(data, distance)[1]
