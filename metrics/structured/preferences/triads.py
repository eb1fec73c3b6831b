"""Circular triads and Kendall & Babington Smith's coefficient of consistence, per coder.

When the same options recur across comparisons, a coder's choices form a directed graph:
an edge from the preferred option to the other, for every pair of options the coder judged
(a pair judged more than once counts by its net preference; a net tie, or a tie, gives no
edge). A *circular triad* is three options preferred in a circle (X over Y, Y over Z, Z over
X): the coder's judgements on them cannot come from any ranking. For each coder:

- ``triads``: sets of three options whose three pairs all have an edge;
- ``circular``: how many of them are circular (directed 3-cycles);
- ``zeta``: Kendall & Babington Smith's (1940) coefficient of consistence
  ``ζ = 1 - d / d_max``, with ``d`` the circular triads and ``d_max = (n³ - n)/24`` for odd
  ``n``, ``(n³ - 4n)/24`` for even ``n`` (the most a tournament on ``n`` options can have).
  It is defined when the coder's edges form a complete tournament on its ``n ≥ 3`` options
  (every pair judged with a preference), None otherwise.

References
----------
Kendall, M. G. & Babington Smith, B. (1940). On the method of paired comparisons.
*Biometrika* 31(3/4), 324–345. https://doi.org/10.1093/biomet/31.3-4.324
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from metrics.structured.preferences.data import PreferenceData

__all__ = ["Consistency", "circular_triads"]


@dataclass(frozen=True)
class Consistency:
    """One coder's circular triads: ``options`` judged, ``pairs`` with a preference,
    ``triads`` fully judged, ``circular`` among them, and ``zeta`` (None unless the coder's
    judgements form a complete tournament on at least three options)."""

    options: int
    pairs: int
    triads: int
    circular: int
    zeta: float | None


def _zeta(n: int, pairs: int, circular: int) -> float | None:
    if n < 3 or pairs != n * (n - 1) // 2:
        return None
    largest = (n**3 - n) / 24 if n % 2 else (n**3 - 4 * n) / 24
    return 1.0 - circular / largest


def circular_triads(data: PreferenceData) -> dict[Hashable, Consistency]:
    """Every coder's circular triads and coefficient of consistence.

    Raises
    ------
    ValueError
        When the items do not name their options (``option_a``, ``option_b``).

    Examples
    --------
    A coder who prefers x to y, y to z and z to x: one circular triad, ζ = 1 - 1/1 = 0.

    >>> data = PreferenceData.from_long([1, 2, 3], ["ann"] * 3, ["A", "A", "A"],
    ...                                 option_a=["x", "y", "z"], option_b=["y", "z", "x"])
    >>> circular_triads(data)["ann"]
    Consistency(options=3, pairs=3, triads=1, circular=1, zeta=0.0)
    """
    if data.options is None or data.item_option_a is None or data.item_option_b is None:
        raise ValueError(
            "Circular triads need each item's two options (option_a and option_b): "
            "they count preferences among options that recur."
        )
    n_options = len(data.options)
    a = data.item_option_a[data.item_index]
    b = data.item_option_b[data.item_index]
    low, high = np.minimum(a, b), np.maximum(a, b)
    # +1 when the lower-numbered option wins, -1 when the higher one does, 0 for a tie.
    sign = np.where(data.choice == 1, 0, np.where((data.choice == 0) == (a < b), 1, -1))
    keys = (data.coder_index.astype(np.int64) * n_options + low) * n_options + high
    pair_keys, inverse = np.unique(keys, return_inverse=True)
    net = np.bincount(inverse, weights=sign, minlength=pair_keys.size)
    pair_coder = pair_keys // (n_options * n_options)
    pair_low = (pair_keys // n_options) % n_options
    pair_high = pair_keys % n_options
    judged_options = np.unique(
        np.concatenate([pair_coder * n_options + pair_low, pair_coder * n_options + pair_high])
    )
    options_per_coder = np.bincount(judged_options // n_options, minlength=data.n_coders)
    strict = net != 0
    winner = np.where(net > 0, pair_low, pair_high)[strict]
    loser = np.where(net > 0, pair_high, pair_low)[strict]
    coder = pair_coder[strict]
    size = data.n_coders * n_options
    nodes = coder * n_options
    directed = sparse.csr_matrix(
        (np.ones(winner.size), (nodes + winner, nodes + loser)), shape=(size, size)
    )
    undirected = directed + directed.T
    cycles = np.asarray((directed @ directed).multiply(directed.T).sum(axis=1)).ravel()
    triangles = np.asarray((undirected @ undirected).multiply(undirected).sum(axis=1)).ravel()
    node_coder = np.arange(size) // n_options
    circular = np.rint(np.bincount(node_coder, weights=cycles, minlength=data.n_coders) / 3)
    triads = np.rint(np.bincount(node_coder, weights=triangles, minlength=data.n_coders) / 6)
    pairs = np.bincount(coder, minlength=data.n_coders)
    result: dict[Hashable, Consistency] = {}
    for c, name in enumerate(data.coders):
        n, judged, d = int(options_per_coder[c]), int(pairs[c]), int(circular[c])
        result[name] = Consistency(n, judged, int(triads[c]), d, _zeta(n, judged, d))
    return result
