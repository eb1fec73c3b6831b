"""Keypoint: a coder's labelled points on an image (x, y in pixels and a category). A coder's
annotation of an image is all its points; "annotated, marked nothing" is kept.

Stored as ``[x, y, category_id]`` per point. Points are compared by their distance
normalised by the image's diagonal (docs/metrics.md, "Regions").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from studies.kinds import regions
from studies.kinds.base import Kind, ValueForm
from studies.kinds.regions import check_inside, code_of, coordinate
from studies.kinds.structured import ItemFacts, StructuredValues, Value, category, number


def parse(row: Mapping[str, Any], id_by_code: Mapping[str, int], item: ItemFacts) -> list[Any]:
    x, y = number(row, "x"), number(row, "y")
    check_inside([(x, y)], item, "x")
    return [coordinate(x), coordinate(y), category(row, id_by_code)]


def draw(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    return [
        {"type": "point", "x": x, "y": y, "label": code_of(c, code_by_id), "extent": [(x, y)]}
        for x, y, c in value
    ]


def coco(record: list[Any]) -> dict[str, Any]:
    x, y, c = record
    return {
        "category_id": int(c),
        "keypoints": [x, y, 2],
        "num_keypoints": 1,
        "bbox": [x, y, 0, 0],
        "area": 0,
    }


def text(value: Value, code_by_id: Mapping[int, str]) -> str:
    return "; ".join(f"{x:g},{y:g} {code_of(c, code_by_id)}" for x, y, c in value)


def to_json(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    return [{"x": x, "y": y, "label": code_of(c, code_by_id)} for x, y, c in value]


VALUES = StructuredValues(
    item_column="image",
    value_columns=("x", "y", "label"),
    optional_columns=(),
    parse=parse,
    text=text,
    to_json=to_json,
    category_ids=lambda value: {int(record[2]) for record in value},
    disputed_measure="Matched alpha",
    report=regions.report_of("keypoint"),
    draw=draw,
    coco=coco,
    names=regions.KEYPOINT_NAMES,
    not_chance_corrected=regions.NOT_CHANCE_CORRECTED,
    parameter_errors=regions.parameter_errors,
)

KIND = Kind(
    key="keypoint",
    title="Keypoints on an image",
    form=ValueForm.STRUCTURED,
    parse=regions.refuse_single_label,
    has_categories=True,
    defaults=regions.KEYPOINT_DEFAULTS,
    coefficients=regions.KEYPOINT_COEFFICIENTS,
    refusals=regions.REFUSALS,
    structured=VALUES,
    file_labels_as="nominal",
    label_studio_type="keypointlabels",
)
