"""The adjudication app's answers to other apps' signals."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from adjudication.services import reference_on_computation_finished
from computations.signals import computation_finished


@receiver(computation_finished, dispatch_uid="adjudication.computation_finished")
def refresh_reference_results(sender: Any, *, computation_id: int, **kwargs: Any) -> None:
    # Sent on the worker once the computation is done: the results are requested there.
    reference_on_computation_finished(computation_id=computation_id)
