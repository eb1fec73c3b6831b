"""Crowd-scale CSV ingest: millions of ``item,coder,label`` rows streamed in batches.

``annotations_ingest_csv`` reads a CSV (``studies.text_rules.read_csv``) lazily, checks each
row as the bulk upload does (the item and coder keys, the label through the question's
``LabelScheme``, which reads numbers with ``studies.text_rules.parse_number``), and writes
the good rows in batches, reporting progress after each. Every error names the CSV's
1-based line (the header is line 1) and the field: ``line 7.label``.

- **Atomic** (the default): one transaction; any bad row and nothing is written (a
  ``ValidationError`` lists the first ``MAX_REPORTED_ERRORS`` errors, by line and field).
- **Partial** (``partial=True``): the good rows are written and the bad ones left out; the
  returned ``IngestReport`` lists them.

As with the bulk upload, a row whose label is already stored changes nothing, every write
is logged in ``AnnotationChange``, unknown items and coders are errors unless
``create_missing``, an item and coder given twice is an error on the later line, a span
question and a closed round are refused, and the round is locked for the whole ingest.

On PostgreSQL the rows are COPYed into a temporary table and written with a few
set-based statements (items and coders created by ``INSERT ... SELECT``, the change log and
the annotations by ``INSERT ... SELECT ... ON CONFLICT``): memory stays flat whatever the
file's size. Elsewhere (SQLite) the rows are gathered and written through the bulk upload's
own planning and ORM writes (``annotations.services``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from annotations import services
from annotations.services import (
    CODER_KEY_MAX_LENGTH,
    ITEM_KEY_MAX_LENGTH,
    MAX_REPORTED_ERRORS,
    AnnotationErrorCode,
)
from studies.access import Actor
from studies.labels import Label, LabelError, LabelScheme, label_of
from studies.models import Annotation, AnnotationChange, Coder, Item, Question, Round, Study
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


def _columns(header: list[str]) -> tuple[int, int, int]:
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
    return item_at, coder_at, label_at


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


def _restored_key(cell: str) -> str:
    return (restore_text(cell) if cell[:1] == "'" else cell).strip()


class _Reader:
    """The good rows of a CSV, in batches; every bad one goes to ``report``."""

    def __init__(self, scheme: LabelScheme, report: IngestReport) -> None:
        self.scheme = scheme
        self.report = report
        self.labels: dict[str, Label | LabelError] = {}

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

    def batches(self, lines: Iterable[str], size: int) -> Iterable[list[_Row]]:
        report = self.report

        def reject(error: CsvReadError) -> None:
            report.rows += 1
            report.reject(IngestError(error.line, "", error.code, error.detail))

        batch: list[_Row] = []
        try:
            header, rows = read_csv(lines, reject=reject)
            item_at, coder_at, label_at = _columns(header)
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
                    report.rows += 1
                    report.reject(IngestError(row.line, "label", found.code, found.message))
                    continue
                batch.append((row.line, item, coder, found))
                if len(batch) >= size:
                    report.rows += len(batch)
                    yield batch
                    batch = []
        except CsvReadError as error:  # not well-formed CSV: nothing after it can be read
            if error.code == LINE_TOO_LONG:  # the rest of the body is unread: refuse it whole
                raise ValidationError(
                    {f"line {error.line}": ValidationError(error.message, code=error.code)}
                ) from None
            report.rows += 1
            report.reject(IngestError(error.line, "", error.code, error.detail))
        except UnicodeDecodeError:
            raise ValidationError({"file": "The CSV must be UTF-8 text."}) from None
        if batch:
            report.rows += len(batch)
            yield batch


# The service ---------------------------------------------------------------------------


def annotations_ingest_csv(
    *,
    study: Study,
    round_ref: int | str | None,
    question_key: str | None,
    lines: Iterable[str],
    actor: Actor,
    create_missing: bool = False,
    partial: bool = False,
    batch_size: int = DEFAULT_BATCH,
    progress: Progress | None = None,
) -> IngestReport:
    """Write the annotations of a CSV (``item,coder,label``; ``lines`` are its lines with
    their line ends, e.g. ``studies.text_rules.text_lines(stream)``), all or none — or,
    with ``partial``, every good row, the bad ones reported.

    ``progress(rows_read)`` is called after each batch. Raises ``ValidationError`` naming
    each bad line and field (atomic mode; nothing written), or the round or question
    (``target_resolve``); ``ConflictError`` (``round_closed``) for a closed round.
    """
    report = IngestReport(partial=partial)
    with transaction.atomic():
        round_, question = services.target_resolve(
            study=study, round_ref=round_ref, question_key=question_key, lock=True
        )
        services.ensure_single_label(question)
        services._ensure_open(round_)
        scheme = LabelScheme.for_question(question)
        reader = _Reader(scheme, report)
        sink: _Sink = (
            _CopySink(study, round_, question, scheme)
            if services._uses_copy()
            else _OrmSink(study, round_, question, scheme)
        )
        sink.open()
        for batch in reader.batches(lines, batch_size):
            if not report.rejected or partial:
                sink.add(batch)
            if progress is not None:
                progress(report.rows)
        if report.rejected and not partial:
            raise _validation_error(report)
        sink.finish(report, create_missing=create_missing, actor=actor, now=timezone.now())
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

    def open(self) -> None:
        pass

    def add(self, batch: list[_Row]) -> None:
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


def _duplicate_error(line: int, item: str, coder: str, first: int) -> IngestError:
    return IngestError(
        line,
        "item",
        AnnotationErrorCode.DUPLICATE_ROW,
        f"Item {item!r} and coder {coder!r} already appear on line {first}.",
    )


class _OrmSink(_Sink):
    """The portable path: rows gathered, then the bulk upload's planning and ORM writes."""

    def open(self) -> None:
        self.rows: list[_Row] = []

    def add(self, batch: list[_Row]) -> None:
        self.rows.extend(batch)

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
        existing = services._existing_labels(
            round_=self.round,
            question=self.question,
            item_ids={item_ids[item] for _, item, _, _ in kept},
        )
        plan = services._plan(
            upload, scheme=self.scheme, item_ids=item_ids, coder_ids=coder_ids, existing=existing
        )
        if plan.writes:
            services._write_orm(
                plan, study=study, round_=self.round, question=self.question, actor=actor, now=now
            )
        report.created, report.updated, report.unchanged = (
            plan.created,
            plan.updated,
            plan.unchanged,
        )


_COPY_ESCAPES = str.maketrans({"\\": "\\\\", "\t": "\\t", "\n": "\\n", "\r": "\\r"})


def _copy_text(value: str) -> str:
    """``value`` as a field of PostgreSQL's COPY text format."""
    return value.translate(_COPY_ESCAPES)


class _CopySink(_Sink):
    """PostgreSQL: COPY into a temporary table, then set-based statements."""

    def open(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "CREATE TEMPORARY TABLE annotation_ingest ("
                " line bigint NOT NULL, item text NOT NULL, coder text NOT NULL,"
                " category_id bigint, number double precision, category_set jsonb,"
                " new_value text NOT NULL) ON COMMIT DROP"
            )
        self.fields: dict[Label, str] = {}

    def _label_fields(self, label: Label) -> str:
        """The label's last four COPY fields (category, number, set, canonical text)."""
        fields = self.fields.get(label)
        if fields is None:
            category_id, number, category_set = label
            values = (
                category_id,
                None if number is None else repr(float(number)),
                None if category_set is None else json.dumps(list(category_set)),
                self.scheme.text(label),
            )
            fields = self.fields[label] = "\t".join(
                "\\N" if value is None else _copy_text(str(value)) for value in values
            )
        return fields

    def add(self, batch: list[_Row]) -> None:
        # COPY's text format written directly: psycopg's per-row ``write_row`` was most of
        # the time the rows took. The keys are escaped a batch at a time (they hold no NUL,
        # which therefore separates them).
        items = _copy_text("\x00".join([row[1] for row in batch])).split("\x00")
        coders = _copy_text("\x00".join([row[2] for row in batch])).split("\x00")
        fields = self.fields
        data = "".join(
            [
                f"{line}\t{item}\t{coder}\t{fields.get(label) or self._label_fields(label)}\n"
                for (line, _, _, label), item, coder in zip(batch, items, coders, strict=True)
            ]
        )
        with connection.cursor() as cursor:
            copy_sql = (
                "COPY annotation_ingest (line, item, coder, category_id, number, category_set,"
                " new_value) FROM STDIN"
            )
            with cursor.cursor.copy(copy_sql) as copy:
                copy.write(data.encode())

    def finish(
        self, report: IngestReport, *, create_missing: bool, actor: Actor, now: datetime
    ) -> None:
        with connection.cursor() as cursor:
            # The statements below join the whole file to the study's items, coders and
            # annotations: hash joins. The planner's statistics predate the rows created in
            # this transaction and would pick nested loops (a minute per 100,000 rows).
            cursor.execute("SET LOCAL enable_nestloop = off")
            # The file's duplicate check and joins hash millions of keys: in memory, not in
            # temporary files (for this transaction only).
            cursor.execute("SET LOCAL work_mem = '256MB'")
            # The rows are written in key order (below), so that each index of the
            # annotations and their log grows at its right edge; a synchronised scan could
            # start reading the ordered table in its middle.
            cursor.execute("SET LOCAL synchronize_seqscans = off")
            try:
                self._finish(cursor, report, create_missing=create_missing, actor=actor, now=now)
            finally:
                cursor.execute("RESET enable_nestloop")
                cursor.execute("RESET work_mem")
                cursor.execute("RESET synchronize_seqscans")

    def _finish(
        self,
        cursor: Any,
        report: IngestReport,
        *,
        create_missing: bool,
        actor: Actor,
        now: datetime,
    ) -> None:
        study_id = self.study.pk
        items, coders = Item._meta.db_table, Coder._meta.db_table
        cursor.execute("ANALYZE annotation_ingest")
        if not create_missing:
            known_item = (
                f"EXISTS (SELECT 1 FROM {items} t WHERE t.study_id = %s AND t.external_id = r.item)"
            )
            known_coder = (
                f"EXISTS (SELECT 1 FROM {coders} t WHERE t.study_id = %s AND t.key = r.coder)"
            )
            unknown = f"(NOT {known_item} OR NOT {known_coder})"
            cursor.execute(
                f"SELECT line, item, coder, {known_item} FROM annotation_ingest r"
                f" WHERE {unknown} ORDER BY line",
                [study_id, study_id, study_id],
            )
            for line, item, coder, item_known in cursor.fetchall():
                name, key = ("coder", coder) if item_known else ("item", item)
                report.reject(_unknown_error(line, name, key))
            if report.partial:
                cursor.execute(
                    f"DELETE FROM annotation_ingest r WHERE {unknown}", [study_id, study_id]
                )
        if create_missing:
            # In key order, so the items' unique index grows at its right edge.
            cursor.execute(
                f"INSERT INTO {items} (study_id, external_id, text, metadata, created_at)"
                " SELECT %s, item, '', '{}'::jsonb, %s FROM"
                "  (SELECT DISTINCT item FROM annotation_ingest) r ORDER BY item"
                " ON CONFLICT (study_id, external_id) DO NOTHING",
                [study_id, now],
            )
            report.items_created = max(cursor.rowcount, 0)
            cursor.execute(
                f"INSERT INTO {coders} (study_id, key, name, is_active, created_at)"
                " SELECT DISTINCT %s, coder, '', true, %s FROM annotation_ingest"
                " ON CONFLICT (study_id, key) DO NOTHING",
                [study_id, now],
            )
            report.coders_created = max(cursor.rowcount, 0)
        # Sorted once here: the annotations and their log are written in this order.
        cursor.execute(
            "CREATE TEMPORARY TABLE annotation_ingest_ids ON COMMIT DROP AS"
            " SELECT r.line, i.id AS item_id, c.id AS coder_id, r.category_id, r.number,"
            " r.category_set, r.new_value"
            f" FROM annotation_ingest r JOIN {items} i"
            "  ON i.study_id = %s AND i.external_id = r.item"
            f" JOIN {coders} c ON c.study_id = %s AND c.key = r.coder"
            " ORDER BY i.id, c.id, r.line",
            [study_id, study_id],
        )
        kept = cursor.rowcount
        cursor.execute("DROP TABLE annotation_ingest")
        # A fresh scope (the usual crowd import): every row is created, plain INSERTs.
        fresh = not Annotation.objects.filter(
            round_id=self.round.pk, question_id=self.question.pk
        ).exists()
        if fresh and not report.rejected:
            # The annotations' unique index finds an item and coder given twice while the
            # rows are written; the check, a pass over every row, runs only if it does.
            try:
                with transaction.atomic():
                    self._write(cursor, report, kept=kept, actor=actor, now=now, fresh=True)
                return
            except IntegrityError as error:
                if getattr(error.__cause__, "sqlstate", None) != UNIQUE_VIOLATION:
                    raise
        kept -= self._reject_duplicates(cursor, report)
        if report.rejected and not report.partial:
            return
        self._write(cursor, report, kept=kept, actor=actor, now=now, fresh=fresh)

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
        table, changes = Annotation._meta.db_table, AnnotationChange._meta.db_table
        round_id, question_id, study_id = self.round.pk, self.question.pk, self.study.pk
        user_id = actor.audit_user.pk if actor.audit_user is not None else None
        token_id = actor.token.pk if actor.token is not None else None
        same_row = (
            "a.round_id = %s AND a.question_id = %s AND a.item_id = x.item_id"
            " AND a.coder_id = x.coder_id"
        )
        # Updates first (the annotations still hold the old values): their old text is
        # the scheme's, written in Python for the rows that change.
        updated: list[Any] = []
        if not fresh:
            cursor.execute(
                "SELECT x.item_id, x.coder_id, a.category_id, a.number, a.category_set,"
                f" x.new_value FROM annotation_ingest_ids x JOIN {table} a ON {same_row}"
                " WHERE (a.category_id, a.number, a.category_set)"
                "  IS DISTINCT FROM (x.category_id, x.number, x.category_set)",
                [round_id, question_id],
            )
            updated = cursor.fetchall()
        text = self.scheme.text
        if updated:
            with cursor.cursor.copy(
                f"COPY {changes} (study_id, round_id, question_id, item_id, coder_id, action,"
                " old_value, new_value, changed_at, changed_by_id, token_id) FROM STDIN"
            ) as copy:
                for item_id, coder_id, category_id, number, category_set, new in updated:
                    old = text(label_of(category_id, number, category_set))
                    copy.write_row(
                        (study_id, round_id, question_id, item_id, coder_id,
                         AnnotationChange.Action.UPDATED.value, old, new, now, user_id, token_id)
                    )  # fmt: skip
        missing = "" if fresh else (
            f" WHERE NOT EXISTS (SELECT 1 FROM {table} a WHERE {same_row})"
        )  # fmt: skip
        cursor.execute(
            f"INSERT INTO {changes} (study_id, round_id, question_id, item_id, coder_id, action,"
            " old_value, new_value, changed_at, changed_by_id, token_id)"
            " SELECT %s, %s, %s, x.item_id, x.coder_id, %s, NULL, x.new_value, %s, %s, %s"
            f" FROM annotation_ingest_ids x{missing}",
            [study_id, round_id, question_id, AnnotationChange.Action.CREATED.value, now,
             user_id, token_id, *([] if fresh else [round_id, question_id])],
        )  # fmt: skip
        report.created = max(cursor.rowcount, 0)
        report.updated = len(updated)
        report.unchanged = kept - report.created - report.updated
        conflict = "" if fresh else (
            " ON CONFLICT (round_id, question_id, item_id, coder_id) DO UPDATE SET"
            "  category_id = EXCLUDED.category_id, number = EXCLUDED.number,"
            "  category_set = EXCLUDED.category_set, updated_at = EXCLUDED.updated_at"
            " WHERE (a.category_id, a.number, a.category_set)"
            "  IS DISTINCT FROM (EXCLUDED.category_id, EXCLUDED.number, EXCLUDED.category_set)"
        )  # fmt: skip
        cursor.execute(
            f"INSERT INTO {table} AS a"
            " (round_id, question_id, item_id, coder_id, category_id, number, category_set,"
            "  updated_at)"
            " SELECT %s, %s, item_id, coder_id, category_id, number, category_set, %s"
            f" FROM annotation_ingest_ids{conflict}",
            [round_id, question_id, now],
        )
        cursor.execute("DROP TABLE annotation_ingest_ids")
