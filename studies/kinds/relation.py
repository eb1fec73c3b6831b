"""Relation: a coder's relations between units (spans) of a document, each ``(head, tail,
label)`` with head and tail ``[begin, end)`` character offsets of the item's text. A coder's
annotation of a document is all its relations there; "annotated, no relation" is kept.

Stored as ``[head_begin, head_end, tail_begin, tail_end, category_id]`` per relation; a label
declared undirected (the category's ``undirected``) is stored with head and tail in document
order, so either direction is the same relation and giving both is refused. Measured by
relation F1 (exact tuples, and units matched by overlap) and alpha on relations
(``metrics.structured.relations``); see docs/metrics.md, "Relations".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metrics.structured import RelationData, decompose_relation_f1, relation_report
from studies.kinds import item_values
from studies.kinds.base import Kind, ValueForm
from studies.kinds.common import INTERVAL_DEFAULTS
from studies.kinds.structured import (
    ItemFacts,
    RowError,
    StructuredValues,
    Value,
    category,
    number,
)
from studies.kinds.values import format_number

COEFFICIENTS = ("relation_f1", "relation_f1_overlap", "alpha")
OFFSETS = ("head_begin", "head_end", "tail_begin", "tail_end")
ALPHA_MATCHES = ("overlap", "exact")
#: The most disputed documents a stored result keeps.
MOST_DISPUTED = 50


def _offset(row: Mapping[str, Any], field: str) -> int:
    value = number(row, field)
    if not value.is_integer():
        raise RowError(field, "not_an_integer", f"{field} {value:g} is not a whole number.")
    if value < 0:
        raise RowError(field, "negative_offset", f"{field} cannot be below 0.")
    return int(value)


def _unit(row: Mapping[str, Any], which: str, item: ItemFacts) -> tuple[int, int]:
    begin, end = _offset(row, f"{which}_begin"), _offset(row, f"{which}_end")
    if end <= begin:
        raise RowError(
            f"{which}_end",
            "end_before_begin",
            f"The {which}'s end {end} must be after its begin {begin}.",
        )
    if item.extent is not None:
        low, high = item.extent
        if begin < low or end > high:
            field = f"{which}_begin" if begin < low else f"{which}_end"
            raise RowError(
                field,
                "outside_document",
                f"The {which} [{begin}, {end}) lies outside the document [{low:g}, {high:g}).",
            )
    return begin, end


def parse(row: Mapping[str, Any], id_by_code: Mapping[str, int], item: ItemFacts) -> list[Any]:
    head = _unit(row, "head", item)
    tail = _unit(row, "tail", item)
    return [*head, *tail, category(row, id_by_code)]


def canonical(record: list[Any], scheme: Any) -> list[Any]:
    """An undirected label's relation with head and tail in document order."""
    hb, he, tb, te, label = record
    if label in scheme.undirected_ids and (tb, te) < (hb, he):
        return [tb, te, hb, he, label]
    return record


def _code(category_id: int, code_by_id: Mapping[int, str]) -> str:
    return code_by_id.get(int(category_id), f"#{int(category_id)}")


def text(value: Value, code_by_id: Mapping[int, str]) -> str:
    return "; ".join(
        f"{format_number(hb)}-{format_number(he)} -> {format_number(tb)}-{format_number(te)} "
        f"{_code(c, code_by_id)}"
        for hb, he, tb, te, c in value
    )


def to_json(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    return [
        {
            "head_begin": hb,
            "head_end": he,
            "tail_begin": tb,
            "tail_end": te,
            "label": _code(c, code_by_id),
        }
        for hb, he, tb, te, c in value
    ]


def draw(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    """Each relation as an arc from its head to its tail, in offsets (the page lays them
    out on the text); it covers no pixels of an image, so its ``extent`` is empty."""
    return [
        {
            "type": "arc",
            "head": [hb, he],
            "tail": [tb, te],
            "label": _code(c, code_by_id),
            "extent": [],
        }
        for hb, he, tb, te, c in value
    ]


def relation_data(
    rows: Sequence[tuple[str, str, Value]],
    code_by_id: Mapping[int, str],
    undirected: Sequence[str] = (),
) -> RelationData:
    """The scope's stored values as the library's data (an empty value: no relation)."""
    flat: list[tuple[Any, ...]] = []
    for item, coder, value in rows:
        if not value:
            flat.append((item, coder, None, None, None, None, None))
        for hb, he, tb, te, c in value:
            flat.append((item, coder, hb, he, tb, te, _code(c, code_by_id)))
    columns = [list(column) for column in zip(*flat, strict=True)]
    return RelationData.from_long(*columns, undirected=list(undirected))


def _disputed(data: RelationData, min_overlap: float) -> list[dict[str, Any]]:
    """The documents by their relation F1 by overlap, mean over coder pairs, lowest first
    (documents where every pair related nothing are left out: nothing to dispute)."""
    try:
        decomposition = decompose_relation_f1(data, match="overlap", min_overlap=min_overlap)
    except ValueError:
        return []
    rows = decomposition.item_stats
    rows = rows.toarray() if hasattr(rows, "toarray") else np.asarray(rows)
    per_document = np.asarray(decomposition.finalize(rows), dtype=np.float64)
    counts = np.bincount(data.document, minlength=data.n_documents)
    defined = np.flatnonzero(np.isfinite(per_document))
    order = defined[np.argsort(per_document[defined], kind="stable")][:MOST_DISPUTED]
    return [
        {
            "name": str(data.documents[k]),
            "value": float(per_document[k]),
            "n_relations": int(counts[k]),
        }
        for k in order.tolist()
    ]


def report(
    rows: Sequence[tuple[str, str, Value]],
    code_by_id: Mapping[int, str],
    items: Mapping[str, ItemFacts],
    params: Mapping[str, Any],
) -> dict[str, Any]:
    data = relation_data(rows, code_by_id, params.get("undirected", ()))
    min_overlap = float(params["min_overlap"])
    result = relation_report(
        data,
        min_overlap=min_overlap,
        alpha_match=params["alpha_match"],
        bootstrap=int(params["bootstrap"]),
        confidence=float(params["confidence"]),
        seed=int(params["seed"]),
    )
    wanted = set(params["coefficients"])
    result["coefficients"] = {k: v for k, v in result["coefficients"].items() if k in wanted}
    result["most_disputed"] = _disputed(data, min_overlap)
    result["n_items"] = result["n_documents"]
    return result


def parameter_errors(params: Mapping[str, Any]) -> dict[str, str]:
    errors = {}
    overlap = params.get("min_overlap")
    if isinstance(overlap, bool) or not isinstance(overlap, int | float) or not 0 < overlap <= 1:
        errors["min_overlap"] = "The IoU two units need to match, in (0, 1], e.g. 0.5."
    if params.get("alpha_match") not in ALPHA_MATCHES:
        errors["alpha_match"] = f"How alpha aligns units: one of {', '.join(ALPHA_MATCHES)}."
    return errors


VALUES = StructuredValues(
    item_column="document",
    value_columns=("head_begin", "head_end", "tail_begin", "tail_end", "label"),
    optional_columns=(),
    parse=parse,
    text=text,
    to_json=to_json,
    category_ids=lambda value: {int(record[4]) for record in value},
    report=report,
    draw=draw,
    names={
        "relation_f1": "Relation F1, exact (head, tail, label)",
        "relation_f1_overlap": "Relation F1, units matched by overlap",
        "alpha": "Krippendorff's alpha on relations (nominal)",
    },
    not_chance_corrected=frozenset({"relation_f1", "relation_f1_overlap"}),
    disputed_measure="Relation F1 by overlap",
    item_template="pages/relation_item.html",
    canonical=canonical,
    unique_records=True,
    parameter_errors=parameter_errors,
)

KIND = Kind(
    key="relation",
    title="Relations between units of a document",
    form=ValueForm.STRUCTURED,
    parse=item_values.refuse_single_label,
    has_categories=True,
    undirected_categories=True,
    defaults={
        "coefficients": list(COEFFICIENTS),
        "min_overlap": 0.5,
        "alpha_match": "overlap",
        **INTERVAL_DEFAULTS,
    },
    coefficients=COEFFICIENTS,
    refusals=item_values.REFUSALS,
    structured=VALUES,
    file_labels_as="nominal",
    label_studio_type="relation",
)
