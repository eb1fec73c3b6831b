"""Distances between two rankings of the same options: Kendall's tau and Spearman's footrule.

Both read rankings as mid-rank vectors (ties share the mean place) and are normalised to
``[0, 1]`` (alpha's ratio ``D_o / D_e`` does not depend on the scale; the report's numbers
read the same for any number of options):

- **normalised Kendall tau distance**: the share of the ``n(n-1)/2`` option pairs the two
  rankings order differently; a pair tied in one ranking and not in the other counts one
  half, a pair tied in both counts 0 (Kendall 1945's treatment of ties as half-discordant);
- **normalised Spearman footrule**: ``Σ_j |r_j - s_j|`` over its largest value for ``n``
  options, ``⌊n²/2⌋`` (Diaconis & Graham 1977).

References
----------
Diaconis, P. & Graham, R. L. (1977). Spearman's footrule as a measure of disarray. *JRSS B*
39(2), 262–268. https://doi.org/10.1111/j.2517-6161.1977.tb01624.x

Kendall, M. G. (1945). The treatment of ties in ranking problems. *Biometrika* 33(3),
239–251. https://doi.org/10.1093/biomet/33.3.239
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

RankingDistance = Literal["kendall_tau", "footrule"]
#: Ranking distances known by name.
RANKING_DISTANCES: tuple[str, ...] = ("kendall_tau", "footrule")

__all__ = [
    "RANKING_DISTANCES",
    "RankingDistance",
    "footrule_distance",
    "kendall_tau_distance",
    "ranking_pair_distance",
]


def _signs(rankings: NDArray[np.float64]) -> NDArray[np.int8]:
    """``(V, n(n-1)/2)``: sign of ``r_j - r_k`` for every option pair ``j < k``."""
    n = rankings.shape[1]
    first, second = np.triu_indices(n, k=1)
    return np.sign(rankings[:, first] - rankings[:, second]).astype(np.int8)


def ranking_pair_distance(
    rankings: NDArray[np.float64], distance: RankingDistance
) -> Callable[[NDArray[np.intp], NDArray[np.intp]], NDArray[np.float64]]:
    """Vectorised distance between rows ``left[i]`` and ``right[i]`` of ``rankings`` (V × n
    mid-ranks)."""
    n = rankings.shape[1]
    if distance == "kendall_tau":
        signs = _signs(rankings)
        pairs = max(signs.shape[1], 1)

        def kendall(left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
            a, b = signs[left], signs[right]
            discordant = np.count_nonzero(a * b < 0, axis=1)
            half = np.count_nonzero((a == 0) != (b == 0), axis=1)
            return np.asarray((discordant + 0.5 * half) / pairs, dtype=np.float64)

        return kendall
    if distance == "footrule":
        largest = max(n * n // 2, 1)

        def footrule(left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
            return np.abs(rankings[left] - rankings[right]).sum(axis=1) / largest

        return footrule
    raise ValueError(f"Unknown ranking distance {distance!r}; use one of {RANKING_DISTANCES}.")


def _pair(first: npt.ArrayLike, second: npt.ArrayLike) -> NDArray[np.float64]:
    a = np.asarray(first, dtype=np.float64).ravel()
    b = np.asarray(second, dtype=np.float64).ravel()
    if a.size != b.size:
        raise ValueError("The two rankings must rank the same options (equal lengths).")
    return np.vstack([a, b])


def kendall_tau_distance(first: npt.ArrayLike, second: npt.ArrayLike) -> float:
    """Normalised Kendall tau distance of two rankings (ranks or mid-ranks per option).

    Examples
    --------
    Reversal, one swap, a tie against an order (one half of one pair of six):

    >>> kendall_tau_distance([1, 2, 3, 4], [4, 3, 2, 1])
    1.0
    >>> kendall_tau_distance([1, 2, 3, 4], [2, 1, 3, 4])
    0.16666666666666666
    >>> kendall_tau_distance([1, 2, 3, 4], [1, 2.5, 2.5, 4])
    0.08333333333333333
    """
    rows = _pair(first, second)
    return float(ranking_pair_distance(rows, "kendall_tau")(np.array([0]), np.array([1]))[0])


def footrule_distance(first: npt.ArrayLike, second: npt.ArrayLike) -> float:
    """Normalised Spearman footrule of two rankings: ``Σ |r_j - s_j| / ⌊n²/2⌋``.

    Examples
    --------
    >>> footrule_distance([1, 2, 3, 4], [4, 3, 2, 1]), footrule_distance([1, 2, 3], [2, 1, 3])
    (1.0, 0.5)
    """
    rows = _pair(first, second)
    return float(ranking_pair_distance(rows, "footrule")(np.array([0]), np.array([1]))[0])
