"""Walk EVERY operation of the generated OpenAPI schema as every kind of actor.

For a study A (with one object of each kind) and each operation, as: an anonymous client;
a viewer, an annotator and a manager of A; a study token of A with each role; and a
manager of another study B. It asserts:

- anonymous → 401;
- a non-member → 404, with nothing of A in the body;
- a role below what the operation needs → 403 (and nothing changes);
- a role that may do it → not 401/403/404 and no 5xx (2xx where a valid body is known).

Routes added later (annotations, computations, …) are walked automatically because the
walk reads the schema. To make their checks strict, add the object their ``{id}`` means
to ``World.object_ids`` and a valid body to ``BODIES``; the role an unknown resource needs
is read from its view (``StudyScopedMixin.required_role``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.test import RequestFactory
from django.urls import resolve
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from studies.api.permissions import StudyScopedMixin
from studies.models import Category, Role
from tests.api.world import MARK, World

pytestmark = pytest.mark.django_db

METHODS = ("get", "post", "put", "patch", "delete")


def _operations() -> list[tuple[str, str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (operation["operationId"], method.upper(), path)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


OPERATIONS = _operations()

# The role each known resource needs to write (reads need viewer, unless READ_ROLE says
# more). Resources not listed here are asked what they require (their view's
# ``required_role()``), so new routes are walked at once.
WRITE_ROLE = {
    "studies": Role.MANAGER,
    "members": Role.MANAGER,
    "tokens": Role.MANAGER,
    "questions": Role.MANAGER,
    "categories": Role.MANAGER,
    "rounds": Role.MANAGER,
    "coders": Role.ANNOTATOR,
    "items": Role.ANNOTATOR,
    "annotations": Role.ANNOTATOR,
}
READ_ROLE = {"tokens": Role.MANAGER}
RANK = {Role.VIEWER: 0, Role.ANNOTATOR: 1, Role.MANAGER: 2}


def _reorder_body(world: World) -> dict[str, Any]:
    codes = list(
        Category.objects.filter(question=world.extra["question"]).values_list("code", flat=True)
    )
    return {"codes": codes[::-1]}


def _bulk_annotations_body(world: World) -> dict[str, Any]:
    question, round_, item, coder, category = world.extra["used"]
    return {
        "round": round_.pk,
        "question": question.key,
        "annotations": [{"item": item.external_id, "coder": coder.key, "label": category.code}],
    }


# A valid body per operation id (a callable gets the world). Unknown operations get {}.
BODIES: dict[str, Any] = {
    "v1_studies_create": {"name": "New study"},
    "v1_studies_partial_update": {"name": "Renamed"},
    "v1_studies_members_create": {"username": "newcomer", "role": "viewer"},
    "v1_studies_members_partial_update": {"role": "annotator"},
    "v1_studies_tokens_create": {"name": "tool", "role": "annotator"},
    "v1_studies_questions_create": {
        "key": "new-question",
        "kind": "hierarchy",
        "categories": [{"code": "a"}, {"code": "b", "parent": "a"}],
    },
    "v1_studies_questions_partial_update": {"text": "Changed?"},
    "v1_studies_questions_categories_create": {"code": "new", "parent": "root"},
    "v1_studies_questions_categories_partial_update": {"label": "Leaf"},
    "v1_studies_questions_categories_reorder_create": _reorder_body,
    "v1_studies_coders_create": {"key": "new-coder"},
    "v1_studies_coders_bulk_create": [{"key": "bulk-1"}, {"key": "bulk-2"}],
    "v1_studies_coders_partial_update": {"name": "Renamed"},
    "v1_studies_items_create": {"external_id": "new-item"},
    "v1_studies_items_bulk_create": [{"external_id": "bulk-1"}, {"external_id": "bulk-2"}],
    "v1_studies_items_partial_update": {"text": "Changed"},
    "v1_studies_rounds_create": {"name": "New round"},
    "v1_studies_rounds_partial_update": {"name": "Renamed round"},
    "v1_studies_rounds_close_create": {},
    "v1_studies_annotations_bulk_create": _bulk_annotations_body,
    "v1_tokens_create": {"name": "mine"},
}
# Operations whose {id} means another object than the resource's usual one.
ID_OVERRIDES: dict[str, Callable[[World], Any]] = {
    "v1_studies_rounds_reopen_create": lambda w: w.extra["closed_round"].pk,
}

ACTORS = [
    "anonymous",
    "viewer",
    "annotator",
    "manager",
    "token:viewer",
    "token:annotator",
    "token:manager",
    "outsider",
]


def _segment_of(path: str) -> tuple[str, list[str]]:
    """The resource an operation acts on ("items"), and its path's parts.

    A plain last segment after a parent's ``{..._pk}`` is a collection; after the
    resource's own ``{id}`` it is a detail action (``close``); after another plain segment
    it is a list action (``bulk``).
    """
    parts = [p for p in path.strip("/").split("/") if p]
    if parts[2:3] == ["tokens"]:
        return "personal-tokens", parts
    last, before = parts[-1], parts[-2]
    if last.startswith("{"):
        return before, parts
    if before.startswith("{") and before.endswith("_pk}"):
        return last, parts
    if before.startswith("{"):
        return parts[-3], parts
    return (before if len(parts) > 3 else last), parts


def _url(world: World, operation_id: str, path: str) -> tuple[str, str, bool]:
    """(concrete URL, resource name, whether every id is a known object)."""
    segment, parts = _segment_of(path)
    known = True
    values: dict[str, Any] = {}
    for index, part in enumerate(parts):
        if not part.startswith("{"):
            continue
        name = part[1:-1]
        owner = parts[index - 1]
        if owner == "tokens" and parts[2] == "tokens":
            owner = "personal-tokens"
        if name == "study_pk" or owner == "studies":
            values[name] = world.study.pk
        elif name == "question_pk":
            values[name] = world.extra["question"].pk
        elif operation_id in ID_OVERRIDES:
            values[name] = ID_OVERRIDES[operation_id](world)
        elif owner in world.object_ids:
            values[name] = world.object_ids[owner]
        else:
            known = False
            values[name] = 999_999
    url = re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)
    return url, segment, known


def _needed_role(method: str, segment: str, url: str) -> Role:
    if segment in WRITE_ROLE:
        if method == "GET":
            return READ_ROLE.get(segment, Role.VIEWER)
        return WRITE_ROLE[segment]
    # A resource this table does not know yet: ask its view what it requires.
    match = resolve(url)
    cls = match.func.cls  # type: ignore[attr-defined]
    if not issubclass(cls, StudyScopedMixin):
        return Role.MANAGER
    view = cls(**match.func.initkwargs)  # type: ignore[attr-defined]
    view.action = match.func.actions.get(method.lower())  # type: ignore[attr-defined]
    view.request = RequestFactory().generic(method, url)
    view.kwargs = match.kwargs
    return view.required_role()


def _client(world: World, actor: str) -> APIClient:
    client = APIClient()
    if actor.startswith("token:"):
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.token_secrets[actor[6:]]}")
    elif actor != "anonymous":
        client.force_authenticate(user=world.users[actor])
    return client


def _request(client: APIClient, method: str, url: str, body: Any) -> Any:
    if method in ("GET", "DELETE"):
        return getattr(client, method.lower())(url)
    return client.generic(method, url, json.dumps(body), content_type="application/json")


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize(
    ("operation_id", "method", "path"), OPERATIONS, ids=[op[0] for op in OPERATIONS]
)
def test_every_operation_answers_each_actor_as_its_role_allows(
    world: World, operation_id: str, method: str, path: str, actor: str
) -> None:
    url, segment, known = _url(world, operation_id, path)
    body = BODIES.get(operation_id, {})
    if callable(body):
        body = body(world)
    response = _request(_client(world, actor), method, url, body)
    status = response.status_code
    text = response.content.decode(errors="replace")
    where = f"{actor} {method} {url} -> {status}: {text[:300]}"

    assert status < 500, where
    if actor == "anonymous":
        assert status == 401, where
        assert response.json()["errors"][0]["code"] == "not_authenticated", where
        return
    if segment == "personal-tokens":
        _check_personal_tokens(actor, method, path, status, text, where)
        return
    if path in ("/api/v1/studies/",):
        _check_study_collection(actor, method, status, text, where)
        return
    if actor == "outsider":
        assert status == 404, where
        assert MARK not in text, where
        return

    role = Role(actor.split(":")[-1])
    needed = _needed_role(method, segment, url)
    if RANK[role] < RANK[needed]:
        assert status == 403, where
        assert response.json()["errors"][0]["code"] == "permission_denied", where
        assert MARK not in text or method == "GET", where
        return
    assert status not in (401, 403), where
    if known:
        assert status != 404, where
    if known and operation_id in BODIES:
        assert 200 <= status < 300, where


def _check_study_collection(actor: str, method: str, status: int, text: str, where: str) -> None:
    if method == "GET":
        assert status == 200, where
        assert (MARK in text) is (actor != "outsider"), where
    elif actor.startswith("token:"):
        assert status == 403, where
    else:
        assert status == 201, where


def _check_personal_tokens(
    actor: str, method: str, path: str, status: int, text: str, where: str
) -> None:
    """/tokens/: a user's own tokens. Study tokens have none (403); on a detail route,
    anyone but the owner (the manager) gets 404."""
    if actor.startswith("token:"):
        assert status == 403, where
    elif path.rstrip("/").endswith("tokens"):
        assert 200 <= status < 300, where
        assert (MARK in text) is (actor == "manager" and method == "GET"), where
    elif actor == "manager":
        assert 200 <= status < 300, where
    else:
        assert status == 404, where
        assert MARK not in text, where


def test_the_walk_covers_every_resource_of_the_api() -> None:
    """New routes must at least be walked: their ids fall back to an unknown object."""
    segments = {_segment_of(path)[0] for _, _, path in OPERATIONS}
    assert {
        "studies",
        "members",
        "tokens",
        "personal-tokens",
        "questions",
        "categories",
    } <= segments
    assert {"coders", "items", "rounds", "annotations"} <= segments
