"""Review rules edited in the admin; review entries listed (read only: the worker writes them)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from review.models import ReviewEntry, ReviewRule


@admin.register(ReviewRule)
class ReviewRuleAdmin(admin.ModelAdmin):
    list_display = ("question", "disagreement", "min_coders", "max_item_agreement", "updated_at")
    list_filter = ("question__study",)
    autocomplete_fields = ("question",)


@admin.register(ReviewEntry)
class ReviewEntryAdmin(admin.ModelAdmin):
    list_display = ("item", "round", "question", "reason", "n_coders", "agreement", "resolution")
    list_filter = ("resolution", "round__study")
    list_select_related = ("item", "round", "question")
    readonly_fields = tuple(field.name for field in ReviewEntry._meta.fields)

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
