"""A model coder's confidence in each of its labels: read from an upload's ``confidence``
field or a tool's prediction score, checked, and written to ``ModelConfidence`` (a table of
its own, so the annotations' COPY path carries no column for it) in one bulk statement per
batch. The model-coder step of a computation reads it for the calibration."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from studies.models import Coder, CoderKind, ModelConfidence, Question, Round

#: The field of an upload row, and the error code of a bad value.
FIELD = "confidence"
INVALID = "invalid_confidence"
NOT_A_MODEL = "confidence_of_a_person"
_BATCH = 5000


def confidence_value(raw: Any) -> float | None:
    """The confidence of a row (None when not given); ``ValueError`` with the reason when it
    is not a number from 0 to 1."""
    if raw is None or raw == "":
        return None
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise ValueError("The confidence is a number from 0 to 1.")
    try:
        value = float(raw)
    except ValueError:
        raise ValueError("The confidence is a number from 0 to 1.") from None
    if not math.isfinite(value) or not 0 <= value <= 1:
        raise ValueError("The confidence is a number from 0 to 1.")
    return value


def person_coders(coder_ids: Iterable[int]) -> set[int]:
    """Those of ``coder_ids`` that are not model coders (a confidence is a model's)."""
    ids = set(coder_ids)
    models = set(
        Coder.objects.filter(pk__in=ids, kind=CoderKind.MODEL).values_list("id", flat=True)
    )
    return ids - models


def not_a_model_message(coder: str) -> str:
    return (
        f"Only a model coder's label has a confidence; coder {coder!r} is a person "
        "(make it a model coder first, kind model)."
    )


def model_confidences_write(
    *, round_: Round, question: Question, confidences: Mapping[tuple[int, int], float]
) -> int:
    """Create or replace the confidence of each ``(item id, coder id)``; how many."""
    rows = [
        ModelConfidence(
            round=round_, question=question, item_id=item, coder_id=coder, confidence=value
        )
        for (item, coder), value in confidences.items()
    ]
    for start in range(0, len(rows), _BATCH):
        ModelConfidence.objects.bulk_create(
            rows[start : start + _BATCH],
            update_conflicts=True,
            unique_fields=["round", "question", "item", "coder"],
            update_fields=["confidence"],
        )
    return len(rows)


def model_coder_ids(study_id: int) -> set[int]:
    """The ids of the study's model coders (a study has few)."""
    return set(
        Coder.objects.filter(study_id=study_id, kind=CoderKind.MODEL).values_list("id", flat=True)
    )
