"""Window-based segmentation measures: P_k and WindowDiff, on boundary strings and on spans.

A segmentation of ``N`` positions is a boundary string of length ``N`` (NLTK's convention):
element ``i`` equals ``boundary`` (``"1"``) when a boundary is marked at ``i``. A window of
width ``k`` covers elements ``i .. i + k - 1``; there are ``N - k + 1`` windows.

- **P_k** (Beeferman, Berger & Lafferty 1999): the share of windows where one segmentation
  has a boundary and the other has none;
- **WindowDiff** (Pevzner & Hearst 2002): the share of windows where the two have a
  different number of boundaries (``weighted=True``: the mean absolute difference).

Both are **error rates** (0 is perfect agreement, lower is better) and are **not corrected
for chance** (Artstein & Poesio 2008, §4.3.1). :func:`pk` and :func:`window_diff` give the
values of NLTK's ``nltk.metrics.segmentation.pk`` and ``windowdiff`` on every input those
accept; where NLTK's default ``k`` applies (``pk``; NLTK's ``windowdiff`` has no default, ours
takes the same) it is half the mean reference segment length,
``round(N / (2 · max(boundaries in ref, 1)))`` with Python's rounding.

On spans (:func:`segmentation_agreement`) each coder's boundaries in a document with extent
``[b, e)`` are the positions ``p`` with ``b < p < e`` where one of the coder's units begins or
ends (categories are ignored); element ``p - b`` of the string marks the boundary before
position ``p``. Only integer offsets make positions. The windows of every document and coder
pair are pooled: the value is (windows in error) / (windows), so longer documents weigh more,
and per-document rows make a :class:`~metrics.Decomposition` for the bootstrap.

Counting is done on boundary *events*, not positions: each boundary enters the windows
``max(p - k + 1, 0) .. min(p, N - k)``, so the per-window boundary counts of both coders
are step functions whose steps are sorted once; the cost is linear in the number of
boundaries, whatever the length of the documents.

References
----------
Beeferman, D., Berger, A. & Lafferty, J. (1999). Statistical models for text segmentation.
*Machine Learning* 34, 177–210. https://doi.org/10.1023/A:1007506220214

Pevzner, L. & Hearst, M. A. (2002). A critique and improvement of an evaluation metric for
text segmentation. *Computational Linguistics* 28(1), 19–36.
https://doi.org/10.1162/089120102317341756
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.decomposition import Decomposition
from metrics.spans.data import SpanData

Measure = Literal["pk", "window_diff"]

__all__ = [
    "PairSegmentation",
    "SegmentationAgreement",
    "decompose_segmentation",
    "pk",
    "segmentation_agreement",
    "window_diff",
]


# -- counting windows ------------------------------------------------------------------------


@dataclass(frozen=True)
class _Windows:
    """Per group: windows where P_k errs, where WindowDiff errs (or its weighted sum), and
    the number of windows."""

    pk: NDArray[np.float64]
    window_diff: NDArray[np.float64]
    windows: NDArray[np.float64]


def _count_windows(
    n: NDArray[np.int64],
    k: NDArray[np.int64],
    first: tuple[NDArray[np.intp], NDArray[np.int64]],
    second: tuple[NDArray[np.intp], NDArray[np.int64]],
    *,
    weighted: bool = False,
) -> _Windows:
    """Window errors of many segmentation pairs at once.

    Group ``g`` has ``n[g]`` elements and window width ``k[g]`` (``0 <= k <= n``);
    ``first`` and ``second`` are ``(group, index)`` of every boundary of each side.
    """
    events_group, events_at, steps = [], [], []
    for side, (group, index) in enumerate((first, second)):
        enter = np.maximum(index - k[group] + 1, 0)
        leave = np.minimum(index + 1, n[group] - k[group] + 1)
        step = np.zeros((2 * group.size, 2))
        step[: group.size, side] = 1.0
        step[group.size :, side] = -1.0
        events_group.append(np.concatenate([group, group]))
        events_at.append(np.concatenate([enter, leave]))
        steps.append(step)
    group = np.concatenate(events_group)
    at = np.concatenate(events_at)
    order = np.lexsort((at, group))
    group, at = group[order], at[order]
    # Boundary counts of both sides on the stretch after each event (every boundary's +1
    # and -1 fall in its own group, so the running sums are back to zero between groups).
    counts = np.cumsum(np.concatenate(steps)[order], axis=0)
    length = np.zeros(at.size)
    same = group[1:] == group[:-1]
    length[:-1] = np.where(same, at[1:] - at[:-1], 0)
    has_first, has_second = counts[:, 0] > 0.5, counts[:, 1] > 0.5
    difference = np.abs(counts[:, 0] - counts[:, 1])
    wrong_wd = difference if weighted else (difference > 0.5).astype(np.float64)
    size = n.size
    return _Windows(
        pk=np.bincount(group, (has_first != has_second) * length, minlength=size).astype(float),
        window_diff=np.bincount(group, wrong_wd * length, minlength=size).astype(float),
        windows=(n - k + 1).astype(np.float64),
    )


# -- boundary strings ------------------------------------------------------------------------


def _boundary_indices(
    segmentation: str | Sequence[Hashable] | npt.ArrayLike, boundary: Hashable
) -> tuple[int, NDArray[np.int64]]:
    if isinstance(segmentation, str):
        elements = np.array(list(segmentation), dtype=object)
    else:
        elements = np.asarray(segmentation, dtype=object).ravel()
    return elements.size, np.flatnonzero(elements == boundary).astype(np.int64)


def _single(
    ref: str | Sequence[Hashable] | npt.ArrayLike,
    hyp: str | Sequence[Hashable] | npt.ArrayLike,
    k: int | None,
    boundary: Hashable,
    weighted: bool,
) -> _Windows:
    n_ref, ref_at = _boundary_indices(ref, boundary)
    n_hyp, hyp_at = _boundary_indices(hyp, boundary)
    if n_ref != n_hyp:
        raise ValueError(f"Segmentations have unequal length: {n_ref} and {n_hyp}.")
    if k is None:
        k = round(n_ref / (max(ref_at.size, 1) * 2.0))
    if isinstance(k, bool) or int(k) != k:
        raise ValueError(f"The window width k must be an integer; got {k!r}.")
    if not 0 <= k <= n_ref:
        raise ValueError(f"The window width k must be between 0 and the length {n_ref}; got {k}.")
    zeros = np.zeros(ref_at.size, dtype=np.intp), np.zeros(hyp_at.size, dtype=np.intp)
    return _count_windows(
        np.array([n_ref], dtype=np.int64),
        np.array([int(k)], dtype=np.int64),
        (zeros[0], ref_at),
        (zeros[1], hyp_at),
        weighted=weighted,
    )


def pk(
    ref: str | Sequence[Hashable] | npt.ArrayLike,
    hyp: str | Sequence[Hashable] | npt.ArrayLike,
    k: int | None = None,
    boundary: Hashable = "1",
) -> float:
    """P_k of two segmentations: the share of windows where exactly one has a boundary.

    Equal to NLTK's ``nltk.metrics.segmentation.pk(ref, hyp, k, boundary)``; an error rate,
    not corrected for chance.

    Parameters
    ----------
    ref, hyp : str or sequence
        Boundary strings of equal length (``"0100..."``), or sequences whose elements equal
        ``boundary`` where a boundary is marked.
    k : int, optional
        Window width, ``0 <= k <= len(ref)``; default half the mean reference segment
        length, ``round(len(ref) / (2 · max(number of boundaries in ref, 1)))``.
    boundary : hashable, default "1"
        The element that marks a boundary.

    Returns
    -------
    float
        In ``[0, 1]``; 0 when the two agree on every window.

    Raises
    ------
    ValueError
        Lengths differ, or ``k`` is not an integer in ``[0, len(ref)]`` (NLTK divides by
        zero or returns a negative count there).

    Examples
    --------
    NLTK's doctests (printed there to two decimals; docs/references.md,
    ``nltk-segmentation-doctests``):

    >>> round(pk("0100" * 100, "1" * 400, 2), 2), round(pk("0100" * 100, "0" * 400, 2), 2)
    (0.5, 0.5)
    >>> pk("0100" * 100, "0100" * 100, 2)
    0.0
    """
    windows = _single(ref, hyp, k, boundary, weighted=False)
    return float(windows.pk[0] / windows.windows[0])


def window_diff(
    ref: str | Sequence[Hashable] | npt.ArrayLike,
    hyp: str | Sequence[Hashable] | npt.ArrayLike,
    k: int | None = None,
    boundary: Hashable = "1",
    weighted: bool = False,
) -> float:
    """WindowDiff of two segmentations: the share of windows with different boundary counts.

    Equal to NLTK's ``nltk.metrics.segmentation.windowdiff(ref, hyp, k, boundary,
    weighted)``; an error rate, not corrected for chance. Symmetric in ``ref`` and ``hyp``
    for a given ``k``.

    Parameters
    ----------
    ref, hyp, boundary
        As in :func:`pk`.
    k : int, optional
        Window width, ``0 <= k <= len(ref)``; default as in :func:`pk` (NLTK requires it).
    weighted : bool, default False
        Sum the absolute differences of the counts instead of counting the windows that
        differ (NLTK's weighted variant).

    Returns
    -------
    float

    Examples
    --------
    NLTK's doctests:

    >>> s1, s2, s3 = "000100000010", "000010000100", "100000010000"
    >>> window_diff(s1, s1, 3), round(window_diff(s1, s2, 3), 2), round(window_diff(s2, s3, 3), 2)
    (0.0, 0.3, 0.8)
    """
    windows = _single(ref, hyp, k, boundary, weighted=weighted)
    return float(windows.window_diff[0] / windows.windows[0])


# -- on spans --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairSegmentation:
    """P_k and WindowDiff of one coder pair, pooled over the documents both annotated.

    ``pk`` and ``window_diff`` are None when the pair shares no document with a position.
    """

    coders: tuple[Hashable, Hashable]
    pk: float | None
    window_diff: float | None
    documents: int
    windows: int


@dataclass(frozen=True)
class SegmentationAgreement:
    """P_k and WindowDiff pooled over coder pairs and documents (error rates, lower is
    better, not chance-corrected)."""

    pk: float
    window_diff: float
    windows: int
    pairs: tuple[PairSegmentation, ...]


def _check_integral(data: SpanData) -> None:
    offsets = np.concatenate([data.begin, data.end, data.extents.ravel()])
    if (offsets != np.floor(offsets)).any():
        raise ValueError(
            "Segmentation measures need integer offsets and extents (token or character "
            "positions); these data have fractional ones."
        )


def _boundaries_of(data: SpanData, coder: int) -> tuple[NDArray[np.intp], NDArray[np.int64]]:
    """``(document, index)`` of every distinct inner boundary of one coder."""
    mine = data.coder == coder
    doc = np.concatenate([data.document[mine], data.document[mine]]).astype(np.intp)
    at = np.concatenate([data.begin[mine], data.end[mine]])
    inside = (at > data.extents[doc, 0]) & (at < data.extents[doc, 1])
    doc, at = doc[inside], at[inside] - data.extents[doc[inside], 0]
    if doc.size == 0:
        return doc, at.astype(np.int64)
    order = np.lexsort((at, doc))
    doc, at = doc[order], at[order]
    keep = np.ones(doc.size, dtype=bool)
    keep[1:] = (doc[1:] != doc[:-1]) | (at[1:] != at[:-1])
    return doc[keep], at[keep].astype(np.int64)


def _pair_windows(
    data: SpanData,
    first: tuple[NDArray[np.intp], NDArray[np.int64]],
    second: tuple[NDArray[np.intp], NDArray[np.int64]],
    shared: NDArray[np.bool_],
    k: int | None,
) -> _Windows:
    """Per document (zeros where not shared or empty) for one pair."""
    n = (data.extents[:, 1] - data.extents[:, 0]).astype(np.int64)
    n = np.where(shared, n, 0)
    if k is None:
        boundaries = np.bincount(first[0], minlength=data.n_documents) + np.bincount(
            second[0], minlength=data.n_documents
        )
        width = np.round(n / np.maximum(boundaries, 2)).astype(np.int64)
        width = np.maximum(width, 1)
    else:
        width = np.full(data.n_documents, int(k), dtype=np.int64)
    width = np.minimum(width, n)
    keep_first = shared[first[0]]
    keep_second = shared[second[0]]
    windows = _count_windows(
        n,
        width,
        (first[0][keep_first], first[1][keep_first]),
        (second[0][keep_second], second[1][keep_second]),
    )
    counted = shared & (n > 0)
    return _Windows(
        pk=np.where(counted, windows.pk, 0.0),
        window_diff=np.where(counted, windows.window_diff, 0.0),
        windows=np.where(counted, windows.windows, 0.0),
    )


def _check_k(k: int | None) -> None:
    if k is not None and (isinstance(k, bool) or int(k) != k or k < 1):
        raise ValueError(f"The window width k must be a positive integer; got {k!r}.")


def _all_pairs(data: SpanData, k: int | None) -> list[tuple[tuple[int, int], _Windows, int]]:
    _check_integral(data)
    _check_k(k)
    boundaries = [_boundaries_of(data, c) for c in range(data.n_coders)]
    results = []
    for a, b in combinations(range(data.n_coders), 2):
        shared = data.annotated[:, a] & data.annotated[:, b]
        if not shared.any():
            continue
        windows = _pair_windows(data, boundaries[a], boundaries[b], shared, k)
        results.append(((a, b), windows, int(shared.sum())))
    if not any(windows.windows.sum() > 0 for _, windows, _ in results):
        raise ValueError(
            "Segmentation measures need a document of positive length annotated by two "
            "coders; there is none."
        )
    return results


def segmentation_agreement(data: SpanData, *, k: int | None = None) -> SegmentationAgreement:
    """P_k and WindowDiff between every pair of coders, on the boundaries of their units.

    Parameters
    ----------
    data : SpanData
        Integer offsets and extents. Categories are ignored: only where units begin and
        end counts.
    k : int, optional
        Window width for every document (capped at the document's length). Default, per
        document and pair: half the mean segment length of the two coders,
        ``round(N / max(b1 + b2, 2))`` for ``b1`` and ``b2`` boundaries in ``N`` positions
        (NLTK's default when both coders mark as many boundaries; symmetric in the pair),
        at least 1.

    Returns
    -------
    SegmentationAgreement
        Error rates (lower is better, not chance-corrected): windows in error over all
        windows of all pairs and documents, and the same per pair.

    Raises
    ------
    ValueError
        Fractional offsets, ``k`` not a positive integer, or no document of positive length
        annotated by two coders.

    Examples
    --------
    Ten positions; ``ann`` marks [2, 5), ``bob`` [2, 6): boundaries ``0010010000`` and
    ``0010001000``, ``k = round(10 / 4) = 2``: the windows starting at 4 and 6 differ, 2 of 9.

    >>> data = SpanData.from_units([("d", "ann", 2, 5, "X"), ("d", "bob", 2, 6, "X")],
    ...                            extents={"d": (0, 10)})
    >>> result = segmentation_agreement(data)
    >>> round(result.pk, 4), round(result.window_diff, 4), result.windows
    (0.2222, 0.2222, 9)
    """
    pairs = []
    total = np.zeros(3)
    for (a, b), windows, documents in _all_pairs(data, k):
        sums = np.array([windows.pk.sum(), windows.window_diff.sum(), windows.windows.sum()])
        total += sums
        pairs.append(
            PairSegmentation(
                coders=(data.coders[a], data.coders[b]),
                pk=None if sums[2] == 0 else float(sums[0] / sums[2]),
                window_diff=None if sums[2] == 0 else float(sums[1] / sums[2]),
                documents=documents,
                windows=int(sums[2]),
            )
        )
    return SegmentationAgreement(
        pk=float(total[0] / total[2]),
        window_diff=float(total[1] / total[2]),
        windows=int(total[2]),
        pairs=tuple(pairs),
    )


def _ratio(totals: NDArray[np.float64]) -> NDArray[np.float64]:
    totals = np.asarray(totals, dtype=np.float64)
    errors, windows = totals[..., 0], totals[..., 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(windows > 0, errors / np.where(windows > 0, windows, 1), np.nan)


def decompose_segmentation(
    data: SpanData, measure: Measure = "pk", *, k: int | None = None
) -> Decomposition:
    """P_k or WindowDiff with one row per document ``[windows in error, windows]``, summed
    over coder pairs, for the bootstrap over documents.

    Parameters
    ----------
    data, k
        As in :func:`segmentation_agreement`.
    measure : {"pk", "window_diff"}, default "pk"

    Returns
    -------
    Decomposition
        ``evaluate()`` equals the measure's value in :func:`segmentation_agreement`.
    """
    if measure not in ("pk", "window_diff"):
        raise ValueError(f"measure must be 'pk' or 'window_diff'; got {measure!r}.")
    rows = np.zeros((data.n_documents, 2))
    for _, windows, _ in _all_pairs(data, k):
        rows[:, 0] += windows.pk if measure == "pk" else windows.window_diff
        rows[:, 1] += windows.windows
    return Decomposition(measure, rows, _ratio)
