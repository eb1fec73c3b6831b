"""The shared lifecycle of worker jobs (``agreement_server.worker_jobs``) on real models:
``PlanRequest`` (with a heartbeat and attempts) and ``ReferenceResult`` (without)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from adjudication.models import ReferenceResult
from agreement_server.worker_jobs import (
    JobStatus,
    job_attempt,
    job_beat,
    job_claim,
    job_fail,
    job_finish,
    job_has_heartbeat,
    jobs_sweep,
)
from planning.models import PlanRequest
from tests.factories import QuestionFactory, RoundFactory, StudyFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def question() -> Any:
    return QuestionFactory(study=StudyFactory())


def _plan(question: Any, **fields: Any) -> PlanRequest:
    fields = {"dispatched_at": timezone.now(), **fields}
    return PlanRequest.objects.create(study=question.study, question=question, target=0.5, **fields)


def _sweep(model: Any, now: Any) -> tuple[list[int], list[int]]:
    sent: list[int] = []
    taken = jobs_sweep(
        model,
        send=sent.append,
        silent_before=now - timedelta(minutes=1),
        sent_before=now - timedelta(minutes=5),
        now=now,
    )
    return taken, sent


def test_the_second_claim_of_a_job_gets_nothing(question: Any) -> None:
    plan = _plan(question, progress=0.4, error="an earlier failure")
    assert job_claim(PlanRequest, plan.pk, progress=0.0) is True
    assert job_claim(PlanRequest, plan.pk, progress=0.0) is False
    plan.refresh_from_db()
    assert (plan.status, plan.attempts, plan.progress, plan.error) == ("running", 1, 0.0, "")
    assert plan.heartbeat_at == plan.started_at is not None


def test_the_sweep_takes_a_silent_running_job_and_leaves_a_beating_one(question: Any) -> None:
    now = timezone.now()
    silent, beating = _plan(question), _plan(question)
    for plan in (silent, beating):
        assert job_claim(PlanRequest, plan.pk)
    PlanRequest.objects.filter(pk=silent.pk).update(heartbeat_at=now - timedelta(minutes=2))
    beating.refresh_from_db()
    job_beat(beating, progress=0.5)
    assert _sweep(PlanRequest, now) == ([silent.pk], [silent.pk])
    silent.refresh_from_db()
    beating.refresh_from_db()
    assert (silent.status, silent.heartbeat_at, silent.dispatched_at) == ("queued", None, now)
    assert (beating.status, beating.progress) == ("running", 0.5)
    # Marked sent just now: the next sweep leaves it to the message it was sent.
    assert _sweep(PlanRequest, now) == ([], [])


def test_the_sweep_sends_a_job_never_sent_or_sent_long_ago_once(question: Any) -> None:
    now = timezone.now()
    refused = _plan(question, dispatched_at=None)
    lost = _plan(question, dispatched_at=now - timedelta(minutes=6))
    _plan(question, dispatched_at=now - timedelta(minutes=4))  # its message may still come
    taken, sent = _sweep(PlanRequest, now)
    assert sorted(taken) == sorted(sent) == sorted([refused.pk, lost.pk])
    assert _sweep(PlanRequest, now) == ([], [])


def test_finishing_is_idempotent_and_only_for_the_attempt_that_claimed(question: Any) -> None:
    plan = _plan(question)
    assert job_claim(PlanRequest, plan.pk)
    first = PlanRequest.objects.get(pk=plan.pk)
    assert job_finish(first, status=JobStatus.DONE, result={"n": 1}) == 1
    assert job_finish(first, status=JobStatus.DONE, result={"n": 2}) == 0
    assert job_fail(first, "too late") == 0
    plan.refresh_from_db()
    assert (plan.status, plan.result, plan.error) == ("done", {"n": 1}, "")
    # A requeued job claimed again: the old attempt's answer is not stored.
    PlanRequest.objects.filter(pk=plan.pk).update(status=JobStatus.QUEUED)
    assert job_claim(PlanRequest, plan.pk)
    assert not job_attempt(first).exists()
    assert job_finish(first, status=JobStatus.DONE, result={"n": 3}) == 0
    second = PlanRequest.objects.get(pk=plan.pk)
    assert job_fail(second, "x" * 6000) == 1
    second.refresh_from_db()
    assert (second.status, second.attempts, len(second.error)) == ("failed", 2, 5000)


def test_a_job_without_a_heartbeat_is_swept_by_the_age_of_its_start() -> None:
    round_ = RoundFactory()
    result = ReferenceResult.objects.create(
        round=round_, question=QuestionFactory(study=round_.study), dispatched_at=timezone.now()
    )
    assert not job_has_heartbeat(ReferenceResult)
    assert job_has_heartbeat(PlanRequest)
    assert job_claim(ReferenceResult, result.pk)
    assert not job_claim(ReferenceResult, result.pk)
    started = ReferenceResult.objects.get(pk=result.pk).started_at
    assert _sweep(ReferenceResult, started + timedelta(seconds=59)) == ([], [])
    later = started + timedelta(seconds=61)
    assert _sweep(ReferenceResult, later) == ([result.pk], [result.pk])
    result.refresh_from_db()
    assert (result.status, result.dispatched_at) == ("queued", later)
