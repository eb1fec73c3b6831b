"""The ``celery_worker_process`` fixture, end to end: Redis, a real worker, the test DB."""

from __future__ import annotations

import time

import pytest

from studies.models import Study
from tests.celery_probe import study_create_probe
from tests.plugins.services import WorkerProcess

pytestmark = pytest.mark.services
# Also loaded by addopts (-p tests.plugins.services); named here so this module works alone.


def wait_for_study(name: str, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if Study.objects.filter(name=name).exists():
            return True
        time.sleep(0.2)
    return False


def test_a_task_sent_over_redis_runs_in_the_real_worker_and_writes_to_the_test_database(
    celery_worker_process: WorkerProcess,
) -> None:
    result = study_create_probe.delay("written by the worker")
    assert wait_for_study("written by the worker"), celery_worker_process.log()[-3000:]
    assert result.id in celery_worker_process.log()


def test_a_killed_worker_can_be_started_again_and_takes_new_tasks(
    celery_worker_process: WorkerProcess,
) -> None:
    first_pid = celery_worker_process.pid
    celery_worker_process.kill()
    assert not celery_worker_process.alive
    study_create_probe.delay("sent while the worker was down")
    celery_worker_process.start()
    assert celery_worker_process.pid != first_pid
    assert wait_for_study("sent while the worker was down"), celery_worker_process.log()[-3000:]
