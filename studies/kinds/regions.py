"""What the region kinds (box, polygon, keypoint) share: reading coordinates, checking them
against the image's declared size, their computation's defaults and refusals, and the call
of the library's region report. Coordinates are pixels, x to the right and y down from the
image's top-left corner."""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from metrics.regions import REGION_COEFFICIENT_KEYS, RegionData, match_units, region_report
from studies.kinds.base import Feature
from studies.kinds.common import INTERVAL_DEFAULTS
from studies.kinds.structured import ItemFacts, RowError, blank, number, short
from studies.kinds.values import Label, LabelError, LabelErrorCode

#: The coefficients of a region question, in display order (``metrics.regions``).
COEFFICIENTS: tuple[str, ...] = REGION_COEFFICIENT_KEYS
#: Keypoints have no GIoU (a point has no extent).
KEYPOINT_COEFFICIENTS = tuple(key for key in COEFFICIENTS if key != "region_alpha_giou")
NAMES: dict[str, str] = {
    "alpha_matched": "Matched alpha, mean over images (Tschirschwitz et al.)",
    "alpha_matched_pooled": "Matched alpha, pooled over images",
    "detection_f1": "Detection F1",
    "region_alpha_iou": "Alpha, region-set distance 1 − IoU",
    "region_alpha_giou": "Alpha, region-set distance (1 − GIoU)/2",
    "region_alpha_corner_l2": "Alpha, region-set distance corner L2",
}
KEYPOINT_NAMES = {
    **{key: name for key, name in NAMES.items() if key in KEYPOINT_COEFFICIENTS},
    "region_alpha_iou": "Alpha, point-set distance 1 − OKS",
}
#: Detection F1 is a share of matched regions, not corrected for chance.
NOT_CHANCE_CORRECTED = frozenset({"detection_f1"})
#: The most disputed items a stored result keeps (the report lists every image).
MOST_DISPUTED = 50
DEFAULTS: dict[str, Any] = {
    "coefficients": list(COEFFICIENTS),
    "iou_threshold": 0.5,
    **INTERVAL_DEFAULTS,
}
KEYPOINT_DEFAULTS: dict[str, Any] = {**DEFAULTS, "coefficients": list(KEYPOINT_COEFFICIENTS)}
NOT_ITEMS = "(a coder's value is all its regions on an image, not one label)"
REFUSALS = {
    Feature.REVIEW: f"Region questions have no review queue yet {NOT_ITEMS}.",
    Feature.ADJUDICATION: f"Region questions have no item adjudication yet {NOT_ITEMS}.",
    Feature.REFERENCE: f"Region questions have no item reference yet {NOT_ITEMS}.",
    Feature.PLANNING: "a plan in items does not apply to its regions yet.",
    Feature.QUALITY: "Coder quality models need one category per annotation, not regions.",
}
UPLOAD_HINT = (
    "This is a region question: a coder's annotation of an image is its regions, uploaded to "
    "POST /api/v1/studies/{study}/annotations/structured/, not single labels."
)


def refuse_single_label(scheme: Any, raw: Any) -> Label:
    """Every single-label path answers 400 for a region question, never 500."""
    raise LabelError(LabelErrorCode.STRUCTURED_QUESTION, UPLOAD_HINT)


#: How far (pixels) a region may stick out of its image: percent coordinates converted
#: back to pixels round.
EDGE_TOLERANCE = 0.5
MAX_POLYGON_POINTS = 10_000


def check_inside(points: Sequence[tuple[float, float]], item: ItemFacts, field: str) -> None:
    """Refuse points outside the image, when its size is known."""
    if item.width is None or item.height is None:
        return
    for x, y in points:
        if not (
            -EDGE_TOLERANCE <= x <= item.width + EDGE_TOLERANCE
            and -EDGE_TOLERANCE <= y <= item.height + EDGE_TOLERANCE
        ):
            raise RowError(
                field,
                "outside_image",
                f"({x:g}, {y:g}) lies outside the {item.width:g} × {item.height:g} image.",
            )


def positive(row: Mapping[str, Any], field: str) -> float:
    value = number(row, field)
    if value <= 0:
        raise RowError(field, "not_positive", f"{field} must be greater than 0.")
    return value


def points_of(raw: Any, field: str = "points") -> list[tuple[float, float]]:
    """A polygon's points: ``"x1 y1;x2 y2;..."`` or a JSON list of ``[x, y]`` pairs."""
    if blank(raw):
        raise RowError(field, "required", f"{field} is required.")
    pairs: Any
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("["):
            try:
                pairs = json.loads(text)
            except (ValueError, RecursionError):
                raise RowError(field, "invalid_points", "points are not valid JSON.") from None
        else:
            pairs = [part.split() for part in text.split(";") if part.strip()]
    else:
        pairs = raw
    if not isinstance(pairs, list) or len(pairs) > MAX_POLYGON_POINTS:
        raise RowError(
            field,
            "invalid_points",
            f"points are 'x1 y1;x2 y2;...' or a list of [x, y], at most {MAX_POLYGON_POINTS}.",
        )
    points = []
    for index, pair in enumerate(pairs):
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise RowError(field, "invalid_points", f"point {index + 1} is not an x y pair.")
        cell = {"x": pair[0], "y": pair[1]}
        try:
            x, y = number(cell, "x"), number(cell, "y")
        except RowError as error:
            raise RowError(field, "invalid_points", f"point {index + 1}: {error.message}") from None
        points.append((x, y))
    if len(points) < 3:
        raise RowError(field, "too_few_points", "A polygon needs at least 3 points.")
    return points


def bounding_box(points: Sequence[tuple[float, float]]) -> list[Any]:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return [
        coordinate(min(xs)),
        coordinate(min(ys)),
        coordinate(max(xs) - min(xs)),
        coordinate(max(ys) - min(ys)),
    ]


def shoelace_area(points: Sequence[tuple[float, float]]) -> float:
    """The area a simple polygon encloses."""
    total = 0.0
    for (x0, y0), (x1, y1) in zip(points, [*points[1:], points[0]], strict=True):
        total += x0 * y1 - x1 * y0
    return abs(total) / 2


def code_of(category_id: int, code_by_id: Mapping[int, str]) -> str:
    return code_by_id.get(int(category_id), f"#{int(category_id)}")


def coordinate(value: float) -> Any:
    return short(float(value))


def parameter_errors(params: Mapping[str, Any]) -> dict[str, str]:
    threshold = params.get("iou_threshold")
    if (
        isinstance(threshold, bool)
        or not isinstance(threshold, int | float)
        or not (0 < threshold <= 1)
    ):
        return {"iou_threshold": "The matching threshold is an IoU in (0, 1], e.g. 0.5."}
    return {}


def _region_data(
    level: str,
    rows: Sequence[tuple[str, str, list[Any]]],
    code_by_id: Mapping[int, str],
    items: Mapping[str, ItemFacts],
) -> RegionData:
    """The scope's stored values as the library's :class:`RegionData`."""
    annotated = [(item, coder) for item, coder, value in rows if not value]
    sizes: dict[Hashable, tuple[float, float]] = {
        item: (facts.width, facts.height)
        for item, facts in items.items()
        if facts.width is not None and facts.height is not None
    }
    categories = list(code_by_id.values())
    code = code_by_id.get
    if level == "box":
        boxes = [
            (item, coder, x, y, w, h, code(int(c)), r)
            for item, coder, value in rows
            for x, y, w, h, r, c in value
        ]
        return RegionData.from_boxes(boxes, annotated=annotated, sizes=sizes, categories=categories)
    if level == "polygon":
        polygons = [
            (item, coder, list(zip(flat[0::2], flat[1::2], strict=True)), code(int(c)))
            for item, coder, value in rows
            for c, flat in value
        ]
        return RegionData.from_polygons(
            polygons, annotated=annotated, sizes=sizes, categories=categories
        )
    points = [(item, coder, x, y, code(int(c))) for item, coder, value in rows for x, y, c in value]
    return RegionData.from_keypoints(
        points, annotated=annotated, sizes=sizes, categories=categories
    )


def matched_units_of(
    data: RegionData, iou_threshold: float, images: set[Any]
) -> dict[Any, list[list[list[Any]]]]:
    """The matched units of ``images``, each a list of ``[coder, k]``: the coder's k-th
    region of the image in stored order (the image view marks matched and unmatched
    regions with them)."""
    units = match_units(data, iou_threshold=iou_threshold)
    # A region's place among its coder's regions of the image (regions are sorted by image,
    # coder, then as given).
    pair = data.image.astype(np.int64) * max(data.n_coders, 1) + data.coder
    starts = np.r_[0, np.flatnonzero(np.diff(pair)) + 1] if data.n_regions else np.zeros(0, int)
    first = np.repeat(starts, np.diff(np.r_[starts, data.n_regions]))
    place = np.arange(data.n_regions) - first
    wanted = {index for index, name in enumerate(data.images) if name in images}
    out: dict[Any, list[list[list[Any]]]] = {}
    for unit in np.flatnonzero(np.isin(units.image, list(wanted))).tolist():
        members = [
            [data.coders[coder], int(place[region])]
            for coder, region in enumerate(units.cells[unit].tolist())
            if region >= 0
        ]
        out.setdefault(data.images[units.image[unit]], []).append(members)
    return out


def report_of(level: str) -> Callable[..., dict[str, Any]]:
    """The report of a region kind: the library's region report of the scope, with the
    coefficients asked for and the most disputed images."""

    def report(
        rows: Sequence[tuple[str, str, list[Any]]],
        code_by_id: Mapping[int, str],
        items: Mapping[str, ItemFacts],
        params: Mapping[str, Any],
    ) -> dict[str, Any]:
        data = _region_data(level, rows, code_by_id, items)
        result = region_report(
            data,
            iou_threshold=float(params["iou_threshold"]),
            bootstrap=int(params["bootstrap"]),
            confidence=float(params["confidence"]),
            seed=int(params["seed"]),
        )
        wanted = set(params["coefficients"])
        coefficients = {k: v for k, v in result["coefficients"].items() if k in wanted}
        # Per image, alpha_matched is in the most disputed list: no copy of every image.
        if "alpha_matched" in coefficients:
            coefficients["alpha_matched"].pop("images", None)
        result["coefficients"] = coefficients
        disputed = result.pop("images")[:MOST_DISPUTED]
        units = matched_units_of(
            data, float(params["iou_threshold"]), {e["image"] for e in disputed}
        )
        result["most_disputed"] = [
            {
                **entry,
                "name": entry["image"],
                "value": entry.get("alpha_matched"),
                "units": units.get(entry["image"], []),
            }
            for entry in disputed
        ]
        result["n_items"] = result["n_images"]
        return result

    return report
