"""What ``./dev run`` prints: the login box, and the worker's log without the beat's noise.

The worker runs the periodic sweeps (``CELERY_BEAT_SCHEDULE``) every few seconds; at INFO
each run logs three lines (sent, received, succeeded), which would bury the login and
every useful line. Those lines are dropped; a sweep that fails is still printed.
"""

from __future__ import annotations

from collections.abc import Iterable

#: The worker's line once it takes tasks (Celery: ``celery@host ready.``).
WORKER_READY = " ready."


def login_box(*, url: str, username: str, password: str, note: str) -> str:
    return (
        "\n"
        f"  Agreement server at {url}  (admin: {url}admin/, API: {url}api/docs/)\n"
        f"  Admin login  username: {username}  password: {password}\n"
        f"  ({note})\n"
    )


def is_beat_noise(line: str, periodic_tasks: Iterable[str]) -> bool:
    """Whether a worker log line only says that a periodic task was sent, received or
    succeeded."""
    if "Scheduler: Sending due task" in line:
        return True
    if not (" received" in line or " succeeded in " in line):
        return False
    return any(f"Task {name}[" in line for name in periodic_tasks)
