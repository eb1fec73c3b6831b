"""Input and output serializers of the annotation endpoints.

The bulk upload's rows are NOT validated field by field by DRF (100,000 child serializers
would take longer than the whole upload): the envelope is validated here, the rows by
``annotations.services``, which reports every bad row and field at once.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from annotations.selectors import annotation_label
from annotations.services import MAX_BULK_ROWS
from annotations.spans import MAX_SPAN_RECORDS
from annotations.structured import MAX_STRUCTURED_ROWS
from studies.api.addressing import QUESTION_HELP, ROUND_HELP, QuestionField, RoundField
from studies.models import AnnotationChange

LABEL_SCHEMA = {
    "description": (
        "A category code (nominal, ordinal); a node's code or path `root/child/leaf` "
        "(hierarchy); a number (interval, ratio); a list of codes or `a|b|c` (set)."
    ),
    "oneOf": [
        {"type": "string"},
        {"type": "number"},
        {"type": "array", "items": {"type": "string"}},
    ],
}

LABEL_OUTPUT_SCHEMA = {
    "description": (
        "The code (nominal, ordinal, hierarchy), the number (interval, ratio), or the "
        "list of codes in declared order (set); null for a span question (see `units`)."
    ),
    "nullable": True,
    "oneOf": [
        {"type": "string"},
        {"type": "number"},
        {"type": "array", "items": {"type": "string"}},
    ],
}

UNITS_OUTPUT_SCHEMA = {
    "type": "array",
    "nullable": True,
    "description": (
        "Span questions: the coder's units in order, `{begin, end, label}` (end exclusive, "
        "label = category code); an empty list when the coder annotated the item and found "
        "nothing. Null for other questions."
    ),
    "items": {
        "type": "object",
        "properties": {
            "begin": {"type": "number"},
            "end": {"type": "number"},
            "label": {"type": "string"},
        },
        "required": ["begin", "end", "label"],
    },
}


@extend_schema_field(LABEL_SCHEMA)
class LabelInputField(serializers.Field):
    """Documentation only: labels are checked by the service against the question."""


class AnnotationRowSerializer(serializers.Serializer):
    """One row of a bulk upload (documentation of the row shape)."""

    item = serializers.CharField(help_text="The item's external id.")
    coder = serializers.CharField(help_text="The coder's key.")
    label = LabelInputField()  # type: ignore[assignment]  # the API's name for it
    confidence = serializers.FloatField(
        required=False,
        min_value=0,
        max_value=1,
        help_text="A model coder's confidence in its label, from 0 to 1 (optional; read by "
        "the model's calibration; a person's row with one is refused).",
    )


@extend_schema_field(AnnotationRowSerializer(many=True))
class AnnotationRowsField(serializers.Field):
    """The rows, passed through as parsed (only their number and container are checked)."""

    default_error_messages = {
        "not_a_list": "A list of annotations is expected.",
    }

    def to_internal_value(self, data: Any) -> list[Any]:
        if not isinstance(data, list):
            self.fail("not_a_list")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


CREATE_CATEGORIES_HELP = (
    "Declare the codes the labels carry that the question does not declare, at the end of "
    "its categories (nominal and set questions). Off: each such "
    "label is a row error `unknown_category` naming the closest declared code."
)


class AnnotationBulkInputSerializer(serializers.Serializer):
    round = RoundField(help_text=ROUND_HELP)
    question = QuestionField(help_text=QUESTION_HELP)
    create_missing = serializers.BooleanField(
        default=False,
        help_text="Create unknown items and coders instead of rejecting their rows.",
    )
    create_categories = serializers.BooleanField(default=False, help_text=CREATE_CATEGORIES_HELP)
    annotations = AnnotationRowsField(
        help_text=f"At most {MAX_BULK_ROWS} rows, each `{{item, coder, label}}`."
    )


class AnnotationBulkQuerySerializer(serializers.Serializer):
    """Query parameters of a CSV upload (a JSON upload carries them in its body)."""

    round = RoundField(required=False, help_text=f"CSV uploads only. {ROUND_HELP}")
    question = QuestionField(required=False, help_text=f"CSV uploads only. {QUESTION_HELP}")
    create_missing = serializers.BooleanField(
        required=False,
        default=False,
        help_text="CSV uploads: create unknown items and coders.",
    )
    create_categories = serializers.BooleanField(
        required=False, default=False, help_text=f"CSV uploads: {CREATE_CATEGORIES_HELP}"
    )
    partial = serializers.BooleanField(  # type: ignore[assignment]  # a field, not the flag
        required=False,
        default=False,
        help_text="CSV uploads: write the good rows and report the bad ones (by line and "
        "field) instead of refusing the whole upload.",
    )


class AnnotationBulkOutputSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    items_created = serializers.IntegerField()
    coders_created = serializers.IntegerField()
    categories_created = serializers.ListField(
        child=serializers.CharField(),
        default=list,
        help_text="The categories declared by this upload (create_categories), in order.",
    )


class IngestErrorSerializer(serializers.Serializer):
    line = serializers.IntegerField(help_text="The CSV's line (the header is line 1).")
    field = serializers.CharField(help_text="item, coder, label, or empty for the whole line.")
    code = serializers.CharField()
    detail = serializers.CharField()


class AnnotationIngestOutputSerializer(AnnotationBulkOutputSerializer):
    """A streamed CSV upload (more rows than a bulk upload, or ``partial=true``)."""

    rows = serializers.IntegerField(help_text="Data rows read.")
    rejected = serializers.IntegerField(help_text="Rows left out (partial uploads only).")
    rejections = IngestErrorSerializer(many=True, help_text="The first 1,000 rows left out.")


# --- Span uploads ----------------------------------------------------------------------------


class SpanUnitRowSerializer(serializers.Serializer):
    """One unit of a span upload (documentation of the row shape)."""

    document = serializers.CharField(help_text="The item's external id.")
    coder = serializers.CharField(help_text="The coder's key.")
    begin = serializers.FloatField(
        help_text="Where the unit begins (an integer for characters and tokens)."
    )
    end = serializers.FloatField(help_text="Where it ends, exclusive; not before begin.")
    label = serializers.CharField(  # type: ignore[assignment]  # the API's name for it
        help_text="A category code of the question."
    )


class SpanEmptyRowSerializer(serializers.Serializer):
    """A coder who annotated a document and found nothing there."""

    document = serializers.CharField(help_text="The item's external id.")
    coder = serializers.CharField(help_text="The coder's key.")


class SpanDocumentRowSerializer(serializers.Serializer):
    """A document's text and extent, given to a new item or to one that has none yet."""

    document = serializers.CharField(help_text="The item's external id.")
    text = serializers.CharField(required=False, help_text="The item's text.")
    begin = serializers.FloatField(required=False, help_text="The extent's begin (with end).")
    end = serializers.FloatField(required=False, help_text="The extent's end (with begin).")


def _passed_list(row_serializer: serializers.Serializer) -> type[serializers.Field]:
    """A list of rows passed through as parsed (the service checks every row at once)."""

    @extend_schema_field(row_serializer)
    class RowsField(serializers.Field):
        default_error_messages = {"not_a_list": "A list is expected."}

        def to_internal_value(self, data: Any) -> list[Any]:
            if not isinstance(data, list):
                self.fail("not_a_list")
            return data

        def to_representation(self, value: Any) -> Any:
            return value

    return RowsField


SpanUnitRowsField = _passed_list(SpanUnitRowSerializer(many=True))
SpanEmptyRowsField = _passed_list(SpanEmptyRowSerializer(many=True))
SpanDocumentRowsField = _passed_list(SpanDocumentRowSerializer(many=True))


class SpanUploadInputSerializer(serializers.Serializer):
    round = RoundField(help_text=ROUND_HELP)
    question = QuestionField(help_text=f"A span question. {QUESTION_HELP}")
    create_missing = serializers.BooleanField(
        default=True, help_text="Create unknown documents (items) and coders (default true)."
    )
    documents = SpanDocumentRowsField(required=False, default=list)
    units = SpanUnitRowsField(
        required=False,
        default=list,
        help_text=f"At most {MAX_SPAN_RECORDS:,} records in all (units, empty, documents).",
    )
    empty = SpanEmptyRowsField(required=False, default=list)


class SpanUploadQuerySerializer(serializers.Serializer):
    """Query parameters of a CSV or multipart span upload (JSON carries them in its body)."""

    round = RoundField(required=False, help_text=f"CSV and multipart uploads. {ROUND_HELP}")
    question = QuestionField(
        required=False, help_text=f"CSV and multipart uploads. {QUESTION_HELP}"
    )
    create_missing = serializers.BooleanField(
        required=False,
        default=True,
        help_text="CSV and multipart uploads: create unknown documents and coders (default true).",
    )


class SpanUploadFormSerializer(SpanUploadQuerySerializer):
    """A multipart span upload: the CSV file, and the options as form fields."""

    file = serializers.FileField(help_text="A CSV document,coder,begin,end,label.")


class SpanUploadOutputSerializer(serializers.Serializer):
    documents = serializers.IntegerField(help_text="Distinct documents named.")
    coders = serializers.IntegerField(help_text="Distinct coders named.")
    units = serializers.IntegerField(help_text="Units uploaded.")
    annotations = serializers.IntegerField(help_text="(document, coder) pairs uploaded.")
    created = serializers.IntegerField(help_text="Pairs annotated for the first time.")
    replaced = serializers.IntegerField(help_text="Pairs whose units changed.")
    unchanged = serializers.IntegerField(help_text="Pairs sent with the units they had.")
    items_created = serializers.IntegerField()
    items_updated = serializers.IntegerField(help_text="Items given a text or an extent.")
    coders_created = serializers.IntegerField()


class AnnotationFilterSerializer(serializers.Serializer):
    round = RoundField(required=False, help_text=ROUND_HELP)
    question = QuestionField(required=False, help_text=QUESTION_HELP)
    item = serializers.CharField(required=False, help_text="An item's external id.")
    coder = serializers.CharField(required=False, help_text="A coder's key.")
    updated_since = serializers.DateTimeField(
        required=False, help_text="Only annotations changed at or after this time."
    )


class AnnotationChangeFilterSerializer(serializers.Serializer):
    round = RoundField(required=False, help_text=ROUND_HELP)
    question = QuestionField(required=False, help_text=QUESTION_HELP)
    item = serializers.CharField(required=False, help_text="An item's external id.")
    coder = serializers.CharField(required=False, help_text="A coder's key.")
    action = serializers.ChoiceField(choices=AnnotationChange.Action.choices, required=False)
    since = serializers.DateTimeField(
        required=False, help_text="Only changes made at or after this time."
    )


@extend_schema_field(LABEL_OUTPUT_SCHEMA)
class LabelOutputField(serializers.Field):
    def to_representation(self, value: Any) -> Any:
        return value


class AnnotationOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round_id")
    round_name = serializers.CharField(source="round.name")
    question = serializers.CharField(source="question.key", help_text="The question's key.")
    question_id = serializers.IntegerField()
    item = serializers.CharField(source="item.external_id")
    coder = serializers.CharField(source="coder.key")
    label = serializers.SerializerMethodField()  # type: ignore[assignment]
    label_path = serializers.SerializerMethodField()
    units = serializers.SerializerMethodField()
    updated_at = serializers.DateTimeField()

    @extend_schema_field(LABEL_OUTPUT_SCHEMA)
    def get_label(self, annotation: Any) -> Any:
        if annotation.units is not None:
            return None
        scheme = self.context["schemes"][annotation.question_id]
        return scheme.json_value(annotation_label(annotation))

    @extend_schema_field(UNITS_OUTPUT_SCHEMA)
    def get_units(self, annotation: Any) -> list[dict[str, Any]] | None:
        if annotation.units is None:
            return None
        return self.context["schemes"][annotation.question_id].units_json(annotation.units)

    @extend_schema_field(
        {
            "type": "string",
            "nullable": True,
            "description": "Hierarchy questions: the node's path `root/child/leaf`.",
        }
    )
    def get_label_path(self, annotation: Any) -> str | None:
        scheme = self.context["schemes"][annotation.question_id]
        return scheme.path(annotation_label(annotation))


class AnnotationChangeOutputSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    round = serializers.IntegerField(source="round_id")
    round_name = serializers.CharField(source="round.name")
    question = serializers.CharField(source="question.key", help_text="The question's key.")
    question_id = serializers.IntegerField()
    item = serializers.CharField(source="item.external_id")
    coder = serializers.CharField(source="coder.key")
    action = serializers.ChoiceField(choices=AnnotationChange.Action.choices)
    old_value = serializers.CharField(allow_null=True, help_text="Canonical text; null if created.")
    new_value = serializers.CharField(allow_null=True, help_text="Canonical text; null if deleted.")
    changed_at = serializers.DateTimeField()
    changed_by = serializers.CharField(
        source="changed_by.get_username", allow_null=True, default=None
    )
    token = serializers.IntegerField(source="token_id", allow_null=True)
    token_name = serializers.CharField(source="token.name", allow_null=True, default=None)


class ErrorItemSerializer(serializers.Serializer):
    code = serializers.CharField()
    detail = serializers.CharField()
    attr = serializers.CharField(allow_null=True)


class AnnotationUploadErrorResponseSerializer(serializers.Serializer):
    """A rejected upload: every bad row and field (``annotations.<row>.<field>``)."""

    type = serializers.ChoiceField(choices=["validation_error", "client_error"])
    errors = ErrorItemSerializer(many=True)  # type: ignore[assignment]


class AnnotationConflictErrorResponseSerializer(serializers.Serializer):
    """The round is closed (code ``round_closed``)."""

    type = serializers.ChoiceField(choices=["client_error"])
    errors = ErrorItemSerializer(many=True)  # type: ignore[assignment]


class AnnotationTooLargeErrorResponseSerializer(serializers.Serializer):
    """More rows than one upload may carry (code ``too_many_rows``)."""

    type = serializers.ChoiceField(choices=["client_error"])
    errors = ErrorItemSerializer(many=True)  # type: ignore[assignment]


@extend_schema_field({"type": "array", "items": {"type": "object", "additionalProperties": True}})
class _PassThroughList(serializers.Field):
    """A list passed through as parsed: each row is checked by the service, which names
    every bad row and field at once."""

    default_error_messages = {"not_a_list": "A list is expected."}

    def to_internal_value(self, data: Any) -> list[Any]:
        if not isinstance(data, list):
            self.fail("not_a_list")
        return data

    def to_representation(self, value: Any) -> Any:
        return value


class StructuredUploadInputSerializer(serializers.Serializer):
    round = RoundField(help_text=ROUND_HELP)
    question = QuestionField(help_text=f"A region question. {QUESTION_HELP}")
    create_missing = serializers.BooleanField(
        default=True, help_text="Create unknown items (images) and coders (default true)."
    )
    rows = _PassThroughList(
        help_text=(
            "One object per region, keyed as the question's CSV columns (boxes: image, coder, "
            "x, y, width, height, label, optional rotation; polygons: image, coder, points, "
            "label; keypoints: image, coder, x, y, label); a row with every value empty says "
            f"the coder annotated the image and drew nothing. At most {MAX_STRUCTURED_ROWS:,}."
        )
    )
    images = _PassThroughList(
        required=False,
        default=list,
        help_text="Images' sizes in pixels and URLs: {image, width, height, url}.",
    )


class StructuredUploadQuerySerializer(serializers.Serializer):
    """Query parameters of a CSV or multipart structured upload."""

    round = RoundField(required=False, help_text=f"CSV and multipart uploads. {ROUND_HELP}")
    question = QuestionField(
        required=False, help_text=f"CSV and multipart uploads. {QUESTION_HELP}"
    )
    create_missing = serializers.BooleanField(
        required=False,
        default=True,
        help_text="CSV and multipart uploads: create unknown items and coders (default true).",
    )


class StructuredUploadFormSerializer(StructuredUploadQuerySerializer):
    file = serializers.FileField(help_text="A CSV in the question's shape.")


class StructuredUploadOutputSerializer(serializers.Serializer):
    items = serializers.IntegerField(help_text="Distinct items named.")
    coders = serializers.IntegerField(help_text="Distinct coders named.")
    records = serializers.IntegerField(help_text="Regions (records) uploaded.")
    annotations = serializers.IntegerField(help_text="(item, coder) pairs uploaded.")
    created = serializers.IntegerField(help_text="Pairs annotated for the first time.")
    replaced = serializers.IntegerField(help_text="Pairs whose value changed.")
    unchanged = serializers.IntegerField(help_text="Pairs sent with the value they had.")
    items_created = serializers.IntegerField()
    coders_created = serializers.IntegerField()
