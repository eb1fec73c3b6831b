"""The value every coefficient returns."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class CoefficientResult:
    """A coefficient with the quantities it was computed from.

    ``observed`` and ``expected`` are agreements for the kappa family (``value =
    (observed - expected) / (1 - expected)``) and disagreements for alpha (``value = 1 -
    observed / expected``); ``kind`` says which, so a report can name them.
    """

    name: str
    value: float
    observed: float
    expected: float
    kind: Literal["agreement", "disagreement"]
    n_items: int
    n_pairable_items: int
    n_coders: int
