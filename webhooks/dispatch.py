"""Sending webhook deliveries to the workers, after the surrounding transaction commits.

The task is addressed by name (see ``webhooks/tasks.py``), so the services need not import
the task module that imports them.
"""

from __future__ import annotations

from collections.abc import Sequence

from celery import signature
from django.db import transaction

DELIVER_TASK = "studies.webhook_deliver"


def deliveries_enqueue(delivery_ids: Sequence[int]) -> None:
    ids = list(delivery_ids)

    def send() -> None:
        for delivery_id in ids:
            signature(DELIVER_TASK, args=(delivery_id,)).delay()

    transaction.on_commit(send)
