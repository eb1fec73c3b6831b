"""Celery tasks of planning: thin, id-only, safe to repeat.

``plan_run_task`` claims its plan with a conditional UPDATE (a second delivery finds it
running or done and returns) and runs it; ``plans_sweep_task`` (beat) sends again what the
broker refused or a dead worker left running.
"""

from __future__ import annotations

import logging

from celery import shared_task

from planning import dispatch, services

logger = logging.getLogger(__name__)


@shared_task(name=dispatch.RUN_TASK, ignore_result=True)
def plan_run_task(plan_id: int) -> None:
    if not services.plan_claim(plan_id=plan_id):
        logger.info("plan not claimed id=%s (gone, running or finished)", plan_id)
        return
    services.plan_run(plan_id=plan_id)


@shared_task(name=dispatch.SWEEP_TASK, ignore_result=True)
def plans_sweep_task() -> None:
    services.plans_sweep()
