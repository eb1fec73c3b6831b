"""The review app's answers to other apps' signals."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from adjudication.signals import items_adjudicated
from computations.signals import computation_finished
from review.services import review_entries_adjudicated, review_queue_on_computation_finished


@receiver(computation_finished, dispatch_uid="review.computation_finished")
def rebuild_review_queue(sender: Any, *, computation_id: int, **kwargs: Any) -> None:
    # Sent on the worker once the computation is done: the queue is built there too.
    review_queue_on_computation_finished(computation_id=computation_id)


@receiver(items_adjudicated, dispatch_uid="review.items_adjudicated")
def take_adjudicated_items_out(
    sender: Any, *, round_id: int, question_id: int, item_ids: list[int], **kwargs: Any
) -> None:
    # Sent inside the adjudication's transaction: the queue changes with it or not at all.
    review_entries_adjudicated(
        round_id=round_id,
        question_id=question_id,
        item_ids=item_ids,
        note=kwargs.get("note", ""),
        user=kwargs.get("user"),
    )
