"""The computations app's answers to other apps' signals."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from computations.services import computations_request_for_closed_round
from studies.models import Round
from studies.signals import round_closed


@receiver(round_closed, dispatch_uid="computations.round_closed")
def compute_closed_round(sender: Any, *, round: Round, **kwargs: Any) -> None:
    # A closed round's agreement is computed at once, on the workers, after the commit.
    computations_request_for_closed_round(round=round)
