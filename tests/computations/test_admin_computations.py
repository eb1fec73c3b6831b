"""Admin: "compute agreement" on rounds and studies; computations are read-only there."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from computations.models import Computation, ComputationScope, ComputationTrigger
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client_(db: None) -> Client:
    user = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(user)
    return client


def test_the_round_action_queues_one_computation_per_question(
    admin_client_: Client, study: Any
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, [["a", "b"], ["a", "a"]])
    response = admin_client_.post(
        "/admin/studies/round/",
        {"action": "compute_agreement_for_rounds", "_selected_action": [round_.pk]},
        follow=True,
    )
    assert response.status_code == 200
    computation = Computation.objects.get()
    assert computation.trigger == ComputationTrigger.ADMIN
    assert computation.scope == ComputationScope.ROUND
    assert "1 computation(s) queued" in response.content.decode()


def test_the_study_action_pools_every_round(admin_client_: Client, study: Any) -> None:
    question = nominal_question(study)
    label_round(RoundFactory(study=study), question, [["a", "b"], ["a", "a"]])
    admin_client_.post(
        "/admin/studies/study/",
        {"action": "compute_agreement_for_studies", "_selected_action": [study.pk]},
    )
    assert Computation.objects.get().scope == ComputationScope.STUDY


def test_a_computation_page_shows_it_read_only(admin_client_: Client, study: Any) -> None:
    from computations.services import computation_request

    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, [["a", "b"], ["a", "a"]])
    computation = computation_request(
        study=study, question=question, rounds=[round_], parameters={"bootstrap": 0}
    ).computation
    assert admin_client_.get("/admin/computations/computation/").status_code == 200
    page = admin_client_.get(f"/admin/computations/computation/{computation.pk}/change/")
    assert page.status_code == 200
