"""No page and no API read computes: every number they show was stored by a worker.

A study with finished computations (and a finished comparison of two rounds) is built with
the real engine; then every entry point that computes agreement is made to raise (the
``computations.engine`` steps, every function of the ``metrics`` library except the
interpretation of a stored value, the reading of a scope's annotations as arrays, the
comparison of two rounds, the per-item diagnostics of the item downloads) wherever a
module holds it, and every GET route of the site,
pages and API, is read as the study's manager. Each must answer below 400 (the sign-in
page redirects a signed-in user).
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Iterator
from types import FunctionType
from typing import Any

import pytest
from django.db import transaction
from rest_framework.test import APIClient

from tests.api import test_permissions_walk as walk
from tests.api.world import build_world

pytestmark = pytest.mark.django_db

#: The engine's steps that compute (the others name parameters or versions).
ENGINE_STEPS = (
    "reliability_data",
    "point_report",
    "diagnostics",
    "add_analytic_se",
    "decompositions",
    "bootstrap_chunk",
    "bootstrap_chunks",
    "bootstrap_combine",
    "difference",
    "coder_quality",
    "span_report",
    "span_decompositions",
    "decomposition_rows",
    "model_groups",
    "model_alt_test",
    "model_ppi",
)
#: Reading a stored value in words is what pages do with the library; nothing else.
METRICS_ALLOWED_MODULES = ("metrics.uncertainty.interpretation",)
READS = ("computations.scope.scope_annotations", "computations.scope.scope_spans")
#: The per-item diagnostics behind ``exports/diagnostics/`` and the page's ``items.csv``:
#: the worker stores them with the computation; the downloads only read them.
ITEM_TABLE = (
    "computations.item_table.item_diagnostics",
    "computations.item_table.store_item_table",
)
COMPARING = (
    "computations.comparison.rounds_compare",
    "computations.comparison.comparison_with_previous",
)
PROJECT = ("pages", "computations", "studies", "annotations", "exchange", "review", "metrics")


class ComputedInReadError(AssertionError):
    pass


def _forbidden() -> dict[int, str]:
    """id() of every function a read must not call, with its dotted name."""
    import computations.comparison
    import computations.engine
    import computations.item_table
    import computations.scope

    found: dict[int, str] = {}
    for name in ENGINE_STEPS:
        found[id(getattr(computations.engine, name))] = f"computations.engine.{name}"
    for dotted in (*READS, *COMPARING, *ITEM_TABLE):
        module, _, name = dotted.rpartition(".")
        found[id(getattr(sys.modules[module], name))] = dotted
    for module_name, module in list(sys.modules.items()):
        if not module_name.startswith("metrics") or module_name in METRICS_ALLOWED_MODULES:
            continue
        for name, value in vars(module).items():
            if isinstance(value, FunctionType) and value.__module__ == module_name:
                found[id(value)] = f"{module_name}.{name}"
    return found


def _refusing(name: str) -> Any:
    def refuse(*_: Any, **__: Any) -> Any:
        raise ComputedInReadError(f"a read called {name}")

    return refuse


def _get_routes() -> list[str]:
    return sorted(route for method, route in walk.ACCESS if method == "GET")


@pytest.fixture
def populated(db: None) -> Iterator[walk.Site]:
    """The permission walk's study: finished computations of two rounds, a review queue, a
    span question, a webhook, and a finished comparison of the two rounds."""
    with transaction.atomic():
        world = build_world()
        site = walk.Site(world=world, ids=walk._extend(world))
        yield site
        transaction.set_rollback(True)


def test_every_get_route_answers_without_computing(
    populated: walk.Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    forbidden = _forbidden()
    replaced = []
    for module_name, module in list(sys.modules.items()):
        if module_name.split(".")[0] not in PROJECT or not inspect.ismodule(module):
            continue
        for attribute, value in list(vars(module).items()):
            if isinstance(value, FunctionType) and id(value) in forbidden:
                monkeypatch.setattr(module, attribute, _refusing(forbidden[id(value)]))
                replaced.append(f"{module_name}.{attribute}")
    # The guard holds: the engine and the library are really out of reach.
    assert "computations.engine.point_report" in replaced
    assert "computations.comparison.rounds_compare" in replaced
    assert "metrics.report.report" in replaced
    assert "computations.item_table.item_diagnostics" in replaced
    # The two item downloads are among the routes read.
    routes = _get_routes()
    assert any(route.endswith("/exports/diagnostics/") for route in routes)
    assert any(route.endswith("/items.csv") for route in routes)

    site = populated
    client = APIClient()
    client.force_login(site.world.users["manager"])
    calls = walk._calls(site)
    question = site.ids["question"]
    extra = [
        f"/studies/{site.world.study.pk}/rounds/{round_.pk}/?question={question.pk}"
        for round_ in site.ids["rounds"]
    ]
    urls = []
    for route in _get_routes():
        call = calls.get(("GET", route), walk.Call())
        params = {**walk._params(site, route), **call.params}
        url = re.sub(r"<(\w+)>", lambda m, p=params: str(p[m.group(1)]), route)
        if call.query:
            url += "?" + "&".join(f"{key}={value}" for key, value in call.query.items())
        urls.append(url)
    for url in [*urls, *extra]:
        response = client.get(url, HTTP_ACCEPT="application/json, */*")
        assert response.status_code < 400, (url, response.status_code, response.content[:300])
