"""Reading annotations and their change history."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet

from annotations.history import ChangeHistory
from studies.labels import CategoryRow, Label, LabelScheme, has_categories, label_of
from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
    Item,
    Question,
    Round,
    Study,
)


def annotation_list(
    *,
    study: Study,
    round_: Round | None = None,
    question: Question | None = None,
    item: str | None = None,
    coder: str | None = None,
    updated_since: datetime | None = None,
) -> QuerySet[Annotation]:
    """The study's annotations, filtered; keys come along in the same query."""
    annotations = (
        Annotation.objects.filter(round__study=study)
        # The output names round, question, item and coder: one JOIN each
        # instead of one query per row and relation.
        .select_related("round", "question", "item", "coder")
        # The unique constraint's column order: pages are read off its index, no sort.
        .order_by("round_id", "question_id", "item_id", "coder_id")
    )
    if round_ is not None:
        annotations = annotations.filter(round=round_)
    if question is not None:
        annotations = annotations.filter(question=question)
    if item:
        annotations = annotations.filter(item__external_id=item)
    if coder:
        annotations = annotations.filter(coder__key=coder)
    if updated_since is not None:
        annotations = annotations.filter(updated_at__gte=updated_since)
    return annotations


def annotation_schemes(annotations: Iterable[Annotation]) -> dict[int, LabelScheme]:
    """Label schemes of the questions of these annotations (one query for all categories),
    to show codes, set members, hierarchy paths and span units' labels without a query per
    row."""
    questions: dict[int, Question] = {a.question_id: a.question for a in annotations}
    rows_by_question: dict[int, list[CategoryRow]] = {pk: [] for pk in questions}
    needs_categories = [pk for pk, q in questions.items() if has_categories(q.kind)]
    if needs_categories:
        for pk, question_id, code, parent_id, position in Category.objects.filter(
            question_id__in=needs_categories
        ).values_list("id", "question_id", "code", "parent_id", "position"):
            rows_by_question[question_id].append(
                CategoryRow(id=pk, code=code, parent_id=parent_id, position=position)
            )
    return {
        pk: LabelScheme(
            kind=question.kind,
            categories=rows_by_question[pk],
            min_value=question.min_value,
            max_value=question.max_value,
            span_unit=question.span_unit,
        )
        for pk, question in questions.items()
    }


def annotation_label(annotation: Annotation) -> Label:
    return label_of(annotation.category_id, annotation.number, annotation.category_set)


def annotation_units(annotation: Annotation) -> list[dict[str, Any]] | None:
    """A span annotation's units ``[{"begin", "end", "label"}]`` (codes; ``[]``: nothing
    found), or None for other questions. One query for the labels: for many annotations,
    use ``annotation_schemes`` and ``LabelScheme.units_json``."""
    if annotation.units is None:
        return None
    return LabelScheme.for_question(annotation.question).units_json(annotation.units)


_STREAM_CHUNK = 20_000


@dataclass(frozen=True)
class SpanTable:
    """A span question's annotations of one round: ``rows`` ``(document, coder, units)``
    with units as stored (``[begin, end, category_id]``, ``[]`` = nothing found), items in
    creation order and coders by key; ``extents`` the explicit ``[begin, end)`` of those
    documents that have one. Texts and labels through ``scheme`` (``units_json``,
    ``units_text``)."""

    round: Round
    question: Question
    scheme: LabelScheme
    coders: list[str]
    rows: list[tuple[str, str, list[list[float]]]]
    extents: dict[str, tuple[float, float]]


def span_table(*, round_: Round, question: Question) -> SpanTable:
    """The round's units of a span question, streamed in one query (joined keys, no model
    instances), and the documents' extents in a second."""
    rows = (
        Annotation.objects.filter(round=round_, question=question)
        .order_by("item_id", "coder__key")
        .values_list("item__external_id", "coder__key", "units")
    )
    out: list[tuple[str, str, list[list[float]]]] = []
    coders: set[str] = set()
    for item, coder, units in rows.iterator(chunk_size=_STREAM_CHUNK):
        out.append((item, coder, units or []))
        coders.add(coder)
    extents: dict[str, tuple[float, float]] = {}
    with_extent = Item.objects.filter(
        annotations__round=round_,
        annotations__question=question,
        extent_begin__isnull=False,
        extent_end__isnull=False,
    ).distinct()
    for item, begin, end in with_extent.values_list("external_id", "extent_begin", "extent_end"):
        if begin is not None and end is not None:
            extents[item] = (begin, end)
    return SpanTable(
        round=round_,
        question=question,
        scheme=LabelScheme.for_question(question),
        coders=sorted(coders),
        rows=out,
        extents=extents,
    )


def annotation_get(*, study: Study, pk: int) -> Annotation:
    """One annotation of the study (``Annotation.DoesNotExist`` otherwise)."""
    return annotation_list(study=study).get(pk=pk)


def annotation_change_list(
    *,
    study: Study,
    round_: Round | None = None,
    question: Question | None = None,
    item: str | None = None,
    coder: str | None = None,
    action: str | None = None,
    since: datetime | None = None,
) -> ChangeHistory:
    """The study's annotation history, newest first, an import's batch entry expanded into
    the per-annotation entries it stands for (``annotations.history``)."""
    changes = AnnotationChange.objects.filter(study=study).select_related(
        # The output names the round, question, item, coder, user and token of each row.
        "round",
        "question",
        "item",
        "coder",
        "changed_by",
        "token",
    )
    if round_ is not None:
        changes = changes.filter(round=round_)
    if question is not None:
        changes = changes.filter(question=question)
    if action:
        changes = changes.filter(action=action)
    if since is not None:
        changes = changes.filter(changed_at__gte=since)
    return ChangeHistory(changes, item=item, coder=coder)


@dataclass(frozen=True)
class StructuredTable:
    """A structured question's annotations of one round: ``rows`` ``(item, coder, value)``
    with values as stored (``[]``: annotated, nothing), items in creation order, coders by
    key; ``images`` each item's ``(width, height, url)`` where it declares one."""

    round: Round
    question: Question
    code_by_id: dict[int, str]
    coders: list[str]
    rows: list[tuple[str, str, list[Any]]]
    images: dict[str, tuple[float | None, float | None, str]]


def structured_table(*, round_: Round, question: Question) -> StructuredTable:
    """The round's values of a structured question, streamed in one query."""
    rows = (
        Annotation.objects.filter(round=round_, question=question)
        .order_by("item_id", "coder__key")
        .values_list(
            "item__external_id", "coder__key", "units", "item__image_width",
            "item__image_height", "item__image_url",
        )
    )  # fmt: skip
    out: list[tuple[str, str, list[Any]]] = []
    coders: set[str] = set()
    images: dict[str, tuple[float | None, float | None, str]] = {}
    for item, coder, units, width, height, url in rows.iterator(chunk_size=_STREAM_CHUNK):
        out.append((item, coder, units or []))
        coders.add(coder)
        images[item] = (width, height, url or "")
    return StructuredTable(
        round=round_,
        question=question,
        code_by_id=dict(Category.objects.filter(question=question).values_list("id", "code")),
        coders=sorted(coders),
        rows=out,
        images=images,
    )
