"""What the kinds whose value is one structure per item (a text, a ranking, a preference)
share: their computation's refusals, and turning a library report's ``disputed`` list into
the stored ``most_disputed``."""

from __future__ import annotations

from typing import Any

from studies.kinds.base import Feature
from studies.kinds.common import INTERVAL_DEFAULTS
from studies.kinds.values import Label, LabelError, LabelErrorCode

UPLOAD_HINT = (
    "This question's values are structured (a text, a ranking, a preference): upload them to "
    "POST /api/v1/studies/{study}/annotations/structured/, not as single labels."
)
NOT_YET = "(its values are compared by a distance of their own, not as labels)"
REFUSALS = {
    Feature.REVIEW: f"This kind has no review queue yet {NOT_YET}.",
    Feature.ADJUDICATION: f"This kind has no item adjudication yet {NOT_YET}.",
    Feature.REFERENCE: f"This kind has no item reference yet {NOT_YET}.",
    Feature.PLANNING: "a plan in items does not apply to it yet.",
    Feature.QUALITY: "Coder quality models need one category per annotation.",
}
MOST_DISPUTED = 50
ITEM_TEMPLATE = "pages/structured_values_item.html"


def refuse_single_label(scheme: Any, raw: Any) -> Label:
    raise LabelError(LabelErrorCode.STRUCTURED_QUESTION, UPLOAD_HINT)


def defaults(coefficients: tuple[str, ...], **options: Any) -> dict[str, Any]:
    return {"coefficients": list(coefficients), **options, **INTERVAL_DEFAULTS}


def with_disputed(result: dict[str, Any], value_key: str, params: Any) -> dict[str, Any]:
    """The report with the coefficients asked for and ``most_disputed`` (``name``, ``value``)."""
    wanted = set(params["coefficients"])
    result["coefficients"] = {k: v for k, v in result["coefficients"].items() if k in wanted}
    result["most_disputed"] = [
        {**entry, "name": entry["item"], "value": entry.get(value_key)}
        for entry in result.pop("disputed", [])[:MOST_DISPUTED]
    ]
    return result
