"""Against a real Label Studio (``tests/plugins/label_studio.py``): a project connected to
a study, annotated through Label Studio's own API, reaches the study live through its
webhook, equals the import of the project's export file, follows updates and deletes,
catches up by a sync after the server was down, and takes a review-queue item back.

Runs with the service tests (``AGREEMENT_SERVICES=1``): PostgreSQL, Redis and a real
Celery worker apply the events, as in production.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from adjudication.models import Adjudication
from computations.models import Computation
from connections.models import LabelStudioConnection, LabelStudioEvent, LabelStudioSync
from connections.services import SECRET_HEADER, recompute_due
from exchange.imports import annotations_import
from review.services import review_queue_rebuild, review_rule_set
from studies.access import Actor
from studies.models import Annotation, AnnotationChange, Question, Role
from tests.connections.helpers import (
    LABEL_CONFIG,
    box,
    choices,
    comment,
    connection_study,
    round_table,
    span,
)
from tests.connections.live_server import StoppableServer
from tests.factories import MembershipFactory, RoundFactory, UserFactory
from tests.plugins.label_studio import LabelStudio, free_port

pytestmark = [pytest.mark.label_studio, pytest.mark.services, pytest.mark.slow]

TEXTS = [
    "Alice met Bob at Acme.",
    "Nothing to see here.",
    "Carol works for Globex.",
    "Dave and Erin.",
]
WAIT = 90.0


def wait_for(what: str, check: Callable[[], bool], timeout: float = WAIT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.3)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture
def private_label_studio(monkeypatch: pytest.MonkeyPatch, settings: Any) -> None:
    # Label Studio runs on 127.0.0.1: the worker (started next) and this process may call it.
    monkeypatch.setenv("AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE", "1")
    settings.AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE = True


@pytest.fixture
def our_server(private_label_studio: None, celery_worker_process: Any) -> Iterator[StoppableServer]:
    server = StoppableServer(free_port())
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _project(ls: LabelStudio) -> tuple[int, list[int], dict[str, int]]:
    users = {}
    for name in ("alice", "bob", "carol"):
        user = ls.call(
            "POST",
            "/api/users/",
            {"email": f"{name}@example.org", "username": name, "password": f"{name}-pass-123"},
        )
        users[name] = user["id"]
    project = ls.call(
        "POST", "/api/projects/", {"title": "Agreement", "label_config": LABEL_CONFIG}
    )
    ls.call(
        "POST",
        f"/api/projects/{project['id']}/import",
        [
            {"text": text, "image": f"https://img.example.org/{n}.png"}
            for n, text in enumerate(TEXTS)
        ],
    )
    tasks = ls.call("GET", f"/api/tasks/?project={project['id']}&page_size=100")["tasks"]
    return project["id"], sorted(task["id"] for task in tasks), users


def _annotate(ls: LabelStudio, task: int, user: int, result: list[dict[str, Any]]) -> int:
    return int(
        ls.call(
            "POST", f"/api/tasks/{task}/annotations/", {"result": result, "completed_by": user}
        )["id"]
    )


def _import_export(ls: LabelStudio, project_id: int, study: Any, name: str, user: Any) -> Any:
    """The project's export file imported into a new round, as a team does by hand."""
    exported = ls.call("GET", f"/api/projects/{project_id}/export?exportType=JSON")
    file_round = RoundFactory(study=study, name=name)
    report = annotations_import(
        study=study,
        format_name="label_studio",
        data=json.dumps(exported).encode(),
        round_ref=file_round.pk,
        question_map={"comment": None},
        create_missing=True,
        actor=Actor(user=user, token=None),
    )
    assert report.committed, report.rejected
    return file_round, exported


def test_a_label_studio_project_flows_into_the_study_live(
    label_studio: LabelStudio, our_server: StoppableServer, settings: Any
) -> None:
    ls = label_studio
    started = time.monotonic()
    project_id, tasks, users = _project(ls)
    study, live_round = connection_study()
    manager = UserFactory(username="ls-manager")
    MembershipFactory(study=study, user=manager, role=Role.MANAGER)
    settings.AGREEMENT_PUBLIC_URL = our_server.url
    api = APIClient()
    api.force_authenticate(manager)

    # 1. Connected and tested from the API; the server registers its webhook in the project.
    created = api.post(
        f"/api/v1/studies/{study.pk}/label-studio-connections/",
        {"url": ls.url, "project_id": project_id, "token": ls.token, "round": live_round.pk},
        format="json",
    )
    assert created.status_code == 201, created.content
    body = created.json()
    assert "token" not in body
    assert ls.token not in created.content.decode()
    assert body["webhook_registered"] is True
    assert body["last_test"]["message"] == "connection works: 4 users, 3 controls mapped"
    connection = LabelStudioConnection.objects.get(pk=body["id"])
    assert ls.token not in connection.token_encrypted
    hooks = ls.call("GET", f"/api/webhooks/?project={project_id}")
    assert [hook["url"] for hook in hooks] == [body["hook_url"]]

    # 2. Annotations made in Label Studio arrive live.
    a, b, c = users["alice"], users["bob"], users["carol"]
    t1, t2, t3, t4 = tasks
    ann = {}
    ann["a1"] = _annotate(
        ls,
        t1,
        a,
        [
            choices("positive"),
            span(0, 5, "Alice", "PER"),
            span(16, 20, "Acme", "ORG"),
            box(10, 10, "car"),
        ],
    )
    ann["b1"] = _annotate(
        ls,
        t1,
        b,
        [choices("positive"), span(0, 5, "Alice", "PER"), box(11, 10, "car"), comment("fine")],
    )
    ann["c1"] = _annotate(ls, t1, c, [choices("negative"), span(10, 13, "Bob", "PER")])
    ann["a2"] = _annotate(ls, t2, a, [choices("neutral")])
    ann["b2"] = _annotate(ls, t2, b, [choices("neutral")])
    ann["c2"] = _annotate(ls, t2, c, [choices("negative"), box(50, 50, "person")])
    ann["a3"] = _annotate(
        ls, t3, a, [choices("positive"), span(0, 5, "Carol", "PER"), span(16, 22, "Globex", "ORG")]
    )
    ann["b3"] = _annotate(ls, t3, b, [choices("negative"), span(16, 22, "Globex", "ORG")])
    expected = 3 * 8  # 8 annotations, each giving sentiment, entities and boxes
    wait_for(
        "the live annotations",
        lambda: Annotation.objects.filter(round=live_round).count() == expected,
    )
    assert LabelStudioEvent.objects.filter(connection=connection, status="done").exists()
    connection.refresh_from_db()
    assert connection.last_event_at is not None

    # 3. The same numbers as importing the project's export file.
    file_round, exported = _import_export(ls, project_id, study, "From the export file", manager)
    assert round_table(live_round) == round_table(file_round)
    assert {str(a["completed_by"]) for t in exported for a in t["annotations"]} == {
        str(a),
        str(b),
        str(c),
    }

    # 4. An update and a delete arrive; repeating or reordering events changes nothing.
    ls.call("PATCH", f"/api/annotations/{ann['b2']}/", {"result": [choices("positive")]})
    sentiment = Question.objects.get(study=study, key="sentiment")
    positive = sentiment.categories.get(code="positive")
    wait_for(
        "the update",
        lambda: Annotation.objects.filter(
            round=live_round,
            question=sentiment,
            item__external_id=str(t2),
            coder__key=str(b),
            category=positive,
        ).exists(),
    )
    ls.call("DELETE", f"/api/annotations/{ann['c2']}/")
    wait_for(
        "the delete",
        lambda: (
            not Annotation.objects.filter(
                round=live_round, item__external_id=str(t2), coder__key=str(c)
            ).exists()
        ),
    )
    assert (
        AnnotationChange.objects.filter(
            round=live_round, item__external_id=str(t2), coder__key=str(c), action="deleted"
        ).count()
        == 3
    )  # sentiment, entities (found nothing), boxes
    before = round_table(live_round)
    events = LabelStudioEvent.objects.filter(connection=connection).count()
    secret = body["webhook_secret"]
    stale = {
        "action": "ANNOTATION_CREATED",
        "project": {"id": project_id},
        "task": {"id": t2},
        "annotation": {"id": ann["c2"], "task": t2},
    }
    for payload in (stale, stale):  # the creation of a deleted annotation, twice, late
        _post_hook(body["hook_url"], payload, secret, expect=202)
    wait_for(
        "the repeated events",
        lambda: (
            LabelStudioEvent.objects.filter(connection=connection, status="done").count()
            >= events + 2
        ),
    )
    assert round_table(live_round) == before

    # 5. Forged and unknown calls are refused and change nothing.
    _post_hook(body["hook_url"], stale, "lssec_forged", expect=401)
    _post_hook(body["hook_url"], stale, None, expect=401)
    _post_hook(
        body["hook_url"].replace(f"/{connection.pk}/", "/999999/"), stale, secret, expect=404
    )
    assert LabelStudioEvent.objects.filter(connection=connection).count() == events + 2

    # 6. Our server is down: what happens meanwhile is caught up by a sync.
    our_server.stop()
    ann["c4"] = _annotate(ls, t4, c, [choices("neutral")])
    ls.call(
        "PATCH",
        f"/api/annotations/{ann['a1']}/",
        {"result": [choices("negative"), span(0, 5, "Alice", "PER"), box(10, 10, "car")]},
    )
    ls.call("DELETE", f"/api/annotations/{ann['b3']}/")
    our_server.start()
    synced = api.post(f"/api/v1/studies/{study.pk}/label-studio-connections/{connection.pk}/sync/")
    assert synced.status_code == 202, synced.content
    sync_id = synced.json()["id"]
    wait_for(
        "the sync",
        lambda: LabelStudioSync.objects.get(pk=sync_id).status in ("done", "failed"),
    )
    sync = LabelStudioSync.objects.get(pk=sync_id)
    assert sync.status == "done", sync.error
    assert sync.report["tasks"] == 4
    assert sync.report["added"] == 3  # c4: sentiment, entities (nothing found), boxes (none drawn)
    assert sync.report["changed"] == 2  # a1: sentiment, entities
    assert sync.report["deleted"] == 3  # b3: its three annotations
    second_file_round, _ = _import_export(ls, project_id, study, "Export after the sync", manager)
    assert round_table(live_round) == round_table(second_file_round)
    # A second sync finds nothing to do: sync and live never count twice.
    again = api.post(f"/api/v1/studies/{study.pk}/label-studio-connections/{connection.pk}/sync/")
    wait_for(
        "the second sync",
        lambda: LabelStudioSync.objects.get(pk=again.json()["id"]).status == "done",
    )
    report = LabelStudioSync.objects.get(pk=again.json()["id"]).report
    assert (report["added"], report["changed"], report["deleted"]) == (0, 0, 0)

    # 7. The round's agreement is requested once the events have been quiet.
    connection.refresh_from_db()
    assert connection.recompute_after is not None
    requested = recompute_due(now=connection.recompute_after + timedelta(seconds=1))
    assert Computation.objects.filter(pk__in=requested, question=sentiment).exists()
    assert recompute_due(now=connection.recompute_after + timedelta(seconds=2)) == []

    # 8. A review-queue item sent back appears as a Label Studio task with each coder's label.
    review_rule_set(question=sentiment, disagreement=True)
    review_queue_rebuild(round_=live_round, question=sentiment)
    sent = api.post(
        f"/api/v1/studies/{study.pk}/label-studio-connections/{connection.pk}/send/",
        {"purpose": "review", "round": live_round.pk, "question": "sentiment"},
        format="json",
    )
    assert sent.status_code == 200, sent.content
    task_ids = sent.json()["task_ids"]
    assert task_ids
    task = ls.call("GET", f"/api/tasks/{task_ids[0]}/")
    assert task["data"]["agreement_purpose"] == "review"
    assert {p["model_version"] for p in task["predictions"]} >= {str(a), str(b)}
    assert {p["result"][0]["from_name"] for p in task["predictions"]} == {"sentiment"}
    # Sent tasks are not coders' annotations: the round keeps its annotations.
    assert round_table(live_round) == round_table(second_file_round)
    # The reviewer's decision in Label Studio comes back as the item's adjudicated label.
    reviewer = ls.call("POST", "/api/users/", {"email": "rita@example.org", "username": "rita"})
    _annotate(ls, task_ids[0], reviewer["id"], [choices("positive")])
    item_key = task["data"]["item"]
    wait_for(
        "the decision",
        lambda: Adjudication.objects.filter(
            round=live_round,
            question=sentiment,
            item__external_id=item_key,
            superseded_at__isnull=True,
            category=positive,
        ).exists(),
    )
    print(f"\nthe live Label Studio scenario took {time.monotonic() - started:.0f} s")


def _post_hook(url: str, payload: dict[str, Any], secret: str | None, *, expect: int) -> None:
    headers = {"Content-Type": "application/json"}
    if secret is not None:
        headers[SECRET_HEADER] = secret
    request = urllib.request.Request(
        url, method="POST", data=json.dumps(payload).encode(), headers=headers
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            status = answer.status
    except urllib.error.HTTPError as error:
        status = error.code
    assert status == expect, (url, status)
