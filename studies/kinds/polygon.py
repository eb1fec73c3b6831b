"""Polygon: a coder's polygons on an image (three or more points in pixels, any simple
polygon, and a category). A coder's annotation of an image is all its polygons; "annotated,
drew nothing" is kept.

Stored as ``[category_id, [x1, y1, x2, y2, ...]]`` per polygon. Measured as boxes are, with
the exact polygon IoU (docs/metrics.md, "Regions").
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from metrics.regions import check_simple_polygon
from studies.kinds import regions
from studies.kinds.base import Kind, ValueForm
from studies.kinds.regions import (
    bounding_box,
    check_inside,
    code_of,
    coordinate,
    points_of,
    shoelace_area,
)
from studies.kinds.structured import ItemFacts, RowError, StructuredValues, Value, category


def parse(row: Mapping[str, Any], id_by_code: Mapping[str, int], item: ItemFacts) -> list[Any]:
    points = points_of(row.get("points"))
    problem = check_simple_polygon(points)
    if problem is not None:
        raise RowError("points", "not_simple", f"The polygon is not simple: {problem}.")
    check_inside(points, item, "points")
    flat = [coordinate(v) for point in points for v in point]
    return [category(row, id_by_code), flat]


def _points(flat: list[float]) -> list[tuple[float, float]]:
    return list(zip(flat[0::2], flat[1::2], strict=True))


def draw(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    return [
        {
            "type": "polygon",
            "points": _points(flat),
            "label": code_of(c, code_by_id),
            "extent": _points(flat),
        }
        for c, flat in value
    ]


def coco(record: list[Any]) -> dict[str, Any]:
    c, flat = record
    points = _points(flat)
    return {
        "category_id": int(c),
        "segmentation": [list(flat)],
        "bbox": bounding_box(points),
        "area": coordinate(shoelace_area(points)),
    }


def text(value: Value, code_by_id: Mapping[int, str]) -> str:
    return "; ".join(
        f"{code_of(c, code_by_id)} ({', '.join(f'{x:g} {y:g}' for x, y in _points(flat))})"
        for c, flat in value
    )


def to_json(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    return [
        {"points": [list(point) for point in _points(flat)], "label": code_of(c, code_by_id)}
        for c, flat in value
    ]


VALUES = StructuredValues(
    item_column="image",
    value_columns=("points", "label"),
    optional_columns=(),
    parse=parse,
    text=text,
    to_json=to_json,
    category_ids=lambda value: {int(record[0]) for record in value},
    disputed_measure="Matched alpha",
    report=regions.report_of("polygon"),
    draw=draw,
    coco=coco,
    names=regions.NAMES,
    not_chance_corrected=regions.NOT_CHANCE_CORRECTED,
    parameter_errors=regions.parameter_errors,
)

KIND = Kind(
    key="polygon",
    title="Polygons on an image",
    form=ValueForm.STRUCTURED,
    parse=regions.refuse_single_label,
    has_categories=True,
    defaults=regions.DEFAULTS,
    coefficients=regions.COEFFICIENTS,
    refusals=regions.REFUSALS,
    structured=VALUES,
    file_labels_as="nominal",
    label_studio_type="polygonlabels",
)
