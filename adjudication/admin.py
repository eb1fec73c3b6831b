"""Gold coders edited in the admin; adjudications and stored results listed (read only:
decisions go through the service, results are written by the worker)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from adjudication.models import Adjudication, ReferenceResult, RoundReference


class _ReadOnly(admin.ModelAdmin):
    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(RoundReference)
class RoundReferenceAdmin(_ReadOnly):
    list_display = ("round", "gold_coder", "updated_at", "updated_by")
    list_filter = ("round__study",)
    list_select_related = ("round", "gold_coder", "updated_by")


@admin.register(Adjudication)
class AdjudicationAdmin(_ReadOnly):
    list_display = ("item", "round", "question", "value", "source", "source_coder", "created_at",
                    "superseded_at")  # fmt: skip
    list_filter = ("source", "round__study")
    list_select_related = ("item", "round", "question", "source_coder")


@admin.register(ReferenceResult)
class ReferenceResultAdmin(_ReadOnly):
    list_display = ("round", "question", "status", "requested_at", "finished_at")
    list_filter = ("status", "round__study")
    list_select_related = ("round", "question")
