"""Schemathesis over the whole OpenAPI schema, against the Django app (WSGI), as a manager
of a populated study: whatever it sends, the server never answers 5xx.

Path ids are pointed at study A's real objects so requests reach the views' logic
instead of stopping at 404; bodies and query strings are generated from the schema.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.api.world import World

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = int(os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "10"))

schema = schemathesis.openapi.from_wsgi("/api/schema/?format=json", get_wsgi_application())
# The coverage phase (every boundary of every parameter, not bounded by max_examples)
# multiplies the run time; CI runs the fuzzing and examples phases. Set
# SCHEMATHESIS_COVERAGE=1 for a long, thorough run.
schema.config.phases.coverage.enabled = os.environ.get("SCHEMATHESIS_COVERAGE") == "1"


@pytest.fixture(autouse=True)
def _keep_the_test_connection() -> Iterator[None]:
    """The WSGI handler closes "old" connections around each request, which would close
    the test's transaction on PostgreSQL; Django's test client does the same as this."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _point_at_real_objects(case: Any, world: World) -> None:
    params = case.path_parameters or {}
    parts = [p for p in case.path.strip("/").split("/") if p]
    for index, part in enumerate(parts):
        if not part.startswith("{"):
            continue
        name = part[1:-1]
        owner = parts[index - 1]
        if name == "study_pk" or owner == "studies":
            params[name] = world.study.pk
        elif name == "question_pk":
            params[name] = world.extra["question"].pk
        elif owner == "tokens" and parts[2] == "tokens":
            params[name] = world.object_ids["personal-tokens"]
        elif owner in world.object_ids:
            params[name] = world.object_ids[owner]
    case.path_parameters = params


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    # The same examples on every run, so CI's verdict does not depend on luck; explore new
    # ones with SCHEMATHESIS_RANDOM=1 (that is how the NUL-in-a-filter 500 was found).
    derandomize=os.environ.get("SCHEMATHESIS_RANDOM") != "1",
    deadline=None,
    suppress_health_check=[
        HealthCheck.function_scoped_fixture,
        HealthCheck.too_slow,
        HealthCheck.filter_too_much,
        HealthCheck.data_too_large,
    ],
)
def test_no_operation_answers_with_a_server_error(case: Any, world: World) -> None:
    _point_at_real_objects(case, world)
    secret = world.extra["manager_token_secret"]
    case.call_and_validate(
        headers={"Authorization": f"Token {secret}"}, checks=[not_a_server_error]
    )
