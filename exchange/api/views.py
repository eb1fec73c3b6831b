"""Imports of labeling tools' export files, and exports in the generic shapes."""

from __future__ import annotations

import json
from collections.abc import Mapping
from types import SimpleNamespace
from typing import IO, Any

from django.http import Http404
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import ErrorDetail, NotFound, ParseError, ValidationError
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.parsers import BaseParser, FormParser, MultiPartParser
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response

from annotations.api.serializers import (
    AnnotationConflictErrorResponseSerializer,
    AnnotationTooLargeErrorResponseSerializer,
)
from annotations.selectors import span_table, structured_table
from exchange import exports
from exchange.api.serializers import (
    AnnotationExportQuerySerializer,
    AnnotationExportSerializer,
    DiagnosticsExportSerializer,
    ExportQuerySerializer,
    ImportFormatSerializer,
    ImportOptionsSerializer,
    ImportRejectedResponseSerializer,
    ImportReportSerializer,
    ImportUploadSerializer,
    ResultExportQuerySerializer,
    ResultsExportSerializer,
    SpanExportSerializer,
    StructuredExportQuerySerializer,
)
from exchange.formats import FORMATS
from exchange.imports import MAX_IMPORT_BYTES, ImportFileTooLargeError, annotations_import
from exchange.selectors import annotation_table, computation_for_export, stored_item_table
from studies.api.permissions import StudyScopedMixin
from studies.models import Question, Role, Round, Study

_IMPORT_DESCRIPTION = f"""Import a labeling tool's export file into one round, all or none.

Send the file either as **multipart** (`file` plus the options as form fields) or as the
**raw request body** (any content type, options in the query string). Formats:
{chr(10).join(f"- `{f.name}`: {f.title}. {f.description}" for f in FORMATS.values())}

Each label is mapped onto a question: the tool's field (Label Studio `from_name`,
INCEpTION feature, Prodigy `label`, a `question` column) through `question_map`, else a
question with that key, else `question` when the file has a single field; files without
fields use `question`; a field mapped to null is ignored, whatever its records hold (a Label
Studio `textarea`...). Labels go to a category code through `category_map` first (null
drops the label), then as they are, then, with `case_insensitive_categories`, to the one
code equal to them ignoring case. `coder_map` puts an annotator name of the file on an
existing coder (by key or id); other names are coder keys, and unknown items and coders
are created with `create_missing`.

Span results (Label Studio `labels`, doccano sequence labeling, Prodigy `ner`/`spans`,
INCEpTION, CoNLL) go to a span question: each (document, coder) pair of the file gets
exactly the file's units; an annotation without spans is stored as "annotated, nothing
found". Span results aimed at another kind of question, or offsets counting other units
than the question's `span_unit`, are a 400 on `question`. `document_key` names documents
across tools (`id`, `text`, or a field).

The answer is a report (rows read, labels found, created / updated / unchanged, items and
coders created, skipped records by reason, rejections with their source line / task and
field). Any rejection rolls the whole import back and answers 400 with the standard error
shape plus the `report` (nothing is written); `partial=true` writes the valid rows
instead. `dry_run=true` answers 200 with the report of what would happen and writes
nothing. Re-importing the same file reports every label unchanged. A file that cannot be
read (not UTF-8, truncated JSON, no header) is a 400 `malformed_file` on `file`; a closed
round 409 `round_closed`; a file over {MAX_IMPORT_BYTES // (1024 * 1024)} MB, or a zip
whose members unpack to more than `AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES` (64 MiB by
default), 413 `file_too_large`."""


class RawBodyParser(BaseParser):
    """Any other content type: the body's bytes, read up to the import size limit."""

    media_type = "*/*"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, bytes]:
        data = stream.read(MAX_IMPORT_BYTES + 1)
        if len(data) > MAX_IMPORT_BYTES:
            raise ImportFileTooLargeError(
                f"An import file has at most {MAX_IMPORT_BYTES // (1024 * 1024)} MB; split it."
            )
        return {"raw": data}


class CsvRenderer(BaseRenderer):
    """Renders exports built as CSV text; anything else (an error) stays JSON."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(
        self,
        data: Any,
        accepted_media_type: str | None = None,
        renderer_context: Mapping[str, Any] | None = None,
    ) -> bytes:
        if isinstance(data, str):
            return data.encode()
        response = (renderer_context or {}).get("response")
        if response is not None:
            response["Content-Type"] = "application/json"
        return json.dumps(data).encode()


class _FormatIsNotARenderer(DefaultContentNegotiation):
    """``?format=`` names the import format here, never a renderer."""

    settings = SimpleNamespace(URL_FORMAT_OVERRIDE=None)  # type: ignore[assignment]


class ImportViewSet(StudyScopedMixin, viewsets.GenericViewSet):  # type: ignore[misc]
    """Imports of export files. Annotators and managers import; viewers may list formats."""

    write_role = Role.ANNOTATOR
    queryset = Study.objects.none()  # schema generation only: the study comes from the URL
    parser_classes = [MultiPartParser, FormParser, RawBodyParser]
    content_negotiation_class = _FormatIsNotARenderer
    serializer_class = ImportReportSerializer
    query_serializers = {"create": ImportOptionsSerializer}

    @extend_schema(
        summary="Import a labeling tool's export file",
        description=_IMPORT_DESCRIPTION,
        request={
            "multipart/form-data": ImportUploadSerializer,
            "application/octet-stream": OpenApiTypes.BINARY,
        },
        responses={
            200: OpenApiResponse(ImportReportSerializer, description="Imported, or a dry run."),
            400: OpenApiResponse(
                ImportRejectedResponseSerializer,
                description="Rejected rows (nothing written), or a bad request / file.",
            ),
            409: OpenApiResponse(
                AnnotationConflictErrorResponseSerializer, description="The round is closed."
            ),
            413: OpenApiResponse(
                AnnotationTooLargeErrorResponseSerializer, description="The file is too large."
            ),
        },
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        payload: Any = request.data
        options: ImportOptionsSerializer
        media_type = (request.content_type or "").split(";")[0].strip().lower()
        context = self.query_serializer_context()
        if media_type in ("multipart/form-data", "application/x-www-form-urlencoded"):
            fields = {**request.query_params.dict(), **{key: payload.get(key) for key in payload}}
            fields.pop("file", None)
            options = ImportUploadSerializer(
                data={**fields, "file": payload.get("file")}, context=context
            )
        else:
            options = ImportOptionsSerializer(data=request.query_params, context=context)
        options.is_valid(raise_exception=True)
        data = options.validated_data
        upload = data.get("file")
        if upload is not None:
            if upload.size is not None and upload.size > MAX_IMPORT_BYTES:
                raise ImportFileTooLargeError(
                    f"An import file has at most {MAX_IMPORT_BYTES // (1024 * 1024)} MB; split it."
                )
            content, filename = upload.read(), upload.name
        else:
            content, filename = payload.get("raw", b""), None
        if not content:
            raise ParseError("The file is empty.")
        round_, question = data["round"], data.get("question")
        report = annotations_import(
            study=self.study,
            format_name=data["format"],
            data=content,
            round_ref=round_.pk,
            question_key=question.key if question is not None else None,
            question_map=data.get("question_map") or {},
            category_map=data.get("category_map") or {},
            case_insensitive_categories=data["case_insensitive_categories"],
            coder_map=data.get("coder_map") or {},
            create_missing=data["create_missing"],
            dry_run=data["dry_run"],
            partial=data["partial"],
            coder=data.get("coder") or None,
            filename=filename,
            document_key=data.get("document_key") or "id",
            layer=data.get("layer") or None,
            predictions=data["predictions"],
            actor=self.actor,
        )
        report.round = round_.name  # the round imported into, however the request named it
        if report.rejected_count and not report.dry_run and not report.committed:
            return Response(
                ImportRejectedResponseSerializer.body(report), status=status.HTTP_400_BAD_REQUEST
            )
        return Response(ImportReportSerializer(report).data)

    @extend_schema(
        summary="List the import formats",
        responses={200: ImportFormatSerializer(many=True)},
    )
    @action(detail=False, methods=["get"], url_path="formats", pagination_class=None)
    def formats(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response(ImportFormatSerializer(list(FORMATS.values()), many=True).data)


#: The code of a 400 for a question whose values leave by another export (older codes kept).
_WRONG_EXPORT_CODES = {
    "spans": "span_question",
    "annotations": "not_a_span_question",
    "structured": "structured_question",
}


def _export_of(question: Question) -> str:
    """The export a question's values leave by."""
    kind = question.label_kind
    if kind.units:
        return "spans"
    return "structured" if kind.structured is not None else "annotations"


def _csv_response(text: str, filename: str) -> Response:
    response = Response(text)
    response["Content-Disposition"] = content_disposition_header(
        as_attachment=True, filename=filename
    )
    return response


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "-" for ch in text)[:60]


_CSV_OR_JSON = "`?format=csv` (or `Accept: text/csv`) for CSV; JSON otherwise."


class ExportViewSet(StudyScopedMixin, viewsets.GenericViewSet):  # type: ignore[misc]
    """Exports of one round and question. Every member may export."""

    renderer_classes = [JSONRenderer, CsvRenderer]
    serializer_class = AnnotationExportSerializer
    pagination_class = None
    query_serializers = {
        "annotations": AnnotationExportQuerySerializer,
        "diagnostics": ExportQuerySerializer,
        "results": ResultExportQuerySerializer,
        "spans": ExportQuerySerializer,
        "structured": StructuredExportQuerySerializer,
    }

    def _target(self, export: str | None) -> tuple[dict[str, Any], Round, Question]:
        """The validated query and the round and question it names; ``export`` names the
        export asked for (``annotations``, ``spans`` or ``structured``), a 400 on
        ``question`` when the question's values leave by another one; None for any."""
        question = self.query["question"]
        own = _export_of(question)
        if export is not None and own != export:
            raise ValidationError(
                {
                    "question": ErrorDetail(
                        f"Question {question.key!r} is a {question.kind} question: export its "
                        f"values from exports/{own}/.",
                        code=_WRONG_EXPORT_CODES[own],
                    )
                }
            )
        return self.query, self.query["round"], question

    def _is_csv(self, request: Request) -> bool:
        return getattr(request.accepted_renderer, "format", "") == "csv"

    @extend_schema(
        summary="Export annotations (long or wide)",
        description="`shape=long`: `item,coder,label`, the shape the long CSV import takes; "
        "`shape=wide`: `item,<coder>...`, the reliability matrix (items in rows, an empty "
        "cell is a missing label). Sets are written `a|b`, hierarchy nodes by code. "
        + _CSV_OR_JSON,
        responses={
            (200, "application/json"): AnnotationExportSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
        },
    )
    @action(detail=False, methods=["get"], url_path="annotations")
    def annotations(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        query, round_, question = self._target("annotations")
        table = annotation_table(round_=round_, question=question)
        shape = query["shape"]
        if self._is_csv(request):
            render = (
                exports.annotations_wide_csv if shape == "wide" else exports.annotations_long_csv
            )
            return _csv_response(render(table), f"{_slug(round_.name)}-{question.key}-{shape}.csv")
        rows = (
            exports.annotations_wide_json(table)
            if shape == "wide"
            else exports.annotations_long_json(table)
        )
        body = {
            "round": round_.name,
            "question": question.key,
            "kind": question.kind,
            "coders": table.coders,
            "rows": rows,
        }
        return Response(AnnotationExportSerializer(body).data)

    @extend_schema(
        summary="Export item-level diagnostics",
        description="Per item: coders, distinct labels, the majority label and its share, "
        "the share of agreeing coder pairs, (numbers) mean and spread, and each coder's "
        "label, as the worker stored them with the latest finished computation of this "
        "round and question. 404 when there is none; 409 `item_table_missing` when it "
        "predates stored item tables (request a computation again). " + _CSV_OR_JSON,
        responses={
            (200, "application/json"): DiagnosticsExportSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
            404: OpenApiResponse(description="No finished computation of this round."),
        },
    )
    @action(detail=False, methods=["get"], url_path="diagnostics")
    def diagnostics(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        _query, round_, question = self._target("annotations")
        stored = stored_item_table(study=self.study, round_=round_, question=question)
        if stored is None:
            raise NotFound(
                "No finished computation of this round and question: request a computation."
            )
        if self._is_csv(request):
            return _csv_response(
                exports.item_diagnostics_csv(stored),
                f"{_slug(round_.name)}-{question.key}-diagnostics.csv",
            )
        body = {
            "round": round_.name,
            "question": question.key,
            "kind": question.kind,
            "coders": stored.table.coders,
            "items": exports.item_diagnostics(stored),
        }
        return Response(DiagnosticsExportSerializer(body).data)

    @extend_schema(
        summary="Export a computation's results",
        description="The coefficients (value, standard error, interval) of the latest "
        "finished computation of this round and question, or of `computation`; JSON adds "
        "the parameters and diagnostics. 404 when there is none. " + _CSV_OR_JSON,
        responses={
            (200, "application/json"): ResultsExportSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
        },
    )
    @action(detail=False, methods=["get"], url_path="results")
    def results(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        query, round_, question = self._target(None)
        computation = computation_for_export(
            study=self.study,
            round_=round_,
            question=question,
            computation_id=query.get("computation"),
        )
        if computation is None:
            raise Http404("No finished computation of this round and question.")
        if self._is_csv(request):
            return _csv_response(
                exports.computation_results_csv(computation),
                f"{_slug(round_.name)}-{question.key}-results-{computation.pk}.csv",
            )
        return Response(ResultsExportSerializer(exports.computation_results_json(computation)).data)

    @extend_schema(
        summary="Export a span question's units",
        description="`document,coder,begin,end,label`, the shape `metrics report --level "
        "span` and the span upload read: one row per unit (end exclusive) and one row with "
        "empty begin, end and label per coder who annotated a document and found nothing. "
        "JSON is the span upload's body (`documents` with an explicit extent, `units`, "
        "`empty`), so it uploads again unchanged. Span questions only (other questions: "
        "`annotations`). " + _CSV_OR_JSON,
        responses={
            (200, "application/json"): SpanExportSerializer,
            (200, "text/csv"): OpenApiTypes.STR,
        },
    )
    @action(detail=False, methods=["get"], url_path="spans")
    def spans(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        _query, round_, question = self._target("spans")
        table = span_table(round_=round_, question=question)
        if self._is_csv(request):
            return _csv_response(
                exports.spans_csv(table), f"{_slug(round_.name)}-{question.key}-spans.csv"
            )
        return Response(SpanExportSerializer(exports.spans_json(table)).data)

    @extend_schema(
        summary="Export a structured question's values (regions on images)",
        description="`shape=rows`: the question's CSV shape (`image,coder,x,y,width,height,"
        "label[,rotation]` for boxes, `image,coder,points,label` for polygons, `image,coder,"
        "x,y,label` for keypoints), what `metrics report --level <kind>` and the upload read, "
        "with a row of empty values for a coder who drew nothing; its JSON is the upload's "
        "body (`rows`, `images`). `shape=coco`: one COCO file (JSON) with an `annotator` "
        "field per annotation. " + _CSV_OR_JSON,
        responses={
            (200, "application/json"): OpenApiTypes.OBJECT,
            (200, "text/csv"): OpenApiTypes.STR,
        },
    )
    @action(detail=False, methods=["get"], url_path="structured")
    def structured(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        query, round_, question = self._target("structured")
        table = structured_table(round_=round_, question=question)
        if query["shape"] == "coco":
            values = question.label_kind.structured
            if values is None or values.coco is None:
                raise ValidationError(
                    {"shape": ErrorDetail(f"{question.kind} questions have no COCO export.",
                                          code="invalid_choice")}
                )  # fmt: skip
            return Response(exports.coco_json(table))
        if self._is_csv(request):
            return _csv_response(
                exports.structured_csv(table), f"{_slug(round_.name)}-{question.key}.csv"
            )
        return Response(exports.structured_json(table))
