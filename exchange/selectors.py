"""Reads behind the exports: one round and question's annotations as a table, the
finished computation whose results are exported, and the item table its worker stored."""

from __future__ import annotations

from dataclasses import dataclass

from computations.item_table import ItemTable, unpack
from computations.models import (
    Computation,
    ComputationItemTable,
    ComputationScope,
    ComputationStatus,
)
from studies.exceptions import ConflictError
from studies.labels import Label, LabelScheme, label_of
from studies.models import Annotation, Question, Round, Study

_STREAM_CHUNK = 20_000


@dataclass(frozen=True)
class AnnotationTable:
    """Labels of one round and question: ``labels[(item, coder)]``, items in creation order,
    coders sorted by key."""

    round: Round
    question: Question
    scheme: LabelScheme
    items: list[str]
    coders: list[str]
    labels: dict[tuple[str, str], Label]


def annotation_table(*, round_: Round, question: Question) -> AnnotationTable:
    """The labels in one query (joined keys, no model instances), streamed."""
    scheme = LabelScheme.for_question(question)
    rows = (
        Annotation.objects.filter(round=round_, question=question)
        .order_by("item_id", "coder__key")
        .values_list("item__external_id", "coder__key", "category_id", "number", "category_set")
    )
    items: dict[str, None] = {}
    coders: set[str] = set()
    labels: dict[tuple[str, str], Label] = {}
    for item, coder, category_id, number, category_set in rows.iterator(chunk_size=_STREAM_CHUNK):
        items.setdefault(item, None)
        coders.add(coder)
        labels[(item, coder)] = label_of(category_id, number, category_set)
    return AnnotationTable(
        round=round_,
        question=question,
        scheme=scheme,
        items=list(items),
        coders=sorted(coders),
        labels=labels,
    )


def computation_for_export(
    *, study: Study, round_: Round, question: Question, computation_id: int | None = None
) -> Computation | None:
    """The given finished computation of the study, or the latest finished one-round
    computation of this round and question."""
    finished = Computation.objects.filter(
        study=study, question=question, status=ComputationStatus.DONE
    ).select_related("question")
    if computation_id is not None:
        return finished.filter(pk=computation_id).first()
    return (
        finished.filter(scope=ComputationScope.ROUND, rounds=round_)
        .order_by("-finished_at", "-id")
        .first()
    )


ITEM_TABLE_MISSING = (
    "The latest computation of this round and question predates the stored item table: "
    "request a computation again."
)


@dataclass(frozen=True)
class StoredItemTable:
    computation: Computation
    scheme: LabelScheme
    table: ItemTable


def stored_item_table(*, study: Study, round_: Round, question: Question) -> StoredItemTable | None:
    """The item table the worker stored with the latest finished computation of this round
    and question; None without such a computation. Raises ``ConflictError`` when that
    computation has no table (computed before tables were stored)."""
    computation = computation_for_export(study=study, round_=round_, question=question)
    if computation is None:
        return None
    stored = (
        ComputationItemTable.objects.filter(computation=computation)
        .values_list("table", flat=True)
        .first()
    )
    if stored is None:
        raise ConflictError(ITEM_TABLE_MISSING, code="item_table_missing")
    return StoredItemTable(
        computation=computation,
        scheme=LabelScheme.for_question(question),
        table=unpack(stored),
    )
