"""Token-level agreement: every position of a document labelled by each coder, then alpha or kappa.

Each integer position ``p`` of a document's extent (a token or character index) is an item.
A coder who annotated the document gives it the category of the unit covering ``p`` (units
are ``[begin, end)``), or ``outside`` (``"O"``) when no unit covers it; a coder who did not
annotate the document gives it no value. Krippendorff's alpha (nominal) or kappa (Cohen's
for two coders, multi-kappa for more) of that coders × positions table is the token-level
agreement, chance-corrected, with "outside" a category like any other. This is the standard
way to get a chance-corrected coefficient for span annotation (Hripcsak & Rothschild 2005
show that kappa over tokens tends to F1 as the "O" positions dominate), at the price of
weighting long units more and counting agreement on "O".

Only documents annotated by at least two coders are in the table (the others could add
only single values, which alpha ignores and kappa's chance model would otherwise count).

A position covered by two units of one coder with *different* categories (nested or
overlapping units) has no single value: ``overlaps="error"`` (the default) refuses the data
and names the document, coder and position; ``overlaps="first"`` gives it the category of the
coder's first covering unit in the data's unit order (earliest begin, then earliest end, then
category order). Overlapping units of one category are no conflict.

The table is never built position by position: positions between two consecutive unit
boundaries (any coder's) carry the same values, so the coefficients are computed on these
runs, each run's per-item statistics multiplied by its length, and summed per document with
a sparse matrix. That is exact because every coefficient's ``finalize`` reads only column
totals (see :class:`metrics.Decomposition`). Memory is linear in the number of units, not of
positions; :func:`token_reliability_data` expands the runs into the full table when wanted.

References
----------
Hripcsak, G. & Rothschild, A. S. (2005). Agreement, the F-measure, and reliability in
information retrieval. JAMIA 12(3), 296–298. https://doi.org/10.1197/jamia.M1733
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, cast, overload

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.agreement import build_decomposition
from metrics.coefficients.alpha import decompose_krippendorff_alpha
from metrics.coefficients.result import CoefficientResult
from metrics.data import MISSING, ReliabilityData
from metrics.decomposition import Decomposition
from metrics.spans.data import SpanData
from metrics.spans.refusal import OVERLAPPING_TOKEN_LABELS, RefusalError

Coefficient = Literal["alpha", "kappa"]
Overlaps = Literal["error", "first"]

#: The value of a position no unit covers.
OUTSIDE = "O"
#: The library's remedy for a position of two categories (:data:`OVERLAPPING_TOKEN_LABELS`);
#: callers without the option state the problem with their own (the refusal's ``problem``).
OVERLAPS_REMEDY = (
    "Use overlaps='first' to take the first unit's category, or resolve the overlap in the data."
)

__all__ = [
    "OUTSIDE",
    "decompose_token_agreement",
    "token_agreement",
    "token_reliability_data",
]


@dataclass(frozen=True)
class _Runs:
    """Maximal stretches of positions with the same value for every coder.

    ``codes[c, r]`` is coder c's value on run r (index into ``domain``, -1 for missing);
    run r covers positions ``start[r] .. start[r] + length[r] - 1`` of document
    ``document[r]``.
    """

    codes: NDArray[np.intp]
    start: NDArray[np.int64]
    length: NDArray[np.int64]
    document: NDArray[np.intp]
    domain: tuple[Hashable, ...]


class _Positions(Sequence[tuple[Hashable, int]]):
    """``(document, position)`` of every column of a table of runs, computed on demand.

    Stands in for the items tuple of :class:`~metrics.data.ReliabilityData` so that a table
    with millions of positions does not hold a Python tuple per position.
    """

    def __init__(self, documents: tuple[Hashable, ...], runs: _Runs, expanded: bool) -> None:
        self._documents = documents
        self._runs = runs
        self._expanded = expanded
        self._first = np.cumsum(runs.length) - runs.length if expanded else None

    def __len__(self) -> int:
        if self._expanded:
            return int(self._runs.length.sum())
        return int(self._runs.length.size)

    @overload
    def __getitem__(self, index: int) -> tuple[Hashable, int]: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[tuple[Hashable, int]]: ...

    def __getitem__(
        self, index: int | slice
    ) -> tuple[Hashable, int] | Sequence[tuple[Hashable, int]]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        run, offset = index, 0
        if self._first is not None:
            run = int(np.searchsorted(self._first, index, side="right")) - 1
            offset = index - int(self._first[run])
        document = self._documents[int(self._runs.document[run])]
        return document, int(self._runs.start[run]) + offset

    def __iter__(self) -> Iterator[tuple[Hashable, int]]:
        return (self[i] for i in range(len(self)))


def _check_integral(data: SpanData) -> None:
    for name, values in (("begin", data.begin), ("end", data.end)):
        bad = values != np.floor(values)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"Token-level agreement needs integer offsets (token or character positions); "
                f"unit ({data.documents[data.document[i]]!r}, {data.coders[data.coder[i]]!r}) "
                f"has {name} {values[i]:g}."
            )
    bad_extent = (data.extents != np.floor(data.extents)).any(axis=1)
    if bad_extent.any():
        d = int(np.flatnonzero(bad_extent)[0])
        raise ValueError(
            f"Token-level agreement needs integer extents; document {data.documents[d]!r} "
            f"spans [{data.extents[d, 0]:g}, {data.extents[d, 1]:g})."
        )


class _PositionKeys:
    """``(document, position)`` as one sortable integer: ``document · width + position −
    lowest``, for integer positions."""

    def __init__(self, data: SpanData) -> None:
        self.lowest = float(data.extents[:, 0].min()) if data.n_documents else 0.0
        highest = float(data.extents[:, 1].max()) if data.n_documents else 0.0
        self.width = int(highest - self.lowest) + 1
        if data.n_documents * self.width >= np.iinfo(np.int64).max:
            raise ValueError("Too many documents and positions to index the positions.")

    def __call__(self, document: NDArray[np.intp], at: NDArray[np.float64]) -> NDArray[np.int64]:
        return document.astype(np.int64) * self.width + (at - self.lowest).astype(np.int64)

    def split(self, key: NDArray[np.int64]) -> tuple[NDArray[np.intp], NDArray[np.int64]]:
        document, offset = np.divmod(key, self.width)
        return document.astype(np.intp), offset + int(self.lowest)


def _conflict_error(
    data: SpanData, runs_start: NDArray[np.int64], run_doc: NDArray[np.intp],
    coder: int, run: int, low: int, high: int,
) -> RefusalError:  # fmt: skip
    return RefusalError(
        OVERLAPPING_TOKEN_LABELS,
        f"Document {data.documents[int(run_doc[run])]!r}, coder {data.coders[coder]!r}: "
        f"position {int(runs_start[run])} is covered by units of two categories "
        f"({data.categories[low]!r} and {data.categories[high]!r}), so it has no single "
        "token label.",
        OVERLAPS_REMEDY,
    )


def _runs(data: SpanData, *, outside: Hashable, overlaps: Overlaps) -> _Runs:
    if overlaps not in ("error", "first"):
        raise ValueError(f"overlaps must be 'error' or 'first'; got {overlaps!r}.")
    if outside in data.categories:
        raise ValueError(
            f"The outside value {outside!r} is also a category; pass another outside=."
        )
    _check_integral(data)
    used = data.annotated.sum(axis=1) >= 2
    units = np.flatnonzero(used[data.document] & (data.end > data.begin))
    # Every document's distinct unit boundaries and extent ends, sorted by (document, position).
    keys = _PositionKeys(data)
    documents = np.flatnonzero(used)
    unit_doc = data.document[units]
    begin_key = keys(unit_doc, data.begin[units])
    end_key = keys(unit_doc, data.end[units])
    bound_key = np.unique(
        np.concatenate([
            keys(documents, data.extents[documents, 0]),
            keys(documents, data.extents[documents, 1]),
            begin_key,
            end_key,
        ])
    )  # fmt: skip
    bound_doc, bound_position = keys.split(bound_key)

    # A run starts at every boundary but the last of its document.
    starts_run = np.zeros(bound_doc.size, dtype=bool)
    starts_run[:-1] = bound_doc[1:] == bound_doc[:-1]
    run_number = np.cumsum(starts_run) - 1
    run_doc = bound_doc[starts_run]
    run_start = bound_position[starts_run]
    ends_run = np.zeros(bound_doc.size, dtype=bool)
    ends_run[1:] = starts_run[:-1]
    run_length = bound_position[ends_run] - run_start
    n_runs = run_doc.size

    def boundary_of(key: NDArray[np.int64]) -> NDArray[np.intp]:
        return np.searchsorted(bound_key, key)

    first_boundary = boundary_of(begin_key)
    first_run = run_number[first_boundary]
    n_covered = boundary_of(end_key) - first_boundary

    # Every (unit, run it covers), in unit order; then one value per (coder, run).
    unit_of = np.repeat(units, n_covered)
    run_of = np.repeat(first_run - (np.cumsum(n_covered) - n_covered), n_covered) + np.arange(
        int(n_covered.sum())
    )
    cell = data.coder[unit_of].astype(np.int64) * n_runs + run_of
    order = np.argsort(cell, kind="stable")  # stable: the first unit of a cell comes first
    cell, category = cell[order], data.category[unit_of[order]]
    group = np.flatnonzero(np.r_[True, cell[1:] != cell[:-1]]) if cell.size else cell
    codes = np.where(data.annotated[run_doc].T, len(data.categories), MISSING).astype(np.intp)
    if cell.size:
        low = np.minimum.reduceat(category, group)
        high = np.maximum.reduceat(category, group)
        clash = np.flatnonzero(low != high)
        if clash.size and overlaps == "error":
            coder, run = divmod(int(cell[group[clash[0]]]), n_runs)
            raise _conflict_error(
                data, run_start, run_doc, coder, run, int(low[clash[0]]), int(high[clash[0]])
            )
        coders, runs = np.divmod(cell[group], n_runs)
        codes[coders, runs] = category[group]
    return _Runs(
        codes=codes,
        start=run_start,
        length=run_length,
        document=run_doc.astype(np.intp),
        domain=(*data.categories, outside),
    )


def _table(data: SpanData, runs: _Runs, *, expanded: bool) -> ReliabilityData:
    codes = np.repeat(runs.codes, runs.length, axis=1) if expanded else runs.codes
    # The items are computed on demand (see _Positions); ReliabilityData only measures them.
    items = cast(tuple[Hashable, ...], _Positions(data.documents, runs, expanded))
    return ReliabilityData(codes, runs.domain, items, data.coders)


def token_reliability_data(
    data: SpanData, *, outside: Hashable = OUTSIDE, overlaps: Overlaps = "error"
) -> ReliabilityData:
    """The coders × positions table: one item per position of the documents two coders annotated.

    Parameters
    ----------
    data : SpanData
        Offsets and extents must be integers (token or character positions).
    outside : hashable, default "O"
        The value of a position no unit of the coder covers; must not be a category.
    overlaps : {"error", "first"}, default "error"
        What a position covered by units of two categories of one coder gets: an error
        naming it, or the category of the coder's first covering unit.

    Returns
    -------
    ReliabilityData
        Domain: the categories, then ``outside``. Items are ``(document, position)`` in
        document order (computed on demand, not stored); a coder who did not annotate a
        document has missing values there. Holds ``n_coders × n_positions`` codes: for a
        large corpus use :func:`token_agreement`, which never builds it.

    Raises
    ------
    ValueError
        For non-integer offsets or extents, ``outside`` among the categories, or (with
        ``overlaps="error"``) a position covered by two categories of one coder.

    Examples
    --------
    >>> data = SpanData.from_units([("d", "ann", 1, 3, "PER"), ("d", "bob", 2, 4, "PER")],
    ...                            extents={"d": (0, 5)})
    >>> table = token_reliability_data(data)
    >>> table.domain, table.codes.tolist()
    (('PER', 'O'), [[1, 0, 0, 1, 1], [1, 1, 0, 0, 1]])
    >>> table.items[3]
    ('d', 3)
    """
    return _table(data, _runs(data, outside=outside, overlaps=overlaps), expanded=True)


def _decompose(
    data: SpanData, coefficient: Coefficient, outside: Hashable, overlaps: Overlaps
) -> tuple[Decomposition, _Runs, Any]:
    """The per-document decomposition, the runs, and kappa's chance model (None for alpha)."""
    if coefficient not in ("alpha", "kappa"):
        raise ValueError(f"coefficient must be 'alpha' or 'kappa'; got {coefficient!r}.")
    runs = _runs(data, outside=outside, overlaps=overlaps)
    table = _table(data, runs, expanded=False)
    if table.n_pairable_items == 0:
        raise ValueError(
            "Token-level agreement needs a position with values from two coders: no document "
            "of positive length was annotated by two coders."
        )
    model = None
    if coefficient == "alpha":
        per_run = decompose_krippendorff_alpha(table)
    else:
        per_run, model = build_decomposition(table, "kappa", "coder")
    weights = sparse.csr_matrix(
        (runs.length.astype(np.float64), (runs.document, np.arange(runs.length.size))),
        shape=(data.n_documents, runs.length.size),
    )
    stats = weights @ per_run.item_stats
    per_document = Decomposition(f"token_{coefficient}", stats, per_run.finalize)
    return per_document, runs, model


def decompose_token_agreement(
    data: SpanData,
    coefficient: Coefficient = "alpha",
    *,
    outside: Hashable = OUTSIDE,
    overlaps: Overlaps = "error",
) -> Decomposition:
    """Token-level alpha or kappa with one row per document, for the bootstrap over documents.

    Row ``d`` is the sum of the per-position rows of document ``d`` (alpha's or kappa's own
    per-item decomposition, :func:`metrics.decompose_krippendorff_alpha` or
    :func:`metrics.decompose_cohen_kappa`/:func:`metrics.decompose_conger_kappa`); a
    document fewer than two coders annotated has a zero row.

    Parameters
    ----------
    data, coefficient, outside, overlaps
        As in :func:`token_agreement`.

    Returns
    -------
    Decomposition
        ``name="token_alpha"`` or ``"token_kappa"``; ``evaluate()`` equals
        :func:`token_agreement`'s value.
    """
    return _decompose(data, coefficient, outside, overlaps)[0]


def token_agreement(
    data: SpanData,
    coefficient: Coefficient = "alpha",
    *,
    outside: Hashable = OUTSIDE,
    overlaps: Overlaps = "error",
) -> CoefficientResult:
    """Chance-corrected agreement on the category of every position.

    Parameters
    ----------
    data : SpanData
        Offsets and extents must be integers.
    coefficient : {"alpha", "kappa"}, default "alpha"
        ``alpha``: Krippendorff's alpha, nominal distance (D_o and D_e reported).
        ``kappa``: Cohen's kappa for two coders, multi-kappa (Davies & Fleiss; Conger) for
        more, with Gwet's convention for missing values as in :func:`metrics.cohen_kappa`
        (A_o and A_e reported).
    outside : hashable, default "O"
        The value of a position no unit covers.
    overlaps : {"error", "first"}, default "error"
        See the module docstring.

    Returns
    -------
    CoefficientResult
        ``name`` ``"token_alpha"`` or ``"token_kappa"``; ``n_items`` counts the positions of
        the documents two coders annotated, ``n_pairable_items`` those with two values.

    Raises
    ------
    ValueError
        As :func:`token_reliability_data`; when no position has two values; when the
        coefficient is undefined (every position has the same value).

    Examples
    --------
    Two coders, ten positions (docs/references.md, ``token-agreement-hand-case``); ``ann``
    marks PER [1, 3), ``bob`` PER [2, 4). Positions 1 and 3 disagree: D_o = 2 · 2 / 20 =
    0.2, n_PER = 4, n_O = 16, D_e = 2 · 4 · 16 / (20 · 19) = 64/190, alpha = 1 − 0.2 · 190/64
    = 0.40625.

    >>> data = SpanData.from_units([("d", "ann", 1, 3, "PER"), ("d", "bob", 2, 4, "PER")],
    ...                            extents={"d": (0, 10)})
    >>> result = token_agreement(data)
    >>> result.value, result.observed, result.n_items
    (0.40625, 0.2, 10)
    """
    per_document, runs, model = _decompose(data, coefficient, outside, overlaps)
    totals = per_document.totals()
    value = float(per_document.finalize(totals))
    if not np.isfinite(value):
        raise ValueError(
            f"Token-level {coefficient} is undefined: every position has the same value, so "
            "there is no variation to correct for chance."
        )
    if coefficient == "alpha":
        # Columns of nominal alpha's rows: [D_o contribution, n_u1 .. n_uV].
        n = float(totals[1:].sum())
        observed = float(totals[0]) / n
        expected = (n * n - float(np.sum(totals[1:] ** 2))) / (n * (n - 1.0))
    else:
        parts = model.parts(totals)
        observed, expected = float(parts[0]), float(parts[1])
    two_values = np.count_nonzero(runs.codes != MISSING, axis=0) >= 2
    return CoefficientResult(
        name=per_document.name,
        value=value,
        observed=observed,
        expected=expected,
        kind="disagreement" if coefficient == "alpha" else "agreement",
        n_items=int(runs.length.sum()),
        n_pairable_items=int(runs.length[two_values].sum()),
        n_coders=data.n_coders,
    )
