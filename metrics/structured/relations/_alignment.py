"""Units of two or more coders aligned the way the span kind matches them.

For every pair of coders the units are matched as span F1 matches them
(:func:`metrics.spans.matched_units`: identical spans, or a maximum one-to-one matching of
spans overlapping with an intersection over union of at least ``min_overlap``). Alpha needs
one alignment across all coders: the *aligned units* are the connected components of all the
pairs' matchings (with two coders, exactly the matched pairs and the lone units). With three
coders or more a component can hold two units of one coder (``a1`` matched to ``b1``, ``b1``
to ``c1``, ``c1`` to ``a2``); that coder's relations between two aligned units are then read
together.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.sparse.csgraph import connected_components

from metrics.spans.f1 import MatchedUnits, matched_units, overlapping_units
from metrics.structured.relations.data import RelationData

Match = Literal["exact", "overlap"]

__all__ = ["Match", "aligned_units", "pair_candidates", "pair_matchings"]


def pair_matchings(data: RelationData, match: Match, min_overlap: float) -> Iterator[MatchedUnits]:
    """Each coder pair's matched units (pairs that annotated no document together are left
    out); nothing when no document was annotated by two coders."""
    if (data.annotated.sum(axis=1) >= 2).any():
        yield from matched_units(
            data.units, match=match, min_overlap=min_overlap if match == "overlap" else 0.0
        )


def pair_candidates(data: RelationData, match: Match, min_overlap: float) -> Iterator[MatchedUnits]:
    """Each coder pair's units that may stand for the same entity: identical spans
    (``exact``), or every pair overlapping with IoU at least ``min_overlap``
    (:func:`metrics.spans.overlapping_units`, before any one-to-one choice)."""
    if not (data.annotated.sum(axis=1) >= 2).any():
        return
    if match == "exact":
        yield from matched_units(data.units, match="exact")
    else:
        yield from overlapping_units(data.units, min_overlap=min_overlap)


def aligned_units(data: RelationData, match: Match, min_overlap: float) -> NDArray[np.intp]:
    """The aligned unit of every unit: connected components of all pairs' matchings."""
    n = data.n_units
    edges = [(pairs.first, pairs.second) for pairs in pair_matchings(data, match, min_overlap)]
    if edges:
        rows = np.concatenate([first for first, _ in edges])
        columns = np.concatenate([second for _, second in edges])
    else:
        rows = columns = np.zeros(0, dtype=np.intp)
    graph = sparse.coo_matrix((np.ones(rows.size), (rows, columns)), shape=(n, n))
    _, component = connected_components(graph, directed=False)
    return np.asarray(component, dtype=np.intp)
