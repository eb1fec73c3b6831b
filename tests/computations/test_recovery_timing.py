"""The timings behind "recovery within 60 s" and "a request never waits on a dead broker".

The production defaults (issue 13, finding 7; docs/operations.md, *Recovery and broker
outages*): a working task beats every 5 s, a computation silent for 30 s is taken for dead,
the sweep runs every 10 s; so a dead worker's computation is sent again at most
30 + 10 = 40 s after its last beat (plus the 5 s it may have beaten just before dying is
already counted: the last beat is at most 5 s before the death).
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from celery import Celery
from kombu.exceptions import OperationalError

from agreement_server import settings as production


def test_the_default_timings_recover_a_dead_worker_within_60_seconds() -> None:
    assert production.AGREEMENT_COMPUTATION_HEARTBEAT_INTERVAL_SECONDS == 5
    assert production.AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS == 30
    assert production.AGREEMENT_COMPUTATION_SWEEP_SECONDS == 10
    schedule = production.CELERY_BEAT_SCHEDULE
    assert schedule["computations-sweep"] == {
        "task": "studies.computations_sweep",
        "schedule": 10.0,
    }
    assert schedule["webhooks-sweep"]["schedule"] == 10.0
    # Worst case: death right after a beat; silent for the timeout; the sweep just missed it.
    worst = (
        production.AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS
        + production.AGREEMENT_COMPUTATION_SWEEP_SECONDS
    )
    assert worst == 40
    # A live task beats at least 3 times within the timeout (a late beat is not death).
    assert production.AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS // 5 == 6


def test_a_publish_gives_up_after_one_retry() -> None:
    assert production.CELERY_TASK_PUBLISH_RETRY_POLICY == {
        "max_retries": 1,
        "interval_start": 0,
        "interval_step": 0.2,
        "interval_max": 0.2,
    }
    assert production.CELERY_BROKER_CONNECTION_TIMEOUT == 1


def test_a_heartbeat_interval_above_a_third_of_the_timeout_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib

    from django.core.exceptions import ImproperlyConfigured

    monkeypatch.setenv("AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS", "30")
    monkeypatch.setenv("AGREEMENT_COMPUTATION_HEARTBEAT_INTERVAL_SECONDS", "11")
    try:
        with pytest.raises(ImproperlyConfigured, match="at most a third"):
            importlib.reload(production)
    finally:
        monkeypatch.undo()
        importlib.reload(production)


def _redis_options(monkeypatch: pytest.MonkeyPatch, url: str) -> dict[str, Any]:
    """The broker settings the production module computes for ``url``."""
    import importlib

    monkeypatch.setenv("CELERY_BROKER_URL", url)
    try:
        reloaded = importlib.reload(production)
        return {
            "broker_url": url,
            "broker_transport_options": dict(reloaded.CELERY_BROKER_TRANSPORT_OPTIONS),
            "broker_connection_timeout": reloaded.CELERY_BROKER_CONNECTION_TIMEOUT,
            "task_publish_retry_policy": dict(reloaded.CELERY_TASK_PUBLISH_RETRY_POLICY),
        }
    finally:
        monkeypatch.undo()
        importlib.reload(production)


def test_redis_gets_short_socket_timeouts_and_a_visibility_timeout_above_the_time_limit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    options = _redis_options(monkeypatch, "redis://127.0.0.1:6379/0")
    assert options["broker_transport_options"] == {
        "socket_connect_timeout": 1,
        "socket_timeout": 1,
        "visibility_timeout": 900,
    }
    assert 900 > production.CELERY_TASK_TIME_LIMIT == 660


@pytest.fixture
def hung_redis() -> Iterator[int]:
    """A port that accepts connections and never answers: a hung broker."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    for connection in accepted:
        connection.close()
    server.close()


def _closed_port() -> int:
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


@pytest.mark.parametrize("broker", ["closed", "hung"])
def test_a_send_to_an_unreachable_redis_fails_with_operational_error_within_3_seconds(
    broker: str, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    port = request.getfixturevalue("hung_redis") if broker == "hung" else _closed_port()
    url = f"redis://127.0.0.1:{port}/0"
    options = _redis_options(monkeypatch, url)
    # Celery prefers CELERY_BROKER_URL from the environment (set by the services run) to
    # the app's own setting.
    monkeypatch.setenv("CELERY_BROKER_URL", url)
    app = Celery("probe", broker=url, set_as_current=False)
    app.conf.update(options)
    started = time.monotonic()
    with pytest.raises(OperationalError):
        app.send_task("studies.computation_run", args=(1,))
    assert time.monotonic() - started < 3.0
