"""Input and output serializers of computations and the history."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from computations import engine
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import scope_data_revision
from computations.services import LEVELS, MAX_BOOTSTRAP
from studies.api.addressing import QUESTION_HELP, ROUND_HELP, QuestionField, RoundField


class ComputationRequestInputSerializer(serializers.Serializer):
    """What to compute. Unset parameters take the question kind's defaults: nominal → every
    categorical coefficient; ordinal → ordinal alpha and weighted kappa; interval/ratio →
    alpha with that distance; set → alpha with MASI; hierarchy → alpha with the tree distance;
    span → unitizing alpha (alpha_u), span F1 (exact and overlapping), token alpha, P_k and
    WindowDiff (add ``gamma`` to the coefficients for Mathet et al.'s gamma). Span
    coefficients, ``min_overlap`` and ``overlapping`` are for span questions only; ``level``
    and ``distance`` for the others (a 400 names the field). The scope is one ``round``,
    several ``rounds`` pooled, or (neither given, or ``scope=study``) every round of the
    study."""

    question = QuestionField(help_text=QUESTION_HELP)
    scope = serializers.ChoiceField(choices=ComputationScope.choices, required=False)
    round = RoundField(required=False, help_text=ROUND_HELP)
    rounds = serializers.ListField(
        child=RoundField(),
        required=False,
        max_length=1_000,
        help_text="Rounds to pool, each by id or name (digits are an id first).",
    )
    coefficients = serializers.ListField(
        child=serializers.ChoiceField(
            choices=[*engine.ALL_COEFFICIENTS, *engine.SPAN_COEFFICIENTS]
        ),
        required=False,
        allow_empty=False,
    )
    distance = serializers.CharField(required=False, max_length=50)
    level = serializers.ChoiceField(choices=LEVELS, required=False)
    bootstrap = serializers.IntegerField(required=False, min_value=0, max_value=MAX_BOOTSTRAP)
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**63 - 1)
    confidence = serializers.FloatField(required=False, min_value=0.5, max_value=0.999999)
    chunk_size = serializers.IntegerField(required=False, min_value=10)
    min_overlap = serializers.FloatField(
        required=False,
        min_value=0.0,
        max_value=1.0,
        help_text="Span questions: the intersection over union two units need to match in "
        "the overlapping span F1 (default 0.5).",
    )
    overlapping = serializers.ChoiceField(
        choices=engine.SPAN_OVERLAPPING,
        required=False,
        help_text="Span questions: what unitizing alpha (alpha_u) does with one coder's "
        "overlapping or nested units of a category. `error` (default): alpha_u is left "
        "undefined, with the reason; `merge`: each run of them counts as their union. The "
        "other span coefficients read the units as given.",
    )

    PARAMETERS = (
        "coefficients",
        "distance",
        "level",
        "bootstrap",
        "seed",
        "confidence",
        "min_overlap",
        "overlapping",
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        round_, rounds = attrs.pop("round", None), attrs.pop("rounds", None)
        if round_ is not None and rounds:
            raise serializers.ValidationError({"rounds": "Give either round or rounds, not both."})
        scope = attrs.get("scope")
        if scope is None:
            scope = (
                ComputationScope.ROUND
                if round_ is not None
                else ComputationScope.ROUNDS
                if rounds
                else ComputationScope.STUDY
            )
        attrs["scope"] = scope
        attrs["round_list"] = [round_] if round_ is not None else list(rounds or [])
        attrs["parameters"] = {
            key: attrs.pop(key) for key in (*self.PARAMETERS, "chunk_size") if key in attrs
        }
        return attrs


class ComputationOutputSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    question_key = serializers.CharField(source="question.key", read_only=True)
    rounds = serializers.SerializerMethodField()
    round_names = serializers.SerializerMethodField()
    stale = serializers.SerializerMethodField()

    class Meta:
        model = Computation
        fields: tuple[str, ...] = (
            "id",
            "url",
            "study",
            "question",
            "question_key",
            "scope",
            "rounds",
            "round_names",
            "status",
            "error",
            "progress",
            "attempts",
            "trigger",
            "parameters",
            "fingerprint",
            "n_annotations",
            "metrics_version",
            "stale",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
            "results",
        )
        read_only_fields: tuple[str, ...] = fields

    def get_url(self, computation: Computation) -> str:
        return reverse(
            "computation-detail",
            kwargs={"study_pk": computation.study_id, "pk": computation.pk},
            request=self.context.get("request"),
        )

    def get_rounds(self, computation: Computation) -> list[int]:
        # rounds are prefetched by the selector: no query per computation.
        return sorted(r.pk for r in computation.rounds.all())

    def get_round_names(self, computation: Computation) -> list[str]:
        """The names of ``rounds``, in the same order."""
        return [r.name for r in sorted(computation.rounds.all(), key=lambda r: r.pk)]

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_stale(self, computation: Computation) -> bool:
        """Annotations of the scope changed after the computation was requested."""
        cache: dict[tuple, str] = self.context["revisions"]
        round_ids = tuple(self.get_rounds(computation))
        key = (computation.question_id, round_ids)
        if key not in cache:
            cache[key] = scope_data_revision(question=computation.question_id, round_ids=round_ids)
        return cache[key] != computation.data_revision


class ComputationListOutputSerializer(ComputationOutputSerializer):
    class Meta(ComputationOutputSerializer.Meta):
        fields = ComputationOutputSerializer.Meta.fields[:-1]  # all but the results
        read_only_fields = fields


class ComputationFilterSerializer(serializers.Serializer):
    question = QuestionField(required=False, help_text=QUESTION_HELP)
    round = RoundField(required=False, help_text=f"Computations that read it. {ROUND_HELP}")
    status = serializers.ChoiceField(choices=ComputationStatus.choices, required=False)


class HistoryQuerySerializer(serializers.Serializer):
    question = QuestionField(required=False, help_text=f"Only this question. {QUESTION_HELP}")


class CoderDriftQuerySerializer(serializers.Serializer):
    question = QuestionField(
        required=False, help_text=f"The question (default: the first). {QUESTION_HELP}"
    )


class CompareQuerySerializer(serializers.Serializer):
    question = QuestionField(help_text=QUESTION_HELP)
    first = RoundField(help_text=f"One of the two rounds (either order). {ROUND_HELP}")
    second = RoundField(help_text=f"The other round. {ROUND_HELP}")
    coefficient = serializers.ChoiceField(
        choices=[*engine.ALL_COEFFICIENTS, *engine.SPAN_DECOMPOSABLE], required=False
    )
    bootstrap = serializers.IntegerField(required=False, min_value=2, max_value=20_000)
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**63 - 1)
    confidence = serializers.FloatField(required=False, min_value=0.5, max_value=0.999999)


class CoefficientPointSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    ci = serializers.DictField(allow_null=True, help_text="low, high, level, method, replicates")
    se = serializers.FloatField(allow_null=True)


class HistoryRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    round_name = serializers.CharField()
    position = serializers.IntegerField()
    status = serializers.CharField()
    computation = serializers.IntegerField(allow_null=True)
    computation_url = serializers.CharField(allow_null=True)
    stale = serializers.BooleanField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    n_items = serializers.IntegerField(allow_null=True)
    n_coders = serializers.IntegerField(allow_null=True)
    n_annotations = serializers.IntegerField(allow_null=True)
    coefficients = serializers.DictField(child=CoefficientPointSerializer())


class HistoryQuestionSerializer(serializers.Serializer):
    question = serializers.IntegerField()
    question_key = serializers.CharField()
    kind = serializers.CharField()
    rounds = HistoryRoundSerializer(many=True)


class HistoryOutputSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    questions = HistoryQuestionSerializer(many=True)


class CoderDriftOutputSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    question = serializers.IntegerField()
    question_key = serializers.CharField()
    rounds = serializers.ListField(child=serializers.DictField())
    coders = serializers.ListField(child=serializers.DictField())


class CompareOutputSerializer(serializers.Serializer):
    question = serializers.IntegerField()
    question_key = serializers.CharField()
    coefficient = serializers.CharField()
    first = serializers.DictField()
    second = serializers.DictField()
    paired = serializers.BooleanField()
    n_shared_items = serializers.IntegerField()
    difference = serializers.DictField()
