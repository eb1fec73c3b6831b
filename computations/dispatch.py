"""Sending computation work to the workers, after the surrounding transaction commits.

Tasks are addressed by name (the names in ``computations/tasks.py``), so the services that
enqueue work need not import the task module that imports them.
"""

from __future__ import annotations

from collections.abc import Sequence

from celery import signature
from django.db import transaction

RUN_TASK = "studies.computation_run"
CHUNK_TASK = "studies.computation_chunk"
COMBINE_TASK = "studies.computation_combine"
SWEEP_TASK = "studies.computations_sweep"


def computation_run_enqueue(computation_id: int) -> None:
    transaction.on_commit(lambda: signature(RUN_TASK, args=(computation_id,)).delay())


def computation_chunks_enqueue(chunk_ids: Sequence[int]) -> None:
    ids = list(chunk_ids)

    def send() -> None:
        for chunk_id in ids:
            signature(CHUNK_TASK, args=(chunk_id,)).delay()

    transaction.on_commit(send)


def computation_combine_enqueue(computation_id: int) -> None:
    transaction.on_commit(lambda: signature(COMBINE_TASK, args=(computation_id,)).delay())
