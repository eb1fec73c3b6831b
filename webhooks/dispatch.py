"""Handing webhook deliveries to the broker, after the surrounding transaction commits.

A delivery row is committed first, marked as handed over (``dispatched_at``); then the
message is sent. When the broker refuses (it is down), the failure is logged, the mark
cleared, and the delivery left to the sweep, which sends it once the broker is back: the
request that fired the event still succeeds.

The task is addressed by name (see ``webhooks/tasks.py``), so the services need not import
the task module that imports them.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from celery import signature
from django.db import transaction

from webhooks.models import DeliveryStatus, WebhookDelivery

logger = logging.getLogger(__name__)

DELIVER_TASK = "studies.webhook_deliver"
SWEEP_TASK = "webhooks.deliveries_sweep"


def deliveries_enqueue(delivery_ids: Sequence[int]) -> None:
    """Send the deliveries to the workers once the current transaction commits."""
    ids = list(delivery_ids)
    if ids:
        transaction.on_commit(lambda: deliveries_send(ids))


def deliveries_send(delivery_ids: Sequence[int], *, countdown: int | None = None) -> list[int]:
    """Send a message for each delivery now (``countdown`` seconds from now); never raises.

    Returns the ids the broker did not take: after the first refusal the rest are not tried
    (the broker is down), and all are left to the sweep.
    """
    ids = list(delivery_ids)
    for index, delivery_id in enumerate(ids):
        try:
            signature(DELIVER_TASK, args=(delivery_id,)).apply_async(countdown=countdown)
        except Exception as error:  # kombu's OperationalError when the broker is down
            unsent = ids[index:]
            logger.warning(
                "webhook deliveries not sent ids=%s (%s: %s); the sweep sends them later",
                unsent,
                type(error).__name__,
                error,
            )
            _mark_unsent(unsent)
            return unsent
    return []


def _mark_unsent(delivery_ids: list[int]) -> None:
    try:
        WebhookDelivery.objects.filter(pk__in=delivery_ids, status=DeliveryStatus.PENDING).update(
            dispatched_at=None
        )
    except Exception:  # the database too: the sweep still finds them, later
        logger.exception("webhook deliveries not marked unsent ids=%s", delivery_ids)
