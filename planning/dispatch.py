"""Sending plan work to the workers, after the surrounding transaction commits.

The planning side of the transactional outbox (as ``computations/dispatch.py``): the plan
request is committed first, marked as handed over (``PlanRequest.dispatched_at``), and the
run message is sent once the transaction commits. When the broker refuses, the failure is
logged, the mark cleared, and the request left to ``plans_sweep`` (beat), which sends it
again; the request that created it still succeeds. Nothing here raises because of the broker.
"""

from __future__ import annotations

from django.db import transaction

from agreement_server.outbox import task_send
from planning.models import PlanRequest, PlanStatus

RUN_TASK = "planning.plan_run"
SWEEP_TASK = "planning.plans_sweep"


def plan_run_enqueue(plan_id: int) -> None:
    """Send the run task once the current transaction commits."""
    transaction.on_commit(lambda: plan_run_send(plan_id))


def plan_run_send(plan_id: int) -> bool:
    """Send the run task now; False (logged, left to the sweep) if the broker refused it."""
    unsent = PlanRequest.objects.filter(pk=plan_id, status=PlanStatus.QUEUED)
    return task_send(RUN_TASK, plan_id, unsent=unsent, what=f"plan id={plan_id}")
