"""Position bias: does a coder pick the option shown first more often than chance?

Among a coder's choices that are not ties and whose ``shown_first`` is known, ``k`` picked the
option shown first, out of ``n``. Without position bias each is a fair coin, so ``k`` is
binomial(n, 1/2): ``share_first = k / n`` and ``p`` is the exact two-sided binomial test of
``k`` against one half (:func:`scipy.stats.binomtest`). The same over all coders gives the
overall figure. A share above one half with a small ``p`` says the coder favours the first
position; below one half, the second. Ties carry no position information and are left out.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from metrics.structured.preferences.data import UNKNOWN, PreferenceData

__all__ = ["BiasResult", "PositionBias", "position_bias"]


@dataclass(frozen=True)
class BiasResult:
    """``k`` of ``n`` non-tie choices picked the option shown first; ``share_first = k / n``
    and the binomial test's ``p`` (None for both when ``n`` is 0)."""

    share_first: float | None
    k: int
    n: int
    p: float | None


@dataclass(frozen=True)
class PositionBias:
    """Position bias over all coders (``overall``) and per coder (``coders``)."""

    overall: BiasResult
    coders: dict[Hashable, BiasResult]


def _test(k: int, n: int) -> BiasResult:
    if n == 0:
        return BiasResult(None, 0, 0, None)
    return BiasResult(k / n, k, n, float(stats.binomtest(k, n, 0.5).pvalue))


def position_bias(data: PreferenceData) -> PositionBias:
    """The share of non-tie choices that picked the option shown first, with its test.

    Examples
    --------
    One coder picks the first-shown option 9 times out of 10 (one tie left out):
    binomtest(9, 10) gives p = 22/1024.

    >>> choices = ["A"] * 9 + ["B", "tie"]
    >>> result = position_bias(PreferenceData.from_long(range(11), ["ann"] * 11, choices,
    ...                                                 shown_first=["A"] * 11))
    >>> result.coders["ann"].share_first, result.coders["ann"].n, result.coders["ann"].p
    (0.9, 10, 0.021484375)
    """
    usable = (data.choice != 1) & (data.shown_first != UNKNOWN)
    first = usable & (data.choice == data.shown_first)
    n = np.bincount(data.coder_index[usable], minlength=data.n_coders)
    k = np.bincount(data.coder_index[first], minlength=data.n_coders)
    coders = {name: _test(int(k[c]), int(n[c])) for c, name in enumerate(data.coders)}
    return PositionBias(_test(int(k.sum()), int(n.sum())), coders)
