"""``model.result_stored``: one signed event per model coder when a computation stores its
results, carrying what the worker stored (the alternative annotator test's verdict, the
prediction-powered estimates), delivered to a real local receiver."""

from __future__ import annotations

import json
from typing import Any
from unittest import mock

import pytest

from computations.models import Computation, ComputationScope, ComputationStatus
from computations.services import computation_request
from tests.computations.helpers import nominal_question
from tests.computations.model_rounds import model_round
from tests.webhooks.receiver import running_receiver
from webhooks import services as webhooks
from webhooks.models import WebhookDelivery, WebhookEvent

pytestmark = pytest.mark.django_db


def model_computation(study: Any, capture: Any) -> Computation:
    question = nominal_question(study, key="topic")
    data = model_round(study, question)
    with mock.patch("webhooks.receivers.webhooks_on_computation_finished"), capture(execute=True):
        result = computation_request(
            study=study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[data.round],
            parameters={"bootstrap": 50},
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def test_a_models_stored_result_is_sent_once_per_model(
    study: Any, allow_local: Any, django_capture_on_commit_callbacks: Any
) -> None:
    computation = model_computation(study, django_capture_on_commit_callbacks)
    stored = computation.results["model_coders"]["per_model"][0]
    with running_receiver() as receiver:
        endpoint, _ = webhooks.webhook_endpoint_create(
            study=study, url=receiver.url, events=[WebhookEvent.MODEL_RESULT_STORED]
        )
        with django_capture_on_commit_callbacks(execute=True):
            created = webhooks.webhooks_on_computation_finished(computation_id=computation.pk)
        with django_capture_on_commit_callbacks(execute=True):
            again = webhooks.webhooks_on_computation_finished(computation_id=computation.pk)
    assert len(created) == 1
    assert again == []
    (request,) = receiver.requests
    body = json.loads(request.body)
    coder = stored["coder"]
    assert body["event"] == "model.result_stored"
    assert body["id"] == f"model.result_stored:{computation.pk}:{coder}"
    data = body["data"]
    assert data["model"] == {
        "coder": coder,
        "key": "llm",
        "model_name": "gpt-test",
        "model_version": "2025-01",
        "prompt_version": "v1",
    }
    test = stored["alt_test"]
    assert data["alt_test"] == {
        "passed": test["passed"],
        "winning_rate": test["winning_rate"],
        "advantage_probability": test["advantage_probability"],
        "epsilon": 0.2,
        "alpha": 0.05,
        "n_humans": 4,
        "n_items": 60,
    }
    assert [row["label"] for row in data["ppi"]["estimates"]] == ["a", "b", "c"]
    assert data["ppi"]["estimates"][0]["estimate"] == stored["ppi"]["estimates"][0]["estimate"]
    between = computation.results["model_coders"]["groups"]["between"]
    assert data["between"] == {"value": between["value"], "ci": between["ci"]}
    assert data["question"]["key"] == "topic"
    # One run of the model, no confidences: the reason, and no calibration.
    assert data["diagnostics"] == {
        "self_consistency": {
            "runs": ["llm"],
            "refused": "No other run of model gpt-test (version 2025-01) labelled this scope: "
            "self-consistency needs a second model coder with the same model name and version "
            "(another run, or another prompt version) on the same items.",
        }
    }
    assert data["history_url"] == f"/api/v1/studies/{study.pk}/history/models/?coder={coder}"
    assert WebhookDelivery.objects.get().endpoint == endpoint


def test_endpoints_not_subscribed_get_no_model_event(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    computation = model_computation(study, django_capture_on_commit_callbacks)
    webhooks.webhook_endpoint_create(
        study=study, url="https://hooks.example.org/a", events=["computation.finished"]
    )
    with mock.patch("webhooks.dispatch.deliveries_enqueue"):
        webhooks.webhooks_on_computation_finished(computation_id=computation.pk)
    assert list(WebhookDelivery.objects.values_list("event", flat=True)) == ["computation.finished"]
