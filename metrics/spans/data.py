"""Span data: what every span and segmentation measure reads.

A *document* is a continuum (a text, a recording) with an extent ``[begin, end)``. A *unit*
is one coder's ``(begin, end, category)`` on one document, ``end`` exclusive. A coder may mark
zero or more units per document, overlapping or nested. Whether a coder *annotated* a document
is stored apart from the units: a coder who annotated it and marked nothing has said "nothing
here" (every measure counts that), a coder who did not annotate it is missing (no measure
counts that coder on that document).

Units are kept as parallel arrays sorted by (document, coder, begin, end, category), so the
units of document ``d`` are ``slice(offsets[d], offsets[d + 1])``.

Examples
--------
>>> data = SpanData.from_units(
...     [("d1", "ann", 0, 5, "PER"), ("d1", "bob", 1, 5, "PER")], extents={"d1": (0, 20)}
... )
>>> data.n_documents, data.n_coders, data.n_units, data.categories
(1, 2, 2, ('PER',))
>>> data.annotated.tolist()
[[True, True]]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

__all__ = ["SpanData"]

Unit = tuple[Hashable, Hashable, float, float, Hashable]


def _codes(values: npt.ArrayLike, known: Sequence[Hashable] | None) -> tuple[tuple, NDArray]:
    array = np.asarray(values, dtype=object)
    if known is None:
        found: dict[Hashable, int] = {}
        for value in array.tolist():
            found.setdefault(value, len(found))
        try:
            order = sorted(found)  # type: ignore[type-var]
        except TypeError:
            order = list(found)
        known = order
    index = {value: i for i, value in enumerate(known)}
    try:
        codes = np.fromiter((index[v] for v in array.tolist()), dtype=np.intp, count=len(array))
    except KeyError as error:
        raise ValueError(f"unknown value {error.args[0]!r}") from None
    return tuple(known), codes


@dataclass(frozen=True, eq=False)
class SpanData:
    """Units of several coders on several documents, with the documents' extents.

    Attributes
    ----------
    documents, coders, categories : tuple
        Identifiers; ``document``, ``coder`` and ``category`` index them.
    extents : ndarray of float, shape (n_documents, 2)
        Each document's ``[begin, end)``.
    annotated : ndarray of bool, shape (n_documents, n_coders)
        Whether the coder annotated the document (with or without units).
    document, coder, category : ndarray of int, shape (n_units,)
    begin, end : ndarray of float, shape (n_units,)
        Sorted by (document, coder, begin, end, category).
    """

    documents: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    categories: tuple[Hashable, ...]
    extents: NDArray[np.float64]
    annotated: NDArray[np.bool_]
    document: NDArray[np.intp]
    coder: NDArray[np.intp]
    begin: NDArray[np.float64]
    end: NDArray[np.float64]
    category: NDArray[np.intp]

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def from_units(
        cls,
        units: Iterable[Unit],
        *,
        extents: Mapping[Hashable, tuple[float, float]] | None = None,
        annotated: Iterable[tuple[Hashable, Hashable]] | None = None,
        complete: bool = False,
        categories: Sequence[Hashable] | None = None,
    ) -> SpanData:
        """Build from ``(document, coder, begin, end, category)`` tuples.

        See :meth:`from_arrays` for ``extents``, ``annotated``, ``complete`` and ``categories``.
        """
        rows = list(units)
        columns: list[Any] = list(zip(*rows, strict=True)) if rows else [[], [], [], [], []]
        if len(columns) != 5:
            raise ValueError("each unit must be (document, coder, begin, end, category)")
        return cls.from_arrays(
            *columns,
            extents=extents,
            annotated=annotated,
            complete=complete,
            categories=categories,
        )

    @classmethod
    def from_arrays(
        cls,
        document: npt.ArrayLike,
        coder: npt.ArrayLike,
        begin: npt.ArrayLike,
        end: npt.ArrayLike,
        category: npt.ArrayLike,
        *,
        extents: Mapping[Hashable, tuple[float, float]] | None = None,
        annotated: Iterable[tuple[Hashable, Hashable]] | None = None,
        complete: bool = False,
        categories: Sequence[Hashable] | None = None,
    ) -> SpanData:
        """Build from parallel arrays, one entry per unit.

        Parameters
        ----------
        extents : mapping of document to (begin, end), optional
            Each document's extent. A document missing here spans 0 to the largest end of its
            units. Documents listed here without units are kept (coders may have found nothing).
        annotated : iterable of (document, coder), optional
            Pairs that annotated a document without marking any unit ("nothing here"). A pair
            with at least one unit has always annotated.
        complete : bool, default False
            Every coder annotated every document: a coder with no unit in a document found
            nothing there. Overrides ``annotated``.
        categories : sequence, optional
            Every category, in order; default: those that occur, sorted.

        Raises
        ------
        ValueError
            A unit that ends before it begins, has a non-finite offset or lies outside its
            document's extent (the message names the unit); an extent that ends before it begins.
        """
        begin_values = np.asarray(begin, dtype=np.float64).ravel()
        end_values = np.asarray(end, dtype=np.float64).ravel()
        n = len(begin_values)
        annotated_pairs = list(annotated or [])
        extents = dict(extents or {})
        for name, values in (("document", document), ("coder", coder), ("category", category)):
            if len(np.asarray(values, dtype=object).ravel()) != n:
                raise ValueError(f"{name} has a different length from begin")
        if len(end_values) != n:
            raise ValueError("end has a different length from begin")

        doc_names = list(np.asarray(document, dtype=object).ravel().tolist())
        coder_names = list(np.asarray(coder, dtype=object).ravel().tolist())
        all_docs = doc_names + list(extents) + [d for d, _ in annotated_pairs]
        all_coders = coder_names + [c for _, c in annotated_pairs]
        documents, doc_codes = _codes(all_docs, None)
        coders, coder_codes = _codes(all_coders, None)
        labels, category_codes = _codes(np.asarray(category, dtype=object).ravel(), categories)
        doc_codes = doc_codes[:n]
        coder_codes = coder_codes[:n]

        bad = ~(np.isfinite(begin_values) & np.isfinite(end_values))
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"unit {i} ({doc_names[i]!r}, {coder_names[i]!r}): offsets must be finite"
            )
        reversed_ = end_values < begin_values
        if reversed_.any():
            i = int(np.flatnonzero(reversed_)[0])
            raise ValueError(
                f"unit {i} ({doc_names[i]!r}, {coder_names[i]!r}): end {end_values[i]:g} "
                f"is before begin {begin_values[i]:g}"
            )

        n_docs = len(documents)
        extent_array = np.zeros((n_docs, 2), dtype=np.float64)
        largest_end = np.zeros(n_docs, dtype=np.float64)
        if n:
            np.maximum.at(largest_end, doc_codes, end_values)
        extent_array[:, 1] = largest_end
        doc_index = {name: i for i, name in enumerate(documents)}
        for doc_name, (low, high) in extents.items():
            if not (np.isfinite(low) and np.isfinite(high)) or high < low:
                raise ValueError(
                    f"document {doc_name!r}: extent [{low}, {high}) is not an interval"
                )
            extent_array[doc_index[doc_name]] = (low, high)
        outside = (begin_values < extent_array[doc_codes, 0]) | (
            end_values > extent_array[doc_codes, 1]
        )
        if outside.any():
            i = int(np.flatnonzero(outside)[0])
            low, high = extent_array[doc_codes[i]]
            raise ValueError(
                f"unit {i} ({doc_names[i]!r}, {coder_names[i]!r}): [{begin_values[i]:g}, "
                f"{end_values[i]:g}) lies outside its document's extent [{low:g}, {high:g})"
            )

        annotated_array = np.zeros((n_docs, len(coders)), dtype=bool)
        if complete:
            annotated_array[:] = True
        else:
            annotated_array[doc_codes, coder_codes] = True
            coder_index = {name: i for i, name in enumerate(coders)}
            for doc, who in annotated_pairs:
                annotated_array[doc_index[doc], coder_index[who]] = True

        order = np.lexsort((category_codes, end_values, begin_values, coder_codes, doc_codes))
        return cls(
            documents=documents,
            coders=coders,
            categories=labels,
            extents=extent_array,
            annotated=annotated_array,
            document=doc_codes[order],
            coder=coder_codes[order],
            begin=begin_values[order],
            end=end_values[order],
            category=category_codes[order],
        )

    # -- shape -----------------------------------------------------------------------------

    @property
    def n_documents(self) -> int:
        return len(self.documents)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_units(self) -> int:
        return len(self.begin)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @cached_property
    def offsets(self) -> NDArray[np.intp]:
        """Units of document ``d`` are ``offsets[d]:offsets[d + 1]``."""
        counts = np.bincount(self.document, minlength=self.n_documents)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)

    @property
    def lengths(self) -> NDArray[np.float64]:
        return self.end - self.begin

    @property
    def document_lengths(self) -> NDArray[np.float64]:
        return self.extents[:, 1] - self.extents[:, 0]

    def coders_of(self, document: int) -> NDArray[np.intp]:
        """Indices of the coders who annotated document ``document``."""
        return np.flatnonzero(self.annotated[document])

    def select(self, documents: Sequence[int] | NDArray[np.intp]) -> SpanData:
        """The data of some documents (by index, in the given order, repeats allowed).

        A repeated document gets a new identifier ``(name, k)`` for its ``k``-th repeat, so a
        bootstrap resample is ordinary span data.
        """
        chosen = np.asarray(documents, dtype=np.intp)
        seen: dict[int, int] = {}
        names: list[Hashable] = []
        for d in chosen.tolist():
            k = seen.get(d, 0)
            seen[d] = k + 1
            names.append(self.documents[d] if k == 0 else (self.documents[d], k))
        starts, stops = self.offsets[chosen], self.offsets[chosen + 1]
        counts = stops - starts
        first_out = np.cumsum(counts) - counts
        take = np.arange(int(counts.sum()), dtype=np.intp) + np.repeat(starts - first_out, counts)
        new_document = np.repeat(np.arange(len(chosen)), counts)
        return SpanData(
            documents=tuple(names),
            coders=self.coders,
            categories=self.categories,
            extents=self.extents[chosen],
            annotated=self.annotated[chosen],
            document=new_document.astype(np.intp),
            coder=self.coder[take],
            begin=self.begin[take],
            end=self.end[take],
            category=self.category[take],
        )

    def units(self) -> list[tuple[Hashable, Hashable, float, float, Hashable]]:
        """The units as ``(document, coder, begin, end, category)`` tuples, sorted."""
        return [
            (self.documents[d], self.coders[c], b, e, self.categories[k])
            for d, c, b, e, k in zip(
                self.document.tolist(),
                self.coder.tolist(),
                self.begin.tolist(),
                self.end.tolist(),
                self.category.tolist(),
                strict=True,
            )
        ]
