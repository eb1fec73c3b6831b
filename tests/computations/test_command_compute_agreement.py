"""manage.py compute_agreement: request (and wait for) a computation, or sweep."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import CommandError, call_command

from computations.models import Computation, ComputationStatus, ComputationTrigger
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db


def test_the_command_queues_a_computation_that_the_worker_finishes(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, [["a", "b", "a", "c"], ["a", "b", "b", "c"]])
    out = StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command(
            "compute_agreement", study=study.pk, question=question.key, round=[round_.pk],
            bootstrap=50, stdout=out,
        )  # fmt: skip
    computation = Computation.objects.get()
    assert computation.trigger == ComputationTrigger.COMMAND
    assert computation.status == ComputationStatus.DONE, computation.error
    assert f"Queued computation {computation.pk}" in out.getvalue()
    again = StringIO()
    call_command(
        "compute_agreement", study=study.pk, question=question.key, round=[round_.pk],
        bootstrap=50, wait=True, stdout=again,
    )  # fmt: skip
    assert "Found existing" in again.getvalue()
    assert '"alpha"' in again.getvalue()


def test_the_command_refuses_an_unknown_question(study: Any) -> None:
    with pytest.raises(CommandError):
        call_command("compute_agreement", study=study.pk, question="nope")


def test_the_command_sweeps(db: None) -> None:
    out = StringIO()
    call_command("compute_agreement", sweep=True, stdout=out)
    assert "Requeued 0" in out.getvalue()
