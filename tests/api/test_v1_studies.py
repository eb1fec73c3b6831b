"""/api/v1/studies/: create (creator becomes manager), list own studies, change, delete."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Membership, Role, Study
from tests.factories import MembershipFactory, StudyFactory, UserFactory

pytestmark = pytest.mark.django_db


def test_a_user_creates_a_study_and_becomes_its_manager(client_for: Any) -> None:
    user = UserFactory(username="alice")
    response = client_for(user).post(
        "/api/v1/studies/", {"name": "Sentiment", "description": "tweets"}, format="json"
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["name"] == "Sentiment"
    assert body["description"] == "tweets"
    assert body["role"] == "manager"
    study = Study.objects.get(pk=body["id"])
    assert Membership.objects.get(study=study, user=user).role == Role.MANAGER


def test_a_personal_token_can_create_a_study(client_for: Any) -> None:
    from studies.services.tokens import personal_token_create

    user = UserFactory()
    _, secret = personal_token_create(user=user, name="cli")
    response = client_for(token_secret=secret).post(
        "/api/v1/studies/", {"name": "Via token"}, format="json"
    )
    assert response.status_code == 201
    assert Membership.objects.filter(user=user, study__name="Via token", role="manager").exists()


def test_a_study_token_cannot_create_a_study(client_for: Any, study_token: Any) -> None:
    _, secret = study_token(Role.MANAGER)
    response = client_for(token_secret=secret).post(
        "/api/v1/studies/", {"name": "Nope"}, format="json"
    )
    assert response.status_code == 403
    assert response.json()["errors"][0]["code"] == "study_token_cannot_create"
    assert not Study.objects.filter(name="Nope").exists()


def test_the_list_shows_only_the_actors_studies(manager_client: APIClient, study: Study) -> None:
    StudyFactory(name="Someone else's")
    response = manager_client.get("/api/v1/studies/")
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    assert [s["name"] for s in body["results"]] == ["Study A"]


def test_a_study_token_lists_only_its_study(client_for: Any, study_token: Any) -> None:
    StudyFactory(name="Other")
    _, secret = study_token(Role.VIEWER)
    body = client_for(token_secret=secret).get("/api/v1/studies/").json()
    assert [(s["name"], s["role"]) for s in body["results"]] == [("Study A", "viewer")]


def test_the_list_is_paginated_ordered_by_name_and_shows_each_role(client_for: Any) -> None:
    user = UserFactory()
    for name, role in [("b", Role.VIEWER), ("a", Role.MANAGER), ("c", Role.ANNOTATOR)]:
        MembershipFactory(user=user, study=StudyFactory(name=name), role=role)
    body = client_for(user).get("/api/v1/studies/?page_size=2").json()
    assert body["count"] == 3
    assert [(s["name"], s["role"]) for s in body["results"]] == [("a", "manager"), ("b", "viewer")]
    assert body["next"] is not None
    body = client_for(user).get("/api/v1/studies/?page_size=2&page=2").json()
    assert [s["name"] for s in body["results"]] == ["c"]


def test_a_manager_renames_the_study(manager_client: APIClient, study: Study) -> None:
    response = manager_client.patch(f"/api/v1/studies/{study.pk}/", {"name": "B"}, format="json")
    assert response.status_code == 200
    assert response.json()["name"] == "B"
    study.refresh_from_db()
    assert study.name == "B"


def test_an_annotator_cannot_change_the_study(annotator_client: APIClient, study: Study) -> None:
    response = annotator_client.patch(f"/api/v1/studies/{study.pk}/", {"name": "B"}, format="json")
    assert response.status_code == 403
    assert response.json()["type"] == "client_error"
    study.refresh_from_db()
    assert study.name == "Study A"


def test_a_manager_deletes_the_study(manager_client: APIClient, study: Study) -> None:
    assert manager_client.delete(f"/api/v1/studies/{study.pk}/").status_code == 204
    assert not Study.objects.filter(pk=study.pk).exists()


def test_a_non_member_gets_404_without_data(outsider_client: APIClient, study: Study) -> None:
    response = outsider_client.get(f"/api/v1/studies/{study.pk}/")
    assert response.status_code == 404
    assert "Study A" not in response.content.decode()
    assert outsider_client.delete(f"/api/v1/studies/{study.pk}/").status_code == 404
    assert Study.objects.filter(pk=study.pk).exists()


def test_an_anonymous_client_gets_401(api_client: APIClient, study: Study) -> None:
    response = api_client.get("/api/v1/studies/")
    assert response.status_code == 401
    assert response.json()["errors"][0]["code"] == "not_authenticated"


def test_a_study_without_a_name_is_rejected_with_the_field_named(
    manager_client: APIClient,
) -> None:
    response = manager_client.post("/api/v1/studies/", {"description": "x"}, format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "validation_error"
    assert body["errors"] == [
        {"code": "required", "detail": "This field is required.", "attr": "name"}
    ]


def test_listing_studies_does_not_query_once_per_study(
    client_for: Any, django_assert_max_num_queries: Any
) -> None:
    user = UserFactory()
    for i in range(20):
        MembershipFactory(user=user, study=StudyFactory(name=f"s{i}"), role=Role.VIEWER)
    client = client_for(user)
    with django_assert_max_num_queries(4):
        body = client.get("/api/v1/studies/").json()
    assert body["count"] == 20
