"""Celery tasks of webhooks: thin, id-only, safe to repeat, never raising.

``webhook_deliver_task`` makes one attempt (the service claims and logs it) and hands the
retry to the broker with the backoff the service chose. Whatever goes wrong is logged and
left to ``webhook_deliveries_sweep_task`` (beat), which sends again what nothing else will.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from webhooks import delivery, dispatch

logger = logging.getLogger(__name__)


@shared_task(bind=True, name=dispatch.DELIVER_TASK, ignore_result=True)
def webhook_deliver_task(self: Any, delivery_id: int) -> None:
    # Eager mode (unit tests, no worker) runs a retry at once, ignoring its countdown.
    eager = bool(self.request.is_eager)
    try:
        outcome = delivery.webhook_delivery_attempt(
            delivery_id=delivery_id, wait_until_due=not eager
        )
    except Exception:  # only the log write can fail; the sweep takes the delivery up
        logger.exception("webhook attempt not logged delivery=%s", delivery_id)
        return
    if outcome.retry_in is not None:
        dispatch.deliveries_send([delivery_id], countdown=outcome.retry_in)


@shared_task(name=dispatch.SWEEP_TASK, ignore_result=True)
def webhook_deliveries_sweep_task() -> None:
    delivery.webhook_deliveries_sweep()
