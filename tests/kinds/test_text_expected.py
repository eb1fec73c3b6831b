"""A text question's D_e on the worker: exact by default on a round of few texts, sampled
when asked (with how it was drawn), and bad options refused naming their field."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Question, Study
from tests.kinds.cases import CASES, upload
from tests.kinds.conftest import declare

#: Two coders on three items, one disagreement: the only unequal pair within an item is
#: ("A cat", "A cat."), normalised Levenshtein 1/6 (one insertion over six characters).
ROWS = [
    {"item": "d1", "coder": "alice", "text": "A cat"},
    {"item": "d1", "coder": "bob", "text": "A cat."},
    {"item": "d2", "coder": "alice", "text": "Two dogs."},
    {"item": "d2", "coder": "bob", "text": "Two dogs."},
    {"item": "d3", "coder": "alice", "text": ""},
    {"item": "d3", "coder": "bob", "text": ""},
]


def _compute(client: APIClient, study: Study, on_commit: Any, **options: Any) -> Any:
    question = Question.objects.get(study=study, key="q")
    round_ = study.rounds.get(name="Round 1")
    with on_commit(execute=True):
        return client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 0, **options},
            format="json",
        )


@pytest.fixture
def text_study(study: Study, manager_client: APIClient) -> Study:
    case = CASES["text"]
    declare(study, manager_client, case)
    assert upload(manager_client, study, case, ROWS).status_code == 200
    return study


def test_a_small_round_gets_the_exact_d_e(
    text_study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    posted = _compute(manager_client, text_study, django_capture_on_commit_callbacks)
    assert posted.status_code == 202, posted.json()
    computation = manager_client.get(posted.json()["url"]).json()
    assert computation["status"] == "done", computation.get("error")
    assert computation["parameters"]["expected"] == "auto"
    alpha = computation["results"]["coefficients"]["alpha"]
    assert alpha["expected_method"] == {"method": "exact"}
    # D_o: the one unequal pair, counted both ways, over n = 6 values: 2 · (1/6) / 6.
    assert alpha["observed"] == pytest.approx(2 * (1 / 6) / 6, abs=1e-12)


def test_a_sampled_d_e_says_how_it_was_drawn(
    text_study: Study, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    posted = _compute(
        manager_client,
        text_study,
        django_capture_on_commit_callbacks,
        expected="sampled",
        expected_pairs=5000,
        seed=3,
    )
    assert posted.status_code == 202, posted.json()
    computation = manager_client.get(posted.json()["url"]).json()
    assert computation["status"] == "done", computation.get("error")
    method = computation["results"]["coefficients"]["alpha"]["expected_method"]
    assert (method["method"], method["pairs"], method["seed"]) == ("sampled", 5000, 3)
    assert method["standard_error"] > 0


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"expected": "approximately"}, "expected"),
        ({"expected_pairs": 1}, "expected_pairs"),
        ({"expected_pairs": 20_000_001}, "expected_pairs"),
        ({"expected_pairs": "many"}, "expected_pairs"),
    ],
)
def test_bad_options_are_refused_naming_their_field(
    text_study: Study,
    manager_client: APIClient,
    django_capture_on_commit_callbacks: Any,
    options: dict[str, Any],
    field: str,
) -> None:
    posted = _compute(manager_client, text_study, django_capture_on_commit_callbacks, **options)
    assert posted.status_code == 400
    assert field in str(posted.json())
