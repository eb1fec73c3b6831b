"""Gold and adjudication: a round's reference labels, and each coder measured against them.

The reference of a round and question is, per item, its current adjudicated label
(``Adjudication``) or else the label of the round's gold coder (``RoundReference``). An
adjudication is never changed in place: adjudicating an item again supersedes the current
record (``superseded_at``), so the records of an item are its history (who, when, which
label, chosen from which coder or entered, and why). ``ReferenceResult`` stores what a
worker computed for a round and question: each coder against the reference.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from agreement_server.worker_jobs import JobStatus, WorkerJob
from studies.models import Category, Coder, Item, Question, Round


class RoundReference(models.Model):
    """A round's gold coder: its labels are the reference where no item was adjudicated.

    The gold coder is measured by nobody and against nobody: it is left out of the coders
    compared with the reference.
    """

    round = models.OneToOneField(Round, on_delete=models.CASCADE, related_name="reference")
    gold_coder = models.ForeignKey(Coder, on_delete=models.CASCADE, related_name="+")
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return f"Gold coder {self.gold_coder} of {self.round}"


class AdjudicationSource(models.TextChoices):
    CODER = "coder", "A coder's label"
    ENTERED = "entered", "Entered by the adjudicator"


class Adjudication(models.Model):
    """The reference label of one item of a round and question, decided by a person.

    The label is stored as an annotation's columns (one of ``category``, ``number``,
    ``category_set``) and as its canonical text (``value``, ``studies.labels``). At most one
    record of an item is current (``superseded_at`` empty); older ones are its history.
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="adjudications")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+")
    # A category deleted from the scheme leaves the record (and its text) in the history; it
    # no longer counts as a reference label.
    category = models.ForeignKey(
        Category, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    number = models.FloatField(null=True, blank=True)
    category_set = models.JSONField(null=True, blank=True)
    value = models.TextField(help_text="The label's canonical text (code, number, a|b).")
    source = models.CharField(max_length=10, choices=AdjudicationSource.choices)
    source_coder = models.ForeignKey(
        Coder, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    note = models.TextField(blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    superseded_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["round", "question", "item", "-created_at", "-id"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["round", "question", "item"],
                condition=Q(superseded_at__isnull=True),
                name="adjudication_one_current_per_item",
            ),
            models.CheckConstraint(
                condition=Q(source="entered", source_coder__isnull=True) | Q(source="coder"),
                name="adjudication_entered_has_no_coder",
            ),
        ]
        indexes: ClassVar = [
            # The current reference of a round and question (the worker's read, the page).
            models.Index(
                fields=["round", "question", "superseded_at"], name="adjudication_current"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.item} in {self.round}: {self.value}"

    @property
    def is_current(self) -> bool:
        return self.superseded_at is None


# The states of every worker job (``agreement_server.worker_jobs``), under this app's name.
ReferenceStatus = JobStatus


class ReferenceResult(WorkerJob):
    """Each coder of a round against its reference, for one question, as a worker stored it.

    A request (adjudications changed, gold coder set, a computation of the round finished)
    marks the row queued and hands it to the broker after commit (``dispatched_at``); the
    sweep re-sends queued rows the broker never got and running rows whose worker died.
    ``results`` keeps the last finished computation while a new one is queued.
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="reference_results")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    results = models.JSONField(null=True, blank=True)
    requested_at = models.DateTimeField(default=timezone.now)
    # No heartbeat and no attempt count, unlike the other worker jobs: the one row of a round
    # and question is requested again and again, and its run is one short report, so the
    # sweep takes a row running for longer than ``services.STALE_AFTER`` as dead.
    attempts = None  # type: ignore[assignment]  # Django drops an inherited field set to None
    heartbeat_at = None

    class Meta:
        ordering: ClassVar = ["round", "question"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["round", "question"], name="reference_result_unique"),
        ]
        indexes: ClassVar = [
            # The sweep's read: queued or running rows by age.
            models.Index(fields=["status", "requested_at"], name="reference_result_sweep"),
        ]

    def __str__(self) -> str:
        return f"Reference results of {self.question} in {self.round} ({self.status})"
