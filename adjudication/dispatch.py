"""Sending reference computations to the workers, after the surrounding transaction commits.

The adjudication app's side of the transactional outbox (as ``computations.dispatch``): the
``ReferenceResult`` row is committed queued and marked handed over (``dispatched_at``); the
message goes once the transaction commits. When the broker refuses, the failure is logged,
the mark cleared, and the sweep (``reference_results_sweep``) sends it later. Nothing here
raises because of the broker. Tasks are addressed by name.
"""

from __future__ import annotations

from django.db import transaction

from adjudication.models import ReferenceResult, ReferenceStatus
from agreement_server.outbox import task_send

COMPUTE_TASK = "adjudication.reference_compute"
SWEEP_TASK = "adjudication.reference_sweep"


def reference_compute_enqueue(result_id: int) -> None:
    """Send the compute task once the current transaction commits."""
    transaction.on_commit(lambda: reference_compute_send(result_id))


def reference_compute_send(result_id: int) -> bool:
    """Send the compute task now; False (logged, left to the sweep) if the broker refused."""
    unsent = ReferenceResult.objects.filter(pk=result_id, status=ReferenceStatus.QUEUED)
    return task_send(
        COMPUTE_TASK, result_id, unsent=unsent, what=f"reference computation id={result_id}"
    )
