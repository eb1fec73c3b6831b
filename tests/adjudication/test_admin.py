"""The admin lists gold coders, adjudications and stored results, read only."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from adjudication import services

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("model", ["roundreference", "adjudication", "referenceresult"])
def test_each_changelist_renders_and_nothing_is_added_there(
    admin_client: Client,
    gold_round: dict[str, Any],
    django_capture_on_commit_callbacks: Any,
    model: str,
) -> None:
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_coder_set(round_=gold_round["round"], coder=gold_round["coders"][2])
        services.adjudicate(
            round_=gold_round["round"],
            question=gold_round["question"],
            item=gold_round["items"][1],
            label="b",
        )
    response = admin_client.get(reverse(f"admin:adjudication_{model}_changelist"))
    assert response.status_code == 200
    assert admin_client.get(reverse(f"admin:adjudication_{model}_add")).status_code == 403
