"""OpenAPI generation: drf-standardized-errors' schema plus the error answers our domain
adds (409 conflict on writes, 413 where an endpoint declares it), and each action's query
parameters read from the view (``studies.api.query``), the same ones it accepts."""

from __future__ import annotations

from typing import Any

from drf_standardized_errors.openapi import AutoSchema as StandardizedErrorsAutoSchema
from drf_standardized_errors.openapi_serializers import ClientErrorEnum
from rest_framework import serializers

from studies.api.query import QueryParametersMixin


class _ErrorItemSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Machine-readable, e.g. ``category_in_use``.")
    detail = serializers.CharField()
    attr = serializers.CharField(allow_null=True)


class ErrorResponse409Serializer(serializers.Serializer):
    """The request conflicts with the current state (e.g. a category annotations use)."""

    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = _ErrorItemSerializer(many=True)  # type: ignore[assignment]


class ErrorResponse413Serializer(serializers.Serializer):
    """The request carries more than the endpoint accepts."""

    type = serializers.ChoiceField(choices=ClientErrorEnum.choices)
    errors = _ErrorItemSerializer(many=True)  # type: ignore[assignment]


class AutoSchema(StandardizedErrorsAutoSchema):
    def get_override_parameters(self) -> list[Any]:
        parameters = list(super().get_override_parameters())
        if isinstance(self.view, QueryParametersMixin):
            serializer_class = self.view.query_serializer_class()
            if serializer_class is not None:
                parameters.append(serializer_class)
        return parameters

    def _get_pagination_parameters(self) -> list[Any]:
        if not isinstance(self.view, QueryParametersMixin):
            return list(super()._get_pagination_parameters())
        if not self.view.paginates_query():
            return []
        return list(self.view.paginator.get_schema_operation_parameters(self.view))  # type: ignore[attr-defined]

    def _get_filter_parameters(self) -> list[Any]:
        if isinstance(self.view, QueryParametersMixin) and not self.view.filters_query():
            return []
        return list(super()._get_filter_parameters())

    def _should_add_error_response(self, responses: dict[str, Any], status_code: str) -> bool:
        if status_code == "409":
            return status_code not in responses and self.method not in ("GET", "HEAD")
        if status_code == "413":
            return False  # only where a view declares it with @extend_schema
        return bool(super()._should_add_error_response(responses, status_code))

    def _get_error_response_serializer(self, status_code: str) -> Any:
        if status_code == "409":
            return ErrorResponse409Serializer
        if status_code == "413":
            return ErrorResponse413Serializer
        return super()._get_error_response_serializer(status_code)
