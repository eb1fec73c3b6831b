"""Walk every route of the site (API, pages, downloads) as every kind of actor.

The rule each operation follows is written below, in ``ACCESS``, by hand: it is the
specification, never read from the views (so a view that asks for the wrong role fails
here instead of agreeing with itself). The routes come from Django's URL resolver: a route
missing from ``ACCESS`` fails ``test_every_route_has_a_rule``, and a rule for a route that
is gone fails it too.

One study A, built once per module (changes are rolled back after every request), holds
one object of each kind. Actors: anonymous; a viewer, an annotator and a manager of A
(signed in); the manager through a personal token; a study token of A with each role; and
a manager of another study B (``outsider``). For each rule:

- study API rule (role R): anonymous 401; outsider 404 with nothing of A in the body; a
  role below R 403; a study token on a people-only operation 403; everyone else 2xx;
- ``ANY_ACTOR``: anonymous 401, everyone else 2xx;
- ``PEOPLE``: a signed-in user or personal token 2xx; study tokens 403; anonymous 401;
- ``OWNER`` (one personal token of the manager): the manager 2xx, other users 404, study
  tokens 403, anonymous 401;
- pages and downloads (role R): anonymous and study tokens (pages take no token) are sent
  to the sign-in page; outsider 404; a role below R 403; others 2xx;
- ``PUBLIC``: anything below 400 for everyone;
- ``CONNECTION_SECRET`` (Label Studio's webhook): 2xx for anyone who sends the
  connection's secret, signed in or not (its refusals are in
  ``tests/connections/test_services_connections.py``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import transaction
from django.test import TestCase
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from adjudication.models import ReferenceResult
from adjudication.services import adjudicate
from computations.comparison_requests import comparison_request
from computations.models import Computation, ComputationStatus
from computations.services import computation_request
from connections.models import LabelStudioConnection
from connections.secrets import token_encrypt, webhook_secret_hash
from connections.services import SECRET_HEADER
from planning.services import plan_request_create
from review.models import ReviewEntry
from review.services import review_rule_set
from studies.models import Category, CoderKind, ItemImage, LabelKind, Role, SpanUnit
from tests.api.world import MARK, World, build_world
from tests.computations.helpers import label_round, nominal_question, random_table
from tests.connections.fake import FakeLabelStudio
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)
from tests.image_files import png
from webhooks.services import webhook_endpoint_create

pytestmark = pytest.mark.django_db

PNG_3X2 = png(3, 2)


@dataclass(frozen=True)
class Rule:
    """Who may do an operation: ``kind`` of rule and, for study rules, the least role."""

    kind: str
    role: Role | None = None
    people_only: bool = False


VIEWER = Rule("study", Role.VIEWER)
ANNOTATOR = Rule("study", Role.ANNOTATOR)
MANAGER = Rule("study", Role.MANAGER)
MANAGER_IN_PERSON = Rule("study", Role.MANAGER, people_only=True)
ANY_ACTOR = Rule("any actor")
PEOPLE = Rule("people")
OWNER = Rule("owner")
PAGE_VIEWER = Rule("page", Role.VIEWER)
PAGE_ANNOTATOR = Rule("page", Role.ANNOTATOR)
PAGE_MANAGER = Rule("page", Role.MANAGER)
PAGE_SIGNED_IN = Rule("signed-in page")
PUBLIC = Rule("public")
CONNECTION_SECRET = Rule("connection secret")

S = "/api/v1/studies/<study_pk>"
R = "/studies/<study_pk>/rounds/<round_pk>/questions/<question_pk>"

# The specification: (method, route) -> rule. Routes as the resolver gives them, with
# every parameter written <name>.
ACCESS: dict[tuple[str, str], Rule] = {
    ("GET", "/api/v1/"): ANY_ACTOR,
    ("GET", "/api/v1/studies/"): ANY_ACTOR,
    ("POST", "/api/v1/studies/"): PEOPLE,
    ("GET", "/api/v1/studies/<pk>/"): VIEWER,
    ("PATCH", "/api/v1/studies/<pk>/"): MANAGER,
    ("DELETE", "/api/v1/studies/<pk>/"): MANAGER,
    ("GET", f"{S}/members/"): VIEWER,
    ("POST", f"{S}/members/"): MANAGER_IN_PERSON,
    ("GET", f"{S}/members/<username>/"): VIEWER,
    ("PATCH", f"{S}/members/<username>/"): MANAGER_IN_PERSON,
    ("DELETE", f"{S}/members/<username>/"): MANAGER_IN_PERSON,
    ("GET", f"{S}/tokens/"): MANAGER,
    ("POST", f"{S}/tokens/"): MANAGER_IN_PERSON,
    ("GET", f"{S}/tokens/<pk>/"): MANAGER,
    ("POST", f"{S}/tokens/<pk>/revoke/"): MANAGER_IN_PERSON,
    ("GET", f"{S}/questions/"): VIEWER,
    ("POST", f"{S}/questions/"): MANAGER,
    ("GET", f"{S}/questions/<pk>/"): VIEWER,
    ("PATCH", f"{S}/questions/<pk>/"): MANAGER,
    ("DELETE", f"{S}/questions/<pk>/"): MANAGER,
    ("GET", f"{S}/questions/<pk>/distances/"): VIEWER,
    ("POST", f"{S}/questions/<pk>/distances/"): MANAGER,
    ("DELETE", f"{S}/questions/<pk>/distances/"): MANAGER,
    ("GET", f"{S}/questions/<question_pk>/categories/"): VIEWER,
    ("POST", f"{S}/questions/<question_pk>/categories/"): MANAGER,
    ("POST", f"{S}/questions/<question_pk>/categories/reorder/"): MANAGER,
    ("GET", f"{S}/questions/<question_pk>/categories/<pk>/"): VIEWER,
    ("PATCH", f"{S}/questions/<question_pk>/categories/<pk>/"): MANAGER,
    ("DELETE", f"{S}/questions/<question_pk>/categories/<pk>/"): MANAGER,
    ("GET", f"{S}/coders/"): VIEWER,
    ("POST", f"{S}/coders/"): ANNOTATOR,
    ("POST", f"{S}/coders/bulk/"): ANNOTATOR,
    ("GET", f"{S}/coders/<pk>/"): VIEWER,
    ("PATCH", f"{S}/coders/<pk>/"): ANNOTATOR,
    ("DELETE", f"{S}/coders/<pk>/"): ANNOTATOR,
    ("GET", f"{S}/coders/<pk>/versions/"): VIEWER,
    ("POST", f"{S}/coders/<pk>/versions/"): ANNOTATOR,
    ("GET", f"{S}/items/"): VIEWER,
    ("POST", f"{S}/items/"): ANNOTATOR,
    ("POST", f"{S}/items/bulk/"): ANNOTATOR,
    ("GET", f"{S}/items/<pk>/"): VIEWER,
    ("PATCH", f"{S}/items/<pk>/"): ANNOTATOR,
    ("DELETE", f"{S}/items/<pk>/"): ANNOTATOR,
    ("GET", f"{S}/items/<pk>/image/"): VIEWER,
    ("POST", f"{S}/items/<pk>/image/"): ANNOTATOR,
    ("DELETE", f"{S}/items/<pk>/image/"): ANNOTATOR,
    ("GET", f"{S}/rounds/"): VIEWER,
    ("POST", f"{S}/rounds/"): MANAGER,
    ("GET", f"{S}/rounds/<pk>/"): VIEWER,
    ("PATCH", f"{S}/rounds/<pk>/"): MANAGER,
    ("DELETE", f"{S}/rounds/<pk>/"): MANAGER,
    ("POST", f"{S}/rounds/<pk>/close/"): MANAGER,
    ("POST", f"{S}/rounds/<pk>/reopen/"): MANAGER,
    ("GET", "/api/v1/tokens/"): PEOPLE,
    ("POST", "/api/v1/tokens/"): PEOPLE,
    ("GET", "/api/v1/tokens/<pk>/"): OWNER,
    ("POST", "/api/v1/tokens/<pk>/revoke/"): OWNER,
    ("GET", f"{S}/annotations/"): VIEWER,
    ("POST", f"{S}/annotations/bulk/"): ANNOTATOR,
    ("POST", f"{S}/annotations/spans/"): ANNOTATOR,
    ("POST", f"{S}/annotations/structured/"): ANNOTATOR,
    ("GET", f"{S}/annotations/<pk>/"): VIEWER,
    ("DELETE", f"{S}/annotations/<pk>/"): ANNOTATOR,
    ("GET", f"{S}/annotation-changes/"): VIEWER,
    ("POST", f"{S}/imports/"): ANNOTATOR,
    ("GET", f"{S}/imports/formats/"): VIEWER,
    ("GET", f"{S}/exports/annotations/"): VIEWER,
    ("GET", f"{S}/exports/diagnostics/"): VIEWER,
    ("GET", f"{S}/exports/results/"): VIEWER,
    ("GET", f"{S}/exports/spans/"): VIEWER,
    ("GET", f"{S}/exports/structured/"): VIEWER,
    ("GET", f"{S}/computations/"): VIEWER,
    ("POST", f"{S}/computations/"): ANNOTATOR,
    ("GET", f"{S}/computations/<pk>/"): VIEWER,
    ("GET", f"{S}/history/"): VIEWER,
    ("GET", f"{S}/history/coders/"): VIEWER,
    ("GET", f"{S}/history/models/"): VIEWER,
    ("GET", f"{S}/comparisons/"): VIEWER,
    ("POST", f"{S}/comparisons/"): ANNOTATOR,
    ("GET", f"{S}/comparisons/<pk>/"): VIEWER,
    ("GET", f"{S}/webhooks/"): MANAGER,
    ("POST", f"{S}/webhooks/"): MANAGER,
    ("GET", f"{S}/webhooks/<pk>/"): MANAGER,
    ("PATCH", f"{S}/webhooks/<pk>/"): MANAGER,
    ("DELETE", f"{S}/webhooks/<pk>/"): MANAGER,
    ("GET", f"{S}/webhooks/<pk>/deliveries/"): MANAGER,
    ("POST", f"{S}/webhooks/<pk>/ping/"): MANAGER,
    ("POST", f"{S}/webhooks/<pk>/rotate-secret/"): MANAGER,
    ("GET", f"{S}/review-rules/"): VIEWER,
    ("GET", f"{S}/review-rules/<question_pk>/"): VIEWER,
    ("PATCH", f"{S}/review-rules/<question_pk>/"): MANAGER,
    ("DELETE", f"{S}/review-rules/<question_pk>/"): MANAGER,
    ("GET", f"{S}/review/"): VIEWER,
    ("GET", f"{S}/review/<pk>/"): VIEWER,
    ("POST", f"{S}/review/<pk>/resolve/"): ANNOTATOR,
    ("GET", f"{S}/review/csv/"): VIEWER,
    ("GET", f"{S}/review/label-studio/"): VIEWER,
    ("GET", f"{S}/adjudications/"): VIEWER,
    ("POST", f"{S}/adjudications/"): MANAGER,
    ("GET", f"{S}/adjudications/<pk>/"): VIEWER,
    ("PATCH", f"{S}/adjudications/<pk>/"): MANAGER,
    ("GET", f"{S}/round-references/"): VIEWER,
    ("GET", f"{S}/round-references/<round_pk>/"): VIEWER,
    ("PATCH", f"{S}/round-references/<round_pk>/"): MANAGER,
    ("GET", f"{S}/reference-results/"): VIEWER,
    ("GET", f"{S}/reference-results/<pk>/"): VIEWER,
    ("GET", f"{S}/reference-results/history/"): VIEWER,
    ("GET", f"{S}/plans/"): VIEWER,
    ("POST", f"{S}/plans/"): MANAGER,
    ("GET", f"{S}/plans/<pk>/"): VIEWER,
    ("GET", f"{S}/label-studio-connections/"): MANAGER,
    ("POST", f"{S}/label-studio-connections/"): MANAGER,
    ("GET", f"{S}/label-studio-connections/<pk>/"): MANAGER,
    ("PATCH", f"{S}/label-studio-connections/<pk>/"): MANAGER,
    ("DELETE", f"{S}/label-studio-connections/<pk>/"): MANAGER,
    ("POST", f"{S}/label-studio-connections/<pk>/test/"): MANAGER,
    ("POST", f"{S}/label-studio-connections/<pk>/sync/"): MANAGER,
    ("GET", f"{S}/label-studio-connections/<pk>/syncs/"): MANAGER,
    ("GET", f"{S}/label-studio-connections/<pk>/events/"): MANAGER,
    ("POST", f"{S}/label-studio-connections/<pk>/rotate-secret/"): MANAGER,
    ("POST", f"{S}/label-studio-connections/<pk>/send/"): MANAGER,
    # The site: pages and downloads.
    ("GET", "/"): PAGE_SIGNED_IN,
    ("GET", "/help/<name>/"): PAGE_SIGNED_IN,
    ("GET", "/studies/new/"): PAGE_SIGNED_IN,
    ("POST", "/studies/new/"): PAGE_SIGNED_IN,
    ("GET", "/studies/<study_pk>/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/edit/"): PAGE_MANAGER,
    ("GET", "/studies/<study_pk>/history/"): PAGE_VIEWER,
    ("POST", "/studies/<study_pk>/edit/"): PAGE_MANAGER,
    ("GET", "/studies/<study_pk>/report/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/report.<fmt>"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/rounds/<round_pk>/report/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/rounds/<round_pk>/report.<fmt>"): PAGE_VIEWER,
    ("POST", "/studies/<study_pk>/computations/request/"): PAGE_ANNOTATOR,
    ("GET", "/studies/<study_pk>/computations/pending/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/computations/<computation_pk>/status/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/rounds/<round_pk>/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/coders/<coder_pk>/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/items/<item_pk>/image"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/models/<coder_pk>/"): PAGE_VIEWER,
    ("GET", "/studies/<study_pk>/plans/"): PAGE_VIEWER,
    ("POST", "/studies/<study_pk>/plans/request/"): PAGE_MANAGER,
    ("GET", f"{R}/results.<fmt>"): PAGE_VIEWER,
    ("GET", f"{R}/items.csv"): PAGE_VIEWER,
    ("GET", f"{R}/items/"): PAGE_VIEWER,
    ("GET", f"{R}/review/"): PAGE_VIEWER,
    ("GET", f"{R}/adjudication/"): PAGE_VIEWER,
    ("POST", f"{R}/adjudication/decide/"): PAGE_MANAGER,
    ("GET", f"{R}/reference/"): PAGE_VIEWER,
    ("POST", f"{R}/reference/request/"): PAGE_ANNOTATOR,
    ("GET", f"{R}/items/<item_pk>/"): PAGE_VIEWER,
    ("GET", f"{R}/images/<item_pk>/"): PAGE_VIEWER,
    ("GET", f"{R}/annotations-<layout>.csv"): PAGE_VIEWER,
    ("POST", "/studies/<study_pk>/label-studio/connect/"): PAGE_MANAGER,
    ("POST", "/studies/<study_pk>/label-studio/<connection_pk>/test/"): PAGE_MANAGER,
    ("POST", "/studies/<study_pk>/label-studio/<connection_pk>/sync/"): PAGE_MANAGER,
    # Label Studio's webhook: the connection's secret, not a session or token.
    ("POST", "/hooks/label-studio/<connection_pk>/"): CONNECTION_SECRET,
    # Open to all: the API's description and signing in and out.
    ("GET", "/api/schema/"): PUBLIC,
    ("GET", "/api/docs/"): PUBLIC,
    # A personal token for a username and password (the body, not the caller, signs in).
    ("POST", "/api/v1/auth/token/"): PUBLIC,
    ("GET", "/accounts/login/"): PUBLIC,
    ("POST", "/accounts/logout/"): PUBLIC,
}

# The Django admin has its own staff-only access (tests/studies/test_admin.py).
NOT_WALKED_PREFIXES = ("/admin/",)

ACTORS = [
    "anonymous",
    "outsider",
    "viewer",
    "annotator",
    "manager",
    "personal:manager",
    "token:viewer",
    "token:annotator",
    "token:manager",
]
RANK = {Role.VIEWER: 0, Role.ANNOTATOR: 1, Role.MANAGER: 2}


# --- Routes from the resolver --------------------------------------------------------------


def _named_groups_to_names(regex: str) -> str:
    """``(?P<pk>[0-9]{1,18})`` -> ``<pk>``, with nested parentheses in the group."""
    out, index = [], 0
    while index < len(regex):
        if regex.startswith("(?P<", index):
            name_end = regex.index(">", index)
            name = regex[index + 4 : name_end]
            depth, index = 1, name_end + 1
            while depth:
                depth += {"(": 1, ")": -1}.get(regex[index], 0)
                index += 1
            out.append(f"<{name}>")
        else:
            out.append(regex[index])
            index += 1
    return "".join(out)


def _route_text(pattern: Any) -> str:
    text = str(pattern.pattern)
    text = re.sub(r"<(?:\w+:)?(\w+)>", r"<\1>", text)  # path converters: <id:study_pk>
    text = _named_groups_to_names(text)
    return text.replace("^", "").replace("$", "").replace("\\", "")


def _walk(patterns: list[Any], prefix: str = "/") -> Iterator[tuple[str, URLPattern]]:
    for pattern in patterns:
        route = prefix + _route_text(pattern)
        if isinstance(pattern, URLResolver):
            yield from _walk(pattern.url_patterns, route)
        else:
            yield route.replace("<version>", "v1"), pattern


def site_routes() -> dict[str, set[str] | None]:
    """Every route outside the admin -> the methods its view set maps (None: a plain view).

    The router's ``.<format>`` twins of each API route are the same views; they are left
    out (``test_every_route_has_a_rule`` checks each has its twin).
    """
    routes: dict[str, set[str] | None] = {}
    for route, pattern in _walk(get_resolver().url_patterns):
        if route.startswith(NOT_WALKED_PREFIXES) or "<format>" in route:
            continue
        actions = getattr(pattern.callback, "actions", None)
        # DRF adds ``head`` (as ``get``) to a view set's actions on its first request.
        methods = {m.upper() for m in actions if m != "head"} if actions else None
        routes[route] = methods
    return routes


def test_every_route_has_a_rule() -> None:
    routes = site_routes()
    ruled = {route for _, route in ACCESS}
    assert sorted(set(routes) - ruled) == [], "routes without a rule in ACCESS"
    assert sorted(ruled - set(routes)) == [], "rules for routes that do not exist"
    for route, methods in routes.items():
        if methods is not None:
            walked = {method for method, ruled_route in ACCESS if ruled_route == route}
            assert walked == methods, f"{route}: {sorted(methods)} served, {sorted(walked)} ruled"
    # ``/api/v1/studies.<format>/?`` is the twin of ``/api/v1/studies/``.
    twins = {
        re.sub(r"/+", "/", re.sub(r"\.?<format>(/\?)?$", "/", route))
        for route, _ in _walk(get_resolver().url_patterns)
        if "<format>" in route and not route.startswith(NOT_WALKED_PREFIXES)
    }
    assert sorted(twins - set(routes)) == [], "format routes without their plain route"


def test_the_table_names_the_api_operations_of_the_schema() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    documented = {
        (method.upper(), re.sub(r"\{(\w+)\}", r"<\1>", path).replace("<id>", "<pk>"))
        for path, item in schema["paths"].items()
        for method in item
        if method in ("get", "post", "put", "patch", "delete")
    }
    api_rules = {key for key in ACCESS if key[1].startswith("/api/v1/") and key[1] != "/api/v1/"}
    assert documented == api_rules


# --- The world ------------------------------------------------------------------------------


@dataclass
class Site:
    world: World
    ids: dict[str, Any] = field(default_factory=dict)


def _extend(world: World) -> dict[str, Any]:
    """What the API world lacks for the pages, downloads, history and webhooks."""
    study = world.study
    world.users["manager"].set_password(WALK_PASSWORD)
    world.users["manager"].save()
    question = nominal_question(study, codes=("yes", "no"), key="relevant")
    rounds = [RoundFactory(study=study, name=f"R{n}", position=10 + n) for n in (1, 2)]
    review_rule_set(question=question, disagreement=True)
    items = None
    computations = []
    model = CoderFactory(
        study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test", prompt_version="v1"
    )
    coders = [CoderFactory(study=study) for _ in range(3)]
    for n, round_ in enumerate(rounds):
        table = random_table(4, 12, ("yes", "no"), agree=0.7, seed=n)
        _, items = label_round(round_, question, table, items=items, coders=[*coders, model])
        with TestCase.captureOnCommitCallbacks(execute=True):
            result = computation_request(
                study=study, question=question, rounds=[round_], parameters={"bootstrap": 50}
            )
        computation = Computation.objects.get(pk=result.computation.pk)
        assert computation.status == ComputationStatus.DONE, computation.error
        computations.append(computation)
    span = QuestionFactory(
        study=study, key="entities", kind=LabelKind.SPAN, span_unit=SpanUnit.CHARACTER
    )
    CategoryFactory(question=span, code="PER")
    document = ItemFactory(study=study, external_id="doc-1", text="Alice met Bob.")
    boxes = QuestionFactory(study=study, key="boxes", kind=LabelKind.BOX)
    caption = QuestionFactory(study=study, key="caption", kind=LabelKind.TEXT)
    CategoryFactory(question=boxes, code="car")
    image = ItemFactory(study=study, external_id="img-1", image_width=100, image_height=50)
    ItemImage.objects.create(
        item_id=world.object_ids["items"], content=PNG_3X2, content_type="image/png"
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        adjudication = adjudicate(round_=rounds[0], question=question, item=items[0], label="yes")
        plan = plan_request_create(
            study=study, question=question, pilot_round=rounds[0], target=0.1, power=0.8
        )
        comparison = comparison_request(
            study=study, question=question, first=rounds[1], second=rounds[0], replicates=20
        ).comparison
    endpoint, _ = webhook_endpoint_create(
        study=study, url="https://hooks.example.org/agreement", events=["computation.finished"]
    )
    connection = LabelStudioConnection.objects.create(
        study=study,
        round=rounds[0],
        url="https://ls.example.org",
        project_id=7,
        token_encrypted=token_encrypt("walk-token"),
        webhook_secret_hash=webhook_secret_hash(CONNECTION_SECRET_TEXT),
        controls=[{"name": "relevant", "type": "choices", "to_name": "text"}],
    )
    return {
        "connection": connection.pk,
        "question": question,
        "rounds": rounds,
        "coder": coders[0],
        "model": model,
        "computation": computations[0],
        "span": span,
        "document": document,
        "boxes": boxes,
        "caption": caption,
        "image": image,
        "webhook": endpoint.pk,
        "comparison": comparison.pk,
        "review": ReviewEntry.objects.filter(round=rounds[0]).values_list("pk", flat=True)[0],
        "adjudication": adjudication.pk,
        "reference_result": ReferenceResult.objects.get(round=rounds[0], question=question).pk,
        "plan": plan.pk,
    }


CONNECTION_SECRET_TEXT = "lssec_walk"
WALK_PASSWORD = "walk-password"


@pytest.fixture(autouse=True)
def fake_label_studio(monkeypatch: pytest.MonkeyPatch) -> None:
    """The connections call an in-memory Label Studio (project 7), never the network."""
    fake = FakeLabelStudio()
    fake.add_task(1, "A task")
    monkeypatch.setattr("connections.services._client", lambda connection: fake)
    monkeypatch.setattr("connections.services.LabelStudioClient", lambda url, token: fake)


@pytest.fixture(scope="module")
def site(django_db_setup: Any, django_db_blocker: Any) -> Iterator[Site]:
    """Study A, built once; each test's changes roll back to it (``db``'s savepoint)."""
    with django_db_blocker.unblock(), transaction.atomic():
        world = build_world()
        yield Site(world=world, ids=_extend(world))
        transaction.set_rollback(True)


# --- Requests -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Call:
    """A valid request for an operation: URL parameters, query, body."""

    params: dict[str, Any] = field(default_factory=dict)
    query: dict[str, Any] = field(default_factory=dict)
    body: Any = None
    multipart: bool = False
    json: bool = False
    headers: dict[str, str] = field(default_factory=dict)


def _params(site: Site, route: str) -> dict[str, Any]:
    world, ids = site.world, site.ids
    parts = route.strip("/").split("/")
    resource = parts[parts.index("<pk>") - 1] if "<pk>" in parts else ""
    personal = route.startswith("/api/v1/tokens/")
    pk = {
        "studies": world.study.pk,
        "tokens": world.object_ids["personal-tokens" if personal else "tokens"],
        "questions": world.object_ids["questions"],
        "categories": world.object_ids["categories"],
        "coders": world.object_ids["coders"],
        "items": world.object_ids["items"],
        "rounds": world.object_ids["rounds"],
        "annotations": world.object_ids["annotations"],
        "computations": ids["computation"].pk,
        "comparisons": ids["comparison"],
        "webhooks": ids["webhook"],
        "review": ids["review"],
        "adjudications": ids["adjudication"],
        "reference-results": ids["reference_result"],
        "plans": ids["plan"],
        "label-studio-connections": ids["connection"],
    }.get(resource)
    return {
        "study_pk": world.study.pk,
        "pk": pk,
        "username": world.object_ids["members"],
        "question_pk": (
            world.extra["question"].pk if route.startswith("/api/") else ids["question"].pk
        ),
        "round_pk": ids["rounds"][0].pk,
        "computation_pk": ids["computation"].pk,
        "coder_pk": ids["coder"].pk,
        "item_pk": ids["document"].pk,
        "connection_pk": ids["connection"],
        "fmt": "csv",
        "layout": "long",
    }


def _calls(site: Site) -> dict[tuple[str, str], Call]:
    """A valid request for every operation that needs more than its URL."""
    world, ids = site.world, site.ids
    question, round_, item, coder, category = world.extra["used"]
    pages_question, first, second = ids["question"], *ids["rounds"]
    codes = list(
        Category.objects.filter(question=world.extra["question"]).values_list("code", flat=True)
    )
    span_pages = Call(params={"question_pk": ids["span"].pk})
    return {
        ("POST", "/api/v1/auth/token/"): Call(
            body={"username": world.users["manager"].username, "password": WALK_PASSWORD}
        ),
        ("POST", "/api/v1/studies/"): Call(body={"name": "New study"}),
        ("PATCH", "/api/v1/studies/<pk>/"): Call(body={"name": "Renamed"}),
        ("POST", f"{S}/members/"): Call(body={"username": "newcomer", "role": "viewer"}),
        ("PATCH", f"{S}/members/<username>/"): Call(body={"role": "annotator"}),
        ("POST", f"{S}/tokens/"): Call(body={"name": "tool", "role": "annotator"}),
        ("POST", f"{S}/questions/"): Call(
            body={"key": "new-question", "kind": "nominal", "categories": [{"code": "a"}]}
        ),
        ("PATCH", f"{S}/questions/<pk>/"): Call(body={"text": "Changed?"}),
        ("POST", f"{S}/questions/<pk>/distances/"): Call(
            params={"pk": ids["caption"].pk},
            body={"rows": [{"text_a": "a", "text_b": "b", "distance": 0.5}]},
        ),
        ("GET", f"{S}/questions/<pk>/distances/"): Call(params={"pk": ids["caption"].pk}),
        ("DELETE", f"{S}/questions/<pk>/distances/"): Call(params={"pk": ids["caption"].pk}),
        ("POST", f"{S}/questions/<question_pk>/categories/"): Call(
            body={"code": "new", "parent": "root"}
        ),
        ("POST", f"{S}/questions/<question_pk>/categories/reorder/"): Call(
            body={"codes": codes[::-1]}
        ),
        ("PATCH", f"{S}/questions/<question_pk>/categories/<pk>/"): Call(body={"label": "Leaf"}),
        ("POST", f"{S}/coders/"): Call(body={"key": "new-coder"}),
        ("POST", f"{S}/coders/bulk/"): Call(body=[{"key": "bulk-1"}, {"key": "bulk-2"}]),
        ("PATCH", f"{S}/coders/<pk>/"): Call(body={"name": "Renamed"}),
        ("GET", f"{S}/coders/<pk>/versions/"): Call(params={"pk": ids["model"].pk}),
        ("GET", "/studies/<study_pk>/models/<coder_pk>/"): Call(
            params={"coder_pk": ids["model"].pk}
        ),
        ("POST", f"{S}/coders/<pk>/versions/"): Call(
            params={"pk": ids["model"].pk}, body={"round": first.pk, "prompt_version": "v2"}
        ),
        ("POST", f"{S}/items/"): Call(body={"external_id": "new-item"}),
        ("POST", f"{S}/items/bulk/"): Call(body=[{"external_id": "b-1"}, {"external_id": "b-2"}]),
        ("PATCH", f"{S}/items/<pk>/"): Call(body={"text": "Changed"}),
        ("POST", f"{S}/rounds/"): Call(body={"name": "New round"}),
        ("PATCH", f"{S}/rounds/<pk>/"): Call(body={"name": "Renamed round"}),
        ("POST", f"{S}/rounds/<pk>/close/"): Call(body={}),
        ("POST", f"{S}/rounds/<pk>/reopen/"): Call(params={"pk": world.extra["closed_round"].pk}),
        ("POST", "/api/v1/tokens/"): Call(body={"name": "mine"}),
        ("POST", f"{S}/annotations/bulk/"): Call(
            body={
                "round": round_.pk,
                "question": question.key,
                "annotations": [
                    {"item": item.external_id, "coder": coder.key, "label": category.code}
                ],
            }
        ),
        ("POST", f"{S}/annotations/spans/"): Call(
            body={
                "round": first.pk,
                "question": "entities",
                "units": [
                    {"document": "doc-1", "coder": coder.key, "begin": 0, "end": 5, "label": "PER"}
                ],
            }
        ),
        ("POST", f"{S}/imports/"): Call(
            multipart=True,
            body={
                "format": "long_csv",
                "round": first.name,
                "question": pages_question.key,
                "file": SimpleUploadedFile(
                    "labels.csv", f"item,coder,label\n{item.external_id},{coder.key},yes\n".encode()
                ),
            },
        ),
        ("GET", f"{S}/exports/annotations/"): Call(
            query={"question": pages_question.key, "round": first.pk}
        ),
        ("GET", f"{S}/exports/diagnostics/"): Call(
            query={"question": pages_question.key, "round": first.pk}
        ),
        ("GET", f"{S}/exports/results/"): Call(
            query={"question": pages_question.key, "round": first.pk}
        ),
        ("GET", f"{S}/exports/spans/"): Call(query={"question": "entities", "round": first.pk}),
        ("POST", f"{S}/annotations/structured/"): Call(
            body={
                "round": first.pk,
                "question": "boxes",
                "rows": [
                    {
                        "image": "img-1",
                        "coder": coder.key,
                        "x": 0,
                        "y": 0,
                        "width": 5,
                        "height": 5,
                        "label": "car",
                    }
                ],
            }
        ),
        ("GET", f"{S}/exports/structured/"): Call(query={"question": "boxes", "round": first.pk}),
        ("POST", f"{S}/computations/"): Call(
            body={"question": pages_question.pk, "rounds": [second.pk]}
        ),
        ("GET", f"{S}/history/coders/"): Call(query={"question": pages_question.key}),
        ("POST", f"{S}/comparisons/"): Call(
            body={
                "question": pages_question.key,
                "first": first.pk,
                "second": second.pk,
                "bootstrap": 20,
            }
        ),
        ("POST", f"{S}/webhooks/"): Call(
            body={"url": "https://hooks.example.org/other", "events": ["computation.finished"]}
        ),
        ("PATCH", f"{S}/webhooks/<pk>/"): Call(body={"description": "Changed"}),
        ("POST", "/studies/<study_pk>/computations/request/"): Call(
            body={"question": pages_question.pk, "round": second.pk}
        ),
        ("POST", f"{S}/adjudications/"): Call(
            body={
                "round": first.pk,
                "question": pages_question.key,
                "item": item.external_id,
                "label": "no",
                "note": "walk",
            }
        ),
        ("PATCH", f"{S}/adjudications/<pk>/"): Call(body={"label": "no"}),
        ("PATCH", f"{S}/round-references/<round_pk>/"): Call(body={"gold_coder": coder.key}),
        ("GET", f"{S}/reference-results/history/"): Call(query={"question": pages_question.key}),
        ("POST", f"{R}/adjudication/decide/"): Call(
            body={"item": ids["document"].pk, "choice": "__entered__", "label": "yes"}
        ),
        ("POST", f"{S}/plans/"): Call(
            body={"question": pages_question.pk, "pilot_round": first.pk, "target": 0.1}
        ),
        ("POST", "/studies/<study_pk>/plans/request/"): Call(
            body={
                "question": pages_question.pk,
                "pilot_round": first.pk,
                "coefficient": "alpha",
                "target": 0.1,
                "confidence": 0.95,
                "power": 0.8,
            }
        ),
        ("POST", "/studies/new/"): Call(
            body={"name": "Made on the site", "sampling": "A random sample of posts."}
        ),
        ("POST", "/studies/<study_pk>/edit/"): Call(
            body={"name": "Renamed on the site", "blinding": "Blind to each other's labels."}
        ),
        ("GET", "/studies/<study_pk>/report.<fmt>"): Call(params={"fmt": "md"}),
        ("GET", "/help/<name>/"): Call(params={"name": "planning"}),
        ("GET", "/studies/<study_pk>/rounds/<round_pk>/report.<fmt>"): Call(params={"fmt": "tex"}),
        ("GET", f"{R}/items/"): span_pages,
        ("GET", f"{R}/items/<item_pk>/"): span_pages,
        ("GET", f"{R}/images/<item_pk>/"): Call(
            params={"question_pk": ids["boxes"].pk, "item_pk": ids["image"].pk}
        ),
        ("POST", f"{S}/items/<pk>/image/"): Call(
            multipart=True, body={"file": SimpleUploadedFile("i.png", PNG_3X2)}
        ),
        ("GET", "/studies/<study_pk>/items/<item_pk>/image"): Call(
            params={"item_pk": site.world.object_ids["items"]}
        ),
        ("POST", f"{S}/label-studio-connections/"): Call(
            body={
                "url": "https://ls2.example.org",
                "project_id": 7,
                "token": "another-walk-token",
                "round": first.pk,
            }
        ),
        ("PATCH", f"{S}/label-studio-connections/<pk>/"): Call(body={"name": "Renamed"}),
        ("POST", f"{S}/label-studio-connections/<pk>/send/"): Call(
            body={"purpose": "review", "round": first.pk, "question": pages_question.key}
        ),
        ("POST", "/studies/<study_pk>/label-studio/connect/"): Call(
            body={
                "url": "https://ls3.example.org",
                "project_id": 7,
                "token": "page-walk-token",
                "round": first.pk,
            }
        ),
        ("POST", "/hooks/label-studio/<connection_pk>/"): Call(
            json=True,
            body={"action": "PROJECT_UPDATED", "project": {"id": 7}},
            headers={SECRET_HEADER: CONNECTION_SECRET_TEXT},
        ),
    }


def _client(site: Site, actor: str) -> APIClient:
    world = site.world
    client = APIClient()
    if actor.startswith("token:"):
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.token_secrets[actor[6:]]}")
    elif actor == "personal:manager":
        client.credentials(HTTP_AUTHORIZATION=f"Token {world.extra['manager_token_secret']}")
    elif actor != "anonymous":
        client.force_login(world.users[actor])
    return client


def _send(client: APIClient, method: str, url: str, call: Call) -> Any:
    if call.query:
        url += "?" + "&".join(f"{key}={value}" for key, value in call.query.items())
    if method == "GET":
        return client.get(url, HTTP_ACCEPT="application/json, */*")
    if call.multipart:
        return client.post(url, call.body, format="multipart")
    if call.json:
        extra = {
            f"HTTP_{name.upper().replace('-', '_')}": value for name, value in call.headers.items()
        }
        return client.generic(
            method, url, json.dumps(call.body), content_type="application/json", **extra
        )
    if url.startswith("/api/"):
        body = json.dumps(call.body if call.body is not None else {})
        return client.generic(method, url, body, content_type="application/json")
    return client.post(url, call.body or {}, HTTP_ACCEPT="application/json")


# --- The walk -------------------------------------------------------------------------------

OPERATIONS = sorted(ACCESS)


@pytest.mark.parametrize("actor", ACTORS)
@pytest.mark.parametrize(("method", "route"), OPERATIONS, ids=[f"{m} {r}" for m, r in OPERATIONS])
def test_every_operation_answers_each_actor_as_its_rule_says(
    site: Site, db: None, method: str, route: str, actor: str
) -> None:
    rule = ACCESS[(method, route)]
    call = _calls(site).get((method, route), Call())
    params = {**_params(site, route), **call.params}
    url = re.sub(r"<(\w+)>", lambda m: str(params[m.group(1)]), route)
    response = _send(_client(site, actor), method, url, call)
    status = response.status_code
    text = response.content.decode(errors="replace")
    where = f"{actor} {method} {url} -> {status}: {text[:300]}"
    assert status < 500, where
    expected = _expected(rule, actor)
    if expected == "2xx":
        assert 200 <= status < 300, where
    elif expected == "public":
        assert status < 400, where
    elif expected == "sign-in":
        assert status == 302, where
        assert response["Location"].startswith("/accounts/login/?next="), where
    else:
        assert status == expected, where
        if status == 404 and route.startswith("/api/"):
            assert response.json()["errors"][0]["code"] == "not_found", where
        if status == 401:
            assert response.json()["errors"][0]["code"] == "not_authenticated", where
        if status == 404 or (status == 403 and method != "GET"):
            assert MARK not in text, where


def _expected(rule: Rule, actor: str) -> int | str:
    """The answer the rule promises the actor: a status, "2xx", "sign-in" or "public"."""
    if rule.kind == "public":
        return "public"
    if rule.kind == "connection secret":
        return "2xx"
    if rule.kind in ("page", "signed-in page"):
        return _expected_of_page(rule, actor)
    is_token = actor.startswith("token:")
    person = actor.split(":")[-1]  # "personal:manager" acts as the manager
    if actor == "anonymous":
        return 401
    if rule.kind == "any actor":
        return "2xx"
    if rule.kind == "people":
        return 403 if is_token else "2xx"
    if rule.kind == "owner":
        return 403 if is_token else ("2xx" if person == "manager" else 404)
    assert rule.kind == "study"
    assert rule.role is not None
    if person == "outsider":
        return 404
    if RANK[Role(person)] < RANK[rule.role] or (rule.people_only and is_token):
        return 403
    return "2xx"


def _expected_of_page(rule: Rule, actor: str) -> int | str:
    # Pages authenticate by the session only: a token (study or personal) is no sign-in there.
    if actor == "anonymous" or actor.startswith(("token:", "personal:")):
        return "sign-in"
    if rule.kind == "signed-in page":
        return "2xx"
    person = actor.split(":")[-1]
    if person == "outsider":
        return 404
    assert rule.role is not None
    return "2xx" if RANK[Role(person)] >= RANK[rule.role] else 403
