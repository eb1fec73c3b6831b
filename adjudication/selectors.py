"""Gold and adjudication reads: adjudications, round references, stored results, the items
awaiting a decision, and each coder's history against the reference."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count, QuerySet

from adjudication.models import Adjudication, ReferenceResult, RoundReference
from studies.labels import LabelScheme, label_of
from studies.models import Annotation, Coder, Item, Question, Round, Study


def adjudication_list(
    *,
    study: Study,
    round_: Round | None = None,
    question: Question | None = None,
    item: Item | None = None,
    current: bool = True,
    source: str = "",
) -> QuerySet[Adjudication]:
    """The study's adjudications, current ones only unless ``current`` is False (then each
    item's history too, newest first)."""
    rows = Adjudication.objects.filter(round__study=study).select_related(
        "round", "question", "item", "source_coder", "created_by"
    )
    if round_ is not None:
        rows = rows.filter(round=round_)
    if question is not None:
        rows = rows.filter(question=question)
    if item is not None:
        rows = rows.filter(item=item)
    if current:
        rows = rows.filter(superseded_at__isnull=True)
    if source:
        rows = rows.filter(source=source)
    return rows.order_by("round__position", "question__position", "item_id", "-created_at", "-id")


def round_reference_list(*, study: Study) -> QuerySet[RoundReference]:
    return (
        RoundReference.objects.filter(round__study=study)
        .select_related("round", "gold_coder")
        .order_by("round__position", "round_id")
    )


def round_reference_of(round_: Round) -> RoundReference | None:
    return RoundReference.objects.filter(round=round_).select_related("gold_coder").first()


def reference_result_list(
    *, study: Study, round_: Round | None = None, question: Question | None = None
) -> QuerySet[ReferenceResult]:
    rows = ReferenceResult.objects.filter(round__study=study).select_related("round", "question")
    if round_ is not None:
        rows = rows.filter(round=round_)
    if question is not None:
        rows = rows.filter(question=question)
    return rows.order_by("round__position", "question__position", "question_id")


def reference_result_of(*, round_: Round, question: Question) -> ReferenceResult | None:
    return ReferenceResult.objects.filter(round=round_, question=question).first()


def coder_reference_history(
    *, study: Study, question: Question, coder: Coder | None = None
) -> list[dict[str, Any]]:
    """Each coder's stored results against the reference, round after round (rounds without
    stored results are left out): ``{"round", "round_id", "position", "coder", measures}``."""
    rows = []
    for result in reference_result_list(study=study, question=question).filter(
        results__isnull=False
    ):
        for entry in (result.results or {}).get("coders", []):
            if coder is not None and entry.get("coder") != coder.key:
                continue
            rows.append(
                {
                    "round": result.round.name,
                    "round_id": result.round_id,
                    "position": result.round.position,
                    "question": question.key,
                    "coder": entry.get("coder"),
                    "n_items": entry.get("n_items"),
                    **{
                        measure: entry[measure]
                        for measure in ("accuracy", "kappa", "alpha", "macro_f1")
                        if measure in entry
                    },
                }
            )
    return rows


@dataclass
class ItemToAdjudicate:
    """An item of a round with each coder's label text and its current adjudication."""

    item_id: int
    external_id: str
    text: str
    labels: dict[str, str] = field(default_factory=dict)
    coder_ids: dict[str, int] = field(default_factory=dict)
    adjudication: Adjudication | None = None

    @property
    def disputed(self) -> bool:
        return len(set(self.labels.values())) > 1


def _label_column(question: Question) -> str:
    """The ``Annotation`` field that holds one value of this question."""
    return question.label_kind.form.column


def adjudication_item_ids(
    *, round_: Round, question: Question, disputed_only: bool = True
) -> list[int]:
    """The round's items to show for adjudication, ordered by external id: those whose
    coders gave more than one label (counted in the database) and those already
    adjudicated; with ``disputed_only=False`` every labelled or adjudicated item."""
    annotations = Annotation.objects.filter(round=round_, question=question)
    if disputed_only:
        ids = set(
            annotations.values("item_id")
            .annotate(n_labels=Count(_label_column(question), distinct=True))
            .filter(n_labels__gt=1)
            .values_list("item_id", flat=True)
        )
    else:
        ids = set(annotations.values_list("item_id", flat=True))
    ids |= set(
        Adjudication.objects.filter(
            round=round_, question=question, superseded_at__isnull=True
        ).values_list("item_id", flat=True)
    )
    return list(
        Item.objects.filter(pk__in=ids).order_by("external_id", "id").values_list("id", flat=True)
    )


def items_to_adjudicate(
    *, round_: Round, question: Question, item_ids: Sequence[int]
) -> list[ItemToAdjudicate]:
    """The given items (one page of ``adjudication_item_ids``) with each coder's label as
    text and their current adjudication, in the order given."""
    scheme = LabelScheme.for_question(question)
    items = {
        pk: ItemToAdjudicate(pk, external_id, text)
        for pk, external_id, text in Item.objects.filter(pk__in=item_ids).values_list(
            "id", "external_id", "text"
        )
    }
    rows = (
        Annotation.objects.filter(round=round_, question=question, item_id__in=item_ids)
        .order_by("item_id", "coder__key")
        .values_list("item_id", "coder_id", "coder__key", "category_id", "number", "category_set")
    )
    for item_id, coder_id, key, category_id, number, category_set in rows:
        entry = items[item_id]
        entry.labels[key] = scheme.text(label_of(category_id, number, category_set))
        entry.coder_ids[key] = coder_id
    for adjudication in Adjudication.objects.filter(
        round=round_, question=question, item_id__in=item_ids, superseded_at__isnull=True
    ).select_related("source_coder", "created_by"):
        items[adjudication.item_id].adjudication = adjudication
    return [items[pk] for pk in item_ids if pk in items]


def coder_against_reference(*, study: Study, coder: Coder) -> list[dict[str, Any]]:
    """One coder's stored results against the reference, every question and round (the
    coder page's table), ordered by question then round."""
    rows = []
    results = (
        reference_result_list(study=study)
        .filter(results__isnull=False)
        .order_by("question__position", "question_id", "round__position")
    )
    for result in results:
        for entry in (result.results or {}).get("coders", []):
            if entry.get("coder") == coder.key:
                rows.append(
                    {
                        "question": result.question.key,
                        "round": result.round.name,
                        "round_id": result.round_id,
                        "question_id": result.question_id,
                        "n_items": entry.get("n_items"),
                        "accuracy": entry.get("accuracy"),
                        "kappa": entry.get("kappa"),
                        "alpha": entry.get("alpha"),
                    }
                )
    return rows
