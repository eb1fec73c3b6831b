"""Webhooks: URLs a study registers to receive a signed POST when something happens.

An endpoint subscribes to events; each event makes one ``WebhookDelivery`` per endpoint
(unique per endpoint and ``event_id``, so firing the same event twice sends it once), and
every try to send it is a ``WebhookAttempt`` row (the delivery log).
"""

from __future__ import annotations

import secrets
from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from studies.models import Study


class WebhookEvent(models.TextChoices):
    COMPUTATION_FINISHED = "computation.finished", "A computation finished (done or failed)"
    AGREEMENT_BELOW_THRESHOLD = (
        "agreement.below_threshold",
        "A round's coefficient fell below the threshold",
    )
    REVIEW_ITEMS_ADDED = "review.items_added", "Items entered a round's review queue"
    MODEL_RESULT_STORED = (
        "model.result_stored",
        "A model coder's test and estimates were stored",
    )
    PING = "ping", "Ping (sent on request, to test the endpoint)"


class WebhookEndpoint(models.Model):
    """A URL of a study that receives events, signed with ``secret`` (HMAC-SHA256).

    The secret is kept as is (it signs every request), shown once by the API when created
    or rotated, and never listed. ``threshold`` (and optionally one ``coefficient``) serve
    ``agreement.below_threshold``.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="webhook_endpoints")
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=200, blank=True)
    secret = models.CharField(max_length=100, editable=False)
    events = models.JSONField(default=list)
    threshold = models.FloatField(null=True, blank=True)
    coefficient = models.CharField(max_length=50, blank=True)
    is_active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar = ["study", "id"]
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=Q(threshold__isnull=True) | (Q(threshold__gte=-1) & Q(threshold__lte=1)),
                name="webhook_threshold_in_range",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.url} ({self.study})"

    @staticmethod
    def generate_secret() -> str:
        return "whsec_" + secrets.token_urlsafe(32)


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending (will be tried again)"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed (no more tries)"


class WebhookDelivery(models.Model):
    """One event for one endpoint; ``payload`` is the JSON body sent on every attempt.

    While ``pending``, ``next_attempt_at`` is when the next attempt is due (during an
    attempt: when its time is up), and ``dispatched_at`` when a message for it was handed
    to the broker (null: the broker refused it, so nothing is queued). The sweep re-sends
    what is due and not queued, and what stayed unattempted long after it was due.
    """

    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    event = models.CharField(max_length=50, choices=WebhookEvent.choices)
    event_id = models.CharField(max_length=200)
    payload = models.JSONField()
    status = models.CharField(
        max_length=10, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    attempts = models.PositiveIntegerField(default=0)
    last_status_code = models.PositiveIntegerField(null=True, blank=True)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at", "-id"]
        verbose_name_plural = "webhook deliveries"
        constraints: ClassVar = [
            # Firing an event twice (a redelivered task) sends it once.
            models.UniqueConstraint(
                fields=["endpoint", "event_id"], name="webhook_delivery_unique_event"
            ),
        ]
        indexes: ClassVar = [
            # The delivery log of an endpoint, newest first.
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_log"),
            # The sweep's scan: pending deliveries by due time (few rows, whatever the log).
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status="pending"),
                name="webhook_delivery_pending_due",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} → {self.endpoint.url} ({self.status})"


class WebhookAttempt(models.Model):
    """One try to send a delivery: what the receiver answered, or the error."""

    delivery = models.ForeignKey(
        WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log"
    )
    number = models.PositiveIntegerField()
    started_at = models.DateTimeField(default=timezone.now)
    duration_ms = models.PositiveIntegerField(default=0)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    response_excerpt = models.TextField(blank=True)
    error = models.TextField(blank=True)
    succeeded = models.BooleanField(default=False)
    retry_in_seconds = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["delivery", "number"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["delivery", "number"], name="webhook_attempt_unique_number"
            ),
        ]

    def __str__(self) -> str:
        return f"Attempt {self.number} of delivery {self.delivery_id}"


__all__ = [
    "DeliveryStatus",
    "WebhookAttempt",
    "WebhookDelivery",
    "WebhookEndpoint",
    "WebhookEvent",
]
