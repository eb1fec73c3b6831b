"""The study every kind contract test starts from: one round, four items with a text, two
coders, and one question ``q`` of the kind under test, declared through the API."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.kinds import KINDS
from studies.models import Study
from tests.factories import CoderFactory, ItemFactory, RoundFactory
from tests.kinds.cases import CASES, CODERS, ITEMS, TEXT, KindCase

KEYS = sorted(KINDS)


def declare(study: Study, client: APIClient, case: KindCase) -> None:
    RoundFactory(study=study, name="Round 1", position=1)
    for external_id in ITEMS:
        ItemFactory(study=study, external_id=external_id, text=TEXT)
    for coder in CODERS:
        CoderFactory(study=study, key=coder)
    response = client.post(
        f"/api/v1/studies/{study.pk}/questions/", {"key": "q", **case.question}, format="json"
    )
    assert response.status_code == 201, response.json()


@pytest.fixture(params=KEYS)
def kind_study(request: Any, study: Study, manager_client: APIClient) -> tuple[str, KindCase]:
    key = request.param
    declare(study, manager_client, CASES[key])
    return key, CASES[key]
