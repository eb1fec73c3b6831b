"""Connections without a real Label Studio (``fake.py``): the token at rest, the hook's
checks, events applied idempotently in any order, deletes, syncs, the quiet period, the
mapping shared with the file import, items sent back."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from adjudication.models import Adjudication
from computations.models import Computation
from connections import secrets as connection_secrets
from connections.client import LabelStudioClient, LabelStudioError
from connections.models import LabelStudioConnection, LabelStudioEvent, LabelStudioSync
from connections.reconcile import export_shape
from connections.services import (
    SECRET_HEADER,
    connection_create,
    connections_sweep,
    event_receive,
    recompute_due,
    send_to_label_studio,
    sync_request,
)
from exchange.imports import annotations_import
from review.services import review_queue_rebuild, review_rule_set
from studies.access import Actor
from studies.models import Annotation, AnnotationChange, Role
from tests.connections.fake import FakeLabelStudio
from tests.connections.helpers import box, choices, comment, connection_study, round_table, span
from tests.factories import MembershipFactory, RoundFactory, UserFactory

pytestmark = pytest.mark.django_db

TOKEN = "f3c1a9d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f2"


@pytest.fixture
def setup(fake_ls: FakeLabelStudio) -> dict[str, Any]:
    study, round_ = connection_study()
    manager = UserFactory(username="manager")
    MembershipFactory(study=study, user=manager, role=Role.MANAGER)
    for task_id, text in ((1, "Alice met Bob."), (2, "Nothing here."), (3, "Carol.")):
        fake_ls.add_task(task_id, text)
    connection, secret, test = connection_create(
        study=study,
        round_=round_,
        url="https://ls.example.org",
        project_id=fake_ls.project_id,
        token=TOKEN,
        public_url="https://agreement.example.org",
        created_by=manager,
    )
    return {
        "study": study, "round": round_, "manager": manager, "connection": connection,
        "secret": secret, "test": test,
    }  # fmt: skip


def _hook(connection: LabelStudioConnection, payload: Any, secret: str | None) -> Any:
    headers = {f"HTTP_{SECRET_HEADER.upper().replace('-', '_')}": secret} if secret else {}
    return Client().post(
        f"/hooks/label-studio/{connection.pk}/",
        json.dumps(payload),
        content_type="application/json",
        **headers,
    )


def _created(task: int, annotation: int) -> dict[str, Any]:
    return {
        "action": "ANNOTATION_CREATED",
        "project": {"id": 7},
        "task": {"id": task},
        "annotation": {"id": annotation, "task": task},
    }


def test_creating_tests_the_project_and_registers_the_webhook(
    setup: dict[str, Any], fake_ls: FakeLabelStudio
) -> None:
    connection = setup["connection"]
    assert setup["test"].message == "connection works: 3 users, 3 controls mapped"
    assert [c["name"] for c in connection.controls] == ["sentiment", "entities", "comment", "boxes"]
    (hook,) = fake_ls.webhooks.values()
    assert hook["url"] == f"https://agreement.example.org/hooks/label-studio/{connection.pk}/"
    assert hook["headers"] == {SECRET_HEADER: setup["secret"]}
    assert connection.webhook_id == 1


def test_the_token_is_encrypted_at_rest_and_never_returned_or_logged(
    fake_ls: FakeLabelStudio, caplog: pytest.LogCaptureFixture
) -> None:
    study, round_ = connection_study()
    manager = UserFactory(username="owner")
    MembershipFactory(study=study, user=manager, role=Role.MANAGER)
    api = APIClient()
    api.force_authenticate(manager)
    caplog.set_level(logging.DEBUG)
    created = api.post(
        f"/api/v1/studies/{study.pk}/label-studio-connections/",
        {"url": "https://ls.example.org", "project_id": 7, "token": TOKEN, "round": round_.pk},
        format="json",
    )
    assert created.status_code == 201, created.content
    connection = LabelStudioConnection.objects.get()
    assert TOKEN not in connection.token_encrypted
    assert connection_secrets.token_decrypt(connection.token_encrypted) == TOKEN
    assert connection.token_hint == TOKEN[-4:]
    listed = api.get(f"/api/v1/studies/{study.pk}/label-studio-connections/")
    one = api.get(f"/api/v1/studies/{study.pk}/label-studio-connections/{connection.pk}/")
    for answer in (created, listed, one):
        assert TOKEN not in answer.content.decode()
    assert "webhook_secret" in created.json()
    assert "webhook_secret" not in one.json()
    assert TOKEN not in caplog.text


def test_a_token_encrypted_under_an_old_key_still_decrypts_and_rotates(settings: Any) -> None:
    settings.AGREEMENT_CONNECTION_KEY = "old-key-" + "x" * 40
    encrypted = connection_secrets.token_encrypt(TOKEN)
    settings.AGREEMENT_CONNECTION_KEY = "new-key-" + "y" * 40
    with pytest.raises(connection_secrets.TokenUnreadableError):
        connection_secrets.token_decrypt(encrypted)
    settings.AGREEMENT_CONNECTION_OLD_KEYS = ["old-key-" + "x" * 40]
    rotated = connection_secrets.token_reencrypt(encrypted)
    settings.AGREEMENT_CONNECTION_OLD_KEYS = []
    assert connection_secrets.token_decrypt(rotated) == TOKEN


def test_a_connection_that_does_not_work_is_refused_with_what_to_do(
    fake_ls: FakeLabelStudio,
) -> None:
    study, round_ = connection_study()
    fake_ls.down = True
    with pytest.raises(ValidationError, match="did not answer") as refused:
        connection_create(
            study=study, round_=round_, url="https://ls.example.org", project_id=7, token=TOKEN
        )
    assert set(refused.value.message_dict) == {"url"}
    assert not LabelStudioConnection.objects.exists()


def test_the_hook_refuses_unknown_connections_and_wrong_secrets_and_changes_nothing(
    setup: dict[str, Any],
) -> None:
    connection = setup["connection"]
    payload = _created(1, 101)
    assert _hook(connection, payload, "lssec_wrong").status_code == 401
    assert _hook(connection, payload, None).status_code == 401
    connection.pk = 999_999
    assert _hook(connection, payload, setup["secret"]).status_code == 404
    assert not LabelStudioEvent.objects.exists()
    assert LabelStudioConnection.objects.get().last_event_at is None


def test_an_event_twice_or_late_leaves_the_same_annotations(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any
) -> None:
    connection, secret, round_ = setup["connection"], setup["secret"], setup["round"]
    first = fake_ls.annotate(1, 1, [choices("positive"), span(0, 5, "Alice", "PER")])
    with eager_commits(execute=True):
        assert _hook(connection, _created(1, first), secret).status_code == 202
    after_first = round_table(round_)
    assert {key[0] for key in after_first} == {"sentiment", "entities", "boxes"}
    fake_ls.update(first, [choices("negative")])
    updated = {**_created(1, first), "action": "ANNOTATION_UPDATED"}
    with eager_commits(execute=True):
        _hook(connection, updated, secret)
        _hook(connection, _created(1, first), secret)  # the creation, late
        _hook(connection, updated, secret)  # and the update, twice
    table = round_table(round_)
    assert table[("sentiment", "1", "1")] != after_first[("sentiment", "1", "1")]
    assert table[("entities", "1", "1")][3] == []  # no span any more: found nothing
    changes = AnnotationChange.objects.filter(round=round_).count()
    with eager_commits(execute=True):
        _hook(connection, updated, secret)
    assert round_table(round_) == table
    assert AnnotationChange.objects.filter(round=round_).count() == changes
    assert LabelStudioEvent.objects.filter(status="done").count() == 5


def test_an_annotation_deleted_in_label_studio_is_deleted_here_with_a_change_log_entry(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any
) -> None:
    connection, secret, round_ = setup["connection"], setup["secret"], setup["round"]
    kept = fake_ls.annotate(2, 1, [choices("neutral")])
    gone = fake_ls.annotate(2, 2, [choices("negative"), box(5, 5, "car")])
    with eager_commits(execute=True):
        _hook(connection, {**_created(2, kept), "action": "ANNOTATIONS_CREATED"}, secret)
    assert Annotation.objects.filter(round=round_, coder__key="2").count() == 3
    fake_ls.delete(gone)
    deleted = {"action": "ANNOTATIONS_DELETED", "project": {"id": 7}, "annotations": [{"id": gone}]}
    with eager_commits(execute=True):
        assert _hook(connection, deleted, secret).status_code == 202
    assert not Annotation.objects.filter(round=round_, coder__key="2").exists()
    assert Annotation.objects.filter(round=round_, coder__key="1").count() == 3
    log = AnnotationChange.objects.filter(round=round_, coder__key="2", action="deleted")
    assert sorted(log.values_list("question__key", flat=True)) == ["boxes", "entities", "sentiment"]
    assert log.first().changed_by == setup["manager"]


def test_a_deleted_task_takes_its_annotations_with_it(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any
) -> None:
    connection, secret, round_ = setup["connection"], setup["secret"], setup["round"]
    annotation = fake_ls.annotate(3, 1, [choices("positive")])
    with eager_commits(execute=True):
        _hook(connection, _created(3, annotation), secret)
    del fake_ls.tasks[3]
    with eager_commits(execute=True):
        _hook(
            connection,
            {"action": "TASKS_DELETED", "project": {"id": 7}, "tasks": [{"id": 3}]},
            secret,
        )
    assert not Annotation.objects.filter(round=round_, item__external_id="3").exists()


def test_events_of_another_project_or_action_are_ignored(setup: dict[str, Any]) -> None:
    connection, secret = setup["connection"], setup["secret"]
    other = {**_created(1, 101), "project": {"id": 8}}
    assert _hook(connection, other, secret).json() == {"event": None, "ignored": True}
    assert (
        _hook(connection, {"action": "PROJECT_UPDATED", "project": {"id": 7}}, secret).status_code
        == 200
    )
    assert not LabelStudioEvent.objects.exists()


def test_live_tasks_give_what_the_export_file_gives(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any
) -> None:
    """One mapping path: a task read live, one at a time, and the export file of the same
    tasks write the same annotations (coders by user id; no span result is found nothing,
    as in a file where another task has one; the comment box ignored)."""
    connection, secret, round_ = setup["connection"], setup["secret"], setup["round"]
    a = fake_ls.annotate(1, 1, [choices("positive"), span(0, 5, "Alice", "PER"), box(1, 2, "car")])
    b = fake_ls.annotate(1, 2, [choices("positive"), comment("ok")])
    c = fake_ls.annotate(2, 1, [choices("neutral"), box(3, 4, "person")])
    with eager_commits(execute=True):
        for task, annotation in ((1, a), (1, b), (2, c)):
            _hook(connection, _created(task, annotation), secret)
    exported = [
        {**export_shape(task), "annotations": export_shape(task)["annotations"]}
        for task in fake_ls.tasks.values()
    ]
    file_round = RoundFactory(study=setup["study"], name="File")
    report = annotations_import(
        study=setup["study"],
        format_name="label_studio",
        data=json.dumps(exported).encode(),
        round_ref=file_round.pk,
        question_map={"comment": None},
        create_missing=True,
        actor=Actor(user=setup["manager"], token=None),
    )
    assert report.committed, report.rejected
    assert round_table(round_) == round_table(file_round)
    assert len(round_table(round_)) == 9


def test_a_sync_reads_page_by_page_and_reports_added_changed_deleted(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any, settings: Any
) -> None:
    settings.AGREEMENT_LABEL_STUDIO_PAGE_SIZE = 2
    connection, round_ = setup["connection"], setup["round"]
    one = fake_ls.annotate(1, 1, [choices("positive")])
    two = fake_ls.annotate(3, 2, [choices("negative")])
    with eager_commits(execute=True):
        first = sync_request(connection=connection)
    first.refresh_from_db()
    assert first.status == "done", first.error
    assert first.report["pages"] == 2
    assert (first.report["added"], first.report["changed"], first.report["deleted"]) == (6, 0, 0)
    fake_ls.update(one, [choices("negative")])
    fake_ls.delete(two)
    fake_ls.annotate(2, 3, [choices("neutral")])
    with eager_commits(execute=True):
        second = sync_request(connection=connection)
    second.refresh_from_db()
    assert (second.report["added"], second.report["changed"], second.report["deleted"]) == (3, 1, 3)
    with eager_commits(execute=True):
        third = sync_request(connection=connection)
    third.refresh_from_db()
    assert (third.report["added"], third.report["changed"], third.report["deleted"]) == (0, 0, 0)
    assert third.report["unchanged"] == 6
    connection.refresh_from_db()
    assert connection.last_sync_at is not None
    assert Annotation.objects.filter(round=round_).count() == 6


def test_a_failed_sync_says_what_to_do(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any
) -> None:
    fake_ls.down = True
    with eager_commits(execute=True):
        sync = sync_request(connection=setup["connection"])
    sync.refresh_from_db()
    assert sync.status == "failed"
    connection = LabelStudioConnection.objects.get()
    assert connection.last_error.startswith("Sync: Label Studio did not answer")


def test_the_round_is_recomputed_once_the_events_are_quiet(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any, settings: Any
) -> None:
    settings.AGREEMENT_LABEL_STUDIO_QUIET_SECONDS = 60
    connection, secret = setup["connection"], setup["secret"]
    for user in (1, 2):
        annotation = fake_ls.annotate(1, user, [choices("positive")])
        with eager_commits(execute=True):
            _hook(connection, _created(1, annotation), secret)
    assert not Computation.objects.exists()  # not per event
    connection.refresh_from_db()
    due = connection.recompute_after
    assert due is not None
    assert recompute_due(now=due - timedelta(seconds=1)) == []
    with eager_commits(execute=True):
        requested = recompute_due(now=due)
    assert Computation.objects.filter(pk__in=requested, question__key="sentiment").exists()
    assert recompute_due(now=due + timedelta(seconds=5)) == []


def test_the_sweep_sends_again_an_event_the_broker_never_got(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any
) -> None:
    annotation = fake_ls.annotate(1, 1, [choices("positive")])
    event = event_receive(
        connection_pk=setup["connection"].pk,
        secret=setup["secret"],
        payload=_created(1, annotation),
    )  # its on-commit send never ran: as when the broker was down
    assert event is not None
    LabelStudioEvent.objects.filter(pk=event.pk).update(dispatched_at=None)
    connections_sweep(now=timezone.now())
    event.refresh_from_db()
    assert event.status == "done"
    assert Annotation.objects.filter(round=setup["round"]).count() == 3


def test_review_items_go_back_as_tasks_with_predictions_and_their_decision_comes_back(
    setup: dict[str, Any], fake_ls: FakeLabelStudio, eager_commits: Any
) -> None:
    connection, secret, round_ = setup["connection"], setup["secret"], setup["round"]
    for user, label in ((1, "positive"), (2, "negative")):
        annotation = fake_ls.annotate(1, user, [choices(label)])
        with eager_commits(execute=True):
            _hook(connection, _created(1, annotation), secret)
    sentiment = setup["study"].questions.get(key="sentiment")
    review_rule_set(question=sentiment, disagreement=True)
    review_queue_rebuild(round_=round_, question=sentiment)
    (task_id,) = send_to_label_studio(
        connection=connection, round_=round_, question=sentiment, purpose="review"
    )
    task = fake_ls.tasks[task_id]
    assert task["data"]["agreement_purpose"] == "review"
    assert task["data"]["image"] == "https://img.example.org/1.png"  # the coders' task's data
    labels = sorted(
        (p["model_version"], p["result"][0]["value"]["choices"][0]) for p in task["predictions"]
    )
    assert labels == [("1", "positive"), ("2", "negative")]
    # Sent again: the item is still waiting for its decision, so nothing new.
    assert (
        send_to_label_studio(
            connection=connection, round_=round_, question=sentiment, purpose="review"
        )
        == []
    )
    before = round_table(round_)
    decision = fake_ls.annotate(task_id, 3, [choices("negative")])
    with eager_commits(execute=True):
        _hook(connection, _created(task_id, decision), secret)
        _hook(connection, _created(task_id, decision), secret)
    adjudication = Adjudication.objects.get(
        round=round_, item__external_id="1", superseded_at__isnull=True
    )
    assert adjudication.value == "negative"
    assert round_table(round_) == before  # the reviewer is no coder of the round


def test_label_studio_on_a_private_address_is_refused_unless_allowed(settings: Any) -> None:
    settings.AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE = False
    client = LabelStudioClient("http://127.0.0.1:9", TOKEN)
    with pytest.raises(LabelStudioError) as refused:
        client.project(1)
    assert "AGREEMENT_LABEL_STUDIO_ALLOW_PRIVATE" in refused.value.message
    assert TOKEN not in refused.value.message


def test_the_study_page_shows_the_connection_to_its_members(
    setup: dict[str, Any], client: Client
) -> None:
    client.force_login(setup["manager"])
    page = client.get(f"/studies/{setup['study'].pk}/").content.decode()
    assert "Live from Label Studio" in page
    assert "connection works: 3 users, 3 controls mapped" in page
    assert "Sync now" in page
    assert TOKEN not in page


def test_a_sync_from_the_study_page(
    setup: dict[str, Any], client: Client, eager_commits: Any
) -> None:
    client.force_login(setup["manager"])
    connection = setup["connection"]
    with eager_commits(execute=True):
        answer = client.post(f"/studies/{setup['study'].pk}/label-studio/{connection.pk}/sync/")
    assert answer.status_code == 302
    assert LabelStudioSync.objects.get().status == "done"


def test_reencrypt_moves_every_token_to_the_current_key(
    setup: dict[str, Any], settings: Any
) -> None:
    from django.core.management import call_command

    old = settings.AGREEMENT_CONNECTION_KEY or settings.SECRET_KEY
    settings.AGREEMENT_CONNECTION_KEY = "rotated-" + "z" * 40
    settings.AGREEMENT_CONNECTION_OLD_KEYS = [old]
    call_command("connections_reencrypt")
    settings.AGREEMENT_CONNECTION_OLD_KEYS = []
    connection = LabelStudioConnection.objects.get()
    assert connection_secrets.token_decrypt(connection.token_encrypted) == TOKEN
