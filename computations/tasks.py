"""Celery tasks: thin shells that take ids, call one service, and are safe to repeat.

Every task is idempotent: the run task claims its computation with a conditional UPDATE
(a second delivery finds it running or done and returns), a chunk (of replicates or of
items) is written once, and the combine step is claimed the same way. Messages are
acknowledged after the task ends (``CELERY_TASK_ACKS_LATE``) and requeued when the worker
dies; the periodic sweep requeues what a dead worker left running.

The task names predate the ``computations`` app; they are kept so that messages already
in a broker's queue still find their task after an upgrade (the item chunk task, newer,
is named after the app).
"""

from __future__ import annotations

import logging

from celery import shared_task

from computations import comparison_requests, dispatch, services

logger = logging.getLogger(__name__)


@shared_task(name=dispatch.RUN_TASK, ignore_result=True)
def computation_run_task(computation_id: int) -> None:
    if not services.computation_claim(computation_id=computation_id):
        logger.info("computation not claimed id=%s (gone, running or finished)", computation_id)
        return
    services.computation_run(computation_id=computation_id)


@shared_task(name=dispatch.CHUNK_TASK, ignore_result=True)
def computation_chunk_task(chunk_id: int) -> None:
    services.computation_chunk_run(chunk_id=chunk_id)


@shared_task(name=dispatch.ITEM_CHUNK_TASK, ignore_result=True)
def computation_item_chunk_task(chunk_id: int) -> None:
    services.computation_item_chunk_run(chunk_id=chunk_id)


@shared_task(name=dispatch.COMBINE_TASK, ignore_result=True)
def computation_combine_task(computation_id: int) -> None:
    services.computation_combine(computation_id=computation_id)


@shared_task(name=dispatch.SWEEP_TASK, ignore_result=True)
def computations_sweep_task() -> None:
    services.computations_sweep()
    comparison_requests.comparisons_sweep()


@shared_task(name=dispatch.COMPARISON_TASK, ignore_result=True)
def comparison_run_task(comparison_id: int) -> None:
    if not comparison_requests.comparison_claim(comparison_id=comparison_id):
        logger.info("comparison not claimed id=%s (gone, running or finished)", comparison_id)
        return
    comparison_requests.comparison_run(comparison_id=comparison_id)
