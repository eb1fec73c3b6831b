"""Reads of webhooks: a study's endpoints and an endpoint's delivery log."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from studies.models import Study
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint


def webhook_endpoint_list(*, study: Study) -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.filter(study=study).order_by("id")


def webhook_delivery_list(*, endpoint: WebhookEndpoint) -> QuerySet[WebhookDelivery]:
    """Newest first, each with its attempts (one query for all of a page's attempts)."""
    return (
        WebhookDelivery.objects.filter(endpoint=endpoint)
        .prefetch_related(
            Prefetch("attempt_log", queryset=WebhookAttempt.objects.order_by("number"))
        )
        .order_by("-created_at", "-id")
    )
