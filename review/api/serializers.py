"""Review API shapes: rules, entries, the resolve request and the list's query."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from review.models import ReviewEntry, ReviewRule
from studies.api.addressing import QUESTION_HELP, ROUND_HELP, QuestionField, RoundField


class ReviewRuleSerializer(serializers.ModelSerializer):
    question = serializers.CharField(source="question.key", read_only=True)
    is_active = serializers.BooleanField(read_only=True)

    class Meta:
        model = ReviewRule
        fields = (
            "question",
            "disagreement",
            "min_coders",
            "max_item_agreement",
            "is_active",
            "updated_at",
        )
        read_only_fields = ("updated_at",)
        extra_kwargs: dict[str, Any] = {
            "min_coders": {"min_value": 1},
            "max_item_agreement": {"min_value": 0.0, "max_value": 1.0},
        }


class ReviewEntrySerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="round.name", read_only=True)
    round_id = serializers.IntegerField(read_only=True)
    question = serializers.CharField(source="question.key", read_only=True)
    item = serializers.CharField(source="item.external_id", read_only=True)
    reason = serializers.ListField(child=serializers.CharField(), source="reasons", read_only=True)
    labels = serializers.DictField(child=serializers.CharField(), read_only=True)
    resolved_by = serializers.CharField(
        source="resolved_by.username", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = ReviewEntry
        fields = (
            "id",
            "round",
            "round_id",
            "question",
            "item",
            "reason",
            "labels",
            "n_coders",
            "agreement",
            "created_at",
            "resolved_at",
            "resolution",
            "resolution_note",
            "resolved_by",
        )
        read_only_fields = fields


class ReviewResolveSerializer(serializers.Serializer):
    note = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=10_000, help_text="Why."
    )


class ReviewQuerySerializer(serializers.Serializer):
    round = RoundField(required=False, help_text=ROUND_HELP)
    question = QuestionField(required=False, help_text=QUESTION_HELP)
    # Null when absent (a query string has no "false" by default): read as true.
    unresolved = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Only items still in the queue (default true).",
    )
    reason = serializers.ChoiceField(
        choices=["disagreement", "few_coders", "low_agreement"],
        required=False,
        help_text="Only entries that matched this criterion.",
    )
