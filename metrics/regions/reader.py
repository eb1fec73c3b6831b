"""Read region annotations from CSV, one region per row.

- boxes: ``image,coder,x,y,width,height,label`` (``x, y`` the top-left corner in pixels; an
  optional ``rotation`` column in degrees, clockwise about the top-left corner as Label Studio
  writes it);
- polygons: ``image,coder,points,label`` with ``points`` written ``x1 y1;x2 y2;...``.

A row whose geometry and label are all empty says the coder annotated the image and drew
nothing there; a coder with no row for an image did not annotate it. Every error names the
file, the line and the field.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from metrics.errors import InputError
from metrics.regions.data import RegionData
from metrics.regions.polygons import check_simple_polygon

BOX_FIELDS = ("image", "coder", "x", "y", "width", "height", "label")
POLYGON_FIELDS = ("image", "coder", "points", "label")

__all__ = ["BOX_FIELDS", "POLYGON_FIELDS", "read_boxes", "read_polygons"]


def _rows(
    path: Path, fields: tuple[str, ...], optional: tuple[str, ...] = ()
) -> list[tuple[int, dict[str, str]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the file ({error}).") from None
    reader = csv.DictReader(text.splitlines())
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in fields if name not in header]
    if missing:
        raise InputError(
            f"{path}, line 1: the CSV header must name {', '.join(fields)}; "
            f"missing {', '.join(missing)}."
        )
    reader.fieldnames = header
    wanted = fields + tuple(name for name in optional if name in header)
    rows = []
    for row in reader:
        values = {name: (row.get(name) or "").strip() for name in wanted}
        if any(values.values()):
            rows.append((reader.line_num, values))
    if not rows:
        raise InputError(f"{path}: no rows after the header.")
    return rows


def _number(raw: str, field: str, where: str) -> float:
    if raw == "":
        raise InputError(f"{where}, field '{field}': empty; expected a number.")
    try:
        value = float(raw)
    except ValueError:
        raise InputError(f"{where}, field '{field}': expected a number, got {raw!r}.") from None
    if not math.isfinite(value):
        raise InputError(f"{where}, field '{field}': expected a finite number, got {raw!r}.")
    return value


def _name(raw: str, field: str, where: str) -> str:
    if raw == "":
        raise InputError(f"{where}, field '{field}': empty.")
    return raw


class _Collector:
    """Regions, "drew nothing" rows and the checks between them."""

    def __init__(self) -> None:
        self.rows: list[tuple[Any, ...]] = []
        self.marked: dict[tuple[str, str], int] = {}
        self.empty: dict[tuple[str, str], int] = {}

    def nothing(self, pair: tuple[str, str], number: int, where: str, field: str) -> None:
        if pair in self.marked:
            raise InputError(
                f"{where}, field '{field}': an empty row says coder {pair[1]!r} drew nothing on "
                f"{pair[0]!r}, but line {self.marked[pair]} has a region of theirs there."
            )
        self.empty.setdefault(pair, number)

    def region(
        self, pair: tuple[str, str], number: int, where: str, field: str, row: tuple
    ) -> None:
        if pair in self.empty:
            raise InputError(
                f"{where}, field '{field}': line {self.empty[pair]} says coder {pair[1]!r} drew "
                f"nothing on {pair[0]!r}."
            )
        self.marked.setdefault(pair, number)
        self.rows.append(row)

    @property
    def annotated(self) -> list[tuple[Hashable, Hashable]]:
        return list(self.empty)


def read_boxes(path: Path | str) -> RegionData:
    """Read boxes (CSV ``image,coder,x,y,width,height,label[,rotation]``) into RegionData.

    Raises
    ------
    InputError
        (a ``ValueError``) naming the file, line and field: a missing column, an empty image
        or coder, a partly empty row, a non-numeric or negative size, an empty row for a coder
        who drew regions on that image.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "boxes.csv").write_text("image,coder,x,y,width,height,label\\n"
    ...     "img1,ann,0,0,10,10,cat\\nimg1,bob,1,0,10,10,cat\\nimg1,cy,,,,,\\n")
    >>> data = read_boxes(folder / "boxes.csv")
    >>> data.coders, data.n_regions, data.annotated.tolist()
    (('ann', 'bob', 'cy'), 2, [[True, True, True]])
    """
    path = Path(path)
    collected = _Collector()
    geometry = ("x", "y", "width", "height")
    for number, row in _rows(path, BOX_FIELDS, ("rotation",)):
        where = f"{path}, line {number}"
        pair = (_name(row["image"], "image", where), _name(row["coder"], "coder", where))
        if all(row[name] == "" for name in (*geometry, "label", "rotation") if name in row):
            collected.nothing(pair, number, where, "x")
            continue
        x, y, width, height = (_number(row[name], name, where) for name in geometry)
        for name, value in (("width", width), ("height", height)):
            if value < 0:
                raise InputError(f"{where}, field '{name}': must be ≥ 0, got {value:g}.")
        label = _name(row["label"], "label", where)
        rotation = _number(row["rotation"], "rotation", where) if row.get("rotation") else None
        box = (*pair, x, y, width, height, label) + ((rotation,) if rotation is not None else ())
        collected.region(pair, number, where, "x", box)
    rows = [row if len(row) == 8 else (*row, 0.0) for row in collected.rows]
    try:
        return RegionData.from_boxes(rows, annotated=collected.annotated)
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None


def _points(raw: str, where: str) -> list[tuple[float, float]]:
    points = []
    for k, part in enumerate(p for p in raw.split(";") if p.strip()):
        pieces = part.split()
        if len(pieces) != 2:
            raise InputError(
                f"{where}, field 'points': point {k + 1} is {part.strip()!r}; write points as "
                "'x1 y1;x2 y2;...'."
            )
        points.append((_number(pieces[0], "points", where), _number(pieces[1], "points", where)))
    problem = check_simple_polygon(points) if len(points) >= 3 else "it has fewer than 3 points"
    if problem is not None:
        raise InputError(f"{where}, field 'points': not a simple polygon: {problem}.")
    return points


def read_polygons(path: Path | str) -> RegionData:
    """Read polygons (CSV ``image,coder,points,label``, points ``x1 y1;x2 y2;...``).

    Raises
    ------
    InputError
        Naming the file, line and field, as :func:`read_boxes`; also a point that is not two
        numbers and a polygon that is not simple (fewer than three points, crossing edges).
    """
    path = Path(path)
    collected = _Collector()
    for number, row in _rows(path, POLYGON_FIELDS):
        where = f"{path}, line {number}"
        pair = (_name(row["image"], "image", where), _name(row["coder"], "coder", where))
        if row["points"] == "" and row["label"] == "":
            collected.nothing(pair, number, where, "points")
            continue
        points = _points(_name(row["points"], "points", where), where)
        label = _name(row["label"], "label", where)
        collected.region(pair, number, where, "points", (*pair, points, label))
    try:
        return RegionData.from_polygons(collected.rows, annotated=collected.annotated)
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None
