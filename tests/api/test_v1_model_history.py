"""The model coders' history over the API: each model round after round, with the prompt
version of each round and the alternative annotator test's figures as stored (compared with
``metrics.models.alt_test`` on each round's annotations)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import TestCase
from rest_framework.test import APIClient

from computations.models import ComputationScope
from computations.services import computation_request
from metrics.models import alt_test
from studies.models import Study
from tests.computations.helpers import nominal_question
from tests.computations.model_rounds import PEOPLE, model_round, preference_round, two_runs

pytestmark = pytest.mark.django_db


def compute(study: Study, question: Any, round_: Any) -> None:
    with TestCase.captureOnCommitCallbacks(execute=True):
        computation_request(
            study=study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[round_],
            parameters={"bootstrap": 50},
        )


def test_the_history_shows_each_rounds_prompt_version_and_test(
    viewer_client: APIClient, study: Study
) -> None:
    question = nominal_question(study, key="topic")
    first = model_round(study, question, seed=1, position=1)
    compute(study, question, first.round)
    first.model.prompt_version = "v2"
    first.model.save()
    second = model_round(
        study,
        question,
        seed=2,
        position=2,
        model=first.model,
        coders=first.people,
        items=first.items,
    )
    compute(study, question, second.round)

    response = viewer_client.get(f"/api/v1/studies/{study.pk}/history/models/")
    assert response.status_code == 200, response.json()
    (entry,) = response.json()["questions"]
    assert entry["question_key"] == "topic"
    (model,) = entry["models"]
    assert (model["key"], model["model_name"]) == ("llm", "gpt-test")
    assert [(p["round_name"], p["prompt_version"]) for p in model["rounds"]] == [
        ("R1", "v1"),
        ("R2", "v2"),
    ]
    for point, data in zip(model["rounds"], (first, second), strict=True):
        expected = alt_test(
            data.item_ids, data.coder_keys, data.labels, model="llm", humans=list(PEOPLE)
        )
        assert point["advantage_probability"] == pytest.approx(expected.advantage_probability)
        assert point["winning_rate"] == expected.winning_rate
        assert point["passed"] is expected.passed
        assert point["n_humans"] == 4
        assert point["epsilon"] == 0.2
        assert point["refused"] is None
        assert point["between"]["value"] is not None

    filtered = viewer_client.get(
        f"/api/v1/studies/{study.pk}/history/models/", {"coder": "llm", "question": "topic"}
    )
    assert filtered.json() == response.json()
    unknown = viewer_client.get(f"/api/v1/studies/{study.pk}/history/models/", {"coder": "x"})
    assert unknown.status_code == 400
    assert unknown.json()["errors"][0]["attr"] == "coder"
    assert unknown.json()["errors"][0]["code"] == "unknown_coder"


def test_epsilon_is_a_computation_parameter_of_the_api(
    annotator_client: APIClient, study: Study
) -> None:
    question = nominal_question(study, key="topic")
    data = model_round(study, question)
    url = f"/api/v1/studies/{study.pk}/computations/"
    refused = annotator_client.post(
        url, {"question": "topic", "round": data.round.pk, "epsilon": 1.5}, format="json"
    )
    assert refused.status_code == 400
    assert [(e["attr"], e["code"]) for e in refused.json()["errors"]] == [("epsilon", "invalid")]
    with TestCase.captureOnCommitCallbacks(execute=True):
        posted = annotator_client.post(
            url,
            {"question": "topic", "round": data.round.pk, "epsilon": 0.1, "bootstrap": 0},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    body = annotator_client.get(posted["Location"]).json()
    assert body["parameters"]["epsilon"] == 0.1
    assert body["results"]["model_coders"]["per_model"][0]["alt_test"]["epsilon"] == 0.1


def test_the_history_shows_each_models_self_consistency_and_position_bias(
    viewer_client: APIClient, manager_client: APIClient, study: Study
) -> None:
    question = nominal_question(study, key="topic")
    round_, _ = two_runs(study, question)
    compute(study, question, round_)
    preferences = preference_round(study, manager_client, position=2)
    compute(study, preferences, study.rounds.get(name="Round 1"))

    response = viewer_client.get(f"/api/v1/studies/{study.pk}/history/models/")
    assert response.status_code == 200, response.json()
    by_key = {entry["question_key"]: entry for entry in response.json()["questions"]}
    assert set(by_key) == {"topic", "pref"}
    runs = {model["key"]: model["rounds"] for model in by_key["topic"]["models"]}
    (point,) = runs["llm-a"]
    consistency = point["self_consistency"]
    # alpha = 80/99 by hand (tests/computations/model_rounds.py); the interval as stored.
    assert consistency["alpha"] == pytest.approx(80 / 99, abs=1e-12)
    assert consistency["n_items"] == 10
    assert consistency["runs"] == ["llm-a", "llm-b"]
    assert len(consistency["ci"]) == 2
    assert runs["llm-b"][0]["self_consistency"] == consistency
    judges = {model["key"]: model["rounds"] for model in by_key["pref"]["models"]}
    (preference,) = judges["judge"]
    # 9 of 10 non-tie choices picked the option shown first: p = 22/1024 by hand.
    assert preference["position_bias"] == {"share_first": 0.9, "n": 10, "p": 22 / 1024}
    assert preference["advantage_probability"] is None
