"""What the tests that need real services (PostgreSQL, Redis, a Celery worker) check first.

``AGREEMENT_SERVICES=1`` says the services are configured: ``DATABASE_URL`` is a
postgres:// URL and ``CELERY_BROKER_URL`` a redis:// URL, both reachable. Without it the
tests marked ``services`` are skipped. ``AGREEMENT_CI_REQUIRE_SERVICES=1`` (CI) turns a
configured-but-missing or unreachable service into a failure instead of a skip.
"""

from __future__ import annotations

import os
from typing import Any, NoReturn
from urllib.parse import quote

import pytest

ENABLE_FLAG = "AGREEMENT_SERVICES"
REQUIRE_FLAG = "AGREEMENT_CI_REQUIRE_SERVICES"


def services_enabled() -> bool:
    return os.environ.get(ENABLE_FLAG) == "1"


def services_required() -> bool:
    return os.environ.get(REQUIRE_FLAG) == "1"


def service_missing(reason: str) -> NoReturn:
    """Skip the test, or fail it when CI requires the services."""
    if services_required():
        pytest.fail(f"{reason} ({REQUIRE_FLAG}=1: a required service is missing)", pytrace=False)
    pytest.skip(reason)


def postgres_problem(database: dict[str, Any]) -> str | None:
    """Why the configured database is not a reachable PostgreSQL, or None when it is."""
    if database.get("ENGINE") != "django.db.backends.postgresql":
        return "DATABASE_URL is not a postgres:// URL"
    import psycopg

    try:
        # The maintenance database, as Django does: the named one may not exist yet.
        with psycopg.connect(
            dbname="postgres",
            user=database.get("USER") or None,
            password=database.get("PASSWORD") or None,
            host=database.get("HOST") or None,
            port=database.get("PORT") or None,
            connect_timeout=3,
        ):
            return None
    except psycopg.Error as error:
        return f"PostgreSQL is unreachable: {error}".strip()


def redis_problem(broker_url: str) -> str | None:
    """Why the broker is not a reachable Redis, or None when it is."""
    if not broker_url.startswith(("redis://", "rediss://")):
        return "CELERY_BROKER_URL is not a redis:// URL"
    import redis

    try:
        redis.Redis.from_url(broker_url, socket_connect_timeout=3, socket_timeout=3).ping()
    except redis.RedisError as error:
        return f"Redis is unreachable at {broker_url}: {error}"
    return None


def database_url(database: dict[str, Any]) -> str:
    """A postgres:// URL for Django connection settings (e.g. the test database)."""
    user = quote(str(database.get("USER") or ""), safe="")
    password = quote(str(database.get("PASSWORD") or ""), safe="")
    credentials = f"{user}:{password}@" if password else (f"{user}@" if user else "")
    host = database.get("HOST") or "localhost"
    port = f":{database['PORT']}" if database.get("PORT") else ""
    return f"postgres://{credentials}{host}{port}/{quote(str(database['NAME']), safe='')}"
