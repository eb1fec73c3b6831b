"""Writing an import file's span units onto span questions, all or none.

``exchange.imports`` parses the file and maps each span record's tool field onto a
question (``exchange.mapping.spans_to_questions``); this module checks that every target
is a span question counting what the file's offsets count, matches the units' labels onto
its codes, and writes each question's units through ``annotations.spans.span_units_replace``:
every (document, coder) pair the file names gets exactly the file's units, replacing what
it had; a pair with a nothing-found mark and no unit is stored as annotated with no unit.

Spans used to be imported as items ``<doc>:<begin>-<end>`` of a categorical question. Such
items cannot be told apart from other items reliably and are left as they are; a span
file aimed at a question that is not a span question is refused (create a span question
and import into it), and so is one aimed at a span question that holds such old items.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from django.core.exceptions import ValidationError

from annotations.spans import (
    DocumentRecord,
    SpanRecord,
    SpanUploadError,
    span_units_replace,
)
from exchange.formats import ParsedDocument, ParsedSpan, Rejection
from exchange.formats.base import ImportErrorCode, SpanUnitKind
from exchange.mapping import LabelMatcher
from studies.access import Actor
from studies.models import Annotation, Item, Question, Round

_IN_BATCH = 900
_MAX_PARTIAL_PASSES = 5
_OLD_STYLE_ITEM = r":[0-9]+-[0-9]+$"
_UNKNOWN_LABEL_CODES = frozenset({"unknown_category"})

Pair = tuple[str, str]


@dataclass(frozen=True)
class SpanCoderReport:
    """One coder's part of a span question's import: ``documents`` annotated (with or
    without units), ``units`` and ``empty`` documents (annotated, nothing found)."""

    coder: str
    documents: int
    units: int
    empty: int


@dataclass(frozen=True)
class SpanQuestionReport:
    question: str
    documents: int
    units: int
    empty: int
    coders: list[SpanCoderReport] = field(default_factory=list)


@dataclass
class SpanOutcome:
    """What writing one span question did; ``rejected`` in the file's own terms."""

    question: SpanQuestionReport
    units: int
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    items_created: int = 0
    coders_created: int = 0
    rejected: list[Rejection] = field(default_factory=list)
    written: bool = False


# Refusing targets that cannot take the spans ------------------------------------------------


def _holds_old_style_spans(question: Question) -> bool:
    """Whether the question has labels on items keyed ``<doc>:<begin>-<end>`` (spans
    imported before span questions existed): one indexed EXISTS query."""
    return (
        Annotation.objects.filter(
            question=question,
            units__isnull=True,
            item__external_id__regex=_OLD_STYLE_ITEM,
        )
        .only("pk")
        .exists()
    )


def _fields_text(spans: Iterable[ParsedSpan]) -> str:
    names = sorted({span.field for span in spans if span.field is not None})
    return f" (tool field {', '.join(map(repr, names))})" if names else ""


def span_target_errors(
    *,
    span_groups: Mapping[str, Sequence[ParsedSpan]],
    label_question_keys: Iterable[str],
    questions: Mapping[str, Question],
    file_unit: str,
    format_title: str,
) -> list[ValidationError]:
    """Why the mapped questions cannot take the file's spans (and labels): a span result
    aimed at a question that is not a span question, offsets counting other units than
    the question's, a span question holding old-style span items, single labels aimed at
    a span question. Empty when the import may go on."""
    errors: list[ValidationError] = []
    for key in sorted(span_groups):
        question = questions[key]
        spans = span_groups[key]
        if not question.label_kind.units:
            old = (
                " It holds spans imported the old way (items '<doc>:<begin>-<end>'); those "
                "stay as they are, and re-importing the file into a span question replaces "
                "them for agreement."
                if _holds_old_style_spans(question)
                else ""
            )
            errors.append(
                ValidationError(
                    f"The file's span units{_fields_text(spans)} go to question {key!r}, a "
                    f"{question.kind} question. Spans are imported into a span question only "
                    "(kind span: units begin, end, label per coder and document): create a "
                    "span question with the same labels and import into it (question, or "
                    f"question_map).{old}",
                    code=ImportErrorCode.NOT_A_SPAN_QUESTION,
                )
            )
            continue
        unit = question.span_unit or SpanUnitKind.CHARACTER
        if unit != file_unit:
            errors.append(
                ValidationError(
                    f"{format_title} gives offsets in {file_unit}s; question {key!r} counts "
                    f"{unit}s (span_unit {unit}): import into a span question whose "
                    f"span_unit is {file_unit}.",
                    code=ImportErrorCode.WRONG_SPAN_UNIT,
                )
            )
            continue
        if _holds_old_style_spans(question):
            errors.append(
                ValidationError(
                    f"Question {key!r} holds labels on items '<doc>:<begin>-<end>' (spans "
                    "imported before span questions existed), which its units would be "
                    "compared with; import into a new span question.",
                    code=ImportErrorCode.OLD_STYLE_SPANS,
                )
            )
    for key in sorted(set(label_question_keys)):
        if questions[key].label_kind.units:
            errors.append(
                ValidationError(
                    f"The file's single labels go to question {key!r}, a span question, "
                    "which holds units (begin, end, label) only: map their field to another "
                    "question, or to null in question_map.",
                    code=ImportErrorCode.NOT_A_SPAN_QUESTION,
                )
            )
    return errors


# Labels ---------------------------------------------------------------------------------------


def match_span_labels(
    spans: Sequence[ParsedSpan], matcher: LabelMatcher
) -> tuple[list[ParsedSpan], list[Rejection], int]:
    """The spans with their labels matched onto the question's codes, the rejections, and
    the number of units dropped by ``category_map``. A pair whose units were all dropped
    keeps a nothing-found mark: its coder annotated the document."""
    kept: list[ParsedSpan] = []
    rejected: list[Rejection] = []
    dropped = 0
    pairs_dropped: dict[Pair, ParsedSpan] = {}
    for span in spans:
        if span.is_empty:
            kept.append(span)
            continue
        match = matcher.match(span.label)
        if match.error is not None:
            code, detail = match.error
            rejected.append(
                Rejection(
                    span.source, "label", code, detail, span.field, (span.document, span.coder)
                )
            )
        elif match.dropped:
            dropped += 1
            pairs_dropped.setdefault((span.document, span.coder), span)
        else:
            kept.append(span if match.label == span.label else replace(span, label=match.label))
    remaining = {(span.document, span.coder) for span in kept}
    for pair, span in pairs_dropped.items():
        if pair not in remaining:
            kept.append(ParsedSpan(span.source, span.document, span.coder, field=span.field))
    return kept, rejected, dropped


# Writing --------------------------------------------------------------------------------------


def _records(spans: Sequence[ParsedSpan]) -> list[SpanRecord]:
    """One record per unit; a nothing-found mark only for a pair without units."""
    with_units = {(span.document, span.coder) for span in spans if not span.is_empty}
    records: list[SpanRecord] = []
    marked: set[Pair] = set()
    for span in spans:
        pair = (span.document, span.coder)
        if span.is_empty:
            if pair in with_units or pair in marked:
                continue
            marked.add(pair)
        records.append(
            SpanRecord(
                document=span.document,
                coder=span.coder,
                begin=span.begin,
                end=span.end,
                label=span.label,
                where=span.source,
            )
        )
    return records


def _document_where(key: str) -> str:
    return f"document {key}"


def _documents(
    spans: Sequence[ParsedSpan],
    documents: Mapping[str, ParsedDocument],
    *,
    study_id: int,
    exact_texts: bool,
) -> list[DocumentRecord]:
    """The texts and extents of the documents the spans name. A text the parser rebuilt
    (tokens joined by spaces...) only goes to items without one."""
    keys = sorted({span.document for span in spans})
    with_text: set[str] = set()
    if not exact_texts:
        for start in range(0, len(keys), _IN_BATCH):
            with_text.update(
                Item.objects.filter(
                    study_id=study_id, external_id__in=keys[start : start + _IN_BATCH]
                )
                .exclude(text="")
                .values_list("external_id", flat=True)
            )
    records: list[DocumentRecord] = []
    for key in keys:
        document = documents.get(key)
        if document is None:
            continue
        text = "" if key in with_text else document.text
        if not text and document.begin is None:
            continue
        records.append(
            DocumentRecord(
                document=key,
                text=text,
                begin=document.begin,
                end=document.end,
                where=_document_where(key),
            )
        )
    return records


def _question_report(key: str, spans: Sequence[ParsedSpan]) -> SpanQuestionReport:
    units: dict[str, int] = {}
    pairs: dict[str, set[str]] = {}
    with_units: dict[str, set[str]] = {}
    for span in spans:
        pairs.setdefault(span.coder, set()).add(span.document)
        if not span.is_empty:
            units[span.coder] = units.get(span.coder, 0) + 1
            with_units.setdefault(span.coder, set()).add(span.document)
    coders = [
        SpanCoderReport(
            coder=coder,
            documents=len(documents),
            units=units.get(coder, 0),
            empty=len(documents - with_units.get(coder, set())),
        )
        for coder, documents in sorted(pairs.items())
    ]
    return SpanQuestionReport(
        question=key,
        documents=len({span.document for span in spans}),
        units=sum(coder.units for coder in coders),
        empty=sum(coder.empty for coder in coders),
        coders=coders,
    )


def _problem_rejections(
    error: SpanUploadError, records: Sequence[SpanRecord], hint: Callable[[object], str]
) -> list[tuple[Rejection, set[Pair]]]:
    """The service's problems as rejections, each with the pairs of its records (every
    pair of the document for a document's problem)."""
    pairs_of: dict[str, set[Pair]] = {}
    label_of: dict[str, str | None] = {}
    by_document: dict[str, set[Pair]] = {}
    for record in records:
        pair = (record.document, record.coder)
        pairs_of.setdefault(record.where, set()).add(pair)
        label_of.setdefault(record.where, record.label)
        by_document.setdefault(_document_where(record.document), set()).add(pair)
    out: list[tuple[Rejection, set[Pair]]] = []
    for problem in error.problems:
        detail = problem.message
        if problem.code in _UNKNOWN_LABEL_CODES and (how := hint(label_of.get(problem.where))):
            detail = f"{detail} {how}"
        pairs = pairs_of.get(problem.where) or by_document.get(problem.where, set())
        only = next(iter(pairs)) if len(pairs) == 1 else None
        out.append(
            (Rejection(problem.where, problem.field, problem.code, detail, None, only), pairs)
        )
    return out


def write_span_question(
    *,
    round_: Round,
    question: Question,
    spans: Sequence[ParsedSpan],
    documents: Mapping[str, ParsedDocument],
    exact_texts: bool,
    hint: Callable[[object], str],
    create_missing: bool,
    partial: bool,
    actor: Actor,
) -> SpanOutcome:
    """Write one span question's units (call inside the import's transaction). Without
    ``partial`` the first refusal stops; with it, the refused pairs are left out and the
    rest written."""
    remaining = list(spans)
    outcome = SpanOutcome(
        question=_question_report(question.key, remaining),
        units=sum(1 for span in remaining if not span.is_empty),
    )
    for _ in range(_MAX_PARTIAL_PASSES):
        if not remaining:
            return outcome
        records = _records(remaining)
        try:
            result = span_units_replace(
                round=round_,
                question=question,
                units=records,
                documents=_documents(
                    remaining, documents, study_id=round_.study_id, exact_texts=exact_texts
                ),
                actor=actor,
                create_missing=create_missing,
            )
        except SpanUploadError as error:
            found = _problem_rejections(error, records, hint)
            outcome.rejected.extend(rejection for rejection, _pairs in found)
            bad = set().union(*(pairs for _rejection, pairs in found)) if found else set()
            if not partial or not bad:
                return outcome
            remaining = [span for span in remaining if (span.document, span.coder) not in bad]
            continue
        outcome.question = _question_report(question.key, remaining)
        outcome.created = result.created
        outcome.updated = result.replaced
        outcome.unchanged = result.unchanged
        outcome.items_created = result.items_created
        outcome.coders_created = result.coders_created
        outcome.written = True
        return outcome
    return outcome


def without_pairs(spans: Sequence[ParsedSpan], pairs: set[Pair]) -> list[ParsedSpan]:
    return [span for span in spans if (span.document, span.coder) not in pairs]
