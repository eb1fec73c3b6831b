"""``agreement_client`` against the live test server (a real HTTP server in a thread;
Celery runs eagerly, so a requested computation is done when the request returns)."""

from __future__ import annotations

from typing import Any

import pytest

from agreement_client import (
    AgreementClient,
    AuthenticationError,
    ComputationFailedError,
    ConflictError,
    ConnectionFailedError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
)
from studies.models import Annotation, Role, RoundStatus
from tests.computations.helpers import nominal_question
from tests.factories import (
    ApiTokenFactory,
    MembershipFactory,
    QuestionFactory,
    RoundFactory,
    StudyFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db(transaction=True)

ROUND_1 = [
    ("post-1", "alice", "a"), ("post-1", "bob", "a"), ("post-1", "chen", "a"),
    ("post-2", "alice", "b"), ("post-2", "bob", "b"), ("post-2", "chen", "c"),
    ("post-3", "alice", "c"), ("post-3", "bob", "c"), ("post-3", "chen", "c"),
    ("post-4", "alice", "a"), ("post-4", "bob", "b"), ("post-4", "chen", "a"),
    ("post-5", "alice", "b"), ("post-5", "bob", "b"), ("post-5", "chen", "b"),
]  # fmt: skip


@pytest.fixture
def setup(live_server: Any) -> dict[str, Any]:
    study = StudyFactory(name="Live study")
    user = UserFactory(username="integration")
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    _token, secret = ApiTokenFactory.create_with_secret(user=user)
    question = nominal_question(study, key="sentiment")
    QuestionFactory(study=study, key="unused")
    first = RoundFactory(study=study, name="Round 1", position=1)
    return {
        "client": AgreementClient(live_server.url, secret),
        "study": study,
        "question": question,
        "round": first,
        "url": live_server.url,
    }


def test_a_tool_uploads_requests_waits_and_reads_the_history(setup: dict[str, Any]) -> None:
    client, study = setup["client"], setup["study"]

    report = client.upload_annotations(
        study.pk, round="Round 1", question="sentiment", rows=ROUND_1, create_missing=True
    )
    assert report == {
        "created": 15, "updated": 0, "unchanged": 0, "items_created": 5, "coders_created": 3,
        "categories_created": [],
    }  # fmt: skip
    again = client.upload_annotations(
        study.pk, "Round 1", "sentiment", [{"item": "post-1", "coder": "alice", "label": "a"}]
    )
    assert again["unchanged"] == 1

    computation = client.request_computation(
        study.pk, question="sentiment", round="Round 1", bootstrap=0, coefficients=["alpha"]
    )
    assert computation["url"].startswith(setup["url"])
    done = client.wait_for_computation(computation, timeout=30, poll=0.05)
    assert done["status"] == "done"
    alpha = done["results"]["coefficients"]["alpha"]["value"]
    assert -1 <= alpha <= 1
    assert client.wait_for_computation(done["id"], study_id=study.pk)["id"] == done["id"]
    assert client.wait_for_computation(done["url"])["id"] == done["id"]

    history = client.history(study.pk, question="sentiment")
    (entry,) = history["questions"]
    assert entry["question_key"] == "sentiment"
    (round_1,) = entry["rounds"]
    assert round_1["round_name"] == "Round 1"
    assert round_1["computation"] == done["id"]
    assert round_1["coefficients"]["alpha"]["value"] == pytest.approx(alpha)

    listed = list(client.list_computations(study.pk, status="done"))
    assert [c["id"] for c in listed] == [done["id"]]


def test_a_csv_upload_goes_through_the_same_checks(setup: dict[str, Any]) -> None:
    client, study = setup["client"], setup["study"]
    text = AgreementClient.rows_to_csv(ROUND_1[:6])
    report = client.upload_csv(
        study.pk, text, round=setup["round"].pk, question="sentiment", create_missing=True
    )
    assert report["created"] == 6
    assert Annotation.objects.filter(round=setup["round"]).count() == 6


def test_list_methods_walk_every_page(setup: dict[str, Any]) -> None:
    client, study = setup["client"], setup["study"]
    client.upload_annotations(study.pk, "Round 1", "sentiment", ROUND_1, create_missing=True)
    items = list(client.iterate(f"studies/{study.pk}/items/", page_size=2))
    assert sorted(i["external_id"] for i in items) == [f"post-{n}" for n in range(1, 6)]
    assert len(list(client.list_annotations(study.pk, question="sentiment"))) == 15
    assert {c["key"] for c in client.list_coders(study.pk)} == {"alice", "bob", "chen"}
    assert [s["name"] for s in client.list_studies()] == ["Live study"]
    assert [q["key"] for q in client.list_questions(study.pk)] == ["sentiment", "unused"]


def test_a_refused_upload_raises_with_the_servers_codes_and_rows(setup: dict[str, Any]) -> None:
    client, study = setup["client"], setup["study"]
    rows = [("post-1", "alice", "a"), ("post-1", "bob", "zzz"), ("post-2", "chen", ["a", "b"])]
    with pytest.raises(InvalidRequestError) as caught:
        client.upload_annotations(study.pk, "Round 1", "sentiment", rows, create_missing=True)
    error = caught.value
    assert error.status == 400
    assert error.type == "validation_error"
    assert error.codes == ["unknown_category", "set_for_single_label"]
    assert [e.attr for e in error.errors] == ["annotations.1.label", "annotations.2.label"]
    assert "annotations.1.label" in str(error)
    assert not Annotation.objects.exists()  # all or none


def test_a_closed_round_raises_a_conflict(setup: dict[str, Any]) -> None:
    from django.utils import timezone

    round_ = setup["round"]
    round_.status, round_.closed_at = RoundStatus.CLOSED, timezone.now()
    round_.save()
    with pytest.raises(ConflictError) as caught:
        setup["client"].upload_annotations(
            setup["study"].pk, "Round 1", "sentiment", ROUND_1, create_missing=True
        )
    assert caught.value.codes == ["round_closed"]


def test_a_failed_computation_raises_with_the_servers_reason(
    setup: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    def undefined(*args: Any, **kwargs: Any) -> None:
        raise ValueError("There has to be at least one pairable item.")

    # The worker runs in this process (eager Celery): its engine fails as a real one can.
    monkeypatch.setattr("computations.services.engine.point_report", undefined)
    client, study = setup["client"], setup["study"]
    client.upload_annotations(study.pk, "Round 1", "sentiment", ROUND_1, create_missing=True)
    computation = client.request_computation(study.pk, question="sentiment", round="Round 1")
    with pytest.raises(ComputationFailedError) as caught:
        client.wait_for_computation(computation, timeout=30, poll=0.05)
    assert "There has to be at least one pairable item." in str(caught.value)
    assert caught.value.computation["status"] == "failed"


def test_a_computation_of_nothing_is_an_invalid_request(setup: dict[str, Any]) -> None:
    client, study = setup["client"], setup["study"]
    with pytest.raises(InvalidRequestError) as caught:
        client.request_computation(study.pk, question="unused", round="Round 1")
    assert caught.value.status == 400
    assert caught.value.codes == ["empty_scope"]


def test_unknown_names_and_other_studies_raise_not_found(setup: dict[str, Any]) -> None:
    client, study = setup["client"], setup["study"]
    with pytest.raises(NotFoundError):
        client.request_computation(study.pk, question="nope", round="Round 1")
    with pytest.raises(NotFoundError):
        client.request_computation(study.pk, question="sentiment", round="Round 9")
    other = StudyFactory(name="Not mine")
    with pytest.raises(NotFoundError) as caught:
        client.history(other.pk)
    assert caught.value.status == 404
    assert caught.value.codes == ["not_found"]


def test_a_viewer_token_cannot_upload_and_a_wrong_token_is_refused(
    setup: dict[str, Any],
) -> None:
    study = setup["study"]
    _token, viewer_secret = ApiTokenFactory.create_with_secret(
        study=study, user=None, role=Role.VIEWER
    )
    viewer = AgreementClient(setup["url"] + "/api/v1/", viewer_secret)
    assert viewer.history(study.pk)["study"] == study.pk  # reading is allowed
    with pytest.raises(PermissionDeniedError) as denied:
        viewer.upload_annotations(study.pk, "Round 1", "sentiment", ROUND_1, create_missing=True)
    assert denied.value.status == 403
    assert denied.value.codes == ["permission_denied"]

    with pytest.raises(AuthenticationError) as refused:
        list(AgreementClient(setup["url"], "not-a-token").list_studies())
    assert refused.value.status == 401


def test_an_unreachable_server_raises_connection_failed(setup: dict[str, Any]) -> None:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = AgreementClient(f"http://127.0.0.1:{port}", "token", timeout=5)
    with pytest.raises(ConnectionFailedError):
        client.study(1)


def test_a_tool_registers_a_webhook_and_its_ping_arrives_signed(
    setup: dict[str, Any], settings: Any
) -> None:
    from agreement_client import verify_webhook_signature
    from tests.webhooks.receiver import running_receiver

    settings.AGREEMENT_WEBHOOKS_ALLOW_PRIVATE = True
    client, study = setup["client"], setup["study"]
    with running_receiver(script=[503]) as receiver:
        endpoint = client.register_webhook(study.pk, receiver.url, threshold=None)
        assert endpoint["secret"].startswith("whsec_")
        delivery = client.ping_webhook(study.pk, endpoint["id"])
        assert delivery["event"] == "ping"
    assert len(receiver.requests) == 2  # 503, then 200
    last = receiver.requests[-1]
    assert verify_webhook_signature(
        secret=endpoint["secret"],
        body=last.body,
        timestamp=last.headers["X-Agreement-Timestamp"],
        signature=last.headers["X-Agreement-Signature"],
    )
    (logged,) = client.list_webhook_deliveries(study.pk, endpoint["id"])
    assert logged["status"] == "succeeded"
    assert [a["status_code"] for a in logged["attempt_log"]] == [503, 200]
    assert [w["id"] for w in client.list_webhooks(study.pk)] == [endpoint["id"]]
    assert "secret" not in next(iter(client.list_webhooks(study.pk)))


def test_a_tool_names_questions_and_rounds_by_id_or_by_key_and_name(
    setup: dict[str, Any],
) -> None:
    client, study = setup["client"], setup["study"]
    question, round_ = setup["question"], setup["round"]

    report = client.upload_annotations(
        study.pk, round_.pk, question.pk, ROUND_1[:3], create_missing=True
    )
    by_names = list(client.list_annotations(study.pk, round="Round 1", question="sentiment"))
    by_ids = list(client.list_annotations(study.pk, round=round_.pk, question=question.pk))

    assert report["created"] == 3
    assert {(a["item"], a["coder"], a["label"]) for a in by_names} == {
        ("post-1", "alice", "a"), ("post-1", "bob", "a"), ("post-1", "chen", "a"),
    }  # fmt: skip
    assert by_ids == by_names
    with pytest.raises(InvalidRequestError) as caught:
        list(client.list_annotations(study.pk, question="mood"))
    assert caught.value.codes == ["unknown_question"]
