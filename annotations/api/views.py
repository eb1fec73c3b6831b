"""Annotations of a study: bulk upload (JSON or CSV), reading back, deletion, history."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiRequest,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
    extend_schema_view,
)
from drf_standardized_errors.openapi_serializers import ErrorResponse403Serializer
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ErrorDetail, ParseError, ValidationError
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer

from annotations.api.parsers import CsvParser, SpanCsvParser, csv_text
from annotations.api.serializers import (
    AnnotationBulkInputSerializer,
    AnnotationBulkOutputSerializer,
    AnnotationBulkQuerySerializer,
    AnnotationChangeFilterSerializer,
    AnnotationChangeOutputSerializer,
    AnnotationConflictErrorResponseSerializer,
    AnnotationFilterSerializer,
    AnnotationIngestOutputSerializer,
    AnnotationOutputSerializer,
    AnnotationTooLargeErrorResponseSerializer,
    AnnotationUploadErrorResponseSerializer,
    SpanUploadFormSerializer,
    SpanUploadInputSerializer,
    SpanUploadOutputSerializer,
    SpanUploadQuerySerializer,
    StructuredUploadFormSerializer,
    StructuredUploadInputSerializer,
    StructuredUploadOutputSerializer,
    StructuredUploadQuerySerializer,
)
from annotations.ingest import annotations_ingest_csv
from annotations.selectors import (
    annotation_change_list,
    annotation_get,
    annotation_list,
    annotation_schemes,
)
from annotations.services import (
    MAX_BULK_ROWS,
    annotation_delete,
    annotations_bulk_upsert,
)
from annotations.spans import (
    MAX_SPAN_RECORDS,
    DocumentRecord,
    document_records_from_json,
    span_records_from_json,
    span_units_from_csv,
    span_units_replace,
)
from annotations.structured import (
    ImageRow,
    images_from_json,
    rows_from_csv,
    rows_from_json,
    structured_values_replace,
    values_of,
)
from studies.api.parsers import JSONParser
from studies.api.permissions import StudyScopedMixin
from studies.models import Annotation, AnnotationChange, Question, Role, Round

_CSV_EXAMPLE = (
    "item,coder,label\ndoc-1,alice,sports|politics\ndoc-1,bob,culture\ndoc-2,alice,sports\n"
)
_JSON_EXAMPLE = {
    "round": "Round 1",
    "question": "taxon",
    "create_missing": True,
    "annotations": [
        {"item": "doc-1", "coder": "alice", "label": "animal/dog"},
        {"item": "doc-1", "coder": "bob", "label": "dog"},
        {"item": "doc-2", "coder": "alice", "label": "plant/tree"},
    ],
}

_BULK_DESCRIPTION = f"""Create or update up to {MAX_BULK_ROWS:,} annotations of one round and
question in one request, all or none.

- **JSON** (`application/json`): `{{"round", "question", "create_missing", "annotations":
  [{{"item", "coder", "label"}}, ...]}}`.
- **CSV** (`text/csv`): a header `item,coder,label`, one annotation per line; `round`,
  `question` and `create_missing` go in the query string (a JSON upload refuses them there,
  `csv_only_parameter`). A set is written `a|b|c`; a hierarchy node by its code or its path
  `root/child/leaf`.
- A model coder's row may give its `confidence` in the label (a JSON field or a CSV column,
  from 0 to 1; a person's row with one is refused), kept for the model's calibration.

`round` is the round's id or name, `question` the question's id or key (digits are an id
first, then a name / key).

Unknown items and coders are created when `create_missing` is true, otherwise each is a row
error. Codes the labels carry that the question does not declare are declared as new
categories when `create_categories` is true (nominal and set questions; streamed uploads
too; the answer's `categories_created` lists them, first seen first);
otherwise each is a row error `unknown_category` whose detail names the closest declared
code. Rows whose label is already stored are left alone, so re-sending an upload changes
nothing. Every change is logged (see `annotation-changes`).

A rejection (400) names every bad row and field, `attr` = `annotations.<row>.<field>`
(rows counted from 0, the CSV header excluded), with codes `required`, `invalid_type`,
`unknown_item`, `unknown_coder`, `max_length`, `unknown_category`, `unknown_node`,
`set_for_single_label`, `empty_set`, `not_a_number`, `number_out_of_range`,
`duplicate_row`; the first 1,000 are listed, then one `too_many_errors` with the total.
`round`/`question` errors: `unknown_round`, `unknown_question`. A closed round answers 409
`round_closed`; a JSON upload of more than {MAX_BULK_ROWS:,} rows answers 413 `too_many_rows`.

**Large CSV uploads** (more than {MAX_BULK_ROWS:,} rows; millions are fine) and CSV uploads
with `partial=true` are streamed in batches (`annotations.ingest`, as the
`annotations_import_csv` command does), with the same checks, the `confidence` column
too. Their errors name the CSV's
line (the header is line 1) and field, `attr` = `line <n>.<field>`. Without `partial` they
are all or none (400 listing the bad lines, nothing written); with `partial=true` the good
rows are written and the answer (200) adds `rows`, `rejected` and `rejections` (`line`,
`field`, `code`, `detail`, the first 1,000).

A CSV header naming a column twice (case aside) is a 400 `duplicate_column` on `line 1`. A
CSV line longer than `AGREEMENT_CSV_MAX_LINE_BYTES` (1 MiB by default) refuses the whole
upload, with `partial=true` too: 400 `line_too_long` on `line <n>`, read no further."""


_SPANS_JSON_EXAMPLE = {
    "round": "Round 1",
    "question": "entities",
    "documents": [{"document": "doc-1", "text": "Alice met Bob in Paris."}],
    "units": [
        {"document": "doc-1", "coder": "alice", "begin": 0, "end": 5, "label": "PER"},
        {"document": "doc-1", "coder": "alice", "begin": 17, "end": 22, "label": "LOC"},
        {"document": "doc-1", "coder": "bob", "begin": 0, "end": 5, "label": "PER"},
    ],
    "empty": [{"document": "doc-1", "coder": "carol"}],
}
_SPANS_CSV_EXAMPLE = (
    "document,coder,begin,end,label\ndoc-1,alice,0,5,PER\ndoc-1,alice,17,22,LOC\n"
    "doc-1,bob,0,5,PER\ndoc-1,carol,,,\n"
)
_SPANS_DESCRIPTION = f"""Replace the units of (document, coder) pairs of one round and span
question, all or none. Each pair named gets exactly the units given for it (an empty list
when it is named in `empty`, or, in CSV, on a row with empty begin, end and label: the coder
annotated the document and found nothing); pairs not named keep theirs.

- **JSON** (`application/json`): `{{"round", "question", "create_missing", "documents":
  [{{"document", "text"?, "begin"?, "end"?}}], "units": [{{"document", "coder", "begin",
  "end", "label"}}], "empty": [{{"document", "coder"}}]}}`.
- **CSV** (`text/csv`, or a multipart `file`): the CLI's shape, a header
  `document,coder,begin,end,label`, one unit per line; `round`, `question` and
  `create_missing` in the query string (or as form fields).

Offsets are `[begin, end)`, integers for questions counting characters or tokens, numbers
for seconds, inside the document's extent (its `extent_begin`/`extent_end`, else 0 to the
length of its text; unknown otherwise). `documents` gives new items (or items without them)
their text and extent. Unknown documents and coders are created unless `create_missing` is
false. Every changed pair is logged (see `annotation-changes`, units as `0-5 PER; 7-9 ORG`).

A rejection (400) names every bad record and field, `attr` = `<where>.<field>` (`units.3.begin`,
`empty.0.coder`, `documents.1.end`; CSV: `line 12.label`, the header being line 1), with codes
`required`, `not_a_number`, `not_an_integer`, `end_before_begin`, `outside_extent`,
`unknown_category`, `unknown_item`, `unknown_coder`, `max_length`, `invalid_type`,
`duplicate_document`, `text_conflict`, `extent_conflict`, `units_outside_extent`; a question
that is not a span question is `not_a_span_question`. A closed round answers 409
`round_closed`; more than {MAX_SPAN_RECORDS:,} records 413 `too_many_rows`."""


class _AnnotationScopedMixin(StudyScopedMixin):
    write_role = Role.ANNOTATOR


def _refuse_csv_parameters(
    request: Request, query_serializer: type[Serializer] = AnnotationBulkQuerySerializer
) -> None:
    """A JSON upload names its round and question in its body: the same names in the query
    string would be ignored, so they are refused."""
    given = [name for name in query_serializer().fields.keys() if name in request.query_params]
    if given:
        raise ValidationError(
            {
                name: ErrorDetail(
                    "A JSON upload names its round, question and create_missing in its "
                    f"body; the query parameter {name!r} is for CSV uploads only.",
                    code="csv_only_parameter",
                )
                for name in given
            }
        )


@extend_schema_view(
    list=extend_schema(
        summary="List annotations",
        responses={200: AnnotationOutputSerializer(many=True)},
    ),
    retrieve=extend_schema(
        summary="Get one annotation", responses={200: AnnotationOutputSerializer}
    ),
    destroy=extend_schema(
        summary="Delete one annotation (logged)",
        responses={
            204: None,
            403: ErrorResponse403Serializer,
            409: AnnotationConflictErrorResponseSerializer,
        },
    ),
)
class AnnotationViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    _AnnotationScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.DestroyModelMixin,
    viewsets.GenericViewSet,
):
    """Annotations of a study. Viewers read; annotators and managers write."""

    queryset = Annotation.objects.none()
    serializer_class = AnnotationOutputSerializer
    lookup_value_regex = r"[0-9]{1,18}"
    query_serializers = {
        "list": AnnotationFilterSerializer,
        "bulk": AnnotationBulkQuerySerializer,
        "spans": SpanUploadQuerySerializer,
        "structured": StructuredUploadQuerySerializer,
    }

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):
            return Annotation.objects.none()
        return annotation_list(study=self.study)

    def get_object(self) -> Annotation:
        try:
            return annotation_get(study=self.study, pk=int(self.kwargs["pk"]))
        except (Annotation.DoesNotExist, ValueError):
            raise Http404("No such annotation.") from None

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.query
        annotations = annotation_list(
            study=self.study,
            round_=data.get("round"),
            question=data.get("question"),
            item=data.get("item"),
            coder=data.get("coder"),
            updated_since=data.get("updated_since"),
        )
        page = self.paginate_queryset(annotations)
        rows = page if page is not None else list(annotations)
        output = AnnotationOutputSerializer(
            rows, many=True, context={"schemes": annotation_schemes(rows)}
        )
        return self.get_paginated_response(output.data)

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        annotation = self.get_object()
        output = AnnotationOutputSerializer(
            annotation, context={"schemes": annotation_schemes([annotation])}
        )
        return Response(output.data)

    def perform_destroy(self, instance: Annotation) -> None:
        annotation_delete(annotation=instance, actor=self.actor)

    @extend_schema(
        summary="Upload annotations in bulk (JSON or CSV)",
        description=_BULK_DESCRIPTION,
        request={
            "application/json": OpenApiRequest(
                AnnotationBulkInputSerializer,
                examples=[OpenApiExample("JSON upload (hierarchy paths)", value=_JSON_EXAMPLE)],
            ),
            "text/csv": OpenApiRequest(
                OpenApiTypes.STR,
                examples=[OpenApiExample("CSV upload", value=_CSV_EXAMPLE)],
            ),
        },
        responses={
            200: OpenApiResponse(
                PolymorphicProxySerializer(
                    component_name="AnnotationBulkResult",
                    serializers=[AnnotationBulkOutputSerializer, AnnotationIngestOutputSerializer],
                    resource_type_field_name=None,
                ),
                description="The counts; a streamed CSV upload adds rows, rejected and rejections.",
            ),
            400: OpenApiResponse(
                AnnotationUploadErrorResponseSerializer,
                description="Every bad row and field, or a malformed body.",
            ),
            403: ErrorResponse403Serializer,
            409: OpenApiResponse(
                AnnotationConflictErrorResponseSerializer, description="The round is closed."
            ),
            413: OpenApiResponse(
                AnnotationTooLargeErrorResponseSerializer,
                description=f"More than {MAX_BULK_ROWS:,} rows.",
            ),
        },
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="bulk",
        parser_classes=[JSONParser, CsvParser],
    )
    def bulk(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        if (request.content_type or "").split(";")[0].strip().lower() == CsvParser.media_type:
            envelope = dict(self.query)
            parsed = request.data if isinstance(request.data, dict) else {}
            if "csv_lines" in parsed:
                return self._ingest(envelope, parsed["csv_lines"])
            if "annotations" not in parsed:
                # DRF skips the parser for an empty body.
                raise ParseError("The CSV body is empty: a header item,coder,label is expected.")
            envelope["annotations"] = parsed["annotations"]
        else:
            _refuse_csv_parameters(request)
            body = AnnotationBulkInputSerializer(data=request.data, context={"study": self.study})
            body.is_valid(raise_exception=True)
            envelope = dict(body.validated_data)
        round_, question = envelope.get("round"), envelope.get("question")
        result = annotations_bulk_upsert(
            study=self.study,
            # The round by id (the service locks it); the question by its key.
            round_ref=round_.pk if round_ is not None else None,
            question_key=question.key if question is not None else None,
            rows=envelope["annotations"],
            create_missing=envelope.get("create_missing", False),
            create_categories=envelope.get("create_categories", False),
            actor=self.actor,
        )
        output = AnnotationBulkOutputSerializer(result)
        return Response(output.data, status=status.HTTP_200_OK)

    def _ingest(self, envelope: dict[str, Any], lines: Any) -> Response:
        """A large (or partial) CSV upload, streamed in batches by ``annotations.ingest``."""
        round_, question = envelope.get("round"), envelope.get("question")
        report = annotations_ingest_csv(
            study=self.study,
            round_ref=round_.pk if round_ is not None else None,
            question_key=question.key if question is not None else None,
            lines=lines,
            actor=self.actor,
            create_missing=envelope.get("create_missing", False),
            create_categories=envelope.get("create_categories", False),
            partial=envelope.get("partial", False),
        )
        output = AnnotationIngestOutputSerializer(report.as_dict())
        return Response(output.data, status=status.HTTP_200_OK)

    @extend_schema(
        summary="Upload span annotations (units) of a span question (JSON or CSV)",
        description=_SPANS_DESCRIPTION,
        request={
            "application/json": OpenApiRequest(
                SpanUploadInputSerializer,
                examples=[OpenApiExample("JSON upload", value=_SPANS_JSON_EXAMPLE)],
            ),
            "text/csv": OpenApiRequest(
                OpenApiTypes.STR, examples=[OpenApiExample("CSV upload", value=_SPANS_CSV_EXAMPLE)]
            ),
            "multipart/form-data": SpanUploadFormSerializer,
        },
        responses={
            200: SpanUploadOutputSerializer,
            400: OpenApiResponse(
                AnnotationUploadErrorResponseSerializer,
                description="Every bad record and field (`<where>.<field>`), or a bad body.",
            ),
            403: ErrorResponse403Serializer,
            409: OpenApiResponse(
                AnnotationConflictErrorResponseSerializer, description="The round is closed."
            ),
            413: OpenApiResponse(
                AnnotationTooLargeErrorResponseSerializer,
                description=f"More than {MAX_SPAN_RECORDS:,} records, or a CSV over 64 MB.",
            ),
        },
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="spans",
        parser_classes=[JSONParser, SpanCsvParser, MultiPartParser, FormParser],
    )
    def spans(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        media_type = (request.content_type or "").split(";")[0].strip().lower()
        documents: list[DocumentRecord] = []
        if media_type == SpanCsvParser.media_type:
            options = dict(self.query)
            parsed = request.data if isinstance(request.data, dict) else {}
            if "csv" not in parsed:  # DRF skips the parser for an empty body.
                raise ParseError(
                    "The CSV body is empty: a header document,coder,begin,end,label is expected."
                )
            records = span_units_from_csv(parsed["csv"])
        elif media_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
            payload: Any = request.data
            fields = {**request.query_params.dict(), **{key: payload.get(key) for key in payload}}
            form = SpanUploadFormSerializer(data=fields, context=self.query_serializer_context())
            form.is_valid(raise_exception=True)
            options = dict(form.validated_data)
            records = span_units_from_csv(csv_text(options["file"].read()))
        else:
            _refuse_csv_parameters(request, SpanUploadQuerySerializer)
            body = SpanUploadInputSerializer(data=request.data, context={"study": self.study})
            body.is_valid(raise_exception=True)
            options = dict(body.validated_data)
            records = span_records_from_json(options["units"], options["empty"])
            documents = document_records_from_json(options["documents"])
        round_, question = _span_target(options)
        result = span_units_replace(
            round=round_,
            question=question,
            units=records,
            documents=documents,
            actor=self.actor,
            create_missing=options.get("create_missing", True),
        )
        return Response(SpanUploadOutputSerializer(result).data, status=status.HTTP_200_OK)

    @extend_schema(
        summary="Upload a structured question's values (regions on images)",
        description=(
            "Every (image, coder) pair named gets exactly the regions given for it, all or "
            "none; pairs not named keep theirs. JSON `{round, question, rows, images}`, or a "
            "CSV in the question's shape (`text/csv`, options in the query) or as a multipart "
            "`file`."
        ),
        request=StructuredUploadInputSerializer,
        responses={
            200: StructuredUploadOutputSerializer,
            400: AnnotationUploadErrorResponseSerializer,
            409: AnnotationConflictErrorResponseSerializer,
            413: AnnotationTooLargeErrorResponseSerializer,
        },
    )
    @action(
        detail=False,
        methods=["post"],
        url_path="structured",
        parser_classes=[JSONParser, SpanCsvParser, MultiPartParser, FormParser],
    )
    def structured(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        media_type = (request.content_type or "").split(";")[0].strip().lower()
        images: list[ImageRow] = []
        if media_type == SpanCsvParser.media_type:
            options = dict(self.query)
            parsed = request.data if isinstance(request.data, dict) else {}
            text = parsed.get("csv", "")
        elif media_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
            payload: Any = request.data
            fields = {**request.query_params.dict(), **{key: payload.get(key) for key in payload}}
            form = StructuredUploadFormSerializer(
                data=fields, context=self.query_serializer_context()
            )
            form.is_valid(raise_exception=True)
            options = dict(form.validated_data)
            text = csv_text(options["file"].read())
        else:
            _refuse_csv_parameters(request, StructuredUploadQuerySerializer)
            body = StructuredUploadInputSerializer(data=request.data, context={"study": self.study})
            body.is_valid(raise_exception=True)
            options = dict(body.validated_data)
            text = None
        round_, question = _span_target(options)
        values = values_of(question)
        if text is None:
            rows = rows_from_json(options["rows"])
            images = images_from_json(options["images"])
        else:
            rows = rows_from_csv(text, values)
        result = structured_values_replace(
            round=round_,
            question=question,
            rows=rows,
            images=images,
            actor=self.actor,
            create_missing=options.get("create_missing", True),
        )
        return Response(StructuredUploadOutputSerializer(result).data, status=status.HTTP_200_OK)


def _span_target(options: dict[str, Any]) -> tuple[Round, Question]:
    """The round and question of a span upload, each a 400 ``required`` when missing."""
    missing = {
        name: ErrorDetail(f"A {name} is required.", code="required")
        for name in ("round", "question")
        if options.get(name) is None
    }
    if missing:
        raise ValidationError(missing)
    return options["round"], options["question"]


@extend_schema_view(
    list=extend_schema(
        summary="List annotation changes (history)",
        responses={200: AnnotationChangeOutputSerializer(many=True)},
    ),
)
class AnnotationChangeViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    _AnnotationScopedMixin, mixins.ListModelMixin, viewsets.GenericViewSet
):
    """Every creation, change and deletion of the study's annotations, newest first.

    A crowd import logged as one batch entry is listed as the per-annotation "created"
    entries it stands for (each carrying the batch entry's id), filters and pages included.
    """

    queryset = AnnotationChange.objects.none()
    serializer_class = AnnotationChangeOutputSerializer
    query_serializers = {"list": AnnotationChangeFilterSerializer}

    def get_queryset(self) -> Any:
        if getattr(self, "swagger_fake_view", False):
            return AnnotationChange.objects.none()
        return annotation_change_list(study=self.study).rows

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.query
        changes = annotation_change_list(
            study=self.study,
            round_=data.get("round"),
            question=data.get("question"),
            item=data.get("item"),
            coder=data.get("coder"),
            action=data.get("action"),
            since=data.get("since"),
        )
        page = self.paginate_queryset(changes)
        rows = page if page is not None else list(changes)
        return self.get_paginated_response(AnnotationChangeOutputSerializer(rows, many=True).data)
