"""Reading annotations and their change history."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from django.db.models import QuerySet

from studies.labels import CategoryRow, Label, LabelScheme, has_categories, label_of
from studies.models import (
    Annotation,
    AnnotationChange,
    Category,
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
) -> QuerySet[AnnotationChange]:
    """The study's annotation history, newest first."""
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
    if item:
        changes = changes.filter(item__external_id=item)
    if coder:
        changes = changes.filter(coder__key=coder)
    if action:
        changes = changes.filter(action=action)
    if since is not None:
        changes = changes.filter(changed_at__gte=since)
    return changes.order_by("-changed_at", "-id")
