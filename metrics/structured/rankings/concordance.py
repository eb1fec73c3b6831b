"""Kendall's coefficient of concordance W, per item and as the mean over items.

For one item ranked by ``m`` coders over ``n`` options, with ``R_j`` the sum of option
``j``'s mid-ranks and ``T_c = Σ (t³ - t)`` over the tie groups of coder ``c``'s ranking,

.. math::

    W = \\frac{12 \\sum_j \\big(R_j - m(n+1)/2\\big)^2}{m^2 (n^3 - n) - m \\sum_c T_c},
    \\qquad \\chi^2 = m (n - 1) W \\sim \\chi^2_{n-1}

(Kendall & Babington Smith 1939; with the tie correction, Siegel & Castellan 1988).
``χ²`` is Friedman's statistic with the coders as blocks and the options as treatments, the
tie-corrected form R's ``friedman.test`` and :func:`scipy.stats.friedmanchisquare` compute;
``p`` is its upper tail (the large-sample approximation; exact tables exist for few coders
and options). W is 1 when every coder gives the same ranking and 0 when the rank sums are
all equal.

An item's W is undefined (``None``, with the reason) with fewer than two coders or two
options, or when every coder tied every option. The report's ``value`` is the mean of the
items' W; its ``chi2`` and ``df`` add up the items' (independent items), whose upper tail
``p`` tests that the coders rank at random in every item. With one item they are the classic
W and its test.

References
----------
Kendall, M. G. & Babington Smith, B. (1939). The problem of m rankings. *Annals of
Mathematical Statistics* 10(3), 275–287. https://doi.org/10.1214/aoms/1177732186

Siegel, S. & Castellan, N. J. (1988). *Nonparametric Statistics for the Behavioral
Sciences*, 2nd ed. McGraw-Hill.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from metrics.decomposition import Decomposition
from metrics.structured.rankings.data import RankingData

__all__ = ["ItemConcordance", "KendallW", "decompose_kendall_w", "kendall_w", "kendall_w_items"]


@dataclass(frozen=True)
class ItemConcordance:
    """Kendall's W of one item; ``value``, ``chi2`` and ``p`` are None where undefined."""

    item: Hashable
    value: float | None
    chi2: float | None
    df: int
    p: float | None
    coders: int
    options: int
    reason: str | None = None


@dataclass(frozen=True)
class KendallW:
    """Kendall's W over items.

    Attributes
    ----------
    value : float
        The mean of the defined items' W (with one item, its W).
    chi2, df, p : float, int, float
        The items' χ² and degrees of freedom summed, and the upper tail of χ²(df).
    items : tuple of ItemConcordance
        Every item, in item order.
    n_defined : int
        Items whose W is defined.
    """

    value: float
    chi2: float
    df: int
    p: float
    items: tuple[ItemConcordance, ...]
    n_defined: int


@dataclass(frozen=True)
class _Columns:
    """Per item: coders m, options n, S = Σ (R_j - m(n+1)/2)², Σ T_c; and W (nan if undefined)."""

    m: NDArray[np.float64]
    n: NDArray[np.float64]
    s: NDArray[np.float64]
    ties: NDArray[np.float64]
    w: NDArray[np.float64]


def _columns(data: RankingData) -> _Columns:
    ranking_item = data.ranking_item
    m = np.bincount(ranking_item, minlength=data.n_items).astype(np.float64)
    n = data.options_per_item.astype(np.float64)
    slot_ranking = data.slot_ranking
    # Position of each slot's (item, option) among all items' options: the item's offset plus
    # the slot's place within its ranking (slots of a ranking follow the item's options).
    size = data.options_per_item[ranking_item]
    ranking_start = np.cumsum(size) - size
    item_offset = np.cumsum(data.options_per_item) - data.options_per_item
    place = np.arange(slot_ranking.size) - ranking_start[slot_ranking]
    cell = item_offset[ranking_item[slot_ranking]] + place
    sums = np.bincount(cell, weights=data.slot_midrank, minlength=int(data.options_per_item.sum()))
    cell_item = np.repeat(np.arange(data.n_items), data.options_per_item)
    centre = m[cell_item] * (n[cell_item] + 1.0) / 2.0
    s = np.asarray(
        np.bincount(cell_item, weights=(sums - centre) ** 2, minlength=data.n_items),
        dtype=np.float64,
    )
    ties = np.asarray(
        np.bincount(ranking_item, weights=data.ranking_ties, minlength=data.n_items),
        dtype=np.float64,
    )
    denominator = m**2 * (n**3 - n) - m * ties
    defined = (m >= 2) & (n >= 2) & (denominator > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        w = np.where(defined, 12.0 * s / np.where(defined, denominator, 1.0), np.nan)
    return _Columns(m, n, s, ties, w)


def _reason(m: float, n: float) -> str:
    if m < 2:
        return f"W needs at least two coders; {int(m)} ranked this item."
    if n < 2:
        return "W needs at least two options; this item has one."
    return "every coder tied every option: W is 0/0."


def kendall_w_items(data: RankingData) -> tuple[ItemConcordance, ...]:
    """Kendall's W of every item (see the module docstring), in item order."""
    columns = _columns(data)
    df = np.maximum(columns.n - 1.0, 0.0)
    chi2 = columns.m * df * columns.w
    p = stats.chi2.sf(chi2, np.maximum(df, 1.0))
    items = []
    for i in range(data.n_items):
        defined = bool(np.isfinite(columns.w[i]))
        items.append(
            ItemConcordance(
                item=data.items[i],
                value=float(columns.w[i]) if defined else None,
                chi2=float(chi2[i]) if defined else None,
                df=int(df[i]),
                p=float(p[i]) if defined else None,
                coders=int(columns.m[i]),
                options=int(columns.n[i]),
                reason=None if defined else _reason(columns.m[i], columns.n[i]),
            )
        )
    return tuple(items)


def kendall_w(data: RankingData) -> KendallW:
    """Kendall's W of every item, their mean, and the summed chi-square test.

    Returns
    -------
    KendallW

    Raises
    ------
    ValueError
        When no item has a defined W (every item has one coder, one option, or all ties).

    Examples
    --------
    Siegel & Castellan (1988) as DescTools' ``KendallW`` example reproduces it: three
    raters rank eight attributes (docs/references.md, ``kendall-w-siegel-castellan``).

    >>> ranks = {"airfare": (5, 1, 4), "climate": (6, 7, 5), "season": (7, 6, 1),
    ...          "people": (1, 2, 3), "program": (2, 3, 2), "publicity": (4, 5, 7),
    ...          "present": (3, 4, 6), "interest": (8, 8, 8)}
    >>> rows = [(option, rater, rank) for option, by_rater in ranks.items()
    ...         for rater, rank in zip((4, 21, 11), by_rater)]
    >>> options, raters, values = zip(*rows)
    >>> result = kendall_w(RankingData.from_long(["trip"] * 24, raters, options, values))
    >>> round(result.value, 7), round(result.chi2, 3), result.df, round(result.p, 5)
    (0.6560847, 13.778, 7, 0.05528)
    """
    items = kendall_w_items(data)
    defined = [item for item in items if item.value is not None]
    if not defined:
        reasons = {item.reason for item in items}
        raise ValueError(
            f"Kendall's W is undefined on every item: {'; '.join(sorted(map(str, reasons)))}"
        )
    chi2 = float(sum(item.chi2 or 0.0 for item in defined))
    df = int(sum(item.df for item in defined))
    return KendallW(
        value=float(np.mean([item.value or 0.0 for item in defined])),
        chi2=chi2,
        df=df,
        p=float(stats.chi2.sf(chi2, df)),
        items=items,
        n_defined=len(defined),
    )


def decompose_kendall_w(data: RankingData) -> Decomposition:
    """The mean W as ``finalize(sum of per-item rows)``: rows ``[W_i, 1]`` for the items with a
    defined W, zeros for the others; ``finalize`` divides (``nan`` with no defined item).

    Examples
    --------
    >>> data = RankingData.from_long([1, 1, 1, 1, 2, 2, 2, 2], list("aabbaabb"),
    ...                              list("xyxyxyxy"), [1, 2, 1, 2, 1, 2, 2, 1])
    >>> decompose_kendall_w(data).item_stats.tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    w = _columns(data).w
    defined = np.isfinite(w)
    stats_ = np.column_stack([np.where(defined, w, 0.0), defined.astype(np.float64)])

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = totals[..., 0] / totals[..., 1]
        return np.asarray(np.where(totals[..., 1] > 0, value, np.nan), dtype=np.float64)

    return Decomposition("kendall_w", stats_, finalize)
