"""Celery tasks of the adjudication app: thin, id-only, safe to repeat.

The compute task claims its result with a conditional UPDATE (a second delivery finds it
running or done and returns) and calls the service; the sweep (beat) re-sends lost work.
"""

from __future__ import annotations

import logging

from celery import shared_task

from adjudication import dispatch, services

logger = logging.getLogger(__name__)


@shared_task(name=dispatch.COMPUTE_TASK, ignore_result=True)
def reference_compute_task(result_id: int) -> None:
    if not services.reference_result_claim(result_id=result_id):
        logger.info("reference result not claimed id=%s (gone, running or done)", result_id)
        return
    services.reference_result_run(result_id=result_id)


@shared_task(name=dispatch.SWEEP_TASK, ignore_result=True)
def reference_sweep_task() -> None:
    services.reference_results_sweep()
