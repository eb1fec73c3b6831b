"""Production defaults (issue 13, finding 9): ``manage.py check --deploy`` is clean with the
compose settings, and every response carries the security headers."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from django.core.checks import run_checks
from django.test import Client

from tests.test_compose import (
    compose,
    dotenv_example,
    environment,
    operator_dotenv,
    settings_variables,
)

ROOT = Path(__file__).resolve().parent.parent
CLEAN = "System check identified no issues (0 silenced).\n"
PRODUCTION_KEY = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN-production"


def deploy_check(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """``manage.py check --deploy`` in a fresh process with only ``env`` configured."""
    clean = {
        key: value
        for key, value in os.environ.items()
        if key not in settings_variables() and key != "DJANGO_SETTINGS_MODULE"
    }
    clean.update(env)
    clean.update(
        AGREEMENT_VAR_DIR=str(tmp_path), DJANGO_SETTINGS_MODULE="agreement_server.settings"
    )
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("service", ["web", "worker", "migrate"])
def test_the_deploy_check_is_clean_with_the_compose_settings(tmp_path: Path, service: str) -> None:
    env = environment(compose(operator_dotenv())["services"][service])
    assert env["DEBUG"] == "0"
    result = deploy_check(tmp_path, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLEAN
    assert result.stderr == ""


def test_the_deploy_check_is_clean_with_production_variables_alone(tmp_path: Path) -> None:
    env = {
        "DEBUG": "0",
        "SECRET_KEY": PRODUCTION_KEY,
        "ALLOWED_HOSTS": "agreement.example.org",
        "SECURE_SSL_REDIRECT": "1",
    }
    result = deploy_check(tmp_path, env)
    assert result.returncode == 0, result.stderr
    assert result.stdout == CLEAN


def test_the_deploy_check_names_what_production_turns_off(tmp_path: Path) -> None:
    env = {
        "DEBUG": "0",
        "SECRET_KEY": PRODUCTION_KEY,
        "ALLOWED_HOSTS": "agreement.example.org",
        "SECURE_HSTS_SECONDS": "0",
        "SESSION_COOKIE_SECURE": "0",
    }
    result = deploy_check(tmp_path, env)
    assert result.returncode == 1
    for check in ("security.W004", "security.W008", "security.W012"):
        assert f"({check})" in result.stderr
    assert "System check identified 3 issues (0 silenced)." in result.stderr


# --- the public placeholder of .env.example (issue 25, finding 8) -----------------------------

PLACEHOLDER = dotenv_example()["SECRET_KEY"]
PLACEHOLDER_REFUSED = (
    "ImproperlyConfigured: SECRET_KEY is the public placeholder of .env.example (it starts "
    "with 'change-me'): replace it with a key of your own. Generate one with: "
    'python -c "import secrets; print(secrets.token_urlsafe(50))"'
)


def test_the_placeholder_secret_key_fails_the_deploy_check_with_debug_off(tmp_path: Path) -> None:
    env = {"DEBUG": "0", "SECRET_KEY": PLACEHOLDER, "ALLOWED_HOSTS": "agreement.example.org"}
    result = deploy_check(tmp_path, env)
    assert result.returncode == 1
    assert PLACEHOLDER_REFUSED in result.stderr
    assert PLACEHOLDER not in result.stderr  # the message never repeats a key


def test_the_placeholder_secret_key_is_a_deploy_check_error_with_debug_on(tmp_path: Path) -> None:
    # DEBUG=1 starts with it (the development server), but the deploy check says no.
    env = {"DEBUG": "1", "SECRET_KEY": PLACEHOLDER}
    result = deploy_check(tmp_path, env)
    assert result.returncode == 1
    assert "?: (agreement_server.E001) SECRET_KEY is the public placeholder of .env.example." in (
        result.stderr
    )


def test_the_placeholder_check_is_a_deploy_check_and_silent_for_a_real_key(settings: Any) -> None:
    settings.SECRET_KEY = PLACEHOLDER
    assert [m.id for m in run_checks(tags=["security"])] == []  # not without --deploy
    assert "agreement_server.E001" in [
        m.id for m in run_checks(tags=["security"], include_deployment_checks=True)
    ]
    settings.SECRET_KEY = PRODUCTION_KEY
    assert "agreement_server.E001" not in [
        m.id for m in run_checks(tags=["security"], include_deployment_checks=True)
    ]


# --- headers on every response ----------------------------------------------------------------

# 'sha256-MMpT...' is the hash of the inline <style> of drf-spectacular 0.30's swagger_ui.html,
# the only inline style element or script of the pages and the API docs, computed apart from
# the code with `openssl dgst -sha256 -binary style.txt | base64` on the text between the tags.
POLICY = (
    "default-src 'self'; script-src 'self'; "
    "style-src 'self' 'sha256-MMpT0iDxyjALd9PdfepImGX3DBfJPXZ4IlDWdPAgtn0='; "
    "style-src-attr 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path", ["/accounts/login/", "/api/v1/studies/", "/admin/login/", "/api/docs/", "/nowhere/"]
)
def test_every_response_has_the_content_security_policy_and_the_safe_headers(path: str) -> None:
    response = Client().get(path)
    assert response.headers["Content-Security-Policy"] == POLICY
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "same-origin"


@pytest.mark.django_db
def test_the_api_docs_load_their_start_script_from_a_url_not_inline() -> None:
    page = Client().get("/api/docs/").content.decode()
    assert '<script src="/api/docs/?script="></script>' in page
    assert "<script>" not in page
    script = Client().get("/api/docs/?script=")
    assert script.status_code == 200
    assert script.headers["Content-Type"] == "application/javascript"
    assert b"SwaggerUIBundle" in script.content


@pytest.mark.django_db
@pytest.mark.parametrize("env", [{"HTTP_X_FORWARDED_PROTO": "http"}, {}])
def test_plain_http_is_redirected_when_ssl_redirect_is_on(
    settings: Any, env: dict[str, str]
) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    response = Client().get("/accounts/login/", **env)
    assert response.status_code == 301
    assert response.headers["Location"] == "https://testserver/accounts/login/"


@pytest.mark.django_db
def test_a_request_the_proxy_forwarded_over_https_is_served_with_hsts(settings: Any) -> None:
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    response = Client().get("/accounts/login/", HTTP_X_FORWARDED_PROTO="https")
    assert response.status_code == 200
    assert response.headers["Strict-Transport-Security"] == (
        "max-age=31536000; includeSubDomains; preload"
    )
