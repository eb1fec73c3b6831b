"""Plan requests: reads (pages and the API show stored results only)."""

from __future__ import annotations

from django.db.models import QuerySet

from planning.models import PlanRequest
from studies.models import Question, Study


def plan_request_list(*, study: Study, question: Question | None = None) -> QuerySet[PlanRequest]:
    """The study's plan requests, newest first, with what a listing shows joined."""
    queryset = PlanRequest.objects.filter(study=study).select_related(
        "question", "pilot_round", "requested_by"
    )
    if question is not None:
        queryset = queryset.filter(question=question)
    return queryset.order_by("-created_at", "-id")
