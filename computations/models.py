"""Agreement computed on workers: one row per request, kept as the study's history."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from agreement_server.worker_jobs import JobStatus, WorkerJob
from studies.models import Question, Round, Study

# A computation's states are a worker job's (``RoundComparison`` is one).
ComputationStatus = JobStatus


class ComputationScope(models.TextChoices):
    ROUND = "round", "One round"
    ROUNDS = "rounds", "Several rounds pooled"
    STUDY = "study", "The whole study"


class ComputationTrigger(models.TextChoices):
    API = "api", "API"
    ADMIN = "admin", "Admin"
    COMMAND = "command", "Management command"
    ROUND_CLOSE = "round_close", "Round closed"


class Computation(models.Model):
    """Agreement of one question over one or more rounds, computed by a worker.

    ``params_hash`` covers the scope and every parameter; ``data_revision`` summarises the
    scope's annotations when the computation was requested (change-log position, count,
    latest id and update). The same request on unchanged data finds this row again instead
    of computing twice; when the scope's revision moves on, the row is *stale*.
    ``fingerprint`` is a SHA-256 of exactly the annotations the worker read, and
    ``distance_table_fingerprint`` that of the question's distance table it read (a text
    question's ``distance`` ``user``; empty for any other distance): once the question's
    table has another fingerprint (replaced) or none (deleted), the row is stale too.
    ``adjudications_fingerprint`` is that of the scope's current adjudications the worker
    read as a model coder's calibration's reference labels
    (``computations.scope.adjudications_fingerprint``; empty when the calibration did not
    apply): once the scope's adjudications have another fingerprint, the row is stale.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="computations")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="computations")
    scope = models.CharField(max_length=10, choices=ComputationScope.choices)
    rounds = models.ManyToManyField(Round, related_name="computations")
    parameters = models.JSONField(default=dict)
    params_hash = models.CharField(max_length=64, editable=False)
    data_revision = models.CharField(max_length=200, editable=False)
    status = models.CharField(
        max_length=10, choices=ComputationStatus.choices, default=ComputationStatus.QUEUED
    )
    error = models.TextField(blank=True)
    progress = models.FloatField(default=0.0)
    attempts = models.PositiveIntegerField(default=0)
    trigger = models.CharField(
        max_length=20, choices=ComputationTrigger.choices, default=ComputationTrigger.API
    )
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # When this computation's next message (its run, or its pending chunks or combine step)
    # was handed to the broker; null when the broker refused it (it was down): the sweep
    # sends it again. See ``computations/dispatch.py``.
    dispatched_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    fingerprint = models.CharField(max_length=64, blank=True)
    distance_table_fingerprint = models.CharField(max_length=64, blank=True)
    adjudications_fingerprint = models.CharField(max_length=64, blank=True)
    n_annotations = models.PositiveIntegerField(null=True, blank=True)
    metrics_version = models.CharField(max_length=50, blank=True)
    chunks_total = models.PositiveIntegerField(default=0)
    # "" while computing the point estimates, "items" while item chunks are read and summed
    # on the workers, "merging" once one task has claimed adding them up, "chunks" while
    # bootstrap chunks run on the workers, "combining" once one task has claimed the final
    # combine step.
    phase = models.CharField(max_length=10, blank=True, default="")
    results = models.JSONField(null=True, blank=True)
    # A computation split by items (``computations/item_sums.py``): the coders of the scope
    # in order and its data revision when it was split; null for one-step computations.
    item_plan = models.JSONField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=Q(progress__gte=0) & Q(progress__lte=1),
                name="computation_progress_in_unit_interval",
            ),
            # One live computation per request on the same data: a second identical request
            # (or a racing one) finds it instead of queueing a duplicate. Failed ones may repeat.
            models.UniqueConstraint(
                fields=["params_hash", "data_revision"],
                condition=~Q(status="failed"),
                name="computation_unique_live_request",
            ),
        ]
        indexes: ClassVar = [
            # The history: a study's done computations per question.
            models.Index(fields=["study", "question", "status"], name="computation_history"),
            # The sweep: running computations whose heartbeat stopped.
            models.Index(fields=["status", "heartbeat_at"], name="computation_sweep"),
        ]

    def __str__(self) -> str:
        return f"Computation {self.pk} ({self.status}) of {self.question}"

    @property
    def is_finished(self) -> bool:
        return self.status in (ComputationStatus.DONE, ComputationStatus.FAILED)


class ComputationChunk(models.Model):
    """A share of a large bootstrap: replicates ``start`` to ``stop - 1`` of every coefficient.

    ``values`` maps coefficient name to the replicate values (``null`` where degenerate).
    A chunk computed twice (redelivered message) writes the same values once: the first
    writer flips ``done``.
    """

    computation = models.ForeignKey(Computation, on_delete=models.CASCADE, related_name="chunks")
    index = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    stop = models.PositiveIntegerField()
    done = models.BooleanField(default=False)
    values = models.JSONField(null=True, blank=True)
    # This chunk's slice (by items, slice ``index`` of ``chunks_total``) of every
    # coefficient's leave-one-item-out values, a compressed ``.npz``: the combine step's
    # BCa acceleration then costs nothing there (``engine.jackknife_slices``).
    jackknife = models.BinaryField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["computation", "index"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["computation", "index"], name="chunk_unique_index"),
            models.CheckConstraint(condition=Q(start__lt=models.F("stop")), name="chunk_not_empty"),
        ]

    def __str__(self) -> str:
        return (
            f"Chunk {self.index} [{self.start}, {self.stop}) of computation {self.computation_id}"
        )


class ComputationItemChunk(models.Model):
    """A share of a computation split by items: the annotations of items ``first_item`` to
    ``last_item`` (ids, inclusive) of one round, read by one worker.

    ``sums`` holds that worker's per-item sums of every requested coefficient's
    decomposition as a compressed ``.npz`` (``computations/item_sums.py``), ``summary`` the
    counts beside them, ``item_rows`` (one-round computations) its items' rows of the item
    table (``computations/item_table.py``), which the merge step assembles. A chunk
    computed twice (redelivered message) is written once: the first writer flips ``done``.
    """

    computation = models.ForeignKey(
        Computation, on_delete=models.CASCADE, related_name="item_chunks"
    )
    index = models.PositiveIntegerField()
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    first_item = models.BigIntegerField()
    last_item = models.BigIntegerField()
    n_annotations = models.PositiveIntegerField()
    done = models.BooleanField(default=False)
    sums = models.BinaryField(null=True, blank=True)
    summary = models.JSONField(null=True, blank=True)
    item_rows = models.BinaryField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["computation", "index"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["computation", "index"], name="item_chunk_unique_index"
            ),
            models.CheckConstraint(
                condition=Q(first_item__lte=models.F("last_item")), name="item_chunk_not_empty"
            ),
        ]

    def __str__(self) -> str:
        return (
            f"Items {self.first_item}-{self.last_item} of round {self.round_id}, "
            f"computation {self.computation_id}"
        )


class ComputationItemTable(models.Model):
    """The per-item diagnostics of a finished one-round computation, stored by its worker
    for the item downloads (``computations/item_table.py``): a zlib-compressed JSON of the
    coders and, per item, its figures and each coder's stored label.

    Kept apart from ``Computation.results`` so that the pages, which read ``results``
    often, never load a table as large as the round's annotations.
    """

    computation = models.OneToOneField(
        Computation, on_delete=models.CASCADE, primary_key=True, related_name="item_table"
    )
    n_items = models.PositiveIntegerField()
    table = models.BinaryField()
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    def __str__(self) -> str:
        return f"Item table of computation {self.computation_id} ({self.n_items} items)"


class RoundComparison(WorkerJob):
    """Two rounds of a question compared on one coefficient, computed by a worker.

    The request (rounds, question, coefficient, bootstrap replicates, seed, confidence) is
    recorded by ``computations.comparison_requests.comparison_request``; a worker runs
    ``computations.comparison.rounds_compare`` and stores its answer in ``result``, which the
    API only reads. ``data_revision`` summarises both rounds' annotations when the request
    was made: the same request on unchanged data finds this row again.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="round_comparisons")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    first = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    second = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    # "" for the default (alpha, or the first coefficient of the later round's computation).
    coefficient = models.CharField(max_length=50, blank=True, default="")
    replicates = models.PositiveIntegerField()
    seed = models.BigIntegerField(default=0)
    confidence = models.FloatField(default=0.95)
    # The level, distance and coefficients compared with: those of the later round's latest
    # finished computation when the request was made, else null (the question's defaults).
    parameters = models.JSONField(null=True, blank=True)
    params_hash = models.CharField(max_length=64, editable=False)
    data_revision = models.CharField(max_length=400, editable=False)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    result = models.JSONField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["params_hash", "data_revision"],
                condition=~Q(status="failed"),
                name="round_comparison_unique_live_request",
            ),
        ]
        indexes: ClassVar = [
            models.Index(fields=["status", "heartbeat_at"], name="round_comparison_sweep"),
        ]

    def __str__(self) -> str:
        return f"Comparison {self.pk} ({self.status}) of {self.question}"
