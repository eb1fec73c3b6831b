"""Label Studio's image regions: ``rectanglelabels``, ``polygonlabels`` and
``keypointlabels`` results, their percent coordinates turned into pixels with the result's
``original_width`` and ``original_height`` (Label Studio stores x, y, width, height and
points as percentages of the image; rotation in degrees, clockwise about the top-left
corner)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from exchange.formats.base import ImportErrorCode, ParsedFile, ParsedRegion, key_text

#: Label Studio's region result types and the region kind each is.
REGION_TYPES: Mapping[str, str] = {
    "rectanglelabels": "box",
    "polygonlabels": "polygon",
    "keypointlabels": "keypoint",
}


def region_fields(tasks: list[Any]) -> dict[str, str]:
    """The ``from_name`` of every region result of the file, with its region kind."""
    names: dict[str, str] = {}
    for task in tasks:
        annotations = task.get("annotations") if isinstance(task, dict) else None
        for annotation in annotations if isinstance(annotations, list) else []:
            results = annotation.get("result") if isinstance(annotation, dict) else None
            for result in results if isinstance(results, list) else []:
                kind = result.get("type") if isinstance(result, dict) else None
                if not isinstance(kind, str) or kind not in REGION_TYPES:
                    continue
                name = key_text(result.get("from_name"))
                if name:
                    names.setdefault(name, REGION_TYPES[kind])
    return names


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def _pixels(percent: float, size: float) -> float:
    return round(percent / 100.0 * size, 6)


def region_result(
    parsed: ParsedFile,
    *,
    image: str,
    coder: str,
    source: str,
    from_name: str,
    kind: str,
    result: Mapping[str, Any],
) -> None:
    """Read one region result into ``parsed.regions`` (or a rejection naming the field)."""
    value = result.get("value")
    width, height = _number(result.get("original_width")), _number(result.get("original_height"))

    def reject(field: str, code: str, detail: str) -> None:
        parsed.reject(source, field, code, detail, tool_field=from_name, pair=(image, coder))

    if not isinstance(value, dict):
        reject("value", ImportErrorCode.REQUIRED, "value is missing.")
        return
    if width is None or height is None or width <= 0 or height <= 0:
        reject(
            "original_width",
            ImportErrorCode.REQUIRED,
            "original_width and original_height (pixels) are needed to turn Label Studio's "
            "percent coordinates into pixels.",
        )
        return
    labels = value.get(kind)
    if not isinstance(labels, list) or len(labels) != 1 or not isinstance(labels[0], str):
        reject(f"value.{kind}", ImportErrorCode.INVALID_TYPE, f"value.{kind} must name one label.")
        return
    parsed.image(image, width=width, height=height)
    region = REGION_TYPES[kind]
    cells: dict[str, Any] = {"label": labels[0]}
    if region == "polygon":
        points = value.get("points")
        if not isinstance(points, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(_number(v) is not None for v in p)
            for p in points
        ):
            reject("value.points", ImportErrorCode.INVALID_TYPE, "points must be [x, y] pairs.")
            return
        cells["points"] = [[_pixels(x, width), _pixels(y, height)] for x, y in points]
    else:
        names = ("x", "y", "width", "height") if region == "box" else ("x", "y")
        numbers = {name: _number(value.get(name)) for name in names}
        missing = [name for name, number in numbers.items() if number is None]
        if missing:
            reject(
                f"value.{missing[0]}",
                ImportErrorCode.INVALID_TYPE,
                f"value.{missing[0]} must be a number.",
            )
            return
        scale = {"x": width, "y": height, "width": width, "height": height}
        cells.update(
            {name: _pixels(n, scale[name]) for name, n in numbers.items() if n is not None}
        )
        if region == "box":
            cells["rotation"] = _number(value.get("rotation")) or 0.0
    parsed.regions.append(ParsedRegion(source, image, coder, region, cells, from_name))


def nothing_drawn(
    parsed: ParsedFile, *, image: str, coder: str, source: str, from_name: str, region: str
) -> None:
    """A coder who annotated the image and drew no region of this field."""
    parsed.regions.append(ParsedRegion(source, image, coder, region, {}, from_name))
