"""A round with a model coder computed end to end on PostgreSQL: the API requests it, a real
Celery worker process computes it (the model-coder step included), and the API, the model
history and the model page read back what the worker stored, equal to ``metrics.models``
run here on the same annotations.

Run with ``-p tests.plugins.services`` and ``AGREEMENT_SERVICES=1``,
``DATABASE_URL=postgres://…`` and ``CELERY_BROKER_URL=redis://…``.
"""

from __future__ import annotations

import time

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from metrics.models import alt_test
from studies.models import ModelCoderRound, Role
from tests.computations.helpers import nominal_question
from tests.computations.model_rounds import PEOPLE, calibration_round, model_round
from tests.factories import MembershipFactory, StudyFactory, UserFactory
from tests.plugins.services import WorkerProcess

pytestmark = pytest.mark.services


def test_a_model_coders_round_is_computed_by_a_worker_and_read_back(
    celery_worker_process: WorkerProcess,
) -> None:
    study = StudyFactory()
    user = UserFactory()
    MembershipFactory(study=study, user=user, role=Role.ANNOTATOR)
    question = nominal_question(study, key="topic")
    data = model_round(study, question)
    client = APIClient()
    client.force_authenticate(user=user)
    posted = client.post(
        f"/api/v1/studies/{study.pk}/computations/",
        {"question": "topic", "round": data.round.pk, "bootstrap": 200, "epsilon": 0.15},
        format="json",
    )
    assert posted.status_code == 202, posted.json()
    deadline = time.monotonic() + 120
    body = client.get(posted["Location"]).json()
    while body["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        body = client.get(posted["Location"]).json()
    assert body["status"] == "done", (body, celery_worker_process.log()[-4000:])
    expected = alt_test(
        data.item_ids, data.coder_keys, data.labels, model="llm", humans=list(PEOPLE),
        epsilon=0.15,
    )  # fmt: skip
    (stored,) = body["results"]["model_coders"]["per_model"]
    assert stored["alt_test"]["epsilon"] == 0.15
    assert stored["alt_test"]["winning_rate"] == expected.winning_rate
    assert stored["alt_test"]["advantage_probability"] == pytest.approx(
        expected.advantage_probability
    )
    assert ModelCoderRound.objects.get(coder=data.model, round=data.round).prompt_version == "v1"

    history = client.get(f"/api/v1/studies/{study.pk}/history/models/", {"coder": "llm"})
    (point,) = history.json()["questions"][0]["models"][0]["rounds"]
    assert point["winning_rate"] == expected.winning_rate
    assert point["prompt_version"] == "v1"
    page = Client()
    page.force_login(user)
    html = page.get(reverse("pages:model-detail", args=[study.pk, data.model.pk]))
    assert html.status_code == 200
    verdict = "passes" if expected.passed else "does not pass"
    assert f"Model llm (gpt-test, prompt v1) {verdict} the alternative annotator test" in (
        html.content.decode()
    )


@pytest.fixture
def small_item_chunks(monkeypatch: pytest.MonkeyPatch) -> None:
    """Set before the worker starts (it inherits the environment): above 40 annotations a
    computation is split by items."""
    monkeypatch.setenv("AGREEMENT_ITEM_CHUNK_ANNOTATIONS", "40")


def test_a_split_round_stores_the_models_calibration_from_a_worker(
    small_item_chunks: None, celery_worker_process: WorkerProcess
) -> None:
    study = StudyFactory()
    user = UserFactory()
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    client = APIClient()
    client.force_authenticate(user=user)
    question, round_ = calibration_round(study, client)  # 84 annotations, 21 confidences
    posted = client.post(
        f"/api/v1/studies/{study.pk}/computations/",
        {"question": question.key, "round": round_.pk, "bootstrap": 0},
        format="json",
    )
    assert posted.status_code == 202, posted.json()
    deadline = time.monotonic() + 120
    body = client.get(posted["Location"]).json()
    while body["status"] in ("queued", "running") and time.monotonic() < deadline:
        time.sleep(0.2)
        body = client.get(posted["Location"]).json()
    assert body["status"] == "done", (body, celery_worker_process.log()[-4000:])
    assert body["results"]["item_chunks"]["split"] is True
    (model,) = body["results"]["model_coders"]["per_model"]
    # ECE 0.125 over 20 labels, one left out: by hand (tests/computations/model_rounds.py).
    assert model["calibration"]["ece"] == pytest.approx(0.125, abs=1e-12)
    assert model["calibration"]["n"] == 20
    assert model["calibration"]["n_without_reference"] == 1
    assert "refused" in model["alt_test"] or "winning_rate" in model["alt_test"]
    page = Client()
    page.force_login(user)
    html = page.get(reverse("pages:model-detail", args=[study.pk, model["coder"]]))
    assert "Expected calibration error 0.125 over 20 labels" in html.content.decode()
    assert 'class="chart reliability-diagram"' in html.content.decode()
