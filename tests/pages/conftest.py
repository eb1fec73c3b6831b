"""A study with two rounds of a binary question, each computed (real metrics, eager Celery)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from computations.models import Computation, ComputationStatus
from computations.services import computation_request
from studies.models import Coder, Question, Round, Study
from tests.computations.helpers import label_round, nominal_question, random_table
from tests.factories import CoderFactory, RoundFactory


@dataclass
class PagesWorld:
    study: Study
    question: Question
    rounds: list[Round]
    coders: list[Coder]
    computations: list[Computation]


def compute(study: Study, question: Question, round_: Round, capture: Any) -> Computation:
    with capture(execute=True):
        result = computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 200}
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


@pytest.fixture
def pages_world(study: Study, django_capture_on_commit_callbacks: Any) -> PagesWorld:
    question = nominal_question(study, codes=("yes", "no"), key="relevant")
    coders = [CoderFactory(study=study, key=f"coder-{n}") for n in range(3)]
    rounds = [RoundFactory(study=study, name=f"R{n + 1}", position=n + 1) for n in range(2)]
    items = None
    computations = []
    for n, round_ in enumerate(rounds):
        table = random_table(3, 40, ("yes", "no"), agree=0.6 + 0.3 * n, seed=n)
        _, items = label_round(round_, question, table, coders=coders, items=items)
        computations.append(compute(study, question, round_, django_capture_on_commit_callbacks))
    return PagesWorld(study, question, rounds, coders, computations)


@pytest.fixture
def site_client() -> Any:
    """``site_client(user)``: a Django test client signed in as the user (CSRF enforced)."""

    def make(user: Any = None) -> Client:
        client = Client(enforce_csrf_checks=True)
        if user is not None:
            client.force_login(user)
        return client

    return make
