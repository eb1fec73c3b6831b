"""Guards on every request: the Content-Security-Policy header, sign-in throttling, and
the API's JSON 404."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Callable
from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.auth.signals import user_login_failed
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.urls import NoReverseMatch, reverse

from agreement_server.throttling import LOGIN_FAILURES, client_address

# The API docs page (drf-spectacular's Swagger UI) has one inline <style> in its template.
API_DOCS_TEMPLATE = "drf_spectacular/swagger_ui.html"
_INLINE_STYLE = re.compile(r"<style>(.*?)</style>", re.DOTALL)


@cache
def inline_style_hashes(template_name: str) -> tuple[str, ...]:
    """CSP sources (``'sha256-...'``) for the inline ``<style>`` elements of a template.

    The template's text between the tags is what the browser hashes, as long as it holds
    no template tags (drf-spectacular's does not).
    """
    try:
        source = get_template(template_name).template.source  # type: ignore[attr-defined]
    except (TemplateDoesNotExist, AttributeError):
        return ()
    return tuple(
        "'sha256-{}'".format(
            base64.b64encode(hashlib.sha256(match.encode("utf-8")).digest()).decode("ascii")
        )
        for match in _INLINE_STYLE.findall(source)
    )


def policy_header(policy: dict[str, list[str]], *, style_hashes: tuple[str, ...] = ()) -> str:
    """``default-src 'self'; ...`` from ``{"default-src": ["'self'"], ...}``.

    Examples
    --------
    >>> policy_header({"default-src": ["'self'"], "style-src": ["'self'"]}, style_hashes=("'h'",))
    "default-src 'self'; style-src 'self' 'h'"
    """
    directives = []
    for name, sources in policy.items():
        values = [*sources, *style_hashes] if name == "style-src" else list(sources)
        directives.append(" ".join([name, *values]))
    return "; ".join(directives)


class ContentSecurityPolicyMiddleware:
    """Adds ``settings.CONTENT_SECURITY_POLICY`` to every response that has none."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if "Content-Security-Policy" not in response.headers:
            response.headers["Content-Security-Policy"] = policy_header(
                settings.CONTENT_SECURITY_POLICY,
                style_hashes=inline_style_hashes(API_DOCS_TEMPLATE),
            )
        return response


def _record_login_failure(
    sender: Any, credentials: Any, request: Any = None, **kwargs: Any
) -> None:
    if request is not None:
        LOGIN_FAILURES.record_failure(client_address(request))


user_login_failed.connect(_record_login_failure, dispatch_uid="agreement-login-throttle")


def login_paths() -> set[str]:
    """The sign-in forms: the site's (``LOGIN_URL``) and the admin's."""
    paths = set()
    for name in (settings.LOGIN_URL, "admin:login"):
        try:
            paths.add(reverse(name))
        except NoReverseMatch:
            pass
    return paths


class LoginThrottleMiddleware:
    """A sign-in POST from an address with too many recent failures answers 429 before
    the password is checked; the failures are counted from Django's ``user_login_failed``."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST" and request.path in login_paths():
            wait = LOGIN_FAILURES.retry_after(client_address(request))
            if wait:
                minutes = max(1, round(wait / 60))
                response = HttpResponse(
                    "Too many failed sign-ins from your address: try again in "
                    f"{minutes} minute{'s' if minutes != 1 else ''}.\n",
                    status=429,
                    content_type="text/plain; charset=utf-8",
                )
                response["Retry-After"] = str(wait)
                return response
        return self.get_response(request)


API_PREFIX = "/api/"
API_NOT_FOUND_DETAIL = "Nothing is served at this URL (see /api/docs/)."


class ApiNotFoundMiddleware:
    """A 404 under ``/api/`` that is not already the API's JSON (a URL no route matches, or
    an id or key that does not fit a route's pattern) answers in the API's error shape
    instead of Django's HTML page, with DEBUG on or off."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            response.status_code == 404
            and request.path.startswith(API_PREFIX)
            and not response.get("Content-Type", "").startswith("application/json")
        ):
            return JsonResponse(
                {
                    "type": "client_error",
                    "errors": [{"code": "not_found", "detail": API_NOT_FOUND_DETAIL, "attr": None}],
                },
                status=404,
            )
        return response
