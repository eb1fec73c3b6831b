"""A computation's scope (one question over some rounds) read as numpy arrays, and its data
revision.

``scope_annotations`` is the ORM-to-numpy adapter: it streams ``values_list`` rows (a
server-side cursor on PostgreSQL) straight into arrays, never building a model instance
per annotation, so a million annotations read in seconds. ``scope_spans`` does the same for
span questions, giving ``metrics.spans.SpanData``.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from itertools import chain
from typing import Any

import numpy as np
from django.db import connection
from django.db.models import Count, Max, QuerySet
from django.db.models.functions import Length
from numpy.typing import NDArray

from adjudication.models import Adjudication
from metrics.spans import SpanData
from studies.kinds import Feature, ValueForm
from studies.kinds.structured import ItemFacts
from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
    Coder,
    CoderKind,
    Item,
    ModelConfidence,
    Question,
    Round,
)

_STREAM_CHUNK = 50_000


@dataclass(frozen=True)
class ScopeAnnotations:
    """One question's annotations over some rounds, as parallel arrays (one row per annotation).

    ``labels`` holds what the metrics library compares: category codes (``str``) for
    nominal, ordinal and hierarchy questions, floats for numbers, ``frozenset`` of codes
    for set-valued questions. ``domain`` is the declared value domain in order (category
    codes by position) or None for numbers and sets (the observed values are used).
    ``parents`` maps each code to its parent's code (hierarchy questions only).
    """

    kind: str
    item_ids: NDArray[np.int64]
    coder_ids: NDArray[np.int64]
    labels: Sequence[object]
    domain: tuple[str, ...] | None
    parents: dict[str, str | None]
    fingerprint: str

    @property
    def n_annotations(self) -> int:
        return len(self.item_ids)


def _category_codes(question: Question) -> tuple[list[int], list[str], dict[str, str | None]]:
    rows = list(
        Category.objects.filter(question=question)
        .order_by("position", "id")
        .values_list("id", "code", "parent_id")
    )
    code_of = {pk: code for pk, code, _ in rows}
    parents = {code: code_of.get(parent) if parent else None for _, code, parent in rows}
    return [pk for pk, _, _ in rows], [code for _, code, _ in rows], parents


def _scope_queryset(
    *, question: Question, round_ids: Sequence[int], items: tuple[int, int] | None = None
) -> QuerySet[Annotation]:
    queryset = Annotation.objects.filter(question=question, round_id__in=list(round_ids))
    if items is not None:
        queryset = queryset.filter(item_id__gte=items[0], item_id__lte=items[1])
    return queryset.order_by()


def _stream_ints(rows: Iterable[tuple[int, ...]], width: int) -> NDArray[np.int64]:
    flat = np.fromiter(chain.from_iterable(rows), dtype=np.int64)
    return flat.reshape(-1, width)


# PostgreSQL's binary COPY: a 19-byte header, then per row a field count (int16) and, per
# field, a length (int32) and the value (8 bytes for bigint and float8), then an int16 -1.
_COPY_HEADER = 19
_COPY_TRAILER = 2


def _copy_dtype(value: str) -> np.dtype:
    fields: list[tuple[str, str]] = [("n", ">i2")]
    for name, kind in (("round", ">i8"), ("item", ">i8"), ("coder", ">i8"), ("value", value)):
        fields += [(f"{name}_length", ">i4"), (name, kind)]
    return np.dtype(fields)


def _copy_rows(
    *,
    question: Question,
    round_ids: Sequence[int],
    column: str,
    items: tuple[int, int] | None = None,
) -> tuple[NDArray[np.int64], NDArray[Any]] | None:
    """(round, item, coder) and the value column read with one binary COPY, or None when
    the database is not PostgreSQL. About ten times faster than iterating rows in Python.
    ``items`` keeps the item ids from ``items[0]`` to ``items[1]`` (inclusive) only."""
    if connection.vendor != "postgresql":
        return None
    table = Annotation._meta.db_table
    value_type = ">f8" if column == "number" else ">i8"
    item_range = (
        f' AND "item_id" BETWEEN {int(items[0])} AND {int(items[1])}' if items is not None else ""
    )
    sql = (
        f'COPY (SELECT "round_id", "item_id", "coder_id", "{column}" FROM "{table}" '
        f'WHERE "question_id" = {int(question.pk)} AND "round_id" IN '
        f"({','.join(str(int(r)) for r in round_ids) or 'NULL'}){item_range} "
        f'AND "{column}" IS NOT NULL) TO STDOUT (FORMAT BINARY)'
    )
    buffer = bytearray()
    with connection.cursor() as cursor, cursor.cursor.copy(sql) as copy:
        for block in copy:
            buffer += block
    body = memoryview(buffer)[_COPY_HEADER : len(buffer) - _COPY_TRAILER]
    records = np.frombuffer(body, dtype=_copy_dtype(value_type))
    keys = np.empty((len(records), 3), dtype=np.int64)
    keys[:, 0], keys[:, 1], keys[:, 2] = records["round"], records["item"], records["coder"]
    return keys, records["value"].astype(np.float64 if column == "number" else np.int64)


def scope_annotations(
    *, question: Question, round_ids: Sequence[int], items: tuple[int, int] | None = None
) -> ScopeAnnotations:
    """Stream the scope's annotations into arrays and fingerprint exactly what was read.

    Items of pooled rounds are the same items (an item labelled in two rounds by one coder
    would be labelled twice), so pooled rounds key each unit by (round, item). ``items``
    (first and last item id, inclusive) reads only that range: one chunk of a computation
    split by items.
    """
    queryset = _scope_queryset(question=question, round_ids=round_ids, items=items)
    pooled = len(set(round_ids)) > 1
    digest = hashlib.sha256()
    digest.update(f"question={question.pk};rounds={sorted(set(round_ids))}".encode())
    domain: tuple[str, ...] | None = None
    parents: dict[str, str | None] = {}
    labels: Any
    kind = question.label_kind
    if kind.form is ValueForm.CATEGORY:
        category_ids, codes, parents = _category_codes(question)
        copied = _copy_rows(
            question=question, round_ids=round_ids, column="category_id", items=items
        )
        if copied is not None:
            rows = np.column_stack([copied[0], copied[1]])
        else:
            rows = _stream_ints(
                queryset.values_list("round_id", "item_id", "coder_id", "category_id").iterator(
                    chunk_size=_STREAM_CHUNK
                ),
                4,
            )
        rows = rows[np.lexsort((rows[:, 2], rows[:, 1], rows[:, 0]))]
        digest.update(np.ascontiguousarray(rows).tobytes())
        lookup = np.full(max(category_ids, default=0) + 1, -1, dtype=np.int64)
        lookup[category_ids] = np.arange(len(category_ids))
        code_array = np.array(codes, dtype=object if not codes else None)
        labels = code_array[lookup[rows[:, 3]]] if len(rows) else np.array([], dtype=str)
        domain = tuple(codes)
        if not kind.category_tree:
            parents = {}
    elif kind.form is ValueForm.NUMBER:
        copied_numbers = _copy_rows(
            question=question, round_ids=round_ids, column="number", items=items
        )
        if copied_numbers is not None:
            keys, numbers = copied_numbers
        else:
            raw = list(
                queryset.values_list("round_id", "item_id", "coder_id", "number").iterator(
                    chunk_size=_STREAM_CHUNK
                )
            )
            keys = _stream_ints(((r, i, c) for r, i, c, _ in raw), 3)
            numbers = np.fromiter((n for *_, n in raw), dtype=np.float64, count=len(raw))
        order = np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0])) if len(keys) else np.array([], int)
        rows, labels = keys[order], numbers[order]
        digest.update(np.ascontiguousarray(rows).tobytes())
        digest.update(np.ascontiguousarray(labels).tobytes())
    elif kind.form is ValueForm.CATEGORY_SET:
        category_ids, codes, _ = _category_codes(question)
        code_of = dict(zip(category_ids, codes, strict=True))
        raw_sets = list(
            queryset.values_list("round_id", "item_id", "coder_id", "category_set").iterator(
                chunk_size=_STREAM_CHUNK
            )
        )
        raw_sets.sort(key=lambda row: row[:3])
        rows = _stream_ints(((r, i, c) for r, i, c, _ in raw_sets), 3)
        digest.update(np.ascontiguousarray(rows).tobytes())
        cache: dict[tuple[int, ...], frozenset[str]] = {}
        set_labels: list[object] = []
        for *_, ids in raw_sets:
            key = tuple(sorted(ids or []))
            digest.update(repr(key).encode())
            if key not in cache:
                cache[key] = frozenset(code_of[pk] for pk in key)
            set_labels.append(cache[key])
        labels = set_labels
    else:
        raise ValueError(f"{kind.title} annotations are read by scope_spans, not as labels.")
    units = _unit_ids(rows, pooled=pooled)
    return ScopeAnnotations(
        kind=question.kind,
        item_ids=units,
        coder_ids=rows[:, 2].astype(np.int64) if len(rows) else np.zeros(0, dtype=np.int64),
        labels=labels,
        domain=domain,
        parents=parents,
        fingerprint=digest.hexdigest(),
    )


def _unit_ids(rows: NDArray[np.int64], *, pooled: bool) -> NDArray[np.int64]:
    """Item ids, or (round, item) packed in one integer when rounds are pooled."""
    if not len(rows):
        return np.zeros(0, dtype=np.int64)
    if not pooled:
        return rows[:, 1].astype(np.int64)
    return rows[:, 0].astype(np.int64) * (1 << 40) + rows[:, 1].astype(np.int64)


@dataclass(frozen=True)
class ScopeConfidences:
    """The model coders' confidences in their labels of a scope (``ModelConfidence``), one
    row per label: unit ids as ``scope_annotations`` makes them, coder ids, confidences."""

    units: NDArray[np.int64]
    coder_ids: NDArray[np.int64]
    confidences: NDArray[np.float64]


def scope_confidences(
    *, question_id: int, round_ids: Sequence[int], coder_ids: Sequence[int]
) -> ScopeConfidences:
    """The confidences ``coder_ids`` gave with their labels of the question in the rounds,
    in one query (a separate table: the annotations' reads never carry them). The rows go
    through one float array (ids are far below 2**53, exact as float64)."""
    rows = np.array(
        list(
            ModelConfidence.objects.filter(
                question_id=question_id, round_id__in=list(round_ids), coder_id__in=coder_ids
            )
            .order_by()
            .values_list("round_id", "item_id", "coder_id", "confidence")
        ),
        dtype=np.float64,
    ).reshape(-1, 4)
    ids = rows[:, :3].astype(np.int64)
    return ScopeConfidences(
        units=_unit_ids(ids[:, :2], pooled=len(set(round_ids)) > 1),
        coder_ids=ids[:, 2],
        confidences=rows[:, 3],
    )


@dataclass(frozen=True)
class ScopeAdjudications:
    """The current adjudicated category of the adjudicated items of a scope
    (``adjudication.Adjudication``): unit ids as ``scope_annotations`` makes them, codes,
    and the fingerprint of the adjudications read (``adjudications_fingerprint``)."""

    units: NDArray[np.int64]
    codes: list[str]
    fingerprint: str = ""


def _current_adjudications(
    *, question_ids: Iterable[int], round_ids: Iterable[int]
) -> QuerySet[Adjudication]:
    """The current adjudications of the questions in the rounds whose category still exists
    (an adjudication whose category was deleted from the scheme is no reference)."""
    return Adjudication.objects.filter(
        question_id__in=list(question_ids),
        round_id__in=list(round_ids),
        superseded_at__isnull=True,
        category__isnull=False,
    ).order_by()


def adjudications_fingerprint(rows: Iterable[tuple[int, int, int]]) -> str:
    """A SHA-256 of a scope's current adjudications as (round id, item id, category id)
    triples, in any order: the same decisions give the same fingerprint however often an
    item was adjudicated again; none read gives the fingerprint of the empty list."""
    triples = sorted((int(r), int(i), int(c)) for r, i, c in rows)
    return hashlib.sha256(json.dumps(triples).encode()).hexdigest()


def scope_adjudications(*, question_id: int, round_ids: Sequence[int]) -> ScopeAdjudications:
    """The scope's current adjudications of a one-category question, in one query."""
    rows = list(
        _current_adjudications(question_ids=[question_id], round_ids=round_ids).values_list(
            "round_id", "item_id", "category_id", "category__code"
        )
    )
    ids = np.array([row[:2] for row in rows], dtype=np.int64).reshape(-1, 2)
    return ScopeAdjudications(
        units=_unit_ids(ids, pooled=len(set(round_ids)) > 1),
        codes=[code for *_, code in rows],
        fingerprint=adjudications_fingerprint(row[:3] for row in rows),
    )


def scope_adjudications_fingerprint(*, question_id: int, round_ids: Sequence[int]) -> str:
    """``adjudications_fingerprint`` of the scope's current adjudications, in one query
    (three integers per adjudicated item)."""
    return adjudications_fingerprint(
        _current_adjudications(question_ids=[question_id], round_ids=round_ids).values_list(
            "round_id", "item_id", "category_id"
        )
    )


def rounds_adjudications_fingerprints(
    scopes: Iterable[tuple[int, int]],
) -> dict[tuple[int, int], str]:
    """``adjudications_fingerprint`` of each one-round scope (question id, round id), all
    in one query; none when no scope is given."""
    wanted = set(scopes)
    if not wanted:
        return {}
    rows: dict[tuple[int, int], list[tuple[int, int, int]]] = {scope: [] for scope in wanted}
    found = _current_adjudications(
        question_ids={q for q, _ in wanted}, round_ids={r for _, r in wanted}
    ).values_list("question_id", "round_id", "item_id", "category_id")
    for question_id, round_id, item_id, category_id in found:
        if (question_id, round_id) in rows:
            rows[(question_id, round_id)].append((round_id, item_id, category_id))
    return {scope: adjudications_fingerprint(triples) for scope, triples in rows.items()}


def calibration_reads_adjudications(*, question: Question, round_ids: Sequence[int]) -> bool:
    """Whether a computation of the scope would read its adjudications: the question's
    labels are one category each and a model coder gave a confidence with a label in the
    scope (the calibration's reference labels; nothing else the worker computes reads them).
    One query (an EXISTS), none for other kinds."""
    kind = question.label_kind
    if not (kind.categorical and kind.supports(Feature.MODELS)):
        return False
    return ModelConfidence.objects.filter(
        question_id=question.pk, round_id__in=list(round_ids), coder__kind=CoderKind.MODEL
    ).exists()


def unit_label(unit: int) -> tuple[int | None, int]:
    """(round id or None, item id) of a unit id made by ``scope_annotations``."""
    if unit >= 1 << 40:
        return unit >> 40, unit & ((1 << 40) - 1)
    return None, unit


#: Ids per ``IN (...)`` list: SQLite refuses a statement with more than 32,766 parameters, and
#: a crowd scope has thousands of coders (and up to millions of items).
IN_LIST_MAX = 10_000


def _names_by_id(model: Any, ids: Iterable[int], field: str) -> dict[int, str]:
    wanted = sorted(set(ids))
    names: dict[int, str] = {}
    for start in range(0, len(wanted), IN_LIST_MAX):
        batch = wanted[start : start + IN_LIST_MAX]
        names.update(model.objects.filter(pk__in=batch).values_list("id", field))
    return names


def item_external_ids(item_ids: Iterable[int]) -> dict[int, str]:
    return _names_by_id(Item, item_ids, "external_id")


def coder_keys(coder_ids: Iterable[int]) -> dict[int, str]:
    return _names_by_id(Coder, coder_ids, "key")


def scope_data_revision(*, question: Question | int, round_ids: Sequence[int]) -> str:
    """A short string that changes whenever the scope's annotations change.

    The change log's latest id catches every write made through the services; the count,
    latest id and latest update also catch direct writes (fixtures, the shell, deletes).
    """
    question_id = question if isinstance(question, int) else question.pk
    ids = sorted(set(round_ids))
    summary = Annotation.objects.filter(question_id=question_id, round_id__in=ids).aggregate(
        n=Count("id"), last_id=Max("id"), last_update=Max("updated_at")
    )
    last_change = AnnotationChange.objects.filter(
        question_id=question_id, round_id__in=ids
    ).aggregate(last=Max("id"))["last"]
    last_update = summary["last_update"].timestamp() if summary["last_update"] else 0
    return (
        f"n={summary['n']};id={summary['last_id'] or 0};upd={last_update:.6f};"
        f"log={last_change or 0};r={','.join(map(str, ids))}"
    )[:200]


# Span questions ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ScopeSpans:
    """A span question's annotations over some rounds as :class:`metrics.spans.SpanData`.

    One document per item, or per (round, item) when rounds are pooled (as
    ``scope_annotations`` keys its units): ``data.documents`` are those unit ids (the item's
    id, or round and item packed as ``unit_label`` reads them), in ascending order;
    ``item_ids[d]`` and ``round_ids[d]`` are document ``d``'s item and round. ``data.coders``
    and ``coder_ids`` are the coders' ids, ascending. ``data.categories`` are the question's
    category codes in declared order (unused ones included). A coder annotated a document
    when an annotation row exists, whether or not it holds units.

    ``document_names[d]`` and ``coder_names[c]`` are the names a user knows: the item's
    external id (``<round name>/<external id>`` when rounds are pooled) and the coder's key.
    :attr:`named` is ``data`` with those names, which is what the engine computes on, so
    that measures' reasons and coder pairs read ``document 'doc-7', coder 'alice'``.
    """

    data: SpanData
    item_ids: NDArray[np.int64]
    round_ids: NDArray[np.int64]
    coder_ids: NDArray[np.int64]
    fingerprint: str
    document_names: tuple[str, ...] = ()
    coder_names: tuple[str, ...] = ()

    @property
    def n_annotations(self) -> int:
        return int(self.data.annotated.sum())

    @property
    def named(self) -> SpanData:
        """``data`` with documents and coders by name (same order, same arrays)."""
        return replace(self.data, documents=self.document_names, coders=self.coder_names)


@dataclass(frozen=True)
class _ItemRow:
    external_id: str
    extent_begin: float | None
    extent_end: float | None
    text_length: int


def _item_rows(item_ids: NDArray[np.int64]) -> dict[int, _ItemRow]:
    """Each item's external id, extent and text length, the text never read."""
    found: dict[int, _ItemRow] = {}
    ids = np.unique(item_ids).tolist()
    for start in range(0, len(ids), 900):
        rows = (
            Item.objects.filter(pk__in=ids[start : start + 900])
            .annotate(text_length=Length("text"))
            .values_list("id", "external_id", "extent_begin", "extent_end", "text_length")
        )
        found.update(
            {pk: _ItemRow(name, begin, end, length or 0) for pk, name, begin, end, length in rows}
        )
    return found


def _document_names(
    item_of_document: NDArray[np.int64],
    round_of_document: NDArray[np.int64],
    items: dict[int, _ItemRow],
    *,
    pooled: bool,
) -> tuple[str, ...]:
    """External ids, ``<round name>/<external id>`` when pooled; a name two documents would
    share (a ``/`` in a round name and an external id can make one) gets its ids appended."""
    rounds = (
        dict(Round.objects.filter(pk__in=set(round_of_document.tolist())).values_list("id", "name"))
        if pooled
        else {}
    )
    names = []
    for item, round_ in zip(item_of_document.tolist(), round_of_document.tolist(), strict=True):
        row = items.get(item)
        name = row.external_id if row is not None else str(item)
        names.append(f"{rounds.get(round_, round_)}/{name}" if pooled else name)
    counts = Counter(names)
    return tuple(
        name
        if counts[name] == 1
        else f"{name} (item {item}" + (f", round {round_})" if pooled else ")")
        for name, item, round_ in zip(
            names, item_of_document.tolist(), round_of_document.tolist(), strict=True
        )
    )


def scope_spans(*, question: Question, round_ids: Sequence[int]) -> ScopeSpans:
    """Stream the scope's span annotations into :class:`SpanData` and fingerprint them.

    A document's extent is its item's ``extent_begin``/``extent_end``, else 0 to the length
    of its text, else 0 to the largest end of its units (SpanData's default). Units stored
    outside their item's extent (written around the upload's checks) widen it, so every
    measure sees a consistent continuum.
    """
    pooled = len(set(round_ids)) > 1
    rows = list(
        _scope_queryset(question=question, round_ids=round_ids)
        .values_list("round_id", "item_id", "coder_id", "units")
        .iterator(chunk_size=_STREAM_CHUNK)
    )
    keys = _stream_ints(((r, i, c) for r, i, c, _ in rows), 3)
    order = np.lexsort((keys[:, 2], keys[:, 1], keys[:, 0])) if len(keys) else np.zeros(0, int)
    keys = keys[order]
    unit_lists = [rows[k][3] or [] for k in order.tolist()]
    unit_ids = _unit_ids(keys, pooled=pooled)
    documents, document_of_row = np.unique(unit_ids, return_inverse=True)
    coders, coder_of_row = np.unique(keys[:, 2], return_inverse=True)
    n_docs, n_coders = len(documents), len(coders)
    annotated = np.zeros((n_docs, n_coders), dtype=bool)
    annotated[document_of_row, coder_of_row] = True

    counts = np.fromiter((len(units) for units in unit_lists), dtype=np.intp, count=len(rows))
    flat = np.array(list(chain.from_iterable(unit_lists)), dtype=np.float64).reshape(-1, 3)
    unit_document = np.repeat(document_of_row, counts).astype(np.intp)
    unit_coder = np.repeat(coder_of_row, counts).astype(np.intp)
    category_ids, codes, _ = _category_codes(question)
    lookup = np.full(max(category_ids, default=0) + 1, -1, dtype=np.intp)
    lookup[category_ids] = np.arange(len(category_ids))
    raw_category = flat[:, 2].astype(np.int64)
    known = (raw_category >= 0) & (raw_category < len(lookup))
    unit_category = np.where(known, lookup[np.where(known, raw_category, 0)], -1)
    if (unit_category < 0).any():
        raise ValueError(f"question {question.key!r}: a stored unit names no category of it")
    begin, end = flat[:, 0], flat[:, 1]
    unit_order = np.lexsort((unit_category, end, begin, unit_coder, unit_document))

    item_of_document = np.zeros(n_docs, dtype=np.int64)
    round_of_document = np.zeros(n_docs, dtype=np.int64)
    item_of_document[document_of_row] = keys[:, 1]
    round_of_document[document_of_row] = keys[:, 0]
    items = _item_rows(item_of_document)
    extents = _document_extents(item_of_document, items, unit_document, begin, end)
    keys_of = coder_keys(coders.tolist())

    digest = hashlib.sha256()
    digest.update(f"spans;question={question.pk};rounds={sorted(set(round_ids))}".encode())
    digest.update(np.ascontiguousarray(keys).tobytes())
    digest.update(counts.tobytes())
    digest.update(np.ascontiguousarray(flat).tobytes())
    digest.update(extents.tobytes())
    data = SpanData(
        documents=tuple(documents.tolist()),
        coders=tuple(coders.tolist()),
        categories=tuple(codes),
        extents=extents,
        annotated=annotated,
        document=unit_document[unit_order],
        coder=unit_coder[unit_order],
        begin=begin[unit_order],
        end=end[unit_order],
        category=unit_category[unit_order].astype(np.intp),
    )
    return ScopeSpans(
        data=data,
        item_ids=item_of_document,
        round_ids=round_of_document,
        coder_ids=coders.astype(np.int64),
        fingerprint=digest.hexdigest(),
        document_names=_document_names(item_of_document, round_of_document, items, pooled=pooled),
        coder_names=tuple(keys_of.get(c, str(c)) for c in coders.tolist()),
    )


def _document_extents(
    item_of_document: NDArray[np.int64],
    stored: dict[int, _ItemRow],
    unit_document: NDArray[np.intp],
    begin: NDArray[np.float64],
    end: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Each document's [begin, end): its item's extent, else its text's length, else its
    units' largest end; widened to hold its units."""
    n_docs = len(item_of_document)
    extents = np.zeros((n_docs, 2), dtype=np.float64)
    has_extent = np.zeros(n_docs, dtype=bool)
    for d, item_id in enumerate(item_of_document.tolist()):  # one per document, not per unit
        row = stored.get(item_id)
        if row is None:
            continue
        if row.extent_begin is not None and row.extent_end is not None:
            extents[d] = (row.extent_begin, row.extent_end)
            has_extent[d] = True
        elif row.text_length:
            extents[d] = (0.0, float(row.text_length))
            has_extent[d] = True
    if len(begin):
        lowest = np.full(n_docs, np.inf)
        highest = np.full(n_docs, -np.inf)
        np.minimum.at(lowest, unit_document, begin)
        np.maximum.at(highest, unit_document, end)
        extents[:, 1] = np.where(
            has_extent, np.maximum(extents[:, 1], highest), np.maximum(highest, 0.0)
        )
        extents[:, 0] = np.minimum(extents[:, 0], lowest)
    return extents


# Computations split by items ---------------------------------------------------------------


def scope_item_counts(
    *, question: Question, round_ids: Sequence[int]
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(round ids, item ids, annotations per item) of the scope, ordered by round then item:
    what splitting a computation by item ranges needs, one row per item, no label read."""
    rows = (
        _scope_queryset(question=question, round_ids=round_ids)
        .values_list("round_id", "item_id")
        .annotate(n=Count("id"))
        .order_by("round_id", "item_id")
    )
    table = _stream_ints(rows.iterator(chunk_size=_STREAM_CHUNK), 3)
    return table[:, 0].copy(), table[:, 1].copy(), table[:, 2].copy()


def scope_coder_ids(*, question: Question, round_ids: Sequence[int]) -> list[int]:
    """Every coder with an annotation in the scope, by id."""
    return list(
        _scope_queryset(question=question, round_ids=round_ids)
        .values_list("coder_id", flat=True)
        .distinct()
        .order_by("coder_id")
    )


def question_domain(question: Question) -> tuple[str, ...] | None:
    """The value domain ``scope_annotations`` gives for the question: its category codes in
    order (nominal, ordinal, hierarchy), else None (the observed values are used)."""
    if question.label_kind.form is ValueForm.CATEGORY:
        return tuple(_category_codes(question)[1])
    return None


@dataclass(frozen=True)
class ScopeStructured:
    """A structured question's annotations over some rounds, as its kind's report reads them.

    ``rows`` are ``(item name, coder key, value)`` in (item, coder) order, an item's name
    being its external id (``<round name>/<external id>`` when rounds are pooled, as span
    documents are named); ``items`` maps each name to its facts (an image's size);
    ``code_by_id`` names the question's categories, ``undirected`` the codes of those
    declared undirected (symmetric relation labels). A row with an empty value is a coder
    who annotated the item and found nothing.
    """

    rows: list[tuple[str, str, list[Any]]]
    items: dict[str, ItemFacts]
    code_by_id: dict[int, str]
    item_ids: dict[str, int]
    fingerprint: str
    undirected: tuple[str, ...] = ()

    @property
    def n_annotations(self) -> int:
        return len(self.rows)


def scope_structured(*, question: Question, round_ids: Sequence[int]) -> ScopeStructured:
    """Stream the scope's structured annotations with their items' names and facts."""
    pooled = len(set(round_ids)) > 1
    queryset = _scope_queryset(question=question, round_ids=round_ids).order_by(
        "round_id", "item_id", "coder__key"
    )
    round_names = dict(Round.objects.filter(pk__in=list(round_ids)).values_list("id", "name"))
    digest = hashlib.sha256()
    digest.update(f"question={question.pk};rounds={sorted(set(round_ids))}".encode())
    rows: list[tuple[str, str, list[Any]]] = []
    items: dict[str, ItemFacts] = {}
    item_ids: dict[str, int] = {}
    for round_id, item_id, external_id, width, height, coder, units in queryset.values_list(
        "round_id", "item_id", "item__external_id", "item__image_width", "item__image_height",
        "coder__key", "units",
    ).iterator(chunk_size=_STREAM_CHUNK):  # fmt: skip
        name = f"{round_names[round_id]}/{external_id}" if pooled else external_id
        items[name] = ItemFacts(width, height)
        item_ids[name] = item_id
        value = units or []
        rows.append((name, coder, value))
        digest.update(repr((round_id, item_id, coder, value)).encode())
    categories = Category.objects.filter(question=question).values_list("id", "code", "undirected")
    code_by_id = {pk: code for pk, code, _ in categories}
    undirected = tuple(sorted(code for _, code, flag in categories if flag))
    digest.update(f"undirected={undirected}".encode())
    return ScopeStructured(
        rows=rows,
        items=items,
        code_by_id=code_by_id,
        item_ids=item_ids,
        fingerprint=digest.hexdigest(),
        undirected=undirected,
    )
