"""Box: a coder's boxes on an image (x, y, width, height in pixels, optional rotation in
degrees about the top-left corner as Label Studio writes it, and a category). A coder's
annotation of an image is all its boxes; "annotated, drew nothing" is kept.

Stored as ``[x, y, width, height, rotation, category_id]`` per box. Measured by matched
alpha (Tschirschwitz et al. 2022), detection F1, and alpha with a region distance (Braylan,
Alonso & Lease 2022); see docs/metrics.md, "Regions".
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from studies.kinds import regions
from studies.kinds.base import Kind, ValueForm
from studies.kinds.regions import bounding_box, check_inside, code_of, coordinate, positive
from studies.kinds.structured import (
    ItemFacts,
    StructuredValues,
    Value,
    category,
    number,
    optional_number,
)


def _corners(x: float, y: float, w: float, h: float, rotation: float) -> list[tuple[float, float]]:
    turn = math.radians(rotation)
    cos, sin = math.cos(turn), math.sin(turn)
    return [
        (x + dx * cos - dy * sin, y + dx * sin + dy * cos)
        for dx, dy in ((0, 0), (w, 0), (w, h), (0, h))
    ]


def parse(row: Mapping[str, Any], id_by_code: Mapping[str, int], item: ItemFacts) -> list[Any]:
    x, y = number(row, "x"), number(row, "y")
    width, height = positive(row, "width"), positive(row, "height")
    rotation = optional_number(row, "rotation") or 0.0
    check_inside(_corners(x, y, width, height, rotation), item, "x")
    return [*(coordinate(v) for v in (x, y, width, height, rotation)), category(row, id_by_code)]


def _rotation_text(rotation: float) -> str:
    return f" r{rotation:g}" if rotation else ""


def draw(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    shapes = []
    for x, y, w, h, r, c in value:
        corners = _corners(x, y, w, h, r)
        shapes.append(
            {
                "type": "polygon",
                "points": corners,
                "label": code_of(c, code_by_id),
                "extent": corners,
            }
        )
    return shapes


def coco(record: list[Any]) -> dict[str, Any]:
    """COCO's bbox is axis-aligned: a rotated box also gives its corners as a segmentation
    and its rotation as an attribute."""
    x, y, w, h, r, c = record
    if not r:
        return {"category_id": int(c), "bbox": [x, y, w, h], "area": coordinate(w * h)}
    corners = _corners(x, y, w, h, r)
    return {
        "category_id": int(c),
        "bbox": bounding_box(corners),
        "segmentation": [[coordinate(v) for point in corners for v in point]],
        "area": coordinate(w * h),
        "attributes": {"rotation": r},
    }


def text(value: Value, code_by_id: Mapping[int, str]) -> str:
    return "; ".join(
        f"{x:g},{y:g} {w:g}x{h:g}{_rotation_text(r)} {code_of(c, code_by_id)}"
        for x, y, w, h, r, c in value
    )


def to_json(value: Value, code_by_id: Mapping[int, str]) -> list[dict[str, Any]]:
    return [
        {"x": x, "y": y, "width": w, "height": h, "rotation": r, "label": code_of(c, code_by_id)}
        for x, y, w, h, r, c in value
    ]


VALUES = StructuredValues(
    item_column="image",
    value_columns=("x", "y", "width", "height", "label", "rotation"),
    optional_columns=("rotation",),
    parse=parse,
    text=text,
    to_json=to_json,
    category_ids=lambda value: {int(record[5]) for record in value},
    disputed_measure="Matched alpha",
    report=regions.report_of("box"),
    draw=draw,
    coco=coco,
    names=regions.NAMES,
    not_chance_corrected=regions.NOT_CHANCE_CORRECTED,
    parameter_errors=regions.parameter_errors,
)

KIND = Kind(
    key="box",
    title="Boxes on an image",
    form=ValueForm.STRUCTURED,
    parse=regions.refuse_single_label,
    has_categories=True,
    defaults=regions.DEFAULTS,
    coefficients=regions.COEFFICIENTS,
    refusals=regions.REFUSALS,
    structured=VALUES,
    file_labels_as="nominal",
    label_studio_type="rectanglelabels",
)
