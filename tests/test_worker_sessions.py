"""A worker's database sessions end their statements with the task (issue 25): a statement
timeout equal to the task's soft time limit, and a check for a killed worker's socket.

A statement running past its task's time limit kept the locks and memory of PostgreSQL
(41 minutes for the review rebuild); web processes keep no such limit.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper

from agreement_server.worker_sessions import limit_worker_sessions, unlimit_worker_sessions
from studies.models import Study
from tests.celery_probe import session_settings_probe
from tests.plugins.services import WorkerProcess

SETTINGS = ["statement_timeout", "client_connection_check_interval"]


def _settings(wrapper: BaseDatabaseWrapper) -> dict[str, str]:
    with wrapper.cursor() as cursor:
        cursor.execute(
            "SELECT name, setting, unit FROM pg_settings WHERE name = ANY(%s)", [SETTINGS]
        )
        return {name: f"{setting}{unit}" for name, setting, unit in cursor.fetchall()}


@pytest.fixture
def fresh_session() -> Iterator[BaseDatabaseWrapper]:
    """A session of its own on the test database, opened by the test, closed after it."""
    wrapper = connections.create_connection("default")
    try:
        yield wrapper
    finally:
        unlimit_worker_sessions()
        wrapper.close()


@pytest.mark.django_db
def test_a_worker_session_times_out_with_the_soft_time_limit(
    fresh_session: BaseDatabaseWrapper, settings: Any
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no statement timeout")
    assert _settings(fresh_session)["statement_timeout"] == "0ms"  # a web process's session
    fresh_session.close()
    limit_worker_sessions()
    assert _settings(fresh_session) == {
        "statement_timeout": "600000ms",  # CELERY_TASK_SOFT_TIME_LIMIT
        "client_connection_check_interval": "10000ms",
    }


@pytest.mark.django_db
def test_the_sessions_open_when_the_worker_starts_get_the_limits_too(
    fresh_session: BaseDatabaseWrapper, settings: Any
) -> None:
    if connection.vendor != "postgresql":
        pytest.skip("SQLite has no statement timeout")
    settings.AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS = 30
    limit_worker_sessions()  # the test's own session is open: set now (undone by its rollback)
    assert _settings(connection)["statement_timeout"] == "30000ms"
    assert _settings(fresh_session)["statement_timeout"] == "30000ms"


@pytest.mark.django_db
def test_sqlite_sessions_are_left_as_they_are(fresh_session: BaseDatabaseWrapper) -> None:
    if connection.vendor != "sqlite":
        pytest.skip("PostgreSQL is checked above")
    limit_worker_sessions()
    with fresh_session.cursor() as cursor:
        cursor.execute("SELECT 1")
        assert cursor.fetchone() == (1,)


@pytest.mark.services
def test_a_real_worker_runs_its_tasks_with_the_statement_timeout(
    celery_worker_process: WorkerProcess,
) -> None:
    session_settings_probe.delay(SETTINGS)
    deadline = time.monotonic() + 30
    while not Study.objects.filter(name__startswith="statement_timeout=").exists():
        assert time.monotonic() < deadline, celery_worker_process.log()[-3000:]
        time.sleep(0.2)
    assert Study.objects.get(name__startswith="statement_timeout=").name == (
        "statement_timeout=10min;client_connection_check_interval=10s"
    )
