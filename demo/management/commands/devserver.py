"""``manage.py devserver``: the one-command development run (``./dev run``).

Migrates the database (SQLite under ``var/`` by default), loads the demo study unless it
is there, creates or resets an ``admin`` superuser with a fresh random password and prints
the login, then runs two child processes side by side: a real Celery worker (on the
on-disk broker by default) and Django's development web server. Ctrl-C or SIGTERM stops
both cleanly; if either child dies, the other is stopped too.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import FrameType
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from demo.console import WORKER_READY, is_beat_noise, login_box
from demo.loader import demo_study_ensure

_STOP_TIMEOUT = 15.0


class _StopRequestedError(Exception):
    """Raised from the signal handler to leave the supervision loop."""


def broker_folders() -> list[Path]:
    """The folders the on-disk (kombu filesystem) broker needs, if that broker is used."""
    options = settings.CELERY_BROKER_TRANSPORT_OPTIONS or {}
    keys = ("data_folder_in", "data_folder_out", "processed_folder", "control_folder")
    return [Path(str(options[key])) for key in keys if key in options]


def admin_reset(*, username: str) -> tuple[Any, str]:
    """Create the superuser, or reset its password; returns it with the new password."""
    password = secrets.token_urlsafe(12)
    user, _ = get_user_model().objects.get_or_create(username=username)
    user.is_staff = True
    user.is_superuser = True
    user.is_active = True
    user.set_password(password)
    user.save()
    return user, password


class Command(BaseCommand):
    help = "Migrate, load the demo study, print an admin login, run a Celery worker and serve."

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._output_lock = threading.Lock()  # the worker's relay writes from its thread
        self._login: dict[str, str] = {}

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument("--username", default="admin", help="The admin user to (re)set.")
        parser.add_argument("--no-demo", action="store_true", help="Do not load the demo study.")
        parser.add_argument("--no-worker", action="store_true", help="Do not start a worker.")

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.DEBUG:
            raise CommandError("devserver is for development: run it with DEBUG=1.")
        Path(settings.VAR_DIR).mkdir(parents=True, exist_ok=True)
        for folder in broker_folders():
            folder.mkdir(parents=True, exist_ok=True)
        call_command("migrate", interactive=False, verbosity=0)
        user, password = admin_reset(username=options["username"])
        if not options["no_demo"]:
            result = demo_study_ensure(manager=user)
            state = "loaded" if result.created else "already present"
            self.stdout.write(f"Demo study {result.study.name!r}: {state}.")
        url = f"http://{options['addrport']}/"
        login = {"url": url, "username": user.get_username(), "password": password}
        self._login = login
        self._serve(options["addrport"], worker=not options["no_worker"])

    def _write(self, text: str) -> None:
        with self._output_lock:
            self.stdout.write(text)
            self.stdout.flush()

    def _write_login(self, note: str) -> None:
        self._write(self.style.SUCCESS(login_box(**self._login, note=note)))

    def _spawn(self, name: str, command: list[str], *, relay: bool = False) -> Any:
        # A session of its own, so a terminal's Ctrl-C reaches only this supervisor, which
        # then stops each child once, in order (a second SIGINT makes Celery cold-stop).
        # A relayed child's output goes through this process (``_relay``).
        process = subprocess.Popen(
            command,
            cwd=settings.BASE_DIR,
            start_new_session=True,
            stdout=subprocess.PIPE if relay else None,
            stderr=subprocess.STDOUT if relay else None,
        )
        self._write(f"Started {name} (pid {process.pid}).")
        if relay:
            threading.Thread(target=self._relay, args=(process,), daemon=True).start()
        return process

    def _relay(self, process: Any) -> None:
        """Print the worker's lines but the beat's noise; the login again once it is ready
        (its start-up banner would have pushed the first one off the screen)."""
        periodic = [str(entry["task"]) for entry in settings.CELERY_BEAT_SCHEDULE.values()]
        announced = False
        for raw in process.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\n")
            if is_beat_noise(line, periodic):
                continue
            self._write(line)
            if not announced and line.endswith(WORKER_READY):
                announced = True
                self._write_login("the worker is ready; Ctrl-C stops the server")

    def _serve(self, addrport: str, *, worker: bool) -> None:
        children: list[tuple[str, subprocess.Popen[bytes]]] = []

        def stop(signum: int, frame: FrameType | None) -> None:
            raise _StopRequestedError

        previous = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            if worker:
                children.append(
                    (
                        "celery worker",
                        self._spawn(
                            "celery worker",
                            [
                                sys.executable,
                                "-m",
                                "celery",
                                "-A",
                                "agreement_server",
                                "worker",
                                "--loglevel=INFO",
                                "--concurrency=1",
                                # The periodic sweep that requeues computations a dead
                                # worker left running.
                                "--beat",
                                f"--schedule={settings.VAR_DIR / 'celerybeat-schedule'}",
                            ],
                            relay=True,
                        ),
                    )
                )
            manage = str(Path(settings.BASE_DIR) / "manage.py")
            children.append(
                (
                    "web server",
                    self._spawn(
                        "web server",
                        [sys.executable, manage, "runserver", "--noreload", addrport],
                    ),
                )
            )
            # Last, below the children's start-up lines (and again when the worker is ready).
            self._write_login("a new password is printed at each start; Ctrl-C stops the server")
            while True:
                for name, process in children:
                    if process.poll() is not None:
                        raise CommandError(f"The {name} exited (code {process.returncode}).")
                time.sleep(0.3)
        except _StopRequestedError:
            self.stdout.write("Stopping…")
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)
            self._stop_all(children)

    def _stop_all(self, children: list[tuple[str, subprocess.Popen[bytes]]]) -> None:
        # The web server first (no new requests), then the worker: SIGTERM is Celery's warm
        # shutdown, which finishes the running task; a child that hangs is killed.
        for name, process in reversed(children):
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=_STOP_TIMEOUT)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                self.stderr.write(f"The {name} did not stop in time and was killed.")
            else:
                self.stdout.write(f"Stopped {name}.")
        self.stdout.flush()
