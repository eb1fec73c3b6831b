"""Domain errors with machine-readable codes; the API maps them to its one error format."""

from __future__ import annotations


class ApplicationError(Exception):
    """A request the domain refuses, other than a field validation error."""

    status_code = 400
    code = "invalid_request"

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        if code is not None:
            self.code = code


class ConflictError(ApplicationError):
    status_code = 409
    code = "conflict"
