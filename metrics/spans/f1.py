"""Span F1 between coder pairs: how many units two coders share, exactly or by overlap.

For a pair of coders ``(a, b)`` and the documents *both* annotated, a unit of ``a`` and a
unit of ``b`` *match* when they have the same category and

- ``match="exact"``: the same begin and end;
- ``match="overlap"``: they overlap (their intersection is longer than zero) with an
  intersection over union of at least ``min_overlap``
  (``IoU = |A ∩ B| / |A ∪ B|``; ``min_overlap=0`` accepts any overlap). A zero-length unit
  (a point) overlaps nothing; in overlap mode it matches only an identical point.

Matching is one-to-one: each unit is matched at most once. With ``a`` as the reference,
``TP`` is the number of matched pairs, ``FN`` the unmatched units of ``a`` and ``FP`` the
unmatched units of ``b``, and

.. math:: F_1 = \\frac{2\\,TP}{2\\,TP + FP + FN},

which is symmetric in the pair (swapping the coders swaps FP and FN). With more than two
coders the counts of all pairs are pooled (micro-average), and so are the counts of all
categories for the overall value; each category's value uses its own counts.

Exact matching pairs identical units (two identical units of one coder match two of the
other's, or one). Overlap matching takes a **maximum-cardinality matching** of the bipartite
graph whose edges are the matching unit pairs (Hopcroft–Karp,
:func:`scipy.sparse.csgraph.maximum_bipartite_matching`, on all documents and categories of a
pair at once; an edge never joins two documents or two categories). F1 counts matches, so the
largest number of matches is the well-defined choice: it does not depend on the order of the
units, and it never counts a miss that a different pairing would have avoided. A greedy
matching by largest overlap can (see the tests: ``a1`` overlapping ``b1`` and ``b2``, ``a2``
only ``b1``; greedy pairs ``a1``–``b1`` and leaves ``a2`` unmatched).

A coder who annotated a document and marked nothing there counts all of the other coder's
units in it as misses; a document that one coder of the pair did not annotate is left out of
that pair. Two coders who both found nothing add nothing: F1 has no notion of agreeing on
"nothing here" and is not corrected for chance (see :mod:`metrics.spans.tokens`).

References
----------
Tjong Kim Sang, E. F. & De Meulder, F. (2003). Introduction to the CoNLL-2003 shared task:
language-independent named entity recognition. CoNLL 2003. (exact-match span F1.)

Hripcsak, G. & Rothschild, A. S. (2005). Agreement, the F-measure, and reliability in
information retrieval. JAMIA 12(3), 296–298. https://doi.org/10.1197/jamia.M1733
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from metrics.decomposition import Decomposition
from metrics.spans.data import SpanData

Match = Literal["exact", "overlap"]

__all__ = [
    "MatchedUnits",
    "PairF1",
    "SpanF1",
    "decompose_span_f1",
    "matched_units",
    "overlapping_units",
    "span_f1",
]


@dataclass(frozen=True)
class PairF1:
    """F1 of one coder pair over the documents both annotated.

    ``precision`` and ``recall`` take the first coder as the reference: precision is the
    share of the second coder's units that are matched, recall the share of the first's.
    ``value``, ``precision`` and ``recall`` are None when the quotient is 0/0.
    """

    coders: tuple[Hashable, Hashable]
    value: float | None
    precision: float | None
    recall: float | None
    true_positives: int
    false_positives: int
    false_negatives: int
    documents: int


@dataclass(frozen=True)
class SpanF1:
    """Span F1 pooled over coder pairs.

    Attributes
    ----------
    value : float
        ``2 TP / (2 TP + FP + FN)`` with the counts of every pair and category pooled.
    matched : int
        Matched unit pairs (TP) over all pairs.
    unmatched : int
        Units left unmatched (FP + FN) over all pairs.
    categories : dict
        Each category's F1 from its own pooled counts; categories without any unit in a
        document two coders annotated are left out.
    pairs : tuple of PairF1
        One entry per coder pair that shares at least one document, in coder order.
    match : {"exact", "overlap"}
    min_overlap : float
        The IoU threshold (overlap matching only; 0 for exact matching).
    """

    value: float
    matched: int
    unmatched: int
    categories: dict[Hashable, float]
    pairs: tuple[PairF1, ...]
    match: str
    min_overlap: float


@dataclass(frozen=True)
class _PairMatch:
    """Which units of a pair are matched: indices into the data's unit arrays.

    ``pair_first[k]`` (a position in ``first``) is matched with ``pair_second[k]`` (a position
    in ``second``).
    """

    first: NDArray[np.intp]
    second: NDArray[np.intp]
    first_matched: NDArray[np.bool_]
    second_matched: NDArray[np.bool_]
    documents: int
    pair_first: NDArray[np.intp]
    pair_second: NDArray[np.intp]


@dataclass(frozen=True)
class MatchedUnits:
    """The units two coders share, as :func:`span_f1` matches them.

    ``first[k]`` (a unit of coder ``coders[0]``) is matched with ``second[k]`` (a unit of
    coder ``coders[1]``); both index the data's unit arrays. Only documents both coders
    annotated are read.
    """

    coders: tuple[int, int]
    first: NDArray[np.intp]
    second: NDArray[np.intp]


# -- matching --------------------------------------------------------------------------------


def _check_options(match: str, min_overlap: float) -> None:
    if match not in ("exact", "overlap"):
        raise ValueError(f"match must be 'exact' or 'overlap'; got {match!r}.")
    if not 0.0 <= float(min_overlap) <= 1.0:
        raise ValueError(f"min_overlap must be between 0 and 1; got {min_overlap!r}.")
    if match == "exact" and min_overlap != 0:
        raise ValueError("min_overlap applies to match='overlap' only.")


@dataclass(frozen=True)
class _Identical:
    """Identical units, numbered once for all pairs.

    ``key[u]`` numbers the distinct ``(document, category, begin, end)`` of unit ``u``;
    ``rank[u]`` is how many units of the same coder with the same key come before it.
    """

    key: NDArray[np.intp]
    rank: NDArray[np.intp]
    n_keys: int


def _identical(data: SpanData) -> _Identical:
    n = data.n_units
    if n == 0:
        empty = np.zeros(0, dtype=np.intp)
        return _Identical(empty, empty, 0)
    columns = [data.document, data.category, data.begin, data.end]
    order = np.lexsort([data.coder, *columns[::-1]])
    new_key = np.zeros(n, dtype=bool)
    new_key[0] = True
    for column in columns:
        ordered = column[order]
        new_key[1:] |= ordered[1:] != ordered[:-1]
    coder = data.coder[order]
    new_run = new_key.copy()
    new_run[1:] |= coder[1:] != coder[:-1]
    run_start = np.flatnonzero(new_run)
    key = np.empty(n, dtype=np.intp)
    rank = np.empty(n, dtype=np.intp)
    key[order] = np.cumsum(new_key) - 1
    rank[order] = np.arange(n) - np.repeat(run_start, np.diff(np.r_[run_start, n]))
    return _Identical(key, rank, int(new_key.sum()))


def _exact_pairs(
    identical: _Identical, first: NDArray[np.intp], second: NDArray[np.intp]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Multiset intersection of identical units: the k-th copy matches the k-th copy.

    Returns the matched positions in ``first`` and in ``second``.
    """
    stride = np.int64(max(first.size, second.size, 1))
    key_first = identical.key[first].astype(np.int64) * stride + identical.rank[first]
    key_second = identical.key[second].astype(np.int64) * stride + identical.rank[second]
    _, in_first, in_second = np.intersect1d(
        key_first, key_second, assume_unique=True, return_indices=True
    )
    return in_first.astype(np.intp), in_second.astype(np.intp)


def _ranges(low: NDArray[np.intp], high: NDArray[np.intp]) -> tuple[NDArray[np.intp], ...]:
    """Every ``(i, j)`` with ``low[i] <= j < high[i]``, as two index arrays."""
    counts = np.maximum(high - low, 0)
    rows = np.repeat(np.arange(low.size), counts)
    first_out = np.cumsum(counts) - counts
    columns = np.arange(int(counts.sum())) - np.repeat(first_out - low, counts)
    return rows, columns


class _Index:
    """Numbers of the units shared by all coder pairs, each computed when first needed."""

    def __init__(self, data: SpanData) -> None:
        self.data = data

    @cached_property
    def identical(self) -> _Identical:
        return _identical(self.data)

    @cached_property
    def keys(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """``(document, category, begin)`` and ``(document, category, end)`` of every unit
        as integers that sort like those tuples (offsets replaced by their rank)."""
        data = self.data
        values, inverse = np.unique(np.concatenate([data.begin, data.end]), return_inverse=True)
        n_values = max(values.size, 1)
        n_categories = max(data.n_categories, 1)
        if (data.n_documents * n_categories + 1) * n_values >= np.iinfo(np.int64).max:
            raise ValueError("Too many documents, categories and offsets to index the overlaps.")
        group = data.document.astype(np.int64) * n_categories + data.category
        rank = inverse.astype(np.int64).ravel()
        return group * n_values + rank[: data.n_units], group * n_values + rank[data.n_units :]


def _overlap_edges(
    data: SpanData,
    index: _Index,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    min_overlap: float,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Pairs (position in ``first``, position in ``second``) that may be matched.

    Two units of positive length overlap iff the later begin lies inside the other unit:
    either ``second`` begins in ``[first.begin, first.end)`` or ``first`` begins in
    ``(second.begin, second.end)``. Both are contiguous ranges once each side is sorted by
    (document, category, begin), so all edges come from ``searchsorted`` without a loop.
    """
    begin_key, end_key = index.keys

    def sorted_by_begin(units: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.int64]]:
        unit_keys = begin_key[units]
        order = np.argsort(unit_keys, kind="stable")
        return order, unit_keys[order]

    # Units of `second` beginning in [first.begin, first.end).
    order_second, keys_second = sorted_by_begin(second)
    low = np.searchsorted(keys_second, begin_key[first], side="left")
    high = np.searchsorted(keys_second, end_key[first], side="left")
    rows_1, columns_1 = _ranges(low, high)
    columns_1 = order_second[columns_1]
    # Units of `first` beginning in (second.begin, second.end).
    order_first, keys_first = sorted_by_begin(first)
    low = np.searchsorted(keys_first, begin_key[second], side="right")
    high = np.searchsorted(keys_first, end_key[second], side="left")
    rows_2, columns_2 = _ranges(low, high)
    columns_2 = order_first[columns_2]
    in_first = np.concatenate([rows_1, columns_2])
    in_second = np.concatenate([columns_1, rows_2])
    if min_overlap > 0 and in_first.size:
        a, b = first[in_first], second[in_second]
        overlap = np.minimum(data.end[a], data.end[b]) - np.maximum(data.begin[a], data.begin[b])
        union = np.maximum(data.end[a], data.end[b]) - np.minimum(data.begin[a], data.begin[b])
        keep = overlap >= min_overlap * union
        in_first, in_second = in_first[keep], in_second[keep]
    return in_first, in_second


def _overlap_pairs(
    data: SpanData,
    index: _Index,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    min_overlap: float,
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """A maximum matching by overlap; matched positions in ``first`` and in ``second``."""
    points_first = np.flatnonzero(data.end[first] == data.begin[first])
    points_second = np.flatnonzero(data.end[second] == data.begin[second])
    pairs_first: list[NDArray[np.intp]] = []
    pairs_second: list[NDArray[np.intp]] = []
    if points_first.size or points_second.size:
        matched_a, matched_b = _exact_pairs(
            index.identical, first[points_first], second[points_second]
        )
        pairs_first.append(points_first[matched_a])
        pairs_second.append(points_second[matched_b])
    spans_first = np.flatnonzero(data.end[first] != data.begin[first])
    spans_second = np.flatnonzero(data.end[second] != data.begin[second])
    rows, columns = _overlap_edges(
        data, index, first[spans_first], second[spans_second], min_overlap
    )
    if rows.size:
        graph = sparse.csr_matrix(
            (np.ones(rows.size, dtype=np.int8), (rows, columns)),
            shape=(spans_first.size, spans_second.size),
        )
        partner = maximum_bipartite_matching(graph, perm_type="column")
        matched = np.flatnonzero(partner >= 0)
        pairs_first.append(spans_first[matched])
        pairs_second.append(spans_second[partner[matched]])
    if not pairs_first:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    return (
        np.concatenate(pairs_first).astype(np.intp),
        np.concatenate(pairs_second).astype(np.intp),
    )


def _pair_matches(
    data: SpanData, match: str, min_overlap: float
) -> Iterator[tuple[int, int, _PairMatch]]:
    """The matches of every coder pair that annotated a document together."""
    _check_options(match, min_overlap)
    together = data.annotated.T.astype(np.intp) @ data.annotated.astype(np.intp)
    pairs = [(a, b) for a, b in combinations(range(data.n_coders), 2) if together[a, b] > 0]
    if not pairs:
        raise ValueError("Span F1 needs a document annotated by two coders; there is none.")
    index = _Index(data)
    for a, b in pairs:
        shared = data.annotated[:, a] & data.annotated[:, b]
        in_shared = shared[data.document]
        first = np.flatnonzero((data.coder == a) & in_shared)
        second = np.flatnonzero((data.coder == b) & in_shared)
        if match == "exact":
            pair_first, pair_second = _exact_pairs(index.identical, first, second)
        else:
            pair_first, pair_second = _overlap_pairs(data, index, first, second, float(min_overlap))
        first_matched = np.zeros(first.size, dtype=bool)
        second_matched = np.zeros(second.size, dtype=bool)
        first_matched[pair_first] = True
        second_matched[pair_second] = True
        yield (
            a,
            b,
            _PairMatch(
                first,
                second,
                first_matched,
                second_matched,
                int(shared.sum()),
                pair_first,
                pair_second,
            ),
        )


def _counts_by(pair: _PairMatch, labels: NDArray[np.intp], size: int) -> NDArray[np.float64]:
    """``(size, 3)``: TP, FP, FN by ``labels`` (the document or category of each unit)."""
    tp = np.bincount(labels[pair.first[pair.first_matched]], minlength=size)
    fn = np.bincount(labels[pair.first[~pair.first_matched]], minlength=size)
    fp = np.bincount(labels[pair.second[~pair.second_matched]], minlength=size)
    return np.column_stack([tp, fp, fn]).astype(np.float64)


def _f1(tp: float, fp: float, fn: float) -> float | None:
    denominator = 2 * tp + fp + fn
    return None if denominator == 0 else 2 * tp / denominator


def _finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
    totals = np.asarray(totals, dtype=np.float64)
    tp, fp, fn = totals[..., 0], totals[..., 1], totals[..., 2]
    denominator = 2 * tp + fp + fn
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(denominator > 0, 2 * tp / np.where(denominator > 0, denominator, 1), np.nan)


# -- public ----------------------------------------------------------------------------------


def span_f1(data: SpanData, *, match: Match = "exact", min_overlap: float = 0.0) -> SpanF1:
    """Span F1 between every pair of coders, pooled over pairs (micro-average).

    Parameters
    ----------
    data : SpanData
    match : {"exact", "overlap"}, default "exact"
        ``exact``: same begin, end and category. ``overlap``: same category, positive
        overlap, and intersection over union at least ``min_overlap``; one-to-one by a
        maximum-cardinality matching (see the module docstring).
    min_overlap : float, default 0.0
        IoU threshold in ``[0, 1]`` for ``match="overlap"`` (0: any overlap; 1: the same
        span, i.e. exact matching).

    Returns
    -------
    SpanF1

    Raises
    ------
    ValueError
        For an unknown ``match`` or a ``min_overlap`` outside ``[0, 1]``; when no document
        was annotated by two coders; when the coders who share documents marked no unit in
        them (F1 is 0/0).

    Examples
    --------
    Two coders, one document: ``ann`` marks PER [0, 5) and LOC [10, 14); ``bob`` marks PER
    [0, 5) and LOC [11, 14). Exact: TP 1, FP 1, FN 1, F1 = 2/4; by overlap: TP 2, F1 = 1.

    >>> data = SpanData.from_units([("d", "ann", 0, 5, "PER"), ("d", "ann", 10, 14, "LOC"),
    ...                             ("d", "bob", 0, 5, "PER"), ("d", "bob", 11, 14, "LOC")])
    >>> span_f1(data).value, span_f1(data, match="overlap").value
    (0.5, 1.0)
    >>> span_f1(data).categories
    {'LOC': 0.0, 'PER': 1.0}
    """
    total = np.zeros(3)
    by_category = np.zeros((data.n_categories, 3))
    results = []
    for a, b, pair in _pair_matches(data, match, min_overlap):
        counts = _counts_by(pair, data.category, data.n_categories)
        by_category += counts
        tp, fp, fn = (int(x) for x in counts.sum(axis=0))
        total += (tp, fp, fn)
        results.append(
            PairF1(
                coders=(data.coders[a], data.coders[b]),
                value=_f1(tp, fp, fn),
                precision=None if tp + fp == 0 else tp / (tp + fp),
                recall=None if tp + fn == 0 else tp / (tp + fn),
                true_positives=tp,
                false_positives=fp,
                false_negatives=fn,
                documents=pair.documents,
            )
        )
    value = _f1(*total)
    if value is None:
        raise ValueError(
            "Span F1 is undefined: no coder marked any unit in a document another coder "
            "also annotated (2 TP + FP + FN = 0)."
        )
    categories = {
        data.categories[k]: f
        for k in range(data.n_categories)
        if (f := _f1(*by_category[k])) is not None
    }
    return SpanF1(
        value=value,
        matched=int(total[0]),
        unmatched=int(total[1] + total[2]),
        categories=categories,
        pairs=tuple(results),
        match=match,
        min_overlap=float(min_overlap),
    )


def matched_units(
    data: SpanData, *, match: Match = "exact", min_overlap: float = 0.0
) -> Iterator[MatchedUnits]:
    """The matched units of every coder pair that annotated a document together.

    The same matching as :func:`span_f1` (exact, or a maximum matching by overlap), given as
    the matched unit pairs, for measures built on top of it (relation F1 and alpha on
    relations, :mod:`metrics.structured.relations`).

    Parameters
    ----------
    data : SpanData
    match, min_overlap
        As in :func:`span_f1`.

    Yields
    ------
    MatchedUnits
        One per coder pair sharing a document, in coder order.

    Raises
    ------
    ValueError
        For bad options, or when no document was annotated by two coders.

    Examples
    --------
    >>> data = SpanData.from_units([("d", "ann", 0, 5, "PER"), ("d", "ann", 10, 14, "LOC"),
    ...                             ("d", "bob", 0, 5, "PER"), ("d", "bob", 11, 14, "LOC")])
    >>> [(m.first.tolist(), m.second.tolist()) for m in matched_units(data)]
    [([0], [2])]
    >>> pairs = next(matched_units(data, match="overlap", min_overlap=0.5))
    >>> sorted(zip(pairs.first.tolist(), pairs.second.tolist()))
    [(0, 2), (1, 3)]
    """
    for a, b, pair in _pair_matches(data, match, min_overlap):
        yield MatchedUnits((a, b), pair.first[pair.pair_first], pair.second[pair.pair_second])


def overlapping_units(data: SpanData, *, min_overlap: float = 0.0) -> Iterator[MatchedUnits]:
    """Every pair of units that *may* match by overlap, for every coder pair.

    The candidates of :func:`span_f1`'s overlap matching before it picks a one-to-one
    matching: two units of the same document and category that overlap with an intersection
    over union of at least ``min_overlap`` (a zero-length unit only with an identical one).
    A unit may appear in several pairs.

    Examples
    --------
    >>> data = SpanData.from_units([("d", "ann", 0, 10, "X"), ("d", "bob", 0, 8, "X"),
    ...                             ("d", "bob", 2, 10, "X")])
    >>> pairs = next(overlapping_units(data, min_overlap=0.5))
    >>> sorted(zip(pairs.first.tolist(), pairs.second.tolist()))
    [(0, 1), (0, 2)]
    """
    _check_options("overlap", min_overlap)
    together = data.annotated.T.astype(np.intp) @ data.annotated.astype(np.intp)
    index = _Index(data)
    for a, b in combinations(range(data.n_coders), 2):
        if together[a, b] == 0:
            continue
        shared = data.annotated[:, a] & data.annotated[:, b]
        in_shared = shared[data.document]
        first = np.flatnonzero((data.coder == a) & in_shared)
        second = np.flatnonzero((data.coder == b) & in_shared)
        points_first = np.flatnonzero(data.end[first] == data.begin[first])
        points_second = np.flatnonzero(data.end[second] == data.begin[second])
        at_a, at_b = _exact_pairs(index.identical, first[points_first], second[points_second])
        spans_first = first[data.end[first] != data.begin[first]]
        spans_second = second[data.end[second] != data.begin[second]]
        rows, columns = _overlap_edges(data, index, spans_first, spans_second, float(min_overlap))
        yield MatchedUnits(
            (a, b),
            np.concatenate([first[points_first[at_a]], spans_first[rows]]).astype(np.intp),
            np.concatenate([second[points_second[at_b]], spans_second[columns]]).astype(np.intp),
        )


def decompose_span_f1(
    data: SpanData, *, match: Match = "exact", min_overlap: float = 0.0
) -> Decomposition:
    """Span F1 as ``finalize(sum of per-document rows)``, for the bootstrap over documents.

    One row per document of ``data``: ``[TP, FP, FN]`` summed over the coder pairs who both
    annotated it (a zero row where fewer than two coders did); ``finalize`` gives
    ``2 TP / (2 TP + FP + FN)``, ``nan`` where that is 0/0.

    Parameters
    ----------
    data : SpanData
    match, min_overlap
        As in :func:`span_f1`.

    Returns
    -------
    Decomposition
        ``name="span_f1"`` (``"span_f1_overlap"`` for overlap matching); ``evaluate()``
        equals :func:`span_f1`'s value.

    Raises
    ------
    ValueError
        For bad options, or when no document was annotated by two coders.

    Examples
    --------
    >>> data = SpanData.from_units([("d1", "ann", 0, 5, "PER"), ("d1", "bob", 0, 5, "PER"),
    ...                             ("d2", "ann", 0, 3, "LOC"), ("d2", "bob", 1, 3, "LOC")])
    >>> decomposition = decompose_span_f1(data)
    >>> decomposition.item_stats.tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 1.0]]
    >>> float(decomposition.evaluate())
    0.5
    """
    rows = np.zeros((data.n_documents, 3))
    for _, _, pair in _pair_matches(data, match, min_overlap):
        rows += _counts_by(pair, data.document, data.n_documents)
    name = "span_f1" if match == "exact" else "span_f1_overlap"
    return Decomposition(name, rows, _finalize)
