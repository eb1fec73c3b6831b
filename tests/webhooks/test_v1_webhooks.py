"""``/api/v1/studies/{study_pk}/webhooks/``: managers register, change, test and delete
endpoints and read their delivery log; the secret is shown once."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Study
from tests.webhooks.receiver import Receiver, running_receiver
from webhooks.models import DeliveryStatus, WebhookEndpoint

pytestmark = pytest.mark.django_db


def url(study: Study, suffix: str = "") -> str:
    return f"/api/v1/studies/{study.pk}/webhooks/{suffix}"


def register(client: APIClient, study: Study, **body: Any) -> Any:
    body.setdefault("url", "https://hooks.example.org/agreement")
    body.setdefault("events", ["computation.finished"])
    return client.post(url(study), body, format="json")


def test_a_manager_registers_an_endpoint_and_sees_its_secret_once(
    manager_client: APIClient, study: Study
) -> None:
    response = register(
        manager_client,
        study,
        events=["computation.finished", "agreement.below_threshold"],
        threshold=0.667,
        coefficient="alpha",
        description="Slack bridge",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    endpoint = WebhookEndpoint.objects.get(pk=body["id"])
    assert body["secret"] == endpoint.secret
    assert body["events"] == ["computation.finished", "agreement.below_threshold"]
    assert body["threshold"] == 0.667
    assert body["coefficient"] == "alpha"
    assert endpoint.created_by is not None
    assert endpoint.created_by.username == "manager_a"

    listed = manager_client.get(url(study)).json()
    assert listed["count"] == 1
    assert endpoint.secret not in json.dumps(listed)
    one = manager_client.get(url(study, f"{endpoint.pk}/")).json()
    assert set(one) == {
        "id", "url", "description", "events", "threshold", "coefficient", "is_active",
        "created_at", "updated_at",
    }  # fmt: skip


def test_an_invalid_endpoint_answers_400_with_codes(
    manager_client: APIClient, study: Study
) -> None:
    response = register(manager_client, study, events=["agreement.below_threshold"])
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert [(e["attr"], e["code"]) for e in errors] == [("threshold", "threshold_required")]

    response = register(manager_client, study, events=["round.closed"], url="not a url")
    assert response.status_code == 400
    attrs = {(e["attr"], e["code"]) for e in response.json()["errors"]}
    assert ("url", "invalid") in attrs
    assert ("events.0", "invalid_choice") in attrs

    response = register(manager_client, study, coefficient="tau")
    assert [(e["attr"], e["code"]) for e in response.json()["errors"]] == [
        ("coefficient", "unknown_coefficient")
    ]


def test_a_manager_changes_rotates_and_deletes_an_endpoint(
    manager_client: APIClient, study: Study
) -> None:
    created = register(manager_client, study).json()
    detail = url(study, f"{created['id']}/")

    changed = manager_client.patch(detail, {"is_active": False}, format="json")
    assert changed.status_code == 200
    assert changed.json()["is_active"] is False
    assert "secret" not in changed.json()

    rotated = manager_client.post(url(study, f"{created['id']}/rotate-secret/"))
    assert rotated.status_code == 200
    assert rotated.json()["secret"] != created["secret"]
    assert WebhookEndpoint.objects.get().secret == rotated.json()["secret"]

    assert manager_client.delete(detail).status_code == 204
    assert not WebhookEndpoint.objects.exists()


@pytest.mark.parametrize("who", ["annotator_client", "viewer_client"])
def test_members_below_manager_cannot_see_or_register_endpoints(
    request: pytest.FixtureRequest, manager_client: APIClient, study: Study, who: str
) -> None:
    created = register(manager_client, study).json()
    client = request.getfixturevalue(who)
    assert client.get(url(study)).status_code == 403
    assert client.get(url(study, f"{created['id']}/")).status_code == 403
    assert client.get(url(study, f"{created['id']}/deliveries/")).status_code == 403
    assert register(client, study).status_code == 403
    assert client.delete(url(study, f"{created['id']}/")).status_code == 403


def test_non_members_get_404(
    manager_client: APIClient, outsider_client: APIClient, study: Study
) -> None:
    created = register(manager_client, study).json()
    assert outsider_client.get(url(study)).status_code == 404
    assert outsider_client.get(url(study, f"{created['id']}/")).status_code == 404
    assert register(outsider_client, study).status_code == 404


def test_an_endpoint_of_another_study_is_not_found(
    manager_client: APIClient, outsider_client: APIClient, outsider: Any, study: Study
) -> None:
    other = outsider.memberships.get().study
    created = register(outsider_client, other).json()
    assert manager_client.get(url(study, f"{created['id']}/")).status_code == 404


def test_a_ping_is_delivered_and_shows_in_the_delivery_log(
    manager_client: APIClient,
    study: Study,
    allow_local: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    with running_receiver(script=[500]) as receiver:
        created = register(manager_client, study, url=receiver.url).json()
        with django_capture_on_commit_callbacks(execute=True):
            ping = manager_client.post(url(study, f"{created['id']}/ping/"))
        assert ping.status_code == 202
        assert ping.json()["event"] == "ping"
    assert len(receiver.requests) == 2

    log = manager_client.get(url(study, f"{created['id']}/deliveries/")).json()
    assert log["count"] == 1
    delivery = log["results"][0]
    assert delivery["status"] == DeliveryStatus.SUCCEEDED
    assert delivery["attempts"] == 2
    assert delivery["payload"]["event"] == "ping"
    assert [a["status_code"] for a in delivery["attempt_log"]] == [500, 200]
    assert delivery["attempt_log"][0]["retry_in_seconds"] == 30
    assert delivery["attempt_log"][0]["error"] == "HTTP 500"
    assert set(delivery["attempt_log"][0]) == {
        "number", "started_at", "duration_ms", "status_code", "succeeded",
        "response_excerpt", "error", "retry_in_seconds",
    }  # fmt: skip


def test_the_receiver_fixture_is_a_real_server(receiver: Receiver) -> None:
    import urllib.request

    with urllib.request.urlopen(
        urllib.request.Request(receiver.url, data=b"{}", method="POST"), timeout=5
    ) as answer:
        assert answer.status == 200
    assert receiver.requests[0].body == b"{}"
