"""Study tokens and personal tokens: the secret is shown once, stored hashed, revocable."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import ApiToken, Role, Study
from tests.factories import ApiTokenFactory

pytestmark = pytest.mark.django_db


def test_a_manager_creates_a_study_token_and_sees_its_secret_once(
    manager_client: APIClient, study: Study, client_for: Any
) -> None:
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/tokens/",
        {"name": "doccano", "role": "annotator"},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    secret = body["secret"]
    token = ApiToken.objects.get(pk=body["id"])
    assert token.study == study
    assert token.user is None
    assert token.role == Role.ANNOTATOR
    assert token.key_hash == ApiToken.hash_secret(secret)
    assert secret not in (token.key_hash, token.prefix)
    assert body["prefix"] == secret[: ApiToken.PREFIX_LENGTH]
    assert body["created_by"] == "manager_a"

    listed = manager_client.get(f"/api/v1/studies/{study.pk}/tokens/").json()
    assert "secret" not in listed["results"][0]
    assert secret not in str(listed)
    one = manager_client.get(f"/api/v1/studies/{study.pk}/tokens/{token.pk}/").json()
    assert set(one) == {
        "id",
        "name",
        "prefix",
        "role",
        "created_by",
        "created_at",
        "last_used_at",
        "expires_at",
        "revoked_at",
        "is_active",
    }

    tool = client_for(token_secret=secret)
    assert tool.get(f"/api/v1/studies/{study.pk}/items/").status_code == 200
    token.refresh_from_db()
    assert token.last_used_at is not None


def test_a_revoked_study_token_stops_working(
    manager_client: APIClient, study: Study, study_token: Any, client_for: Any
) -> None:
    token, secret = study_token(Role.ANNOTATOR)
    response = manager_client.post(f"/api/v1/studies/{study.pk}/tokens/{token.pk}/revoke/")
    assert response.status_code == 200
    assert response.json()["is_active"] is False
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert client_for(token_secret=secret).get("/api/v1/studies/").status_code == 401
    again = manager_client.post(f"/api/v1/studies/{study.pk}/tokens/{token.pk}/revoke/")
    assert again.status_code == 409
    assert again.json()["errors"][0]["code"] == "already_revoked"


def test_only_managers_see_study_tokens(annotator_client: APIClient, study: Study) -> None:
    ApiTokenFactory(study=study, user=None)
    assert annotator_client.get(f"/api/v1/studies/{study.pk}/tokens/").status_code == 403


def test_a_user_manages_personal_tokens(client_for: Any, manager: Any, viewer: Any) -> None:
    client = client_for(manager)
    response = client.post("/api/v1/tokens/", {"name": "laptop"}, format="json")
    assert response.status_code == 201
    secret = response.json()["secret"]
    token = ApiToken.objects.get(pk=response.json()["id"])
    assert (token.user, token.study) == (manager, None)

    listed = client.get("/api/v1/tokens/").json()
    assert [t["name"] for t in listed["results"]] == ["laptop"]
    assert secret not in str(listed)
    assert client_for(viewer).get("/api/v1/tokens/").json()["count"] == 0
    assert client_for(viewer).get(f"/api/v1/tokens/{token.pk}/").status_code == 404

    assert client_for(token_secret=secret).get("/api/v1/studies/").status_code == 200
    assert client.post(f"/api/v1/tokens/{token.pk}/revoke/").status_code == 200
    assert client_for(token_secret=secret).get("/api/v1/studies/").status_code == 401


def test_a_study_token_has_no_personal_tokens(client_for: Any, study_token: Any) -> None:
    _, secret = study_token(Role.MANAGER)
    response = client_for(token_secret=secret).get("/api/v1/tokens/")
    assert response.status_code == 403
    assert response.json()["errors"][0]["code"] == "permission_denied"
