"""Parts the label kinds (one value per item and coder) share."""

from __future__ import annotations

from typing import Any

from studies.kinds.base import Feature

#: What every label kind has beyond its agreement.
LABEL_FEATURES = frozenset(
    {Feature.REVIEW, Feature.ADJUDICATION, Feature.REFERENCE, Feature.PLANNING}
)
#: The label report's chance-corrected coefficients of one category per value.
CATEGORICAL_COEFFICIENTS = ("observed_agreement", "s", "pi", "kappa", "alpha", "light_kappa", "ac1")
#: Coefficients whose per-item sums need no weights (a computation split by item ranges).
UNWEIGHTED = ("observed_agreement", "s", "pi", "kappa", "light_kappa")
#: The uncertainty every label computation reports unless told otherwise.
INTERVAL_DEFAULTS: dict[str, Any] = {"bootstrap": 1000, "seed": 0, "confidence": 0.95}

QUALITY_REFUSAL = (
    "Coder quality models need one category per annotation: nominal or ordinal questions."
)


def label_defaults(coefficients: tuple[str, ...], level: str, distance: str) -> dict[str, Any]:
    return {
        "coefficients": list(coefficients),
        "level": level,
        "distance": distance,
        **INTERVAL_DEFAULTS,
    }
