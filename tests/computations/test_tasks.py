"""Celery tasks: ids in, JSON only, quiet on missing rows, safe to deliver twice."""

from __future__ import annotations

import inspect
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from computations import tasks
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.services import computation_claim, computation_request
from tests.computations.helpers import EngineDouble, label_round, nominal_question
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    "task",
    [
        tasks.computation_run_task,
        tasks.computation_chunk_task,
        tasks.computation_combine_task,
    ],
)
def test_every_task_takes_one_integer_id(task: Any) -> None:
    parameters = list(inspect.signature(task.run).parameters.values())
    assert len(parameters) == 1
    assert parameters[0].annotation in (int, "int")


def test_tasks_on_rows_that_are_gone_return_quietly() -> None:
    tasks.computation_run_task(424242)
    tasks.computation_chunk_task(424242)
    tasks.computation_combine_task(424242)


def test_tasks_serialise_as_json(settings: Any) -> None:
    assert settings.CELERY_TASK_SERIALIZER == "json"
    assert settings.CELERY_TASK_ACKS_LATE is True
    assert settings.CELERY_TASK_REJECT_ON_WORKER_LOST is True


def test_the_sweep_task_requeues_a_dead_workers_computation(
    study: Any, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> None:
    EngineDouble(monkeypatch)
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, [["a", "b"], ["a", "b"]])
    computation = computation_request(
        study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
        parameters={"bootstrap": 0},
    ).computation  # fmt: skip
    computation_claim(computation_id=computation.pk)
    Computation.objects.filter(pk=computation.pk).update(
        heartbeat_at=timezone.now() - timedelta(days=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        tasks.computations_sweep_task()
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE
