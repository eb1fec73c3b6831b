"""Every webhook event is delivered or ends ``failed`` (issue 13, findings 2 and 6).

The broker is "down" when ``Signature.apply_async`` raises kombu's ``OperationalError``
(what Celery raises when it cannot reach the broker), and a message is "lost" when it
is accepted and never run. Celery runs eagerly here: a message sent is run at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from typing import Any
from unittest import mock

import pytest
from celery.canvas import Signature
from django.db import DatabaseError
from django.utils import timezone
from kombu.exceptions import OperationalError
from rest_framework.test import APIClient

from studies.models import Study
from tests.webhooks.receiver import Receiver, running_receiver
from webhooks import delivery, dispatch
from webhooks import services as webhooks
from webhooks.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint

pytestmark = pytest.mark.django_db

UNFINISHED = "The attempt did not finish (the worker stopped or lost its database)."


@pytest.fixture(autouse=True)
def timing(settings: Any) -> Any:
    settings.AGREEMENT_WEBHOOK_RETRY_BASE_SECONDS = 30
    settings.AGREEMENT_WEBHOOK_TIMEOUT_SECONDS = 10  # an attempt has 10 + 30 s
    settings.AGREEMENT_WEBHOOK_RESEND_AFTER_SECONDS = 120
    return settings


@contextmanager
def broker(
    refuses: Callable[[dict[str, Any]], bool] | None = None, *, runs: bool = False
) -> Iterator[list[Any]]:
    """Patch sending: refused (``OperationalError``) when ``refuses(options)`` is true,
    else accepted, and then run (``runs``) or lost. Yields the accepted sends."""
    accepted: list[Any] = []
    real_apply_async = Signature.apply_async

    def apply_async(signature: Any, *args: Any, **options: Any) -> Any:
        if refuses is not None and refuses(options):
            raise OperationalError("[Errno 111] Connection refused")
        accepted.append((signature.args, options))
        return real_apply_async(signature, *args, **options) if runs else None

    with mock.patch("celery.canvas.Signature.apply_async", apply_async):
        yield accepted


def broker_down() -> Any:
    return broker(lambda options: True)


def endpoint_for(study: Study, url: str) -> WebhookEndpoint:
    endpoint, _secret = webhooks.webhook_endpoint_create(
        study=study, url=url, events=["computation.finished"]
    )
    return endpoint


def ping(endpoint: WebhookEndpoint, capture: Any) -> WebhookDelivery:
    with capture(execute=True):
        sent = webhooks.webhook_ping(endpoint=endpoint)
    return WebhookDelivery.objects.get(pk=sent.pk)


def sweep(capture: Any, *, at: datetime | None = None) -> list[int]:
    with capture(execute=True):
        return delivery.webhook_deliveries_sweep(now=at)


def attempt_log(item: WebhookDelivery) -> list[tuple[int, int | None, str, int | None]]:
    return [
        (a.number, a.status_code, a.error, a.retry_in_seconds)
        for a in WebhookAttempt.objects.filter(delivery=item).order_by("number")
    ]


# -- the broker is down when the event fires -------------------------------------------------


def test_a_ping_while_the_broker_is_down_answers_202_and_the_sweep_sends_it_later(
    manager_client: APIClient,
    study: Study,
    receiver: Receiver,
    django_capture_on_commit_callbacks: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:
    endpoint = endpoint_for(study, receiver.url)
    with broker_down(), django_capture_on_commit_callbacks(execute=True):
        response = manager_client.post(f"/api/v1/studies/{study.pk}/webhooks/{endpoint.pk}/ping/")
    assert response.status_code == 202
    body = response.json()
    assert (body["status"], body["attempts"], body["attempt_log"]) == ("pending", 0, [])
    stored = WebhookDelivery.objects.get()
    assert stored.status == DeliveryStatus.PENDING
    assert stored.dispatched_at is None  # nothing is queued: the sweep's to send
    assert receiver.requests == []
    assert "the sweep sends them later" in caplog.text
    assert "OperationalError" in caplog.text

    # The broker is back: the next sweep sends it, and only once.
    assert sweep(django_capture_on_commit_callbacks) == [stored.pk]
    assert sweep(django_capture_on_commit_callbacks) == []
    stored.refresh_from_db()
    assert stored.status == DeliveryStatus.SUCCEEDED
    assert len(receiver.requests) == 1
    assert receiver.requests[0].headers["X-Agreement-Event"] == "ping"


def test_events_fired_while_the_broker_is_down_are_sent_by_the_sweep(
    study: Study, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    first = endpoint_for(study, receiver.url)
    second = endpoint_for(study, receiver.url)
    with broker_down() as accepted:
        ping(first, django_capture_on_commit_callbacks)
        ping(second, django_capture_on_commit_callbacks)
    assert accepted == []
    assert list(WebhookDelivery.objects.values_list("status", "attempts", "dispatched_at")) == [
        ("pending", 0, None),
        ("pending", 0, None),
    ]
    with broker_down():  # still down when the sweep runs: nothing lost, nothing raised
        resent = sweep(django_capture_on_commit_callbacks)
    assert len(resent) == 2
    assert list(WebhookDelivery.objects.values_list("dispatched_at", flat=True)) == [None, None]

    assert len(sweep(django_capture_on_commit_callbacks)) == 2
    assert set(WebhookDelivery.objects.values_list("status", flat=True)) == {"succeeded"}
    assert len(receiver.requests) == 2


def test_a_retry_the_broker_refuses_is_sent_by_the_sweep_once_it_is_due(
    study: Study, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with running_receiver(script=[500]) as receiver:
        endpoint = endpoint_for(study, receiver.url)
        # The first send goes through; the retry's send (with a countdown) is refused.
        with broker(lambda options: options.get("countdown") is not None, runs=True):
            stored = ping(endpoint, django_capture_on_commit_callbacks)
        assert (stored.status, stored.attempts, stored.dispatched_at) == ("pending", 1, None)
        due = stored.next_attempt_at
        assert due is not None
        assert attempt_log(stored) == [(1, 500, "HTTP 500", 30)]

        assert sweep(django_capture_on_commit_callbacks, at=due - timedelta(seconds=1)) == []
        assert sweep(django_capture_on_commit_callbacks, at=due) == [stored.pk]
    stored.refresh_from_db()
    assert stored.status == DeliveryStatus.SUCCEEDED
    assert attempt_log(stored) == [(1, 500, "HTTP 500", 30), (2, 200, "", None)]


# -- messages lost, workers killed ---------------------------------------------------------


def test_a_lost_message_is_sent_again_after_the_resend_time(
    study: Study, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint = endpoint_for(study, receiver.url)
    with broker() as accepted:  # accepted, then lost
        stored = ping(endpoint, django_capture_on_commit_callbacks)
    assert accepted == [((stored.pk,), {"countdown": None})]
    assert stored.dispatched_at is not None
    due = stored.next_attempt_at
    assert due is not None
    assert sweep(django_capture_on_commit_callbacks, at=due + timedelta(seconds=119)) == []
    assert sweep(django_capture_on_commit_callbacks, at=due + timedelta(seconds=121)) == [stored.pk]
    stored.refresh_from_db()
    assert stored.status == DeliveryStatus.SUCCEEDED
    assert attempt_log(stored) == [(1, 200, "", None)]


def test_an_attempt_whose_worker_died_is_logged_unfinished_and_sent_again(
    study: Study, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint = endpoint_for(study, receiver.url)
    with broker():
        stored = ping(endpoint, django_capture_on_commit_callbacks)
    # A worker claims attempt 1 and dies before logging it.
    claimed_at = timezone.now()
    WebhookDelivery.objects.filter(pk=stored.pk).update(
        attempts=1, next_attempt_at=claimed_at + timedelta(seconds=40)
    )
    # Its time (40 s) plus the resend time (120 s) must pass first.
    assert sweep(django_capture_on_commit_callbacks, at=claimed_at + timedelta(seconds=159)) == []
    resent = sweep(django_capture_on_commit_callbacks, at=claimed_at + timedelta(seconds=161))
    assert resent == [stored.pk]
    stored.refresh_from_db()
    assert stored.status == DeliveryStatus.SUCCEEDED
    assert attempt_log(stored) == [(1, None, UNFINISHED, 0), (2, 200, "", None)]
    assert WebhookAttempt.objects.get(number=1).started_at == claimed_at


def test_an_unfinished_last_attempt_fails_the_delivery(
    study: Study, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    allow_local.AGREEMENT_WEBHOOK_MAX_ATTEMPTS = 1
    endpoint = endpoint_for(study, "https://hooks.example.org/in")
    with broker():
        stored = ping(endpoint, django_capture_on_commit_callbacks)
    claimed_at = timezone.now()
    WebhookDelivery.objects.filter(pk=stored.pk).update(
        attempts=1, next_attempt_at=claimed_at + timedelta(seconds=40)
    )
    at = claimed_at + timedelta(seconds=161)
    assert sweep(django_capture_on_commit_callbacks, at=at) == []
    stored.refresh_from_db()
    assert (stored.status, stored.finished_at, stored.dispatched_at) == ("failed", at, None)
    assert attempt_log(stored) == [(1, None, UNFINISHED, None)]


def test_a_log_write_that_fails_never_crashes_the_task_and_the_sweep_recovers(
    study: Study, receiver: Receiver, django_capture_on_commit_callbacks: Any,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    endpoint = endpoint_for(study, receiver.url)
    with mock.patch.object(
        WebhookAttempt.objects, "create", side_effect=DatabaseError("database is locked")
    ):
        stored = ping(endpoint, django_capture_on_commit_callbacks)  # the task ran: no raise
    assert "webhook attempt not logged" in caplog.text
    assert (stored.status, stored.attempts) == ("pending", 1)
    assert len(receiver.requests) == 1  # sent, but its outcome is not in the log
    assert attempt_log(stored) == []
    due = stored.next_attempt_at
    assert due is not None

    assert sweep(django_capture_on_commit_callbacks, at=due + timedelta(seconds=121)) == [stored.pk]
    stored.refresh_from_db()
    assert stored.status == DeliveryStatus.SUCCEEDED
    assert attempt_log(stored) == [(1, None, UNFINISHED, 0), (2, 200, "", None)]


def test_overlapping_sweeps_send_a_delivery_once(
    study: Study, django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    endpoint = endpoint_for(study, "https://hooks.example.org/in")
    with broker_down():
        stored = ping(endpoint, django_capture_on_commit_callbacks)
    sent: list[list[int]] = []
    monkeypatch.setattr(dispatch, "deliveries_send", lambda ids, **kw: sent.append(list(ids)))
    row = (stored.pk, stored.attempts, stored.next_attempt_at, stored.dispatched_at)
    now = timezone.now()
    assert delivery.webhook_deliveries_sweep(now=now) == [stored.pk]
    # A second sweep that read the row before the first one took it takes nothing.
    assert delivery._sweep_one(*row, now=now) is False
    assert delivery.webhook_deliveries_sweep(now=now) == []
    assert sent == [[stored.pk], []]


# -- a message never sends early, twice, or with a crash -----------------------------------


def test_a_message_that_comes_before_the_delivery_is_due_sends_nothing(
    study: Study, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint = endpoint_for(study, receiver.url)
    with broker():
        stored = ping(endpoint, django_capture_on_commit_callbacks)
    # Due in a minute (a backoff, or an attempt under way): a duplicate message is dropped.
    WebhookDelivery.objects.filter(pk=stored.pk).update(
        next_attempt_at=timezone.now() + timedelta(seconds=60)
    )
    outcome = delivery.webhook_delivery_attempt(delivery_id=stored.pk)
    assert outcome == delivery.AttemptOutcome(attempted=False)
    assert receiver.requests == []
    stored.refresh_from_db()
    assert stored.attempts == 0

    WebhookDelivery.objects.filter(pk=stored.pk).update(next_attempt_at=timezone.now())
    outcome = delivery.webhook_delivery_attempt(delivery_id=stored.pk)
    assert outcome == delivery.AttemptOutcome(attempted=True, succeeded=True)
    assert len(receiver.requests) == 1


def test_a_stored_url_that_is_now_invalid_fails_the_delivery_with_the_reason(
    study: Study, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # Stored before URLs were checked: the example crashed every attempt.
    endpoint = WebhookEndpoint.objects.create(
        study=study,
        url="http://127.0.0.1:8199\\@example.org/m",
        secret="whsec_test",
        events=["computation.finished"],
    )
    stored = ping(endpoint, django_capture_on_commit_callbacks)
    assert (stored.status, stored.attempts) == ("failed", 1)
    assert attempt_log(stored) == [
        (
            1,
            None,
            "The endpoint's URL is invalid: The URL must not contain a backslash (\\).",
            None,
        )
    ]


def test_any_exception_while_sending_is_logged_and_retried_until_the_delivery_fails(
    study: Study, allow_local: Any, django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    allow_local.AGREEMENT_WEBHOOK_MAX_ATTEMPTS = 3
    endpoint = endpoint_for(study, "https://hooks.example.org/in")

    def boom(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(delivery.transport, "post", boom)
    stored = ping(endpoint, django_capture_on_commit_callbacks)
    assert (stored.status, stored.attempts) == ("failed", 3)
    assert stored.finished_at is not None
    assert attempt_log(stored) == [
        (1, None, "RuntimeError: boom", 30),
        (2, None, "RuntimeError: boom", 60),
        (3, None, "RuntimeError: boom", None),
    ]


def test_the_deliver_task_never_raises(
    study: Study, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from webhooks.tasks import webhook_deliver_task

    def broken(**kwargs: Any) -> None:
        raise DatabaseError("server closed the connection unexpectedly")

    monkeypatch.setattr(delivery, "webhook_delivery_attempt", broken)
    webhook_deliver_task.delay(12345)  # eager, propagating: would raise here
    assert "webhook attempt not logged delivery=12345" in caplog.text


def test_the_sweep_runs_every_10_seconds_on_beat(settings: Any) -> None:
    from agreement_server.celery import app

    assert settings.CELERY_BEAT_SCHEDULE["webhooks-sweep"] == {
        "task": "webhooks.deliveries_sweep",
        "schedule": 10.0,
    }
    assert "webhooks.deliveries_sweep" in app.tasks


def test_deliveries_left_pending_by_the_old_code_are_finished_by_the_sweep(
    study: Study, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    # As the issue found them: the crashed one at ``pending, attempts=1`` with no attempt
    # logged, the unsent one at 0 attempts; neither has a due time or a dispatch mark.
    broken = WebhookEndpoint.objects.create(
        study=study,
        url="http://127.0.0.1:8199\\@example.org/m",
        secret="whsec_test",
        events=["computation.finished"],
    )
    working = endpoint_for(study, receiver.url)
    crashed = WebhookDelivery.objects.create(
        endpoint=broken, event="ping", event_id="ping:old:1", payload={}, attempts=1
    )
    unsent = WebhookDelivery.objects.create(
        endpoint=working, event="ping", event_id="ping:old:2", payload={"id": "ping:old:2"}
    )
    assert sorted(sweep(django_capture_on_commit_callbacks)) == [crashed.pk, unsent.pk]
    crashed.refresh_from_db()
    unsent.refresh_from_db()
    assert crashed.status == DeliveryStatus.FAILED
    assert attempt_log(crashed) == [
        (1, None, UNFINISHED, 0),
        (
            2,
            None,
            "The endpoint's URL is invalid: The URL must not contain a backslash (\\).",
            None,
        ),
    ]
    assert unsent.status == DeliveryStatus.SUCCEEDED
    assert len(receiver.requests) == 1
