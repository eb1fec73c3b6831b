"""Relation F1 between coder pairs: exact (head, tail, label) tuples, or units matched by overlap.

For a pair of coders ``(a, b)`` and the documents both annotated, a relation of ``a`` and one
of ``b`` *may match* when they have the same label and

- ``match="exact"``: the same head span and the same tail span (tuples compared as they are);
- ``match="overlap"``: head and head, tail and tail overlap with an intersection over union of
  at least ``min_overlap`` (:func:`metrics.spans.overlapping_units`, the candidates of span
  F1's overlap matching; a zero-length unit only with an identical one).

An undirected label may also match head to tail and tail to head. The matched relations are a
**maximum one-to-one matching** of those candidates (Hopcroft–Karp,
:func:`scipy.sparse.csgraph.maximum_bipartite_matching`), as span F1 matches units: each
relation counts once, and no other pairing would match more. Matching relations rather than
first matching units keeps a relation whose coder marked the same entity twice with
slightly different spans (``[0, 4)`` in one relation, ``[0, 3)`` in another).

With ``a`` as the reference, ``TP`` counts the matched relations, ``FN`` ``a``'s unmatched
ones and ``FP`` ``b``'s, and ``F1 = 2 TP / (2 TP + FP + FN)`` (symmetric in the pair). A
pair's counts are pooled over its documents (micro over documents); ``value`` is the **mean
over coder pairs** of the pairs' F1, and each label's value the mean over pairs of the pair's
F1 on that label (pairs where it is 0/0 left out).
A document one coder of the pair annotated and related nothing in counts the other's
relations as misses; two coders who both related nothing add nothing (F1 is not corrected
for chance; see :mod:`~metrics.structured.relations.alpha`).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from metrics.decomposition import Decomposition
from metrics.structured.relations._alignment import Match, pair_candidates
from metrics.structured.relations.data import RelationData

__all__ = ["PairRelationF1", "RelationF1", "decompose_relation_f1", "relation_f1"]


@dataclass(frozen=True)
class PairRelationF1:
    """F1 of one coder pair over the documents both annotated (None where 0/0)."""

    coders: tuple[Hashable, Hashable]
    value: float | None
    true_positives: int
    false_positives: int
    false_negatives: int
    documents: int


@dataclass(frozen=True)
class RelationF1:
    """Relation F1 averaged over coder pairs.

    Attributes
    ----------
    value : float
        Mean over pairs of each pair's F1 (pairs where F1 is 0/0 left out).
    categories : dict
        Each label's mean over pairs of the pair's F1 on that label.
    pairs : tuple of PairRelationF1
    match : str
    min_overlap : float
    """

    value: float
    categories: dict[Hashable, float]
    pairs: tuple[PairRelationF1, ...]
    match: str
    min_overlap: float


@dataclass(frozen=True)
class _PairCounts:
    """One pair's TP, FP, FN per (document, label): arrays of shape (n_documents, n_labels)."""

    first: int
    second: int
    counts: NDArray[np.float64]  # (3, n_documents, n_labels)
    documents: int


def _check(match: str, min_overlap: float) -> None:
    if match not in ("exact", "overlap"):
        raise ValueError(f"match must be 'exact' or 'overlap'; got {match!r}.")
    if not 0.0 <= float(min_overlap) <= 1.0:
        raise ValueError(f"min_overlap must be between 0 and 1; got {min_overlap!r}.")


def _equi_join(
    left: NDArray[np.int64], right: NDArray[np.int64]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every ``(i, j)`` with ``left[i] == right[j]``, as two index arrays."""
    order = np.argsort(right, kind="stable")
    low = np.searchsorted(right[order], left, side="left")
    high = np.searchsorted(right[order], left, side="right")
    counts = high - low
    rows = np.repeat(np.arange(left.size, dtype=np.intp), counts)
    first = np.cumsum(counts) - counts
    columns = order[np.arange(rows.size) - np.repeat(first - low, counts)]
    return rows, columns.astype(np.intp)


def _candidates(
    data: RelationData,
    mine: NDArray[np.intp],
    theirs: NDArray[np.intp],
    edges: tuple[NDArray[np.intp], NDArray[np.intp]],
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Relation pairs (positions in ``mine`` and ``theirs``) that may match: same label and
    both ends candidates of each other (undirected labels also crosswise)."""
    unit_a, unit_b = edges
    n = np.int64(max(data.n_units, 1))
    edge_keys = np.unique(unit_a.astype(np.int64) * n + unit_b)
    found_r: list[NDArray[np.intp]] = []
    found_s: list[NDArray[np.intp]] = []
    for crosswise in (False, True):
        their_first = data.tail[theirs] if crosswise else data.head[theirs]
        their_second = data.head[theirs] if crosswise else data.tail[theirs]
        edge, r = _equi_join(unit_a.astype(np.int64), data.head[mine].astype(np.int64))
        k, s = _equi_join(unit_b[edge].astype(np.int64), their_first.astype(np.int64))
        r = r[k]
        keep = data.label[mine[r]] == data.label[theirs[s]]
        if crosswise:
            keep &= data.undirected[data.label[mine[r]]]
        second_keys = data.tail[mine[r]].astype(np.int64) * n + their_second[s]
        keep &= np.isin(second_keys, edge_keys)
        found_r.append(r[keep])
        found_s.append(s[keep])
    return np.concatenate(found_r), np.concatenate(found_s)


def _pair_counts(data: RelationData, match: Match, min_overlap: float) -> list[_PairCounts]:
    _check(match, min_overlap)
    n_labels = max(len(data.labels), 1)
    result = []
    for pairs in pair_candidates(data, match, min_overlap):
        a, b = pairs.coders
        shared = data.annotated[:, a] & data.annotated[:, b]
        mine = np.flatnonzero((data.coder == a) & shared[data.document])
        theirs = np.flatnonzero((data.coder == b) & shared[data.document])
        r, s = _candidates(data, mine, theirs, (pairs.first, pairs.second))
        mine_matched = np.zeros(mine.size, dtype=bool)
        theirs_matched = np.zeros(theirs.size, dtype=bool)
        if r.size:
            graph = sparse.csr_matrix(
                (np.ones(r.size, dtype=np.int8), (r, s)), shape=(mine.size, theirs.size)
            )
            graph.sum_duplicates()
            partner = maximum_bipartite_matching(graph, perm_type="column")
            mine_matched = partner >= 0
            theirs_matched[partner[mine_matched]] = True
        counts = np.zeros((3, data.n_documents, n_labels))
        for k, chosen in enumerate(
            (mine[mine_matched], theirs[~theirs_matched], mine[~mine_matched])
        ):
            np.add.at(counts[k], (data.document[chosen], data.label[chosen]), 1.0)
        result.append(_PairCounts(a, b, counts, int(shared.sum())))
    if not result:
        raise ValueError("Relation F1 needs a document annotated by two coders; there is none.")
    return result


def _f1(tp: NDArray[np.float64], fp: NDArray[np.float64], fn: NDArray[np.float64]) -> NDArray:
    denominator = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, 2 * tp / np.where(denominator > 0, denominator, 1), np.nan)


def relation_f1(
    data: RelationData, *, match: Match = "exact", min_overlap: float = 0.5
) -> RelationF1:
    """Relation F1 between coder pairs, micro over documents, averaged over pairs.

    Parameters
    ----------
    data : RelationData
    match : {"exact", "overlap"}, default "exact"
    min_overlap : float, default 0.5
        IoU two units need to match (``match="overlap"`` only).

    Raises
    ------
    ValueError
        Bad options; no document annotated by two coders; no coder pair with a relation in
        their shared documents (F1 is 0/0 for every pair).

    Examples
    --------
    ``ann`` relates [0, 4) to [10, 15) (works_for) and [0, 4) to [20, 25) (knows); ``bob``
    relates [0, 4) to [10, 15) (works_for) and [0, 3) to [20, 25) (knows). Exact: one of two
    matches each way, F1 = 1/2; by overlap ([0, 3) and [0, 4): IoU 3/4) both match, F1 = 1.

    >>> data = RelationData.from_long(["d"] * 4, ["ann", "ann", "bob", "bob"],
    ...     [0, 0, 0, 0], [4, 4, 4, 3], [10, 20, 10, 20], [15, 25, 15, 25],
    ...     ["works_for", "knows", "works_for", "knows"])
    >>> relation_f1(data).value, relation_f1(data, match="overlap").value
    (0.5, 1.0)
    >>> relation_f1(data).categories
    {'knows': 0.0, 'works_for': 1.0}
    """
    counts = _pair_counts(data, match, min_overlap)
    pairs = []
    per_pair = []
    per_label = []
    for pair in counts:
        tp, fp, fn = (pair.counts[k].sum() for k in range(3))
        value = _f1(np.array(tp), np.array(fp), np.array(fn))
        defined = bool(np.isfinite(value))
        pairs.append(
            PairRelationF1(
                coders=(data.coders[pair.first], data.coders[pair.second]),
                value=float(value) if defined else None,
                true_positives=int(tp),
                false_positives=int(fp),
                false_negatives=int(fn),
                documents=pair.documents,
            )
        )
        per_pair.append(float(value))
        label_totals = pair.counts.sum(axis=1)  # (3, n_labels)
        per_label.append(_f1(label_totals[0], label_totals[1], label_totals[2]))
    values = np.array(per_pair)
    if not np.isfinite(values).any():
        raise ValueError(
            "Relation F1 is undefined: no coder related anything in a document another coder "
            "also annotated (2 TP + FP + FN = 0 for every pair)."
        )
    labels = np.array(per_label).reshape(len(counts), -1)
    categories = {}
    for k, name in enumerate(data.labels):
        column = labels[:, k]
        if np.isfinite(column).any():
            categories[name] = float(np.nanmean(column))
    return RelationF1(
        value=float(np.nanmean(values)),
        categories=categories,
        pairs=tuple(pairs),
        match=match,
        min_overlap=float(min_overlap) if match == "overlap" else 0.0,
    )


def decompose_relation_f1(
    data: RelationData, *, match: Match = "exact", min_overlap: float = 0.5
) -> Decomposition:
    """Relation F1 as ``finalize(sum of per-document rows)``, for the bootstrap over documents.

    Row ``d``: ``[TP, FP, FN]`` of every coder pair in document ``d`` (three columns per
    pair); ``finalize`` gives each pair's F1 and their mean over the pairs where it is
    defined (``nan`` when none is).

    Examples
    --------
    >>> data = RelationData.from_long(["d1", "d1", "d2", "d2"], ["a", "b", "a", "b"],
    ...     [0, 0, 0, 0], [2, 2, 2, 2], [5, 5, 5, 6], [7, 7, 7, 7], ["r", "r", "r", "r"])
    >>> decompose_relation_f1(data).item_stats.tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    """
    counts = _pair_counts(data, match, min_overlap)
    rows = np.column_stack([pair.counts.sum(axis=2).T for pair in counts])

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        parts = totals.reshape(*totals.shape[:-1], -1, 3)
        value = _f1(parts[..., 0], parts[..., 1], parts[..., 2])
        defined = np.isfinite(value)
        count = defined.sum(-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.where(defined, value, 0.0).sum(-1) / count
        return np.asarray(np.where(count > 0, mean, np.nan), dtype=np.float64)

    name = "relation_f1" if match == "exact" else "relation_f1_overlap"
    return Decomposition(name, rows, finalize)
