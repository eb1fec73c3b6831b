"""The OpenAPI document builds without a warning, validates, and the docs work offline."""

from __future__ import annotations

import re
from io import StringIO

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db


def test_the_schema_validates_with_no_warning(tmp_path: object) -> None:
    out = StringIO()
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--format", "openapi-json", stdout=out
    )
    assert '"openapi"' in out.getvalue()


def test_the_schema_is_served_and_documents_every_v1_route(api_client: APIClient) -> None:
    response = api_client.get("/api/schema/?format=json")
    assert response.status_code == 200
    paths = response.json()["paths"]
    assert "/api/v1/studies/{study_pk}/questions/{question_pk}/categories/" in paths
    assert "/api/v1/tokens/{id}/revoke/" in paths
    for path, item in paths.items():
        for method, operation in item.items():
            if method in ("get", "post", "patch", "delete", "put"):
                assert operation.get("summary") or operation.get("description"), (method, path)
                for parameter in operation.get("parameters", []):
                    if parameter["in"] == "path":
                        assert parameter["schema"]["type"] in ("integer", "string"), path


def test_swagger_ui_is_served_without_any_cdn(api_client: APIClient) -> None:
    response = api_client.get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "swagger-ui" in page
    external = re.findall(r"""(?:src|href)=["'](https?://[^"']+)""", page)
    assert external == []
    for cdn in ("cdn.jsdelivr", "unpkg.com", "cdnjs"):
        assert cdn not in page
    assets = re.findall(r"""(?:src|href)=["'](/[^"']+\.(?:js|css))""", page)
    assert assets, "the page loads its scripts from this server"
