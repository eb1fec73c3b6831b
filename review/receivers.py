"""The review app's answers to other apps' signals."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from computations.signals import computation_finished
from review.services import review_queue_on_computation_finished


@receiver(computation_finished, dispatch_uid="review.computation_finished")
def rebuild_review_queue(sender: Any, *, computation_id: int, **kwargs: Any) -> None:
    # Sent on the worker once the computation is done: the queue is built there too.
    review_queue_on_computation_finished(computation_id=computation_id)
