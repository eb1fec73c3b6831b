"""Relations: labelled links between two units (spans) of the same document.

A *relation* is ``(head, tail, label)``, its head and tail being units ``[begin, end)`` of one
document (offsets as the span kind has them: characters or tokens, ``end`` exclusive). A
coder's annotation of a document is the set of its relations there; a coder who annotated a
document and related nothing has said "no relation here", which every measure counts, while
a coder who did not annotate a document is missing there.

A label may be declared **undirected** (a symmetric relation such as coreference or
"similar to"): its relations are stored with head and tail in document order (by begin, then
end), so ``(x, y)`` and ``(y, x)`` are the same relation. Other labels are directed.

The units are the distinct spans a coder used as a head or a tail in a document, kept as
:class:`metrics.spans.SpanData` (one category, ``"unit"``): the span measures' matching reads
them (:func:`metrics.spans.matched_units`).

Examples
--------
>>> data = RelationData.from_long(
...     ["d1", "d1", "d1", "d2"], ["ann", "ann", "bob", "bob"],
...     [0, 0, 0, None], [4, 4, 4, None], [10, 20, 10, None], [15, 25, 15, None],
...     ["works_for", "knows", "works_for", None], undirected=["knows"])
>>> data.n_relations, data.n_units, data.labels, data.annotated.tolist()
(3, 5, ('knows', 'works_for'), [[True, True], [False, True]])
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics.spans.data import SpanData
from metrics.structured._common import factorize

#: The category of every relation unit in :attr:`RelationData.units`.
UNIT = "unit"

__all__ = ["UNIT", "RelationData"]


def _offsets(values: Sequence[Any] | NDArray[Any], name: str, size: int) -> NDArray[np.float64]:
    array = np.array(
        [np.nan if value is None else value for value in np.asarray(values, dtype=object).ravel()],
        dtype=np.float64,
    )
    if array.size != size:
        raise ValueError(f"{name} has a different length from documents.")
    return array


@dataclass(frozen=True, eq=False)
class RelationData:
    """Relations of several coders on several documents.

    Attributes
    ----------
    units : SpanData
        Every coder's distinct head and tail spans per document (one category), and which
        coders annotated which documents (``units.annotated``); its ``documents`` and
        ``coders`` are this data's.
    labels : tuple
        Relation labels; ``label`` indexes them.
    undirected : ndarray of bool, shape (n_labels,)
        Whether each label is undirected.
    document, coder, head, tail, label : ndarray of int, shape (n_relations,)
        One entry per relation: ``head`` and ``tail`` index the units of ``units``. Sorted by
        document, coder, head, tail, label; an undirected relation has ``head <= tail``.
    """

    units: SpanData
    labels: tuple[Hashable, ...]
    undirected: NDArray[np.bool_]
    document: NDArray[np.intp]
    coder: NDArray[np.intp]
    head: NDArray[np.intp]
    tail: NDArray[np.intp]
    label: NDArray[np.intp]

    @classmethod
    def from_long(
        cls,
        documents: Sequence[Hashable] | NDArray[Any],
        coders: Sequence[Hashable] | NDArray[Any],
        head_begin: Sequence[Any] | NDArray[Any],
        head_end: Sequence[Any] | NDArray[Any],
        tail_begin: Sequence[Any] | NDArray[Any],
        tail_end: Sequence[Any] | NDArray[Any],
        labels: Sequence[Hashable | None] | NDArray[Any],
        *,
        undirected: Collection[Hashable] = (),
    ) -> RelationData:
        """Build from one row per relation, as parallel sequences.

        A row whose offsets and label are all ``None`` (or NaN) says the coder annotated the
        document and related nothing there. ``undirected`` names the symmetric labels.

        Raises
        ------
        ValueError
            Sequences of different lengths; a row partly empty; an offset that is not finite;
            an end before its begin; the same relation twice for one coder (an undirected one
            in either order); an undirected label that no relation uses is allowed.
        """
        doc_names, doc = factorize(documents, "documents")
        coder_names, coder = factorize(coders, "coders")
        size = doc.size
        hb, he = _offsets(head_begin, "head_begin", size), _offsets(head_end, "head_end", size)
        tb, te = _offsets(tail_begin, "tail_begin", size), _offsets(tail_end, "tail_end", size)
        label_list = list(np.asarray(labels, dtype=object).ravel())
        if coder.size != size or len(label_list) != size:
            raise ValueError("documents, coders, offsets and labels must have the same length.")
        missing_label = np.array([v is None or v != v for v in label_list], dtype=bool)
        offsets = np.column_stack([hb, he, tb, te])
        empty = np.isnan(offsets)
        nothing = empty.all(axis=1) & missing_label
        partly = ~nothing & (empty.any(axis=1) | missing_label)
        if partly.any():
            i = int(np.flatnonzero(partly)[0])
            raise ValueError(
                f"relation {i} ({doc_names[doc[i]]!r}, {coder_names[coder[i]]!r}) is partly "
                "empty: give head, tail and label, or none of them (annotated, no relation)."
            )
        rows = np.flatnonzero(~nothing)
        if rows.size and not np.all(np.isfinite(offsets[rows])):
            i = int(rows[~np.all(np.isfinite(offsets[rows]), axis=1)][0])
            raise ValueError(f"relation {i}: offsets must be finite numbers.")
        backwards = (offsets[rows, 1] < offsets[rows, 0]) | (offsets[rows, 3] < offsets[rows, 2])
        if backwards.any():
            i = int(rows[np.flatnonzero(backwards)[0]])
            raise ValueError(f"relation {i}: a unit ends before it begins.")
        label_names, label_code = factorize([label_list[i] for i in rows], "labels")
        symmetric = np.array([name in set(undirected) for name in label_names], dtype=bool)
        return cls._build(
            doc_names, coder_names, doc, coder, nothing, rows, offsets, label_names, label_code,
            symmetric,
        )  # fmt: skip

    @classmethod
    def _build(
        cls,
        doc_names: tuple[Hashable, ...],
        coder_names: tuple[Hashable, ...],
        doc: NDArray[np.intp],
        coder: NDArray[np.intp],
        nothing: NDArray[np.bool_],
        rows: NDArray[np.intp],
        offsets: NDArray[np.float64],
        label_names: tuple[Hashable, ...],
        label_code: NDArray[np.intp],
        symmetric: NDArray[np.bool_],
    ) -> RelationData:
        n_docs, n_coders = len(doc_names), len(coder_names)
        annotated = np.zeros((n_docs, n_coders), dtype=bool)
        annotated[doc, coder] = True
        r_doc, r_coder = doc[rows], coder[rows]
        head_span, tail_span = offsets[rows, :2], offsets[rows, 2:]
        # Undirected relations in document order: swap where the tail comes first.
        flip = symmetric[label_code] & (
            (tail_span[:, 0] < head_span[:, 0])
            | ((tail_span[:, 0] == head_span[:, 0]) & (tail_span[:, 1] < head_span[:, 1]))
        )
        head_span[flip], tail_span[flip] = tail_span[flip], head_span[flip].copy()
        # Units: the distinct (document, coder, begin, end), in SpanData's order.
        ends = np.vstack(
            [
                np.column_stack([r_doc, r_coder, head_span]),
                np.column_stack([r_doc, r_coder, tail_span]),
            ]
        )
        distinct, inverse = np.unique(ends, axis=0, return_inverse=True)
        inverse = inverse.ravel().astype(np.intp)
        head, tail = inverse[: rows.size], inverse[rows.size :]
        extents = np.zeros((n_docs, 2))
        if distinct.shape[0]:
            np.maximum.at(extents[:, 1], distinct[:, 0].astype(np.intp), distinct[:, 3])
        units = SpanData(
            documents=doc_names,
            coders=coder_names,
            categories=(UNIT,),
            extents=extents,
            annotated=annotated,
            document=distinct[:, 0].astype(np.intp),
            coder=distinct[:, 1].astype(np.intp),
            begin=distinct[:, 2].astype(np.float64),
            end=distinct[:, 3].astype(np.float64),
            category=np.zeros(distinct.shape[0], dtype=np.intp),
        )
        order = np.lexsort((label_code, tail, head, r_coder, r_doc))
        r_doc, r_coder, head, tail = r_doc[order], r_coder[order], head[order], tail[order]
        label = label_code[order]
        repeated = np.flatnonzero(
            (head[1:] == head[:-1]) & (tail[1:] == tail[:-1]) & (label[1:] == label[:-1])
        )  # head indexes a unit of one document and coder, so equal heads share both
        if repeated.size:
            at = int(repeated[0]) + 1
            raise ValueError(
                f"Coder {coder_names[r_coder[at]]!r} gave the relation "
                f"{label_names[label[at]]!r} from [{units.begin[head[at]]:g}, "
                f"{units.end[head[at]]:g}) to [{units.begin[tail[at]]:g}, "
                f"{units.end[tail[at]]:g}) twice in document {doc_names[r_doc[at]]!r}."
            )
        return cls(units, label_names, symmetric, r_doc, r_coder, head, tail, label)

    @property
    def documents(self) -> tuple[Hashable, ...]:
        return self.units.documents

    @property
    def coders(self) -> tuple[Hashable, ...]:
        return self.units.coders

    @property
    def annotated(self) -> NDArray[np.bool_]:
        """``(n_documents, n_coders)``: whether the coder annotated the document."""
        return self.units.annotated

    @property
    def n_documents(self) -> int:
        return self.units.n_documents

    @property
    def n_coders(self) -> int:
        return self.units.n_coders

    @property
    def n_relations(self) -> int:
        return int(self.head.size)

    @property
    def n_units(self) -> int:
        return self.units.n_units
