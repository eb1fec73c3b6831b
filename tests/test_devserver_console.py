"""What ``./dev run`` (``manage.py devserver``) prints: the login last, below the children's
start-up lines, and again once the worker is ready; the worker's log without the periodic
sweeps' sent/received/succeeded lines (a failed sweep still shows).

The children are stand-ins (``subprocess.Popen`` replaced): the worker "prints" the lines
below, which are Celery 5's formats; the real processes run in ``tests/test_devserver.py``.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from demo.console import is_beat_noise
from demo.management.commands import devserver

PERIODIC = ("studies.computations_sweep", "webhooks.deliveries_sweep")
BOOT = " -------------- celery@host v5.4.0 (opalescent)"
READY = "[2026-11-28 10:00:01,000: INFO/MainProcess] celery@host ready."
SENT = (
    "[2026-11-28 10:00:10,000: INFO/Beat] Scheduler: Sending due task webhooks-sweep "
    "(webhooks.deliveries_sweep)"
)
RECEIVED = (
    "[2026-11-28 10:00:10,010: INFO/MainProcess] Task webhooks.deliveries_sweep"
    "[0b6e2c1a-1] received"
)
SUCCEEDED = (
    "[2026-11-28 10:00:10,050: INFO/ForkPoolWorker-1] Task webhooks.deliveries_sweep"
    "[0b6e2c1a-1] succeeded in 0.03s: None"
)
WORK = "[2026-11-28 10:00:12,000: INFO/MainProcess] Task computations.run[5f3a-2] received"
FAILED = (
    "[2026-11-28 10:00:13,000: ERROR/ForkPoolWorker-1] Task studies.computations_sweep"
    "[77a1-3] raised unexpected: ValueError('x')"
)


@pytest.mark.parametrize(
    ("line", "noise"),
    [(SENT, True), (RECEIVED, True), (SUCCEEDED, True), (WORK, False), (FAILED, False),
     (READY, False), (BOOT, False)],
)  # fmt: skip
def test_only_the_periodic_tasks_routine_lines_are_noise(line: str, noise: bool) -> None:
    assert is_beat_noise(line, PERIODIC) is noise


class FakeChildren:
    """``subprocess.Popen`` for devserver: the worker prints its lines once the first login
    is out (so the order on the console is the one the test asserts); the web server
    "exits" once the worker has printed everything, which ends the supervision loop."""

    def __init__(self, out: StringIO) -> None:
        self.out = out
        self.worker_done = False
        self.next_pid = 101

    def __call__(self, command: list[str], **kwargs: Any) -> Any:
        children = self
        is_worker = "celery" in command
        pid, self.next_pid = self.next_pid, self.next_pid + 1

        class Child:
            def __init__(self) -> None:
                self.pid = pid
                self.returncode = 0
                self.stdout = children.worker_lines() if is_worker else None

            def poll(self) -> int | None:
                return 0 if children.worker_done and not is_worker else None

            def wait(self, timeout: float | None = None) -> int:
                return 0

            def send_signal(self, sig: int) -> None:
                pass

        return Child()

    def worker_lines(self) -> Iterator[bytes]:
        deadline = time.monotonic() + 10
        while "Admin login" not in self.out.getvalue() and time.monotonic() < deadline:
            time.sleep(0.01)
        for line in (BOOT, READY, SENT, RECEIVED, SUCCEEDED, WORK, FAILED):
            yield f"{line}\n".encode()
        self.worker_done = True


@pytest.mark.django_db
def test_the_login_comes_last_and_again_when_the_worker_is_ready(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings.DEBUG = True
    out = StringIO()
    monkeypatch.setattr(devserver.subprocess, "Popen", FakeChildren(out))
    with pytest.raises(CommandError, match="The web server exited"):
        call_command(devserver.Command(), "--no-demo", stdout=out)
    text = re.sub(r"password: \S+", "password: <secret>", out.getvalue())
    login = (
        "\n"
        "  Agreement server at http://127.0.0.1:8000/  (admin: http://127.0.0.1:8000/admin/, "
        "API: http://127.0.0.1:8000/api/docs/)\n"
        "  Admin login  username: admin  password: <secret>\n"
    )
    assert text == (
        "Started celery worker (pid 101).\n"
        "Started web server (pid 102).\n"
        f"{login}"
        "  (a new password is printed at each start; Ctrl-C stops the server)\n"
        f"{BOOT}\n"
        f"{READY}\n"
        f"{login}"
        "  (the worker is ready; Ctrl-C stops the server)\n"
        f"{WORK}\n"
        f"{FAILED}\n"
        "Stopped web server.\n"
        "Stopped celery worker.\n"
    )
