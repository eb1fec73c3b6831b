"""Sending connection work to the workers, after the surrounding transaction commits.

The connections side of the transactional outbox: an event or sync row is committed first,
marked as handed over (``dispatched_at``), and its message sent once the transaction
commits (``agreement_server.outbox.task_send``). When the broker refuses, the mark is
cleared and ``connections.sweep`` (beat) sends it again; the webhook call that stored the
event still gets its 202.
"""

from __future__ import annotations

from django.db import transaction

from agreement_server.outbox import task_send
from agreement_server.worker_jobs import JobStatus
from connections.models import LabelStudioEvent, LabelStudioSync

EVENT_TASK = "connections.event_apply"
SYNC_TASK = "connections.sync_run"
SWEEP_TASK = "connections.sweep"
PERIODIC_SYNC_TASK = "connections.syncs_periodic"


def event_apply_enqueue(event_id: int) -> None:
    transaction.on_commit(lambda: event_apply_send(event_id))


def event_apply_send(event_id: int) -> bool:
    unsent = LabelStudioEvent.objects.filter(pk=event_id, status=JobStatus.QUEUED)
    return task_send(EVENT_TASK, event_id, unsent=unsent, what=f"label studio event id={event_id}")


def sync_run_enqueue(sync_id: int) -> None:
    transaction.on_commit(lambda: sync_run_send(sync_id))


def sync_run_send(sync_id: int) -> bool:
    unsent = LabelStudioSync.objects.filter(pk=sync_id, status=JobStatus.QUEUED)
    return task_send(SYNC_TASK, sync_id, unsent=unsent, what=f"label studio sync id={sync_id}")
