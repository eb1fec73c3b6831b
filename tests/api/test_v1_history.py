"""/api/v1/studies/{study_pk}/history/ (+ coders/) and the comparisons of two rounds."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from computations.models import ComputationScope
from computations.services import computation_request
from tests.computations.comparing import compare_through_api
from tests.computations.helpers import (
    EngineDouble,
    label_round,
    nominal_question,
    random_table,
)
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def computed(
    study: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> tuple[Any, Any, Any]:
    EngineDouble(monkeypatch)
    question = nominal_question(study)
    first = RoundFactory(study=study, name="R1", position=1)
    second = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(first, question, random_table(2, 20, "abc", agree=0.5, seed=1))
    label_round(
        second, question, random_table(2, 20, "abc", agree=0.9, seed=2), coders=coders, items=items
    )
    for round_ in (first, second):
        with django_capture_on_commit_callbacks(execute=True):
            computation_request(
                study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
                parameters={"bootstrap": 50},
            )  # fmt: skip
    return question, first, second


def test_history_shows_each_round_with_coefficients_and_their_computation(
    viewer_client: APIClient, study: Any, computed: Any
) -> None:
    question, first, second = computed
    response = viewer_client.get(f"/api/v1/studies/{study.pk}/history/")
    assert response.status_code == 200
    (entry,) = response.json()["questions"]
    assert entry["question_key"] == question.key
    assert [r["round"] for r in entry["rounds"]] == [first.pk, second.pk]
    alpha = entry["rounds"][1]["coefficients"]["alpha"]
    assert alpha["ci"]["low"] <= alpha["value"] <= alpha["ci"]["high"]
    computation = entry["rounds"][1]["computation"]
    assert computation is not None
    assert entry["rounds"][1]["computation_url"] == (
        f"http://testserver/api/v1/studies/{study.pk}/computations/{computation}/"
    )
    assert viewer_client.get(entry["rounds"][1]["computation_url"]).status_code == 200
    assert entry["rounds"][1]["n_coders"] == 2


def test_history_of_one_question_and_of_an_unknown_question(
    viewer_client: APIClient, study: Any, computed: Any
) -> None:
    question, *_ = computed
    base = f"/api/v1/studies/{study.pk}/history/"
    assert len(viewer_client.get(base, {"question": question.pk}).json()["questions"]) == 1
    unknown = viewer_client.get(base, {"question": 999999})
    assert unknown.status_code == 400
    assert unknown.json()["errors"][0]["code"] == "unknown_question"


def test_coder_drift_endpoint(viewer_client: APIClient, study: Any, computed: Any) -> None:
    question, *_ = computed
    body = viewer_client.get(
        f"/api/v1/studies/{study.pk}/history/coders/", {"question": question.pk}
    ).json()
    assert len(body["coders"]) == 2
    assert len(body["rounds"]) == 2


def test_compare_endpoint_gives_the_difference_with_a_ci(
    annotator_client: APIClient,
    study: Any,
    computed: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    monkeypatch.undo()  # the comparison runs on the real metrics engine
    question, first, second = computed
    posted, read = compare_through_api(
        annotator_client, study.pk, django_capture_on_commit_callbacks,
        question=question.pk, first=second.pk, second=first.pk, bootstrap=200,
    )  # fmt: skip
    assert posted.status_code == 202, posted.json()
    assert posted["Location"] == posted.json()["url"]
    body = read.json()["result"]
    assert body.get("paired") is True, body
    assert body["difference"]["ci"]["low"] is not None


def test_an_outsider_gets_404(outsider_client: APIClient, study: Any) -> None:
    assert outsider_client.get(f"/api/v1/studies/{study.pk}/history/").status_code == 404
