"""Plan requests listed in the admin (read only: requests come from the API and the page,
results from the workers)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from planning.models import PlanRequest


@admin.register(PlanRequest)
class PlanRequestAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "study",
        "question",
        "pilot_round",
        "coefficient",
        "target",
        "power",
        "status",
        "progress",
        "recommended_items",
        "created_at",
    )
    list_filter = ("status", "study")
    list_select_related = ("study", "question", "pilot_round")
    readonly_fields = tuple(field.name for field in PlanRequest._meta.fields)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
