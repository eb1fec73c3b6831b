"""Adjudication API shapes: adjudications, round references, stored results, and queries."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from adjudication.models import Adjudication, AdjudicationSource, ReferenceResult
from studies.api.addressing import (
    ID_OR_TEXT_SCHEMA,
    QUESTION_HELP,
    ROUND_HELP,
    QuestionField,
    RoundField,
    _StudyObjectField,
)
from studies.models import Coder, Item, Study
from studies.selectors import _as_id, _as_text

LABEL_SCHEMA: dict[str, Any] = {
    "oneOf": [
        {"type": "string"},
        {"type": "number"},
        {"type": "array", "items": {"type": "string"}},
    ]
}
ITEM_HELP = "The item's id, or its external id (digits are an id first, then an external id)."
CODER_HELP = "The coder's id, or its key (digits are an id first, then a key)."


def _find(model: Any, study: Study, ref: int | str, text_field: str) -> Any:
    rows = model.objects.filter(study=study)
    pk = _as_id(ref)
    if pk is not None:
        found = rows.filter(pk=pk).first()
        if found is not None:
            return found
    text = _as_text(ref)
    return rows.filter(**{text_field: text}).first() if text is not None else None


@extend_schema_field(ID_OR_TEXT_SCHEMA)
class ItemField(_StudyObjectField):
    """An item of the study: its id, or its external id."""

    noun = "item"
    text_name = "external id"
    unknown_code = "unknown_item"

    def find(self, *, study: Study, ref: int | str) -> Item | None:
        return _find(Item, study, ref, "external_id")


@extend_schema_field(ID_OR_TEXT_SCHEMA)
class CoderField(_StudyObjectField):
    """A coder of the study: its id, or its key."""

    noun = "coder"
    text_name = "key"
    unknown_code = "unknown_coder"

    def find(self, *, study: Study, ref: int | str) -> Coder | None:
        return _find(Coder, study, ref, "key")


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string"},
            {"type": "number"},
            {"type": "array", "items": {"type": "string"}},
        ]
    }
)
class LabelValueField(serializers.Field):
    """A label in the question's format: a code, a number, or a list of codes."""

    def to_internal_value(self, data: Any) -> Any:
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class AdjudicationSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="round.name", read_only=True)
    round_id = serializers.IntegerField(read_only=True)
    question = serializers.CharField(source="question.key", read_only=True)
    item = serializers.CharField(source="item.external_id", read_only=True)
    label = serializers.SerializerMethodField()  # type: ignore[assignment]  # the API's name
    coder = serializers.CharField(
        source="source_coder.key", read_only=True, allow_null=True, default=None
    )
    created_by = serializers.CharField(
        source="created_by.username", read_only=True, allow_null=True, default=None
    )
    is_current = serializers.BooleanField(read_only=True)

    class Meta:
        model = Adjudication
        fields = (
            "id", "round", "round_id", "question", "item", "label", "value", "source", "coder",
            "note", "created_at", "created_by", "superseded_at", "is_current",
        )  # fmt: skip
        read_only_fields = fields

    @extend_schema_field(
        {
            "oneOf": [
                {"type": "string"},
                {"type": "number"},
                {"type": "array", "items": {"type": "string"}},
            ]
        }
    )
    def get_label(self, adjudication: Adjudication) -> Any:
        if adjudication.number is not None:
            return adjudication.number
        if adjudication.category_set is not None:
            return adjudication.value.split("|") if adjudication.value else []
        return adjudication.value


class AdjudicationDecisionSerializer(serializers.Serializer):
    label = LabelValueField(  # type: ignore[assignment]  # the API's name for it
        required=False,
        allow_null=True,
        default=None,
        help_text="The reference label in the question's format (or give coder).",
    )
    coder = CoderField(
        required=False,
        allow_null=True,
        default=None,
        help_text=f"Take this coder's label. {CODER_HELP}",
    )
    note = serializers.CharField(
        required=False, allow_blank=True, default="", max_length=10_000, help_text="Why."
    )


class AdjudicationCreateSerializer(AdjudicationDecisionSerializer):
    round = RoundField(help_text=ROUND_HELP)
    question = QuestionField(help_text=QUESTION_HELP)
    item = ItemField(help_text=ITEM_HELP)


class AdjudicationQuerySerializer(serializers.Serializer):
    round = RoundField(required=False, help_text=ROUND_HELP)
    question = QuestionField(required=False, help_text=QUESTION_HELP)
    item = ItemField(required=False, help_text=ITEM_HELP)
    current = serializers.BooleanField(
        required=False,
        allow_null=True,
        default=None,
        help_text="Only the current adjudication of each item (default true); false adds "
        "the superseded ones (the history).",
    )
    source = serializers.ChoiceField(  # type: ignore[assignment]  # the API's name for it
        choices=AdjudicationSource.choices, required=False, help_text="coder or entered."
    )


class RoundReferenceSerializer(serializers.Serializer):
    round = serializers.CharField(source="round.name", read_only=True)
    round_id = serializers.IntegerField(read_only=True)
    gold_coder = serializers.SerializerMethodField()
    updated_at = serializers.DateTimeField(read_only=True, allow_null=True, default=None)

    def get_gold_coder(self, reference: Any) -> str | None:
        coder = getattr(reference, "gold_coder", None)
        return coder.key if coder is not None else None


class RoundReferenceInputSerializer(serializers.Serializer):
    gold_coder = CoderField(
        allow_null=True, help_text=f"The gold coder, or null for none. {CODER_HELP}"
    )


class ReferenceResultSerializer(serializers.ModelSerializer):
    round = serializers.CharField(source="round.name", read_only=True)
    round_id = serializers.IntegerField(read_only=True)
    question = serializers.CharField(source="question.key", read_only=True)

    class Meta:
        model = ReferenceResult
        fields = (
            "id", "round", "round_id", "question", "status", "results", "error",
            "requested_at", "finished_at",
        )  # fmt: skip
        read_only_fields = fields


class ReferenceResultQuerySerializer(serializers.Serializer):
    round = RoundField(required=False, help_text=ROUND_HELP)
    question = QuestionField(required=False, help_text=QUESTION_HELP)


class ReferenceHistoryQuerySerializer(serializers.Serializer):
    question = QuestionField(help_text=QUESTION_HELP)
    coder = CoderField(required=False, help_text=CODER_HELP)


class ReferenceHistoryRowSerializer(serializers.Serializer):
    round = serializers.CharField()
    round_id = serializers.IntegerField()
    position = serializers.IntegerField()
    question = serializers.CharField()
    coder = serializers.CharField()
    n_items = serializers.IntegerField()
    accuracy = serializers.DictField(required=False)
    kappa = serializers.DictField(required=False)
    alpha = serializers.DictField(required=False)
    macro_f1 = serializers.DictField(required=False)
