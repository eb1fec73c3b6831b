"""Admin for computations, and the "compute agreement" actions for rounds and studies.

Registers ``ComputationAdmin``; ``studies/admin.py`` adds
``compute_agreement_for_rounds`` / ``compute_agreement_for_studies`` to the actions of
``RoundAdmin`` / ``StudyAdmin``. The actions call the request service, nothing else.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest

from computations.models import Computation, ComputationScope, ComputationTrigger
from computations.services import computation_request, computations_sweep
from studies.models import Question, Round, Study


def _request_all(
    request: HttpRequest, modeladmin: admin.ModelAdmin, targets: list[tuple[Study, list[Round]]]
) -> None:
    created = reused = 0
    for study, rounds in targets:
        for question in Question.objects.filter(study=study):
            try:
                result = computation_request(
                    study=study,
                    question=question,
                    scope=ComputationScope.ROUND if rounds else ComputationScope.STUDY,
                    rounds=rounds,
                    trigger=ComputationTrigger.ADMIN,
                    requested_by=request.user,
                )
            except ValidationError as error:
                modeladmin.message_user(
                    request, f"{study} / {question.key}: {'; '.join(error.messages)}",
                    messages.WARNING,
                )  # fmt: skip
                continue
            if result.created:
                created += 1
            else:
                reused += 1
    modeladmin.message_user(
        request,
        f"{created} computation(s) queued; {reused} identical one(s) already existed.",
        messages.SUCCESS,
    )


@admin.action(description="Compute agreement (every question) for the selected rounds")
def compute_agreement_for_rounds(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Round]
) -> None:
    _request_all(request, modeladmin, [(r.study, [r]) for r in queryset.select_related("study")])


@admin.action(description="Compute agreement (every question, all rounds pooled)")
def compute_agreement_for_studies(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet[Study]
) -> None:
    _request_all(request, modeladmin, [(study, []) for study in queryset])


@admin.register(Computation)
class ComputationAdmin(admin.ModelAdmin):
    list_display = (
        "id", "study", "question", "scope", "status", "progress", "trigger", "created_at",
        "finished_at",
    )  # fmt: skip
    list_select_related = ("study", "question")
    list_filter = ("status", "scope", "trigger")
    search_fields = ("study__name", "question__key", "fingerprint")
    date_hierarchy = "created_at"
    raw_id_fields = ("study", "question", "requested_by")
    filter_horizontal = ("rounds",)
    readonly_fields = (
        *tuple(f.name for f in Computation._meta.get_fields() if f.concrete and not f.many_to_many),
        "rounds",
    )
    actions = ("sweep_stuck",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.action(description="Requeue computations whose worker went silent")
    def sweep_stuck(self, request: HttpRequest, queryset: QuerySet[Computation]) -> None:
        del queryset  # the sweep looks at every running computation
        requeued = computations_sweep()
        self.message_user(request, f"Requeued {len(requeued)} computation(s).", messages.INFO)


__all__ = ["ComputationAdmin", "compute_agreement_for_rounds", "compute_agreement_for_studies"]
