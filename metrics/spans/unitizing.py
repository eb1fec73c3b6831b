"""Krippendorff's unitizing alpha α_U: agreement on where units are, per category and overall.

α_U (Krippendorff 1995; 2004, pp. 251–256) compares how coders cut a continuum into units of
a category and the gaps between them. For category ``c``, each coder's continuum is a sequence
of *segments*: ``c``-units and gaps (stretches with no ``c``-unit, whatever other categories
mark there). Two coders' segments are compared with :func:`segment_distance`:

- two ``c``-units that overlap: ``(b₁ − b₂)² + (e₁ − e₂)²``, the squared lengths of the two
  stretches where only one of them lies (``s₋² + s₊²`` in Artstein & Poesio 2008, Figure 2);
- a ``c``-unit inside the other coder's gap: the unit's squared length;
- anything else (gap against gap, a unit against a gap it sticks out of): 0.

This is the definition DKPro Statistics' ``KrippendorffAlphaUnitizingAgreement`` (2.3.1)
implements; every figure of its test suite is reproduced in ``tests/metrics/spans``.

For one continuum of length ``L`` and ``m`` coders, with ``N = mL``:

- observed disagreement ``D_o(c) = Σ_{i≠j} Σ d(segments of i, segments of j) / (m(m−1)L²)``,
  the sum over ordered coder pairs and every pair of segments that meet;
- expected disagreement, from the pooled units (``N_c`` of them, lengths ``l``) and the
  pooled gaps (lengths ``g``) of all coders:
  ``D_e(c) = (2/L) Σ_units [(N_c − 1) l(l−1)(2l−1)/3 + l² Σ_{g ≥ l} (g − l + 1)]
  / (N(N − 1) − Σ_units l(l − 1))``: every unit compared with every place it could lie;
- ``α_U(c) = 1 − D_o(c)/D_e(c)``; overall, ``D_o`` and ``D_e`` are the means over the
  categories and ``α_U = 1 − D_o/D_e``.

Several documents
-----------------
Each document is its own continuum; only coders who annotated it count there (a coder who
annotated it and marked nothing has one gap over the whole document), and a document fewer
than two coders annotated contributes nothing. The documents are pooled as if laid end to end,
with each document's edges as segment boundaries: ``N = Σ_d m_d L_d``; the pooled units may
fall, by chance, in any pooled gap; the observed sum of a document with ``m_d`` coders is
weighted ``1/(m_d − 1)`` (as coincidence-based α weights a unit's pairs) and the total divided
by ``N·Λ``, where ``Λ = Σ_d L_d``. With one document, or with the same coders on every
document, this is exactly the single-continuum formula with ``L = Σ_d L_d``. Cutting a
continuum in two where every coder has a segment boundary leaves α_U, D_o and D_e unchanged.

Positions are counts of atomic positions (characters, tokens): ``g − l + 1`` counts the
places a unit of length ``l`` fits in a gap of length ``g``. α_U therefore depends on the
grain; for times in seconds, pick a unit (milliseconds, frames), as finer grains converge
(Krippendorff 1995, and DKPro's ``Krippendorff1995Test.testVaryingLengths``).

Overlapping units
-----------------
α_U assumes one coder's units of a category never overlap. By default such units raise a
:class:`~metrics.spans.refusal.RefusalError` (a ``ValueError``, code
``"overlapping_units"``) naming the document, the coder and both units; ``overlapping="merge"``
replaces each run of overlapping units by their union first. Units of different categories
may overlap freely: each category is its own α_U.

Examples
--------
>>> from metrics.spans import SpanData
>>> data = SpanData.from_units(
...     [("d", "ann", 2, 10, "X"), ("d", "bob", 4, 10, "X")], extents={"d": (0, 20)}
... )
>>> result = unitizing_alpha(data)
>>> round(result.value, 4), round(result.observed, 4), round(result.expected, 4)
(0.87, 0.01, 0.0769)
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import sparse

from metrics.decomposition import Decomposition, Finalize
from metrics.spans._geometry import (
    first_overlap,
    gaps,
    merge_overlapping,
    overlap_ranges,
    position_keys,
)
from metrics.spans.data import SpanData
from metrics.spans.refusal import OVERLAPPING_UNITS, RefusalError

__all__ = [
    "LENGTH_BINS",
    "CategoryAlpha",
    "OverlapPolicy",
    "UnitizingAlpha",
    "decompose_unitizing_alpha",
    "segment_distance",
    "unitizing_alpha",
    "unitizing_document_disagreement",
]

OverlapPolicy = Literal["error", "merge"]
#: The library's remedy for overlapping units (:data:`OVERLAPPING_UNITS`); the command line and
#: the server state the problem with their own option's name (the refusal's ``problem``).
MERGE_REMEDY = "(pass overlapping='merge' to merge them into their union)"

#: Distinct unit lengths, over all categories, up to which a bootstrap resample of
#: :func:`decompose_unitizing_alpha` is exact (see there). Each category gets an equal share,
#: at least 32.
LENGTH_BINS = 2048
_MIN_BINS_PER_CATEGORY = 32

_SHARED_COLUMNS = 3  # observed sum over the categories, N = Σ m_d L_d, Λ = Σ L_d
_CATEGORY_COLUMNS = 4  # observed sum, unit count, Σ l(l−1)(2l−1)/3, Σ l(l−1)


def segment_distance(
    begin_a: npt.ArrayLike,
    end_a: npt.ArrayLike,
    unit_a: npt.ArrayLike,
    begin_b: npt.ArrayLike,
    end_b: npt.ArrayLike,
    unit_b: npt.ArrayLike,
) -> NDArray[np.float64]:
    """α_U's distance between segment ``a`` of one coder and segment ``b`` of another.

    A segment is ``[begin, end)``, a unit of the category (``unit`` True) or a gap (False).
    Broadcasts over arrays.

    - two units that overlap: ``(begin_a − begin_b)² + (end_a − end_b)²``;
    - a unit lying inside a gap: the unit's squared length;
    - otherwise 0.

    Examples
    --------
    Krippendorff (2004, p. 254), as DKPro Statistics ``Krippendorff2004Test``
    (docs/references.md, ``dkpro-unitizing-k2004``):

    >>> float(segment_distance(370, 400, True, 355, 375, True))  # 15² + 25²
    850.0
    >>> float(segment_distance(400, 450, False, 400, 420, True))  # a unit of 20 in a gap
    400.0
    """
    ba, ea, ua = np.asarray(begin_a, float), np.asarray(end_a, float), np.asarray(unit_a, bool)
    bb, eb, ub = np.asarray(begin_b, float), np.asarray(end_b, float), np.asarray(unit_b, bool)
    both = ua & ub & (ba < eb) & (bb < ea)
    a_in_gap = ua & ~ub & (bb <= ba) & (ea <= eb)
    b_in_gap = ~ua & ub & (ba <= bb) & (eb <= ea)
    return np.where(
        both,
        (ba - bb) ** 2 + (ea - eb) ** 2,
        np.where(a_in_gap, (ea - ba) ** 2, np.where(b_in_gap, (eb - bb) ** 2, 0.0)),
    )


@dataclass(frozen=True)
class CategoryAlpha:
    """α_U of one category.

    Attributes
    ----------
    value : float
        ``1 − observed/expected``; ``nan`` when undefined, with ``reason`` saying why.
    observed, expected : float
        D_o and D_e of the category.
    reason : str or None
        Why ``value`` is undefined (no unit of the category, or only zero-length ones).
    """

    value: float
    observed: float
    expected: float
    reason: str | None = None


@dataclass(frozen=True)
class UnitizingAlpha:
    """Krippendorff's α_U over all categories, and per category.

    Attributes
    ----------
    value : float
        ``1 − observed/expected``.
    observed, expected : float
        Means of the categories' D_o and D_e (over the categories with at least one unit).
    categories : dict
        :class:`CategoryAlpha` of each category (every category of the data, or the one
        asked for).
    n_documents : int
        Documents annotated by two or more coders (the others contribute nothing).
    """

    value: float
    observed: float
    expected: float
    categories: dict[Hashable, CategoryAlpha]
    n_documents: int


# -- the units α_U reads ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Units:
    """Units of documents with two or more coders, one coder's units of a category disjoint.

    Sorted by (category, document, coder, begin); ``*_key`` order (document, position) pairs.
    """

    category: NDArray[np.intp]
    document: NDArray[np.intp]
    coder: NDArray[np.intp]
    begin: NDArray[np.float64]
    end: NDArray[np.float64]
    begin_key: NDArray[np.int64]
    end_key: NDArray[np.int64]

    def of_category(self, category: int) -> _Units:
        low, high = np.searchsorted(self.category, [category, category + 1])
        part = slice(int(low), int(high))
        return _Units(
            self.category[part],
            self.document[part],
            self.coder[part],
            self.begin[part],
            self.end[part],
            self.begin_key[part],
            self.end_key[part],
        )


def _prepare(
    data: SpanData, pairable: NDArray[np.bool_], wanted: NDArray[np.intp], overlapping: str
) -> _Units:
    if overlapping not in ("error", "merge"):
        raise ValueError(f"overlapping must be 'error' or 'merge', not {overlapping!r}")
    chosen = np.flatnonzero(pairable[data.document] & np.isin(data.category, wanted))
    # SpanData sorts by (document, coder, begin, end, category): a stable sort by category
    # gives (category, document, coder, begin, end).
    chosen = chosen[np.argsort(data.category[chosen], kind="stable")]
    category = data.category[chosen]
    document = data.document[chosen]
    coder = data.coder[chosen]
    begin = data.begin[chosen]
    end = data.end[chosen]
    group = (category.astype(np.int64) * data.n_documents + document) * data.n_coders + coder
    clash = first_overlap(group, begin, end)
    if clash is not None and overlapping == "error":
        k = clash
        raise RefusalError(
            OVERLAPPING_UNITS,
            f"document {data.documents[document[k]]!r}, coder {data.coders[coder[k]]!r}: units "
            f"[{begin[k]:g}, {end[k]:g}) and [{begin[k + 1]:g}, {end[k + 1]:g}) of category "
            f"{data.categories[category[k]]!r} overlap; alpha_U needs one coder's units of a "
            "category to be disjoint",
            MERGE_REMEDY,
        )
    if clash is not None:
        first, merged_end = merge_overlapping(group, begin, end)
        category, document, coder = category[first], document[first], coder[first]
        begin, end = begin[first], merged_end
    begin_key, end_key = position_keys(document, begin, end)
    return _Units(category, document, coder, begin, end, begin_key, end_key)


# -- per-document sums -----------------------------------------------------------------------


def _at(
    owner: NDArray[np.intp],
    values: NDArray[np.float64],
    index: NDArray[np.intp],
    document: NDArray[np.intp],
    default: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``values[index]`` where that entry exists and belongs to ``document``, else ``default``."""
    if len(values) == 0:
        return default
    safe = np.clip(index, 0, len(values) - 1)
    found = (index >= 0) & (index < len(values)) & (owner[safe] == document)
    return np.where(found, values[safe], default)


def _observed(units: _Units, data: SpanData, weight: NDArray[np.float64]) -> NDArray[np.float64]:
    """Per document: the segment distances of every ordered coder pair, summed, times ``weight``.

    For each coder ``j`` at once against all other coders' units ``U`` on documents ``j``
    annotated: ``U`` against each of ``j``'s units it overlaps, or, overlapping none, against
    the gap of ``j`` it lies in. Every other pair of segments is at distance 0.
    """
    n_docs = data.n_documents
    total = np.zeros(n_docs, dtype=np.float64)
    counted = np.flatnonzero(data.annotated[weight > 0].any(axis=0))
    for j in counted:
        target = units.coder == j
        t_doc, t_begin, t_end = units.document[target], units.begin[target], units.end[target]
        query = (units.coder != j) & data.annotated[units.document, j]
        q_doc, q_begin, q_end = units.document[query], units.begin[query], units.end[query]
        lo, hi = overlap_ranges(
            units.begin_key[target],
            units.end_key[target],
            units.begin_key[query],
            units.end_key[query],
        )
        # j's units are disjoint, so each query overlaps a run of them and the pairs are few.
        counts = np.maximum(hi - lo, 0)
        pair_query = np.repeat(np.arange(len(lo)), counts)
        pair_target = np.arange(int(counts.sum())) + np.repeat(
            lo - np.cumsum(counts) + counts, counts
        )
        overlapping = segment_distance(
            q_begin[pair_query],
            q_end[pair_query],
            True,
            t_begin[pair_target],
            t_end[pair_target],
            True,
        )
        total += np.bincount(q_doc[pair_query], weights=overlapping, minlength=n_docs)
        # A unit overlapping none of j's units lies in j's gap from the end of j's unit before
        # it (or the document's begin) to the begin of j's unit after it (or the document's end).
        alone = np.flatnonzero(counts == 0)
        a_doc, after = q_doc[alone], lo[alone]
        gap_begin = _at(t_doc, t_end, after - 1, a_doc, data.extents[a_doc, 0])
        gap_end = _at(t_doc, t_begin, after, a_doc, data.extents[a_doc, 1])
        in_gap = segment_distance(q_begin[alone], q_end[alone], True, gap_begin, gap_end, False)
        # Twice: the pass with i and j swapped meets each overlapping pair again, but not this.
        total += np.bincount(a_doc, weights=2 * in_gap, minlength=n_docs)
    return total * weight


@dataclass(frozen=True)
class _Layout:
    """Where one category's columns start in the per-document matrix, and how to read them.

    Columns from ``start``: the observed sum, the unit count, Σ l(l−1)(2l−1)/3, Σ l(l−1), then
    four blocks of ``n_bins`` length bins (Σ l² and Σ l³ of the units in each bin, Σ (g+1)
    and the number of the gaps in each bin), then, unless ``exact``, the same-bin part.
    """

    label: Hashable
    start: int
    n_bins: int
    exact: bool

    @property
    def width(self) -> int:
        return _CATEGORY_COLUMNS + 4 * self.n_bins + (0 if self.exact else 1)


@dataclass(frozen=True)
class _Triplets:
    rows: NDArray[np.intp]
    columns: NDArray[np.intp]
    values: NDArray[np.float64]


def _per_document(columns: list[NDArray[Any]]) -> _Triplets:
    """Dense per-document columns (each of length n_documents) as triplets of their non-zeros."""
    stacked = np.stack(columns, axis=1)
    rows, cols = np.nonzero(stacked)
    return _Triplets(rows.astype(np.intp), cols.astype(np.intp), stacked[rows, cols])


def _category(
    units: _Units,
    data: SpanData,
    weight: NDArray[np.float64],
    coder_docs: _CoderDocuments,
    label: Hashable,
    max_bins: int,
) -> tuple[_Layout, _Triplets]:
    """One category's layout (starting at column 0) and its per-document entries."""
    n_docs = data.n_documents
    length = units.end - units.begin
    observed = _observed(units, data, weight)
    count = np.bincount(units.document, minlength=n_docs).astype(np.float64)
    cubic = np.bincount(
        units.document, weights=length * (length - 1) * (2 * length - 1) / 3, minlength=n_docs
    )
    square = np.bincount(units.document, weights=length * (length - 1), minlength=n_docs)

    group = coder_docs.index[units.document, units.coder]
    gap_group, gap_begin, gap_end = gaps(
        group, units.begin, units.end, coder_docs.begin, coder_docs.end
    )
    gap_doc, gap = coder_docs.document[gap_group], gap_end - gap_begin

    # The unit-in-gap sum Σ_units Σ_{g ≥ l} l²(g + 1) − l³ pairs units and gaps of different
    # documents. Binned on the distinct unit lengths it is Σ_k A_k Σ_{j≥k} G_j − B_k Σ_{j≥k} H_j
    # over per-bin sums (A, B of the units, G, H of the gaps): linear in documents, exact.
    positive = length > 0
    unit_doc, unit_length = units.document[positive], length[positive]
    distinct = np.unique(unit_length)
    exact = len(distinct) <= max_bins
    edges = distinct if exact else distinct[np.arange(max_bins) * len(distinct) // max_bins]
    n_bins = len(edges)
    unit_bin = np.searchsorted(edges, unit_length, side="right") - 1
    gap_bin = np.searchsorted(edges, gap, side="right") - 1
    fits = gap_bin >= 0  # gaps shorter than every unit hold none
    gap_doc, gap, gap_bin = gap_doc[fits], gap[fits], gap_bin[fits]

    dense: list[NDArray[Any]] = [observed, count, cubic, square]
    if not exact:
        dense.append(
            _same_bin(unit_doc, unit_length, unit_bin, gap_doc, gap, gap_bin, edges, n_docs)
        )
    per_doc = _per_document(dense)
    columns = per_doc.columns
    if not exact:  # the same-bin column goes last
        columns = np.where(columns == _CATEGORY_COLUMNS, _CATEGORY_COLUMNS + 4 * n_bins, columns)
    first = _CATEGORY_COLUMNS
    squared = unit_length**2
    triplets = _Triplets(
        np.concatenate([per_doc.rows, unit_doc, unit_doc, gap_doc, gap_doc]),
        np.concatenate(
            [
                columns,
                first + unit_bin,
                first + n_bins + unit_bin,
                first + 2 * n_bins + gap_bin,
                first + 3 * n_bins + gap_bin,
            ]
        ),
        np.concatenate(
            [per_doc.values, squared, squared * unit_length, gap + 1, np.ones(len(gap))]
        ),
    )
    return _Layout(label, 0, n_bins, exact), triplets


def _same_bin(
    unit_doc: NDArray[np.intp],
    unit_length: NDArray[np.float64],
    unit_bin: NDArray[np.intp],
    gap_doc: NDArray[np.intp],
    gap: NDArray[np.float64],
    gap_bin: NDArray[np.intp],
    edges: NDArray[np.float64],
    n_docs: int,
) -> NDArray[np.float64]:
    """Per document, the unit-in-gap terms of units and gaps in the same (coarse) length bin.

    Exact in total; each pair's term is split half to the unit's document, half to the gap's,
    which a resample then weighs by the sum of the two documents' counts over two instead
    of their product.
    """
    upper = np.append(edges[1:], np.inf)
    gaps_sorted = np.sort(gap)
    gap_sums = np.concatenate([[0.0], np.cumsum(gaps_sorted + 1)])
    low = np.searchsorted(gaps_sorted, unit_length, side="left")
    high = np.searchsorted(gaps_sorted, upper[unit_bin], side="left")
    of_unit = unit_length**2 * (gap_sums[high] - gap_sums[low]) - unit_length**3 * (high - low)

    lengths_sorted = np.sort(unit_length)
    squares = np.concatenate([[0.0], np.cumsum(lengths_sorted**2)])
    cubes = np.concatenate([[0.0], np.cumsum(lengths_sorted**3)])
    low = np.searchsorted(lengths_sorted, edges[gap_bin], side="left")
    high = np.searchsorted(lengths_sorted, gap, side="right")
    of_gap = (gap + 1) * (squares[high] - squares[low]) - (cubes[high] - cubes[low])
    return 0.5 * (
        np.bincount(unit_doc, weights=of_unit, minlength=n_docs)
        + np.bincount(gap_doc, weights=of_gap, minlength=n_docs)
    )


@dataclass(frozen=True)
class _CoderDocuments:
    """The (document, coder) pairs that count: annotated, on documents with two or more coders."""

    index: NDArray[np.intp]  # (n_documents, n_coders): the pair's number, -1 if it does not count
    document: NDArray[np.intp]
    begin: NDArray[np.float64]
    end: NDArray[np.float64]

    @classmethod
    def of(cls, data: SpanData, pairable: NDArray[np.bool_]) -> _CoderDocuments:
        counts = data.annotated & pairable[:, None]
        index = np.full(counts.shape, -1, dtype=np.intp)
        document, _ = np.nonzero(counts)
        index[counts] = np.arange(len(document))
        return cls(
            index, document.astype(np.intp), data.extents[document, 0], data.extents[document, 1]
        )


@dataclass(frozen=True)
class _Parts:
    """α_U's per-document sums: their totals, and the matrix itself when asked for."""

    totals: NDArray[np.float64]
    matrix: sparse.csr_matrix | None
    observed: NDArray[np.float64]  # per document, summed over the categories
    layouts: tuple[_Layout, ...]
    labels: tuple[Hashable, ...]
    n_pairable: int


def _build(
    data: SpanData, category: Hashable | None, overlapping: str, *, matrix: bool = False
) -> _Parts:
    """Every category's per-document sums, folded into totals (and a matrix) one at a time."""
    if not isinstance(data, SpanData):
        raise ValueError(f"unitizing_alpha needs SpanData, not {type(data).__name__}")
    if category is None:
        wanted = np.arange(data.n_categories, dtype=np.intp)
    elif category in data.categories:
        wanted = np.array([data.categories.index(category)], dtype=np.intp)
    else:
        raise ValueError(f"unknown category {category!r}; the data has {list(data.categories)!r}")
    n_coders = data.annotated.sum(axis=1)
    pairable = n_coders >= 2
    units = _prepare(data, pairable, wanted, overlapping)
    weight = np.where(pairable, 1.0 / np.maximum(n_coders - 1, 1), 0.0)
    length = data.document_lengths
    coder_docs = _CoderDocuments.of(data, pairable)

    used = [int(c) for c in wanted if np.any(units.category == c)]
    max_bins = max(_MIN_BINS_PER_CATEGORY, LENGTH_BINS // max(len(used), 1))
    layouts: list[_Layout] = []
    totals: list[NDArray[np.float64]] = []
    blocks: list[sparse.csr_matrix] = []
    observed = np.zeros(data.n_documents)
    start = _SHARED_COLUMNS
    for c in used:
        layout, entries = _category(
            units.of_category(c), data, weight, coder_docs, data.categories[c], max_bins
        )
        layout = replace(layout, start=start)
        sums = np.bincount(entries.columns, weights=entries.values, minlength=layout.width)
        totals.append(sums.astype(np.float64))
        here = entries.columns == 0
        observed += np.bincount(
            entries.rows[here], weights=entries.values[here], minlength=data.n_documents
        )
        if matrix:
            blocks.append(
                sparse.csr_matrix(
                    (entries.values, (entries.rows, entries.columns)),
                    shape=(data.n_documents, layout.width),
                )
            )
        layouts.append(layout)
        start += layout.width
    shared = np.stack(
        [observed, np.where(pairable, n_coders * length, 0.0), np.where(pairable, length, 0.0)],
        axis=1,
    )
    labels = tuple(data.categories[int(c)] for c in wanted)
    return _Parts(
        np.concatenate([shared.sum(axis=0), *totals]).astype(np.float64),
        sparse.hstack([sparse.csr_matrix(shared), *blocks], format="csr") if matrix else None,
        observed,
        tuple(layouts),
        labels,
        int(pairable.sum()),
    )


# -- from totals to α_U ----------------------------------------------------------------------


def _suffix_sums(values: NDArray[np.float64]) -> NDArray[np.float64]:
    return np.flip(np.cumsum(np.flip(values, axis=-1), axis=-1), axis=-1)


def _disagreements(
    totals: NDArray[np.float64], layouts: tuple[_Layout, ...]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """D_o and D_e of each category, shape ``(..., n_categories)``; nan where undefined."""
    n, scale = totals[..., 1], totals[..., 2]
    observed, expected = [], []
    for layout in layouts:
        s, k = layout.start, layout.n_bins
        obs, count, cubic, square = (totals[..., s + i] for i in range(_CATEGORY_COLUMNS))
        first = s + _CATEGORY_COLUMNS
        unit_sq, unit_cube = totals[..., first : first + k], totals[..., first + k : first + 2 * k]
        gap_sum = totals[..., first + 2 * k : first + 3 * k]
        gap_count = totals[..., first + 3 * k : first + 4 * k]
        gaps_from, counts_from = _suffix_sums(gap_sum), _suffix_sums(gap_count)
        if not layout.exact:  # bins hold several lengths: same-bin pairs are counted apart
            gaps_from, counts_from = gaps_from - gap_sum, counts_from - gap_count
        in_gaps = (unit_sq * gaps_from).sum(axis=-1) - (unit_cube * counts_from).sum(axis=-1)
        if not layout.exact:
            in_gaps = in_gaps + totals[..., first + 4 * k]
        pairs = n * (n - 1) - square
        with np.errstate(divide="ignore", invalid="ignore"):
            observed.append(np.where(n * scale > 0, obs / (n * scale), np.nan))
            expected.append(
                np.where(
                    (pairs > 0) & (scale > 0),
                    2 * ((count - 1) * cubic + in_gaps) / (scale * pairs),
                    np.nan,
                )
            )
    shape = (*totals.shape[:-1], len(layouts))
    if not layouts:
        return np.zeros(shape), np.zeros(shape)
    return np.stack(observed, axis=-1), np.stack(expected, axis=-1)


def _finalize(layouts: tuple[_Layout, ...]) -> Finalize:
    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        if not layouts:
            return np.full(totals.shape[:-1], np.nan)
        observed, expected = _disagreements(totals, layouts)
        do, de = observed.mean(axis=-1), expected.mean(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(de > 0, 1 - do / de, np.nan)

    return finalize


# -- public ----------------------------------------------------------------------------------


def unitizing_alpha(
    data: SpanData, *, category: Hashable | None = None, overlapping: OverlapPolicy = "error"
) -> UnitizingAlpha:
    """Krippendorff's α_U of span data, overall and per category.

    Parameters
    ----------
    data : SpanData
        Units of several coders on one or more documents (continua).
    category : label, optional
        Only this category (``value`` is then its α_U); default: every category.
    overlapping : {"error", "merge"}
        What to do with overlapping units of one coder and category: raise, or merge each run
        of them into their union.

    Returns
    -------
    UnitizingAlpha

    Raises
    ------
    ValueError
        Overlapping units (with ``overlapping="error"``), an unknown category, or α_U
        undefined: no document annotated by two coders, no unit, or expected disagreement
        zero (every unit of length zero).

    Examples
    --------
    Krippendorff (2004, p. 254), as DKPro Statistics ``Krippendorff2004Test``
    (docs/references.md, ``dkpro-unitizing-k2004``):

    >>> from metrics.spans import SpanData
    >>> units = [(0, 225, 295, "c"), (0, 370, 400, "c"), (1, 220, 300, "c"),
    ...          (1, 355, 375, "c"), (1, 400, 420, "c"), (0, 180, 240, "k"),
    ...          (0, 300, 350, "k"), (1, 180, 240, "k"), (1, 300, 350, "k")]
    >>> data = SpanData.from_units(
    ...     [("text", coder, b, e, c) for coder, b, e, c in units], extents={"text": (150, 450)}
    ... )
    >>> result = unitizing_alpha(data)
    >>> round(result.value, 3), round(result.categories["c"].value, 4)  # book: 0.8591, 0.7286
    (0.859, 0.7286)
    """
    parts = _build(data, category, overlapping)
    observed, expected = _disagreements(parts.totals, parts.layouts)
    by_label = {layout.label: i for i, layout in enumerate(parts.layouts)}
    categories: dict[Hashable, CategoryAlpha] = {}
    for label in parts.labels:
        if label not in by_label:
            reason = "no unit of this category in a document two or more coders annotated"
            categories[label] = CategoryAlpha(np.nan, 0.0, 0.0, reason)
            continue
        do, de = float(observed[by_label[label]]), float(expected[by_label[label]])
        if de > 0:
            categories[label] = CategoryAlpha(1 - do / de, do, de)
        else:
            reason = "expected disagreement is zero: every unit of this category has length zero"
            categories[label] = CategoryAlpha(np.nan, do, de, reason)

    where = "" if category is None else f" of category {category!r}"
    if parts.n_pairable == 0:
        raise ValueError("alpha_U is undefined: no document was annotated by two or more coders")
    if not parts.layouts:
        raise ValueError(
            f"alpha_U is undefined: no unit{where} in a document two or more coders annotated"
        )
    do, de = float(observed.mean()), float(expected.mean())
    if not de > 0:
        raise ValueError(
            f"alpha_U is undefined: the expected disagreement{where} is zero "
            "(every unit has length zero)"
        )
    return UnitizingAlpha(1 - do / de, do, de, categories, parts.n_pairable)


def decompose_unitizing_alpha(
    data: SpanData, *, category: Hashable | None = None, overlapping: OverlapPolicy = "error"
) -> Decomposition:
    """α_U as sums over documents, for the bootstrap over documents.

    One row per document (zero for a document fewer than two coders annotated): column 0 is
    the document's observed-disagreement sum over the categories (so ``item_stats[:, 0]``
    over its total is each document's share of D_o), then its ``N`` and ``Λ`` terms, then per
    category the observed sum, the unit count, Σ l(l−1)(2l−1)/3, Σ l(l−1), and the
    per-length-bin sums that make up the unit-in-gap part of D_e.

    D_e pairs every unit with every gap of the pooled documents, so it is not a sum of
    per-document terms; but binned on the distinct unit lengths of a category it is a sum of
    products of per-document sums, which ``finalize`` forms. A resample is therefore exact
    while the distinct unit lengths number at most ``LENGTH_BINS`` (shared out among the
    categories, at least 32 each): always for short units on integer positions. Beyond that,
    lengths are grouped in equal-count bins; pairs of a unit and a gap in the same bin are
    exact on the full data and weighed by the mean of their two documents' resampling counts
    instead of the product in a resample.

    ``decompose_unitizing_alpha(data).evaluate()`` equals ``unitizing_alpha(data).value``;
    where α_U is undefined ``finalize`` returns nan. Parameters as :func:`unitizing_alpha`.
    """
    parts = _build(data, category, overlapping, matrix=True)
    return Decomposition("alpha_u", parts.matrix, _finalize(parts.layouts))


def unitizing_document_disagreement(
    data: SpanData, *, category: Hashable | None = None, overlapping: OverlapPolicy = "error"
) -> NDArray[np.float64]:
    """Each document's share of α_U's observed disagreement (they sum to ``observed``).

    Zero for a document fewer than two coders annotated; nan everywhere when α_U's observed
    disagreement is undefined (no such document, or no unit). Parameters as
    :func:`unitizing_alpha`.
    """
    parts = _build(data, category, overlapping)
    if not parts.layouts:
        return np.full(data.n_documents, np.nan)
    return parts.observed / (parts.totals[1] * parts.totals[2] * len(parts.layouts))
