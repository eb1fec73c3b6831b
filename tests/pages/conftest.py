"""A study with two rounds of a binary question, each computed (real metrics, eager Celery)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from computations.models import Computation, ComputationStatus
from computations.services import computation_request
from studies.models import Coder, LabelKind, Question, Round, Study
from tests.computations.helpers import label_round, nominal_question, random_table
from tests.factories import CategoryFactory, CoderFactory, QuestionFactory, RoundFactory


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


@dataclass
class LabelsWorld:
    """One round of a set question and a hierarchy question, three coders, six items."""

    study: Study
    round: Round
    topics: Question  # set
    tree: Question  # hierarchy: news (economy, politics), sport
    coders: list[Coder]


#: ``TOPICS[c][u]``: coder c's set of topics for item u.
TOPICS = [
    ["economy|politics", "sport", "economy", "politics", "sport", "economy|sport"],
    ["economy", "sport", "economy", "politics|sport", "sport", "economy|sport"],
    ["economy|politics", "sport", "politics", "politics", "economy", "sport"],
]
#: ``NODES[c][u]``: coder c's node of the tree for item u.
NODES = [
    ["economy", "sport", "news", "politics", "sport", "economy"],
    ["politics", "sport", "news", "politics", "economy", "economy"],
    ["economy", "sport", "economy", "politics", "sport", "news"],
]


@pytest.fixture
def labels_world(study: Study, django_capture_on_commit_callbacks: Any) -> LabelsWorld:
    topics = nominal_question(
        study, codes=("economy", "politics", "sport"), key="topics", kind=LabelKind.SET
    )
    tree = QuestionFactory(study=study, kind=LabelKind.HIERARCHY, key="tree")
    news = CategoryFactory(question=tree, code="news", position=0)
    CategoryFactory(question=tree, code="economy", position=1, parent=news)
    CategoryFactory(question=tree, code="politics", position=2, parent=news)
    CategoryFactory(question=tree, code="sport", position=3)
    round_ = RoundFactory(study=study, name="R1", position=1)
    coders, items = label_round(round_, topics, TOPICS)
    label_round(round_, tree, NODES, coders=coders, items=items)
    for question in (topics, tree):
        compute(study, question, round_, django_capture_on_commit_callbacks)
    return LabelsWorld(study, round_, topics, tree, coders)


@pytest.fixture
def site_client() -> Any:
    """``site_client(user)``: a Django test client signed in as the user (CSRF enforced)."""

    def make(user: Any = None) -> Client:
        client = Client(enforce_csrf_checks=True)
        if user is not None:
            client.force_login(user)
        return client

    return make
