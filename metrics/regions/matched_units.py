"""Units of matched regions, formed image by image as kalphacv forms them.

Tschirschwitz, Klemstein, Stein & Rodehorst (2022) turn one image's regions into units for
Krippendorff's alpha by matching; the ``kalphacv`` package (1.5.2,
``reliability_data.ReliabilityData.recursive_matching`` and
``hungarian_matching.run_matching``) does it as follows, and :func:`match_units` does the same:

1. The coders who annotated the image are taken in ascending order of their key. The first
   coder's regions open one unit each.
2. Each later coder is matched to the earlier coders in turn (first, second, ...). Against
   earlier coder ``j`` the candidates are the units where ``j`` has a region and the new coder
   has none yet; the new coder's regions not matched so far are matched to ``j``'s regions in
   those units by :func:`scipy.optimize.linear_sum_assignment` on the cost ``1 − IoU``, after
   dropping the rows and columns with no IoU above the threshold; a pair is kept when its IoU
   is *strictly* above the threshold (in kalphacv's form ``1 − IoU < 1 − threshold``, which this
   module evaluates the same way, so that a pair on the threshold is decided as there).
   Labels play no part in matching.
3. The new coder's regions left unmatched open new units, in the order given.
4. In every unit, a coder who annotated the image but has no region there gives the value
   "empty" (:data:`EMPTY`), including a coder who drew nothing on the image.

kalphacv pads the filtered cost matrix to a square with empty entries at cost 1; that adds
the same cost to every assignment, so the rectangular assignment here picks the same pairs.
(Among exactly tied assignments either may be taken; kalphacv's order of candidates there is
that of a Python ``set`` of objects.)

References
----------
Tschirschwitz, D., Klemstein, F., Stein, B. & Rodehorst, V. (2022). A Dataset for Analysing
Complex Document Layouts in the Digital Humanities and Its Evaluation with Krippendorff's
Alpha. DAGM GCPR 2022, LNCS 13485, 354–374. https://doi.org/10.1007/978-3-031-16788-1_22
kalphacv 1.5.2, https://github.com/Madave94/kalphacv (MIT).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment

from metrics.regions.data import RegionData
from metrics.regions.pairwise import pair_similarity

__all__ = ["EMPTY", "NOT_ANNOTATED", "MatchedUnits", "match_units"]

#: A cell of :attr:`MatchedUnits.cells` where the coder annotated the image but has no region
#: in the unit (the value "empty").
EMPTY = -1
#: A cell where the coder did not annotate the image (no value).
NOT_ANNOTATED = -2


@dataclass(frozen=True)
class MatchedUnits:
    """The units of every image, as rows of a units × coders table.

    Attributes
    ----------
    image : ndarray of int, shape (n_units,)
        The image of each unit (units of an image are consecutive, images in order).
    cells : ndarray of int, shape (n_units, n_coders)
        The region (index into the data's regions) each coder has in the unit, :data:`EMPTY`
        or :data:`NOT_ANNOTATED`.
    images_with_coders : ndarray of bool, shape (n_images,)
        Images annotated by at least two coders (the others form no units).
    iou_threshold : float
    """

    image: NDArray[np.intp]
    cells: NDArray[np.intp]
    images_with_coders: NDArray[np.bool_]
    iou_threshold: float

    @property
    def n_units(self) -> int:
        return int(self.image.size)


def _check_threshold(iou_threshold: float) -> float:
    value = float(iou_threshold)
    if not 0.0 <= value <= 1.0:
        raise ValueError(f"iou_threshold must be between 0 and 1; got {iou_threshold!r}.")
    return value


def _matches(cost: NDArray[np.float64], limit: float) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """kalphacv's ``run_matching``: rows and columns of the pairs kept."""
    hit = cost < limit
    rows, columns = np.flatnonzero(hit.any(axis=1)), np.flatnonzero(hit.any(axis=0))
    if rows.size == 0:
        return rows, columns
    sub = cost[np.ix_(rows, columns)]
    picked_rows, picked_columns = linear_sum_assignment(sub)
    kept = sub[picked_rows, picked_columns] < limit
    return rows[picked_rows[kept]], columns[picked_columns[kept]]


def _image_table(
    cost: NDArray[np.float64], owners: list[list[int]], limit: float
) -> list[list[int]]:
    """One image's units as rows per coder (local region indices, -1 for empty)."""
    table = [list(owners[0])]
    for k in range(1, len(owners)):
        row = [EMPTY] * len(table[0])
        pending = list(owners[k])
        for earlier in range(k):
            if not pending:
                break
            reference = table[earlier]
            free = [c for c, region in enumerate(reference) if region >= 0 and row[c] == EMPTY]
            if not free:
                continue
            old = [reference[c] for c in free]
            picked_old, picked_new = _matches(cost[np.ix_(old, pending)], limit)
            for a, b in zip(picked_old.tolist(), picked_new.tolist(), strict=True):
                row[free[a]] = pending[b]
            taken = set(picked_new.tolist())
            pending = [p for position, p in enumerate(pending) if position not in taken]
        for earlier_row in table:
            earlier_row.extend([EMPTY] * len(pending))
        row.extend(pending)
        table.append(row)
    return table


def match_units(data: RegionData, *, iou_threshold: float = 0.5) -> MatchedUnits:
    """Form kalphacv's units on every image annotated by at least two coders.

    Parameters
    ----------
    data : RegionData
    iou_threshold : float, default 0.5
        Two regions match when their IoU (OKS or keypoint similarity for keypoints) is
        strictly above it.

    Returns
    -------
    MatchedUnits

    Examples
    --------
    Two coders agree on one box; the second also drew a box the first did not:

    >>> data = RegionData.from_boxes([("i", "a", 0, 0, 10, 10, "x"),
    ...     ("i", "b", 1, 0, 10, 10, "x"), ("i", "b", 50, 50, 5, 5, "x")])
    >>> match_units(data).cells.tolist()
    [[0, 1], [-1, 2]]
    """
    limit = 1.0 - _check_threshold(iou_threshold)
    images, cells = [], []
    with_coders = data.annotated.sum(axis=1) >= 2
    for image in np.flatnonzero(with_coders).tolist():
        coders = data.coders_of(image)
        start, stop = int(data.offsets[image]), int(data.offsets[image + 1])
        owner = data.coder[start:stop]
        owners = [np.flatnonzero(owner == c).tolist() for c in coders.tolist()]
        local = np.arange(stop - start)
        left, right = np.repeat(local, local.size), np.tile(local, local.size)
        similarity = pair_similarity(data, left + start, right + start)
        cost = (1.0 - similarity).reshape(local.size, local.size)
        table = np.array(_image_table(cost, owners, limit), dtype=np.intp).reshape(len(coders), -1)
        block = np.full((table.shape[1], data.n_coders), NOT_ANNOTATED, dtype=np.intp)
        block[:, coders] = np.where(table >= 0, table + start, EMPTY).T
        cells.append(block)
        images.append(np.full(table.shape[1], image, dtype=np.intp))
    return MatchedUnits(
        image=np.concatenate(images) if images else np.zeros(0, dtype=np.intp),
        cells=np.vstack(cells) if cells else np.zeros((0, data.n_coders), dtype=np.intp),
        images_with_coders=np.asarray(with_coders, dtype=bool),
        iou_threshold=float(iou_threshold),
    )
