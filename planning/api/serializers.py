"""Plan request API shapes: the request's input and the stored plan's output."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from metrics.planning import DEFAULT_PILOT_UNCERTAINTY, PILOT_UNCERTAINTY
from planning.models import PlanRequest
from studies.api.addressing import QUESTION_HELP, ROUND_HELP, QuestionField, RoundField

PILOT_UNCERTAINTY_HELP = (
    "How the pilot's uncertainty enters the plan. bootstrap (default): every simulated round "
    "is drawn from its own bootstrap resample of the pilot (for the other designs' model, an "
    "alpha drawn from the pilot's bootstrap replicates), so the plan holds for the population "
    "the pilot came from, not only for the pilot. none: the pilot's estimate is taken as the "
    "truth (smaller, optimistic plans)."
)


class PlanAssumptionsSerializer(serializers.Serializer):
    categories = serializers.DictField(
        child=serializers.FloatField(),
        help_text="The expected share of each category code of the question (summing to 1).",
    )
    alpha = serializers.FloatField(
        required=False, allow_null=True, help_text="The assumed population alpha (0 to 1)."
    )
    agreement = serializers.FloatField(
        required=False,
        allow_null=True,
        help_text="Or: the assumed share of coder pairs that agree (chance agreement to 1).",
    )

    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        return {key: item for key, item in value.items() if item is not None}


class PlanRequestInputSerializer(serializers.Serializer):
    question = QuestionField(help_text=QUESTION_HELP)
    pilot_round = RoundField(
        required=False,
        allow_null=True,
        default=None,
        help_text=f"The pilot round whose items are resampled. {ROUND_HELP}",
    )
    assumptions = PlanAssumptionsSerializer(
        required=False,
        allow_null=True,
        default=None,
        help_text="Without a pilot (nominal questions): category shares and alpha or agreement.",
    )
    coefficient = serializers.CharField(
        default="alpha", max_length=40, help_text="The report's coefficient key (default alpha)."
    )
    confidence = serializers.FloatField(
        default=0.95,
        help_text="Level of the two-sided interval whose lower end must reach the target.",
    )
    target = serializers.FloatField(help_text="The lower bound to reach, e.g. 0.8.")
    power = serializers.FloatField(
        default=0.9, help_text="The probability of reaching it required, e.g. 0.9."
    )
    coders_per_item = serializers.ListField(
        child=serializers.IntegerField(min_value=2, max_value=50),
        default=list,
        max_length=6,
        help_text="Designs to plan with the nominal model (coders per item); from a pilot, "
        "its own design is always planned. Without a pilot, default [2].",
    )
    max_items = serializers.IntegerField(
        default=10_000, min_value=20, max_value=1_000_000, help_text="The largest round considered."
    )
    pilot_uncertainty = serializers.ChoiceField(
        choices=list(PILOT_UNCERTAINTY),
        default=DEFAULT_PILOT_UNCERTAINTY,
        help_text=PILOT_UNCERTAINTY_HELP,
    )


class PlanRequestSerializer(serializers.ModelSerializer):
    question = serializers.CharField(source="question.key", read_only=True)
    pilot_round = serializers.CharField(
        source="pilot_round.name", read_only=True, allow_null=True, default=None
    )
    requested_by = serializers.CharField(
        source="requested_by.username", read_only=True, allow_null=True, default=None
    )
    recommended_items = serializers.IntegerField(read_only=True, allow_null=True)

    class Meta:
        model = PlanRequest
        fields = (
            "id",
            "question",
            "question_id",
            "pilot_round",
            "pilot_round_id",
            "assumptions",
            "coefficient",
            "confidence",
            "target",
            "power",
            "coders_per_item",
            "pilot_uncertainty",
            "max_items",
            "replicates",
            "seed",
            "status",
            "progress",
            "recommended_items",
            "result",
            "error",
            "requested_by",
            "created_at",
            "started_at",
            "finished_at",
        )
        read_only_fields = fields
