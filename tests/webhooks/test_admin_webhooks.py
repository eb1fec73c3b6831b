"""The webhook admin: endpoints created through the service (secret shown once), the
delivery log with every attempt, and the ping / send again actions."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.messages import get_messages
from django.test import Client

from studies.models import Study
from tests.factories import UserFactory
from tests.webhooks.receiver import running_receiver
from webhooks import services as webhooks
from webhooks.models import DeliveryStatus, WebhookDelivery, WebhookEndpoint

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(settings: Any) -> Client:
    settings.ROOT_URLCONF = "tests.webhooks.admin_urlconf"
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def test_the_admin_creates_an_endpoint_and_shows_the_secret_once(
    admin_client: Client, study: Study
) -> None:
    response = admin_client.post(
        "/admin/webhooks/webhookendpoint/add/",
        {
            "study": study.pk,
            "url": "https://hooks.example.org/a",
            "description": "",
            "events": ["computation.finished", "agreement.below_threshold"],
            "threshold": "0.5",
            "coefficient": "alpha",
            "is_active": "on",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    endpoint = WebhookEndpoint.objects.get()
    assert endpoint.events == ["computation.finished", "agreement.below_threshold"]
    assert endpoint.created_by is not None
    shown = " ".join(str(m) for m in get_messages(response.wsgi_request))
    assert endpoint.secret in shown
    assert endpoint.secret in admin_client.get(response.url).content.decode()  # the message
    page = admin_client.get(f"/admin/webhooks/webhookendpoint/{endpoint.pk}/change/")
    assert page.status_code == 200
    assert endpoint.secret not in page.content.decode()


def test_the_admin_refuses_below_threshold_without_a_threshold(
    admin_client: Client, study: Study
) -> None:
    response = admin_client.post(
        "/admin/webhooks/webhookendpoint/add/",
        {
            "study": study.pk,
            "url": "https://hooks.example.org/a",
            "events": ["agreement.below_threshold"],
            "is_active": "on",
        },
    )
    assert response.status_code == 200
    assert "needs a threshold" in response.content.decode()
    assert not WebhookEndpoint.objects.exists()


def test_the_delivery_log_lists_every_attempt_and_can_send_again(
    admin_client: Client,
    study: Study,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.AGREEMENT_WEBHOOKS_ALLOW_PRIVATE = True
    settings.AGREEMENT_WEBHOOK_MAX_ATTEMPTS = 2
    with running_receiver(script=[500, 500]) as receiver:
        endpoint, _secret = webhooks.webhook_endpoint_create(
            study=study, url=receiver.url, events=["computation.finished"]
        )
        with django_capture_on_commit_callbacks(execute=True):
            delivery = webhooks.webhook_ping(endpoint=endpoint)
        delivery.refresh_from_db()
        assert delivery.status == DeliveryStatus.FAILED

        changelist = admin_client.get("/admin/webhooks/webhookdelivery/")
        assert changelist.status_code == 200
        assert receiver.url in changelist.content.decode()
        detail = admin_client.get(f"/admin/webhooks/webhookdelivery/{delivery.pk}/change/")
        assert detail.status_code == 200
        html = detail.content.decode()
        assert "HTTP 500" in html
        assert "&quot;event&quot;: &quot;ping&quot;" in html

        with django_capture_on_commit_callbacks(execute=True):
            admin_client.post(
                "/admin/webhooks/webhookdelivery/",
                {"action": "send_again", "_selected_action": [delivery.pk]},
            )
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == DeliveryStatus.SUCCEEDED
    assert [a.status_code for a in delivery.attempt_log.all()] == [500, 500, 200]

    endpoints = admin_client.get("/admin/webhooks/webhookendpoint/")
    assert endpoints.status_code == 200
    page = admin_client.get(f"/admin/webhooks/webhookendpoint/{endpoint.pk}/change/")
    assert page.status_code == 200


def test_the_ping_action_queues_a_ping(
    admin_client: Client, study: Study, django_capture_on_commit_callbacks: Any
) -> None:
    endpoint, _secret = webhooks.webhook_endpoint_create(
        study=study, url="https://hooks.example.org/a", events=["computation.finished"]
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        admin_client.post(
            "/admin/webhooks/webhookendpoint/",
            {"action": "send_ping", "_selected_action": [endpoint.pk]},
        )
    assert WebhookDelivery.objects.get().event == "ping"
    assert len(callbacks) == 1  # sent after the commit (not run here: no internet in tests)
