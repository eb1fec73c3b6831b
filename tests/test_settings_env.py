"""Settings from the environment: strict parsing, and a bad value stops the start with a message."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from agreement_server.env import env_bool, env_int, env_list, env_secret, env_str
from tests.test_compose import dotenv_example

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_VARS = {
    "AGREEMENT_LOGIN_FAILURE_LIMIT",
    "AGREEMENT_LOGIN_FAILURE_WINDOW_SECONDS",
    "AGREEMENT_TOKEN_FAILURE_LIMIT",
    "AGREEMENT_TOKEN_FAILURE_WINDOW_SECONDS",
    "AGREEMENT_VAR_DIR",
    "AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS",
    "ALLOWED_HOSTS",
    "CACHE_URL",
    "CELERY_BROKER_URL",
    "CELERY_TASK_ALWAYS_EAGER",
    "CELERY_TASK_SOFT_TIME_LIMIT",
    "CELERY_TASK_TIME_LIMIT",
    "CSRF_COOKIE_SECURE",
    "CSRF_TRUSTED_ORIGINS",
    "DATABASE_URL",
    "DATA_UPLOAD_MAX_MEMORY_SIZE",
    "DEBUG",
    "DJANGO_SETTINGS_MODULE",
    "LOG_LEVEL",
    "NUM_PROXIES",
    "SECRET_KEY",
    "SECRET_KEY_FILE",
    "SECURE_HSTS_INCLUDE_SUBDOMAINS",
    "SECURE_HSTS_PRELOAD",
    "SECURE_HSTS_SECONDS",
    "SECURE_SSL_REDIRECT",
    "SESSION_COOKIE_SECURE",
    "STATIC_ROOT",
    "TRUST_X_FORWARDED_PROTO",
}
# 50 characters: the shortest SECRET_KEY production accepts.
KEY_50 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMN"
START = (
    "import json, django; django.setup(); from django.conf import settings as s; "
    "print(json.dumps({'debug': s.DEBUG, 'engine': s.DATABASES['default']['ENGINE'], "
    "'name': str(s.DATABASES['default']['NAME']), 'secret': s.SECRET_KEY, "
    "'hosts': s.ALLOWED_HOSTS, 'broker': s.CELERY_BROKER_URL}))"
)


def start(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Start Django in a fresh process with only ``env`` (plus PATH) configured."""
    clean = {key: value for key, value in os.environ.items() if key not in SETTINGS_VARS}
    clean.update(
        DJANGO_SETTINGS_MODULE="agreement_server.settings",
        AGREEMENT_VAR_DIR=str(tmp_path),
        **env,
    )
    return subprocess.run(
        [sys.executable, "-c", START],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"DEBUG": "yes"}, "DEBUG must be one of 1, 0, true, false; got 'yes'."),
        (
            {"DEBUG": "1", "DATABASE_URL": "mysql://user@localhost/agreement"},
            "DATABASE_URL must be an sqlite:// or postgres:// URL.",
        ),
        (
            {"DEBUG": "1", "DATABASE_URL": "nonsense://somewhere/db"},
            "DATABASE_URL is not a valid database URL",
        ),
        ({"DEBUG": "0"}, "The environment variable SECRET_KEY is required."),
        ({}, "The environment variable SECRET_KEY is required."),
        (
            {"DEBUG": "0", "SECRET_KEY_FILE": "/nonexistent/secret"},
            "SECRET_KEY_FILE points to an unreadable file",
        ),
        (
            {"DEBUG": "1", "CELERY_TASK_TIME_LIMIT": "ten"},
            "CELERY_TASK_TIME_LIMIT must be an integer; got 'ten'.",
        ),
        (
            {"DEBUG": "1", "AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS": "661"},
            "AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS must be at most CELERY_TASK_TIME_LIMIT",
        ),
        (
            {"DEBUG": "1", "DATA_UPLOAD_MAX_MEMORY_SIZE": "0"},
            "DATA_UPLOAD_MAX_MEMORY_SIZE must be at least 1; got 0.",
        ),
        (
            {"DEBUG": "1", "ALLOWED_HOSTS": "example.org,,localhost"},
            "ALLOWED_HOSTS must be a comma-separated list without empty entries.",
        ),
        (
            {"DEBUG": "0", "SECRET_KEY": "short"},
            "SECRET_KEY must have at least 50 characters, at least 5 of them different, and "
            "not start with 'django-insecure-' (it has 5 characters). Generate one with: "
            'python -c "import secrets; print(secrets.token_urlsafe(50))"',
        ),
        (
            {"DEBUG": "0", "SECRET_KEY": KEY_50[:49]},
            "(it has 49 characters)",
        ),
        ({"DEBUG": "0", "SECRET_KEY": "abcd" * 20}, "at least 5 of them different"),
        (
            {"DEBUG": "0", "SECRET_KEY": "django-insecure-" + KEY_50},
            "not start with 'django-insecure-' (it has 66 characters)",
        ),
        (
            {"DEBUG": "0", "SECRET_KEY": dotenv_example()["SECRET_KEY"]},
            "SECRET_KEY is the public placeholder of .env.example (it starts with 'change-me')",
        ),
        (
            {"DEBUG": "1", "CACHE_URL": "memcached://127.0.0.1:11211"},
            "CACHE_URL must be locmem:// or a redis:// URL; got 'memcached://127.0.0.1:11211'.",
        ),
        (
            {"DEBUG": "1", "SECURE_HSTS_SECONDS": "-1"},
            "SECURE_HSTS_SECONDS must be at least 0; got -1.",
        ),
    ],
    ids=[
        "bad-debug",
        "mysql-scheme",
        "unknown-scheme",
        "no-secret-outside-debug",
        "debug-off-by-default",
        "unreadable-secret-file",
        "bad-integer",
        "statement-timeout-above-the-time-limit",
        "integer-below-minimum",
        "empty-list-entry",
        "short-secret",
        "secret-of-49-characters",
        "secret-of-4-different-characters",
        "django-insecure-secret",
        "placeholder-secret-of-env-example",
        "unknown-cache",
        "negative-hsts",
    ],
)
def test_a_bad_environment_stops_the_start_with_a_message(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    result = start(tmp_path, **env)
    assert result.returncode == 1
    assert "ImproperlyConfigured" in result.stderr
    assert message in result.stderr


def test_debug_runs_with_no_environment_on_sqlite_and_the_disk_broker(tmp_path: Path) -> None:
    result = start(tmp_path, DEBUG="1")
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert loaded["debug"] is True
    assert loaded["engine"] == "django.db.backends.sqlite3"
    assert loaded["name"] == str(tmp_path / "db.sqlite3")
    assert loaded["broker"] == "filesystem://"
    assert loaded["hosts"] == ["127.0.0.1", "localhost"]


def test_debug_accepts_a_short_secret_key(tmp_path: Path) -> None:
    result = start(tmp_path, DEBUG="1", SECRET_KEY="short")
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["secret"] == "short"


def test_debug_accepts_the_placeholder_secret_key_for_the_development_server(
    tmp_path: Path,
) -> None:
    result = start(tmp_path, DEBUG="1", SECRET_KEY=dotenv_example()["SECRET_KEY"])
    assert result.returncode == 0, result.stderr


def test_production_reads_postgres_redis_and_a_secret_file(tmp_path: Path) -> None:
    secret_file = tmp_path / "secret_key"
    secret_file.write_text(f"{KEY_50}\n")
    result = start(
        tmp_path,
        DEBUG="0",
        SECRET_KEY_FILE=str(secret_file),
        ALLOWED_HOSTS="agreement.example.org",
        DATABASE_URL="postgres://agreement:pw@db:5432/agreement",
        CELERY_BROKER_URL="redis://redis:6379/0",
    )
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert loaded == {
        "debug": False,
        "engine": "django.db.backends.postgresql",
        "name": "agreement",
        "secret": KEY_50,
        "hosts": ["agreement.example.org"],
        "broker": "redis://redis:6379/0",
    }


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("true", True), ("FALSE", False)])
def test_env_bool_reads_only_one_zero_true_false(
    monkeypatch: pytest.MonkeyPatch, raw: str, value: bool
) -> None:
    monkeypatch.setenv("FLAG", raw)
    assert env_bool("FLAG", not value) is value


@pytest.mark.parametrize("raw", ["yes", "on", "2", "t"])
def test_env_bool_refuses_anything_else(monkeypatch: pytest.MonkeyPatch, raw: str) -> None:
    monkeypatch.setenv("FLAG", raw)
    with pytest.raises(ImproperlyConfigured, match="FLAG must be one of"):
        env_bool("FLAG", False)


def test_an_empty_variable_counts_as_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("S", "B", "I", "L"):
        monkeypatch.setenv(name, "")
    assert env_str("S", "default") == "default"
    assert env_bool("B", True) is True
    assert env_int("I", 7) == 7
    assert env_list("L", ["x"]) == ["x"]


def test_env_list_strips_spaces(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOSTS", " a.org , b.org")
    assert env_list("HOSTS", []) == ["a.org", "b.org"]


def test_env_secret_prefers_the_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    path = tmp_path / "key"
    path.write_text("from-file\n")
    monkeypatch.setenv("TOKEN", "from-env")
    monkeypatch.setenv("TOKEN_FILE", str(path))
    assert env_secret("TOKEN") == "from-file"


def test_a_required_variable_without_default_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MISSING_THING", raising=False)
    with pytest.raises(ImproperlyConfigured, match="MISSING_THING is required"):
        env_str("MISSING_THING")
