"""The API's operations as the OpenAPI schema lists them, and a URL for each in the
``World`` of ``tests/api/world.py`` (for tests that walk every operation)."""

from __future__ import annotations

import re
from typing import Any

from drf_spectacular.generators import SchemaGenerator

from tests.api.world import World

METHODS = ("get", "post", "put", "patch", "delete")


def _operations() -> list[tuple[str, str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    return [
        (operation["operationId"], method.upper(), path)
        for path, item in schema["paths"].items()
        for method, operation in item.items()
        if method in METHODS
    ]


#: (operation id, method, path template) of every operation of the schema.
OPERATIONS = _operations()


def _url(world: World, operation_id: str, path: str) -> tuple[str, str, bool]:
    """(concrete URL, the resource of its last ``{id}``, whether every id is a known object).

    An ``{id}`` of a resource the world holds no object of is 999999 (a 404 once the
    request gets that far).
    """
    parts = [p for p in path.strip("/").split("/") if p]
    values: dict[str, Any] = {}
    known = True
    resource = ""
    for index, part in enumerate(parts):
        if not part.startswith("{"):
            continue
        name, owner = part[1:-1], parts[index - 1]
        if owner == "tokens" and parts[2] == "tokens":
            owner = "personal-tokens"
        if name == "study_pk" or owner == "studies":
            values[name] = world.study.pk
        elif name == "question_pk":
            values[name] = world.extra["question"].pk
        elif operation_id == "v1_studies_rounds_reopen_create":
            values[name] = world.extra["closed_round"].pk
        elif owner in world.object_ids:
            values[name] = world.object_ids[owner]
        else:
            known = False
            values[name] = 999_999
        resource = owner
    url = re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)
    return url, resource, known
