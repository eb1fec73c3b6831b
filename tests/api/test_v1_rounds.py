"""Rounds: created open at the next position, closed, reopened, filtered by status."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Round, RoundStatus, Study
from tests.factories import AnnotationFactory, RoundFactory

pytestmark = pytest.mark.django_db


def url(study: Study, *rest: Any) -> str:
    return f"/api/v1/studies/{study.pk}/rounds/" + "".join(f"{p}/" for p in rest)


def errors(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


def test_rounds_get_the_next_position_when_none_is_given(
    manager_client: APIClient, study: Study
) -> None:
    first = manager_client.post(url(study), {"name": "pilot"}, format="json")
    second = manager_client.post(url(study), {"name": "main"}, format="json")
    assert first.status_code == 201, first.json()
    assert (first.json()["position"], second.json()["position"]) == (1, 2)
    assert first.json()["status"] == "open"
    assert first.json()["closed_at"] is None
    assert list(Round.objects.filter(study=study).values_list("name", "position")) == [
        ("pilot", 1),
        ("main", 2),
    ]


def test_a_duplicate_round_name_or_position_is_rejected(
    manager_client: APIClient, study: Study
) -> None:
    RoundFactory(study=study, name="pilot", position=1)
    response = manager_client.post(url(study), {"name": "pilot", "position": 1}, format="json")
    assert response.status_code == 400
    assert sorted(errors(response)) == [
        ("duplicate_name", "name"),
        ("duplicate_position", "position"),
    ]


def test_a_round_is_closed_and_reopened(manager_client: APIClient, study: Study) -> None:
    round_ = RoundFactory(study=study)
    response = manager_client.post(url(study, round_.pk, "close"), {}, format="json")
    assert response.status_code == 200
    assert response.json()["status"] == "closed"
    round_.refresh_from_db()
    assert round_.status == RoundStatus.CLOSED
    assert round_.closed_at is not None

    again = manager_client.post(url(study, round_.pk, "close"), {}, format="json")
    assert again.status_code == 409
    assert errors(again) == [("already_closed", None)]

    response = manager_client.post(url(study, round_.pk, "reopen"))
    assert response.status_code == 200
    round_.refresh_from_db()
    assert (round_.status, round_.closed_at) == (RoundStatus.OPEN, None)
    assert manager_client.post(url(study, round_.pk, "reopen")).status_code == 409


def test_rounds_are_filtered_by_status(viewer_client: APIClient, study: Study) -> None:
    RoundFactory(study=study, name="a", position=1, closed=True)
    RoundFactory(study=study, name="b", position=2)
    body = viewer_client.get(url(study) + "?status=open").json()
    assert [r["name"] for r in body["results"]] == ["b"]
    body = viewer_client.get(url(study)).json()
    assert [r["name"] for r in body["results"]] == ["a", "b"]


def test_an_annotator_cannot_close_a_round(annotator_client: APIClient, study: Study) -> None:
    round_ = RoundFactory(study=study)
    assert annotator_client.post(url(study, round_.pk, "close"), {}).status_code == 403
    round_.refresh_from_db()
    assert round_.is_open


def test_a_round_is_renamed_and_one_with_annotations_is_kept(
    manager_client: APIClient, study: Study
) -> None:
    round_ = AnnotationFactory(question__study=study).round
    response = manager_client.patch(url(study, round_.pk), {"name": "renamed"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "renamed"
    response = manager_client.delete(url(study, round_.pk))
    assert response.status_code == 409
    assert errors(response) == [("round_in_use", None)]


def test_a_round_cannot_close_before_it_opened(manager_client: APIClient, study: Study) -> None:
    round_ = RoundFactory(study=study)
    response = manager_client.post(
        url(study, round_.pk, "close"), {"closed_at": "2000-01-01T00:00:00Z"}, format="json"
    )
    assert response.status_code == 400
    assert errors(response) == [("closed_before_opened", "closed_at")]
    round_.refresh_from_db()
    assert round_.is_open
