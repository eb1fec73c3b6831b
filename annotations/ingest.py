"""Crowd-scale CSV ingest: millions of ``item,coder,label`` rows streamed in batches.

``annotations_ingest_csv`` reads a CSV (``studies.text_rules.read_csv``) lazily, checks each
row as the bulk upload does (the item and coder keys, the label through the question's
``LabelScheme``, which reads numbers with ``studies.text_rules.parse_number``), and writes
the good rows in batches, reporting progress after each. Every error names the CSV's
1-based line (the header is line 1) and the field: ``line 7.label``. An optional
``confidence`` column holds a model coder's confidence in its label, checked as the bulk
upload checks it (``annotations.confidences``) and written to ``ModelConfidence`` with the
labels.

- **Atomic** (the default): one transaction; any bad row and nothing is written (a
  ``ValidationError`` lists the first ``MAX_REPORTED_ERRORS`` errors, by line and field).
- **Partial** (``partial=True``): the good rows are written and the bad ones left out; the
  returned ``IngestReport`` lists them.

As with the bulk upload, a row whose label is already stored changes nothing, every write
is logged in ``AnnotationChange``, unknown items and coders are errors unless
``create_missing``, an item and coder given twice is an error on the later line, a span
question and a closed round are refused, and the round is locked for the whole ingest. An
ingest that creates at least ``AGREEMENT_INGEST_BATCH_LOG_MIN`` annotations logs their
creation as one batch entry, which reads expand (``annotations.history``).

On PostgreSQL a writer thread writes each batch while the next is read: its keys resolved
to ids (items and coders created as they come), its rows COPYed in binary into a temporary
table and, in a fresh scope, straight into the annotations; the end checks duplicates and
writes the rest with a few set-based statements: memory stays flat whatever the file's
size (``_CopySink``; docs/crowd-scale.md). Elsewhere (SQLite) the rows are gathered and
written through the bulk upload's own planning and ORM writes (``annotations.services``).
"""

from __future__ import annotations

import json
import logging
import math
import struct
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import numpy as np
import psycopg
from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Max, Min
from django.utils import timezone

from annotations import confidences as confidences_service
from annotations import history, services
from annotations.services import (
    CODER_KEY_MAX_LENGTH,
    ITEM_KEY_MAX_LENGTH,
    MAX_REPORTED_ERRORS,
    AnnotationErrorCode,
)
from studies.access import Actor
from studies.labels import Label, LabelError, LabelScheme, label_of
from studies.models import (
    Annotation,
    AnnotationChange,
    Coder,
    Item,
    ModelConfidence,
    Question,
    Round,
    Study,
)
from studies.services import scheme as scheme_services
from studies.text_rules import (
    DUPLICATE_COLUMN,
    LINE_TOO_LONG,
    CsvReadError,
    read_csv,
    repeated_column,
    repeated_column_message,
    restore_text,
)

logger = logging.getLogger(__name__)

CSV_COLUMNS = ("item", "coder", "label")
UNIQUE_VIOLATION = "23505"  # PostgreSQL's SQLSTATE
DEFAULT_BATCH = 100_000

Progress = Callable[[int], None]


@dataclass(frozen=True)
class IngestError:
    line: int
    field: str
    code: str
    message: str

    @property
    def attr(self) -> str:
        return f"line {self.line}.{self.field}" if self.field else f"line {self.line}"


@dataclass
class IngestReport:
    """What an ingest did. ``rejected`` rows (partial mode only) were left out; ``errors``
    holds the first ``MAX_REPORTED_ERRORS`` of them, by line."""

    rows: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    items_created: int = 0
    coders_created: int = 0
    rejected: int = 0
    partial: bool = False
    errors: list[IngestError] = field(default_factory=list)
    #: The categories declared by the ingest (``create_categories``), first seen first.
    categories_created: list[str] = field(default_factory=list)

    def reject(self, error: IngestError) -> None:
        self.rejected += 1
        if len(self.errors) < MAX_REPORTED_ERRORS:
            self.errors.append(error)

    def as_dict(self) -> dict[str, Any]:
        return {
            "rows": self.rows,
            "created": self.created,
            "updated": self.updated,
            "unchanged": self.unchanged,
            "items_created": self.items_created,
            "coders_created": self.coders_created,
            "categories_created": self.categories_created,
            "rejected": self.rejected,
            "partial": self.partial,
            "rejections": [
                {"line": e.line, "field": e.field, "code": e.code, "detail": e.message}
                for e in sorted(self.errors, key=lambda e: e.line)
            ],
        }


def _validation_error(report: IngestReport) -> ValidationError:
    errors: dict[str, list[ValidationError]] = {}
    for error in sorted(report.errors, key=lambda e: e.line):
        errors.setdefault(error.attr, []).append(ValidationError(error.message, code=error.code))
    if report.rejected > len(report.errors):
        errors.setdefault("annotations", []).append(
            ValidationError(
                f"{report.rejected} errors in total; only the first {len(report.errors)} are "
                "listed. Nothing was written.",
                code=AnnotationErrorCode.TOO_MANY_ERRORS,
            )
        )
    return ValidationError(errors)


# Reading and checking rows -------------------------------------------------------------


def _columns(header: list[str]) -> tuple[int, int, int, int | None]:
    """Where the item, coder and label are, and the optional confidence (a model coder's)."""
    columns = [name.strip().lower() for name in header]
    if not any(columns):
        raise ValidationError(
            {"line 1": ValidationError("The CSV is empty: a header item,coder,label is expected.")}
        )
    repeated = repeated_column(header, key=str.lower)
    if repeated is not None:
        raise ValidationError(
            {"line 1": ValidationError(repeated_column_message(repeated), code=DUPLICATE_COLUMN)}
        )
    missing = [name for name in CSV_COLUMNS if name not in columns]
    if missing:
        raise ValidationError(
            {
                "line 1": ValidationError(
                    f"The CSV header lacks the column(s) {', '.join(missing)}; "
                    "expected item,coder,label.",
                    code="missing_columns",
                )
            }
        )
    item_at, coder_at, label_at = (columns.index(name) for name in CSV_COLUMNS)
    confidence_at = (
        columns.index(confidences_service.FIELD) if confidences_service.FIELD in columns else None
    )
    return item_at, coder_at, label_at, confidence_at


def _key_error(raw: str, *, name: str, limit: int) -> tuple[str, str] | None:
    """(code, message) when ``raw`` (already stripped) is no valid key."""
    if not raw:
        return AnnotationErrorCode.REQUIRED, f"The {name} is required."
    if "\x00" in raw:
        return AnnotationErrorCode.NULL_CHARACTERS, "NUL characters are not allowed."
    if len(raw) > limit:
        return AnnotationErrorCode.MAX_LENGTH, f"The {name} must have at most {limit} characters."
    return None


#: A good row: (line, item, coder, label). A plain tuple: millions are made per ingest.
_Row = tuple[int, str, str, Label]
#: The confidences of a batch's rows that give one, by line.
_Confidences = dict[int, float]
#: A row held for a declaration: its place in the batch, line, item, coder, raw label and error.
_Held = tuple[int, int, str, str, str, LabelError]


def _restored_key(cell: str) -> str:
    return (restore_text(cell) if cell[:1] == "'" else cell).strip()


#: ``declare(codes)``: declares the codes it can as categories; gives them and the scheme.
Declare = Callable[[list[str]], tuple[list[str], LabelScheme]]


class _Reader:
    """The good rows of a CSV, in batches; every bad one goes to ``report``.

    With ``declare`` (``create_categories``), a row whose label names codes the question
    does not declare is held until its batch is full; the batch's new codes are then
    declared at once and the held labels read again (a code no category may have stays
    unknown: its rows are rejected). Memory stays bounded by the batch and the distinct
    codes; the scheme changes at most once a batch."""

    def __init__(
        self, scheme: LabelScheme, report: IngestReport, declare: Declare | None = None
    ) -> None:
        self.scheme = scheme
        self.report = report
        self.labels: dict[str, Label | LabelError] = {}
        self.declare = declare
        #: Codes a declaration left out (no category may have them): not offered again.
        self.refused: set[str] = set()
        #: The confidences of the batch being read.
        self.confidences: _Confidences = {}

    def label(self, raw: str) -> Label | LabelError:
        found = self.labels.get(raw)
        if found is None:
            try:
                found = self.scheme.parse(restore_text(raw))
            except LabelError as error:
                found = error
            if len(self.labels) < 100_000:  # a crowd file has few distinct labels
                self.labels[raw] = found
        return found

    def _unknown_label(
        self,
        batch: list[_Row | None],
        held: list[_Held],
        row: tuple[int, str, str, str, LabelError],
        confidence: str | None,
    ) -> None:
        """Hold the row when declaring codes could make its label known (its confidence
        checked first: ``confidence`` is its cell, when the file has the column), else
        reject it."""
        line, item, coder, raw, error = row
        if (
            self.declare is not None
            and error.unknown_codes
            and not self.refused.issuperset(error.unknown_codes)
        ):
            if confidence is None or self._confidence(line, confidence):
                held.append((len(batch), line, item, coder, raw, error))
                batch.append(None)
        else:
            self.report.rows += 1
            self.report.reject(IngestError(line, "label", error.code, error.message))

    def _confidence(self, line: int, cell: str) -> bool:
        """Keep the row's confidence (a blank cell: none); False, the row rejected, when it
        is not a number from 0 to 1 (the bulk upload's rule, ``annotations.confidences``)."""
        try:
            value = confidences_service.confidence_value(cell.strip())
        except ValueError as error:
            self.report.rows += 1
            self.report.reject(
                IngestError(
                    line, confidences_service.FIELD, confidences_service.INVALID, str(error)
                )
            )
            return False
        if value is not None:
            self.confidences[line] = value
        return True

    def _settle(self, batch: list[_Row | None], held: list[_Held]) -> list[_Row]:
        """Declare the codes the held rows' labels name, read those labels again and put
        them in their places: the batch in line order, the rows still unknown rejected."""
        assert self.declare is not None
        codes: dict[str, None] = {}
        for *_, error in held:
            codes.update(dict.fromkeys(error.unknown_codes))
        declared, self.scheme = self.declare(list(codes))
        self.refused.update(set(codes) - set(declared))
        for _, _, _, _, raw, _ in held:
            self.labels.pop(raw, None)
        for index, line, item, coder, raw, _ in held:
            found = self.label(raw)
            if isinstance(found, LabelError):
                self.confidences.pop(line, None)
                self.report.rows += 1
                self.report.reject(IngestError(line, "label", found.code, found.message))
            else:
                batch[index] = (line, item, coder, found)
        return [row for row in batch if row is not None]

    def _key_problem(self, line: int, item: str, coder: str) -> bool:
        """Report the row's first bad key; True when there is one."""
        for name, key, limit in (
            ("item", item, ITEM_KEY_MAX_LENGTH),
            ("coder", coder, CODER_KEY_MAX_LENGTH),
        ):
            problem = _key_error(key, name=name, limit=limit)
            if problem is not None:
                self.report.reject(IngestError(line, name, *problem))
                return True
        return False

    def _malformed(self, error: CsvReadError) -> None:
        """A line that is not well-formed CSV ends the reading: its row is rejected, or,
        too long, the whole file (the rest of the body is unread)."""
        if error.code == LINE_TOO_LONG:
            raise ValidationError(
                {f"line {error.line}": ValidationError(error.message, code=error.code)}
            ) from None
        self.report.rows += 1
        self.report.reject(IngestError(error.line, "", error.code, error.detail))

    def batches(self, lines: Iterable[str], size: int) -> Iterable[tuple[list[_Row], _Confidences]]:
        """The good rows, a batch at a time, with the confidences of those that give one."""
        report = self.report

        def reject(error: CsvReadError) -> None:
            report.rows += 1
            report.reject(IngestError(error.line, "", error.code, error.detail))

        batch: list[_Row | None] = []  # None: a held row's place
        held: list[_Held] = []

        def flush() -> Iterable[tuple[list[_Row], _Confidences]]:
            nonlocal batch, held
            out = self._settle(batch, held) if held else cast(list[_Row], batch)
            out_confidences, self.confidences = self.confidences, {}
            batch, held = [], []
            report.rows += len(out)
            if out:  # every row of it may have been held, then rejected
                yield out, out_confidences

        try:
            header, rows = read_csv(lines, reject=reject)
            item_at, coder_at, label_at, confidence_at = _columns(header)
            labels, label = self.labels, self.label
            # The common row (short keys without NUL, a label seen before) is checked inline:
            # this loop runs once per annotation.
            for row in rows:
                cells = row.cells
                item = _restored_key(cells[item_at])
                coder = _restored_key(cells[coder_at])
                if not (
                    item
                    and coder
                    and len(item) <= ITEM_KEY_MAX_LENGTH
                    and len(coder) <= CODER_KEY_MAX_LENGTH
                    and "\x00" not in item
                    and "\x00" not in coder
                ) and self._key_problem(row.line, item, coder):
                    report.rows += 1
                    continue
                raw = cells[label_at]
                found = labels.get(raw) or label(raw)
                if isinstance(found, LabelError):
                    cell = None if confidence_at is None else cells[confidence_at]
                    self._unknown_label(batch, held, (row.line, item, coder, raw, found), cell)
                # After the label, as the bulk upload checks them.
                elif confidence_at is None or self._confidence(row.line, cells[confidence_at]):
                    batch.append((row.line, item, coder, found))
                if len(batch) >= size:
                    yield from flush()
        except CsvReadError as error:  # not well-formed CSV: nothing after it can be read
            self._malformed(error)
        except UnicodeDecodeError:
            raise ValidationError({"file": "The CSV must be UTF-8 text."}) from None
        if batch:
            yield from flush()


# The service ---------------------------------------------------------------------------


def annotations_ingest_csv(
    *,
    study: Study,
    round_ref: int | str | None,
    question_key: str | None,
    lines: Iterable[str],
    actor: Actor,
    create_missing: bool = False,
    create_categories: bool = False,
    partial: bool = False,
    batch_size: int = DEFAULT_BATCH,
    progress: Progress | None = None,
) -> IngestReport:
    """Write the annotations of a CSV (``item,coder,label``; ``lines`` are its lines with
    their line ends, e.g. ``studies.text_rules.text_lines(stream)``), all or none — or,
    with ``partial``, every good row, the bad ones reported.

    With ``create_categories`` (nominal and set questions), the codes the labels name that
    the question does not declare are declared as they come, in the same transaction,
    before the rows naming them are written (``_Reader``: once a batch, first seen first;
    ``report.categories_created`` lists them).

    ``progress(rows_read)`` is called after each batch. Raises ``ValidationError`` naming
    each bad line and field (atomic mode; nothing written), or the round or question
    (``target_resolve``); ``ConflictError`` (``round_closed``) for a closed round.
    """
    report = IngestReport(partial=partial)
    now = timezone.now()
    with transaction.atomic():
        round_, question = services.target_resolve(
            study=study, round_ref=round_ref, question_key=question_key, lock=True
        )
        services.ensure_single_label(question)
        services._ensure_open(round_)
        if create_categories:
            scheme_services.categories_from_labels_check(question)
        scheme = LabelScheme.for_question(question)
        sink: _Sink = (
            _CopySink(study, round_, question, scheme)
            if services._uses_copy()
            else _OrmSink(study, round_, question, scheme)
        )

        def declare(codes: list[str]) -> tuple[list[str], LabelScheme]:
            declared = sink.categories_declare(codes, report)
            report.categories_created.extend(declared)
            return declared, sink.scheme

        reader = _Reader(scheme, report, declare if create_categories else None)
        sink.open(actor=actor, now=now)
        try:
            for batch, confidences in reader.batches(lines, batch_size):
                # A bad row read makes an atomic ingest fail: the rows after it are only
                # read (each error reported), no longer looked up.
                if report.rejected == sink.rejected or partial:
                    sink.add(batch, confidences, report=report, create_missing=create_missing)
                if progress is not None:
                    progress(report.rows)
        except BaseException:
            sink.abandon()  # the transaction rolls back once no batch is being written
            raise
        sink.drain(report)
        if report.rejected > sink.rejected and not partial:
            raise _validation_error(report)
        sink.finish(report, create_missing=create_missing, actor=actor, now=now)
        if report.rejected and not partial:
            raise _validation_error(report)
    logger.info(
        "annotations ingested study=%s round=%s question=%s rows=%s created=%s updated=%s "
        "unchanged=%s rejected=%s",
        study.pk,
        round_.pk,
        question.key,
        report.rows,
        report.created,
        report.updated,
        report.unchanged,
        report.rejected,
    )
    return report


class _Sink:
    def __init__(self, study: Study, round_: Round, question: Question, scheme: LabelScheme):
        self.study, self.round, self.question, self.scheme = study, round_, question, scheme

    #: Rows the sink left out (unknown items or coders), counted in the report too.
    rejected = 0

    def open(self, *, actor: Actor, now: datetime) -> None:
        pass

    def drain(self, report: IngestReport) -> None:
        """Wait for the batches still being written."""

    def abandon(self) -> None:
        """Wait for the batch being written, whatever comes of it (the ingest failed)."""

    def pause(self, report: IngestReport) -> None:
        """Wait for the batch being written (its rejections go to ``report``)."""

    def categories_declare(self, codes: list[str], report: IngestReport) -> list[str]:
        """Declare ``codes`` (those a category may have) once no batch is being written;
        the codes declared. The rows after use the scheme read again."""
        self.pause(report)
        declared = scheme_services.categories_declare(question=self.question, codes=codes)
        if declared:
            self.scheme = LabelScheme.for_question(self.question)
            self.categories_changed()
        return declared

    def categories_changed(self) -> None:
        """The question's categories changed during the ingest."""

    def add(
        self,
        batch: list[_Row],
        confidences: _Confidences,
        *,
        report: IngestReport,
        create_missing: bool,
    ) -> None:
        raise NotImplementedError

    def finish(
        self, report: IngestReport, *, create_missing: bool, actor: Actor, now: datetime
    ) -> None:
        raise NotImplementedError


def _unknown_error(line: int, name: str, key: str) -> IngestError:
    code = AnnotationErrorCode.UNKNOWN_ITEM if name == "item" else AnnotationErrorCode.UNKNOWN_CODER
    return IngestError(
        line, name, code, f"No {name} {key!r} in this study (use create_missing to create it)."
    )


def _not_a_model_error(line: int, coder: str) -> IngestError:
    return IngestError(
        line,
        confidences_service.FIELD,
        confidences_service.NOT_A_MODEL,
        confidences_service.not_a_model_message(coder),
    )


def _duplicate_error(line: int, item: str, coder: str, first: int) -> IngestError:
    return IngestError(
        line,
        "item",
        AnnotationErrorCode.DUPLICATE_ROW,
        f"Item {item!r} and coder {coder!r} already appear on line {first}.",
    )


class _OrmSink(_Sink):
    """The portable path: rows gathered, then the bulk upload's planning and ORM writes."""

    def open(self, *, actor: Actor, now: datetime) -> None:
        self.rows: list[_Row] = []
        self.confidences: _Confidences = {}

    def add(
        self,
        batch: list[_Row],
        confidences: _Confidences,
        *,
        report: IngestReport,
        create_missing: bool,
    ) -> None:
        self.rows.extend(batch)
        self.confidences.update(confidences)

    def finish(
        self, report: IngestReport, *, create_missing: bool, actor: Actor, now: datetime
    ) -> None:
        study = self.study
        item_ids = services._ids_by_key(
            Item, study=study, field="external_id", keys={item for _, item, _, _ in self.rows}
        )
        coder_ids = services._ids_by_key(
            Coder, study=study, field="key", keys={coder for _, _, coder, _ in self.rows}
        )
        kept: list[_Row] = []
        first: dict[tuple[str, str], int] = {}
        new_items: set[str] = set()
        new_coders: set[str] = set()
        confidences = self.confidences
        models = confidences_service.model_coder_ids(study.pk) if confidences else set()
        for row in self.rows:
            line, item, coder, _ = row
            unknown = [
                (name, key)
                for name, key, known in (("item", item, item_ids), ("coder", coder, coder_ids))
                if key not in known
            ]
            if unknown and not create_missing:
                report.reject(_unknown_error(line, *unknown[0]))
                continue
            earlier = first.setdefault((item, coder), line)
            if earlier != line:
                report.reject(_duplicate_error(line, item, coder, earlier))
                continue
            if line in confidences and coder_ids.get(coder) not in models:
                report.reject(_not_a_model_error(line, coder))
                continue
            if item not in item_ids:
                new_items.add(item)
            if coder not in coder_ids:
                new_coders.add(coder)
            kept.append(row)
        if report.rejected and not report.partial:
            return
        report.items_created = services._create_keys(
            Item, study=study, field="external_id", keys=new_items, known=item_ids
        )
        report.coders_created = services._create_keys(
            Coder, study=study, field="key", keys=new_coders, known=coder_ids
        )
        upload = services._ParsedUpload(
            rows=[(item, coder, label) for _, item, coder, label in kept],
            new_items=set(),
            new_coders=set(),
        )
        batches: dict[tuple[int, int], int] = {}
        existing = services._existing_labels(
            round_=self.round,
            question=self.question,
            item_ids={item_ids[item] for _, item, _, _ in kept},
            batches=batches,
        )
        plan = services._plan(
            upload,
            scheme=self.scheme,
            item_ids=item_ids,
            coder_ids=coder_ids,
            existing=existing,
            batches=batches,
        )
        batch = None
        if plan.created >= history.batch_log_min():
            batch = AnnotationChange.objects.create(
                study=study, round=self.round, question=self.question,
                action=AnnotationChange.Action.CREATED, changed_at=now,
                changed_by=actor.audit_user, token=actor.token, batch_size=plan.created,
                categories=history.category_snapshot(self.question),
            )  # fmt: skip
        if plan.writes:
            services._write_orm(
                plan,
                study=study,
                round_=self.round,
                question=self.question,
                actor=actor,
                now=now,
                batch=batch,
            )
        if confidences:
            confidences_service.model_confidences_write(
                round_=self.round,
                question=self.question,
                confidences={
                    (item_ids[item], coder_ids[coder]): confidences[line]
                    for line, item, coder, _ in kept
                    if line in confidences
                },
            )
        if batch is not None:
            span = Annotation.objects.filter(created_in=batch.pk).aggregate(
                first=Min("id"), last=Max("id")
            )
            batch.first_annotation_id, batch.last_annotation_id = span["first"], span["last"]
            batch.save(update_fields=["first_annotation_id", "last_annotation_id"])
        report.created, report.updated, report.unchanged = (
            plan.created,
            plan.updated,
            plan.unchanged,
        )


_BINARY_SIGNATURE = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_BINARY_TRAILER = struct.pack(">h", -1)
_POSTGRES_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
#: Which value column a label fills (the others NULL): how a batch of rows is laid out in
#: COPY's binary format, a fixed width per row, by NumPy.
_VALUE_FIELDS = {"category": ("category", ">i8"), "number": ("number", ">f8")}
#: Item or coder ids kept between batches, at most (then forgotten and looked up again).
_KEY_CACHE_MAX = 500_000
#: Keys travel to PostgreSQL as one text split by ``string_to_array`` (far cheaper than a
#: text[] parameter); a key holding the separator makes its batch send a text[].
_KEY_SEPARATOR = "\x1f"


def _binary_rows(
    layout: str, n: int, columns: list[tuple[str, Any]]
) -> tuple[np.ndarray, np.dtype]:
    """An empty record array laying out ``n`` rows of COPY's binary format: ``columns`` are
    (name, big-endian NumPy type, or None for a NULL)."""
    fields: list[tuple[str, str]] = [("fields", ">i2")]
    for name, kind in columns:
        fields.append((f"l_{name}", ">i4"))
        if kind is not None:
            fields.append((name, kind))
    dtype = np.dtype(fields)
    data = np.zeros(n, dtype=dtype)
    data["fields"] = len(columns)
    for name, kind in columns:
        data[f"l_{name}"] = -1 if kind is None else np.dtype(kind).itemsize
    return data, dtype


def _stored_label(category_id: int | None, number: float | None, category_set: Any) -> Label:
    """The label of columns read by a raw cursor (Django leaves JSON as its text)."""
    if isinstance(category_set, str):
        category_set = json.loads(category_set)
    return label_of(category_id, number, category_set)


def _keys_parameter(keys: list[str]) -> tuple[str, Any]:
    """SQL for a text[] of ``keys`` and its parameter."""
    joined = _KEY_SEPARATOR.join(keys)
    if _KEY_SEPARATOR in "".join(keys):
        return "%s::text[]", keys
    return f"string_to_array(%s, chr({ord(_KEY_SEPARATOR)}))", joined


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_text(value: str) -> str:
    """``value`` as a field of PostgreSQL's COPY text format."""
    return value.translate(_COPY_ESCAPES)


class _Keys:
    """A study's item or coder ids by key, looked up and created a batch at a time."""

    def __init__(self, model: type[Item] | type[Coder], study_id: int) -> None:
        self.table = model._meta.db_table
        self.study_id = study_id
        if model is Item:
            self.field = "external_id"
            self.insert = (
                f"INSERT INTO {self.table} (study_id, external_id, text, metadata, created_at)"
                " SELECT %s, k, '', '{{}}'::jsonb, %s FROM unnest({keys}) AS k ORDER BY k"
            )
        else:
            self.field = "key"
            self.insert = (
                f"INSERT INTO {self.table} (study_id, key, name, is_active, created_at)"
                " SELECT %s, k, '', true, %s FROM unnest({keys}) AS k ORDER BY k"
            )
        self.ids: dict[str, int] = {}
        self.created = 0
        self.copy = (
            f"COPY {self.table} (id, external_id, study_id, text, metadata, created_at) FROM STDIN"
            if model is Item
            else None
        )
        # The study had none when the import began: a key not seen yet is new (inserted
        # without looking it up first), until an insert finds one that is not.
        self.none_before = not model.objects.filter(study_id=study_id).exists()
        self.last: set[str] = set()

    def _copy(self, cursor: Any, keys: list[str], now: datetime) -> list[tuple[str, int]]:
        """Insert new items by COPY (a fifth cheaper than INSERT ... RETURNING for a crowd
        import's million), their ids taken from the sequence first."""
        cursor.execute(
            "SELECT nextval(pg_get_serial_sequence(%s, 'id')) FROM generate_series(1, %s)",
            [self.table, len(keys)],
        )
        ids = [row[0] for row in cursor.fetchall()]
        escaped = _copy_text("\x00".join(keys)).split("\x00")
        tail = f"\t{self.study_id}\t\t{{}}\t{now.isoformat()}\n"
        with cursor.copy(self.copy) as copy:
            copy.write(
                "".join([f"{pk}\t{key}{tail}" for pk, key in zip(ids, escaped, strict=True)])
            )
        return list(zip(keys, ids, strict=True))

    def _select(self, cursor: Any, keys: list[str]) -> None:
        sql, parameter = _keys_parameter(keys)
        cursor.execute(
            f"SELECT {self.field}, id FROM {self.table}"
            f" WHERE study_id = %s AND {self.field} = ANY({sql})",
            [self.study_id, parameter],
        )
        self.ids.update(cursor.fetchall())

    def resolve(self, cursor: Any, keys: set[str], *, create: bool, now: datetime) -> None:
        """Know the id of each of ``keys`` that exists (or, with ``create``, that was
        missing and is created now, in key order). ``cursor`` is psycopg's."""
        if len(self.ids) > _KEY_CACHE_MAX:
            # Forgotten but the last batch's: a file lists an item's rows together, and its
            # rows run over from one batch into the next.
            self.ids = {key: self.ids[key] for key in self.last if key in self.ids}
        self.last = keys
        wanted = sorted(key for key in keys if key not in self.ids)
        if not wanted:
            return
        guess = create and self.none_before
        if not guess:
            self._select(cursor, wanted)
        missing = [key for key in wanted if key not in self.ids]
        if not missing or not create:
            return
        sql, parameter = _keys_parameter(missing)
        insert = self.insert.format(keys=sql) + f" RETURNING {self.field}, id"
        # Plain INSERTs, or COPY with ids taken from the sequence (they were just looked up,
        # or the study had none); one that exists (a concurrent upload's, or one this
        # import made and forgot) makes it go again, skipping those, read below.
        cursor.execute("SAVEPOINT annotation_ingest_keys")
        try:
            if self.copy is not None:
                returned = self._copy(cursor, missing, now)
            else:
                cursor.execute(insert, [self.study_id, now, parameter])
                returned = cursor.fetchall()
        except psycopg.errors.UniqueViolation:
            cursor.execute("ROLLBACK TO SAVEPOINT annotation_ingest_keys")
            cursor.execute(
                insert.replace(" RETURNING", " ON CONFLICT DO NOTHING RETURNING"),
                [self.study_id, now, parameter],
            )
            returned = cursor.fetchall()
        cursor.execute("RELEASE SAVEPOINT annotation_ingest_keys")
        self.created += len(returned)
        self.ids.update(returned)
        if len(returned) < len(missing):
            self._select(cursor, [key for key in missing if key not in self.ids])


def _analyze(cursor: Any) -> None:
    """Fresh statistics after a large import (a sample: 0.2 s for 6M annotations): until
    autovacuum's, the planner would take the round's millions of rows for a few hundred."""
    cursor.execute(f"ANALYZE {Annotation._meta.db_table}")


class _Columns:
    """A batch's rows as the columns both COPYs read: ids, lines, and the value column every
    label fills (``layout`` "category" or "number"; "" for sets, or labels that differ)."""

    def __init__(
        self,
        rows: list[_Row],
        item_ids: list[int],
        coder_ids: list[int],
        confidences: _Confidences,
    ) -> None:
        self.rows, self.item_ids, self.coder_ids = rows, item_ids, coder_ids
        #: Each row's confidence, NaN for none (a fixed width); None when no row gives one.
        self.confidences: list[float] | None = (
            [confidences.get(row[0], math.nan) for row in rows] if confidences else None
        )
        labels = [row[3] for row in rows]
        distinct = set(labels)
        self.layout = ""
        self.values: list[Any] = []
        self.lines: list[int] = []
        for layout, at in (("category", 0), ("number", 1)):
            if all(label[at] is not None for label in distinct):
                self.layout = layout
                self.values = [label[at] for label in labels]
                self.lines = [row[0] for row in rows]
                break


class _CopySink(_Sink):
    """PostgreSQL: batches written by a thread of their own while the next is read.

    Each batch's keys are resolved to ids (items and coders created as they come) and its
    rows COPYed (binary) into a temporary table, which the checks and the writes at the
    end read. In a fresh scope (the round holds no annotation of the question: the usual
    crowd import) each batch is also COPYed straight into the annotations, logged by one
    batch entry; an item and coder given twice makes the unique index refuse a batch, and
    then the rows written so far are taken back and the end writes them from the temporary
    table, after the duplicate check."""

    def open(self, *, actor: Actor, now: datetime) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE TEMPORARY TABLE annotation_ingest_ids ("
                " line bigint NOT NULL, item_id bigint NOT NULL, coder_id bigint NOT NULL,"
                " category_id bigint, number double precision, category_set jsonb,"
                " confidence double precision)"
                " ON COMMIT DROP"
            )
        self.items = _Keys(Item, self.study.pk)
        self.coders = _Keys(Coder, self.study.pk)
        self.kept = 0
        self.now = now
        self.fresh = not Annotation.objects.filter(
            round_id=self.round.pk, question_id=self.question.pk
        ).exists()
        self.direct = self.fresh  # each batch straight into the annotations too
        self.with_confidences = False  # a batch COPYed confidences into the temporary table
        self.wrote_direct = False
        self.entry: AnnotationChange | None = None
        if self.fresh:
            self.entry = AnnotationChange.objects.create(
                study=self.study, round=self.round, question=self.question,
                action=AnnotationChange.Action.CREATED, changed_at=now,
                changed_by=actor.audit_user, token=actor.token, batch_size=0,
                categories=history.category_snapshot(self.question),
            )  # fmt: skip
            self.entry.first_annotation_id = self._next_annotation_id()
        self.stamp = (now - _POSTGRES_EPOCH) // timedelta(microseconds=1)
        # The writer thread uses this transaction's psycopg connection; the reading thread
        # leaves it alone until the batch is written (``_collect``).
        self.raw = connection.connection
        self.writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="ingest-writer")
        self.pending: Future[list[IngestError]] | None = None
        #: The study's model coders, read when the first confidence comes.
        self.model_coders: set[int] | None = None

    def _next_annotation_id(self) -> int:
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence(%s, 'id'))", [Annotation._meta.db_table]
            )
            return int(cursor.fetchone()[0])

    def _collect(self, report: IngestReport) -> None:
        if self.pending is not None:
            pending, self.pending = self.pending, None
            for error in pending.result():
                self.rejected += 1
                report.reject(error)

    def drain(self, report: IngestReport) -> None:
        try:
            self._collect(report)
        finally:
            self.writer.shutdown(wait=True)

    def pause(self, report: IngestReport) -> None:
        self._collect(report)

    def categories_changed(self) -> None:
        # The batch entry reads its values with the categories it keeps: the new ones too.
        if self.entry is not None:
            self.entry.categories = history.category_snapshot(self.question)
            self.entry.save(update_fields=["categories"])

    def abandon(self) -> None:
        if self.pending is not None:
            wait([self.pending])
            self.pending = None
        self.writer.shutdown(wait=True)

    def add(
        self,
        batch: list[_Row],
        confidences: _Confidences,
        *,
        report: IngestReport,
        create_missing: bool,
    ) -> None:
        self._collect(report)
        if report.rejected and not report.partial:
            self.direct = False  # nothing will be written: only checked
        if confidences and self.model_coders is None:  # no batch is being written
            self.model_coders = confidences_service.model_coder_ids(self.study.pk)
        self.pending = self.writer.submit(
            self._write_batch, batch, confidences, create_missing, self.direct
        )

    def _write_batch(
        self, batch: list[_Row], confidences: _Confidences, create_missing: bool, direct: bool
    ) -> list[IngestError]:
        """The writer thread: one batch into the temporary table (and the annotations);
        the rows left out for an unknown item or coder, or a person's confidence (those
        created by ``create_missing`` are people)."""
        errors: list[IngestError] = []
        with self.raw.cursor() as cursor:
            items, coders = self.items, self.coders
            items.resolve(cursor, {row[1] for row in batch}, create=create_missing, now=self.now)
            coders.resolve(cursor, {row[2] for row in batch}, create=create_missing, now=self.now)
            item_ids, coder_ids = items.ids, coders.ids
            rows = batch
            if not create_missing or confidences:
                models = self.model_coders or set()
                rows = []
                for row in batch:
                    line, item, coder, _ = row
                    if item not in item_ids:
                        errors.append(_unknown_error(line, "item", item))
                    elif coder not in coder_ids:
                        errors.append(_unknown_error(line, "coder", coder))
                    elif line in confidences and coder_ids[coder] not in models:
                        errors.append(_not_a_model_error(line, coder))
                    else:
                        rows.append(row)
            if not rows:
                return errors
            columns = _Columns(
                rows,
                [item_ids[row[1]] for row in rows],
                [coder_ids[row[2]] for row in rows],
                confidences,
            )
            if columns.confidences is not None:
                self.with_confidences = True
            self._copy_rows(cursor, columns)
            self.kept += len(rows)
            if direct and self.direct:
                cursor.execute("SAVEPOINT annotation_ingest_direct")
                try:
                    self._copy_annotations(cursor, columns)
                except psycopg.errors.UniqueViolation:
                    # An item and coder given twice: the end checks and writes every row.
                    cursor.execute("ROLLBACK TO SAVEPOINT annotation_ingest_direct")
                    self.direct = False
                cursor.execute("RELEASE SAVEPOINT annotation_ingest_direct")
                self.wrote_direct = True
        return errors

    def _copy_rows(self, cursor: Any, columns: _Columns) -> None:
        """COPY the rows, in binary, into the temporary table (their confidences too, when
        the batch gives any)."""
        confidences = columns.confidences
        sql = (
            "COPY annotation_ingest_ids (line, item_id, coder_id, category_id, number,"
            f" category_set{'' if confidences is None else ', confidence'})"
            " FROM STDIN (FORMAT BINARY)"
        )
        rows, item_ids, coder_ids, layout = (
            columns.rows,
            columns.item_ids,
            columns.coder_ids,
            columns.layout,
        )
        if layout:
            value, kind = _VALUE_FIELDS[layout]
            fields = [("line", ">i8"), ("item", ">i8"), ("coder", ">i8"),
                      ("category", kind if value == "category" else None),
                      ("number", kind if value == "number" else None), ("set", None)]  # fmt: skip
            if confidences is not None:
                fields.append(("confidence", ">f8"))
            data, _ = _binary_rows(layout, len(rows), fields)
            data["line"] = columns.lines
            data["item"], data["coder"] = item_ids, coder_ids
            data[value] = columns.values
            if confidences is not None:
                data["confidence"] = confidences
            with cursor.copy(sql) as copy:
                copy.write(_BINARY_SIGNATURE + data.tobytes() + _BINARY_TRAILER)
            return
        with cursor.copy(sql) as copy:
            types = ["int8", "int8", "int8", "int8", "float8", "jsonb"]
            copy.set_types(types if confidences is None else [*types, "float8"])
            for index, ((line, _, _, label), item_id, coder_id) in enumerate(
                zip(rows, item_ids, coder_ids, strict=True)
            ):
                category_id, number, category_set = label
                row = (line, item_id, coder_id, category_id, number,
                       None if category_set is None else list(category_set))  # fmt: skip
                copy.write_row(row if confidences is None else (*row, confidences[index]))

    def _copy_annotations(self, cursor: Any, columns: _Columns) -> None:
        """COPY the rows, in binary, into the annotations, as the batch entry's."""
        assert self.entry is not None
        sql = (
            f"COPY {Annotation._meta.db_table} (round_id, question_id, item_id, coder_id,"
            " category_id, number, category_set, updated_at, created_in)"
            " FROM STDIN (FORMAT BINARY)"
        )
        rows, item_ids, coder_ids, layout = (
            columns.rows,
            columns.item_ids,
            columns.coder_ids,
            columns.layout,
        )
        round_id, question_id, entry_id = self.round.pk, self.question.pk, self.entry.pk
        if layout:
            value, kind = _VALUE_FIELDS[layout]
            data, _ = _binary_rows(
                layout,
                len(rows),
                [("round", ">i8"), ("question", ">i8"), ("item", ">i8"), ("coder", ">i8"),
                 ("category", kind if value == "category" else None),
                 ("number", kind if value == "number" else None), ("set", None),
                 ("updated", ">i8"), ("created_in", ">i8")],
            )  # fmt: skip
            data["round"], data["question"] = round_id, question_id
            data["item"], data["coder"] = item_ids, coder_ids
            data[value] = columns.values
            data["updated"], data["created_in"] = self.stamp, entry_id
            with cursor.copy(sql) as copy:
                copy.write(_BINARY_SIGNATURE + data.tobytes() + _BINARY_TRAILER)
            return
        with cursor.copy(sql) as copy:
            copy.set_types(
                ["int8", "int8", "int8", "int8", "int8", "float8", "jsonb", "timestamptz", "int8"]
            )
            for (_, _, _, label), item_id, coder_id in zip(rows, item_ids, coder_ids, strict=True):
                category_id, number, category_set = label
                copy.write_row(
                    (round_id, question_id, item_id, coder_id, category_id, number,
                     None if category_set is None else list(category_set), self.now, entry_id)
                )  # fmt: skip

    def finish(
        self, report: IngestReport, *, create_missing: bool, actor: Actor, now: datetime
    ) -> None:
        report.items_created = self.items.created
        report.coders_created = self.coders.created
        with connection.cursor() as cursor:
            # The statements below join the whole file to the round's annotations: hash
            # joins (the planner's statistics predate the rows written in this transaction
            # and would pick nested loops), in memory (for this transaction only).
            cursor.execute("SET LOCAL enable_nestloop = off")
            cursor.execute("SET LOCAL work_mem = '256MB'")
            try:
                self._finish(cursor, report, actor=actor, now=now)
                cursor.execute("DROP TABLE IF EXISTS annotation_ingest_ids")
            finally:
                cursor.execute("RESET enable_nestloop")
                cursor.execute("RESET work_mem")

    def _finish(self, cursor: Any, report: IngestReport, *, actor: Actor, now: datetime) -> None:
        kept = self.kept
        if report.rejected and not report.partial:
            # Unknown keys: the duplicates are reported beside them, nothing is written.
            self._reject_duplicates(cursor, report)
            return
        if self.fresh and self.direct:
            self._finish_direct(cursor, report, kept=kept, actor=actor)
            self._write_confidences(cursor)
            return
        if self.entry is not None:  # a duplicate refused a batch: take back what was written
            if self.wrote_direct:
                cursor.execute(
                    f"DELETE FROM {Annotation._meta.db_table}"
                    " WHERE round_id = %s AND question_id = %s",
                    [self.round.pk, self.question.pk],
                )
            self.entry.delete()
            self.entry = None
        cursor.execute("ANALYZE annotation_ingest_ids")
        kept -= self._reject_duplicates(cursor, report)
        if report.rejected and not report.partial:
            return
        self._write(cursor, report, kept=kept, actor=actor, now=now, fresh=self.fresh)
        self._write_confidences(cursor)

    def _write_confidences(self, cursor: Any) -> None:
        """The kept rows' confidences, from the temporary table, in one upsert (a row
        without one holds NaN, or NULL in a batch that gave none: the filter leaves both
        out, PostgreSQL taking NaN as equal to itself)."""
        if not self.with_confidences:
            return
        cursor.execute(
            f"INSERT INTO {ModelConfidence._meta.db_table}"
            " (round_id, question_id, item_id, coder_id, confidence)"
            " SELECT %s, %s, item_id, coder_id, confidence FROM annotation_ingest_ids"
            " WHERE confidence <> 'NaN'::float8"
            " ON CONFLICT (round_id, question_id, item_id, coder_id)"
            " DO UPDATE SET confidence = EXCLUDED.confidence",
            [self.round.pk, self.question.pk],
        )

    def _finish_direct(self, cursor: Any, report: IngestReport, *, kept: int, actor: Actor) -> None:
        """Every row is in the annotations: the batch entry, or (fewer rows than
        ``AGREEMENT_INGEST_BATCH_LOG_MIN``) an entry each instead."""
        entry = self.entry
        assert entry is not None
        report.created, report.updated, report.unchanged = kept, 0, 0
        if kept >= history.batch_log_min():
            entry.batch_size = kept
            entry.last_annotation_id = self._next_annotation_id()
            entry.save(update_fields=["batch_size", "first_annotation_id", "last_annotation_id"])
            _analyze(cursor)
            return
        entry.delete()
        self.entry = None
        if not kept:
            return
        cursor.execute(
            f"UPDATE {Annotation._meta.db_table} SET created_in = NULL"
            " WHERE round_id = %s AND question_id = %s",
            [self.round.pk, self.question.pk],
        )
        cursor.execute(
            "SELECT item_id, coder_id, category_id, number, category_set FROM annotation_ingest_ids"
        )
        text, action = self.scheme.text, AnnotationChange.Action.CREATED.value
        self._log(
            cursor,
            [(item_id, coder_id, action, None, text(_stored_label(*label)))
             for item_id, coder_id, *label in cursor.fetchall()],
            actor=actor,
            now=self.now,
        )  # fmt: skip

    def _log(self, cursor: Any, log: list[tuple[Any, ...]], *, actor: Actor, now: datetime) -> None:
        """Per-row change-log entries: (item id, coder id, action, old text, new text)."""
        if not log:
            return
        user_id = actor.audit_user.pk if actor.audit_user is not None else None
        token_id = actor.token.pk if actor.token is not None else None
        constant = (self.study.pk, self.round.pk, self.question.pk)
        with cursor.cursor.copy(
            f"COPY {AnnotationChange._meta.db_table} (study_id, round_id, question_id, item_id,"
            " coder_id, action, old_value, new_value, changed_at, changed_by_id, token_id)"
            " FROM STDIN"
        ) as copy:
            for item_id, coder_id, action, old_text, new_text in log:
                copy.write_row(
                    (*constant, item_id, coder_id, action, old_text, new_text, now, user_id,
                     token_id)
                )  # fmt: skip

    def _reject_duplicates(self, cursor: Any, report: IngestReport) -> int:
        """Report every row whose item and coder an earlier row gave, and leave it out;
        how many there were.

        Linear in the rows whatever the copies of one pair: each pair's first line comes
        from one grouping, the later rows from a hash join on the pair to it (one match per
        row), and they leave by a hash join on their line (a row's own, unique in the file).
        Found on the ids (pairs of integers hash faster than the keys' text); only the rows
        the report lists are named by their keys."""
        items, coders = Item._meta.db_table, Coder._meta.db_table
        cursor.execute(
            "CREATE TEMPORARY TABLE annotation_ingest_later ON COMMIT DROP AS"
            " WITH first AS MATERIALIZED ("
            "  SELECT item_id, coder_id, min(line) AS first FROM annotation_ingest_ids"
            "  GROUP BY item_id, coder_id HAVING count(*) > 1)"
            " SELECT x.line, x.item_id, x.coder_id, f.first FROM annotation_ingest_ids x"
            " JOIN first f USING (item_id, coder_id) WHERE x.line > f.first"
        )
        count = cursor.rowcount
        listed = max(MAX_REPORTED_ERRORS - len(report.errors), 0)
        cursor.execute(
            "SELECT d.line, i.external_id, c.key, d.first FROM"
            "  (SELECT * FROM annotation_ingest_later ORDER BY line LIMIT %s) d"
            f" JOIN {items} i ON i.id = d.item_id JOIN {coders} c ON c.id = d.coder_id"
            " ORDER BY d.line",
            [listed],
        )
        for line, item, coder, first in cursor.fetchall():
            report.reject(_duplicate_error(line, item, coder, first))
        report.rejected += count - min(count, listed)  # the rest are counted, not listed
        if count and report.partial:
            cursor.execute(
                "DELETE FROM annotation_ingest_ids x USING annotation_ingest_later d"
                " WHERE x.line = d.line"
            )
        cursor.execute("DROP TABLE annotation_ingest_later")
        return count

    def _write(
        self,
        cursor: Any,
        report: IngestReport,
        *,
        kept: int,
        actor: Actor,
        now: datetime,
        fresh: bool,
    ) -> None:
        table = Annotation._meta.db_table
        round_id, question_id, study_id = self.round.pk, self.question.pk, self.study.pk
        user_id = actor.audit_user.pk if actor.audit_user is not None else None
        token_id = actor.token.pk if actor.token is not None else None
        same_row = (
            "a.round_id = %s AND a.question_id = %s AND a.item_id = x.item_id"
            " AND a.coder_id = x.coder_id"
        )
        text = self.scheme.text
        log: list[tuple[Any, ...]] = []  # per-row entries: (item, coder, action, old, new)
        # Updates first (the annotations still hold the old values); an annotation a batch
        # entry created has its creation logged first (annotations.history).
        updated: list[Any] = []
        if not fresh:
            cursor.execute(
                "SELECT x.item_id, x.coder_id, a.category_id, a.number, a.category_set,"
                " x.category_id, x.number, x.category_set, a.created_in"
                f" FROM annotation_ingest_ids x JOIN {table} a ON {same_row}"
                " WHERE (a.category_id, a.number, a.category_set)"
                "  IS DISTINCT FROM (x.category_id, x.number, x.category_set)",
                [round_id, question_id],
            )
            updated = cursor.fetchall()
        creations = []
        updated_action = AnnotationChange.Action.UPDATED.value
        for item_id, coder_id, *old_new, created_in in updated:
            old, new = _stored_label(*old_new[:3]), _stored_label(*old_new[3:])
            if created_in is not None:
                creations.append(history.Creation(item_id, coder_id, created_in, old))
            log.append((item_id, coder_id, updated_action, text(old), text(new)))
        history.write_creation_entries(creations, self.question)
        missing = "" if fresh else (
            f" WHERE NOT EXISTS (SELECT 1 FROM {table} a WHERE {same_row})"
        )  # fmt: skip
        missing_params = [] if fresh else [round_id, question_id]
        if fresh:
            created = kept
        else:
            cursor.execute(f"SELECT count(*) FROM annotation_ingest_ids x{missing}", missing_params)
            created = cursor.fetchone()[0]
        report.created = created
        report.updated = len(updated)
        report.unchanged = kept - report.created - report.updated
        batch = None
        if created >= history.batch_log_min():
            # One entry for every annotation created (annotations.history); the range of
            # their ids is taken from the sequence around the INSERT (the round is locked:
            # no other upload writes its annotations meanwhile).
            batch = AnnotationChange.objects.create(
                study_id=study_id, round_id=round_id, question_id=question_id,
                action=AnnotationChange.Action.CREATED, changed_at=now, changed_by_id=user_id,
                token_id=token_id, batch_size=created,
                categories=history.category_snapshot(self.question),
            )  # fmt: skip
            batch.first_annotation_id = self._next_annotation_id()
        elif created:
            cursor.execute(
                "SELECT x.item_id, x.coder_id, x.category_id, x.number, x.category_set"
                f" FROM annotation_ingest_ids x{missing}",
                missing_params,
            )
            created_action = AnnotationChange.Action.CREATED.value
            for item_id, coder_id, *new in cursor.fetchall():
                log.append((item_id, coder_id, created_action, None, text(_stored_label(*new))))
        self._log(cursor, log, actor=actor, now=now)
        conflict = "" if fresh else (
            " ON CONFLICT (round_id, question_id, item_id, coder_id) DO UPDATE SET"
            "  category_id = EXCLUDED.category_id, number = EXCLUDED.number,"
            "  category_set = EXCLUDED.category_set, updated_at = EXCLUDED.updated_at,"
            "  created_in = NULL"
            " WHERE (a.category_id, a.number, a.category_set)"
            "  IS DISTINCT FROM (EXCLUDED.category_id, EXCLUDED.number, EXCLUDED.category_set)"
        )  # fmt: skip
        cursor.execute(
            f"INSERT INTO {table} AS a"
            " (round_id, question_id, item_id, coder_id, category_id, number, category_set,"
            "  updated_at, created_in)"
            " SELECT %s, %s, item_id, coder_id, category_id, number, category_set, %s, %s"
            f" FROM annotation_ingest_ids{conflict}",
            [round_id, question_id, now, batch.pk if batch is not None else None],
        )
        if batch is not None:
            batch.last_annotation_id = self._next_annotation_id()
            batch.save(update_fields=["first_annotation_id", "last_annotation_id"])
            _analyze(cursor)
