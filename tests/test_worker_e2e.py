"""Computations end to end: PostgreSQL, Redis and real Celery worker processes.

Run with ``-p tests.plugins.services`` and ``AGREEMENT_SERVICES=1``, ``DATABASE_URL=postgres://…``
and ``CELERY_BROKER_URL=redis://…``. The API request, polling, the result, the history,
staleness, idempotency, a worker SIGKILLed in the middle of a computation, and a bootstrap
fanned out over two workers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from rest_framework.test import APIClient

from computations.models import Computation, ComputationChunk, ComputationScope, ComputationStatus
from computations.services import computation_request, computations_sweep
from computations.tasks import computation_run_task
from studies.models import Annotation, LabelKind, Role
from tests.computations.helpers import label_round, nominal_question, random_table
from tests.factories import (
    CategoryFactory,
    MembershipFactory,
    QuestionFactory,
    RoundFactory,
    StudyFactory,
    UserFactory,
)
from tests.plugins.services import WorkerProcess

pytestmark = pytest.mark.services


def wait_until(
    condition: Callable[[], bool], worker: WorkerProcess | None, timeout: float = 120.0
) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.2)
    log = worker.log()[-4000:] if worker is not None else ""
    raise AssertionError(f"Timed out after {timeout:.0f} s.\n{log}")


def status_of(pk: int) -> str:
    return Computation.objects.values_list("status", flat=True).get(pk=pk)


def finished(pk: int) -> Callable[[], bool]:
    return lambda: status_of(pk) in (ComputationStatus.DONE, ComputationStatus.FAILED)


def scope(n_coders: int, n_items: int, *, seed: int = 1) -> tuple[Any, Any, Any, Any]:
    study = StudyFactory()
    user = UserFactory()
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    question = nominal_question(study)
    round_ = RoundFactory(study=study, name="Round 1", position=1)
    label_round(round_, question, random_table(n_coders, n_items, "abc", agree=0.75, seed=seed))
    return study, user, question, round_


def test_request_poll_result_history_staleness_and_idempotency_over_the_api(
    celery_worker_process: WorkerProcess,
) -> None:
    study, user, question, round_ = scope(3, 300)
    client = APIClient()
    client.force_authenticate(user=user)
    base = f"/api/v1/studies/{study.pk}/computations/"
    body = {"question": question.pk, "round": round_.pk, "bootstrap": 200, "seed": 3}

    response = client.post(base, body, format="json")
    assert response.status_code == 202, response.json()
    location = response["Location"]
    polled: dict[str, Any] = {}

    def done() -> bool:
        polled.update(client.get(location).json())
        return polled["status"] in ("done", "failed")

    wait_until(done, celery_worker_process)
    assert polled["status"] == "done", polled["error"]
    assert polled["progress"] == 1.0
    assert len(polled["fingerprint"]) == 64
    assert polled["n_annotations"] == 900
    alpha = polled["results"]["coefficients"]["alpha"]
    assert alpha["ci"]["low"] <= alpha["value"] <= alpha["ci"]["high"]

    history = client.get(f"/api/v1/studies/{study.pk}/history/").json()
    (entry,) = history["questions"]
    assert entry["rounds"][0]["computation"] == polled["id"]
    assert entry["rounds"][0]["coefficients"]["alpha"]["value"] == alpha["value"]

    again = client.post(base, body, format="json")
    assert again.status_code == 200
    assert again.json()["id"] == polled["id"]

    # Delivered twice more: nothing runs again.
    computation_run_task.delay(polled["id"])
    computation_run_task.delay(polled["id"])
    time.sleep(2)
    computation = Computation.objects.get(pk=polled["id"])
    assert computation.attempts == 1
    assert Computation.objects.filter(question=question).count() == 1

    Annotation.objects.filter(round=round_).first().delete()
    assert client.get(location).json()["stale"] is True
    fresh = client.post(base, body, format="json")
    assert fresh.status_code == 202
    wait_until(finished(fresh.json()["id"]), celery_worker_process)
    assert status_of(fresh.json()["id"]) == ComputationStatus.DONE


def test_a_worker_killed_mid_computation_loses_nothing(
    celery_worker_process: WorkerProcess,
) -> None:
    study, _, question, round_ = scope(4, 10_000, seed=5)
    computation = computation_request(
        study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
        # Enough replicates (in one chunk) that the run lasts seconds even on an idle machine.
        parameters={"coefficients": ["alpha", "kappa", "pi"], "bootstrap": 40_000,
                    "chunk_size": 40_000, "seed": 1},
    ).computation  # fmt: skip
    wait_until(lambda: status_of(computation.pk) == "running", celery_worker_process)
    time.sleep(0.3)  # into the computation
    assert status_of(computation.pk) == ComputationStatus.RUNNING
    celery_worker_process.kill()
    assert status_of(computation.pk) == ComputationStatus.RUNNING  # stuck: its worker is gone

    celery_worker_process.start()
    time.sleep(1.5)  # longer than the sweep's timeout below: the heartbeat has stopped
    requeued = computations_sweep(timeout=timedelta(seconds=1))
    assert computation.pk in requeued
    wait_until(finished(computation.pk), celery_worker_process, timeout=300)
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    assert computation.attempts >= 2
    assert computation.results["coefficients"]["alpha"]["ci"]["low"] is not None
    assert Computation.objects.filter(question=question).count() == 1


def chaining_worker(fixture_worker: WorkerProcess, name: str) -> WorkerProcess:
    """A worker on the fixture's queue whose own follow-up tasks stay on that queue."""
    worker = WorkerProcess(
        env=fixture_worker.env,
        queue=fixture_worker.queue,
        log_path=fixture_worker.log_path.with_name(f"{name}.log"),
    )
    worker.hostname = f"{fixture_worker.queue}-{name}@%h"
    return worker


def test_a_large_bootstrap_fans_out_over_two_workers(
    celery_worker_process: WorkerProcess,
) -> None:
    # The fixture's worker would send chunks to the default queue: replace it by two
    # workers that keep them on the test's queue.
    celery_worker_process.stop()
    first, second = (chaining_worker(celery_worker_process, n) for n in ("first", "second"))
    first.start()
    second.start()
    try:
        study, _, question, round_ = scope(3, 3000, seed=7)
        computation = computation_request(
            study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
            parameters={"coefficients": ["alpha", "kappa"], "bootstrap": 4000,
                        "chunk_size": 500},
        ).computation  # fmt: skip
        wait_until(finished(computation.pk), first, timeout=300)
        computation.refresh_from_db()
        assert computation.status == ComputationStatus.DONE, computation.error
        assert computation.chunks_total == 8
        assert ComputationChunk.objects.filter(computation=computation, done=True).count() == 8
        assert computation.results["coefficients"]["alpha"]["ci"]["replicates"] == 4000
        logs = (first.log(), second.log())
        assert all("studies.computation_chunk" in log for log in logs), "one worker took no chunk"
    finally:
        first.stop()
        second.stop()


def test_a_computation_requested_while_the_broker_is_down_runs_once_it_is_back(
    celery_worker_process: WorkerProcess, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The send fails as a real unreachable Redis fails (kombu's OperationalError): 202,
    queued; the broker returns; the sweep sends it and the worker computes it."""
    from celery.canvas import Signature
    from kombu.exceptions import OperationalError

    study, user, question, round_ = scope(3, 100)
    client = APIClient()
    client.force_authenticate(user=user)

    def refused(*args: Any, **kwargs: Any) -> None:
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    with monkeypatch.context() as down:
        down.setattr(Signature, "apply_async", refused)
        response = client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 0},
            format="json",
        )
    assert response.status_code == 202, response.content
    assert response.json()["status"] == "queued"
    pk = response.json()["id"]
    time.sleep(1)
    assert status_of(pk) == ComputationStatus.QUEUED  # nothing reached the worker

    back = time.monotonic()
    assert computations_sweep() == [pk]
    wait_until(finished(pk), celery_worker_process, timeout=30)
    assert time.monotonic() - back < 30
    assert status_of(pk) == ComputationStatus.DONE


def test_a_killed_workers_computation_is_running_again_within_60_s_with_the_default_timings(
    celery_worker_process: WorkerProcess,
) -> None:
    """No timeout passed to the sweep: the production heartbeat (every 5 s, dead after
    30 s) and the sweep's period (10 s, called here as beat would)."""
    study, _, question, round_ = scope(4, 10_000, seed=6)
    computation = computation_request(
        study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
        parameters={"coefficients": ["alpha", "kappa", "pi"], "bootstrap": 40_000,
                    "chunk_size": 40_000, "seed": 2},
    ).computation  # fmt: skip
    wait_until(lambda: status_of(computation.pk) == "running", celery_worker_process)
    time.sleep(0.3)
    assert status_of(computation.pk) == ComputationStatus.RUNNING
    celery_worker_process.kill()
    killed = time.monotonic()
    celery_worker_process.start()

    def attempts() -> int:
        return Computation.objects.values_list("attempts", flat=True).get(pk=computation.pk)

    while attempts() < 2 and time.monotonic() - killed < 60:
        computations_sweep()
        time.sleep(10)
    recovered = time.monotonic() - killed
    assert attempts() >= 2, f"not claimed again {recovered:.0f} s after the kill"
    assert recovered < 60
    wait_until(finished(computation.pk), celery_worker_process, timeout=300)
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    assert Computation.objects.filter(question=question).count() == 1


# Krippendorff (2004) p. 254, as DKPro Statistics' unitizing test states it
# (docs/references.md#server-span-tv60): a continuum [150, 450), two coders, units
# (begin, end, category); alpha_U 0.8591 (tolerance 0.0005), category k 1.0.
TV60_UNITS = [
    ("r0", 225, 295, "c"), ("r0", 370, 400, "c"), ("r1", 220, 300, "c"), ("r1", 355, 375, "c"),
    ("r1", 400, 420, "c"), ("r0", 180, 240, "k"), ("r0", 300, 350, "k"), ("r1", 180, 240, "k"),
    ("r1", 300, 350, "k"),
]  # fmt: skip


def test_a_span_round_uploaded_over_the_api_is_computed_by_the_worker(
    celery_worker_process: WorkerProcess,
) -> None:
    study = StudyFactory()
    user = UserFactory()
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    question = QuestionFactory(study=study, key="units", kind=LabelKind.SPAN)
    for position, code in enumerate("ck"):
        CategoryFactory(question=question, code=code, position=position)
    RoundFactory(study=study, name="Round 1", position=1)
    client = APIClient()
    client.force_authenticate(user=user)
    upload = client.post(
        f"/api/v1/studies/{study.pk}/annotations/spans/",
        {
            "question": "units",
            "round": "Round 1",
            "documents": [{"document": "k2004", "begin": 150, "end": 450}],
            "units": [
                {"document": "k2004", "coder": coder, "begin": begin, "end": end, "label": label}
                for coder, begin, end, label in TV60_UNITS
            ],
        },
        format="json",
    )
    assert upload.status_code in (200, 201), upload.json()
    body = {"question": "units", "round": "Round 1", "bootstrap": 200, "seed": 3}
    response = client.post(f"/api/v1/studies/{study.pk}/computations/", body, format="json")
    assert response.status_code == 202, response.json()
    wait_until(finished(response.json()["id"]), celery_worker_process)
    polled = client.get(response["Location"]).json()
    assert polled["status"] == "done", polled["error"]
    alpha_u = polled["results"]["coefficients"]["alpha_u"]
    assert alpha_u["value"] == pytest.approx(0.8591, abs=5e-4)
    assert alpha_u["categories"]["k"]["value"] == pytest.approx(1.0, abs=1e-4)
    # One document: nothing to resample, so no interval, and the result says why.
    assert alpha_u["ci"] is None
    assert alpha_u["ci_reason"] == "an interval resamples documents and needs at least two; got 1."
