"""``manage.py devserver`` (what ``./dev run`` runs), started for real in a temporary place."""

from __future__ import annotations

import http.cookiejar
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from demo.management.commands.devserver import Command
from studies.models import Study

ROOT = Path(__file__).resolve().parent.parent
LOGIN = re.compile(r"username: (\S+)\s+password: (\S+)")

pytestmark = pytest.mark.slow


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def dev_env(var_dir: Path) -> dict[str, str]:
    """The environment of a fresh checkout: nothing set but where to keep the data."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key
        not in {
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            "CELERY_TASK_ALWAYS_EAGER",
            "SECRET_KEY",
            "ALLOWED_HOSTS",
            "DJANGO_SETTINGS_MODULE",
        }
    }
    env.update(
        AGREEMENT_VAR_DIR=str(var_dir),
        DJANGO_SETTINGS_MODULE="agreement_server.settings",
        DEBUG="1",
        PYTHONUNBUFFERED="1",
    )
    return env


def children_of(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    return [int(child) for child in path.read_text().split()] if path.exists() else []


def cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except FileNotFoundError:
        return ""


def wait_for(condition, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


def http_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status)
    except (urllib.error.URLError, ConnectionError, TimeoutError):
        return None


def admin_login_works(base: str, username: str, password: str) -> bool:
    opener = urllib.request.build_opener(
        urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
    )
    page = opener.open(f"{base}/admin/login/", timeout=5).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    assert token is not None
    form = urllib.parse.urlencode(
        {
            "csrfmiddlewaretoken": token.group(1),
            "username": username,
            "password": password,
            "next": "/admin/",
        }
    ).encode()
    response = opener.open(f"{base}/admin/login/?next=/admin/", data=form, timeout=5)
    body = response.read().decode()
    return (
        response.geturl().endswith("/admin/")
        and "Demo: forum posts" not in body
        and ("Site administration" in body)
    )


def test_devserver_serves_prints_a_working_login_runs_a_worker_and_stops_cleanly(
    tmp_path: Path,
) -> None:
    port = free_port()
    log_path = tmp_path / "console.log"
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            [sys.executable, str(ROOT / "manage.py"), "devserver", f"127.0.0.1:{port}"],
            cwd=tmp_path,
            env=dev_env(tmp_path / "var"),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    base = f"http://127.0.0.1:{port}"

    def console() -> str:
        return log_path.read_text(errors="replace")

    try:
        wait_for(lambda: http_status(f"{base}/admin/login/") == 200, 90, "the web server")
        wait_for(lambda: "ready." in console(), 60, "the Celery worker")
        login = LOGIN.search(console())
        assert login is not None, console()
        username, password = login.groups()
        assert username == "admin"
        assert admin_login_works(base, username, password)
        workers = [pid for pid in children_of(process.pid) if "celery" in cmdline(pid)]
        assert len(workers) == 1
        assert "worker" in cmdline(workers[0])
        assert (tmp_path / "var" / "db.sqlite3").exists()
        assert (tmp_path / "var" / "broker" / "queue").is_dir()
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
        try:
            code = process.wait(timeout=40)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
    assert code == 0, console()
    assert "Stopped celery worker." in console()
    assert "Stopped web server." in console()
    assert not Path(f"/proc/{workers[0]}").exists()
    assert http_status(f"{base}/admin/login/") is None


@pytest.mark.django_db
def test_devserver_keeps_the_demo_and_resets_the_admin_password(
    settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second start loads nothing twice and prints a new password."""
    settings.DEBUG = True
    # No children: the login the supervisor prints once they are started, only.
    monkeypatch.setattr(
        Command, "_serve", lambda self, addrport, *, worker: self._write_login("test")
    )
    outputs = []
    for _ in range(2):
        out = StringIO()
        call_command(Command(), stdout=out)
        outputs.append(out.getvalue())
    logins = [LOGIN.search(output) for output in outputs]
    assert all(logins)
    assert logins[0].group(2) != logins[1].group(2)  # type: ignore[union-attr]
    assert "loaded." in outputs[0]
    assert "already present." in outputs[1]
    assert Study.objects.count() == 1
    admin = get_user_model().objects.get(username="admin")
    assert admin.is_superuser
    assert admin.check_password(logins[1].group(2))  # type: ignore[union-attr]


@pytest.mark.django_db
def test_devserver_refuses_to_run_without_debug(settings: Any) -> None:
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG=1"):
        call_command(Command())
