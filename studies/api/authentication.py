"""API tokens: ``Authorization: Token <secret>`` (or ``Bearer <secret>``).

A personal token authenticates as its user. A study token (for a labeling tool) has no
user: it authenticates as a ``StudyTokenUser`` that belongs to exactly one study, with the
token's role; permission checks read ``request.auth`` to tell the two apart.

Failed attempts (a malformed header, an unknown or revoked token) are counted per client
address (``agreement_server.throttling``): past ``AGREEMENT_TOKEN_FAILURE_LIMIT`` within the
window, every token attempt from that address answers 429 with ``Retry-After``.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils import timezone
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework import authentication, exceptions
from rest_framework.request import Request

from agreement_server.throttling import TOKEN_FAILURES, client_address
from studies.access import ensure_token_usable
from studies.models import ApiToken

_LAST_USED_RESOLUTION = timedelta(minutes=1)


class StudyTokenUser(AnonymousUser):
    """The principal behind a labeling tool's study token."""

    def __init__(self, token: ApiToken) -> None:
        super().__init__()
        self.token = token

    @property
    def is_anonymous(self) -> bool:  # type: ignore[override]
        return False

    @property
    def is_authenticated(self) -> bool:  # type: ignore[override]
        return True

    def __str__(self) -> str:
        return f"token {self.token.prefix}"


class ApiTokenAuthentication(authentication.BaseAuthentication):
    keywords = ("token", "bearer")

    def authenticate(self, request: Request) -> tuple[Any, ApiToken] | None:
        header = authentication.get_authorization_header(request).decode("latin-1").split()
        if not header or header[0].lower() not in self.keywords:
            return None
        address = client_address(request)
        wait = TOKEN_FAILURES.retry_after(address)
        if wait:
            raise exceptions.Throttled(
                wait=wait,
                detail="Too many failed token attempts from your address.",
            )
        if len(header) != 2:
            TOKEN_FAILURES.record_failure(address)
            raise exceptions.AuthenticationFailed(
                "The Authorization header must be 'Token <secret>'."
            )
        token = (
            ApiToken.objects.select_related("user", "study")
            .filter(key_hash=ApiToken.hash_secret(header[1]), revoked_at__isnull=True)
            .first()
        )
        if token is None:
            TOKEN_FAILURES.record_failure(address)
            raise exceptions.AuthenticationFailed("Invalid or revoked token.")
        if token.user is not None and not token.user.is_active:
            raise exceptions.AuthenticationFailed("The token's user is inactive.")
        ensure_token_usable(token)
        now = timezone.now()
        # Record use at most once a minute, so reads do not turn into a write each.
        if token.last_used_at is None or now - token.last_used_at > _LAST_USED_RESOLUTION:
            ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
        user = token.user if token.user is not None else StudyTokenUser(token)
        return user, token

    def authenticate_header(self, request: Request) -> str:
        return "Token"


class ApiTokenScheme(OpenApiAuthenticationExtension):
    target_class = "studies.api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        return {
            "type": "apiKey",
            "in": "header",
            "name": "Authorization",
            "description": "`Token <secret>`: a personal token or a study token.",
        }
