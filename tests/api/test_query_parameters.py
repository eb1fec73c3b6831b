"""Every endpoint takes only the query parameters it declares (an unknown one is a 400
naming it), and the OpenAPI schema lists exactly those parameters."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import RequestFactory
from django.urls import resolve
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from studies.api.query import QueryParametersMixin
from tests.api.annotation_setup import annotations_url, build_scheme
from tests.api.operations import OPERATIONS, _url
from tests.api.world import World

pytestmark = pytest.mark.django_db

SCHEMA = SchemaGenerator().get_schema(request=None, public=True)


def _query_parameters(path: str, method: str) -> set[str]:
    operation = SCHEMA["paths"][path][method.lower()]
    return {p["name"] for p in operation.get("parameters", []) if p["in"] == "query"}


@pytest.mark.parametrize(
    ("operation_id", "method", "path"), OPERATIONS, ids=[op[0] for op in OPERATIONS]
)
def test_every_operation_refuses_an_unknown_query_parameter_naming_it(
    world: World, operation_id: str, method: str, path: str
) -> None:
    url, _, _ = _url(world, operation_id, path)
    client = APIClient()
    client.force_authenticate(user=world.users["manager"])

    response = client.generic(
        method, f"{url}?zz_not_a_parameter=1", json.dumps({}), content_type="application/json"
    )

    assert response.status_code == 400, (method, url, response.content[:300])
    errors = response.json()["errors"]
    assert [(e["code"], e["attr"]) for e in errors] == [("unknown_parameter", "zz_not_a_parameter")]
    declared = sorted(_query_parameters(path, method) - {"format"})
    takes = ", ".join(declared) if declared else "none"
    assert errors[0]["detail"] == (
        f"Unknown query parameter 'zz_not_a_parameter'; this endpoint takes {takes}."
    )


@pytest.mark.parametrize(
    ("operation_id", "method", "path"), OPERATIONS, ids=[op[0] for op in OPERATIONS]
)
def test_the_schema_lists_exactly_the_parameters_each_operation_takes(
    world: World, operation_id: str, method: str, path: str
) -> None:
    url, _, _ = _url(world, operation_id, path)
    match = resolve(url)
    view = match.func.cls(**match.func.initkwargs)  # type: ignore[attr-defined]
    actions = getattr(match.func, "actions", None)  # a plain APIView names its own action
    if actions is not None:
        view.action = actions.get(method.lower())
    view.request = RequestFactory().generic(method, url)
    view.kwargs = match.kwargs
    view.format_kwarg = None
    assert isinstance(view, QueryParametersMixin)

    accepted = set(view.accepted_query_parameters())

    # ``format`` (the renderer override) is accepted everywhere; the schema lists it where
    # it chooses between formats (the exports) or names the import format.
    assert accepted - {"format"} == _query_parameters(path, method) - {"format"}


def test_the_annotation_list_documents_its_filters_and_pages() -> None:
    assert _query_parameters("/api/v1/studies/{study_pk}/annotations/", "GET") == {
        "round", "question", "item", "coder", "updated_since", "page", "page_size",
    }  # fmt: skip
    assert _query_parameters("/api/v1/studies/{study_pk}/history/", "GET") == {"question"}
    assert _query_parameters("/api/v1/studies/{study_pk}/comparisons/", "GET") == {
        "question", "status", "page", "page_size",
    }  # fmt: skip
    assert _query_parameters("/api/v1/studies/{study_pk}/questions/", "GET") == {
        "kind", "key", "page", "page_size",
    }  # fmt: skip
    assert _query_parameters("/api/v1/studies/{study_pk}/webhooks/{id}/deliveries/", "GET") == {
        "page", "page_size",
    }  # fmt: skip
    assert _query_parameters("/api/v1/studies/{study_pk}/rounds/{id}/", "GET") == set()


def test_a_question_or_round_parameter_is_documented_as_an_id_or_a_key_or_name() -> None:
    operation = SCHEMA["paths"]["/api/v1/studies/{study_pk}/annotations/"]["get"]
    by_name = {p["name"]: p for p in operation["parameters"]}
    assert by_name["question"]["schema"]["oneOf"] == [
        {"type": "integer", "minimum": 1},
        {"type": "string"},
    ]
    assert "key" in by_name["question"]["description"]
    assert "name" in by_name["round"]["description"]


def test_the_computation_request_body_takes_ids_or_names() -> None:
    body = SCHEMA["components"]["schemas"]["ComputationRequestInputRequest"]["properties"]
    assert body["question"]["oneOf"] == [{"type": "integer", "minimum": 1}, {"type": "string"}]
    assert body["round"]["oneOf"] == [{"type": "integer", "minimum": 1}, {"type": "string"}]
    assert body["rounds"]["items"]["oneOf"] == [
        {"type": "integer", "minimum": 1},
        {"type": "string"},
    ]


def test_pages_and_documented_filters_are_accepted_and_unknown_ones_listed(
    viewer_client: APIClient, study: Any
) -> None:
    build_scheme(study)

    ok = viewer_client.get(annotations_url(study), {"page": 1, "page_size": 10, "item": "doc-1"})
    refused = viewer_client.get(annotations_url(study), {"label": "pos", "sort": "item"})

    assert ok.status_code == 200
    assert refused.status_code == 400
    assert [(e["code"], e["attr"]) for e in refused.json()["errors"]] == [
        ("unknown_parameter", "label"),
        ("unknown_parameter", "sort"),
    ]


def test_a_non_member_gets_404_before_any_parameter_is_checked(
    outsider_client: APIClient, study: Any
) -> None:
    response = outsider_client.get(annotations_url(study), {"zz": "1"})

    assert response.status_code == 404
