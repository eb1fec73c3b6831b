"""Review queue reads: entries with their item, round and question, and event payloads."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from django.urls import reverse

from review.models import ReviewEntry, ReviewRule
from studies.models import Question, Round, Study

EVENT_ENTRIES_SHOWN = 100


def review_entry_list(
    *,
    study: Study,
    round_: Round | None = None,
    question: Question | None = None,
    unresolved: bool = True,
    reason: str = "",
) -> QuerySet[ReviewEntry]:
    """The study's entries, optionally of one round and question; open ones only by default."""
    entries = ReviewEntry.objects.filter(round__study=study).select_related(
        "round", "question", "item", "resolved_by"
    )
    if round_ is not None:
        entries = entries.filter(round=round_)
    if question is not None:
        entries = entries.filter(question=question)
    if unresolved:
        entries = entries.filter(resolved_at__isnull=True)
    if reason:
        entries = entries.filter(reason__contains=reason)
    return entries.order_by("round__position", "question__position", "question_id", "item_id", "id")


def review_rule_list(*, study: Study) -> QuerySet[ReviewRule]:
    return ReviewRule.objects.filter(question__study=study).select_related("question")


def review_rule_of(question: Question) -> ReviewRule:
    """The question's rule, or an unsaved one with no criterion (nothing is flagged)."""
    return ReviewRule.objects.filter(question=question).first() or ReviewRule(question=question)


def review_items_added_data(
    *, round_: Round, question: Question, entry_ids: list[int]
) -> dict[str, Any]:
    """The ``data`` of a ``review.items_added`` webhook event: the round, the question, how
    many entries were added and the first ``EVENT_ENTRIES_SHOWN`` of them."""
    entries = ReviewEntry.objects.filter(pk__in=entry_ids).select_related("item").order_by("id")
    path = reverse("review-entry-list", kwargs={"version": "v1", "study_pk": round_.study_id})
    queue_url = (
        f"{settings.AGREEMENT_PUBLIC_URL.rstrip('/')}{path}"
        f"?round={round_.pk}&question={question.key}"
    )
    return {
        "round": {"id": round_.pk, "name": round_.name, "position": round_.position},
        "question": {"id": question.pk, "key": question.key},
        "added": len(entry_ids),
        "queue_url": queue_url,
        "entries": [
            {
                "id": entry.pk,
                "item": entry.item.external_id,
                "reason": entry.reasons,
                "labels": entry.labels,
            }
            for entry in entries[:EVENT_ENTRIES_SHOWN]
        ],
    }
