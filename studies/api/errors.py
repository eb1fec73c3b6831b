"""One error format for every 4xx, from drf-standardized-errors:

    {"type": "validation_error",
     "errors": [{"code": "unknown_category", "detail": "...", "attr": "rows.12.label"}]}

Domain services raise Django's ``ValidationError`` (with codes) or ``ApplicationError``;
this handler turns both into that shape, so views never format errors themselves. A body
over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (Django's ``RequestDataTooBig``) is a 413
``request_too_large``; Django's other refusals of a request (``SuspiciousOperation``: too
many form fields or files) are a 400, never a 500.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import (
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
    TooManyFilesSent,
)
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_standardized_errors.handler import ExceptionHandler
from rest_framework import exceptions
from rest_framework.serializers import as_serializer_error

from studies.exceptions import ApplicationError


class RequestTooLarge(exceptions.APIException):
    status_code = 413
    default_code = "request_too_large"

    def __init__(self) -> None:
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        super().__init__(
            f"The request body is larger than the limit of {limit:,} bytes "
            "(DATA_UPLOAD_MAX_MEMORY_SIZE); split the upload."
        )


def _refused_request(exc: SuspiciousOperation) -> exceptions.APIException:
    if isinstance(exc, TooManyFieldsSent):
        return exceptions.ParseError(
            f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS:,} fields.",
            code="too_many_fields",
        )
    if isinstance(exc, TooManyFilesSent):
        return exceptions.ParseError(
            f"The request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES:,} files.",
            code="too_many_files",
        )
    # The message of other refusals may quote server details: it is not sent.
    return exceptions.ParseError("The request was refused as malformed.", code="bad_request")


class ApiExceptionHandler(ExceptionHandler):
    def convert_known_exceptions(self, exc: Exception) -> Exception:
        if isinstance(exc, DjangoValidationError):
            return exceptions.ValidationError(as_serializer_error(exc))
        if isinstance(exc, ApplicationError):
            error = exceptions.APIException(detail=exc.message, code=exc.code)
            error.status_code = exc.status_code
            return error
        if isinstance(exc, RequestDataTooBig):
            return RequestTooLarge()
        if isinstance(exc, SuspiciousOperation):
            return _refused_request(exc)
        return super().convert_known_exceptions(exc)
