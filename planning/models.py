"""A plan request: how many items (and coders per item) the next round of a question needs.

A ``PlanRequest`` holds the question, where the simulated rounds come from (a pilot round,
or ``assumptions``: a category distribution and an assumed agreement), the target ("the
lower end of the ``confidence`` interval of ``coefficient`` reaches ``target`` with
probability ``power``") and the designs to plan (``coders_per_item``). A worker computes it
(``planning.services.plan_run``) and stores ``result``; pages and the API only read it.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from agreement_server.worker_jobs import JobStatus, WorkerJob
from metrics.planning import DEFAULT_PILOT_UNCERTAINTY, PILOT_UNCERTAINTY
from studies.models import Question, Round, Study

# The states of every worker job (``agreement_server.worker_jobs``), under this app's name.
PlanStatus = JobStatus


class PlanRequest(WorkerJob):
    """One sample-size plan, requested by a person and computed on a worker.

    ``assumptions`` (no pilot): ``{"categories": {code: share}, "alpha": a}`` or with
    ``"agreement"`` instead of ``"alpha"``. ``coders_per_item``: the designs planned with the
    nominal model (empty: the pilot's own design only). ``pilot_uncertainty``: how the
    pilot's uncertainty is carried (``metrics.planning.PILOT_UNCERTAINTY``). ``result``: see
    ``planning.simulation.plan_result``. ``dispatched_at`` is when the run message was handed
    to the broker (null: refused, the sweep sends it again).
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="plan_requests")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    pilot_round = models.ForeignKey(
        Round, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    assumptions = models.JSONField(default=dict, blank=True)
    coefficient = models.CharField(max_length=40, default="alpha")
    confidence = models.FloatField(default=0.95)
    target = models.FloatField()
    power = models.FloatField(default=0.9)
    coders_per_item = models.JSONField(default=list, blank=True)
    # How the pilot's uncertainty enters (metrics.planning.PILOT_UNCERTAINTY): "lower-bound"
    # (default) plans on its one-sided 80% lower bound, "bootstrap" draws every simulated
    # round's population from its bootstrap distribution, "none" takes the pilot as the
    # truth (plans made before the option existed).
    pilot_uncertainty = models.CharField(
        max_length=20,
        choices=[(value, value) for value in PILOT_UNCERTAINTY],
        default=DEFAULT_PILOT_UNCERTAINTY,
    )
    max_items = models.PositiveIntegerField(default=10_000)
    replicates = models.PositiveIntegerField(default=1000)
    seed = models.PositiveIntegerField(default=0)
    progress = models.FloatField(default=0.0)
    result = models.JSONField(null=True, blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=Q(power__gt=0) & Q(power__lt=1), name="plan_power_is_a_probability"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gt=0) & Q(confidence__lt=1),
                name="plan_confidence_is_a_probability",
            ),
        ]
        indexes: ClassVar = [
            models.Index(fields=["study", "-created_at"], name="plan_request_study_recent"),
            models.Index(fields=["status", "dispatched_at"], name="plan_request_sweep"),
        ]

    def __str__(self) -> str:
        return f"Plan {self.pk} for {self.question} ({self.status})"

    @property
    def recommended_items(self) -> int | None:
        result = self.result or {}
        value = result.get("recommended", {}).get("n_items")
        return int(value) if value is not None else None
