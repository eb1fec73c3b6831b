"""``POST /api/v1/auth/token/``: a username and password in, a personal token out.

The first token of a newcomer with curl (every other endpoint needs a token or a session).
Wrong credentials answer 400 ``invalid_credentials``; they count as failed sign-ins of the
client's address, like the sign-in form's (``agreement_server.throttling.LOGIN_FAILURES``),
so after ``AGREEMENT_LOGIN_FAILURE_LIMIT`` failures the endpoint and the sign-in form answer
429 until the window has passed, even to the right password.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.exceptions import ErrorDetail
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from agreement_server.throttling import LOGIN_FAILURES, client_address
from studies.api import serializers as s
from studies.api.parsers import FormParser, JSONParser
from studies.api.query import QueryParametersMixin
from studies.services import tokens

INVALID_CREDENTIALS = "invalid_credentials"
INVALID_CREDENTIALS_TEXT = "No active user has this username and password."
DEFAULT_TOKEN_NAME = "api"


class TokenObtainInputSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150)
    password = serializers.CharField(
        max_length=4096, trim_whitespace=False, style={"input_type": "password"}
    )
    name = serializers.CharField(
        max_length=200,
        default=DEFAULT_TOKEN_NAME,
        help_text=f"The token's name, to tell your tokens apart (default {DEFAULT_TOKEN_NAME!r}).",
    )
    expires_at = serializers.DateTimeField(
        required=False,
        allow_null=True,
        default=None,
        help_text="When the token stops working (ISO 8601, in the future); omit it for a "
        "token that works until revoked.",
    )


class TokenObtainView(QueryParametersMixin, APIView):  # type: ignore[misc]  # QueryParametersMixin narrows request
    """Sign in with a password and receive a new personal token (its secret, once)."""

    action = "create"  # the query parameters' rule (it takes none but ``format``)
    authentication_classes: list[Any] = []  # the body carries the credentials
    permission_classes = [permissions.AllowAny]
    parser_classes = [JSONParser, FormParser, MultiPartParser]  # curl's -d, --json and -F

    @extend_schema(
        summary="Create a personal token from a username and password",
        description="Answers 201 with the new personal token and its secret (shown this "
        "once), 400 `invalid_credentials` for a wrong username or password, and 429 once "
        "an address has failed too often (as the sign-in form does).",
        request=TokenObtainInputSerializer,
        responses={201: s.PersonalTokenCreatedSerializer},
        examples=[
            OpenApiExample(
                "curl -d", value={"username": "admin", "password": "…"}, request_only=True
            )
        ],
    )
    def post(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        address = client_address(request)
        wait = LOGIN_FAILURES.retry_after(address)
        if wait:
            raise exceptions.Throttled(
                wait=wait, detail="Too many failed sign-ins from your address."
            )
        data_in = TokenObtainInputSerializer(data=request.data)
        data_in.is_valid(raise_exception=True)
        data = data_in.validated_data
        # ``authenticate`` sends ``user_login_failed`` on a failure, which counts it.
        user = authenticate(request._request, username=data["username"], password=data["password"])
        if user is None or not user.is_active:
            raise exceptions.ValidationError(
                {"non_field_errors": [ErrorDetail(INVALID_CREDENTIALS_TEXT, INVALID_CREDENTIALS)]}
            )
        token, secret = tokens.personal_token_create(
            user=user, name=data["name"], expires_at=data["expires_at"]
        )
        token.secret = secret  # type: ignore[attr-defined]
        return Response(
            s.PersonalTokenCreatedSerializer(token).data, status=status.HTTP_201_CREATED
        )
