"""Uploading span annotations: every (document, coder) pair named gets exactly its units.

A span question's annotation is one coder's list of units ``[begin, end, category_id]`` on
one item (a *document*), ``end`` exclusive, sorted. An empty list means the coder annotated
the document and found nothing; no annotation row means the coder did not annotate it.

:func:`span_units_replace` takes :class:`SpanRecord` rows (one per unit, or one with
``begin``, ``end`` and ``label`` all empty for "annotated, nothing found") and optional
:class:`DocumentRecord` rows (a document's text and extent), checks every record, then
replaces the units of each (document, coder) pair named, all or none, logging each change
in ``AnnotationChange`` (canonical text ``"0-5 PER; 7-9 ORG"``). Pairs not named keep what
they have. Items and coders are created as the bulk upload creates them.

Errors name each bad record's ``where`` and field (``attr`` = ``"<where>.<field>"``,
e.g. ``"line 12.begin"`` or ``"units.3.label"``) with a code; :class:`SpanUploadError` also
keeps them as :class:`SpanProblem` rows for callers that map them back to their records.

Example
-------
>>> span_units_from_csv("document,coder,begin,end,label\\nd1,ann,0,5,PER\\nd1,bob,,,\\n")[1]
SpanRecord(document='d1', coder='bob', begin=None, end=None, label=None, where='line 3')
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Length
from django.utils import timezone
from numpy.typing import NDArray

from annotations.services import (
    _BULK_BATCH,
    _IN_BATCH,
    _KEY_LOOKUP_IN_LIMIT,
    CODER_KEY_MAX_LENGTH,
    ITEM_KEY_MAX_LENGTH,
    MAX_REPORTED_ERRORS,
    AnnotationErrorCode,
    PayloadTooLargeError,
    _change_objects,
    _chunks,
    _create_keys,
    _ensure_open,
    _ids_by_key,
    _key_text,
)
from studies.access import Actor
from studies.closest import not_a_category
from studies.kinds import ValueForm, kinds_of_form
from studies.labels import LabelScheme
from studies.models import (
    Annotation,
    AnnotationChange,
    Coder,
    Item,
    Question,
    Round,
)
from studies.services.roster import RosterErrorCode, extent_errors, units_outside
from studies.text_rules import (
    DUPLICATE_COLUMN,
    FIELD_COUNT,
    CsvReadError,
    NumberFormatError,
    parse_number,
    read_csv,
    repeated_column,
    repeated_column_message,
    restore_text,
)

logger = logging.getLogger(__name__)

MAX_SPAN_RECORDS = 200_000
CSV_COLUMNS = ("document", "coder", "begin", "end", "label")


class SpanErrorCode:
    NOT_A_SPAN_QUESTION = "not_a_span_question"
    WRONG_STUDY = "wrong_study"
    REQUIRED = AnnotationErrorCode.REQUIRED
    INVALID_TYPE = AnnotationErrorCode.INVALID_TYPE
    MAX_LENGTH = AnnotationErrorCode.MAX_LENGTH
    NULL_CHARACTERS = AnnotationErrorCode.NULL_CHARACTERS
    UNKNOWN_ITEM = AnnotationErrorCode.UNKNOWN_ITEM
    UNKNOWN_CODER = AnnotationErrorCode.UNKNOWN_CODER
    TOO_MANY_ERRORS = AnnotationErrorCode.TOO_MANY_ERRORS
    UNKNOWN_CATEGORY = "unknown_category"
    NOT_A_NUMBER = "not_a_number"
    NOT_AN_INTEGER = "not_an_integer"
    END_BEFORE_BEGIN = "end_before_begin"
    OUTSIDE_EXTENT = "outside_extent"
    DUPLICATE_DOCUMENT = "duplicate_document"
    TEXT_CONFLICT = "text_conflict"
    EXTENT_CONFLICT = "extent_conflict"
    UNITS_OUTSIDE_EXTENT = RosterErrorCode.UNITS_OUTSIDE_EXTENT
    MISSING_COLUMNS = "missing_columns"
    MALFORMED_FILE = "malformed_file"


@dataclass(frozen=True)
class SpanRecord:
    """One unit of one coder on one document, or (``begin``, ``end`` and ``label`` all None)
    the coder's word that the document holds nothing. ``begin`` and ``end`` may be numbers
    or their text; anything else is reported. ``where`` names the source row for errors."""

    document: str
    coder: str
    begin: float | str | None
    end: float | str | None
    label: str | None
    where: str

    @property
    def is_empty(self) -> bool:
        return _blank(self.begin) and _blank(self.end) and _blank(self.label)


@dataclass(frozen=True)
class DocumentRecord:
    """A document's text and extent ``[begin, end)`` (both or neither), for the item it
    names: set on a new item, or on an existing one that has none yet."""

    document: str
    text: str = ""
    begin: float | None = None
    end: float | None = None
    where: str = ""


@dataclass(frozen=True)
class SpanUploadResult:
    documents: int  # distinct documents named (units, empty rows, documents)
    coders: int  # distinct coders named
    units: int  # units in the upload
    created: int  # annotations (pairs) created
    replaced: int  # annotations whose units changed
    unchanged: int  # annotations sent with the units they already had
    items_created: int
    items_updated: int  # existing items given a text or an extent
    coders_created: int

    @property
    def annotations(self) -> int:
        return self.created + self.replaced + self.unchanged


@dataclass(frozen=True)
class SpanProblem:
    where: str
    field: str
    code: str
    message: str


class SpanUploadError(ValidationError):
    """A refused span upload: ``ValidationError`` keyed ``"<where>.<field>"`` (the first
    ``MAX_REPORTED_ERRORS``), with every problem in ``problems``."""

    def __init__(self, problems: Sequence[SpanProblem]) -> None:
        errors: dict[str, list[ValidationError]] = {}
        for problem in problems[:MAX_REPORTED_ERRORS]:
            errors.setdefault(f"{problem.where}.{problem.field}", []).append(
                ValidationError(f"{problem.where}: {problem.message}", code=problem.code)
            )
        if len(problems) > MAX_REPORTED_ERRORS:
            errors.setdefault("units", []).append(
                ValidationError(
                    f"{len(problems)} errors in total; only the first {MAX_REPORTED_ERRORS} "
                    "are listed.",
                    code=SpanErrorCode.TOO_MANY_ERRORS,
                )
            )
        super().__init__(errors)
        self.problems = list(problems)


@dataclass
class _Problems:
    """Problems of the records, reported in record order (documents first)."""

    found: list[tuple[int, int, int, SpanProblem]] = field(default_factory=list)

    def add(self, group: int, index: int, where: str, name: str, code: str, text: str) -> None:
        rank = _FIELD_RANK.get(name, len(_FIELD_RANK))
        self.found.append((group, index, rank, SpanProblem(where, name, code, text)))

    def raise_if_any(self) -> None:
        if self.found:
            self.found.sort(key=lambda entry: entry[:3])
            raise SpanUploadError([entry[3] for entry in self.found])


_FIELD_RANK = {name: rank for rank, name in enumerate(("document", "coder", *CSV_COLUMNS[2:]))}
_DOCUMENTS, _UNITS = 0, 1


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _offset(raw: Any) -> float:
    """A begin or end as a float: NaN when it is no number (missing values are masked apart)."""
    if isinstance(raw, bool):
        return math.nan
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, str):
        try:
            return parse_number(raw)
        except NumberFormatError:
            return math.nan
    return math.nan


# Reading the CLI's CSV ---------------------------------------------------------------------


def span_units_from_csv(text: str) -> list[SpanRecord]:
    """Records of a CSV ``document,coder,begin,end,label`` (the CLI's shape; header
    required, other columns ignored, an optional byte-order mark). A row with empty
    ``begin``, ``end`` and ``label`` says the coder annotated the document and found nothing.
    ``where`` is ``"line <n>"``, counting the header as line 1. Offsets stay text here:
    :func:`span_units_replace` reports those that are no numbers. Text cells the exports
    neutralised for spreadsheets (``'=x``) read back as written (``=x``).

    Raises ``ValidationError`` on ``header`` (``missing_columns``, or ``duplicate_column``
    for a column named twice, case aside), on ``line <n>`` (``field_count``: more or fewer
    fields than the header) or on ``file`` (``malformed_file``) when the text cannot be
    read as that CSV.
    """
    try:
        header, rows = read_csv(text)
        if not header:
            raise _file_error(
                "header", SpanErrorCode.MISSING_COLUMNS, "The CSV is empty: a header is expected."
            )
        repeated = repeated_column(header, key=str.lower)
        if repeated is not None:
            raise _file_error("header", DUPLICATE_COLUMN, repeated_column_message(repeated))
        columns = [name.strip().lower() for name in header]
        missing = [name for name in CSV_COLUMNS if name not in columns]
        if missing:
            raise _file_error(
                "header",
                SpanErrorCode.MISSING_COLUMNS,
                f"The CSV header lacks the column(s) {', '.join(missing)}; expected "
                f"{','.join(CSV_COLUMNS)}.",
            )
        at = [columns.index(name) for name in CSV_COLUMNS]
        records: list[SpanRecord] = []
        for row in rows:
            document, coder, begin, end, label = (row.cells[i].strip() for i in at)
            records.append(
                SpanRecord(
                    document=restore_text(document),
                    coder=restore_text(coder),
                    begin=begin or None,
                    end=end or None,
                    label=restore_text(label) or None,
                    where=f"line {row.line}",
                )
            )
            if len(records) > MAX_SPAN_RECORDS:
                break
    except CsvReadError as error:
        if error.code == FIELD_COUNT:
            raise _file_error(f"line {error.line}", error.code, error.message) from None
        raise _file_error("file", SpanErrorCode.MALFORMED_FILE, error.message) from None
    return records


def _file_error(attr: str, code: str, message: str) -> ValidationError:
    return ValidationError({attr: [ValidationError(message, code=code)]})


# Checking the records ------------------------------------------------------------------------


def _check_key(
    raw: Any,
    *,
    known: Mapping[str, Any],
    create: bool,
    name: str,
    field_name: str,
    problems: _Problems,
    group: int,
    index: int,
    where: str,
) -> str | None:
    key = _key_text(raw)
    code, message = None, ""
    if key is None:
        if isinstance(raw, str):
            code, message = SpanErrorCode.NULL_CHARACTERS, "NUL characters are not allowed."
        elif raw is None:
            code, message = SpanErrorCode.REQUIRED, f"The {field_name} is required."
        else:
            code, message = SpanErrorCode.INVALID_TYPE, f"The {field_name} must be text."
    elif not key:
        code, message = SpanErrorCode.REQUIRED, f"The {field_name} is required."
    elif key not in known:
        limit = ITEM_KEY_MAX_LENGTH if name == "item" else CODER_KEY_MAX_LENGTH
        if not create:
            code = SpanErrorCode.UNKNOWN_ITEM if name == "item" else SpanErrorCode.UNKNOWN_CODER
            message = f"No {name} {key!r} in this study (set create_missing to create it)."
        elif len(key) > limit:
            code, message = (
                SpanErrorCode.MAX_LENGTH,
                f"The {field_name} has over {limit} characters.",
            )
    if code is not None:
        problems.add(group, index, where, field_name, code, message)
        return None
    return key


@dataclass
class _ItemRow:
    """What the upload needs of an item (never its text): id (None until a new item is
    created), text length and extent, and what a document record gives it."""

    pk: int | None
    text_length: int
    extent_begin: float | None
    extent_end: float | None
    new_text: str = ""
    new_extent: bool = False
    source: str = ""  # the document record that gave the text or extent

    @property
    def extent(self) -> tuple[float, float] | None:
        if self.extent_begin is not None and self.extent_end is not None:
            return self.extent_begin, self.extent_end
        if self.text_length:
            return 0.0, float(self.text_length)
        return None


def _item_rows(*, study_id: int, keys: set[str]) -> dict[str, _ItemRow]:
    """The study's items among ``keys``: id, text length and extent."""
    if not keys:
        return {}
    items = Item.objects.filter(study_id=study_id).annotate(text_length=Length("text"))
    columns = ("external_id", "id", "text_length", "extent_begin", "extent_end")
    if len(keys) > _KEY_LOOKUP_IN_LIMIT:
        found = [row for row in items.values_list(*columns) if row[0] in keys]
    else:
        found = []
        for chunk in _chunks(sorted(keys), _IN_BATCH):
            found.extend(items.filter(external_id__in=chunk).values_list(*columns))
    return {key: _ItemRow(pk, length or 0, begin, end) for key, pk, length, begin, end in found}


def _document_value_problem(record: DocumentRecord) -> tuple[str, str, str] | None:
    """(field, code, message) of a document record's text or extent that cannot be used."""
    if not isinstance(record.text, str):
        return "text", SpanErrorCode.INVALID_TYPE, "The text must be text."
    if "\x00" in record.text:
        return "text", SpanErrorCode.NULL_CHARACTERS, "NUL characters are not allowed."
    for name, value in (("begin", record.begin), ("end", record.end)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int | float)):
            return name, SpanErrorCode.NOT_A_NUMBER, f"The {name} {value!r} is not a number."
    for name, error in extent_errors(record.begin, record.end).items():
        message = error.messages[0].replace("extent_", "")
        return name.removeprefix("extent_"), error.code or "invalid", message
    return None


def _stored_texts(
    documents: Sequence[DocumentRecord], items: Mapping[str, _ItemRow]
) -> dict[int, str]:
    """The texts of the existing items a document record gives a text, to compare them."""
    ids = [
        row.pk
        for record in documents
        if record.text
        and (key := _key_text(record.document))
        and (row := items.get(key)) is not None
        and row.pk is not None
        and row.text_length
    ]
    texts: dict[int, str] = {}
    for start in range(0, len(ids), _IN_BATCH):
        texts.update(
            Item.objects.filter(pk__in=ids[start : start + _IN_BATCH]).values_list("id", "text")
        )
    return texts


def _merge_document(
    key: str, record: DocumentRecord, row: _ItemRow, *, stored_text: str | None, where: str
) -> tuple[str, str, str] | None:
    """Give ``row`` the record's text and extent; (field, code, message) of a conflict with
    what the item already has."""
    if record.text:
        if row.pk is not None and row.text_length and stored_text != record.text:
            return (
                "text",
                SpanErrorCode.TEXT_CONFLICT,
                f"Document {key!r} already has another text; change it with the items API.",
            )
    if record.begin is not None and record.end is not None:
        extent = (float(record.begin), float(record.end))
        if row.extent_begin is not None and (row.extent_begin, row.extent_end) != extent:
            return (
                "begin",
                SpanErrorCode.EXTENT_CONFLICT,
                f"Document {key!r} already has the extent [{row.extent_begin:g}, "
                f"{row.extent_end:g}); change it with the items API.",
            )
        if row.extent_begin is None:
            row.extent_begin, row.extent_end = extent
            row.new_extent, row.source = True, where
    if record.text and not row.text_length:
        row.new_text, row.text_length, row.source = record.text, len(record.text), where
    return None


def _apply_documents(
    documents: Sequence[DocumentRecord],
    *,
    items: dict[str, _ItemRow],
    create: bool,
    problems: _Problems,
) -> None:
    """Check the document records and note the texts and extents they give the items
    (``items`` gains an entry, without id, for each new document)."""
    texts = _stored_texts(documents, items)
    first: dict[str, DocumentRecord] = {}
    for index, record in enumerate(documents):
        where = record.where or f"documents.{index}"
        key = _check_key(
            record.document,
            known=items,
            create=create,
            name="item",
            field_name="document",
            problems=problems,
            group=_DOCUMENTS,
            index=index,
            where=where,
        )
        if key is None:
            continue
        problem = _document_value_problem(record)
        earlier = first.setdefault(key, record)
        if problem is None and earlier is not record:
            if (earlier.text, earlier.begin, earlier.end) != (
                record.text,
                record.begin,
                record.end,
            ):
                problem = (
                    "document",
                    SpanErrorCode.DUPLICATE_DOCUMENT,
                    f"Document {key!r} is described twice, differently.",
                )
        elif problem is None:
            row = items.setdefault(key, _ItemRow(None, 0, None, None))
            stored = texts.get(row.pk) if row.pk is not None else None
            problem = _merge_document(key, record, row, stored_text=stored, where=where)
        if problem is not None:
            problems.add(_DOCUMENTS, index, where, *problem)


@dataclass
class _Columns:
    """The unit records as arrays; ``valid`` marks records with no problem."""

    document: list[str | None]
    coder: list[str | None]
    begin: NDArray[np.float64]
    end: NDArray[np.float64]
    category: NDArray[np.int64]
    empty: NDArray[np.bool_]
    valid: NDArray[np.bool_]


def _check_units(
    units: Sequence[SpanRecord],
    *,
    scheme: LabelScheme,
    items: Mapping[str, _ItemRow],
    coder_ids: Mapping[str, int],
    create: bool,
    problems: _Problems,
) -> _Columns:
    n = len(units)
    wheres = [record.where for record in units]
    documents = [
        _check_key(
            record.document,
            known=items,
            create=create,
            name="item",
            field_name="document",
            problems=problems,
            group=_UNITS,
            index=i,
            where=wheres[i],
        )
        for i, record in enumerate(units)
    ]
    coders = [
        _check_key(
            record.coder,
            known=coder_ids,
            create=create,
            name="coder",
            field_name="coder",
            problems=problems,
            group=_UNITS,
            index=i,
            where=wheres[i],
        )
        for i, record in enumerate(units)
    ]
    valid = np.fromiter(
        (d is not None and c is not None for d, c in zip(documents, coders, strict=True)),
        dtype=bool,
        count=n,
    )
    raw_begin = [record.begin for record in units]
    raw_end = [record.end for record in units]
    raw_label = [record.label for record in units]
    begin_missing = np.fromiter((_blank(v) for v in raw_begin), dtype=bool, count=n)
    end_missing = np.fromiter((_blank(v) for v in raw_end), dtype=bool, count=n)
    label_missing = np.fromiter((_blank(v) for v in raw_label), dtype=bool, count=n)
    empty = begin_missing & end_missing & label_missing
    begin = np.fromiter((_offset(v) for v in raw_begin), dtype=np.float64, count=n)
    end = np.fromiter((_offset(v) for v in raw_end), dtype=np.float64, count=n)
    id_by_code = scheme.id_by_code
    category = np.fromiter(
        (
            id_by_code.get(
                str(v).strip() if isinstance(v, str | int) and not isinstance(v, bool) else "", -1
            )
            if not missing
            else -1
            for v, missing in zip(raw_label, label_missing, strict=True)
        ),
        dtype=np.int64,
        count=n,
    )
    present = ~empty

    def report(mask: NDArray[np.bool_], name: str, code: str, message: Any) -> None:
        nonlocal valid
        for i in np.flatnonzero(mask).tolist():
            problems.add(_UNITS, i, wheres[i], name, code, message(i))
        valid = valid & ~mask

    for name, missing, values, raw in (
        ("begin", begin_missing, begin, raw_begin),
        ("end", end_missing, end, raw_end),
    ):
        report(
            present & missing,
            name,
            SpanErrorCode.REQUIRED,
            lambda i, name=name: (
                f"The {name} is required (leave begin, end and label all "
                "empty to say the coder found nothing)."
            ),
        )
        not_finite = present & ~missing & ~np.isfinite(values)
        report(
            not_finite,
            name,
            SpanErrorCode.NOT_A_NUMBER,
            lambda i, name=name, raw=raw: f"The {name} {raw[i]!r} is not a finite number.",
        )
        if scheme.integer_offsets:
            fractional = present & ~missing & np.isfinite(values)
            fractional[fractional] = values[fractional] != np.floor(values[fractional])
            report(
                fractional,
                name,
                SpanErrorCode.NOT_AN_INTEGER,
                lambda i, name=name, values=values: (
                    f"The {name} {values[i]:g} is not an "
                    f"integer: this question counts {scheme.span_unit}s."
                ),
            )
    report(
        present & label_missing,
        "label",
        SpanErrorCode.REQUIRED,
        lambda i: (
            "The label is required (leave begin, end and label all empty to say the "
            "coder found nothing)."
        ),
    )
    report(
        present & ~label_missing & (category < 0),
        "label",
        SpanErrorCode.UNKNOWN_CATEGORY,
        lambda i: not_a_category(raw_label[i], id_by_code),
    )
    finite = present & np.isfinite(begin) & np.isfinite(end)
    report(
        finite & (end < begin),
        "end",
        SpanErrorCode.END_BEFORE_BEGIN,
        lambda i: f"The end {end[i]:g} is before the begin {begin[i]:g}.",
    )
    low, high = _extent_columns(documents, items)
    outside = finite & (end >= begin) & ((begin < low) | (end > high))
    report(
        outside,
        "begin",
        SpanErrorCode.OUTSIDE_EXTENT,
        lambda i: (
            f"The unit [{begin[i]:g}, {end[i]:g}) lies outside its document's extent "
            f"[{low[i]:g}, {high[i]:g})."
        ),
    )
    return _Columns(documents, coders, begin, end, category, empty, valid)


def _extent_columns(
    documents: Sequence[str | None], items: Mapping[str, _ItemRow]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Each record's document extent (-inf, inf where unknown)."""
    keys = list(items)
    low = np.full(len(keys) + 1, -np.inf)
    high = np.full(len(keys) + 1, np.inf)
    for position, key in enumerate(keys):
        extent = items[key].extent
        if extent is not None:
            low[position], high[position] = extent
    at = {key: position for position, key in enumerate(keys)}
    index = np.fromiter(
        (at.get(key, -1) if key is not None else -1 for key in documents),
        dtype=np.intp,
        count=len(documents),
    )
    return low[index], high[index]


# Writing -----------------------------------------------------------------------------------


def _check_target(round_: Round, question: Question) -> None:
    if not question.label_kind.units:
        raise ValidationError(
            {
                "question": [
                    ValidationError(
                        f"Question {question.key!r} is a {question.kind} question, not a span "
                        "question: upload its labels to annotations/bulk/.",
                        code=SpanErrorCode.NOT_A_SPAN_QUESTION,
                    )
                ]
            }
        )
    if question.study_id != round_.study_id:
        raise ValidationError(
            {
                "question": [
                    ValidationError(
                        "The question belongs to another study than the round.",
                        code=SpanErrorCode.WRONG_STUDY,
                    )
                ]
            }
        )


def _check_stored_units_fit(
    items: Mapping[str, _ItemRow],
    *,
    round_: Round,
    question: Question,
    replaced: set[tuple[int, int]],
    problems: _Problems,
) -> None:
    """Existing items given an extent (or a text standing for one) must still hold the span
    units stored on them, except those this upload replaces."""
    changed = {
        row.pk: (key, row)
        for key, row in items.items()
        if row.pk is not None and (row.new_extent or row.new_text)
    }
    if not changed:
        return
    stored = Annotation.objects.filter(
        item_id__in=list(changed),
        units__isnull=False,
        question__kind__in=kinds_of_form(ValueForm.UNITS),
    )
    for round_id, question_id, item_id, coder_id, units in stored.values_list(
        "round_id", "question_id", "item_id", "coder_id", "units"
    ).iterator():
        if (round_id, question_id) == (round_.pk, question.pk) and (item_id, coder_id) in replaced:
            continue
        key, row = changed[item_id]
        extent = row.extent or (0.0, 0.0)
        outside = units_outside(units or (), extent)
        if outside:
            problems.add(
                _DOCUMENTS,
                0,
                row.source or key,
                "begin" if row.new_extent else "text",
                SpanErrorCode.UNITS_OUTSIDE_EXTENT,
                f"{outside} unit(s) already stored on document {key!r} would lie outside its "
                f"new extent [{extent[0]:g}, {extent[1]:g}).",
            )


def _write_items(items: Mapping[str, _ItemRow], *, study_id: int) -> tuple[int, int]:
    """Create the new items (with their text and extent) and give existing ones theirs;
    (created, updated). Ids of new items are read back into ``items``."""
    now = timezone.now()
    new = {key: row for key, row in items.items() if row.pk is None}
    if new:
        Item.objects.bulk_create(
            [
                Item(
                    study_id=study_id,
                    external_id=key,
                    text=row.new_text,
                    extent_begin=row.extent_begin,
                    extent_end=row.extent_end,
                    created_at=now,
                )
                for key, row in sorted(new.items())
            ],
            # A concurrent upload may create the same item; ids are re-read below.
            ignore_conflicts=True,
            batch_size=_BULK_BATCH,
        )
        ids = _ids_by_key_in(Item, study_id=study_id, field="external_id", keys=set(new))
        for key, row in new.items():
            row.pk = ids[key]
    updated = [
        Item(
            pk=row.pk,
            text=row.new_text or "",
            extent_begin=row.extent_begin,
            extent_end=row.extent_end,
        )
        for key, row in items.items()
        if key not in new and (row.new_text or row.new_extent)
    ]
    with_text = [item for item in updated if item.text]
    with_extent = [item for item in updated if item.extent_begin is not None]
    if with_text:
        Item.objects.bulk_update(with_text, ["text"], batch_size=_BULK_BATCH)
    if with_extent:
        Item.objects.bulk_update(
            with_extent, ["extent_begin", "extent_end"], batch_size=_BULK_BATCH
        )
    return len(new), len(updated)


def _ids_by_key_in(model: Any, *, study_id: int, field: str, keys: set[str]) -> dict[str, int]:
    found: dict[str, int] = {}
    for chunk in _chunks(sorted(keys), _IN_BATCH):
        found.update(
            model._default_manager.filter(study_id=study_id, **{f"{field}__in": chunk}).values_list(
                field, "id"
            )
        )
    return found


@dataclass
class _Pairs:
    """Each (item, coder) pair named, with its sorted units as stored JSON lists."""

    item_ids: NDArray[np.int64]
    coder_ids: NDArray[np.int64]
    units: list[list[list[float]]]
    n_units: int


def _pairs(
    columns: _Columns, *, items: Mapping[str, _ItemRow], coder_ids: Mapping[str, int], integer: bool
) -> _Pairs:
    chosen = np.flatnonzero(columns.valid)
    documents, coders = columns.document, columns.coder
    item_of = np.fromiter(
        (items[documents[i]].pk for i in chosen.tolist()),  # type: ignore[index]
        dtype=np.int64,
        count=len(chosen),
    )
    coder_of = np.fromiter(
        (coder_ids[coders[i]] for i in chosen.tolist()),  # type: ignore[index]
        dtype=np.int64,
        count=len(chosen),
    )
    if not len(chosen):
        empty = np.zeros(0, dtype=np.int64)
        return _Pairs(empty, empty, [], 0)
    unique, inverse = np.unique(np.column_stack((item_of, coder_of)), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    is_unit = ~columns.empty[chosen]
    pair = inverse[is_unit]
    begin = columns.begin[chosen][is_unit]
    end = columns.end[chosen][is_unit]
    category = columns.category[chosen][is_unit]
    order = np.lexsort((category, end, begin, pair))
    pair, begin, end, category = pair[order], begin[order], end[order], category[order]
    offset_type = np.int64 if integer else np.float64
    rows = np.column_stack(
        (
            begin.astype(offset_type).astype(object),
            end.astype(offset_type).astype(object),
            category.astype(object),
        )
    ).tolist()
    offsets = np.concatenate(([0], np.cumsum(np.bincount(pair, minlength=len(unique)))))
    bounds = offsets.tolist()
    return _Pairs(
        item_ids=unique[:, 0],
        coder_ids=unique[:, 1],
        units=[rows[bounds[p] : bounds[p + 1]] for p in range(len(unique))],
        n_units=len(rows),
    )


def _stored_units(
    *, round_: Round, question: Question, item_ids: NDArray[np.int64]
) -> dict[tuple[int, int], Any]:
    annotations = Annotation.objects.filter(round=round_, question=question).order_by()
    unique_items = np.unique(item_ids).tolist()
    rows: list[tuple[int, int, Any]] = []
    if len(unique_items) <= _IN_BATCH:
        rows.extend(
            annotations.filter(item_id__in=unique_items).values_list("item_id", "coder_id", "units")
        )
    else:
        rows.extend(
            annotations.values_list("item_id", "coder_id", "units").iterator(chunk_size=20_000)
        )
    return {(item, coder): units for item, coder, units in rows}


@transaction.atomic
def span_units_replace(
    *,
    round: Round,  # the contract's name
    question: Question,
    units: Sequence[SpanRecord],
    documents: Sequence[DocumentRecord] = (),
    actor: Actor,
    create_missing: bool = True,
) -> SpanUploadResult:
    """Give every (document, coder) pair named in ``units`` exactly the units given there,
    all or none; declare ``documents``' texts and extents.

    Parameters
    ----------
    round, question
        An open round and a span question of the same study (the round's row is locked for
        the upload, as the bulk upload does).
    units
        One :class:`SpanRecord` per unit; a record with ``begin``, ``end`` and ``label`` all
        empty marks its pair annotated with no unit. Pairs not named keep what they have.
    documents
        Texts and extents of documents: set on new items, and on existing items that have
        none (a different text or extent than the stored one is refused).
    create_missing
        Create unknown documents (items) and coders (default); otherwise each is an error.

    Raises
    ------
    SpanUploadError
        (a ``ValidationError``) naming each bad record's ``where``, field and code:
        ``required``, ``not_a_number``, ``not_an_integer`` (character and token questions),
        ``end_before_begin``, ``outside_extent``, ``unknown_category``, ``unknown_item`` /
        ``unknown_coder``, ``max_length``, ``duplicate_document``, ``text_conflict``,
        ``extent_conflict``, ``units_outside_extent``. Nothing is written.
    ValidationError
        On ``question``: not a span question, or of another study.
    ConflictError
        ``round_closed``.
    PayloadTooLargeError
        More than ``MAX_SPAN_RECORDS`` records.
    """
    if len(units) + len(documents) > MAX_SPAN_RECORDS:
        raise PayloadTooLargeError(
            f"A span upload carries at most {MAX_SPAN_RECORDS} records; this one has more. "
            "Split it by documents into several requests."
        )
    _check_target(round, question)
    round_ = Round.objects.select_for_update().get(pk=round.pk)
    _ensure_open(round_)
    scheme = LabelScheme.for_question(question)
    study = round_.study
    document_keys = {key for key in (_key_text(r.document) for r in documents) if key} | {
        key for key in (_key_text(r.document) for r in units) if key
    }
    coder_keys = {key for key in (_key_text(r.coder) for r in units) if key}
    items = _item_rows(study_id=study.pk, keys=document_keys)
    coder_ids = _ids_by_key(Coder, study=study, field="key", keys=coder_keys)
    problems = _Problems()
    _apply_documents(documents, items=items, create=create_missing, problems=problems)
    columns = _check_units(
        units,
        scheme=scheme,
        items=items,
        coder_ids=coder_ids,
        create=create_missing,
        problems=problems,
    )
    problems.raise_if_any()
    for key in columns.document:
        if key is not None and key not in items:
            items[key] = _ItemRow(None, 0, None, None)
    new_coders = {key for key in columns.coder if key is not None and key not in coder_ids}
    replaced: set[tuple[int, int]] = {
        (pk, coder_ids[c])
        for d, c in zip(columns.document, columns.coder, strict=True)
        if d is not None and c in coder_ids and (pk := items[d].pk) is not None
    }
    _check_stored_units_fit(
        items, round_=round_, question=question, replaced=replaced, problems=problems
    )
    problems.raise_if_any()
    items_created, items_updated = _write_items(items, study_id=study.pk)
    coders_created = _create_keys(Coder, study=study, field="key", keys=new_coders, known=coder_ids)
    pairs = _pairs(columns, items=items, coder_ids=coder_ids, integer=scheme.integer_offsets)
    stored = _stored_units(round_=round_, question=question, item_ids=pairs.item_ids)
    now = timezone.now()
    writes: list[Annotation] = []
    changes: list[tuple[int, int, str, str | None, str | None]] = []
    created = replaced_count = unchanged = 0
    text = scheme.units_text
    for item_id, coder_id, new_units in zip(
        pairs.item_ids.tolist(), pairs.coder_ids.tolist(), pairs.units, strict=True
    ):
        old = stored.get((item_id, coder_id))
        if old is None:
            created += 1
            changes.append(
                (item_id, coder_id, AnnotationChange.Action.CREATED, None, text(new_units))
            )
        elif old != new_units:
            replaced_count += 1
            changes.append(
                (item_id, coder_id, AnnotationChange.Action.UPDATED, text(old), text(new_units))
            )
        else:
            unchanged += 1
            continue
        writes.append(
            Annotation(
                round=round_,
                question=question,
                item_id=item_id,
                coder_id=coder_id,
                units=new_units,
                updated_at=now,
            )
        )
    if writes:
        Annotation.objects.bulk_create(
            writes,
            update_conflicts=True,
            unique_fields=["round", "question", "item", "coder"],
            update_fields=["category", "number", "category_set", "units", "updated_at"],
            batch_size=_BULK_BATCH,
        )
        AnnotationChange.objects.bulk_create(
            _change_objects(
                changes, study=study, round_=round_, question=question, actor=actor, now=now
            ),
            batch_size=_BULK_BATCH,
        )
    logger.info(
        "span units uploaded study=%s round=%s question=%s pairs=%s units=%s created=%s "
        "replaced=%s unchanged=%s",
        study.pk,
        round_.pk,
        question.key,
        len(pairs.units),
        pairs.n_units,
        created,
        replaced_count,
        unchanged,
    )
    named_documents = {key for key in columns.document if key is not None} | {
        key for key in (_key_text(r.document) for r in documents) if key
    }
    return SpanUploadResult(
        documents=len(named_documents),
        coders=len({key for key in columns.coder if key is not None}),
        units=pairs.n_units,
        created=created,
        replaced=replaced_count,
        unchanged=unchanged,
        items_created=items_created,
        items_updated=items_updated,
        coders_created=coders_created,
    )


# Records from the API's JSON ------------------------------------------------------------------


def span_records_from_json(units: Sequence[Any], empty: Sequence[Any] = ()) -> list[SpanRecord]:
    """Records of a JSON upload: ``units`` ``[{"document", "coder", "begin", "end",
    "label"}]`` (``where`` = ``units.<i>``) and ``empty`` ``[{"document", "coder"}]``, the
    pairs that found nothing (``empty.<i>``). Values are passed on as they are, for
    :func:`span_units_replace` to check; an entry that is no object is refused here."""
    problems = _Problems()
    records: list[SpanRecord] = []
    for group, (name, entries) in enumerate((("units", units), ("empty", empty))):
        for index, entry in enumerate(entries):
            where = f"{name}.{index}"
            if not isinstance(entry, dict):
                problems.add(
                    group,
                    index,
                    where,
                    "row",
                    SpanErrorCode.INVALID_TYPE,
                    "Each entry is an object with document and coder"
                    + (", begin, end and label." if name == "units" else "."),
                )
                continue
            row: Any = entry  # values pass as they are: the service checks them
            get = row.get
            if name == "units":
                records.append(
                    SpanRecord(
                        get("document"), get("coder"), get("begin"), get("end"), get("label"), where
                    )
                )
            else:
                records.append(SpanRecord(get("document"), get("coder"), None, None, None, where))
    problems.raise_if_any()
    return records


def document_records_from_json(documents: Sequence[Any]) -> list[DocumentRecord]:
    """Records of a JSON upload's ``documents`` ``[{"document", "text"?, "begin"?, "end"?}]``
    (``where`` = ``documents.<i>``)."""
    problems = _Problems()
    records: list[DocumentRecord] = []
    for index, entry in enumerate(documents):
        where = f"documents.{index}"
        if not isinstance(entry, dict):
            problems.add(
                _DOCUMENTS,
                index,
                where,
                "row",
                SpanErrorCode.INVALID_TYPE,
                "Each document is an object with document, and optionally text, begin and end.",
            )
            continue
        row: Any = entry  # values pass as they are: the service checks them
        text = row.get("text")
        records.append(
            DocumentRecord(
                row.get("document"),
                "" if text is None else text,
                row.get("begin"),
                row.get("end"),
                where,
            )
        )
    problems.raise_if_any()
    return records
