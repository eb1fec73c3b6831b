"""CVAT for images 1.1 XML: ``<annotations>`` with one ``<image name width height>`` per
image and its ``<box>``, ``<polygon>`` and ``<points>`` elements.

- image (item): the image's ``name``; its ``width`` and ``height`` become the item's size;
- coder: the ``coder`` option, else the file's name (CVAT exports one annotator's job);
- regions: ``<box label xtl ytl xbr ybr rotation>`` a box (CVAT rotates a box about its
  centre, clockwise in degrees; it is stored rotated about its rotated top-left corner,
  which is the same rectangle), ``<polygon points="x1,y1;x2,y2;...">`` a polygon, each
  point of ``<points>`` a keypoint; the import's question takes the regions of its kind;
- every image listed was seen by the file's annotator: one without regions is "annotated,
  drew nothing".

The XML is read with ``defusedxml``: no entity expansion, no external entities.
"""

from __future__ import annotations

import math
from typing import Any
from xml.etree.ElementTree import Element

from defusedxml import ElementTree
from defusedxml.common import DefusedXmlException

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedRegion,
    ParseOptions,
    register,
    stem,
)


def _float(element: Element, name: str) -> float | None:
    try:
        value = float(element.get(name, ""))
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _points(text: str | None) -> list[list[float]] | None:
    try:
        points = [[float(v) for v in pair.split(",")] for pair in (text or "").split(";") if pair]
    except ValueError:
        return None
    if not points or any(len(p) != 2 or not all(map(math.isfinite, p)) for p in points):
        return None
    return points


@register(
    "cvat",
    title="CVAT for images 1.1 (XML)",
    description="<image> elements with <box>, <polygon> and <points>; one file per annotator "
    "(the coder option, else the file's name).",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    try:
        root = ElementTree.fromstring(data)
    except (ElementTree.ParseError, DefusedXmlException) as error:
        raise MalformedFileError(f"The file is not CVAT XML: {error}.") from None
    if root.tag != "annotations":
        raise MalformedFileError("A CVAT for images file has an <annotations> root element.")
    coder = options.coder or stem(options.filename)
    if coder is None:
        raise MalformedFileError("Name the file's annotator with the coder option.")
    parsed = ParsedFile()
    for index, image in enumerate(root.iter("image")):
        name = (image.get("name") or "").strip()
        source = f"image {name or f'[{index}]'}"
        if not name:
            parsed.reject(source, "name", ImportErrorCode.REQUIRED, "An image needs a name.")
            continue
        parsed.image(name, width=_float(image, "width"), height=_float(image, "height"))
        regions = [r for r in (_region(parsed, source, name, coder, e) for e in image) if r]
        parsed.records += max(len(regions), 1)
        if not regions:
            for kind in ("box", "polygon", "keypoint"):
                parsed.regions.append(ParsedRegion(source, name, coder, kind))
        for found in regions:
            parsed.regions.extend(found)
    return parsed


def _region(
    parsed: ParsedFile, source: str, image: str, coder: str, element: Element
) -> list[ParsedRegion] | None:
    label = (element.get("label") or "").strip()
    where = f"{source}, {element.tag}"
    if element.tag not in ("box", "polygon", "points"):
        return None
    if not label:
        parsed.reject(where, "label", ImportErrorCode.REQUIRED, "A region needs a label.")
        return None
    if element.tag == "box":
        corners = [_float(element, n) for n in ("xtl", "ytl", "xbr", "ybr")]
        numbers = [c for c in corners if c is not None]
        if len(numbers) != 4:
            parsed.reject(
                where, "xtl", ImportErrorCode.INVALID_TYPE, "xtl, ytl, xbr, ybr are numbers."
            )
            return None
        cells = _box(numbers, _float(element, "rotation") or 0.0, label)
        return [ParsedRegion(where, image, coder, "box", cells)]
    points = _points(element.get("points"))
    if points is None:
        parsed.reject(where, "points", ImportErrorCode.INVALID_TYPE, "points are x,y;x,y;...")
        return None
    if element.tag == "polygon":
        return [ParsedRegion(where, image, coder, "polygon", {"points": points, "label": label})]
    return [
        ParsedRegion(where, image, coder, "keypoint", {"x": x, "y": y, "label": label})
        for x, y in points
    ]


def _box(corners: list[float], rotation: float, label: str) -> dict[str, Any]:
    """CVAT's (corners, rotation about the centre) as (x, y, width, height, rotation about
    the rotated top-left corner)."""
    xtl, ytl, xbr, ybr = corners
    width, height = xbr - xtl, ybr - ytl
    cx, cy = (xtl + xbr) / 2, (ytl + ybr) / 2
    turn = math.radians(rotation)
    cos, sin = math.cos(turn), math.sin(turn)
    dx, dy = -width / 2, -height / 2
    x, y = cx + dx * cos - dy * sin, cy + dx * sin + dy * cos
    return {
        "x": round(x, 6),
        "y": round(y, 6),
        "width": width,
        "height": height,
        "rotation": rotation,
        "label": label,
    }
