"""/api/v1/studies/{study_pk}/computations/: request (202), poll, reuse (200), list, access."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from computations.models import Computation, ComputationStatus
from studies.models import Annotation
from tests.computations.helpers import EngineDouble, label_round, nominal_question
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

TABLE = [["a", "a", "b", "c"], ["a", "b", "b", "c"], ["a", "a", "b", None]]


@pytest.fixture
def engine_double(monkeypatch: pytest.MonkeyPatch) -> EngineDouble:
    return EngineDouble(monkeypatch)


@pytest.fixture
def scope(study: Any) -> tuple[Any, Any]:
    question = nominal_question(study)
    round_ = RoundFactory(study=study, name="Round 1")
    label_round(round_, question, TABLE)
    return question, round_


def url(study: Any, pk: int | None = None) -> str:
    base = f"/api/v1/studies/{study.pk}/computations/"
    return base if pk is None else f"{base}{pk}/"


def post(client: APIClient, study: Any, capture: Any, **body: Any) -> Any:
    with capture(execute=True):
        return client.post(url(study), body, format="json")


def test_a_request_answers_202_with_the_computations_url(
    manager_client: APIClient, study: Any, scope: Any, engine_double: EngineDouble,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, round_ = scope
    response = post(
        manager_client, study, django_capture_on_commit_callbacks,
        question=question.pk, round=round_.pk, bootstrap=0,
    )  # fmt: skip
    assert response.status_code == 202, response.json()
    body = response.json()
    computation = Computation.objects.get()
    assert body["url"].endswith(url(study, computation.pk))
    assert response["Location"] == body["url"]
    assert body["scope"] == "round"
    assert body["rounds"] == [round_.pk]
    assert body["parameters"]["bootstrap"] == 0


def test_polling_shows_status_progress_fingerprint_and_results(
    manager_client: APIClient, viewer_client: APIClient, study: Any, scope: Any,
    engine_double: EngineDouble, django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, round_ = scope
    posted = post(
        manager_client, study, django_capture_on_commit_callbacks,
        question=question.pk, round=round_.pk, bootstrap=0,
    ).json()  # fmt: skip
    body = viewer_client.get(url(study, posted["id"])).json()
    assert body["status"] == "done"
    assert body["progress"] == 1.0
    assert len(body["fingerprint"]) == 64
    assert body["n_annotations"] == 11
    assert body["metrics_version"] == "double"
    assert body["stale"] is False
    assert body["error"] == ""
    assert body["started_at"] is not None
    assert body["finished_at"] is not None
    assert "alpha" in body["results"]["coefficients"]


def test_the_same_request_on_unchanged_data_answers_200_with_the_same_computation(
    manager_client: APIClient, study: Any, scope: Any, engine_double: EngineDouble,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, round_ = scope
    body = {"question": question.pk, "round": round_.pk, "bootstrap": 0}
    first = post(manager_client, study, django_capture_on_commit_callbacks, **body)
    second = post(manager_client, study, django_capture_on_commit_callbacks, **body)
    assert second.status_code == 200
    assert second.json()["id"] == first.json()["id"]
    Annotation.objects.filter(round=round_).first().delete()
    assert manager_client.get(url(study, first.json()["id"])).json()["stale"] is True
    third = post(manager_client, study, django_capture_on_commit_callbacks, **body)
    assert third.status_code == 202
    assert third.json()["id"] != first.json()["id"]


def test_a_request_without_rounds_pools_the_whole_study(
    manager_client: APIClient, study: Any, scope: Any, engine_double: EngineDouble,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, _ = scope
    response = post(
        manager_client, study, django_capture_on_commit_callbacks, question=question.pk, bootstrap=0
    )
    assert response.json()["scope"] == "study"


def test_a_failed_computation_shows_its_error(
    manager_client: APIClient, study: Any, scope: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    def undefined(*args: Any, **kwargs: Any) -> None:
        raise ValueError("There has to be at least one pairable item.")

    monkeypatch.setattr("computations.services.engine.point_report", undefined)
    question, round_ = scope
    posted = post(
        manager_client, study, django_capture_on_commit_callbacks,
        question=question.pk, round=round_.pk, bootstrap=0,
    ).json()  # fmt: skip
    body = manager_client.get(url(study, posted["id"])).json()
    assert body["status"] == "failed"
    assert body["error"] == "There has to be at least one pairable item."


@pytest.mark.parametrize(
    ("body", "attr"),
    [
        ({"scope": "galaxy"}, "scope"),
        ({"question": 999999}, "question"),
        ({"coefficients": ["nope"]}, "coefficients.0"),
        ({"bootstrap": -1}, "bootstrap"),
        ({"confidence": 1.5}, "confidence"),
        ({"distance": "euclid"}, "distance"),
        ({"round": 999999}, "round"),
    ],
)
def test_invalid_requests_answer_400_naming_the_field(
    manager_client: APIClient, study: Any, scope: Any, body: dict, attr: str
) -> None:
    question, _ = scope
    response = manager_client.post(url(study), {"question": question.pk, **body}, format="json")
    assert response.status_code == 400
    assert attr in [error["attr"] for error in response.json()["errors"]]


def test_a_question_of_another_study_is_refused(
    manager_client: APIClient, study: Any, scope: Any
) -> None:
    from tests.factories import StudyFactory

    other = nominal_question(StudyFactory())
    response = manager_client.post(url(study), {"question": other.pk}, format="json")
    assert response.status_code == 400


def test_a_viewer_may_poll_but_not_request(
    viewer_client: APIClient, study: Any, scope: Any
) -> None:
    question, _ = scope
    response = viewer_client.post(url(study), {"question": question.pk}, format="json")
    assert response.status_code == 403
    assert viewer_client.get(url(study)).status_code == 200


def test_an_outsider_sees_nothing(outsider_client: APIClient, study: Any, scope: Any) -> None:
    question, _ = scope
    assert outsider_client.get(url(study)).status_code == 404
    assert outsider_client.post(url(study), {"question": question.pk}).status_code == 404


def test_the_list_filters_by_question_round_and_status_without_results(
    manager_client: APIClient, study: Any, scope: Any, engine_double: EngineDouble,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, round_ = scope
    post(
        manager_client, study, django_capture_on_commit_callbacks,
        question=question.pk, round=round_.pk, bootstrap=0,
    )  # fmt: skip
    listed = manager_client.get(url(study), {"question": question.pk, "status": "done"}).json()
    assert listed["count"] == 1
    assert "results" not in listed["results"][0]
    assert manager_client.get(url(study), {"status": "failed"}).json()["count"] == 0
    assert manager_client.get(url(study), {"round": round_.pk}).json()["count"] == 1


def test_the_list_reads_stale_flags_without_a_query_per_computation(
    manager_client: APIClient, study: Any, scope: Any, engine_double: EngineDouble,
    django_assert_max_num_queries: Any,
) -> None:  # fmt: skip
    from computations.models import ComputationScope
    from computations.services import computation_request

    question, round_ = scope
    for seed in range(5):
        computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters={"seed": seed, "bootstrap": 0},
        )  # fmt: skip
    with django_assert_max_num_queries(12):
        assert manager_client.get(url(study)).json()["count"] == 5
    assert Computation.objects.filter(status=ComputationStatus.QUEUED).count() == 5
