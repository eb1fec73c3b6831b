"""Importing a labeling tool's export file: parse, map onto round and questions, write.

``annotations_import`` parses the file with the format's parser (``exchange.formats``),
maps each row's tool field (Label Studio ``from_name``, an INCEpTION feature, a
``question`` column...) onto one of the study's questions, and hands each question's rows
to the one annotation writer, ``annotations_bulk_upsert``, which validates labels, creates
missing items and coders, logs changes and leaves unchanged labels alone. Span units go
to span questions through ``exchange.span_imports`` (``span_units_replace``): each
(document, coder) pair of the file gets exactly the file's units. A tool's model predictions
(``ParsedFile.model_coders``) go to model coders: with ``create_missing`` those the study
lacks are created with ``kind`` model before the rows are written.

Everything happens in one transaction: any rejected row rolls the whole import back
(nothing is half-written), unless ``partial`` is asked, in which case the valid rows are
written and the rejected ones reported. ``dry_run`` runs the very same code, then rolls
back, so its report says exactly what a real import would do.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from annotations.services import (
    AnnotationErrorCode,
    annotations_bulk_upsert,
    round_resolve,
)
from exchange.formats import (
    FORMATS,
    MalformedFileError,
    ParsedFile,
    ParsedRegion,
    ParsedRow,
    ParsedSpan,
    ParseOptions,
)
from exchange.formats.base import ArchiveTooLargeError, ImportErrorCode, Rejection
from exchange.mapping import (
    CategoryMap,
    CategoryMapOption,
    FieldGroups,
    LabelMatcher,
    SpanGroups,
    coder_map_targets,
    fields_to_questions,
    names_to_coders,
    resolve_coder_map,
    spans_to_questions,
)
from exchange.span_imports import (
    SpanOutcome,
    SpanQuestionReport,
    match_span_labels,
    span_target_errors,
    without_pairs,
    write_span_question,
)
from exchange.structured_imports import (
    RegionOutcome,
    match_region_labels,
    regions_to_questions,
    write_region_question,
)
from studies.access import Actor
from studies.exceptions import ApplicationError
from studies.labels import CategoryRow, LabelErrorCode, LabelScheme
from studies.models import Category, Coder, CoderKind, Item, Question, Round, Study
from studies.services.roster import coders_create_bulk

logger = logging.getLogger(__name__)

MAX_IMPORT_BYTES = 64 * 1024 * 1024
MAX_REPORTED_REJECTIONS = 1_000
_SERVICE_ATTR = re.compile(r"^annotations\.(\d+)(?:\.(\w+))?$")
_MAX_PARTIAL_PASSES = 5
_IN_BATCH = 900  # under SQLite's historical 999 variables per statement
_UNKNOWN_LABEL_CODES = frozenset({LabelErrorCode.UNKNOWN_CATEGORY, LabelErrorCode.UNKNOWN_NODE})
_DROPPED_LABEL = "label dropped by category_map (mapped to null)"
CODER_KEY_MAX_LENGTH = 200  # Coder.key


class ImportFileTooLargeError(ApplicationError):
    status_code = 413
    code = "file_too_large"


@dataclass(frozen=True)
class QuestionReport:
    question: str
    annotations: int
    created: int = 0
    updated: int = 0
    unchanged: int = 0


@dataclass(frozen=True)
class LabelMapping:
    """A file label rewritten for a question: to ``code`` (None: dropped) by ``rule``
    (``category_map`` or ``case_insensitive``), ``count`` times."""

    question: str
    label: str
    code: str | None
    rule: str
    count: int


@dataclass(frozen=True)
class CoderMapping:
    """An annotator name of the file whose ``annotations`` went to the existing ``coder``."""

    name: str
    coder: str
    annotations: int


@dataclass
class ImportReport:
    """What an import read, wrote (or, in a dry run, would write) and rejected."""

    format: str
    round: str
    dry_run: bool
    partial: bool
    committed: bool = False
    rows_read: int = 0
    annotations: int = 0
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    items_created: int = 0
    coders_created: int = 0
    rejected_count: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    skipped: dict[str, int] = field(default_factory=dict)
    # tool field -> its records left out because question_map maps it to null
    ignored_fields: dict[str, int] = field(default_factory=dict)
    label_mappings: list[LabelMapping] = field(default_factory=list)
    coder_mappings: list[CoderMapping] = field(default_factory=list)
    questions: list[QuestionReport] = field(default_factory=list)
    # per span question: documents, units and nothing-found documents, per coder
    spans: list[SpanQuestionReport] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def reject(self, rejection: Rejection) -> None:
        self.rejected_count += 1
        if len(self.rejected) < MAX_REPORTED_REJECTIONS:
            self.rejected.append(rejection)


class _Rollback(Exception):  # noqa: N818  # control flow, not an error
    pass


# Resolving the request ----------------------------------------------------------------


def _request_errors(
    *,
    study: Study,
    format_name: str,
    round_ref: int | str | None,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    category_map: CategoryMap,
    schemes: Mapping[str, LabelScheme],
) -> dict[str, list[ValidationError]]:
    errors: dict[str, list[ValidationError]] = {}
    question_keys = set(schemes)
    if format_name not in FORMATS:
        errors["format"] = [
            ValidationError(
                f"Unknown format {format_name!r}; one of {', '.join(sorted(FORMATS))}.",
                code=ImportErrorCode.UNKNOWN_FORMAT,
            )
        ]
    if round_ref is None or str(round_ref).strip() == "":
        errors["round"] = [ValidationError("A round is required.", code="required")]
    elif round_resolve(study=study, ref=round_ref) is None:
        errors["round"] = [
            ValidationError(
                f"No round {round_ref!r} in this study.", code=AnnotationErrorCode.UNKNOWN_ROUND
            )
        ]
    if question_key and question_key not in question_keys:
        errors["question"] = [
            ValidationError(
                f"No question {question_key!r} in this study.",
                code=AnnotationErrorCode.UNKNOWN_QUESTION,
            )
        ]
    unknown = sorted({key for key in question_map.values() if key and key not in question_keys})
    if unknown:
        errors["question_map"] = [
            ValidationError(
                f"No question(s) {', '.join(map(repr, unknown))} in this study.",
                code=AnnotationErrorCode.UNKNOWN_QUESTION,
            )
        ]
    if category_errors := category_map.errors(schemes):
        errors["category_map"] = category_errors
    return errors


def _label_schemes(study: Study) -> dict[str, LabelScheme]:
    """Every question's ``LabelScheme`` by question key, in two queries. A span
    question's scheme is its units' labels, matched like a nominal question's."""
    questions = list(Question.objects.filter(study=study))
    rows: dict[int, list[CategoryRow]] = {}
    for pk, question_id, code, parent_id, position, undirected in Category.objects.filter(
        question__study=study
    ).values_list("id", "question_id", "code", "parent_id", "position", "undirected"):
        rows.setdefault(question_id, []).append(
            CategoryRow(
                id=pk, code=code, parent_id=parent_id, position=position, undirected=undirected
            )
        )
    return {
        question.key: LabelScheme(
            kind=question.label_kind.file_labels_as or question.kind,
            categories=rows.get(question.pk, []),
            min_value=question.min_value,
            max_value=question.max_value,
        )
        for question in questions
    }


def _coder_keys(
    study: Study, coder_map: Mapping[str, str | int]
) -> tuple[dict[str, str], list[ValidationError]]:
    """``coder_map`` resolved against the study's coders: {name: coder key}, and errors."""
    keys, ids = coder_map_targets(coder_map)
    coders: list[tuple[int, str]] = []
    coders_of_study = Coder.objects.filter(study=study)
    for start in range(0, len(keys), _IN_BATCH):
        chunk = sorted(keys)[start : start + _IN_BATCH]
        coders.extend(coders_of_study.filter(key__in=chunk).values_list("id", "key"))
    for start in range(0, len(ids), _IN_BATCH):
        chunk_ids = sorted(ids)[start : start + _IN_BATCH]
        coders.extend(coders_of_study.filter(pk__in=chunk_ids).values_list("id", "key"))
    return resolve_coder_map(coder_map, coders)


# Writing one question's rows ------------------------------------------------------------


def _service_rejections(
    error: ValidationError, rows: Sequence[ParsedRow], hint: Callable[[object], str]
) -> tuple[list[tuple[int | None, Rejection]], bool]:
    """The service's row errors as (row index, rejection), and whether the list is complete."""
    out: list[tuple[int | None, Rejection]] = []
    complete = True
    for attr, errors in error.error_dict.items():
        match = _SERVICE_ATTR.match(attr)
        for single in errors:
            message = single.message % single.params if single.params else single.message
            code = single.code or "invalid"
            if code == AnnotationErrorCode.TOO_MANY_ERRORS:
                complete = False
            if match is None:
                out.append((None, Rejection("file", attr, code, str(message))))
                continue
            index = int(match.group(1))
            row = rows[index]
            detail = str(message)
            if code in _UNKNOWN_LABEL_CODES and (how := hint(row.label)):
                detail = f"{detail} {how}"
            out.append((index, Rejection(row.source, match.group(2) or "row", code, detail)))
    return out, complete


def _model_coder_keys(study: Study, rows: Sequence[ParsedRow]) -> set[str]:
    """The model coders among the coders of the rows that carry a confidence (one query)."""
    keys = {row.coder for row in rows if row.confidence is not None}
    if not keys:
        return set()
    return set(
        Coder.objects.filter(study=study, kind=CoderKind.MODEL, key__in=keys).values_list(
            "key", flat=True
        )
    )


def _upload_row(row: ParsedRow, models: set[str]) -> dict[str, Any]:
    """A parsed row as the annotation writer takes it, with the model's confidence (a
    prediction imported as a person's label, noted by the import, keeps none)."""
    out = {"item": row.item, "coder": row.coder, "label": row.label}
    if row.confidence is not None and row.coder in models:
        out["confidence"] = row.confidence
    return out


def _write_question(
    *,
    study: Study,
    round_ref: int | str,
    question_key: str,
    rows: list[ParsedRow],
    hint: Callable[[object], str],
    create_missing: bool,
    partial: bool,
    actor: Actor,
    report: ImportReport,
) -> None:
    remaining = list(rows)
    models = _model_coder_keys(study, rows)
    for _ in range(_MAX_PARTIAL_PASSES):
        try:
            result = annotations_bulk_upsert(
                study=study,
                round_ref=round_ref,
                question_key=question_key,
                rows=[_upload_row(r, models) for r in remaining],
                create_missing=create_missing,
                actor=actor,
            )
        except ValidationError as error:
            if not hasattr(error, "error_dict"):
                raise
            rejections, _complete = _service_rejections(error, remaining, hint)
            for _index, rejection in rejections:
                report.reject(rejection)
            bad = {index for index, _ in rejections if index is not None}
            if not partial or not bad:
                report.questions.append(QuestionReport(question_key, len(rows)))
                return
            remaining = [row for index, row in enumerate(remaining) if index not in bad]
            if not remaining:
                report.questions.append(QuestionReport(question_key, len(rows)))
                return
            continue
        report.created += result.created
        report.updated += result.updated
        report.unchanged += result.unchanged
        report.items_created += result.items_created
        report.coders_created += result.coders_created
        report.questions.append(
            QuestionReport(
                question_key, len(rows), result.created, result.updated, result.unchanged
            )
        )
        return
    report.questions.append(QuestionReport(question_key, len(rows)))


# Texts of the items an import creates ----------------------------------------------------


def _missing_items(*, study: Study, keys: set[str]) -> set[str]:
    ordered = sorted(keys)
    existing: set[str] = set()
    for start in range(0, len(ordered), _IN_BATCH):
        existing.update(
            Item.objects.filter(
                study=study, external_id__in=ordered[start : start + _IN_BATCH]
            ).values_list("external_id", flat=True)
        )
    return keys - existing


def _set_new_item_texts(*, study: Study, texts: Mapping[str, str]) -> None:
    """Give the items this import created the text the file carries (task text, span)."""
    ordered = sorted(texts)
    for start in range(0, len(ordered), _IN_BATCH):
        items = list(
            Item.objects.filter(
                study=study, external_id__in=ordered[start : start + _IN_BATCH], text=""
            )
        )
        for item in items:
            item.text = texts[item.external_id]
        Item.objects.bulk_update(items, ["text"])


def _parse(format_name: str, data: bytes, options: ParseOptions) -> ParsedFile:
    try:
        return FORMATS[format_name].parse(data, options)
    except ArchiveTooLargeError as error:
        raise ImportFileTooLargeError(error.message) from None
    except MalformedFileError as error:
        raise ValidationError(
            {"file": [ValidationError(error.message, code=ImportErrorCode.MALFORMED_FILE)]}
        ) from None


@dataclass
class _Mapped:
    """The file mapped onto the study: rows and span units per question key, each
    question's label matcher."""

    groups: dict[str, list[ParsedRow]] = field(default_factory=dict)
    spans: dict[str, list[ParsedSpan]] = field(default_factory=dict)
    regions: dict[str, list[ParsedRegion]] = field(default_factory=dict)
    matchers: dict[str, LabelMatcher] = field(default_factory=dict)


def _map_onto_study(
    parsed: ParsedFile,
    *,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    category_map: CategoryMap,
    case_insensitive_categories: bool,
    coder_keys: Mapping[str, str],
    schemes: Mapping[str, LabelScheme],
    questions: Mapping[str, Question],
    format_title: str,
    partial: bool,
    report: ImportReport,
) -> _Mapped:
    """The rows and spans to write per question key, and each question's label matcher;
    the report gets what the mapping left out or rewrote. Raises ``ValidationError`` on
    ``question`` when spans go to a question that cannot take them."""
    mapped = fields_to_questions(
        parsed,
        question_key=question_key,
        question_map=question_map,
        question_keys=set(schemes),
    )
    span_keys = {key for key, question in questions.items() if question.label_kind.units}
    span_mapped = spans_to_questions(
        parsed,
        question_key=question_key,
        question_map=question_map,
        question_keys=set(schemes),
        span_keys=span_keys,
    )
    if errors := span_target_errors(
        span_groups=span_mapped.spans,
        label_question_keys=mapped.rows,
        questions=questions,
        file_unit=parsed.span_unit,
        format_title=format_title,
    ):
        raise ValidationError({"question": errors})
    region_mapped = regions_to_questions(
        parsed, question_key=question_key, question_map=question_map, questions=questions
    )
    _report_fields(report, mapped, span_mapped, region_mapped.ignored)
    for rejection in region_mapped.rejections:
        report.reject(rejection)
    for reason, count in region_mapped.skipped.items():
        report.skipped[reason] = report.skipped.get(reason, 0) + count
    moved: dict[str, int] = {}
    by_question, moved = names_to_coders(mapped.rows, coder_keys, moved)
    spans_by_question, moved = names_to_coders(span_mapped.spans, coder_keys, moved)
    regions_by_question, moved = names_to_coders(region_mapped.regions, coder_keys, moved)
    report.coder_mappings = [
        CoderMapping(name, coder_keys[name], count) for name, count in sorted(moved.items())
    ]
    out = _Mapped()
    for key in sorted(by_question.keys() | spans_by_question.keys() | regions_by_question.keys()):
        out.matchers[key] = LabelMatcher(
            question_key=key,
            scheme=schemes[key],
            category_map=category_map.for_question(key),
            case_insensitive=case_insensitive_categories,
        )
    for key, rows in by_question.items():
        kept = _match_labels(rows, out.matchers[key], report)
        if kept:
            out.groups[key] = kept
    out.spans = _match_span_labels(
        spans_by_question, out.matchers, parsed=parsed, partial=partial, report=report
    )
    for key, regions in regions_by_question.items():
        kept_regions, rejected, dropped = match_region_labels(regions, out.matchers[key])
        for rejection in rejected:
            report.reject(rejection)
        if dropped:
            report.skipped[_DROPPED_LABEL] = report.skipped.get(_DROPPED_LABEL, 0) + dropped
        if kept_regions:
            out.regions[key] = kept_regions
    if not out.groups and not out.spans and not out.regions and not report.rejected_count:
        report.reject(
            Rejection("file", "file", ImportErrorCode.NO_ROWS, "The file holds no label to import.")
        )
    return out


def _report_fields(
    report: ImportReport,
    mapped: FieldGroups,
    span_mapped: SpanGroups,
    region_ignored: Mapping[str, int],
) -> None:
    """Report what mapping the tool fields rejected, ignored and skipped."""
    for rejection in (*mapped.rejections, *span_mapped.rejections):
        report.reject(rejection)
    for ignored in (mapped.ignored, span_mapped.ignored, region_ignored):
        for tool_field, count in ignored.items():
            report.ignored_fields[tool_field] = report.ignored_fields.get(tool_field, 0) + count
    for tool_field, count in report.ignored_fields.items():
        report.skipped[f"field {tool_field!r} ignored by question_map"] = count
    for reason, count in span_mapped.skipped.items():
        report.skipped[reason] = report.skipped.get(reason, 0) + count


def _match_span_labels(
    spans_by_question: Mapping[str, list[ParsedSpan]],
    matchers: Mapping[str, LabelMatcher],
    *,
    parsed: ParsedFile,
    partial: bool,
    report: ImportReport,
) -> dict[str, list[ParsedSpan]]:
    """Each span question's units with their labels matched onto its codes. With
    ``partial``, a pair with a rejected record is left out whole: its units would be
    replaced by an incomplete list otherwise."""
    out: dict[str, list[ParsedSpan]] = {}
    bad_pairs = {rejection.pair for rejection in parsed.rejected if rejection.pair is not None}
    for key, spans in spans_by_question.items():
        kept, rejected, dropped = match_span_labels(spans, matchers[key])
        for rejection in rejected:
            report.reject(rejection)
        if dropped:
            report.skipped[_DROPPED_LABEL] = report.skipped.get(_DROPPED_LABEL, 0) + dropped
        report.label_mappings.extend(
            LabelMapping(key, label, code, rule, count)
            for label, code, rule, count in matchers[key].mappings()
        )
        bad_pairs |= {rejection.pair for rejection in rejected if rejection.pair is not None}
        if partial:
            kept = without_pairs(kept, bad_pairs)
        if kept:
            out[key] = kept
    return out


def _match_labels(
    rows: list[ParsedRow], matcher: LabelMatcher, report: ImportReport
) -> list[ParsedRow]:
    """The rows with their labels matched onto the question's codes; dropped rows and
    rejected ones left out (and reported)."""
    kept: list[ParsedRow] = []
    for row in rows:
        match = matcher.match(row.label)
        if match.error is not None:
            code, detail = match.error
            report.reject(Rejection(row.source, "label", code, detail, row.field))
        elif match.dropped:
            report.skipped[_DROPPED_LABEL] = report.skipped.get(_DROPPED_LABEL, 0) + 1
        else:
            kept.append(row if match.label is row.label else replace(row, label=match.label))
    report.label_mappings.extend(
        LabelMapping(matcher.question_key, label, code, rule, count)
        for label, code, rule, count in matcher.mappings()
    )
    return kept


def _write_all(
    *,
    study: Study,
    round_ref: int | str,
    mapped: _Mapped,
    parsed: ParsedFile,
    questions: Mapping[str, Question],
    new_item_texts: Mapping[str, str],
    coder_keys: Mapping[str, str],
    create_missing: bool,
    partial: bool,
    dry_run: bool,
    actor: Actor,
    report: ImportReport,
) -> None:
    """Write every question's rows and units in one transaction, kept only when the
    import commits."""
    try:
        with transaction.atomic():
            _ensure_model_coders(
                study=study,
                parsed=parsed,
                coder_keys=coder_keys,
                create_missing=create_missing,
                report=report,
            )
            for key in sorted(mapped.groups):
                _write_question(
                    study=study,
                    round_ref=round_ref,
                    question_key=key,
                    rows=mapped.groups[key],
                    hint=mapped.matchers[key].hint,
                    create_missing=create_missing,
                    partial=partial,
                    actor=actor,
                    report=report,
                )
            if mapped.spans:
                _write_spans(
                    study=study,
                    round_ref=round_ref,
                    mapped=mapped,
                    parsed=parsed,
                    questions=questions,
                    create_missing=create_missing,
                    partial=partial,
                    actor=actor,
                    report=report,
                )
            if mapped.regions:
                _write_regions(
                    study=study,
                    round_ref=round_ref,
                    mapped=mapped,
                    parsed=parsed,
                    questions=questions,
                    create_missing=create_missing,
                    partial=partial,
                    actor=actor,
                    report=report,
                )
            if new_item_texts:
                _set_new_item_texts(study=study, texts=new_item_texts)
            report.committed = not dry_run and (partial or not report.rejected_count)
            if not report.committed:
                raise _Rollback
    except _Rollback:
        pass
    if not report.committed and not dry_run:
        # Nothing was written: counts of a rolled-back write would mislead.
        report.created = report.updated = report.unchanged = 0
        report.items_created = report.coders_created = 0
        report.questions = [QuestionReport(q.question, q.annotations) for q in report.questions]


def _ensure_model_coders(
    *,
    study: Study,
    parsed: ParsedFile,
    coder_keys: Mapping[str, str],
    create_missing: bool,
    report: ImportReport,
) -> None:
    """Keep a tool's model predictions apart: with ``create_missing``, each model the study
    has no coder for gets a model coder (its name and version from the file); a model whose
    name is a person's coder is noted (its labels go to that person)."""
    if not parsed.model_coders:
        return
    keys = {name: coder_keys.get(name, name) for name in parsed.model_coders}
    existing = {
        coder.key: coder
        for coder in Coder.objects.filter(study=study, key__in=sorted(set(keys.values())))
    }
    new = []
    for name, key in sorted(keys.items()):
        coder = existing.get(key)
        if coder is None:
            if create_missing and len(key) <= CODER_KEY_MAX_LENGTH:
                spec = parsed.model_coders[name]
                new.append(
                    {
                        "key": key,
                        "kind": CoderKind.MODEL,
                        "model_name": spec.model_name,
                        "model_version": spec.model_version,
                    }
                )
        elif not coder.is_model:
            report.notes.append(
                f"Coder {key!r} is a person, but the file's labels of {name!r} are a model's "
                "predictions: they were imported as that coder's. Make it a model coder "
                "(kind model) to test it as one."
            )
    if new:
        coders_create_bulk(study=study, coders=new)
        report.coders_created += len(new)
    report.notes.append(
        "Model predictions kept apart as model coders: "
        + ", ".join(sorted(set(keys.values())))
        + "."
    )


def _add_outcome(
    report: ImportReport, key: str, written: int, outcome: SpanOutcome | RegionOutcome
) -> None:
    """Add what writing one span or region question did (its rejections, counts and
    question line) to the import's report."""
    for rejection in outcome.rejected:
        report.reject(rejection)
    report.created += outcome.created
    report.updated += outcome.updated
    report.unchanged += outcome.unchanged
    report.items_created += outcome.items_created
    report.coders_created += outcome.coders_created
    report.questions.append(
        QuestionReport(key, written, outcome.created, outcome.updated, outcome.unchanged)
    )


def _write_spans(
    *,
    study: Study,
    round_ref: int | str,
    mapped: _Mapped,
    parsed: ParsedFile,
    questions: Mapping[str, Question],
    create_missing: bool,
    partial: bool,
    actor: Actor,
    report: ImportReport,
) -> None:
    round_ = round_resolve(study=study, ref=round_ref)
    assert isinstance(round_, Round)
    for key in sorted(mapped.spans):
        outcome = write_span_question(
            round_=round_,
            question=questions[key],
            spans=mapped.spans[key],
            documents=parsed.documents,
            exact_texts=parsed.exact_texts,
            hint=mapped.matchers[key].hint,
            create_missing=create_missing,
            partial=partial,
            actor=actor,
        )
        _add_outcome(report, key, outcome.units, outcome)
        report.spans.append(outcome.question)


def _write_regions(
    *,
    study: Study,
    round_ref: int | str,
    mapped: _Mapped,
    parsed: ParsedFile,
    questions: Mapping[str, Question],
    create_missing: bool,
    partial: bool,
    actor: Actor,
    report: ImportReport,
) -> None:
    round_ = round_resolve(study=study, ref=round_ref)
    assert isinstance(round_, Round)
    for key in sorted(mapped.regions):
        outcome = write_region_question(
            round_=round_,
            question=questions[key],
            regions=mapped.regions[key],
            images=parsed.images,
            create_missing=create_missing,
            partial=partial,
            actor=actor,
        )
        _add_outcome(report, key, outcome.regions, outcome)


# The service ---------------------------------------------------------------------------


def annotations_import(
    *,
    study: Study,
    format_name: str,
    data: bytes,
    round_ref: int | str | None,
    question_key: str | None = None,
    question_map: Mapping[str, str | None] | None = None,
    category_map: CategoryMapOption | None = None,
    case_insensitive_categories: bool = False,
    coder_map: Mapping[str, str | int] | None = None,
    create_missing: bool = False,
    dry_run: bool = False,
    partial: bool = False,
    coder: str | None = None,
    filename: str | None = None,
    document_key: str = "id",
    layer: str | None = None,
    predictions: bool = True,
    actor: Actor,
) -> ImportReport:
    """Import one export file into a round, all or nothing; return the report.

    Raises ``ValidationError`` for a bad request (unknown format, round or question, a file
    that names no question and none given) and for a file that cannot be read at all
    (``malformed_file``: not UTF-8, truncated JSON, missing header), ``ConflictError`` for a
    closed round, ``ImportFileTooLargeError`` above ``MAX_IMPORT_BYTES``. Rejected rows do
    not raise: the report lists them with ``committed = False`` and nothing is written
    (with ``partial``, the other rows are written). ``predictions=False`` skips a tool's model
    predictions instead of importing them as model coders' labels.
    """
    if len(data) > MAX_IMPORT_BYTES:
        raise ImportFileTooLargeError(
            f"An import file has at most {MAX_IMPORT_BYTES // (1024 * 1024)} MB; split it."
        )
    options = ParseOptions(
        coder=coder,
        filename=filename,
        document_key=(document_key or "id").strip() or "id",
        layer=(layer or "").strip() or None,
        predictions=predictions,
    )
    return _import(
        study=study,
        format_name=format_name,
        parse=lambda: _parse(format_name, data, options),
        round_ref=round_ref,
        question_key=question_key,
        question_map=question_map,
        category_map=category_map,
        case_insensitive_categories=case_insensitive_categories,
        coder_map=coder_map,
        create_missing=create_missing,
        dry_run=dry_run,
        partial=partial,
        actor=actor,
    )


def annotations_import_parsed(
    *,
    study: Study,
    format_name: str,
    parsed: ParsedFile,
    round_ref: int | str | None,
    question_map: Mapping[str, str | None] | None = None,
    category_map: CategoryMapOption | None = None,
    case_insensitive_categories: bool = False,
    coder_map: Mapping[str, str | int] | None = None,
    create_missing: bool = False,
    partial: bool = False,
    actor: Actor,
) -> ImportReport:
    """The import of records a format's parser already read (a labeling tool's tasks read
    through its API: ``connections``), mapped and written exactly as a file's."""
    return _import(
        study=study,
        format_name=format_name,
        parse=lambda: parsed,
        round_ref=round_ref,
        question_key=None,
        question_map=question_map,
        category_map=category_map,
        case_insensitive_categories=case_insensitive_categories,
        coder_map=coder_map,
        create_missing=create_missing,
        dry_run=False,
        partial=partial,
        actor=actor,
    )


def _import(
    *,
    study: Study,
    format_name: str,
    parse: Callable[[], ParsedFile],
    round_ref: int | str | None,
    question_key: str | None,
    question_map: Mapping[str, str | None] | None,
    category_map: CategoryMapOption | None,
    case_insensitive_categories: bool,
    coder_map: Mapping[str, str | int] | None,
    create_missing: bool,
    dry_run: bool,
    partial: bool,
    actor: Actor,
) -> ImportReport:
    question_map = dict(question_map or {})
    categories = CategoryMap.from_option(category_map)
    schemes = _label_schemes(study)
    errors = _request_errors(
        study=study,
        format_name=format_name,
        round_ref=round_ref,
        question_key=question_key,
        question_map=question_map,
        category_map=categories,
        schemes=schemes,
    )
    coder_keys, coder_errors = _coder_keys(study, coder_map or {})
    if coder_errors:
        errors["coder_map"] = coder_errors
    if errors:
        raise ValidationError(errors)
    assert round_ref is not None
    parsed = parse()
    report = ImportReport(
        format=format_name,
        round=str(round_ref),
        dry_run=dry_run,
        partial=partial,
        rows_read=parsed.records,
        annotations=len(parsed.rows)
        + sum(1 for span in parsed.spans if not span.is_empty)
        + sum(1 for region in parsed.regions if not region.is_empty),
        skipped=dict(parsed.skipped),
        notes=list(parsed.notes),
    )
    questions = {question.key: question for question in Question.objects.filter(study=study)}
    mapped = _map_onto_study(
        parsed,
        question_key=question_key,
        question_map=question_map,
        category_map=categories,
        case_insensitive_categories=case_insensitive_categories,
        coder_keys=coder_keys,
        schemes=schemes,
        questions=questions,
        format_title=FORMATS[format_name].title,
        partial=partial,
        report=report,
    )
    new_items: set[str] = set()
    if create_missing and parsed.item_texts:
        new_items = _missing_items(
            study=study,
            keys={row.item for rows in mapped.groups.values() for row in rows}
            & parsed.item_texts.keys(),
        )
    _write_all(
        study=study,
        round_ref=round_ref,
        mapped=mapped,
        parsed=parsed,
        questions=questions,
        new_item_texts={key: parsed.item_texts[key] for key in new_items},
        coder_keys=coder_keys,
        create_missing=create_missing,
        partial=partial,
        dry_run=dry_run,
        actor=actor,
        report=report,
    )
    logger.info(
        "import study=%s format=%s round=%s dry_run=%s committed=%s read=%s created=%s "
        "updated=%s unchanged=%s rejected=%s",
        study.pk,
        format_name,
        round_ref,
        dry_run,
        report.committed,
        report.rows_read,
        report.created,
        report.updated,
        report.unchanged,
        report.rejected_count,
    )
    return report
