"""The webhooks app's answers to other apps' signals."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from computations.signals import computation_finished
from webhooks.services import webhooks_on_computation_finished


@receiver(computation_finished, dispatch_uid="webhooks.computation_finished")
def notify_computation_finished(sender: Any, *, computation_id: int, **kwargs: Any) -> None:
    webhooks_on_computation_finished(computation_id=computation_id)
