"""pytest plugin: the guard and fixtures for tests that need real services.

Load it with ``-p tests.plugins.services``. A test marked ``@pytest.mark.services`` is
skipped unless ``AGREEMENT_SERVICES=1``; with it, the fixtures below check that each
service is there, and a missing one skips the test, or fails it under
``AGREEMENT_CI_REQUIRE_SERVICES=1`` (CI must not go green by skipping).

Fixtures:

- ``postgres_required``: ``DATABASE_URL`` is PostgreSQL and reachable; yields the URL.
- ``redis_broker``: ``CELERY_BROKER_URL`` is Redis and reachable; yields the URL.
- ``celery_worker_process``: a real ``celery -A agreement_server worker`` subprocess on
  the test database (``test_<name>``, hence ``transactional_db``) and a queue of its own;
  tasks the test sends with ``.delay()`` go through Redis to it. The yielded
  ``WorkerProcess`` can ``kill()`` it (SIGKILL, as a crash) and ``start()`` it again.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.services import (
    ENABLE_FLAG,
    database_url,
    postgres_problem,
    redis_problem,
    service_missing,
    services_enabled,
)

ROOT = Path(__file__).resolve().parents[2]
WORKER_SETTINGS = "tests.plugins.worker_settings"
READY_TIMEOUT = 60.0
STOP_TIMEOUT = 20.0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if services_enabled():
        return
    skip = pytest.mark.skip(
        reason=f"needs PostgreSQL, Redis and a Celery worker: set {ENABLE_FLAG}=1 "
        "with DATABASE_URL=postgres://... and CELERY_BROKER_URL=redis://..."
    )
    for item in items:
        if item.get_closest_marker("services") is not None:
            item.add_marker(skip)


@pytest.fixture
def postgres_required() -> str:
    from django.conf import settings

    problem = postgres_problem(settings.DATABASES["default"])
    if problem:
        service_missing(problem)
    return os.environ.get("DATABASE_URL", "")


@pytest.fixture
def redis_broker() -> str:
    from django.conf import settings

    problem = redis_problem(settings.CELERY_BROKER_URL)
    if problem:
        service_missing(problem)
    return str(settings.CELERY_BROKER_URL)


class WorkerProcess:
    """A real Celery worker in a subprocess (its own process group), consuming ``queue``."""

    def __init__(self, *, env: dict[str, str], queue: str, log_path: Path) -> None:
        # The worker's own follow-up tasks (bootstrap chunks, combine) stay on its queue too.
        self.env = {**env, "AGREEMENT_TEST_QUEUE": queue}
        self.queue = queue
        self.log_path = log_path
        self.hostname = f"{queue}@%h"
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @property
    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "agreement_server",
            "worker",
            "--loglevel=INFO",
            "--concurrency=1",
            f"--queues={self.queue}",
            f"--hostname={self.hostname}",
            "--include=tests.celery_probe",
            "--without-gossip",
            "--without-mingle",
            "--without-heartbeat",
        ]

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def start(self) -> None:
        """Start the worker and wait until it consumes; a second start is a restart."""
        if self.alive:
            raise RuntimeError("The worker is already running.")
        ready_before = self.log().count(" ready.")
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                self.command,
                cwd=ROOT,
                env=self.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.starts += 1
        deadline = time.monotonic() + READY_TIMEOUT
        while self.log().count(" ready.") <= ready_before:
            if not self.alive:
                raise RuntimeError(f"The Celery worker exited at start:\n{self.log()[-3000:]}")
            if time.monotonic() > deadline:
                self.kill()
                raise RuntimeError(f"The Celery worker was not ready:\n{self.log()[-3000:]}")
            time.sleep(0.2)

    def kill(self) -> None:
        """SIGKILL the worker and its pool processes at once, as a crash would."""
        if self.process is None:
            return
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()

    def stop(self) -> None:
        """Warm shutdown (SIGTERM): the running task finishes; killed if it hangs."""
        if not self.alive:
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
        # Pool children left behind by a killed main process.
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _route_to(app: Any, queue: str | None, always_eager: bool) -> None:
    """Send the test process's tasks to ``queue`` (a queue no other run consumes)."""
    app.conf.task_default_queue = queue or "celery"
    app.conf.task_always_eager = always_eager
    for cached in ("queues", "default_queue", "router"):
        app.amqp.__dict__.pop(cached, None)


@pytest.fixture
def celery_worker_process(
    transactional_db: None, postgres_required: str, redis_broker: str, tmp_path: Path
) -> Iterator[WorkerProcess]:
    from django.conf import settings
    from django.db import connection

    from agreement_server.celery import app

    queue = f"tests-{uuid.uuid4().hex[:12]}"
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE=WORKER_SETTINGS,
        # The worker writes where the test reads: pytest-django's test database.
        DATABASE_URL=database_url(connection.settings_dict),
        CELERY_BROKER_URL=redis_broker,
        CELERY_TASK_ALWAYS_EAGER="0",
        AGREEMENT_VAR_DIR=str(settings.VAR_DIR),
        PYTHONUNBUFFERED="1",
    )
    worker = WorkerProcess(env=env, queue=queue, log_path=tmp_path / "celery-worker.log")
    previous_eager = bool(app.conf.task_always_eager)
    previous_queue = app.conf.task_default_queue
    _route_to(app, queue, always_eager=False)
    try:
        worker.start()
        yield worker
    finally:
        worker.stop()
        _route_to(app, previous_queue, always_eager=previous_eager)
        # Drop what is left in the queue of this run.
        with app.connection_for_write() as conn:
            conn.default_channel.queue_delete(queue)
