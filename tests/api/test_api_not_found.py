"""Every ``/api/`` URL that names nothing answers 404 in the API's JSON error shape, never
Django's HTML page: a URL no route matches, an id or key that does not fit a route's
pattern, and an id or key of an object the study does not hold. Questions are named by id
or key in every path that takes one (``questions/{id}/``, ``questions/{id}/categories/``,
``review-rules/{id}/``), by the rule of ``studies.selectors.question_resolve``.

The routes come from Django's URL resolver (``test_permissions_walk.site_routes``), so a new
route joins this walk by itself.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from studies.models import Study
from tests.api.test_permissions_walk import site_routes
from tests.factories import CategoryFactory, QuestionFactory

pytestmark = pytest.mark.django_db

MISSING_ID = "987654321"
BAD_KEY = "no-such-key"
NOT_SERVED = {
    "type": "client_error",
    "errors": [
        {
            "code": "not_found",
            "detail": "Nothing is served at this URL (see /api/docs/).",
            "attr": None,
        }
    ],
}


def api_routes() -> list[tuple[str, str]]:
    """(method, route) of every API operation whose path names something."""
    operations = []
    for route, methods in sorted(site_routes().items()):
        if not route.startswith("/api/v1/") or "<" not in route:
            continue
        chosen = "GET" if methods is None or "GET" in methods else sorted(methods)[0]
        operations.append((chosen, route))
    return operations


ROUTES = api_routes()


def send(client: APIClient, method: str, url: str) -> Any:
    if method == "GET":
        return client.get(url, HTTP_ACCEPT="application/json")
    return client.generic(method, url, json.dumps({}), content_type="application/json")


def assert_json_404(response: Any, where: str) -> None:
    assert response.status_code == 404, f"{where}: {response.status_code}"
    assert response["Content-Type"].startswith("application/json"), where
    body = response.json()
    assert body["type"] == "client_error", where
    assert [error["code"] for error in body["errors"]] == ["not_found"], where
    assert body["errors"][0]["attr"] is None, where


def test_the_walk_covers_the_nested_routes() -> None:
    routes = {route for _, route in ROUTES}
    assert "/api/v1/studies/<study_pk>/questions/<pk>/" in routes
    assert "/api/v1/studies/<study_pk>/questions/<question_pk>/categories/<pk>/" in routes
    assert "/api/v1/studies/<study_pk>/review-rules/<question_pk>/" in routes
    assert len(routes) > 60


@pytest.mark.parametrize("fill", [MISSING_ID, BAD_KEY], ids=["missing id", "bad key"])
@pytest.mark.parametrize(("method", "route"), ROUTES, ids=[f"{m} {r}" for m, r in ROUTES])
def test_a_url_naming_nothing_answers_the_json_404(
    manager_client: APIClient, study: Study, method: str, route: str, fill: str
) -> None:
    """The study exists (the manager's); every other part of the path names nothing. A
    route whose only parameter is the study names a missing study."""
    names = re.findall(r"<(\w+)>", route)
    only_study = names == ["study_pk"]

    def value(name: str) -> str:
        if name == "study_pk" and not only_study:
            return str(study.pk)
        return fill

    url = re.sub(r"<(\w+)>", lambda match: value(match.group(1)), route)
    assert_json_404(send(manager_client, method, url), f"{method} {url}")


@pytest.mark.parametrize(
    "url",
    [
        "/api/v1/nothing-here/",
        "/api/v1/studies/not-an-id/",
        "/api/v1/studies/1/no-such-resource/",
        "/api/v1/studies/123456789012345678901234/",
    ],
)
@pytest.mark.parametrize("debug", [False, True])
def test_an_unmatched_api_url_answers_json_not_html(
    manager_client: APIClient, settings: Any, url: str, debug: bool
) -> None:
    settings.DEBUG = debug
    response = manager_client.get(url)
    assert response.status_code == 404
    assert response.json() == NOT_SERVED
    assert b"<html" not in response.content.lower()


def test_an_unknown_api_version_is_the_json_404_too(manager_client: APIClient) -> None:
    response = manager_client.get("/api/v2/studies/")
    assert_json_404(response, "/api/v2/")
    assert response.json()["errors"][0]["detail"] == "Invalid version in URL path."


def test_a_page_url_keeps_the_html_404() -> None:
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def test_a_question_is_named_by_key_in_its_paths(manager_client: APIClient, study: Study) -> None:
    question = QuestionFactory(study=study, key="sentiment")
    CategoryFactory(question=question, code="pos")
    base = f"/api/v1/studies/{study.pk}"
    by_key = manager_client.get(f"{base}/questions/sentiment/")
    assert by_key.status_code == 200
    assert by_key.json() == manager_client.get(f"{base}/questions/{question.pk}/").json()
    categories = manager_client.get(f"{base}/questions/sentiment/categories/")
    assert [row["code"] for row in categories.json()["results"]] == ["pos"]
    rule = manager_client.patch(
        f"{base}/review-rules/sentiment/", {"disagreement": True}, format="json"
    )
    assert rule.status_code == 200, rule.content
    assert manager_client.get(f"{base}/review-rules/sentiment/").json()["disagreement"] is True
    renamed = manager_client.patch(f"{base}/questions/sentiment/", {"text": "Tone?"}, format="json")
    assert renamed.status_code == 200
    assert renamed.json()["text"] == "Tone?"


def test_digits_name_a_question_by_id_first_then_by_key(
    manager_client: APIClient, study: Study
) -> None:
    first = QuestionFactory(study=study, key="first")
    # A question whose key is the other question's id: the id wins, as everywhere.
    QuestionFactory(study=study, key=str(first.pk))
    numbered = QuestionFactory(study=study, key="2024")
    base = f"/api/v1/studies/{study.pk}/questions"
    assert manager_client.get(f"{base}/{first.pk}/").json()["key"] == "first"
    if not study.questions.filter(pk=2024).exists():
        assert manager_client.get(f"{base}/2024/").json()["id"] == numbered.pk


def test_another_studys_question_key_is_a_404(manager_client: APIClient, study: Study) -> None:
    QuestionFactory(key="elsewhere")  # in another study
    response = manager_client.get(f"/api/v1/studies/{study.pk}/questions/elsewhere/")
    assert_json_404(response, "another study's key")
    assert response.json()["errors"][0]["detail"] == "No such question in this study."
