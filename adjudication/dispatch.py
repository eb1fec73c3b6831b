"""Sending reference computations to the workers, after the surrounding transaction commits.

The adjudication app's side of the transactional outbox (as ``computations.dispatch``): the
``ReferenceResult`` row is committed queued and marked handed over (``dispatched_at``); the
message goes once the transaction commits. When the broker refuses, the failure is logged,
the mark cleared, and the sweep (``reference_results_sweep``) sends it later. Nothing here
raises because of the broker. Tasks are addressed by name.
"""

from __future__ import annotations

import logging

from celery import signature
from django.db import transaction

from adjudication.models import ReferenceResult, ReferenceStatus

logger = logging.getLogger(__name__)

COMPUTE_TASK = "adjudication.reference_compute"
SWEEP_TASK = "adjudication.reference_sweep"


def reference_compute_enqueue(result_id: int) -> None:
    """Send the compute task once the current transaction commits."""
    transaction.on_commit(lambda: reference_compute_send(result_id))


def reference_compute_send(result_id: int) -> bool:
    """Send the compute task now; False (logged, left to the sweep) if the broker refused."""
    try:
        signature(COMPUTE_TASK, args=(result_id,)).apply_async()
    except Exception as error:  # kombu's OperationalError when the broker is down
        logger.warning(
            "reference computation not sent id=%s (%s: %s); the sweep sends it later",
            result_id,
            type(error).__name__,
            error,
        )
        try:
            ReferenceResult.objects.filter(pk=result_id, status=ReferenceStatus.QUEUED).update(
                dispatched_at=None
            )
        except Exception:  # the database too: the sweep still finds it by age
            logger.exception("reference computation not marked unsent id=%s", result_id)
        return False
    return True
