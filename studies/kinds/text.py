"""Text: a coder's free text for an item (a caption, a summary, a correction), compared by
a text distance in Krippendorff's alpha (Artstein & Poesio 2008, §2.6; Braylan et al. 2022):
normalised Levenshtein or token Jaccard (``metrics.structured.texts``). An empty text is a
text; one text per item and coder. Stored as ``[[text]]`` (one record).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metrics.structured import (
    AUTO_EXACT_PAIRS,
    DEFAULT_EXPECTED_PAIRS,
    EXPECTED_METHODS,
    MAX_SAMPLED_PAIRS,
    TextData,
    text_report,
)
from studies.kinds import item_values
from studies.kinds.base import Kind, ValueForm
from studies.kinds.structured import ItemFacts, RowError, StructuredValues, Value

MAX_TEXT = 100_000
#: ``user``: the question's uploaded distance table (``studies.distance_tables``).
USER_DISTANCE = "user"
DISTANCES = ("levenshtein", "token_jaccard", USER_DISTANCE)


def parse(row: Mapping[str, Any], id_by_code: Mapping[str, int], item: ItemFacts) -> list[Any]:
    text = row.get("text")
    if text is None:
        raise RowError("text", "required", 'text is required (an empty text is "").')
    if not isinstance(text, str):
        raise RowError("text", "invalid_type", "text must be text.")
    if "\x00" in text:
        raise RowError("text", "null_characters_not_allowed", "NUL characters are not allowed.")
    if len(text) > MAX_TEXT:
        raise RowError("text", "max_length", f"A text has at most {MAX_TEXT:,} characters.")
    return [text]


def report(
    rows: Sequence[tuple[str, str, Value]],
    code_by_id: Mapping[int, str],
    items: Mapping[str, ItemFacts],
    params: Mapping[str, Any],
) -> dict[str, Any]:
    data = TextData.from_long(
        [item for item, _, _ in rows],
        [coder for _, coder, _ in rows],
        [value[0][0] for _, _, value in rows],
    )
    result = text_report(
        data,
        distance=_distance(params),
        bootstrap=int(params["bootstrap"]),
        confidence=float(params["confidence"]),
        seed=int(params["seed"]),
        expected=params.get("expected", "auto"),
        expected_pairs=int(params.get("expected_pairs", DEFAULT_EXPECTED_PAIRS)),
    )
    if params["distance"] == USER_DISTANCE:
        result["distance"] = USER_DISTANCE
    return item_values.with_disputed(result, "observed_disagreement", params)


def _distance(params: Mapping[str, Any]) -> Any:
    """The distance by its name, or the uploaded table as ``{(text_a, text_b): distance}``."""
    if params["distance"] != USER_DISTANCE:
        return params["distance"]
    table = params.get("distance_table")
    if table is None:
        raise ValueError(
            "The distance is user, but this question has no distance table: upload one "
            "(POST .../questions/{id}/distances/) or choose levenshtein or token_jaccard."
        )
    return table


def parameter_errors(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    if params.get("distance") not in DISTANCES:
        errors["distance"] = f"A text distance: one of {', '.join(DISTANCES)}."
    if params.get("expected", "auto") not in EXPECTED_METHODS:
        errors["expected"] = (
            "How D_e is found: exact (every pair of distinct texts), sampled (a seeded "
            f"sample of pairs, with its standard error) or auto (exact up to "
            f"{AUTO_EXACT_PAIRS:,} pairs, sampled above)."
        )
    pairs = params.get("expected_pairs", DEFAULT_EXPECTED_PAIRS)
    if not (
        isinstance(pairs, int) and not isinstance(pairs, bool) and 2 <= pairs <= MAX_SAMPLED_PAIRS
    ):
        errors["expected_pairs"] = (
            f"Pairs sampled for D_e: a whole number from 2 to {MAX_SAMPLED_PAIRS:,}."
        )
    return errors


VALUES = StructuredValues(
    item_column="item",
    value_columns=("text",),
    optional_columns=(),
    parse=parse,
    text=lambda value, codes: value[0][0] if value else "",
    to_json=lambda value, codes: [{"text": record[0]} for record in value],
    category_ids=lambda value: set(),
    disputed_measure="Share of Dₒ",
    report=report,
    draw=lambda value, codes: [],
    names={"alpha": "Krippendorff's alpha, text distance"},
    nothing_row=False,
    max_records=1,
    item_template=item_values.ITEM_TEMPLATE,
    parameter_errors=parameter_errors,
    marks_differences=True,
    takes_distance_table=True,
)

KIND = Kind(
    key="text",
    title="Free text",
    form=ValueForm.STRUCTURED,
    parse=item_values.refuse_single_label,
    # D_e exact while it takes at most AUTO_EXACT_PAIRS distances, sampled above (with its
    # standard error) rather than alpha left undefined for a large round of distinct texts.
    defaults=item_values.defaults(
        ("alpha",), distance="levenshtein", expected="auto", expected_pairs=DEFAULT_EXPECTED_PAIRS
    ),
    coefficients=("alpha",),
    refusals=item_values.REFUSALS,
    structured=VALUES,
    label_studio_type="textarea",
)
