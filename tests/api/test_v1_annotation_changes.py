"""GET /api/v1/studies/{study_pk}/annotation-changes/: the history of every annotation."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from studies.models import AnnotationChange, Role, Study
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url, changes_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def upload(
    client: APIClient, scheme: Scheme, question: str, rows: list[tuple[str, str, Any]]
) -> Any:
    response = client.post(
        bulk_url(scheme.study),
        {
            "round": scheme.round.pk,
            "question": question,
            "annotations": [{"item": i, "coder": c, "label": label} for i, c, label in rows],
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.fixture
def history(
    annotator_client: APIClient,
    client_for: Callable[..., APIClient],
    study_token: Callable[[Role], Any],
    scheme: Scheme,
) -> Scheme:
    """alice/doc-1: pos (by the annotator), then neg (by a study token); bob/doc-1: pos."""
    upload(
        annotator_client, scheme, "sentiment", [("doc-1", "alice", "pos"), ("doc-1", "bob", "pos")]
    )
    _, secret = study_token(Role.ANNOTATOR)
    upload(client_for(token_secret=secret), scheme, "sentiment", [("doc-1", "alice", "neg")])
    return scheme


def test_the_history_lists_every_change_newest_first(
    viewer_client: APIClient, history: Scheme
) -> None:
    response = viewer_client.get(changes_url(history.study))

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 3
    newest = body["results"][0]
    assert {key: newest[key] for key in newest if key not in ("id", "changed_at", "token")} == {
        "round": history.round.pk,
        "round_name": "Round 1",
        "question": "sentiment",
        "question_id": history.sentiment.pk,
        "item": "doc-1",
        "coder": "alice",
        "action": "updated",
        "old_value": "pos",
        "new_value": "neg",
        "changed_by": None,
        "token_name": AnnotationChange.objects.get(action="updated").token.name,
    }
    assert newest["token"] is not None
    created = [row for row in body["results"] if row["action"] == "created"]
    assert {(row["coder"], row["old_value"], row["new_value"]) for row in created} == {
        ("alice", None, "pos"),
        ("bob", None, "pos"),
    }
    assert {row["changed_by"] for row in created} == {"annotator_a"}
    assert {row["token"] for row in created} == {None}


@pytest.mark.parametrize(
    ("filters", "expected_count"),
    [
        ({"action": "updated"}, 1),
        ({"action": "created"}, 2),
        ({"coder": "bob"}, 1),
        ({"item": "doc-1", "coder": "alice"}, 2),
        ({"question": "topics"}, 0),
    ],
)
def test_the_history_is_filterable(
    viewer_client: APIClient, history: Scheme, filters: dict[str, str], expected_count: int
) -> None:
    response = viewer_client.get(changes_url(history.study), filters)

    assert response.json()["count"] == expected_count


def test_the_history_filters_by_round_and_time(viewer_client: APIClient, history: Scheme) -> None:
    AnnotationChange.objects.filter(action="created").update(
        changed_at=timezone.now() - timedelta(days=3)
    )
    since = (timezone.now() - timedelta(days=1)).isoformat()

    recent = viewer_client.get(changes_url(history.study), {"since": since}).json()
    in_pilot = viewer_client.get(
        changes_url(history.study), {"round": history.closed_round.pk}
    ).json()

    assert [row["action"] for row in recent["results"]] == ["updated"]
    assert in_pilot["count"] == 0


def test_the_history_is_paginated(viewer_client: APIClient, history: Scheme) -> None:
    body = viewer_client.get(changes_url(history.study), {"page_size": 2}).json()

    assert body["count"] == 3
    assert len(body["results"]) == 2
    assert body["next"] is not None


def test_non_members_get_404_for_the_history(outsider_client: APIClient, history: Scheme) -> None:
    response = outsider_client.get(changes_url(history.study))

    assert response.status_code == 404
    assert "results" not in response.json()


def test_the_history_cannot_be_written(manager_client: APIClient, history: Scheme) -> None:
    response = manager_client.post(changes_url(history.study), {}, format="json")

    assert response.status_code == 405
    assert AnnotationChange.objects.count() == 3
