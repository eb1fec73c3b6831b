"""Input and output serializers of the import and export endpoints."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from exchange.formats import FORMATS
from exchange.mapping import (
    CASE_INSENSITIVE,
    CATEGORY_MAP,
    MappingOptionError,
    category_map_from_text,
    coder_map_from_text,
    question_map_from_text,
)
from studies.api.addressing import QUESTION_HELP, ROUND_HELP, QuestionField, RoundField
from studies.api.schema import _ErrorItemSerializer
from studies.text_rules import lone_surrogate_path

FORMAT_CHOICES = sorted(FORMATS)
_Option = TypeVar("_Option")


class ImportOptionsSerializer(serializers.Serializer):
    """The options of an import: form fields of a multipart upload, or the query string."""

    format = serializers.ChoiceField(choices=FORMAT_CHOICES, help_text="The file's format.")
    round = RoundField(help_text=ROUND_HELP)
    question = QuestionField(
        required=False,
        allow_blank=True,
        help_text="The question (id or key) for labels whose tool field names no question of "
        "the study (or files without fields: doccano, Prodigy choices, CSVs without a question "
        "column).",
    )
    question_map = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="JSON object from the tool's field (Label Studio from_name, INCEpTION "
        "feature, Prodigy label, question column) to a question key, or null to ignore the "
        'field: {"sentiment_tag": "sentiment", "comment": null}.',
    )
    category_map = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="JSON object from a label of the file to a category code (a node's code or "
        'path for a hierarchy), or null to drop that label: {"pos": "positive", "n/a": '
        "null}. An entry applies to every question; an object value maps the labels of one "
        'question only: {"tone": {"good": "positive"}}. It is applied before exact matching.',
    )
    case_insensitive_categories = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Match a label that is no code to the one code equal to it ignoring case "
        "and surrounding whitespace (two such codes: the row is rejected as ambiguous).",
    )
    coder_map = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="JSON object from an annotator name of the file to an existing coder: its "
        'key (a string) or its id (an integer): {"annotator_17": "alice"}. Names not in the '
        "map are coder keys as they are.",
    )
    create_missing = serializers.BooleanField(
        required=False, default=False, help_text="Create unknown items and coders."
    )
    dry_run = serializers.BooleanField(
        required=False, default=False, help_text="Report what would happen; write nothing."
    )
    partial = serializers.BooleanField(  # type: ignore[assignment]  # the API's name for it
        required=False,
        default=False,
        help_text="Write the valid rows even when others are rejected (default: all or none).",
    )
    coder = serializers.CharField(
        required=False,
        allow_blank=True,
        help_text="The annotator of a one-annotator file (doccano, CoNLL, a WebAnno TSV file; "
        "default: the file name).",
    )
    document_key = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=200,
        help_text="What names a document (item), so that several tools' exports of the same "
        "documents meet: id (default: Label Studio task id, doccano id, Prodigy _input_hash, "
        "CoNLL position), text (a hash of the document's text, the same in every tool), or a "
        "field of the task's data / the record / its meta (e.g. doc_id).",
    )
    predictions = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Import a tool's model predictions (Label Studio predictions, by their "
        "model_version; Prodigy's OpenAI answers) as the labels of model coders, kept apart "
        "from the people's (created with create_missing); false skips them.",
    )
    layer = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=300,
        help_text="inception_tsv: the span layer and feature to read, Layer or Layer.feature "
        "(default NamedEntity.value).",
    )

    def validate_question_map(self, value: str) -> dict[str, str | None]:
        return _option(question_map_from_text, value)

    def validate_category_map(self, value: str) -> dict[str, str | dict[str, str | None] | None]:
        return _option(category_map_from_text, value)

    def validate_coder_map(self, value: str) -> dict[str, str | int]:
        return _option(coder_map_from_text, value)


def _option(read: Callable[[str], _Option], text: str) -> _Option:
    try:
        value = read(text)
    except MappingOptionError as error:
        raise serializers.ValidationError(str(error)) from None
    path = lone_surrogate_path(value)
    if path is not None:
        raise serializers.ValidationError(
            f"The name at {path or 'the top'} holds a lone UTF-16 surrogate (an escape "
            "\\ud800 to \\udfff without its pair), which is no character.",
            code="lone_surrogate",
        )
    return value


class ImportUploadSerializer(ImportOptionsSerializer):
    """A multipart upload: the file and the options as form fields."""

    file = serializers.FileField(help_text="The export file of the labeling tool.")


class RejectionSerializer(serializers.Serializer):
    source = serializers.CharField(  # type: ignore[assignment]  # the API's name for it
        help_text="Where in the file: line, task, annotation..."
    )
    field = serializers.CharField(help_text="The field of that record.")
    code = serializers.CharField()
    detail = serializers.CharField()


class QuestionReportSerializer(serializers.Serializer):
    question = serializers.CharField()
    annotations = serializers.IntegerField(help_text="Labels of the file for this question.")
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()


class LabelMappingSerializer(serializers.Serializer):
    question = serializers.CharField()
    label = serializers.CharField(  # type: ignore[assignment]  # the report's name for it
        help_text="The label as the file has it."
    )
    code = serializers.CharField(allow_null=True, help_text="The code written; null: dropped.")
    rule = serializers.ChoiceField(choices=[CATEGORY_MAP, CASE_INSENSITIVE])
    count = serializers.IntegerField(help_text="Labels of the file rewritten so.")


class CoderMappingSerializer(serializers.Serializer):
    name = serializers.CharField(help_text="The annotator's name in the file.")
    coder = serializers.CharField(help_text="The key of the coder the labels went to.")
    annotations = serializers.IntegerField(help_text="Labels of the file so moved.")


@extend_schema_field({"type": "object", "additionalProperties": {"type": "integer"}})
class _CountsField(serializers.DictField):
    pass


class SpanCoderReportSerializer(serializers.Serializer):
    coder = serializers.CharField()
    documents = serializers.IntegerField(help_text="Documents the coder annotated.")
    units = serializers.IntegerField()
    empty = serializers.IntegerField(help_text="Documents annotated with nothing found.")


class SpanQuestionReportSerializer(serializers.Serializer):
    question = serializers.CharField()
    documents = serializers.IntegerField()
    units = serializers.IntegerField()
    empty = serializers.IntegerField(
        help_text="(document, coder) pairs annotated with nothing found."
    )
    coders = SpanCoderReportSerializer(many=True)


class ImportReportSerializer(serializers.Serializer):
    format = serializers.CharField()
    round = serializers.CharField()
    dry_run = serializers.BooleanField()
    partial = serializers.BooleanField()  # type: ignore[assignment]  # the API's name
    committed = serializers.BooleanField(help_text="True when the import was written.")
    rows_read = serializers.IntegerField(help_text="Records read (lines, results, cells).")
    annotations = serializers.IntegerField(help_text="Labels found in the file.")
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
    items_created = serializers.IntegerField()
    coders_created = serializers.IntegerField()
    rejected_count = serializers.IntegerField()
    rejected = RejectionSerializer(many=True, help_text="The first 1,000 rejections.")
    skipped = _CountsField(help_text="Records deliberately not imported, by reason.")
    ignored_fields = _CountsField(
        help_text="Per tool field mapped to null in question_map: its records left out."
    )
    label_mappings = LabelMappingSerializer(
        many=True, help_text="File labels rewritten by category_map or ignoring case."
    )
    coder_mappings = CoderMappingSerializer(
        many=True, help_text="Annotator names of the file put on existing coders by coder_map."
    )
    questions = QuestionReportSerializer(many=True)
    spans = SpanQuestionReportSerializer(
        many=True,
        help_text="Per span question: documents, units and documents annotated with nothing "
        "found, in all and per coder.",
    )
    notes = serializers.ListField(child=serializers.CharField())


class ImportRejectedResponseSerializer(serializers.Serializer):
    """A rejected import: the standard error shape, one error per rejection, plus the report."""

    type = serializers.CharField()
    errors = _ErrorItemSerializer(many=True)  # type: ignore[assignment]
    report = ImportReportSerializer()

    @staticmethod
    def body(report: Any) -> dict[str, Any]:
        return {
            "type": "validation_error",
            "errors": [
                {
                    "code": rejection.code,
                    "detail": f"{rejection.source}: {rejection.detail}",
                    "attr": f"{rejection.source}.{rejection.field}",
                }
                for rejection in report.rejected
            ],
            "report": ImportReportSerializer(report).data,
        }


class ImportFormatSerializer(serializers.Serializer):
    name = serializers.CharField()
    title = serializers.CharField()
    description = serializers.CharField()


class ExportQuerySerializer(serializers.Serializer):
    round = RoundField(help_text=ROUND_HELP)
    question = QuestionField(help_text=QUESTION_HELP)
    format = serializers.ChoiceField(
        choices=["json", "csv"], required=False, help_text="csv for CSV; JSON otherwise."
    )


class AnnotationExportQuerySerializer(ExportQuerySerializer):
    shape = serializers.ChoiceField(
        choices=["long", "wide"],
        default="long",
        help_text="long: item,coder,label; wide: item then one column per coder.",
    )


class StructuredExportQuerySerializer(ExportQuerySerializer):
    shape = serializers.ChoiceField(
        choices=["rows", "coco"],
        default="rows",
        help_text="rows: the question's CSV shape (or the upload's JSON body); coco: one COCO "
        "detection file (JSON) with an annotator field per annotation.",
    )


class ResultExportQuerySerializer(ExportQuerySerializer):
    computation = serializers.IntegerField(
        required=False,
        min_value=1,
        help_text="A finished computation's id (default: the latest one of the round).",
    )


class AnnotationExportSerializer(serializers.Serializer):
    round = serializers.CharField()
    question = serializers.CharField()
    kind = serializers.CharField()
    coders = serializers.ListField(child=serializers.CharField())
    rows = serializers.ListField(
        child=serializers.DictField(),
        help_text="long: {item, coder, label}; wide: {item, labels: {coder: label}}.",
    )


class SpanExportDocumentSerializer(serializers.Serializer):
    document = serializers.CharField()
    begin = serializers.FloatField()
    end = serializers.FloatField()


class SpanExportUnitSerializer(serializers.Serializer):
    document = serializers.CharField()
    coder = serializers.CharField()
    begin = serializers.FloatField()
    end = serializers.FloatField()
    label = serializers.CharField()  # type: ignore[assignment]  # the API's name for it


class SpanExportEmptySerializer(serializers.Serializer):
    document = serializers.CharField()
    coder = serializers.CharField()


class SpanExportSerializer(serializers.Serializer):
    """A span question's units of one round: the span upload's body, so it uploads again."""

    round = serializers.CharField()
    question = serializers.CharField()
    kind = serializers.CharField()
    span_unit = serializers.CharField()
    coders = serializers.ListField(child=serializers.CharField())
    documents = SpanExportDocumentSerializer(
        many=True, help_text="The documents with an explicit extent."
    )
    units = SpanExportUnitSerializer(many=True, help_text="One entry per unit, in stored order.")
    empty = SpanExportEmptySerializer(
        many=True, help_text="Coders who annotated a document and found nothing there."
    )


class ItemDiagnosticSerializer(serializers.Serializer):
    item = serializers.CharField()
    n_coders = serializers.IntegerField()
    n_distinct = serializers.IntegerField()
    majority = serializers.CharField(allow_null=True)
    majority_share = serializers.FloatField()
    pairwise_agreement = serializers.FloatField(allow_null=True)
    mean = serializers.FloatField(required=False, help_text="Numeric questions only.")
    spread = serializers.FloatField(required=False, help_text="Numeric questions only.")
    labels = serializers.DictField(child=serializers.JSONField())


class DiagnosticsExportSerializer(serializers.Serializer):
    round = serializers.CharField()
    question = serializers.CharField()
    kind = serializers.CharField()
    coders = serializers.ListField(child=serializers.CharField())
    items = ItemDiagnosticSerializer(many=True)


class CoefficientRowSerializer(serializers.Serializer):
    coefficient = serializers.CharField()
    value = serializers.FloatField(allow_null=True)
    se = serializers.FloatField(allow_null=True)
    ci_low = serializers.FloatField(allow_null=True)
    ci_high = serializers.FloatField(allow_null=True)
    ci_level = serializers.FloatField(allow_null=True)


class ResultsExportSerializer(serializers.Serializer):
    computation = serializers.IntegerField()
    question = serializers.CharField()
    scope = serializers.CharField()
    parameters = serializers.DictField()
    finished_at = serializers.CharField(allow_null=True)
    n_annotations = serializers.IntegerField(allow_null=True)
    metrics_version = serializers.CharField()
    coefficients = CoefficientRowSerializer(many=True)
    diagnostics = serializers.JSONField(allow_null=True)
    skipped = serializers.JSONField(allow_null=True)
