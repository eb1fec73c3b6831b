"""Sending computation work to the workers, after the surrounding transaction commits.

This is the computations' side of the transactional outbox: the computation (or chunk) row
is committed with the request, marked as handed over (``Computation.dispatched_at``), and
the message is sent once the transaction commits. When the broker refuses (it is down),
the failure is logged, the mark cleared, and the work left to the sweep
(``computations_sweep``), which sends it again once the broker is back: the request that
queued it still succeeds. Nothing here raises because of the broker.

Tasks are addressed by name (the names in ``computations/tasks.py``), so the services that
enqueue work need not import the task module that imports them.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import transaction

from agreement_server.outbox import task_send
from computations.models import Computation, ComputationStatus, RoundComparison

RUN_TASK = "studies.computation_run"
CHUNK_TASK = "studies.computation_chunk"
COMBINE_TASK = "studies.computation_combine"
ITEM_CHUNK_TASK = "computations.item_chunk"
SWEEP_TASK = "studies.computations_sweep"
COMPARISON_TASK = "computations.comparison_run"


def computation_run_enqueue(computation_id: int) -> None:
    """Send the run task once the current transaction commits."""
    transaction.on_commit(lambda: computation_run_send(computation_id))


def computation_chunks_enqueue(computation_id: int, chunk_ids: Sequence[int]) -> None:
    """Send one task per chunk of ``computation_id`` once the current transaction commits."""
    ids = list(chunk_ids)
    transaction.on_commit(lambda: computation_chunks_send(computation_id, ids))


def computation_item_chunks_enqueue(computation_id: int, chunk_ids: Sequence[int]) -> None:
    """Send one task per item chunk of ``computation_id`` once the transaction commits."""
    ids = list(chunk_ids)
    transaction.on_commit(lambda: computation_item_chunks_send(computation_id, ids))


def computation_combine_enqueue(computation_id: int) -> None:
    """Send the combine task once the current transaction commits."""
    transaction.on_commit(lambda: computation_combine_send(computation_id))


def computation_run_send(computation_id: int) -> bool:
    """Send the run task now; False (logged, left to the sweep) if the broker refused it."""
    return _send(computation_id, [(RUN_TASK, computation_id)])


def computation_chunks_send(computation_id: int, chunk_ids: Sequence[int]) -> bool:
    """Send the chunk tasks now; False if the broker refused one (the rest are not tried)."""
    return _send(computation_id, [(CHUNK_TASK, chunk_id) for chunk_id in chunk_ids])


def computation_item_chunks_send(computation_id: int, chunk_ids: Sequence[int]) -> bool:
    """Send the item chunk tasks now; False if the broker refused one (the rest are not tried)."""
    return _send(computation_id, [(ITEM_CHUNK_TASK, chunk_id) for chunk_id in chunk_ids])


def computation_combine_send(computation_id: int) -> bool:
    """Send the combine task now; False (logged, left to the sweep) if the broker refused it."""
    return _send(computation_id, [(COMBINE_TASK, computation_id)])


def _send(computation_id: int, messages: list[tuple[str, int]]) -> bool:
    unsent = Computation.objects.filter(
        pk=computation_id, status__in=(ComputationStatus.QUEUED, ComputationStatus.RUNNING)
    )
    what = f"computation work id={computation_id}"
    return all(task_send(task, argument, unsent=unsent, what=what) for task, argument in messages)


# -- comparisons of two rounds (``computations/comparison_requests.py``) ----------------------


def comparison_run_enqueue(comparison_id: int) -> None:
    """Send the comparison's run task once the current transaction commits."""
    transaction.on_commit(lambda: comparison_run_send(comparison_id))


def comparison_run_send(comparison_id: int) -> bool:
    """Send the comparison's run task now; False (logged, left to the sweep) if refused."""
    unsent = RoundComparison.objects.filter(
        pk=comparison_id, status__in=(ComputationStatus.QUEUED, ComputationStatus.RUNNING)
    )
    return task_send(
        COMPARISON_TASK, comparison_id, unsent=unsent, what=f"comparison id={comparison_id}"
    )
