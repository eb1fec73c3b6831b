"""Ranking: a coder's ranking of an item's options (1 best; ties share a rank; a partial
ranking leaves options out). Measured by Kendall's W (with the tie correction) and alpha with
the normalised Kendall tau distance and Spearman's footrule (``metrics.structured.rankings``).
Stored as ``[option, rank]`` per ranked option.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from metrics.structured import RankingData, ranking_report
from studies.kinds import item_values
from studies.kinds.base import Kind, ValueForm
from studies.kinds.structured import (
    ItemFacts,
    RowError,
    StructuredValues,
    Value,
    blank,
    number,
    short,
)
from studies.kinds.values import format_number

COEFFICIENTS = ("kendall_w", "alpha", "alpha_footrule")


def parse(row: Mapping[str, Any], id_by_code: Mapping[str, int], item: ItemFacts) -> list[Any]:
    option = row.get("option")
    if blank(option) or not isinstance(option, str | int) or isinstance(option, bool):
        raise RowError("option", "required", "option is required (the option's name).")
    rank = number(row, "rank")
    if rank < 1:
        raise RowError("rank", "not_positive", "A rank is 1 (best) or more.")
    return [str(option).strip(), short(rank)]


def text(value: Value, codes: Mapping[int, str]) -> str:
    return "; ".join(
        f"{option} {format_number(rank)}"
        for option, rank in sorted(value, key=lambda r: (r[1], r[0]))
    )


def report(
    rows: Sequence[tuple[str, str, Value]],
    code_by_id: Mapping[int, str],
    items: Mapping[str, ItemFacts],
    params: Mapping[str, Any],
) -> dict[str, Any]:
    flat = [(item, coder, option, rank) for item, coder, value in rows for option, rank in value]
    data = RankingData.from_long(*(list(column) for column in zip(*flat, strict=True)))
    result = ranking_report(
        data,
        bootstrap=int(params["bootstrap"]),
        confidence=float(params["confidence"]),
        seed=int(params["seed"]),
    )
    return item_values.with_disputed(result, "kendall_w", params)


VALUES = StructuredValues(
    item_column="item",
    value_columns=("option", "rank"),
    optional_columns=(),
    parse=parse,
    text=text,
    to_json=lambda value, codes: [{"option": o, "rank": r} for o, r in value],
    category_ids=lambda value: set(),
    disputed_measure="Kendall's W",
    report=report,
    draw=lambda value, codes: [],
    names={
        "kendall_w": "Kendall's W (mean over items)",
        "alpha": "Krippendorff's alpha, Kendall tau distance",
        "alpha_footrule": "Krippendorff's alpha, Spearman's footrule",
    },
    item_template=item_values.ITEM_TEMPLATE,
)

KIND = Kind(
    key="ranking",
    title="Ranking of options",
    form=ValueForm.STRUCTURED,
    parse=item_values.refuse_single_label,
    defaults=item_values.defaults(COEFFICIENTS),
    coefficients=COEFFICIENTS,
    refusals=item_values.REFUSALS,
    structured=VALUES,
    label_studio_type="ranker",
)
