"""Gold and adjudication end to end: PostgreSQL, Redis and a real Celery worker process.

Run as the other ``services`` tests (``AGREEMENT_SERVICES=1``, ``DATABASE_URL=postgres://…``,
``CELERY_BROKER_URL=redis://…``): setting the gold coder and adjudicating over the API send
the reference computation to the worker after commit, and the worker stores the results.
"""

from __future__ import annotations

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from adjudication.models import ReferenceResult, ReferenceStatus
from studies.models import Role
from tests.computations.helpers import label_round, nominal_question
from tests.factories import MembershipFactory, RoundFactory, StudyFactory, UserFactory
from tests.plugins.services import WorkerProcess

pytestmark = pytest.mark.services

# Three coders on six items; the third is the gold coder. c1 agrees with it on u1, u3 and
# u5 (3 of 6); u6 adjudicated to c1's label makes it 4 of 6.
TABLE = [
    ["a", "a", "b", "b", "c", "a"],
    ["a", "b", "b", "b", "c", "c"],
    ["a", "b", "b", "c", "c", "c"],
]


def results_after(round_: Any, question: Any, since: Any, worker: WorkerProcess) -> Any:
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        row = ReferenceResult.objects.filter(round=round_, question=question).first()
        if (
            row is not None
            and row.status in (ReferenceStatus.DONE, ReferenceStatus.FAILED)
            and row.finished_at is not None
            and (since is None or row.finished_at > since)
        ):
            assert row.status == ReferenceStatus.DONE, row.error
            return row
        time.sleep(0.2)
    raise AssertionError(f"No reference results in 120 s.\n{worker.log()[-4000:]}")


def test_gold_coder_and_adjudication_are_computed_by_the_worker(
    celery_worker_process: WorkerProcess,
) -> None:
    study = StudyFactory()
    user = UserFactory()
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    question = nominal_question(study, key="sentiment")
    round_ = RoundFactory(study=study, name="Round 1", position=1)
    coders, items = label_round(round_, question, TABLE)
    client = APIClient()
    client.force_authenticate(user=user)
    base = f"/api/v1/studies/{study.pk}"

    response = client.patch(
        f"{base}/round-references/{round_.pk}/", {"gold_coder": coders[2].key}, format="json"
    )
    assert response.status_code == 200, response.json()
    first = results_after(round_, question, None, celery_worker_process)
    by_coder = {entry["coder"]: entry for entry in first.results["coders"]}
    assert by_coder[coders[0].key]["accuracy"]["value"] == pytest.approx(3 / 6)
    assert by_coder[coders[0].key]["accuracy"]["low"] is not None

    response = client.post(
        f"{base}/adjudications/",
        {"round": round_.pk, "question": "sentiment", "item": items[5].external_id,
         "coder": coders[0].key, "note": "a after all"},
        format="json",
    )  # fmt: skip
    assert response.status_code == 201, response.json()
    second = results_after(round_, question, first.finished_at, celery_worker_process)
    by_coder = {entry["coder"]: entry for entry in second.results["coders"]}
    assert second.results["n_adjudicated"] == 1
    assert by_coder[coders[0].key]["accuracy"]["value"] == pytest.approx(4 / 6)
