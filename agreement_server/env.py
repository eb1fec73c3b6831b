"""Strict readers for environment variables.

A value that cannot be parsed stops the process at start with a message naming the
variable, instead of silently meaning something else (``DEBUG=yes`` is not "false").
"""

from __future__ import annotations

import os

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
