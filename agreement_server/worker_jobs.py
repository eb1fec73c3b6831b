"""Work rows computed by a worker: their fields and states; claim, beat, finish and sweep.

::

    queued ──job_claim──► running ──job_finish──► done | failed (job_fail, the reason kept)
      ▲                      │
      └──── jobs_sweep ──────┘  (the worker went silent, or the message was never sent)

``WorkerJob`` is the abstract model of such a row (``computations.RoundComparison``,
``planning.PlanRequest``, ``adjudication.ReferenceResult``); the functions below work on
any of its subclasses, each step a conditional UPDATE, so two workers or two sweeps never
both take the same row. Each app keeps its request, its run, its task names and its send
step (``agreement_server.outbox.task_send`` through its ``dispatch.py``); only the lifecycle
is shared here.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any, ClassVar, TypeVar

from django.db import models
from django.db.models import F, Q, QuerySet
from django.utils import timezone

#: Failure reasons are stored up to this many characters.
ERROR_LIMIT = 5000


class JobStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    DONE = "done", "Done"
    FAILED = "failed", "Failed"


class WorkerJob(models.Model):
    """The lifecycle fields of a row computed by a worker.

    ``attempts`` counts the claims: only the attempt that claimed a row finishes it, so a
    requeued row's old worker cannot overwrite the new one's answer. ``heartbeat_at`` is
    refreshed while it runs; the sweep requeues a running row silent for too long. A subclass
    without a heartbeat removes both (``attempts = None``, ``heartbeat_at = None``): its
    liveness is then its ``started_at``.
    """

    status = models.CharField(max_length=10, choices=JobStatus.choices, default=JobStatus.QUEUED)
    error = models.TextField(blank=True)
    attempts = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # When the run message was handed to the broker; null when the broker refused it: the
    # sweep sends it again (``agreement_server.outbox``).
    dispatched_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects: ClassVar[models.Manager[Any]]  # each concrete subclass's default manager

    class Meta:
        abstract = True

    @property
    def is_finished(self) -> bool:
        return self.status in (JobStatus.DONE, JobStatus.FAILED)


Job = TypeVar("Job", bound=WorkerJob)


def job_has_heartbeat(model: type[WorkerJob]) -> bool:
    """True when the model keeps ``attempts`` and ``heartbeat_at`` (see ``WorkerJob``)."""
    names = {field.name for field in model._meta.get_fields()}
    return {"attempts", "heartbeat_at"} <= names


def job_claim(model: type[WorkerJob], job_id: int, **reset: Any) -> bool:
    """queued → running, atomically; False when another worker has it (or it is finished).

    ``reset``: the model's own fields to set on the claim (e.g. a progress back to 0).
    """
    now = timezone.now()
    fields: dict[str, Any] = {"status": JobStatus.RUNNING, "started_at": now, "error": ""}
    if job_has_heartbeat(model):
        fields.update(heartbeat_at=now, attempts=F("attempts") + 1)
    return model.objects.filter(pk=job_id, status=JobStatus.QUEUED).update(**fields, **reset) == 1


def job_attempt(job: Job) -> QuerySet[Job]:
    """The job's row while the attempt that read ``job`` still runs it (empty once not)."""
    rows = type(job).objects.filter(pk=job.pk, status=JobStatus.RUNNING)
    if job_has_heartbeat(type(job)):
        rows = rows.filter(attempts=job.attempts)
    return rows


def job_beat(job: WorkerJob, **fields: Any) -> None:
    """Mark the running attempt alive now (with ``fields``, e.g. its progress)."""
    job_attempt(job).update(heartbeat_at=timezone.now(), **fields)


def job_finish(job: WorkerJob, *, status: str, **fields: Any) -> int:
    """Store the attempt's end (``status``, and ``fields`` such as its result); rows updated.

    Idempotent: a finished row, or one another attempt took over, is not running this
    attempt any more, so a second finish changes nothing (0).
    """
    return job_attempt(job).update(status=status, finished_at=timezone.now(), **fields)


def job_fail(job: WorkerJob, error: str, **fields: Any) -> int:
    """Finish the attempt as failed with its reason (cut to ``ERROR_LIMIT``); rows updated."""
    return job_finish(job, status=JobStatus.FAILED, error=error[:ERROR_LIMIT], **fields)


def jobs_sweep(
    model: type[WorkerJob],
    *,
    send: Callable[[int], Any],
    silent_before: datetime,
    sent_before: datetime,
    now: datetime,
) -> list[int]:
    """Take every job nothing else will run and ``send`` it again; their ids.

    - running, and silent since before ``silent_before`` (its heartbeat, or its start for a
      model without one): the worker died; back to queued;
    - queued, and never sent (``dispatched_at`` null: the broker refused) or sent before
      ``sent_before`` and still unclaimed: the message was lost.

    Each is taken with a conditional UPDATE (marked sent ``now``), so overlapping sweeps send
    it once; a duplicate message is harmless anyway (the claim).
    """
    beating = job_has_heartbeat(model)
    alive = "heartbeat_at" if beating else "started_at"
    running = model.objects.filter(status=JobStatus.RUNNING, **{f"{alive}__lt": silent_before})
    requeue: dict[str, Any] = {"status": JobStatus.QUEUED, "dispatched_at": now}
    if beating:
        requeue["heartbeat_at"] = None
    sent: list[int] = []
    for job_id in list(running.values_list("pk", flat=True)):
        if running.filter(pk=job_id).update(**requeue):
            sent.append(job_id)
            send(job_id)
    unsent = model.objects.filter(status=JobStatus.QUEUED).filter(
        Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=sent_before)
    )
    for job_id, dispatched in list(unsent.exclude(pk__in=sent).values_list("pk", "dispatched_at")):
        unchanged = model.objects.filter(pk=job_id, status=JobStatus.QUEUED)
        if unchanged.filter(dispatched_at=dispatched).update(dispatched_at=now):
            sent.append(job_id)
            send(job_id)
    return sent
