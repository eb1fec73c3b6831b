"""COCO detection JSON: ``images``, ``categories`` and ``annotations`` (Lin et al. 2014).

- image (item): the image's ``file_name`` (its ``width`` and ``height`` become the item's
  size, ``coco_url`` its URL);
- coder: each annotation's ``annotator`` field when it has one (COCO has none; the
  server's COCO export writes it), else the ``coder`` option, else the file's name: one file
  per annotator;
- regions: ``bbox`` ``[x, y, width, height]`` gives a box, each polygon of
  ``segmentation`` a polygon (RLE masks are rejected), each visible keypoint (``v > 0``) of
  ``keypoints`` a keypoint labelled with the category's keypoint name (or the category's
  name). The import's question takes the regions of its kind; the others are skipped.
- "annotated, drew nothing": in a one-annotator file every image listed counts as seen by
  its annotator; ``annotated_nothing`` (the server's export) lists the pairs of a file
  with an annotator field.
"""

from __future__ import annotations

from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedRegion,
    ParseOptions,
    decode,
    key_text,
    load_json,
    register,
    stem,
)


def _numbers(values: Any, count: int | None = None) -> list[float] | None:
    if not isinstance(values, list) or (count is not None and len(values) != count):
        return None
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v in values):
        return None
    return [float(v) for v in values]


@register(
    "coco",
    title="COCO detection JSON",
    description="images, categories and annotations: bbox (boxes), segmentation polygons, "
    "keypoints; one file per annotator, or an annotator field per annotation.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    document = load_json(decode(data))
    if not isinstance(document, dict) or not isinstance(document.get("images"), list):
        raise MalformedFileError(
            "A COCO file is a JSON object with images, categories, annotations."
        )
    parsed = ParsedFile()
    file_coder = options.coder or stem(options.filename)
    images: dict[Any, str] = {}
    for index, image in enumerate(document["images"]):
        name = key_text(image.get("file_name")) if isinstance(image, dict) else None
        if name is None:
            parsed.reject(
                f"images[{index}]",
                "file_name",
                ImportErrorCode.REQUIRED,
                "An image needs a file_name.",
            )
            continue
        images[image.get("id")] = name
        parsed.image(
            name,
            width=image.get("width"),
            height=image.get("height"),
            url=image.get("coco_url", ""),
        )
    categories, keypoint_names = _categories(document.get("categories"))
    drew: set[tuple[str, str]] = set()
    for index, annotation in enumerate(document.get("annotations") or []):
        parsed.records += 1
        source = f"annotations[{index}]"
        if not isinstance(annotation, dict):
            parsed.reject(source, "annotation", ImportErrorCode.INVALID_TYPE, "Not an object.")
            continue
        image = images.get(annotation.get("image_id"))
        coder = key_text(annotation.get("annotator")) or file_coder
        label = categories.get(annotation.get("category_id"))
        if image is None or coder is None or label is None:
            field = "image_id" if image is None else "annotator" if coder is None else "category_id"
            parsed.reject(
                source,
                field,
                ImportErrorCode.REQUIRED,
                f"{field} names no {'image' if field == 'image_id' else field} of the "
                "file (name the annotator with the coder option).",
            )
            continue
        drew.add((image, coder))
        _regions(
            parsed,
            source,
            image,
            coder,
            label,
            annotation,
            keypoint_names.get(annotation.get("category_id"), []),
        )
    _nothing(parsed, document, images, file_coder, drew)
    return parsed


def _categories(raw: Any) -> tuple[dict[Any, str], dict[Any, list[str]]]:
    names: dict[Any, str] = {}
    keypoints: dict[Any, list[str]] = {}
    for category in raw if isinstance(raw, list) else []:
        if isinstance(category, dict) and key_text(category.get("name")):
            names[category.get("id")] = str(category["name"]).strip()
            if isinstance(category.get("keypoints"), list):
                keypoints[category.get("id")] = [str(k) for k in category["keypoints"]]
    return names, keypoints


def _regions(
    parsed: ParsedFile,
    source: str,
    image: str,
    coder: str,
    label: str,
    annotation: dict[str, Any],
    keypoint_names: list[str],
) -> None:
    bbox = _numbers(annotation.get("bbox"), 4)
    if bbox is not None:
        x, y, width, height = bbox
        rotation = (
            (annotation.get("attributes") or {}).get("rotation", 0)
            if isinstance(annotation.get("attributes"), dict)
            else 0
        )
        cells = {
            "x": x,
            "y": y,
            "width": width,
            "height": height,
            "label": label,
            "rotation": rotation or 0,
        }
        parsed.regions.append(ParsedRegion(source, image, coder, "box", cells))
    segmentation = annotation.get("segmentation")
    if isinstance(segmentation, dict):
        parsed.reject(
            source,
            "segmentation",
            ImportErrorCode.UNSUPPORTED_TYPE,
            "RLE masks are not read: export polygons.",
        )
    for polygon in segmentation if isinstance(segmentation, list) else []:
        flat = _numbers(polygon)
        if flat is None or len(flat) % 2:
            parsed.reject(
                source,
                "segmentation",
                ImportErrorCode.INVALID_TYPE,
                "A polygon is a flat list of x, y numbers.",
            )
            continue
        points = [[flat[i], flat[i + 1]] for i in range(0, len(flat), 2)]
        parsed.regions.append(
            ParsedRegion(source, image, coder, "polygon", {"points": points, "label": label})
        )
    keypoints = _numbers(annotation.get("keypoints"))
    for index in range(0, len(keypoints or []) // 3 * 3, 3):
        assert keypoints is not None
        x, y, visible = keypoints[index : index + 3]
        if visible > 0:
            name = keypoint_names[index // 3] if index // 3 < len(keypoint_names) else label
            parsed.regions.append(
                ParsedRegion(source, image, coder, "keypoint", {"x": x, "y": y, "label": name})
            )


def _nothing(
    parsed: ParsedFile,
    document: dict[str, Any],
    images: dict[Any, str],
    file_coder: str | None,
    drew: set[tuple[str, str]],
) -> None:
    """Marks for the pairs that annotated an image and drew nothing there."""
    pairs: set[tuple[str, str]] = set()
    if file_coder is not None and not any(
        isinstance(a, dict) and a.get("annotator") for a in document.get("annotations") or []
    ):
        pairs |= {(image, file_coder) for image in images.values()}
    for entry in document.get("annotated_nothing") or []:
        if isinstance(entry, dict) and entry.get("image_id") in images:
            coder = key_text(entry.get("annotator"))
            if coder:
                pairs.add((images[entry["image_id"]], coder))
    for image, coder in sorted(pairs - drew):
        for kind in ("box", "polygon", "keypoint"):
            parsed.regions.append(ParsedRegion(f"image {image}", image, coder, kind))
