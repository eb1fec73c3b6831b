"""Region data: what every region measure reads.

An *image* holds zero or more *regions* per coder: boxes ``(x, y, width, height)`` with an
optional rotation, polygons (a list of points) or keypoints (a point), each with a label.
Whether a coder *annotated* an image is kept apart from the regions: a coder who annotated
it and drew nothing has said "nothing here" (every measure counts that), a coder who did
not annotate it is missing (no measure counts that coder on that image).

Regions are kept as parallel arrays sorted by (image, coder, order given), so the regions of
image ``i`` are ``slice(offsets[i], offsets[i + 1])``; coders are sorted by their key, which is
the order :func:`~metrics.regions.alpha_matched` takes them in.

Examples
--------
>>> data = RegionData.from_boxes(
...     [("img1", "ann", 0, 0, 10, 10, "cat"), ("img1", "bob", 1, 0, 10, 10, "cat")],
...     annotated=[("img2", "ann"), ("img2", "bob")],
... )
>>> data.n_images, data.n_coders, data.n_regions, data.kind
(2, 2, 2, 'box')
>>> data.annotated.tolist()
[[True, True], [True, True]]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from metrics.regions.boxes import box_corners
from metrics.regions.polygons import as_polygon, check_simple_polygon, polygon_area

__all__ = ["KINDS", "RegionData", "RegionKind"]

RegionKind = Literal["box", "polygon", "keypoint"]
#: The kinds of region :class:`RegionData` holds.
KINDS: tuple[str, ...] = ("box", "polygon", "keypoint")


def _codes(values: list[Hashable], known: Sequence[Hashable] | None) -> tuple[tuple, NDArray]:
    """Identifiers in sorted order (first-seen order when they do not sort) and codes."""
    if known is None:
        found = list(dict.fromkeys(values))
        try:
            known = sorted(found)  # type: ignore[type-var]
        except TypeError:
            known = found
    index = {value: i for i, value in enumerate(known)}
    try:
        codes = np.fromiter((index[v] for v in values), dtype=np.intp, count=len(values))
    except KeyError as error:
        raise ValueError(f"label {error.args[0]!r} is not among the categories given") from None
    return tuple(known), codes


@dataclass(frozen=True, eq=False)
class RegionData:
    """Regions of several coders on several images.

    Attributes
    ----------
    kind : {"box", "polygon", "keypoint"}
    images, coders, categories : tuple
        Identifiers (coders in ascending order of their key); ``image``, ``coder`` and
        ``category`` index them.
    annotated : ndarray of bool, shape (n_images, n_coders)
        Whether the coder annotated the image (with or without regions).
    image, coder, category : ndarray of int, shape (n_regions,)
    boxes : ndarray of float, shape (n_regions, 5)
        ``(x, y, width, height, rotation)``: the box itself for boxes; the axis-aligned
        bounding box (rotation 0) of a polygon; ``(x, y, 0, 0, 0)`` for a keypoint.
    vertices : ndarray of float, shape (n_vertices, 2)
        Polygon vertices, region ``r``'s at ``vertex_offsets[r]:vertex_offsets[r + 1]``
        (empty for boxes and keypoints).
    vertex_offsets : ndarray of int, shape (n_regions + 1,)
    areas : ndarray of float, shape (n_regions,)
        Each region's area (0 for keypoints), or a keypoint's scale (the object's area for
        OKS; ``nan`` when not given).
    sizes : ndarray of float, shape (n_images, 2)
        Each image's ``(width, height)``, ``nan`` when not given.
    """

    kind: str
    images: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    categories: tuple[Hashable, ...]
    annotated: NDArray[np.bool_]
    image: NDArray[np.intp]
    coder: NDArray[np.intp]
    category: NDArray[np.intp]
    boxes: NDArray[np.float64]
    vertices: NDArray[np.float64]
    vertex_offsets: NDArray[np.intp]
    areas: NDArray[np.float64]
    sizes: NDArray[np.float64]

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def from_boxes(
        cls,
        rows: Iterable[Sequence[Any]],
        *,
        annotated: Iterable[tuple[Hashable, Hashable]] | None = None,
        complete: bool = False,
        sizes: Mapping[Hashable, tuple[float, float]] | None = None,
        categories: Sequence[Hashable] | None = None,
    ) -> RegionData:
        """Boxes from ``(image, coder, x, y, width, height, label)`` rows, or with an eighth
        column ``rotation`` in degrees (clockwise on screen about the top-left corner).

        Parameters
        ----------
        rows : iterable of sequences
        annotated : iterable of (image, coder), optional
            Pairs that annotated an image and drew nothing. A pair with a region has always
            annotated.
        complete : bool, default False
            Every coder annotated every image (a coder without regions drew nothing there).
        sizes : mapping of image to (width, height), optional
            Image sizes in pixels (they normalise corner L2; without one an image's extent is
            taken as the bounding box of all its regions and the origin).
        categories : sequence, optional
            Every label, in order; default: the labels that occur, sorted.

        Raises
        ------
        ValueError
            A row of the wrong length, a non-finite coordinate, a negative width or height
            (the message names the row).
        """
        table = [tuple(row) for row in rows]
        for number, row in enumerate(table):
            if len(row) not in (7, 8):
                raise ValueError(
                    f"row {number}: a box is (image, coder, x, y, width, height, label"
                    f"[, rotation]); got {len(row)} fields"
                )
        geometry = np.array(
            [[*row[2:6], row[7] if len(row) == 8 else 0.0] for row in table], dtype=np.float64
        ).reshape(-1, 5)
        _check_finite(geometry, table)
        negative = (geometry[:, 2] < 0) | (geometry[:, 3] < 0)
        if negative.any():
            number = int(np.flatnonzero(negative)[0])
            raise ValueError(f"row {number} {table[number][:2]}: width and height must be ≥ 0")
        return cls._build(
            "box",
            [row[0] for row in table],
            [row[1] for row in table],
            [row[6] for row in table],
            geometry,
            [],
            np.abs(geometry[:, 2] * geometry[:, 3]),
            annotated=annotated,
            complete=complete,
            sizes=sizes,
            categories=categories,
        )

    @classmethod
    def from_polygons(
        cls,
        rows: Iterable[Sequence[Any]],
        *,
        annotated: Iterable[tuple[Hashable, Hashable]] | None = None,
        complete: bool = False,
        sizes: Mapping[Hashable, tuple[float, float]] | None = None,
        categories: Sequence[Hashable] | None = None,
    ) -> RegionData:
        """Polygons from ``(image, coder, points, label)`` rows, ``points`` a sequence of
        ``(x, y)``; each polygon must be simple (see
        :func:`metrics.regions.polygons.check_simple_polygon`). Options as
        :meth:`from_boxes`."""
        table = [tuple(row) for row in rows]
        polygons = []
        for number, row in enumerate(table):
            if len(row) != 4:
                raise ValueError(
                    f"row {number}: a polygon is (image, coder, points, label); "
                    f"got {len(row)} fields"
                )
            problem = check_simple_polygon(row[2])
            if problem is not None:
                raise ValueError(f"row {number} {row[:2]}: the polygon is not simple: {problem}")
            polygons.append(as_polygon(row[2]))
        low = np.array([p.min(axis=0) for p in polygons]).reshape(-1, 2)
        high = np.array([p.max(axis=0) for p in polygons]).reshape(-1, 2)
        geometry = np.column_stack([low, high - low, np.zeros(len(polygons))]).reshape(-1, 5)
        return cls._build(
            "polygon",
            [row[0] for row in table],
            [row[1] for row in table],
            [row[3] for row in table],
            geometry,
            polygons,
            np.array([polygon_area(p) for p in polygons], dtype=np.float64),
            annotated=annotated,
            complete=complete,
            sizes=sizes,
            categories=categories,
        )

    @classmethod
    def from_keypoints(
        cls,
        rows: Iterable[Sequence[Any]],
        *,
        annotated: Iterable[tuple[Hashable, Hashable]] | None = None,
        complete: bool = False,
        sizes: Mapping[Hashable, tuple[float, float]] | None = None,
        categories: Sequence[Hashable] | None = None,
    ) -> RegionData:
        """Keypoints from ``(image, coder, x, y, label)`` rows, or with a sixth column, the
        keypoint's scale (the object's area in square pixels, for OKS). Options as
        :meth:`from_boxes`."""
        table = [tuple(row) for row in rows]
        for number, row in enumerate(table):
            if len(row) not in (5, 6):
                raise ValueError(
                    f"row {number}: a keypoint is (image, coder, x, y, label[, scale]); "
                    f"got {len(row)} fields"
                )
        points = np.array([row[2:4] for row in table], dtype=np.float64).reshape(-1, 2)
        geometry = np.column_stack([points, np.zeros((len(table), 3))])
        _check_finite(geometry, table)
        scales = np.array(
            [float(row[5]) if len(row) == 6 else np.nan for row in table], dtype=np.float64
        )
        given = ~np.isnan(scales)
        if np.any(~(scales[given] > 0)):
            raise ValueError("A keypoint's scale (the object's area) must be positive.")
        return cls._build(
            "keypoint",
            [row[0] for row in table],
            [row[1] for row in table],
            [row[4] for row in table],
            geometry,
            [],
            scales,
            annotated=annotated,
            complete=complete,
            sizes=sizes,
            categories=categories,
        )

    @classmethod
    def _build(
        cls,
        kind: str,
        images: list[Hashable],
        coders: list[Hashable],
        labels: list[Hashable],
        geometry: NDArray[np.float64],
        polygons: list[NDArray[np.float64]],
        areas: NDArray[np.float64],
        *,
        annotated: Iterable[tuple[Hashable, Hashable]] | None,
        complete: bool,
        sizes: Mapping[Hashable, tuple[float, float]] | None,
        categories: Sequence[Hashable] | None,
    ) -> RegionData:
        pairs = list(annotated or [])
        sizes = dict(sizes or {})
        n = len(images)
        image_names, image_codes = _codes(images + [i for i, _ in pairs] + list(sizes), None)
        coder_names, coder_codes = _codes(coders + [c for _, c in pairs], None)
        labels_known, category_codes = _codes(labels, categories)
        image_codes, coder_codes = image_codes[:n], coder_codes[:n]

        marked = np.zeros((len(image_names), len(coder_names)), dtype=bool)
        if complete:
            marked[:] = True
        else:
            marked[image_codes, coder_codes] = True
            image_index = {name: i for i, name in enumerate(image_names)}
            coder_index = {name: i for i, name in enumerate(coder_names)}
            for name, who in pairs:
                marked[image_index[name], coder_index[who]] = True

        size_array = np.full((len(image_names), 2), np.nan)
        for position, name in enumerate(image_names):
            if name in sizes:
                width, height = (float(v) for v in sizes[name])
                if not (np.isfinite(width) and np.isfinite(height) and width > 0 and height > 0):
                    raise ValueError(f"image {name!r}: a size is a positive width and height")
                size_array[position] = (width, height)

        order = np.lexsort((np.arange(n), coder_codes, image_codes))
        counts = np.array([len(p) for p in polygons], dtype=np.intp)[order] if polygons else []
        vertex_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
        vertices = (
            np.concatenate([polygons[k] for k in order.tolist()]) if polygons else np.zeros((0, 2))
        )
        return cls(
            kind=kind,
            images=image_names,
            coders=coder_names,
            categories=labels_known,
            annotated=marked,
            image=image_codes[order],
            coder=coder_codes[order],
            category=category_codes[order],
            boxes=geometry[order],
            vertices=np.asarray(vertices, dtype=np.float64),
            vertex_offsets=vertex_offsets if polygons else np.zeros(n + 1, dtype=np.intp),
            areas=np.asarray(areas, dtype=np.float64)[order],
            sizes=size_array,
        )

    # -- shape -----------------------------------------------------------------------------

    @property
    def n_images(self) -> int:
        return len(self.images)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_regions(self) -> int:
        return len(self.image)

    @cached_property
    def offsets(self) -> NDArray[np.intp]:
        """Regions of image ``i`` are ``offsets[i]:offsets[i + 1]``."""
        counts = np.bincount(self.image, minlength=self.n_images)
        return np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)

    @cached_property
    def rotated(self) -> NDArray[np.bool_]:
        """Which boxes have a rotation (they are compared as polygons)."""
        return np.asarray((self.boxes[:, 4] % 360) != 0, dtype=bool)

    @cached_property
    def diagonals(self) -> NDArray[np.float64]:
        """Each image's diagonal: from its size, else from the extent of its regions
        (the bounding box of the origin and every region's bounding box)."""
        width, height = self.sizes[:, 0].copy(), self.sizes[:, 1].copy()
        unknown = np.isnan(width)
        if unknown.any():
            corners = box_corners(self.boxes) if self.n_regions else np.zeros((0, 4, 2))
            right = corners[..., 0].max(axis=-1) if self.n_regions else np.zeros(0)
            bottom = corners[..., 1].max(axis=-1) if self.n_regions else np.zeros(0)
            extent_x = np.zeros(self.n_images)
            extent_y = np.zeros(self.n_images)
            np.maximum.at(extent_x, self.image, right)
            np.maximum.at(extent_y, self.image, bottom)
            width[unknown], height[unknown] = extent_x[unknown], extent_y[unknown]
        return np.asarray(np.hypot(width, height), dtype=np.float64)

    @cached_property
    def bounds(self) -> NDArray[np.float64]:
        """``(n_regions, 4)`` axis-aligned bounds ``(x1, y1, x2, y2)`` of every region."""
        boxes = self.boxes
        result = np.column_stack(
            [boxes[:, 0], boxes[:, 1], boxes[:, 0] + boxes[:, 2], boxes[:, 1] + boxes[:, 3]]
        )
        if self.kind == "box" and self.rotated.any():
            corners = box_corners(boxes[self.rotated])
            low, high = corners.min(axis=-2), corners.max(axis=-2)
            result[self.rotated] = np.column_stack([low, high])
        return result

    def coders_of(self, image: int) -> NDArray[np.intp]:
        """Indices of the coders who annotated image ``image`` (ascending)."""
        return np.flatnonzero(self.annotated[image])

    def outline(self, region: int) -> NDArray[np.float64]:
        """The region as a polygon ``(n, 2)``: a polygon's vertices or a box's corners."""
        if self.kind == "polygon":
            return self.vertices[self.vertex_offsets[region] : self.vertex_offsets[region + 1]]
        return np.asarray(box_corners(self.boxes[region]), dtype=np.float64)


def _check_finite(geometry: NDArray[np.float64], table: list[tuple]) -> None:
    bad = ~np.isfinite(geometry).all(axis=1)
    if bad.any():
        number = int(np.flatnonzero(bad)[0])
        raise ValueError(f"row {number} {table[number][:2]}: coordinates must be finite")


def as_region_data(data: RegionData | Any) -> RegionData:
    """``data`` itself, or a ``TypeError`` naming what the region measures take."""
    if not isinstance(data, RegionData):
        raise TypeError(
            "The region measures take a RegionData (RegionData.from_boxes, from_polygons or "
            f"from_keypoints); got {type(data).__name__}."
        )
    return data
