"""Comparisons of two rounds: requested through the API, computed by a worker, read back.

The API never compares in the request: a POST records the comparison and hands it to the
broker after the commit; a GET answers 202 until the worker stored the result.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from computations import comparison_requests, dispatch
from computations.models import ComputationStatus, RoundComparison
from studies.models import Annotation
from tests.computations.comparing import compare_through_api
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

#: Two coders, eight items; R1: alpha = 0.0625, R2: the coders always agree, alpha = 1
#: (worked out beside ``LATER_MINUS_EARLIER`` in test_history_and_comparison.py).
EARLIER = [list("aabbaabb"), list("abbaabba")]
LATER = [list("aabbaabb"), list("aabbaabb")]
LATER_MINUS_EARLIER = 0.9375


@pytest.fixture
def rounds(study: Any) -> tuple[Any, Any, Any]:
    question = nominal_question(study, codes=("a", "b"), key="ab")
    earlier = RoundFactory(study=study, name="R1", position=1)
    later = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(earlier, question, EARLIER)
    label_round(later, question, LATER, coders=coders, items=items)
    return question, earlier, later


def _url(study: Any) -> str:
    return f"/api/v1/studies/{study.pk}/comparisons/"


def test_a_comparison_is_stored_by_the_worker_and_read_back(
    study: Any, rounds: Any, annotator_client: APIClient, viewer_client: APIClient,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    posted, _ = compare_through_api(
        annotator_client, study.pk, django_capture_on_commit_callbacks,
        question="ab", first="R1", second="R2", coefficient="alpha", bootstrap=100, seed=3,
    )  # fmt: skip
    assert posted.status_code == 202
    assert posted.json()["status"] == "queued"
    body = viewer_client.get(posted.json()["url"]).json()
    assert body["status"] == "done"
    assert (body["first_name"], body["second_name"], body["bootstrap"]) == ("R1", "R2", 100)
    result = body["result"]
    assert result["question_key"] == "ab"
    assert (result["later"]["round_name"], result["earlier"]["round_name"]) == ("R2", "R1")
    assert result["difference_is"] == "later round minus earlier round"
    assert result["difference"]["estimate"] == pytest.approx(LATER_MINUS_EARLIER)
    assert result["difference"]["ci"]["replicates"] == 100
    listed = viewer_client.get(_url(study)).json()["results"]
    assert [row["id"] for row in listed] == [body["id"]]
    assert "result" not in listed[0]


def test_a_pending_comparison_answers_202_with_its_status(
    study: Any, rounds: Any, annotator_client: APIClient
) -> None:
    # No on-commit callback runs: the worker never got it.
    posted = annotator_client.post(
        _url(study), {"question": "ab", "first": "R1", "second": "R2"}, format="json"
    )
    assert posted.status_code == 202
    assert posted["Location"] == posted.json()["url"]
    read = annotator_client.get(posted.json()["url"])
    assert read.status_code == 202
    assert (read.json()["status"], read.json()["result"]) == ("queued", None)
    assert read.json()["bootstrap"] == 1000


def test_the_same_request_on_unchanged_data_finds_the_live_comparison(
    study: Any, rounds: Any, annotator_client: APIClient
) -> None:
    body = {"question": "ab", "first": "R1", "second": "R2", "bootstrap": 50}
    first = annotator_client.post(_url(study), body, format="json")
    again = annotator_client.post(_url(study), body, format="json")
    assert (first.status_code, again.status_code) == (202, 200)
    assert first.json()["id"] == again.json()["id"]
    Annotation.objects.filter(round__name="R1").first().delete()
    changed = annotator_client.post(_url(study), body, format="json")
    assert changed.status_code == 202
    assert changed.json()["id"] != first.json()["id"]


@pytest.mark.parametrize(
    ("body", "attr", "detail"),
    [
        ({"first": "R1", "second": "R1"}, "second", "Compare two different rounds."),
        (
            {"first": "R1", "second": "R3"},
            "second",
            "Question 'ab' has no annotations in round 'R3': there is nothing to compare.",
        ),
        ({"first": "R1", "second": "R9"}, "second", None),
        ({"first": "R1", "second": "R2", "bootstrap": 1}, "bootstrap", None),
        ({"first": "R1", "second": "R2", "coefficient": "span_f1"}, "coefficient", None),
    ],
    ids=["same-round", "empty-round", "unknown-round", "one-replicate", "span-coefficient"],
)
def test_bad_requests_are_400s_naming_the_field(
    study: Any, rounds: Any, annotator_client: APIClient, body: dict, attr: str, detail: Any
) -> None:
    RoundFactory(study=study, name="R3", position=3)
    response = annotator_client.post(_url(study), {"question": "ab", **body}, format="json")
    assert response.status_code == 400, response.json()
    (error,) = response.json()["errors"]
    assert error["attr"] == attr
    if detail is not None:
        assert error["detail"] == detail
    assert not RoundComparison.objects.exists()


def test_a_viewer_reads_but_does_not_request(
    study: Any, rounds: Any, viewer_client: APIClient
) -> None:
    response = viewer_client.post(
        _url(study), {"question": "ab", "first": "R1", "second": "R2"}, format="json"
    )
    assert response.status_code == 403
    assert viewer_client.get(_url(study)).status_code == 200


def test_a_comparison_the_worker_cannot_make_is_failed_with_the_reason(
    study: Any, rounds: Any, annotator_client: APIClient,
    django_capture_on_commit_callbacks: Any, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    from studies.exceptions import ApplicationError

    def refuse(**_: Any) -> Any:
        raise ApplicationError("too few items to bootstrap", code="cannot_compare")

    monkeypatch.setattr(comparison_requests, "rounds_compare", refuse)
    _, read = compare_through_api(
        annotator_client, study.pk, django_capture_on_commit_callbacks,
        question="ab", first="R1", second="R2",
    )  # fmt: skip
    assert read.status_code == 200
    assert (read.json()["status"], read.json()["error"]) == ("failed", "too few items to bootstrap")


def test_the_sweep_sends_a_refused_or_stuck_comparison_again(
    study: Any, rounds: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, earlier, later = rounds
    sent: list[int] = []
    monkeypatch.setattr(dispatch, "comparison_run_send", lambda pk: sent.append(pk) or True)
    refused = comparison_requests.comparison_request(
        study=study, question=question, first=earlier, second=later, replicates=20
    ).comparison
    RoundComparison.objects.filter(pk=refused.pk).update(dispatched_at=None)
    stuck = comparison_requests.comparison_request(
        study=study, question=question, first=later, second=earlier, replicates=20
    ).comparison
    long_ago = timezone.now() - timedelta(hours=1)
    RoundComparison.objects.filter(pk=stuck.pk).update(
        status=ComputationStatus.RUNNING, heartbeat_at=long_ago
    )
    with django_capture_on_commit_callbacks(execute=True):
        acted = comparison_requests.comparisons_sweep()
    assert sorted(acted) == sorted([refused.pk, stuck.pk])
    assert sorted(sent) == sorted([refused.pk, stuck.pk])
    stuck.refresh_from_db()
    assert stuck.status == ComputationStatus.QUEUED
    with django_capture_on_commit_callbacks(execute=True):
        assert comparison_requests.comparisons_sweep() == []


def test_a_second_delivery_of_the_run_message_does_nothing(
    study: Any, rounds: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question, earlier, later = rounds
    with django_capture_on_commit_callbacks(execute=True):
        comparison = comparison_requests.comparison_request(
            study=study, question=question, first=earlier, second=later, replicates=20
        ).comparison
    comparison.refresh_from_db()
    assert comparison.status == ComputationStatus.DONE
    assert comparison_requests.comparison_claim(comparison_id=comparison.pk) is False
