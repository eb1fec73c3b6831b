"""Detection F1 between coders: did two coders find the same objects, with the same label?

For a pair of coders and an image both annotated, two regions *match* when they have the same
label and an IoU of at least ``iou_threshold`` (for keypoints: their similarity, see
:func:`~metrics.regions.pairwise.pair_similarity`). Matching is one-to-one and *maximum*: the
largest number of matched pairs (Hopcroft–Karp,
:func:`scipy.sparse.csgraph.maximum_bipartite_matching`, on all images and labels of a pair at
once; an edge never joins two images or two labels). With ``M`` matches and ``n_a + n_b``
regions of the two coders over the images both annotated (micro over images),

.. math:: F_1 = \\frac{2M}{n_a + n_b},

symmetric in the pair. ``value`` is the mean of the pairs' F1; a pair with no region on the
images both annotated (both drew nothing everywhere) is left out. Each label's F1 is the
same restricted to regions of that label, a pair with no region of the label left out of the
label's mean. A coder who annotated an image and drew nothing counts the other's regions there
as misses; an image one coder of the pair did not annotate is left out of that pair.

F1 is not corrected for chance (two coders who both drew nothing add nothing), and it
ignores how well matched regions overlap beyond the threshold: it says whether coders found
the same objects. The same definition serves detection evaluation (a matching at IoU ≥ 0.5
and one label, as in PASCAL VOC).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from scipy.sparse.csgraph import maximum_bipartite_matching

from metrics.decomposition import Decomposition
from metrics.regions.data import RegionData
from metrics.regions.pairwise import pair_similarity

__all__ = ["DetectionF1", "PairDetectionF1", "decompose_detection_f1", "detection_f1"]


@dataclass(frozen=True)
class PairDetectionF1:
    """One coder pair over the images both annotated.

    ``value`` is ``2 matches / regions``, None when the pair has no region there.
    """

    coders: tuple[Hashable, Hashable]
    value: float | None
    matches: int
    regions: int
    images: int


@dataclass(frozen=True)
class DetectionF1:
    """Detection F1 averaged over coder pairs.

    Attributes
    ----------
    value : float
        Mean over pairs (with at least one region) of ``2 M / (n_a + n_b)``.
    categories : dict
        Label → mean over the pairs with a region of that label of its own F1.
    pairs : tuple of PairDetectionF1
        Every pair of coders that annotated at least one image together.
    iou_threshold : float
    """

    value: float
    categories: dict[Hashable, float]
    pairs: tuple[PairDetectionF1, ...]
    iou_threshold: float


@dataclass(frozen=True)
class _PairCounts:
    """One coder pair's matches and regions by image and label: arrays (n_images, n_labels)."""

    matches: NDArray[np.float64]
    regions: NDArray[np.float64]
    images: int


def _check_threshold(iou_threshold: float) -> float:
    value = float(iou_threshold)
    if not 0.0 < value <= 1.0:
        raise ValueError(f"iou_threshold must be in (0, 1]; got {iou_threshold!r}.")
    return value


def _candidates(
    data: RegionData, first: NDArray[np.intp], second: NDArray[np.intp]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every pair (i in ``first``, j in ``second``) on the same image with the same label."""
    width = max(len(data.categories), 1)
    key_first = data.image[first] * width + data.category[first]
    key_second = data.image[second] * width + data.category[second]
    order = np.argsort(key_second, kind="stable")
    second, key_second = second[order], key_second[order]
    start = np.searchsorted(key_second, key_first, side="left")
    count = np.searchsorted(key_second, key_first, side="right") - start
    left = np.repeat(first, count)
    begin = np.repeat(start, count)
    offset = np.arange(left.size) - np.repeat(np.cumsum(count) - count, count)
    return left, second[begin + offset]


def _pair_counts(data: RegionData, a: int, b: int, threshold: float) -> _PairCounts:
    shared = data.annotated[:, a] & data.annotated[:, b]
    on_shared = shared[data.image]
    first = np.flatnonzero((data.coder == a) & on_shared)
    second = np.flatnonzero((data.coder == b) & on_shared)
    shape = (data.n_images, max(len(data.categories), 1))
    regions = np.zeros(shape)
    np.add.at(regions, (data.image[first], data.category[first]), 1.0)
    np.add.at(regions, (data.image[second], data.category[second]), 1.0)
    matches = np.zeros(shape)
    left, right = _candidates(data, first, second)
    if left.size:
        close = pair_similarity(data, left, right) >= threshold
        left, right = left[close], right[close]
    if left.size:
        row = np.searchsorted(first, left)
        column = np.searchsorted(second, right)
        graph = sparse.csr_matrix(
            (np.ones(left.size), (row, column)), shape=(first.size, second.size)
        )
        partner = maximum_bipartite_matching(graph, perm_type="column")
        matched = first[partner >= 0]
        np.add.at(matches, (data.image[matched], data.category[matched]), 1.0)
    return _PairCounts(matches, regions, int(shared.sum()))


def _coder_pairs(data: RegionData) -> list[tuple[int, int]]:
    together = data.annotated.T.astype(np.int64) @ data.annotated.astype(np.int64)
    return [(a, b) for a, b in combinations(range(data.n_coders), 2) if together[a, b] > 0]


def _mean_f1(matches: NDArray[np.float64], regions: NDArray[np.float64]) -> float | None:
    """Mean of ``2 M / R`` over the entries with ``R > 0`` (None if there are none)."""
    kept = regions > 0
    if not kept.any():
        return None
    return float(np.mean(2.0 * matches[kept] / regions[kept]))


def _all_counts(
    data: RegionData, iou_threshold: float
) -> tuple[list[tuple[int, int]], list[_PairCounts]]:
    threshold = _check_threshold(iou_threshold)
    pairs = _coder_pairs(data)
    if not pairs:
        raise ValueError("Detection F1 needs two coders who annotated the same image; none did.")
    return pairs, [_pair_counts(data, a, b, threshold) for a, b in pairs]


def detection_f1(data: RegionData, *, iou_threshold: float = 0.5) -> DetectionF1:
    """Detection F1 between coders, averaged over coder pairs, overall and per label.

    Parameters
    ----------
    data : RegionData
    iou_threshold : float, default 0.5
        Two regions of the same label match when their IoU is at least this (``0 < t ≤ 1``).

    Returns
    -------
    DetectionF1

    Raises
    ------
    ValueError
        If no two coders annotated an image together, or no pair has a region on the images
        it shares.

    Examples
    --------
    Coder a draws two cats, b one of them (IoU 0.9) and a dog: 1 match of 4 regions,
    F1 = 2 / 4; the cats alone 2 · 1 / 3, the dogs 0.

    >>> data = RegionData.from_boxes([("i", "a", 0, 0, 10, 10, "cat"),
    ...     ("i", "a", 40, 0, 10, 10, "cat"), ("i", "b", 0, 0, 10, 9, "cat"),
    ...     ("i", "b", 80, 0, 10, 10, "dog")])
    >>> result = detection_f1(data)
    >>> result.value, {k: round(v, 4) for k, v in result.categories.items()}
    (0.5, {'cat': 0.6667, 'dog': 0.0})
    """
    pairs, counts = _all_counts(data, iou_threshold)
    entries = []
    for (a, b), pair in zip(pairs, counts, strict=True):
        matches, regions = float(pair.matches.sum()), float(pair.regions.sum())
        entries.append(
            PairDetectionF1(
                coders=(data.coders[a], data.coders[b]),
                value=None if regions == 0 else 2.0 * matches / regions,
                matches=int(matches),
                regions=int(regions),
                images=pair.images,
            )
        )
    totals = np.array([[e.matches, e.regions] for e in entries], dtype=np.float64)
    value = _mean_f1(totals[:, 0], totals[:, 1])
    if value is None:
        raise ValueError(
            "Detection F1 is undefined: no coder pair has a region on the images it shares."
        )
    by_label_matches = np.array([pair.matches.sum(axis=0) for pair in counts])
    by_label_regions = np.array([pair.regions.sum(axis=0) for pair in counts])
    categories: dict[Hashable, float] = {}
    for k, label in enumerate(data.categories):
        label_value = _mean_f1(by_label_matches[:, k], by_label_regions[:, k])
        if label_value is not None:
            categories[label] = label_value
    return DetectionF1(value, categories, tuple(entries), float(iou_threshold))


def decompose_detection_f1(data: RegionData, *, iou_threshold: float = 0.5) -> Decomposition:
    """Detection F1 with one row per image: ``[M_p, R_p]`` for every coder pair ``p``."""
    _, counts = _all_counts(data, iou_threshold)
    columns = []
    for pair in counts:
        columns += [pair.matches.sum(axis=1), pair.regions.sum(axis=1)]
    stats = np.column_stack(columns)

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        matches, regions = totals[..., 0::2], totals[..., 1::2]
        kept = regions > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            f1 = np.where(kept, 2.0 * matches / regions, 0.0)
            return np.asarray(
                np.where(kept.any(-1), f1.sum(-1) / kept.sum(-1), np.nan), dtype=np.float64
            )

    return Decomposition("detection_f1", stats, finalize)


def image_detection_f1(data: RegionData, *, iou_threshold: float = 0.5) -> NDArray[np.float64]:
    """Each image's F1 over all its coder pairs, ``2 ΣM / ΣR`` (``nan`` without regions)."""
    _, counts = _all_counts(data, iou_threshold)
    matches = sum(pair.matches.sum(axis=1) for pair in counts)
    regions = sum(pair.regions.sum(axis=1) for pair in counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(np.where(regions > 0, 2.0 * matches / regions, np.nan), dtype=np.float64)
