"""Strict readers for environment variables.

A value that cannot be parsed stops the process at start with a message naming the
variable, instead of silently meaning something else (``DEBUG=yes`` is not "false").
"""

from __future__ import annotations

import os
from typing import Any

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true"}
_FALSE = {"0", "false"}


def env_str(name: str, default: str | None = None) -> str:
    value = os.environ.get(name)
    if value is None or value == "":
        if default is None:
            raise ImproperlyConfigured(f"The environment variable {name} is required.")
        return default
    return value


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    lowered = raw.strip().lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of 1, 0, true, false; got {raw!r}.")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer; got {raw!r}.") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}; got {value}.")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None or raw == "":
        return default
    items = [part.strip() for part in raw.split(",")]
    if any(item == "" for item in items):
        raise ImproperlyConfigured(f"{name} must be a comma-separated list without empty entries.")
    return items


def env_secret(name: str, *, default: str | None = None) -> str:
    """Read a secret from ``NAME`` or from the file named by ``NAME_FILE`` (Docker secrets)."""
    file_path = os.environ.get(f"{name}_FILE")
    if file_path:
        try:
            with open(file_path, encoding="utf-8") as handle:
                return handle.read().strip()
        except OSError as error:
            raise ImproperlyConfigured(
                f"{name}_FILE points to an unreadable file: {error}"
            ) from None
    return env_str(name, default)


#: Django's deploy check (security.W009) asks for this many characters, 5 of them different.
MIN_SECRET_KEY_LENGTH = 50
#: How the public placeholder of .env.example begins (it passes the length rule).
PLACEHOLDER_SECRET_KEY_PREFIX = "change-me"
_GENERATE_A_KEY = 'Generate one with: python -c "import secrets; print(secrets.token_urlsafe(50))"'


def is_placeholder_secret_key(key: str) -> bool:
    """True for the public placeholder of .env.example, edited or not.

    >>> is_placeholder_secret_key("change-me-this-placeholder-is-public")
    True
    """
    return key.startswith(PLACEHOLDER_SECRET_KEY_PREFIX)


def require_strong_secret_key(key: str) -> str:
    """Refuse the placeholder of .env.example and a SECRET_KEY that ``manage.py check
    --deploy`` would call weak.

    Examples
    --------
    >>> require_strong_secret_key("short")
    Traceback (most recent call last):
    ...
    django.core.exceptions.ImproperlyConfigured: SECRET_KEY must have at least 50 characters, ...
    """
    if is_placeholder_secret_key(key):
        raise ImproperlyConfigured(
            "SECRET_KEY is the public placeholder of .env.example (it starts with "
            f"{PLACEHOLDER_SECRET_KEY_PREFIX!r}): replace it with a key of your own. "
            + _GENERATE_A_KEY
        )
    weak = (
        len(key) < MIN_SECRET_KEY_LENGTH
        or len(set(key)) < 5
        or key.startswith("django-insecure-")  # what startproject writes
    )
    if weak:
        raise ImproperlyConfigured(
            f"SECRET_KEY must have at least {MIN_SECRET_KEY_LENGTH} characters, at least 5 of "
            f"them different, and not start with 'django-insecure-' (it has {len(key)} "
            "characters). " + _GENERATE_A_KEY
        )
    return key


#: Seconds a Redis cache may take to accept a connection, and as many to answer a command:
#: redis-py's default (5 s) made every token-authenticated request wait that long on a hung
#: Redis. ``?socket_timeout=...&socket_connect_timeout=...`` in the URL overrides them.
CACHE_SOCKET_TIMEOUT_SECONDS = 1


def cache_from_url(url: str) -> dict[str, Any]:
    """Django's cache settings from ``locmem://`` (this process only) or ``redis://...``.

    Examples
    --------
    >>> cache_from_url("redis://redis:6379/1")["OPTIONS"]
    {'socket_connect_timeout': 1, 'socket_timeout': 1}
    """
    if url.startswith(("redis://", "rediss://", "unix://")):
        return {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "OPTIONS": {
                "socket_connect_timeout": CACHE_SOCKET_TIMEOUT_SECONDS,
                "socket_timeout": CACHE_SOCKET_TIMEOUT_SECONDS,
            },
        }
    if url == "locmem://":
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    raise ImproperlyConfigured(f"CACHE_URL must be locmem:// or a redis:// URL; got {url!r}.")
