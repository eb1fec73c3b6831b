"""Webhooks: endpoints, events, and signed delivery to a real local receiver."""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any
from unittest import mock

import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from computations.models import Computation, ComputationScope, ComputationStatus
from computations.services import computation_request
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory
from tests.webhooks.receiver import Receiver, running_receiver
from webhooks import delivery
from webhooks import services as webhooks
from webhooks.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEvent

pytestmark = pytest.mark.django_db

TABLE = [
    ["a", "a", "b", "c", "a", "b"],
    ["a", "b", "b", "c", "a", "c"],
    ["a", "a", "b", "c", "c", "c"],
]


def endpoint_for(study: Any, url: str, **kwargs: Any) -> Any:
    kwargs.setdefault("events", [WebhookEvent.COMPUTATION_FINISHED])
    endpoint, _secret = webhooks.webhook_endpoint_create(study=study, url=url, **kwargs)
    return endpoint


def finished_computation(study: Any, capture: Any) -> Computation:
    """A done computation whose automatic webhook call was held back, for ``fire`` to make."""
    question = nominal_question(study, key="sentiment")
    round_ = RoundFactory(study=study, name="Round 1")
    label_round(round_, question, TABLE)
    with (
        mock.patch("webhooks.receivers.webhooks_on_computation_finished"),
        capture(execute=True),
    ):
        result = computation_request(
            study=study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[round_],
            parameters={"bootstrap": 0, "coefficients": ["alpha", "kappa"]},
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.DONE
    return computation


def fire(computation: Computation, capture: Any) -> list[int]:
    with capture(execute=True):
        return webhooks.webhooks_on_computation_finished(computation_id=computation.pk)


def verified(secret: str, request: Any) -> bool:
    timestamp = request.headers["X-Agreement-Timestamp"]
    expected = hmac.new(
        secret.encode(), timestamp.encode() + b"." + request.body, hashlib.sha256
    ).hexdigest()
    return hmac.compare_digest(request.headers["X-Agreement-Signature"], f"sha256={expected}")


# -- endpoints ---------------------------------------------------------------------------------


def test_an_endpoint_is_created_with_a_secret_that_signs_its_requests(study: Any) -> None:
    endpoint, secret = webhooks.webhook_endpoint_create(
        study=study, url="https://hooks.example.org/a", events=["computation.finished"]
    )
    assert secret.startswith("whsec_")
    assert len(secret) > 40
    assert endpoint.secret == secret
    assert endpoint.is_active


@pytest.mark.parametrize(
    ("fields", "attr", "code"),
    [
        ({"events": []}, "events", "no_events"),
        ({"events": ["round.closed"]}, "events", "unknown_event"),
        ({"events": ["agreement.below_threshold"]}, "threshold", "threshold_required"),
        ({"coefficient": "tau"}, "coefficient", "unknown_coefficient"),
        ({"url": "ftp://example.org/x"}, "url", "invalid_url"),
        ({"threshold": 1.5}, "threshold", "threshold_out_of_range"),
    ],
)
def test_an_invalid_endpoint_is_refused_with_a_code(
    study: Any, fields: dict, attr: str, code: str
) -> None:
    given = {"url": "https://hooks.example.org/a", "events": ["computation.finished"], **fields}
    with pytest.raises(ValidationError) as caught:
        webhooks.webhook_endpoint_create(study=study, **given)
    assert code in [e.code for e in caught.value.error_dict[attr]]


def test_updating_an_endpoint_checks_it_again_and_keeps_the_secret(study: Any) -> None:
    endpoint = endpoint_for(study, "https://hooks.example.org/a")
    secret = endpoint.secret
    webhooks.webhook_endpoint_update(
        endpoint=endpoint, events=["agreement.below_threshold"], threshold=0.667
    )
    endpoint.refresh_from_db()
    assert endpoint.events == ["agreement.below_threshold"]
    assert endpoint.secret == secret
    with pytest.raises(ValidationError):
        webhooks.webhook_endpoint_update(endpoint=endpoint, threshold=None)


def test_rotating_the_secret_replaces_it(study: Any) -> None:
    endpoint = endpoint_for(study, "https://hooks.example.org/a")
    old = endpoint.secret
    _endpoint, new = webhooks.webhook_endpoint_rotate_secret(endpoint=endpoint)
    endpoint.refresh_from_db()
    assert new != old
    assert endpoint.secret == new


def test_backoff_doubles_after_each_failed_attempt_up_to_the_cap(settings: Any) -> None:
    settings.AGREEMENT_WEBHOOK_RETRY_BASE_SECONDS = 30
    settings.AGREEMENT_WEBHOOK_RETRY_MAX_SECONDS = 3600
    assert [delivery.backoff_seconds(n) for n in range(1, 9)] == [
        30, 60, 120, 240, 480, 960, 1920, 3600,
    ]  # fmt: skip


# -- delivery to a local receiver -----------------------------------------------------------


def test_a_computation_finishing_posts_to_the_registered_receiver_by_itself(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(study, receiver.url)
    question = nominal_question(study, key="sentiment")
    round_ = RoundFactory(study=study, name="Round 1")
    label_round(round_, question, TABLE)
    with django_capture_on_commit_callbacks(execute=True):
        computation_request(
            study=study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[round_],
            parameters={"bootstrap": 0, "coefficients": ["alpha", "kappa"]},
        )
    events = [request.headers["X-Agreement-Event"] for request in receiver.requests]
    assert events == ["computation.finished"]


def test_a_finished_computation_is_posted_signed_to_the_receiver(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint = endpoint_for(study, receiver.url)
    computation = finished_computation(study, django_capture_on_commit_callbacks)

    created = fire(computation, django_capture_on_commit_callbacks)

    assert len(created) == 1
    assert len(receiver.requests) == 1
    request = receiver.requests[0]
    assert request.path == "/hooks/agreement"
    assert request.headers["Content-Type"] == "application/json"
    assert request.headers["X-Agreement-Event"] == "computation.finished"
    assert request.headers["X-Agreement-Delivery"] == str(created[0])
    assert verified(endpoint.secret, request)
    assert not verified("whsec_wrong", request)
    payload = json.loads(request.body)
    assert payload["event"] == "computation.finished"
    assert payload["id"] == f"computation.finished:{computation.pk}:1"
    assert payload["study"] == {"id": study.pk, "name": study.name}
    data = payload["data"]
    assert data["computation"]["id"] == computation.pk
    assert data["computation"]["status"] == "done"
    assert data["computation"]["url"] == (
        f"/api/v1/studies/{study.pk}/computations/{computation.pk}/"
    )
    assert data["question"]["key"] == "sentiment"
    assert [r["name"] for r in data["rounds"]] == ["Round 1"]
    alpha = computation.results["coefficients"]["alpha"]["value"]
    assert data["coefficients"]["alpha"]["value"] == pytest.approx(alpha)
    assert set(data["coefficients"]) == {"alpha", "kappa"}

    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert delivery.attempts == 1
    assert delivery.last_status_code == 200
    attempt = WebhookAttempt.objects.get()
    assert attempt.succeeded
    assert attempt.status_code == 200
    assert '"received": true' in attempt.response_excerpt
    assert attempt.error == ""
    assert attempt.retry_in_seconds is None
    assert attempt.duration_ms >= 0


def test_a_failing_receiver_is_retried_with_backoff_until_it_answers(
    study: Any, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    allow_local.AGREEMENT_WEBHOOK_RETRY_BASE_SECONDS = 10
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    with running_receiver(script=[500, 500, 503]) as receiver:
        endpoint = endpoint_for(study, receiver.url)
        fire(computation, django_capture_on_commit_callbacks)  # eager: retries run at once

    assert len(receiver.requests) == 4
    assert all(verified(endpoint.secret, r) for r in receiver.requests)
    assert len({r.body for r in receiver.requests}) == 1  # the same body every time
    attempts = list(WebhookAttempt.objects.order_by("number"))
    assert [a.number for a in attempts] == [1, 2, 3, 4]
    assert [a.status_code for a in attempts] == [500, 500, 503, 200]
    assert [a.succeeded for a in attempts] == [False, False, False, True]
    assert [a.retry_in_seconds for a in attempts] == [10, 20, 40, None]
    assert attempts[0].error == "HTTP 500"
    assert '"status": 500' in attempts[0].response_excerpt
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert delivery.attempts == 4
    assert delivery.finished_at is not None


def test_a_delivery_gives_up_after_the_last_attempt(
    study: Any, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    allow_local.AGREEMENT_WEBHOOK_MAX_ATTEMPTS = 3
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    with running_receiver(script=[500] * 10) as receiver:
        endpoint_for(study, receiver.url)
        fire(computation, django_capture_on_commit_callbacks)

    assert len(receiver.requests) == 3
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.FAILED
    assert delivery.last_status_code == 500
    assert [a.retry_in_seconds for a in delivery.attempt_log.all()] == [30, 60, None]


def test_an_unreachable_receiver_is_logged_as_an_error(
    study: Any, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    allow_local.AGREEMENT_WEBHOOK_MAX_ATTEMPTS = 2
    with running_receiver() as receiver:
        url = receiver.url  # the port is free again once the receiver stops
    endpoint_for(study, url)
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    fire(computation, django_capture_on_commit_callbacks)
    attempts = list(WebhookAttempt.objects.order_by("number"))
    assert len(attempts) == 2
    assert all(a.status_code is None for a in attempts)
    assert "refused" in attempts[0].error.lower() or "URLError" in attempts[0].error
    assert WebhookDelivery.objects.get().status == DeliveryStatus.FAILED


def test_private_addresses_are_refused_unless_allowed(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    with running_receiver() as receiver:
        endpoint_for(study, receiver.url)
        computation = finished_computation(study, django_capture_on_commit_callbacks)
        fire(computation, django_capture_on_commit_callbacks)
    assert receiver.requests == []
    attempt = WebhookAttempt.objects.get()
    assert "private address 127.0.0.1" in attempt.error
    assert attempt.retry_in_seconds is None
    assert WebhookDelivery.objects.get().status == DeliveryStatus.FAILED


def test_firing_the_same_computation_twice_sends_it_once(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(study, receiver.url)
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    assert len(fire(computation, django_capture_on_commit_callbacks)) == 1
    assert fire(computation, django_capture_on_commit_callbacks) == []
    assert len(receiver.requests) == 1


def test_a_finished_delivery_message_redelivered_sends_nothing(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(study, receiver.url)
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    (delivery_id,) = fire(computation, django_capture_on_commit_callbacks)
    outcome = delivery.webhook_delivery_attempt(delivery_id=delivery_id)
    assert not outcome.attempted
    assert len(receiver.requests) == 1


def test_inactive_endpoints_and_unsubscribed_events_receive_nothing(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(study, receiver.url, is_active=False)
    endpoint_for(
        study, receiver.url, events=["agreement.below_threshold"], threshold=-1.0
    )  # nothing is below -1
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    assert fire(computation, django_capture_on_commit_callbacks) == []
    assert receiver.requests == []


def test_a_queued_computation_fires_nothing(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(study, receiver.url)
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    Computation.objects.filter(pk=computation.pk).update(status=ComputationStatus.RUNNING)
    assert fire(computation, django_capture_on_commit_callbacks) == []


def test_a_failed_computation_is_posted_with_its_error(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(study, receiver.url)
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    Computation.objects.filter(pk=computation.pk).update(
        status=ComputationStatus.FAILED, error="There are no annotations in this scope."
    )
    fire(computation, django_capture_on_commit_callbacks)
    data = json.loads(receiver.requests[0].body)["data"]
    assert data["computation"]["status"] == "failed"
    assert data["computation"]["error"] == "There are no annotations in this scope."


# -- agreement.below_threshold --------------------------------------------------------------


def test_coefficients_below_the_threshold_fire_one_event_that_lists_them(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint = endpoint_for(
        study, receiver.url, events=["agreement.below_threshold"], threshold=0.99
    )
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    fire(computation, django_capture_on_commit_callbacks)

    (request,) = receiver.requests
    assert verified(endpoint.secret, request)
    assert request.headers["X-Agreement-Event"] == "agreement.below_threshold"
    payload = json.loads(request.body)
    assert payload["event"] == "agreement.below_threshold"
    assert payload["id"] == f"agreement.below_threshold:{computation.pk}"
    data = payload["data"]
    assert data["threshold"] == 0.99
    assert [b["coefficient"] for b in data["below"]] == ["alpha", "kappa"]
    assert data["below"][0]["value"] == pytest.approx(
        computation.results["coefficients"]["alpha"]["value"]
    )
    assert data["round"]["name"] == "Round 1"
    assert data["question"]["key"] == "sentiment"
    assert data["computation"]["id"] == computation.pk


def test_the_threshold_can_watch_one_coefficient_only(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(
        study,
        receiver.url,
        events=["agreement.below_threshold", "computation.finished"],
        threshold=0.99,
        coefficient="alpha",
    )
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    fire(computation, django_capture_on_commit_callbacks)
    events = sorted(json.loads(r.body)["id"] for r in receiver.requests)
    below = next(json.loads(r.body) for r in receiver.requests if "below" in r.body.decode())
    assert [b["coefficient"] for b in below["data"]["below"]] == ["alpha"]
    assert events == [
        f"agreement.below_threshold:{computation.pk}",
        f"computation.finished:{computation.pk}:1",
    ]


def test_a_pooled_computation_never_fires_below_threshold(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint_for(study, receiver.url, events=["agreement.below_threshold"], threshold=0.99)
    computation = finished_computation(study, django_capture_on_commit_callbacks)
    Computation.objects.filter(pk=computation.pk).update(scope=ComputationScope.STUDY)
    assert fire(computation, django_capture_on_commit_callbacks) == []


# -- ping and redelivery --------------------------------------------------------------------


def test_a_ping_reaches_the_endpoint_whatever_it_subscribes_to(
    study: Any, receiver: Receiver, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint = endpoint_for(
        study, receiver.url, events=["agreement.below_threshold"], threshold=0.5
    )
    with django_capture_on_commit_callbacks(execute=True):
        delivery = webhooks.webhook_ping(endpoint=endpoint)
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    payload = json.loads(receiver.requests[0].body)
    assert payload["event"] == "ping"
    assert payload["data"]["endpoint"] == {"id": endpoint.pk, "url": receiver.url}


def test_a_failed_delivery_can_be_sent_again(
    study: Any, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    allow_local.AGREEMENT_WEBHOOK_MAX_ATTEMPTS = 1
    with running_receiver(script=[500]) as receiver:
        endpoint = endpoint_for(study, receiver.url)
        with django_capture_on_commit_callbacks(execute=True):
            delivery = webhooks.webhook_ping(endpoint=endpoint)
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.FAILED
        with django_capture_on_commit_callbacks(execute=True):
            webhooks.webhook_delivery_redeliver(delivery=delivery)
    delivery.refresh_from_db()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert [a.status_code for a in delivery.attempt_log.all()] == [500, 200]
    assert delivery.finished_at is not None
    assert delivery.finished_at <= timezone.now()


def test_the_task_hands_each_retry_to_the_broker_with_the_backoff_countdown(
    study: Any, allow_local: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    from webhooks import dispatch

    countdowns: list[int | None] = []
    real_send = dispatch.deliveries_send

    def spy(ids: Any, *, countdown: int | None = None) -> list[int]:
        countdowns.append(countdown)
        return real_send(ids, countdown=countdown)  # eager: runs the retry at once

    monkeypatch.setattr(dispatch, "deliveries_send", spy)
    with running_receiver(script=[500, 502]) as receiver:
        endpoint = endpoint_for(study, receiver.url)
        with django_capture_on_commit_callbacks(execute=True):
            webhooks.webhook_ping(endpoint=endpoint)
    assert countdowns == [None, 30, 60]
    assert len(receiver.requests) == 3
    assert WebhookDelivery.objects.get().status == DeliveryStatus.SUCCEEDED
