"""The kind contract's computation on a real Celery worker process, through Redis and
PostgreSQL, for every registered kind (CI runs it; elsewhere it skips without services)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Question, Role
from tests.factories import MembershipFactory, StudyFactory, UserFactory
from tests.kinds.cases import CASES, agreed_rows, upload
from tests.kinds.conftest import KEYS, declare
from tests.plugins.services import WorkerProcess

pytestmark = pytest.mark.services


@pytest.mark.parametrize("key", KEYS)
def test_each_kind_computes_on_a_worker_process(
    key: str, celery_worker_process: WorkerProcess
) -> None:
    case = CASES[key]
    study = StudyFactory()
    user = UserFactory()
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    client = APIClient()
    client.force_authenticate(user=user)
    declare(study, client, case)
    assert upload(client, study, case, agreed_rows(case)).status_code == 200
    question = Question.objects.get(study=study, key="q")
    round_ = study.rounds.get(name="Round 1")
    posted = client.post(
        f"/api/v1/studies/{study.pk}/computations/",
        {"question": question.pk, "round": round_.pk, "bootstrap": 20},
        format="json",
    )
    assert posted.status_code == 202, posted.json()
    polled: dict[str, Any] = {}
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        polled = client.get(posted["Location"]).json()
        if polled["status"] in ("done", "failed"):
            break
        time.sleep(0.2)
    assert polled["status"] == "done", (polled.get("error"), celery_worker_process.log()[-2000:])
    assert polled["results"]["coefficients"][case.headline]["value"] == 1.0
