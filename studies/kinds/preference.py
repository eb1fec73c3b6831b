"""Preference: a coder's choice between an item's two options, ``A``, ``B`` or ``tie``, and
which option it was shown first. Measured by nominal alpha on the choice (and ordinal, the
tie in the middle) and each coder's position bias (``metrics.structured.preferences``).
Stored as ``[choice, shown_first]`` (``""`` when unknown), one per item and coder.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metrics.structured import PreferenceData, preference_report
from studies.kinds import item_values
from studies.kinds.base import Kind, ValueForm
from studies.kinds.structured import ItemFacts, RowError, StructuredValues, Value, blank

CHOICES = {"a": "A", "b": "B", "tie": "tie"}
COEFFICIENTS = ("alpha", "alpha_ordinal")


def _choice(row: Mapping[str, Any], field: str, allowed: Mapping[str, str]) -> str:
    raw = row.get(field)
    found = allowed.get(raw.strip().lower()) if isinstance(raw, str) else None
    if found is None:
        raise RowError(field, "invalid_choice", f"{field} is one of {', '.join(allowed.values())}.")
    return found


def parse(row: Mapping[str, Any], id_by_code: Mapping[str, int], item: ItemFacts) -> list[Any]:
    choice = _choice(row, "choice", CHOICES)
    shown = (
        "" if blank(row.get("shown_first")) else _choice(row, "shown_first", {"a": "A", "b": "B"})
    )
    return [choice, shown]


def text(value: Value, codes: Mapping[int, str]) -> str:
    return "; ".join(f"{c} (shown first: {s})" if s else c for c, s in value)


def report(
    rows: Sequence[tuple[str, str, Value]],
    code_by_id: Mapping[int, str],
    items: Mapping[str, ItemFacts],
    params: Mapping[str, Any],
) -> dict[str, Any]:
    data = PreferenceData.from_long(
        [item for item, _, _ in rows],
        [coder for _, coder, _ in rows],
        [value[0][0] for _, _, value in rows],
        [value[0][1] or None for _, _, value in rows],
    )
    result = preference_report(
        data,
        bootstrap=int(params["bootstrap"]),
        confidence=float(params["confidence"]),
        seed=int(params["seed"]),
    )
    return item_values.with_disputed(result, "value", params)


VALUES = StructuredValues(
    item_column="item",
    value_columns=("choice", "shown_first"),
    optional_columns=("shown_first",),
    parse=parse,
    text=text,
    to_json=lambda value, codes: [{"choice": c, "shown_first": s or None} for c, s in value],
    category_ids=lambda value: set(),
    report=report,
    draw=lambda value, codes: [],
    names={
        "alpha": "Krippendorff's alpha on the choice (nominal)",
        "alpha_ordinal": "Krippendorff's alpha, tie in the middle (ordinal)",
    },
    max_records=1,
    item_template=item_values.ITEM_TEMPLATE,
)

KIND = Kind(
    key="preference",
    title="Pairwise preference",
    form=ValueForm.STRUCTURED,
    parse=item_values.refuse_single_label,
    defaults=item_values.defaults(COEFFICIENTS),
    coefficients=COEFFICIENTS,
    refusals=item_values.REFUSALS,
    structured=VALUES,
    label_studio_type="pairwise",
)
