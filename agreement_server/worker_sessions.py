"""The database sessions of a Celery worker end their statements with the task (issue 25).

A task past its soft time limit (``CELERY_TASK_SOFT_TIME_LIMIT``) is told to stop, one past
the hard limit is killed; neither stops a statement PostgreSQL is running for it (the review
rebuild of issue 25 ran 41 minutes after its task's end). So once a process is a worker
(Celery's ``worker_init``, sent before the pool forks), every database session it opens
sets:

- ``statement_timeout`` to ``AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS`` (default: the soft
  time limit): no statement runs longer than its task may;
- ``client_connection_check_interval`` (PostgreSQL 14 and later) to
  ``CLIENT_CHECK_SECONDS``: a statement whose worker was killed is cancelled within that
  time, since the server notices the closed socket.

Web processes are left as they are (a request has its own limit, gunicorn's timeout).
SQLite has no statement timeout: nothing is set there.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created

CLIENT_CHECK_SECONDS = 10

_limited = False


def statement_timeout_seconds() -> int:
    """The statement timeout of a worker's sessions (0: none)."""
    return int(settings.AGREEMENT_WORKER_STATEMENT_TIMEOUT_SECONDS)


def limit_worker_sessions(**_: Any) -> None:
    """From now on, this process's database sessions get the worker's limits; those open
    already get them at once. Connected to Celery's ``worker_init``."""
    global _limited
    _limited = True
    for wrapper in connections.all(initialized_only=True):
        if wrapper.connection is not None:
            session_limits_apply(wrapper)


def unlimit_worker_sessions() -> None:
    """Sessions opened from now on get no limits (for tests)."""
    global _limited
    _limited = False


def session_limits_apply(wrapper: BaseDatabaseWrapper) -> None:
    """Set the worker's limits on the session of ``wrapper`` (PostgreSQL only)."""
    if wrapper.vendor != "postgresql":
        return
    timeout = statement_timeout_seconds()
    with wrapper.cursor() as cursor:
        # set_config(..., false): for the session, not only the transaction (a session is
        # set up as it opens, in autocommit mode).
        cursor.execute("SELECT set_config('statement_timeout', %s, false)", [f"{timeout}s"])
        if wrapper.pg_version >= 140000:  # type: ignore[attr-defined]
            cursor.execute(
                "SELECT set_config('client_connection_check_interval', %s, false)",
                [f"{CLIENT_CHECK_SECONDS}s"],
            )


def _on_connection_created(sender: Any, connection: BaseDatabaseWrapper, **_: Any) -> None:
    if _limited:
        session_limits_apply(connection)


connection_created.connect(_on_connection_created, dispatch_uid="agreement.worker_sessions")
