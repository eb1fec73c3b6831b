"""The webhooks app's answers to other apps' signals."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from computations.signals import computation_finished
from review.signals import review_items_added
from webhooks.services import webhooks_on_computation_finished, webhooks_on_review_items_added


@receiver(computation_finished, dispatch_uid="webhooks.computation_finished")
def notify_computation_finished(sender: Any, *, computation_id: int, **kwargs: Any) -> None:
    webhooks_on_computation_finished(computation_id=computation_id)


@receiver(review_items_added, dispatch_uid="webhooks.review_items_added")
def notify_review_items_added(
    sender: Any, *, study_id: int, event_id: str, data: dict[str, Any], **kwargs: Any
) -> None:
    webhooks_on_review_items_added(study_id=study_id, event_id=event_id, data=data)
