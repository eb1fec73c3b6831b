"""Input and output serializers of computations and the history."""

from __future__ import annotations

import json
from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.reverse import reverse

from computations import engine
from computations.comparison_requests import (
    DEFAULT_REPLICATES,
    MAX_REPLICATES,
    MIN_REPLICATES,
)
from computations.models import (
    Computation,
    ComputationScope,
    ComputationStatus,
    RoundComparison,
)
from computations.selectors import Staleness, StalenessReader
from computations.services import LEVELS, MAX_BOOTSTRAP
from metrics import read_coefficient
from studies.api.addressing import (
    CODER_HELP,
    QUESTION_HELP,
    ROUND_HELP,
    CoderField,
    QuestionField,
    RoundField,
)
from studies.api.body import RefuseUnknownFieldsMixin
from studies.kinds import KINDS, kind_of
from studies.kinds import computation_parameters as kind_parameters

#: Every coefficient a computation may be asked for: the label report's and each kind's
#: own (the question's kind then refuses those it does not have, naming them).
COEFFICIENT_CHOICES = tuple(
    dict.fromkeys(
        [
            *engine.ALL_COEFFICIENTS,
            *(name for kind in KINDS.values() for name in kind.coefficients or ()),
        ]
    )
)
#: The request's fields that say what is computed over; every other field is a parameter.
SCOPE_FIELDS = ("question", "scope", "round", "rounds")


def _kind_parameter_help(name: str, kinds: list[str]) -> str:
    """Which kinds take a parameter the serializer does not type, and their defaults."""
    by_default: dict[str, list[str]] = {}
    for key in kinds:
        by_default.setdefault(json.dumps(kind_of(key).defaults[name]), []).append(key)
    defaults = "; ".join(
        f"{', '.join(keys)} questions: default {default}" for default, keys in by_default.items()
    )
    return (
        f"{defaults[0].upper()}{defaults[1:]}. Checked by the question's kind (a 400 names "
        "the field); other kinds refuse it."
    )


class KindParameterField(serializers.JSONField):
    """A parameter of some kind, passed as given for the question's kind to check. A JSON
    body gives any JSON value; a form gives text, read as JSON when it is (``0.5``,
    ``["a"]``) and as the text itself otherwise (``exact``)."""

    def to_internal_value(self, data: Any) -> Any:
        if getattr(data, "is_json_string", False):
            try:
                return json.loads(data)
            except ValueError:
                return str(data)
        return super().to_internal_value(data)


class ComputationRequestInputSerializer(RefuseUnknownFieldsMixin, serializers.Serializer):
    """What to compute. Unset parameters take the question kind's defaults: nominal → every
    categorical coefficient; ordinal → ordinal alpha and weighted kappa; interval/ratio →
    alpha with that distance, and the results add the ten ICC forms (``icc``: McGraw &
    Wong's names ICC(1), ICC(k), ICC(A,1), ICC(A,k), ICC(C,1), ICC(C,k) per model, with
    Shrout & Fleiss's ICC1 … ICC3k) on a complete design, else ``skipped.icc``; set →
    alpha with MASI; hierarchy → alpha with the tree distance; span → unitizing alpha
    (alpha_u), span F1 (exact and overlapping), token alpha, P_k and WindowDiff (add
    ``gamma`` to the coefficients for Mathet et al.'s gamma). Span coefficients and
    ``overlapping`` are for span questions only, ``min_overlap`` for span and relation ones;
    ``level`` and ``distance`` for the label kinds (a 400 names the field). A kind's own
    parameters (its defaults: ``alpha_match`` of a relation question, ``iou_threshold`` of
    a region question, ...) are fields too, checked by the kind; a parameter the question's
    kind does not take is a 400 naming it, and so is any field the request does not know
    (with the closest name). The scope is one ``round``, several ``rounds`` pooled, or (neither
    given, or ``scope=study``) every round of the study."""

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
        child=serializers.ChoiceField(choices=COEFFICIENT_CHOICES),
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
        help_text="Span and relation questions: the intersection over union two units need "
        "to match in the overlapping span (or relation) F1 (default 0.5).",
    )
    overlapping = serializers.ChoiceField(
        choices=engine.SPAN_OVERLAPPING,
        required=False,
        help_text="Span questions: what unitizing alpha (alpha_u) does with one coder's "
        "overlapping or nested units of a category. `error` (default): alpha_u is left "
        "undefined, with the reason; `merge`: each run of them counts as their union. The "
        "other span coefficients read the units as given.",
    )

    expected = serializers.CharField(
        required=False,
        max_length=20,
        help_text="Text questions: how alpha's expected disagreement D_e is found. `auto` "
        "(default): exact while it takes at most 20,000,000 distances, else sampled; `exact`: "
        "every pair of distinct texts; `sampled`: a seeded sample of pairs of values, alpha "
        "then an estimate with its standard error (`expected_method` in the result).",
    )
    expected_pairs = serializers.IntegerField(
        required=False,
        help_text="Text questions: the pairs a sampled D_e draws (default 200,000; at most "
        "20,000,000).",
    )

    epsilon = serializers.FloatField(
        required=False,
        help_text="Questions with model coders (docs/models.md): the alternative annotator "
        "test's cost-benefit margin ε, from 0 to below 1 (default 0.2; the paper suggests "
        "0.2 for experts, 0.15 for skilled coders, 0.1 for crowd workers).",
    )
    alt_test_alpha = serializers.FloatField(
        required=False,
        help_text="Questions with model coders: the alternative annotator test's false "
        "discovery rate level (Benjamini–Yekutieli), above 0 and below 1 (default 0.05).",
    )

    def get_fields(self) -> dict[str, serializers.Field]:
        """The declared fields, and each parameter a kind takes that none of them types
        (passed as given, for the question's kind to check)."""
        fields = super().get_fields()
        for name, kinds in kind_parameters().items():
            if name not in fields:
                fields[name] = KindParameterField(
                    required=False, help_text=_kind_parameter_help(name, kinds)
                )
        return fields

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
        parameters = {key: attrs.pop(key) for key in list(attrs) if key not in SCOPE_FIELDS}
        attrs["scope"] = scope
        attrs["round_list"] = [round_] if round_ is not None else list(rounds or [])
        attrs["parameters"] = parameters
        return attrs


class ComputationOutputSerializer(serializers.ModelSerializer):
    url = serializers.SerializerMethodField()
    question_key = serializers.CharField(source="question.key", read_only=True)
    rounds = serializers.SerializerMethodField()
    round_names = serializers.SerializerMethodField()
    stale = serializers.SerializerMethodField()
    stale_reason = serializers.SerializerMethodField()
    readings = serializers.SerializerMethodField()

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
            "distance_table_fingerprint",
            "adjudications_fingerprint",
            "n_annotations",
            "metrics_version",
            "stale",
            "stale_reason",
            "created_at",
            "started_at",
            "heartbeat_at",
            "finished_at",
            "readings",
            "results",
        )
        read_only_fields: tuple[str, ...] = fields

    @extend_schema_field(OpenApiTypes.OBJECT)
    def get_readings(self, computation: Computation) -> dict[str, Any]:
        """Per coefficient of the results, its reading on the one benchmark scale that
        applies (metrics.read_coefficient, as the pages and the CLI read it): ``scale`` (None: none
        applies), ``scale_name``, ``reason``, ``band`` (of the value), ``attained`` and
        ``attained_probability`` (the band reached at 95%), ``leading`` and
        ``leading_probability`` (the most probable band), ``text``."""
        results = computation.results or {}
        chosen = computation.study.benchmark_scale or None
        return {
            key: read_coefficient(
                key,
                entry.get("value"),
                (entry.get("ci") or {}).get("benchmarks"),
                distance=results.get("distance"),
                chosen=chosen,
            ).as_json()
            for key, entry in (results.get("coefficients") or {}).items()
            if isinstance(entry, dict)
        }

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

    def _staleness(self, computation: Computation) -> Staleness:
        # The view gives one reader per response: each scope and table read once.
        reader = self.context.get("staleness") or StalenessReader()
        return reader(computation)

    @extend_schema_field(OpenApiTypes.BOOL)
    def get_stale(self, computation: Computation) -> bool:
        """The annotations of the scope, the distance table the computation used
        (``distance`` ``user``) or the scope's adjudications a model coder's calibration
        read changed after the computation was requested."""
        return bool(self._staleness(computation))

    @extend_schema_field({"type": "string", "nullable": True})
    def get_stale_reason(self, computation: Computation) -> str | None:
        """What changed: "the annotations changed after this result", "the distance table
        was replaced after this result" (or deleted), "the adjudications changed after this
        result", joined by "and"; null when not stale."""
        return self._staleness(computation).reason


class ComputationListOutputSerializer(ComputationOutputSerializer):
    class Meta(ComputationOutputSerializer.Meta):
        # All but the results and their readings.
        fields = ComputationOutputSerializer.Meta.fields[:-2]
        read_only_fields = fields


class ComputationFilterSerializer(serializers.Serializer):
    question = QuestionField(required=False, help_text=QUESTION_HELP)
    round = RoundField(required=False, help_text=f"Computations that read it. {ROUND_HELP}")
    status = serializers.ChoiceField(choices=ComputationStatus.choices, required=False)


class HistoryQuerySerializer(serializers.Serializer):
    question = QuestionField(required=False, help_text=f"Only this question. {QUESTION_HELP}")


class ModelHistoryQuerySerializer(serializers.Serializer):
    question = QuestionField(required=False, help_text=f"Only this question. {QUESTION_HELP}")
    coder = CoderField(required=False, help_text=f"Only this model coder. {CODER_HELP}")


class CoderDriftQuerySerializer(serializers.Serializer):
    question = QuestionField(
        required=False, help_text=f"The question (default: the first). {QUESTION_HELP}"
    )


class ComparisonRequestInputSerializer(RefuseUnknownFieldsMixin, serializers.Serializer):
    """Two rounds of a question to compare on one coefficient, by a worker."""

    question = QuestionField(help_text=QUESTION_HELP)
    first = RoundField(help_text=f"One of the two rounds (either order). {ROUND_HELP}")
    second = RoundField(help_text=f"The other round. {ROUND_HELP}")
    coefficient = serializers.ChoiceField(
        choices=[*engine.ALL_COEFFICIENTS, *engine.SPAN_DECOMPOSABLE],
        required=False,
        help_text="Default: alpha (alpha_u for a span question), else the first coefficient "
        "of the later round's latest computation.",
    )
    bootstrap = serializers.IntegerField(
        required=False,
        min_value=MIN_REPLICATES,
        max_value=MAX_REPLICATES,
        help_text=f"Bootstrap replicates (default {DEFAULT_REPLICATES}).",
    )
    seed = serializers.IntegerField(required=False, min_value=0, max_value=2**63 - 1)
    confidence = serializers.FloatField(required=False, min_value=0.5, max_value=0.999999)


class ComparisonFilterSerializer(serializers.Serializer):
    question = QuestionField(required=False, help_text=QUESTION_HELP)
    status = serializers.ChoiceField(choices=ComputationStatus.choices, required=False)


class ComparisonOutputSerializer(serializers.ModelSerializer):
    """A requested comparison: its status and, once done, the stored ``result`` (the later
    round minus the earlier one, with the bootstrap interval)."""

    url = serializers.SerializerMethodField()
    question_key = serializers.CharField(source="question.key", read_only=True)
    first_name = serializers.CharField(source="first.name", read_only=True)
    second_name = serializers.CharField(source="second.name", read_only=True)
    bootstrap = serializers.IntegerField(source="replicates", read_only=True)
    result = serializers.JSONField(
        read_only=True,
        allow_null=True,
        help_text="Null until done. `question`, `question_key`, `coefficient`, "
        "`difference_is` (later round minus earlier round), `later`, `earlier`, `first`, "
        "`second` (round, round_name, n_items), `n_shared_items`, `paired`, `difference` "
        "(estimate, ci with low and high, se, prob_below), `unpaired` when the item sets "
        "differ, `parameters`.",
    )

    class Meta:
        model = RoundComparison
        fields: tuple[str, ...] = (
            "id",
            "url",
            "study",
            "question",
            "question_key",
            "first",
            "first_name",
            "second",
            "second_name",
            "coefficient",
            "bootstrap",
            "seed",
            "confidence",
            "status",
            "error",
            "attempts",
            "created_at",
            "started_at",
            "finished_at",
            "result",
        )
        read_only_fields: tuple[str, ...] = fields

    def get_url(self, comparison: RoundComparison) -> str:
        return reverse(
            "comparison-detail",
            kwargs={"study_pk": comparison.study_id, "pk": comparison.pk},
            request=self.context.get("request"),
        )


class ComparisonListOutputSerializer(ComparisonOutputSerializer):
    class Meta(ComparisonOutputSerializer.Meta):
        fields = ComparisonOutputSerializer.Meta.fields[:-1]  # all but the result
        read_only_fields = fields


@extend_schema_field(OpenApiTypes.OBJECT)
class StoredObjectField(serializers.JSONField):
    """A JSON object read from stored results, passed through as it is.

    A ``DictField`` would walk every nested value (thousands per history of 50 rounds).
    """


class CoefficientPointSerializer(serializers.Serializer):
    value = serializers.FloatField(allow_null=True)
    ci = StoredObjectField(
        allow_null=True,
        help_text="low, high, confidence, method, replicates, and benchmarks: the share of "
        "bootstrap replicates in each band of the Landis & Koch, Fleiss, Altman and "
        "Krippendorff scales, the band attained at 95% and the most probable band",
    )
    se = serializers.FloatField(allow_null=True)


class HistoryRoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    round_name = serializers.CharField()
    position = serializers.IntegerField()
    status = serializers.CharField()
    computation = serializers.IntegerField(allow_null=True)
    computation_url = serializers.SerializerMethodField()
    stale = serializers.BooleanField(allow_null=True)
    stale_reason = serializers.CharField(
        allow_null=True,
        help_text='What changed: "the annotations changed after this result", "the distance '
        'table was replaced after this result" (or deleted), "the adjudications changed after '
        'this result"; null when not stale.',
    )
    finished_at = serializers.DateTimeField(allow_null=True)
    n_items = serializers.IntegerField(allow_null=True)
    n_coders = serializers.IntegerField(allow_null=True)
    n_annotations = serializers.IntegerField(allow_null=True)
    coefficients = serializers.DictField(child=CoefficientPointSerializer())

    @extend_schema_field({"type": "string", "format": "uri", "nullable": True})
    def get_computation_url(self, entry: dict[str, Any]) -> str | None:
        """The computation the round's coefficients come from (``study`` in the context)."""
        if entry.get("computation") is None:
            return None
        return reverse(
            "computation-detail",
            kwargs={"study_pk": self.context["study"], "pk": entry["computation"]},
            request=self.context.get("request"),
        )


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


class ModelRoundPointSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    round_name = serializers.CharField()
    position = serializers.IntegerField()
    computation = serializers.IntegerField()
    model_version = serializers.CharField()
    prompt_version = serializers.CharField(help_text="The prompt version of this round.")
    advantage_probability = serializers.FloatField(
        allow_null=True,
        help_text="ρ: the mean over the people of the share of items where the model aligned "
        "with the others at least as well as that person (ranks models).",
    )
    winning_rate = serializers.FloatField(
        allow_null=True, help_text="ω: the share of the people the model wins against."
    )
    passed = serializers.BooleanField(allow_null=True, help_text="ω ≥ 0.5.")
    n_humans = serializers.IntegerField(allow_null=True, help_text="People tested.")
    epsilon = serializers.FloatField(allow_null=True)
    refused = serializers.CharField(
        allow_null=True, help_text="Why the test did not run this round (else null)."
    )
    between = StoredObjectField(
        help_text="The agreement between people and models this round: value and ci."
    )
    self_consistency = StoredObjectField(
        allow_null=True,
        help_text="Intra-coder alpha among the model's runs this round (the model coders "
        "with its model name and version): alpha, ci, n_items, runs; or refused (why "
        "not); null for a result stored before it was computed.",
    )
    position_bias = StoredObjectField(
        allow_null=True,
        help_text="Pairwise preferences: the share of the model's non-tie choices that "
        "picked the option shown first (share_first), of n, with the exact binomial p; "
        "null for other questions.",
    )


class ModelSeriesSerializer(serializers.Serializer):
    coder = serializers.IntegerField()
    key = serializers.CharField()
    model_name = serializers.CharField()
    rounds = ModelRoundPointSerializer(many=True)


class ModelHistoryQuestionSerializer(serializers.Serializer):
    question = serializers.IntegerField()
    question_key = serializers.CharField()
    kind = serializers.CharField()
    models = ModelSeriesSerializer(many=True)


class ModelHistoryOutputSerializer(serializers.Serializer):
    study = serializers.IntegerField()
    questions = ModelHistoryQuestionSerializer(many=True)
