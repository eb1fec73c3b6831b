"""A broker outage loses no computation and answers no 5xx (issue 13, finding 2).

The broker is "down" by patching the send (``Signature.apply_async``) to raise kombu's
``OperationalError`` with the message a real unreachable Redis gives (``Error 111
connecting to 127.0.0.1:1. Connection refused.``, read from a send to a closed port).
Requests answer as usual with the stored state ``queued``; the computation is marked
unsent (``dispatched_at`` null); when the broker is back, the sweep sends it and it runs.
Tasks run eagerly in these tests, so "sent" means "run".
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

import pytest
from celery.canvas import Signature
from django.urls import reverse
from django.utils import timezone
from kombu.exceptions import OperationalError

from computations import dispatch, services, tasks
from computations.models import (
    Computation,
    ComputationChunk,
    ComputationScope,
    ComputationStatus,
)
from computations.services import computation_claim, computation_request, computations_sweep
from studies.models import Round, RoundStatus
from tests.computations.helpers import EngineDouble, label_round, nominal_question
from tests.factories import RoundFactory

REFUSED = "Error 111 connecting to 127.0.0.1:1. Connection refused."
# Two coders who agree on every item: Krippendorff's alpha is 1 (D_o = 0).
AGREEING = [["a", "a", "b", "b", "c"], ["a", "a", "b", "b", "c"]]


class Broker:
    """The broker's state for the tests: ``down`` makes every send raise; ``sent`` counts
    the messages that went through (by task name)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.down = False
        self.sent: list[tuple[str, tuple[Any, ...]]] = []
        real = Signature.apply_async

        def apply_async(signature: Signature, *args: Any, **kwargs: Any) -> Any:
            if self.down:
                raise OperationalError(REFUSED)
            self.sent.append((signature.task, tuple(signature.args)))
            return real(signature, *args, **kwargs)

        monkeypatch.setattr(Signature, "apply_async", apply_async)

    def names(self) -> list[str]:
        return [name for name, _ in self.sent]


@pytest.fixture
def broker(monkeypatch: pytest.MonkeyPatch) -> Broker:
    return Broker(monkeypatch)


@pytest.fixture
def labelled(study: Any) -> tuple[Any, Any]:
    question = nominal_question(study)
    round_: Any = RoundFactory(study=study, name="Round 1", position=1)
    label_round(round_, question, AGREEING)
    return question, round_


def test_a_computation_requested_over_the_api_while_the_broker_is_down_is_202_queued_then_sent_by_the_sweep(  # noqa: E501
    study: Any,
    manager: Any,
    labelled: Any,
    client_for: Any,
    broker: Broker,
    caplog: pytest.LogCaptureFixture,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question, round_ = labelled
    broker.down = True
    with (
        caplog.at_level(logging.WARNING, logger="computations.dispatch"),
        django_capture_on_commit_callbacks(execute=True),
    ):
        response = client_for(manager).post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 0},
            format="json",
        )
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    computation = Computation.objects.get(pk=response.json()["id"])
    assert computation.status == ComputationStatus.QUEUED
    assert computation.dispatched_at is None
    assert "the sweep sends it later" in caplog.text
    assert "OperationalError" in caplog.text

    # Still down: the sweep tries, fails quietly, and leaves it marked unsent.
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]
    computation.refresh_from_db()
    assert computation.dispatched_at is None

    broker.down = False
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]
    assert broker.names() == [dispatch.RUN_TASK]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    assert computation.results is not None
    assert computation.results["coefficients"]["alpha"]["value"] == 1.0
    assert computation.attempts == 1
    # Done: the next sweeps leave it alone.
    assert computations_sweep() == []


def test_the_page_form_while_the_broker_is_down_answers_as_usual(
    study: Any,
    manager: Any,
    labelled: Any,
    client: Any,
    broker: Broker,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question, round_ = labelled
    client.force_login(manager)
    broker.down = True
    url = reverse("pages:computation-request", args=[study.pk])
    with django_capture_on_commit_callbacks(execute=True):
        page = client.post(url, {"question": question.pk, "round": round_.pk})
        as_json = client.post(
            url,
            {"question": question.pk, "round": round_.pk},
            HTTP_ACCEPT="application/json",
        )
    assert page.status_code == 302
    assert page["Location"] == f"/studies/{study.pk}/"
    assert as_json.status_code == 200  # the same request again finds the queued one
    assert as_json.json()["status"] == "queued"
    computation = Computation.objects.get()
    assert computation.status == ComputationStatus.QUEUED
    assert computation.dispatched_at is None


def test_closing_a_round_while_the_broker_is_down_answers_200_and_queues_its_computations(
    study: Any,
    manager: Any,
    labelled: Any,
    client_for: Any,
    broker: Broker,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, round_ = labelled
    broker.down = True
    with django_capture_on_commit_callbacks(execute=True):
        response = client_for(manager).post(
            f"/api/v1/studies/{study.pk}/rounds/{round_.pk}/close/", {}, format="json"
        )
    assert response.status_code == 200, response.content
    assert Round.objects.get(pk=round_.pk).status == RoundStatus.CLOSED
    computation = Computation.objects.get()
    assert computation.trigger == "round_close"
    assert computation.status == ComputationStatus.QUEUED
    assert computation.dispatched_at is None

    broker.down = False
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error


def test_chunks_the_broker_refused_are_sent_by_the_sweep(
    study: Any,
    labelled: Any,
    broker: Broker,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    engine = EngineDouble(monkeypatch)
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False):
        computation = _request(study, question, round_, bootstrap=30, chunk_size=10)
    assert computation_claim(computation_id=computation.pk)
    broker.down = True
    with django_capture_on_commit_callbacks(execute=True):
        services.computation_run(computation_id=computation.pk)
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.RUNNING
    assert computation.phase == "chunks"
    assert computation.dispatched_at is None
    assert ComputationChunk.objects.filter(computation=computation, done=False).count() == 3

    broker.down = False
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]
    assert broker.names() == [dispatch.CHUNK_TASK] * 3 + [dispatch.COMBINE_TASK]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    assert engine.calls["bootstrap_chunks"] == 3


def test_a_combine_step_the_broker_refused_is_sent_by_the_sweep(
    study: Any,
    labelled: Any,
    broker: Broker,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    EngineDouble(monkeypatch)
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False):
        computation = _request(study, question, round_, bootstrap=20, chunk_size=10)
    assert computation_claim(computation_id=computation.pk)
    with django_capture_on_commit_callbacks(execute=False):
        services.computation_run(computation_id=computation.pk)
    broker.down = True
    with django_capture_on_commit_callbacks(execute=True):
        for chunk in ComputationChunk.objects.filter(computation=computation):
            services.computation_chunk_run(chunk_id=chunk.pk)
    computation.refresh_from_db()
    assert computation.phase == "chunks"
    assert computation.dispatched_at is None

    broker.down = False
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]
    assert broker.names() == [dispatch.COMBINE_TASK]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error


def test_a_sent_run_is_sent_again_only_after_it_went_unclaimed_for_resend_after(
    study: Any,
    labelled: Any,
    broker: Broker,
    settings: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    settings.AGREEMENT_COMPUTATION_RESEND_AFTER_SECONDS = 120
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False):  # the message is lost
        computation = _request(study, question, round_, bootstrap=0)
    assert computations_sweep() == []
    Computation.objects.filter(pk=computation.pk).update(
        dispatched_at=timezone.now() - timedelta(seconds=119)
    )
    assert computations_sweep() == []
    Computation.objects.filter(pk=computation.pk).update(
        dispatched_at=timezone.now() - timedelta(seconds=121)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error


def test_two_deliveries_of_the_same_run_make_one_result(
    study: Any,
    labelled: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    engine = EngineDouble(monkeypatch)
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False):
        computation = _request(study, question, round_, bootstrap=0)
    tasks.computation_run_task(computation.pk)
    computation.refresh_from_db()
    first = (computation.finished_at, computation.results)
    tasks.computation_run_task(computation.pk)  # the duplicate (re-sent by the sweep)
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE
    assert computation.attempts == 1
    assert (computation.finished_at, computation.results) == first
    assert engine.calls["point_report"] == 1
    assert Computation.objects.count() == 1


def test_a_requeued_computations_old_worker_cannot_overwrite_or_fail_it(
    study: Any,
    labelled: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """The old worker was only paused: its heartbeat went stale, the sweep requeued the
    computation, a new worker finished it; then the old one wakes up."""
    engine = EngineDouble(monkeypatch)
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False):
        computation = _request(study, question, round_, bootstrap=0)
    assert computation_claim(computation_id=computation.pk)  # the old worker, attempt 1
    Computation.objects.filter(pk=computation.pk).update(
        heartbeat_at=timezone.now() - timedelta(minutes=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep() == [computation.pk]  # the new worker runs attempt 2
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE
    assert computation.attempts == 2
    done = (computation.finished_at, computation.results)

    services.computation_run(computation_id=computation.pk)  # the old worker's step
    services.computation_fail(computation_id=computation.pk, error="old worker crashed")
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE
    assert (computation.finished_at, computation.results) == done
    assert engine.calls["point_report"] == 1
    assert Computation.objects.count() == 1


def _request(study: Any, question: Any, round_: Round, **parameters: Any) -> Computation:
    return computation_request(
        study=study,
        question=question,
        scope=ComputationScope.ROUND,
        rounds=[round_],
        parameters=parameters,
    ).computation


def test_an_old_workers_crash_does_not_fail_the_new_attempt(
    study: Any,
    labelled: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    EngineDouble(monkeypatch)
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False):
        computation = _request(study, question, round_, bootstrap=0)
    assert computation_claim(computation_id=computation.pk)  # attempt 1, then silent
    Computation.objects.filter(pk=computation.pk).update(
        heartbeat_at=timezone.now() - timedelta(minutes=1)
    )
    with django_capture_on_commit_callbacks(execute=False):
        assert computations_sweep() == [computation.pk]
    assert computation_claim(computation_id=computation.pk)  # attempt 2 is running

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the old worker lost its database")

    monkeypatch.setattr(services, "_load", crash)
    old = Computation.objects.get(pk=computation.pk)
    old.attempts = 1  # what the old worker read when it started

    def step(_: Computation) -> None:
        crash()

    monkeypatch.setattr(
        Computation.objects, "select_related", lambda *a: _Stale(old), raising=False
    )
    services._run_guarded(computation.pk, step)
    monkeypatch.undo()
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.RUNNING
    assert computation.attempts == 2
    assert computation.error == ""
    assert not services.computation_fail(computation_id=computation.pk, error="x", attempt=1)
    assert services.computation_fail(computation_id=computation.pk, error="x", attempt=2)


class _Stale:
    """``Computation.objects.select_related(...).filter(...).first()`` as the old worker
    read it."""

    def __init__(self, computation: Computation) -> None:
        self.computation = computation

    def filter(self, **_: Any) -> _Stale:
        return self

    def first(self) -> Computation:
        return self.computation
