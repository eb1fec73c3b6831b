"""Members: managers add users by username, change roles, remove them; a study keeps a
manager."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Membership, Role, Study
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def url(study: Study, *rest: Any) -> str:
    return f"/api/v1/studies/{study.pk}/members/" + "".join(f"{p}/" for p in rest)


def errors(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


def test_a_manager_adds_a_member_by_username(manager_client: APIClient, study: Study) -> None:
    UserFactory(username="dora.e")
    response = manager_client.post(
        url(study), {"username": "dora.e", "role": "annotator"}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert response.json()["username"] == "dora.e"
    assert Membership.objects.get(study=study, user__username="dora.e").role == Role.ANNOTATOR
    assert manager_client.get(url(study, "dora.e")).json()["role"] == "annotator"


def test_adding_an_unknown_or_existing_member_is_rejected(
    manager_client: APIClient, study: Study, viewer: Any
) -> None:
    response = manager_client.post(url(study), {"username": "ghost"}, format="json")
    assert errors(response) == [("unknown_user", "username")]
    response = manager_client.post(url(study), {"username": viewer.username}, format="json")
    assert errors(response) == [("already_member", "username")]


def test_members_are_listed_by_username_and_filtered_by_role(
    viewer_client: APIClient, study: Study, manager: Any, annotator: Any, viewer: Any
) -> None:
    body = viewer_client.get(url(study)).json()
    assert [(m["username"], m["role"]) for m in body["results"]] == [
        ("annotator_a", "annotator"),
        ("manager_a", "manager"),
        ("viewer_a", "viewer"),
    ]
    body = viewer_client.get(url(study) + "?role=manager").json()
    assert [m["username"] for m in body["results"]] == ["manager_a"]


def test_a_manager_changes_a_role_and_removes_a_member(
    manager_client: APIClient, study: Study, viewer: Any
) -> None:
    response = manager_client.patch(url(study, viewer.username), {"role": "manager"}, format="json")
    assert response.status_code == 200
    assert Membership.objects.get(study=study, user=viewer).role == Role.MANAGER
    assert manager_client.delete(url(study, viewer.username)).status_code == 204
    assert not Membership.objects.filter(study=study, user=viewer).exists()


def test_the_last_manager_cannot_leave_or_be_demoted(
    manager_client: APIClient, study: Study, manager: Any
) -> None:
    response = manager_client.delete(url(study, manager.username))
    assert response.status_code == 409
    assert errors(response) == [("last_manager", None)]
    response = manager_client.patch(url(study, manager.username), {"role": "viewer"}, format="json")
    assert response.status_code == 409
    assert Membership.objects.get(study=study, user=manager).role == Role.MANAGER


def test_an_annotator_cannot_add_members(annotator_client: APIClient, study: Study) -> None:
    UserFactory(username="eve")
    response = annotator_client.post(url(study), {"username": "eve"}, format="json")
    assert response.status_code == 403
    assert not Membership.objects.filter(user__username="eve").exists()
