"""A small Python client of the agreement server, for labeling-tool integrations.

Standard library only. See ``docs/client.md`` and ``examples/client_demo.py``.
"""

from agreement_client.client import (
    AgreementClient,
    AgreementError,
    AuthenticationError,
    ComputationFailedError,
    ConflictError,
    ConnectionFailedError,
    ErrorDetail,
    InvalidRequestError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ServerError,
    WaitTimeoutError,
    verify_webhook_signature,
)

__all__ = [
    "AgreementClient",
    "AgreementError",
    "AuthenticationError",
    "ComputationFailedError",
    "ConflictError",
    "ConnectionFailedError",
    "ErrorDetail",
    "InvalidRequestError",
    "NotFoundError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "ServerError",
    "WaitTimeoutError",
    "verify_webhook_signature",
]
__version__ = "0.1.0"
