"""Celery tasks of the connections: thin, id-only, safe to repeat (each claims its row)."""

from __future__ import annotations

from celery import shared_task

from connections import dispatch, services


@shared_task(name=dispatch.EVENT_TASK, ignore_result=True)
def event_apply_task(event_id: int) -> None:
    services.event_apply(event_id=event_id)


@shared_task(name=dispatch.SYNC_TASK, ignore_result=True)
def sync_run_task(sync_id: int) -> None:
    services.sync_run(sync_id=sync_id)


@shared_task(name=dispatch.SWEEP_TASK, ignore_result=True)
def sweep_task() -> None:
    services.connections_sweep()


@shared_task(name=dispatch.PERIODIC_SYNC_TASK, ignore_result=True)
def syncs_periodic_task() -> None:
    services.syncs_periodic()
