"""Handing one task message to the broker, as the transactional outbox's last step.

Each app's ``dispatch.py`` commits its work row first, marked as handed over
(``dispatched_at``), and sends the message after the commit through :func:`task_send`. When the
broker refuses (it is down), the failure is logged and the mark cleared, so the app's sweep
sends the work again later; nothing here raises because of the broker. Tasks are addressed
by name, so the services that enqueue work need not import their task modules.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import signature
from django.db.models import QuerySet

logger = logging.getLogger(__name__)


def task_send(task: str, argument: int, *, unsent: QuerySet[Any], what: str) -> bool:
    """Send ``task(argument)`` now; False (logged, ``unsent`` unmarked) if the broker refused.

    ``unsent`` selects the work row whose ``dispatched_at`` is cleared on refusal (usually the
    row by primary key, while it is still waiting), ``what`` names it in the log.
    """
    try:
        signature(task, args=(argument,)).apply_async()
    except Exception as error:  # kombu's OperationalError when the broker is down
        logger.warning(
            "%s not sent task=%s (%s: %s); the sweep sends it later",
            what,
            task,
            type(error).__name__,
            error,
        )
        try:
            unsent.update(dispatched_at=None)
        except Exception:  # the database too: the sweep still finds it, later (heartbeat or age)
            logger.exception("%s not marked unsent", what)
        return False
    return True
