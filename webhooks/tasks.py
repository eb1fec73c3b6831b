"""Celery task of webhook deliveries: thin, id-only, safe to repeat.

The service claims each attempt with a conditional UPDATE and logs it; this task only asks
Celery to run it again after the backoff the service chose. A delivery that is gone or
finished makes the task return without sending anything.
"""

from __future__ import annotations

import logging
from typing import Any

from celery import shared_task

from webhooks import services as webhooks

logger = logging.getLogger(__name__)


@shared_task(bind=True, name="studies.webhook_deliver", ignore_result=True, max_retries=None)
def webhook_deliver_task(self: Any, delivery_id: int) -> None:
    outcome = webhooks.webhook_delivery_attempt(delivery_id=delivery_id)
    if self.request.is_eager and self.app.conf.task_eager_propagates:
        # Eager mode (unit tests, no worker) would raise ``Retry`` into whoever enqueued the
        # delivery; there is no broker to hold a countdown, so the attempts run here in turn.
        while outcome.retry_in is not None:
            outcome = webhooks.webhook_delivery_attempt(delivery_id=delivery_id)
        return
    if outcome.retry_in is not None:
        # The service counts attempts and stops at its limit, hence max_retries=None.
        raise self.retry(countdown=outcome.retry_in)
