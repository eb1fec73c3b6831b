"""pytest plugin: a real Label Studio for the tests marked ``label_studio``.

Load it with ``-p tests.plugins.label_studio`` (pyproject's addopts). The tests run with
the other service tests (``AGREEMENT_SERVICES=1``: PostgreSQL, Redis, a Celery worker) and
are skipped without it; a Label Studio that cannot be installed or started skips them, or
fails them under ``AGREEMENT_CI_REQUIRE_SERVICES=1``.

``label_studio`` (session): Label Studio ``LABEL_STUDIO_VERSION`` from PyPI, in a virtual
environment of its own (its Django is not ours): ``AGREEMENT_LABEL_STUDIO_VENV``, by default
``~/.cache/agreement-server/label-studio-<version>``, created with pip when missing (about
1.5 minutes; later runs reuse it). It is started on a free loopback port with SQLite in a
temporary folder, a first user whose legacy API token is known, SSRF protection off (its
webhooks call this test server on 127.0.0.1) and no version check; its first start
migrates its database (about a minute). Stopped at the end of the session.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.services import ENABLE_FLAG, service_missing, services_enabled

LABEL_STUDIO_VERSION = "1.23.2"
VENV_ENV = "AGREEMENT_LABEL_STUDIO_VENV"
START_TIMEOUT = 300.0
INSTALL_TIMEOUT = 900.0
ADMIN_EMAIL = "admin@example.org"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if services_enabled():
        return
    skip = pytest.mark.skip(
        reason=f"starts a real Label Studio next to PostgreSQL, Redis and a worker: set "
        f"{ENABLE_FLAG}=1 (see tests/plugins/label_studio.py)"
    )
    for item in items:
        if item.get_closest_marker("label_studio") is not None:
            item.add_marker(skip)


def default_venv() -> Path:
    configured = os.environ.get(VENV_ENV)
    if configured:
        return Path(configured)
    return Path.home() / ".cache" / "agreement-server" / f"label-studio-{LABEL_STUDIO_VERSION}"


def _executable(venv: Path) -> Path:
    return venv / "bin" / "label-studio"


def ensure_installed(venv: Path) -> Path:
    """The ``label-studio`` command of ``venv``, installing Label Studio there if needed."""
    command = _executable(venv)
    if command.exists():
        return command
    venv.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        subprocess.run(
            [sys.executable, "-m", "venv", "--clear", str(venv)], check=True, timeout=120
        )
        subprocess.run(
            [
                str(venv / "bin" / "pip"),
                "install",
                "--quiet",
                f"label-studio=={LABEL_STUDIO_VERSION}",
            ],
            check=True,
            timeout=INSTALL_TIMEOUT,
        )
    except (subprocess.SubprocessError, OSError) as error:
        service_missing(f"Label Studio could not be installed into {venv}: {error}")
    print(f"\nLabel Studio {LABEL_STUDIO_VERSION} installed in {time.monotonic() - started:.0f} s")
    return command


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class LabelStudio:
    """A running Label Studio and its first user's token; ``call`` speaks its API."""

    url: str
    token: str
    process: subprocess.Popen[bytes]
    log_path: Path

    def call(self, method: str, path: str, body: Any = None) -> Any:
        request = urllib.request.Request(
            self.url + path,
            method=method,
            data=json.dumps(body).encode() if body is not None else None,
            headers={"Authorization": f"Token {self.token}", "Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=60) as answer:
                raw = answer.read()
        except urllib.error.HTTPError as error:
            raise AssertionError(
                f"Label Studio answered {error.code} to {method} {path}: {error.read()[:500]!r}"
            ) from None
        return json.loads(raw) if raw else None

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def _wait_until_up(url: str, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            service_missing(f"Label Studio exited at start:\n{log_path.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        time.sleep(1)
    os.killpg(process.pid, signal.SIGKILL)
    service_missing(f"Label Studio did not start within {START_TIMEOUT:.0f} s")


@pytest.fixture(scope="session")
def label_studio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LabelStudio]:
    if not services_enabled():
        pytest.skip(f"needs {ENABLE_FLAG}=1")
    command = ensure_installed(default_venv())
    data_dir = tmp_path_factory.mktemp("label-studio")
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    token = secrets.token_hex(20)
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("DJANGO_", "DATABASE_", "CELERY_", "AGREEMENT_"))
    }
    env.update(
        LABEL_STUDIO_BASE_DATA_DIR=str(data_dir),
        # Its webhooks call the agreement server on 127.0.0.1.
        SSRF_PROTECTION_ENABLED="false",
        LATEST_VERSION_CHECK="false",
        DISABLE_SIGNUP_WITHOUT_LINK="false",
        COLLECT_ANALYTICS="false",
        PYTHONUNBUFFERED="1",
    )
    log_path = data_dir / "label-studio.log"
    started = time.monotonic()
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            [
                str(command),
                "start",
                "--no-browser",
                "--internal-host",
                "127.0.0.1",
                "--port",
                str(port),
                "--host",
                url,
                "--data-dir",
                str(data_dir),
                "--username",
                ADMIN_EMAIL,
                "--password",
                secrets.token_hex(12),
                "--user-token",
                token,
                "--enable-legacy-api-token",
                "--log-level",
                "WARNING",
            ],
            cwd=data_dir,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    _wait_until_up(url, process, log_path)
    print(f"\nLabel Studio started in {time.monotonic() - started:.0f} s at {url}")
    try:
        yield LabelStudio(url=url, token=token, process=process, log_path=log_path)
    finally:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
