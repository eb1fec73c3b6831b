"""Input and output serializers, separate per action. Inputs check shape and types only;
domain rules live in ``studies.services`` (their errors come out in the same format)."""

from __future__ import annotations

import json
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from studies.models import (
    GRRAS_STUDY_FIELDS,
    ApiToken,
    BenchmarkScale,
    Category,
    Coder,
    CoderKind,
    Item,
    ItemImage,
    LabelKind,
    Membership,
    Question,
    Role,
    Round,
    RoundStatus,
    SpanUnit,
    Study,
)

# Limits that keep values inside what every database column accepts.
MAX_POSITION = 2**31 - 1
MAX_BULK = 10_000


def _no_nul_in_json(value: Any) -> Any:
    # PostgreSQL's jsonb rejects \u0000 anywhere in a document.
    if "\\u0000" in json.dumps(value):
        raise serializers.ValidationError("Text cannot contain NUL (\\u0000) characters.")
    return value


# --- Studies -------------------------------------------------------------------------------


class StudyOutputSerializer(serializers.ModelSerializer):
    role = serializers.ChoiceField(
        source="actor_role",
        choices=Role.choices,
        read_only=True,
        help_text="Your role in this study (a study token: the token's role).",
    )

    class Meta:
        model = Study
        fields = (
            "id",
            "name",
            "description",
            *GRRAS_STUDY_FIELDS,
            "benchmark_scale",
            "role",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields


def _grras_field(name: str) -> serializers.CharField:
    help_text = str(getattr(Study._meta.get_field(name), "help_text", ""))
    return serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=100_000,
        help_text=f"{help_text} Empty: the reliability report names the item as missing.",
    )


class StudyInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, max_length=100_000)
    # What the study records for its reliability report (GRRAS, Kottner et al. 2011).
    subject_population = _grras_field("subject_population")
    rater_population = _grras_field("rater_population")
    background = _grras_field("background")
    sample_size_rationale = _grras_field("sample_size_rationale")
    sampling = _grras_field("sampling")
    blinding = _grras_field("blinding")
    independence = _grras_field("independence")
    rater_training = _grras_field("rater_training")
    practical_relevance = _grras_field("practical_relevance")
    benchmark_scale = serializers.ChoiceField(
        choices=BenchmarkScale.choices,
        required=False,
        allow_blank=True,
        help_text="The benchmark scale every chance-corrected coefficient is read on; empty "
        "(the default): the one rule of docs/benchmarks.md (Krippendorff's scale for nominal "
        "alpha, Landis & Koch's for the unweighted kappa family, none for weighted "
        "coefficients and observed agreement).",
    )


# --- Members and tokens --------------------------------------------------------------------


class MemberOutputSerializer(serializers.ModelSerializer):
    username = serializers.CharField(source="user.username", read_only=True)

    class Meta:
        model = Membership
        fields = ("username", "role", "created_at")
        read_only_fields = fields


class MemberCreateInputSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    role = serializers.ChoiceField(choices=Role.choices, default=Role.VIEWER)


class MemberUpdateInputSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=Role.choices)


class StudyTokenOutputSerializer(serializers.ModelSerializer):
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = ApiToken
        fields: tuple[str, ...] = (
            "id",
            "name",
            "prefix",
            "role",
            "created_by",
            "created_at",
            "last_used_at",
            "expires_at",
            "revoked_at",
            "is_active",
        )
        read_only_fields = fields


class StudyTokenCreatedSerializer(StudyTokenOutputSerializer):
    secret = serializers.CharField(
        read_only=True, help_text="The token's secret. Shown this once only: store it now."
    )

    class Meta(StudyTokenOutputSerializer.Meta):
        fields = (*StudyTokenOutputSerializer.Meta.fields, "secret")
        read_only_fields = fields


class StudyTokenInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    role = serializers.ChoiceField(choices=Role.choices, default=Role.ANNOTATOR)
    expires_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the token stops working (ISO 8601, in the future); omit it for a "
        "token that works until revoked. A request made with an expiring token cannot "
        "create a token that expires later.",
    )


class PersonalTokenOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = ApiToken
        fields: tuple[str, ...] = (
            "id",
            "name",
            "prefix",
            "created_at",
            "last_used_at",
            "expires_at",
            "revoked_at",
            "is_active",
        )
        read_only_fields = fields


class PersonalTokenCreatedSerializer(PersonalTokenOutputSerializer):
    secret = serializers.CharField(
        read_only=True, help_text="The token's secret. Shown this once only: store it now."
    )

    class Meta(PersonalTokenOutputSerializer.Meta):
        fields = (*PersonalTokenOutputSerializer.Meta.fields, "secret")
        read_only_fields = fields


class PersonalTokenInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    expires_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the token stops working (ISO 8601, in the future); omit it for a "
        "token that works until revoked. A request made with an expiring token cannot "
        "create a token that expires later.",
    )


# --- Label scheme --------------------------------------------------------------------------


class CategoryOutputSerializer(serializers.ModelSerializer):
    parent = serializers.SlugRelatedField[Category](  # type: ignore[assignment]
        slug_field="code", read_only=True, allow_null=True
    )

    class Meta:
        model = Category
        fields = ("id", "code", "label", "position", "parent", "undirected")
        read_only_fields = fields


class QuestionOutputSerializer(serializers.ModelSerializer):
    categories = CategoryOutputSerializer(many=True, read_only=True)
    span_unit = serializers.SerializerMethodField()

    class Meta:
        model = Question
        fields = (
            "id",
            "key",
            "text",
            "kind",
            "min_value",
            "max_value",
            "span_unit",
            "position",
            "categories",
        )
        read_only_fields = fields

    @extend_schema_field(
        serializers.ChoiceField(
            choices=SpanUnit.choices,
            allow_null=True,
            help_text="Span questions: what begin and end count; null for other kinds.",
        )
    )
    def get_span_unit(self, question: Question) -> str | None:
        if not question.label_kind.takes_span_unit:
            return None
        return question.span_unit or SpanUnit.CHARACTER.value


_SPAN_UNIT_HELP = (
    "Span questions only (a 400 for other kinds): what the units' begin and end count, "
    "`character` (the default), `token` or `second`. The question's categories are the "
    "units' labels."
)


class CategorySpecSerializer(serializers.Serializer):
    """A category declared inline with its question; ``parent`` is another one's code."""

    code = serializers.CharField(max_length=100)
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=200, required=False, allow_blank=True, default=""
    )
    parent = serializers.CharField(  # type: ignore[assignment]
        max_length=100, required=False, allow_null=True, default=None
    )
    undirected = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Relation questions only: the label is symmetric (head and tail may be swapped).",
    )


class QuestionCreateInputSerializer(serializers.Serializer):
    key = serializers.SlugField(max_length=100)
    kind = serializers.ChoiceField(choices=LabelKind.choices)
    text = serializers.CharField(required=False, allow_blank=True, default="", max_length=100_000)
    min_value = serializers.FloatField(required=False, allow_null=True, default=None)
    max_value = serializers.FloatField(required=False, allow_null=True, default=None)
    span_unit = serializers.ChoiceField(
        choices=SpanUnit.choices,
        required=False,
        allow_null=True,
        default=None,
        help_text=_SPAN_UNIT_HELP,
    )
    position = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=0, max_value=MAX_POSITION
    )
    categories = CategorySpecSerializer(  # type: ignore[call-arg]
        many=True,
        required=False,
        default=list,
        max_length=MAX_BULK,
        help_text="Declared values in order (the ordinal order); parents by code, so a "
        "whole tree is declared at once.",
    )


class QuestionUpdateInputSerializer(serializers.Serializer):
    key = serializers.SlugField(max_length=100, required=False)
    kind = serializers.ChoiceField(choices=LabelKind.choices, required=False)
    text = serializers.CharField(required=False, allow_blank=True, max_length=100_000)
    min_value = serializers.FloatField(required=False, allow_null=True)
    max_value = serializers.FloatField(required=False, allow_null=True)
    span_unit = serializers.ChoiceField(
        choices=SpanUnit.choices, required=False, allow_null=True, help_text=_SPAN_UNIT_HELP
    )
    position = serializers.IntegerField(required=False, min_value=0, max_value=MAX_POSITION)


class CategoryCreateInputSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=100)
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=200, required=False, allow_blank=True, default=""
    )
    parent = serializers.CharField(  # type: ignore[assignment]
        max_length=100, required=False, allow_null=True, default=None
    )
    position = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=MAX_POSITION,
        help_text="Index to insert at; the end when omitted.",
    )
    undirected = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Relation questions only: the label is symmetric (head and tail may be swapped).",
    )


class CategoryUpdateInputSerializer(serializers.Serializer):
    code = serializers.CharField(max_length=100, required=False)
    label = serializers.CharField(  # type: ignore[assignment]
        max_length=200, required=False, allow_blank=True
    )
    parent = serializers.CharField(  # type: ignore[assignment]
        max_length=100, required=False, allow_null=True
    )
    position = serializers.IntegerField(
        required=False, min_value=0, max_value=MAX_POSITION, help_text="New index in the order."
    )
    undirected = serializers.BooleanField(
        required=False,
        help_text="Relation questions only, before any annotation: the label is symmetric.",
    )


class CategoryReorderInputSerializer(serializers.Serializer):
    codes = serializers.ListField(
        child=serializers.CharField(max_length=100),
        max_length=MAX_BULK,
        help_text="Every category code of the question, in the new order.",
    )


# --- Coders and items ----------------------------------------------------------------------


class CoderOutputSerializer(serializers.ModelSerializer):
    username = serializers.CharField(
        source="user.username", read_only=True, allow_null=True, default=None
    )

    class Meta:
        model = Coder
        fields = (
            "id",
            "key",
            "name",
            "username",
            "is_active",
            "kind",
            "model_name",
            "model_version",
            "prompt_version",
            "created_at",
        )
        read_only_fields = fields


_KIND_HELP = (
    "person (default) or model: a model coder's labels are tested against the people's "
    "(the alternative annotator test, prediction-powered estimates; docs/models.md)."
)
_MODEL_HELP = {
    "model_name": "The model's name (models only; required for them), e.g. gpt-4o.",
    "model_version": "The model's version or snapshot (models only).",
    "prompt_version": "The prompt's version (models only); each round records the one it "
    "was labelled with.",
}


def _model_field(name: str, **kwargs: Any) -> serializers.CharField:
    return serializers.CharField(
        max_length=200, required=False, allow_blank=True, help_text=_MODEL_HELP[name], **kwargs
    )


class CoderInputSerializer(serializers.Serializer):
    key = serializers.CharField(max_length=200)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    username = serializers.CharField(
        max_length=150,
        required=False,
        allow_null=True,
        default=None,
        help_text="A member of the study to link, by username (managers only; people only).",
    )
    is_active = serializers.BooleanField(required=False, default=True)
    kind = serializers.ChoiceField(
        choices=CoderKind.choices, required=False, default=CoderKind.PERSON, help_text=_KIND_HELP
    )
    model_name = _model_field("model_name", default="")
    model_version = _model_field("model_version", default="")
    prompt_version = _model_field("prompt_version", default="")


class CoderUpdateInputSerializer(serializers.Serializer):
    key = serializers.CharField(max_length=200, required=False)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    username = serializers.CharField(
        max_length=150,
        required=False,
        allow_null=True,
        help_text="A member of the study to link, by username; null unlinks (managers only).",
    )
    is_active = serializers.BooleanField(required=False)
    kind = serializers.ChoiceField(choices=CoderKind.choices, required=False, help_text=_KIND_HELP)
    model_name = _model_field("model_name")
    model_version = _model_field("model_version")
    prompt_version = _model_field("prompt_version")


class ModelRoundVersionOutputSerializer(serializers.Serializer):
    round = serializers.IntegerField(source="round_id")
    round_name = serializers.CharField(source="round.name")
    position = serializers.IntegerField(source="round.position")
    model_version = serializers.CharField()
    prompt_version = serializers.CharField()
    recorded_at = serializers.DateTimeField()


class ModelRoundVersionInputSerializer(serializers.Serializer):
    round = serializers.CharField(
        max_length=200, help_text="The round: an id or a name (digits are an id first)."
    )
    model_version = serializers.CharField(max_length=200, required=False, allow_blank=True)
    prompt_version = serializers.CharField(max_length=200, required=False, allow_blank=True)


class ItemOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Item
        fields = (
            "id",
            "external_id",
            "text",
            "metadata",
            "extent_begin",
            "extent_end",
            "image_width",
            "image_height",
            "image_url",
            "has_image",
            "created_at",
        )
        read_only_fields = fields

    has_image = serializers.SerializerMethodField(
        help_text="Whether an image was uploaded (GET .../items/{id}/image/)."
    )

    def get_has_image(self, item: Item) -> bool:
        known = getattr(item, "has_image", None)
        return ItemImage.objects.filter(item=item).exists() if known is None else bool(known)


_IMAGE_HELP = (
    "An image item's size in pixels, both or neither (region questions check their regions "
    "against it; an uploaded image gives it when unset)."
)


_EXTENT_HELP = (
    "The continuum span questions' units lie on, [extent_begin, extent_end): both or "
    "neither; when neither, 0 to the length of the text (or to the largest unit end)."
)


class ItemInputSerializer(serializers.Serializer):
    external_id = serializers.CharField(max_length=255)
    text = serializers.CharField(required=False, allow_blank=True, default="", max_length=1_000_000)
    metadata = serializers.DictField(
        required=False, default=dict, validators=[_no_nul_in_json], help_text="Any JSON object."
    )
    extent_begin = serializers.FloatField(
        required=False, allow_null=True, default=None, help_text=_EXTENT_HELP
    )
    extent_end = serializers.FloatField(
        required=False, allow_null=True, default=None, help_text=_EXTENT_HELP
    )
    image_width = serializers.FloatField(
        required=False, allow_null=True, default=None, min_value=1e-9, help_text=_IMAGE_HELP
    )
    image_height = serializers.FloatField(
        required=False, allow_null=True, default=None, min_value=1e-9, help_text=_IMAGE_HELP
    )
    image_url = serializers.URLField(
        required=False,
        allow_blank=True,
        default="",
        max_length=2000,
        help_text="Where the image is (http or https); shown under the regions.",
    )


class ItemImageInputSerializer(serializers.Serializer):
    file = serializers.FileField(help_text="A PNG, JPEG, GIF or WebP image.")


class ItemUpdateInputSerializer(serializers.Serializer):
    external_id = serializers.CharField(max_length=255, required=False)
    text = serializers.CharField(required=False, allow_blank=True, max_length=1_000_000)
    metadata = serializers.DictField(required=False, validators=[_no_nul_in_json])
    extent_begin = serializers.FloatField(required=False, allow_null=True, help_text=_EXTENT_HELP)
    extent_end = serializers.FloatField(required=False, allow_null=True, help_text=_EXTENT_HELP)
    image_width = serializers.FloatField(
        required=False, allow_null=True, min_value=1e-9, help_text=_IMAGE_HELP
    )
    image_height = serializers.FloatField(
        required=False, allow_null=True, min_value=1e-9, help_text=_IMAGE_HELP
    )
    image_url = serializers.URLField(required=False, allow_blank=True, max_length=2000)


# --- Rounds --------------------------------------------------------------------------------


class RoundOutputSerializer(serializers.ModelSerializer):
    status = serializers.ChoiceField(choices=RoundStatus.choices, read_only=True)

    class Meta:
        model = Round
        fields = ("id", "name", "position", "status", "opened_at", "closed_at")
        read_only_fields = fields


class RoundCreateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200)
    position = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=0,
        max_value=MAX_POSITION,
        help_text="Order among the study's rounds; after the last one when omitted.",
    )
    opened_at = serializers.DateTimeField(required=False, allow_null=True, default=None)


class RoundUpdateInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False)
    position = serializers.IntegerField(required=False, min_value=0, max_value=MAX_POSITION)
    opened_at = serializers.DateTimeField(required=False)
    closed_at = serializers.DateTimeField(required=False, allow_null=True)


class RoundCloseInputSerializer(serializers.Serializer):
    closed_at = serializers.DateTimeField(
        required=False, allow_null=True, default=None, help_text="Now when omitted."
    )


class DistanceTableOutputSerializer(serializers.Serializer):
    """A question's uploaded distance table: its size and date (the pairs stay stored)."""

    question = serializers.CharField(source="question.key")
    n_pairs = serializers.IntegerField(help_text="0: no table uploaded.")
    uploaded_at = serializers.DateTimeField(allow_null=True)
    fingerprint = serializers.CharField(
        allow_null=True,
        help_text="SHA-256 of the pairs; a computation with distance user records the one it "
        "read (distance_table_fingerprint) and is stale once this differs. Null: no table.",
    )


class DistanceTableInputSerializer(serializers.Serializer):
    rows = serializers.ListField(
        child=serializers.DictField(),
        allow_empty=False,
        help_text="One object per pair: text_a, text_b, distance.",
    )
