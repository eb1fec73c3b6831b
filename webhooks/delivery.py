"""Delivering webhooks: one signed attempt at a time, retries with backoff, and the sweep.

An attempt is claimed with a conditional UPDATE (two workers holding the same message
never send it twice at once, and a message that comes before the delivery is due sends
nothing), sent, and logged as a ``WebhookAttempt`` whatever happens: an answer, a network
error, an invalid URL, a private address or any unforeseen exception is recorded as the
attempt's error; none escapes to the task. A failed attempt is retried after
``backoff_seconds`` until ``AGREEMENT_WEBHOOK_MAX_ATTEMPTS``, then the delivery is
``failed``. A disabled endpoint, an invalid URL and a private address are not retried:
they need a manager's change (then *Send again*).

``webhook_deliveries_sweep`` (beat) makes sure that no delivery stays pending forever: it
re-sends a due delivery that the broker refused (it was down), and one left unattempted
for ``AGREEMENT_WEBHOOK_RESEND_AFTER_SECONDS`` after it was due or after its attempt's
time was up (a lost message, a killed worker).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from webhooks import dispatch, transport
from webhooks.models import DeliveryStatus, WebhookAttempt, WebhookDelivery
from webhooks.targets import InvalidWebhookUrlError, webhook_target

logger = logging.getLogger(__name__)

EXCERPT_CHARS = 1000
SIGNATURE_HEADER = "X-Agreement-Signature"
TIMESTAMP_HEADER = "X-Agreement-Timestamp"
EVENT_HEADER = "X-Agreement-Event"
DELIVERY_HEADER = "X-Agreement-Delivery"
USER_AGENT = "agreement-server-webhooks/1"
# A message may come a little early by another machine's clock: still due.
DUE_TOLERANCE = timedelta(seconds=5)
# Beyond the request's timeout, an attempt's time covers the DNS lookup and the log write.
ATTEMPT_MARGIN = timedelta(seconds=30)
SWEEP_BATCH = 500


# -- settings ------------------------------------------------------------------------------------


def max_attempts() -> int:
    return settings.AGREEMENT_WEBHOOK_MAX_ATTEMPTS


def request_timeout() -> float:
    return float(settings.AGREEMENT_WEBHOOK_TIMEOUT_SECONDS)


def backoff_seconds(attempt: int) -> int:
    """Seconds to wait after failed attempt number ``attempt`` (1, 2, …): doubling each time."""
    base = settings.AGREEMENT_WEBHOOK_RETRY_BASE_SECONDS
    cap = settings.AGREEMENT_WEBHOOK_RETRY_MAX_SECONDS
    return int(min(base * 2 ** max(attempt - 1, 0), cap))


def resend_after() -> timedelta:
    """How long a queued delivery may stay unattempted past its due time before the sweep
    sends it again."""
    return timedelta(seconds=settings.AGREEMENT_WEBHOOK_RESEND_AFTER_SECONDS)


def attempt_time() -> timedelta:
    """How long an attempt may take; past that, it is taken as lost."""
    return timedelta(seconds=request_timeout()) + ATTEMPT_MARGIN


def _allow_private() -> bool:
    return bool(settings.AGREEMENT_WEBHOOKS_ALLOW_PRIVATE)


# -- signing -------------------------------------------------------------------------------------


def webhook_signature(*, secret: str, timestamp: str, body: bytes) -> str:
    """``sha256=<hex>``: HMAC-SHA256 of ``<timestamp>.<body>`` keyed with the secret."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return f"sha256={digest.hexdigest()}"


def payload_body(payload: dict[str, Any]) -> bytes:
    """The exact bytes sent (and signed): compact JSON, keys sorted."""
    return json.dumps(payload, separators=(",", ":"), sort_keys=True, default=str).encode()


# -- one attempt ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class AttemptOutcome:
    """What one attempt did; ``retry_in`` is the countdown of the next one (None: no retry)."""

    attempted: bool
    succeeded: bool = False
    retry_in: int | None = None


def webhook_delivery_attempt(*, delivery_id: int, wait_until_due: bool = True) -> AttemptOutcome:
    """Send a pending delivery once and log the attempt; the outcome says when to retry.

    Nothing is sent unless the delivery is pending and, with ``wait_until_due``, due (a
    duplicate message, or one for an attempt still under way, finds it not due). Only a
    failure to write the log can raise.
    """
    delivery = WebhookDelivery.objects.select_related("endpoint").filter(pk=delivery_id).first()
    if delivery is None or delivery.status != DeliveryStatus.PENDING:
        logger.info("webhook delivery skipped id=%s (gone or finished)", delivery_id)
        return AttemptOutcome(attempted=False)
    number = delivery.attempts + 1
    now = timezone.now()
    claim = WebhookDelivery.objects.filter(
        pk=delivery.pk, status=DeliveryStatus.PENDING, attempts=delivery.attempts
    )
    if wait_until_due:
        claim = claim.filter(
            Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now + DUE_TOLERANCE)
        )
    # Until the attempt's time is up, it is under way: neither the sweep nor a duplicate
    # message starts another one.
    if not claim.update(attempts=number, next_attempt_at=now + attempt_time()):
        logger.info("webhook delivery not claimed id=%s (not due or taken)", delivery_id)
        return AttemptOutcome(attempted=False)

    started = timezone.now()
    clock = time.monotonic()
    try:
        answer, permanent = _send(delivery)
    except Exception as error:  # a bug or the unforeseen: logged, retried, never a crash
        logger.exception("webhook attempt raised delivery=%s", delivery.pk)
        answer, permanent = transport.Answer(error=_describe(error)), False
    duration_ms = int((time.monotonic() - clock) * 1000)
    return _record(delivery, number, started, duration_ms, answer, permanent=permanent)


def _send(delivery: WebhookDelivery) -> tuple[transport.Answer, bool]:
    """Send the delivery to its endpoint: the answer, and whether a failure is permanent."""
    endpoint = delivery.endpoint
    if not endpoint.is_active:
        return transport.Answer(error="The endpoint is disabled."), True
    try:
        target = webhook_target(endpoint.url)
    except InvalidWebhookUrlError as error:
        return transport.Answer(error=f"The endpoint's URL is invalid: {error}"), True
    body = payload_body(delivery.payload)
    timestamp = str(int(time.time()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        EVENT_HEADER: delivery.event,
        DELIVERY_HEADER: str(delivery.pk),
        TIMESTAMP_HEADER: timestamp,
        SIGNATURE_HEADER: webhook_signature(secret=endpoint.secret, timestamp=timestamp, body=body),
    }
    try:
        answer = transport.post(
            target,
            body,
            headers,
            timeout=request_timeout(),
            allow_private=_allow_private(),
            excerpt_chars=EXCERPT_CHARS,
        )
    except transport.ForbiddenAddressError as refused:
        reason = f"The endpoint's host resolves to a private address {refused.address}."
        return transport.Answer(error=reason), True
    return answer, False


def _describe(error: BaseException) -> str:
    return f"{type(error).__name__}: {error}"[:EXCERPT_CHARS]


def _record(
    delivery: WebhookDelivery,
    number: int,
    started: datetime,
    duration_ms: int,
    answer: transport.Answer,
    *,
    permanent: bool,
) -> AttemptOutcome:
    succeeded = answer.status_code is not None and 200 <= answer.status_code < 300
    retry_in = None
    if not succeeded and not permanent and number < max_attempts():
        retry_in = backoff_seconds(number)
    now = timezone.now()
    status = (
        DeliveryStatus.SUCCEEDED
        if succeeded
        else DeliveryStatus.PENDING
        if retry_in is not None
        else DeliveryStatus.FAILED
    )
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery,
            number=number,
            started_at=started,
            duration_ms=duration_ms,
            status_code=answer.status_code,
            response_excerpt=answer.excerpt,
            error=answer.error,
            succeeded=succeeded,
            retry_in_seconds=retry_in,
        )
        WebhookDelivery.objects.filter(pk=delivery.pk, attempts=number).update(
            status=status,
            last_status_code=answer.status_code,
            next_attempt_at=now + timedelta(seconds=retry_in) if retry_in is not None else None,
            # The caller hands the retry to the broker next (and clears this if refused).
            dispatched_at=now if retry_in is not None else None,
            finished_at=None if retry_in is not None else now,
        )
    logger.info(
        "webhook attempt delivery=%s number=%s status_code=%s succeeded=%s retry_in=%s",
        delivery.pk,
        number,
        answer.status_code,
        succeeded,
        retry_in,
    )
    return AttemptOutcome(attempted=True, succeeded=succeeded, retry_in=retry_in)


# -- the sweep -----------------------------------------------------------------------------------


def webhook_deliveries_sweep(*, now: datetime | None = None) -> list[int]:
    """Send again every pending delivery that nothing will send otherwise; their ids.

    - due, and no message queued (the broker refused it): sent now;
    - queued, but not attempted ``resend_after()`` past its due time (the message was
      lost), or its attempt's time is up that long ago (the worker died): sent now, the
      unfinished attempt logged as failed (and the delivery ``failed`` if it was the last).

    Each is taken with a conditional UPDATE, so overlapping sweeps send it once.
    """
    now = now or timezone.now()
    stale = now - resend_after()
    refused = Q(dispatched_at__isnull=True) & (
        Q(next_attempt_at__isnull=True) | Q(next_attempt_at__lte=now)
    )
    lost = Q(dispatched_at__lt=stale, next_attempt_at__lt=stale)
    rows = list(
        WebhookDelivery.objects.filter(Q(status=DeliveryStatus.PENDING) & (refused | lost))
        .order_by("next_attempt_at", "pk")
        .values_list("pk", "attempts", "next_attempt_at", "dispatched_at")[:SWEEP_BATCH]
    )
    resend: list[int] = []
    for pk, attempts, due, dispatched in rows:
        if _sweep_one(pk, attempts, due, dispatched, now=now):
            resend.append(pk)
    if rows:
        logger.info("webhook sweep found=%s resent=%s", len(rows), len(resend))
    dispatch.deliveries_send(resend)
    return resend


def _sweep_one(
    pk: int, attempts: int, due: datetime | None, dispatched: datetime | None, *, now: datetime
) -> bool:
    """Take one delivery (unchanged since it was read) for sending again; False if it is
    no longer pending or another sweep took it."""
    with transaction.atomic():
        taken = WebhookDelivery.objects.filter(
            pk=pk,
            status=DeliveryStatus.PENDING,
            attempts=attempts,
            next_attempt_at=due,
            dispatched_at=dispatched,
        ).update(next_attempt_at=now, dispatched_at=now)
        if not taken:
            return False
        if attempts and not WebhookAttempt.objects.filter(delivery_id=pk, number=attempts).exists():
            return _log_unfinished_attempt(pk, attempts, due, now=now)
    return True


def _log_unfinished_attempt(pk: int, number: int, due: datetime | None, *, now: datetime) -> bool:
    """Attempt ``number`` was claimed and never logged: log it as failed; True to retry."""
    retry = number < max_attempts()
    try:
        with transaction.atomic():
            WebhookAttempt.objects.create(
                delivery_id=pk,
                number=number,
                started_at=(due - attempt_time()) if due else now,
                error="The attempt did not finish (the worker stopped or lost its database).",
                retry_in_seconds=0 if retry else None,
            )
    except IntegrityError:  # its worker logged it after all
        return True
    if not retry:
        WebhookDelivery.objects.filter(pk=pk, status=DeliveryStatus.PENDING).update(
            status=DeliveryStatus.FAILED, next_attempt_at=None, dispatched_at=None, finished_at=now
        )
    return retry
