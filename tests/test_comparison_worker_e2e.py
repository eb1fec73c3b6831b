"""A comparison of two rounds end to end: the API records it, a real Celery worker process
computes it, the API reads it back (202 while pending, 200 with the stored result).

Run with ``-p tests.plugins.services`` and ``AGREEMENT_SERVICES=1``,
``DATABASE_URL=postgres://…`` and ``CELERY_BROKER_URL=redis://…``.
"""

from __future__ import annotations

import time

import pytest
from rest_framework.test import APIClient

from studies.models import Role
from tests.computations.helpers import label_round, nominal_question, random_table
from tests.factories import MembershipFactory, RoundFactory, StudyFactory, UserFactory
from tests.plugins.services import WorkerProcess

pytestmark = pytest.mark.services


def test_a_comparison_is_computed_by_a_worker_and_read_through_the_api(
    celery_worker_process: WorkerProcess,
) -> None:
    study = StudyFactory()
    user = UserFactory()
    MembershipFactory(study=study, user=user, role=Role.ANNOTATOR)
    question = nominal_question(study)
    first = RoundFactory(study=study, name="R1", position=1)
    second = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(first, question, random_table(3, 60, "abc", agree=0.5, seed=1))
    label_round(
        second, question, random_table(3, 60, "abc", agree=0.9, seed=2), coders=coders, items=items
    )
    client = APIClient()
    client.force_authenticate(user=user)
    posted = client.post(
        f"/api/v1/studies/{study.pk}/comparisons/",
        {"question": question.key, "first": "R2", "second": "R1", "bootstrap": 200},
        format="json",
    )
    assert posted.status_code == 202, posted.json()
    deadline = time.monotonic() + 120
    read = client.get(posted["Location"])
    while read.status_code == 202 and time.monotonic() < deadline:
        time.sleep(0.2)
        read = client.get(posted["Location"])
    assert read.status_code == 200, celery_worker_process.log()[-4000:]
    body = read.json()
    assert body["status"] == "done", body
    result = body["result"]
    assert (result["later"]["round_name"], result["earlier"]["round_name"]) == ("R2", "R1")
    assert result["paired"] is True
    assert result["difference"]["ci"]["replicates"] == 200
    assert result["difference"]["estimate"] > 0
