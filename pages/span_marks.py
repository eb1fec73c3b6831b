"""Where coders' units on one document differ: the marks of the document view, in numpy.

Plain arrays in, plain arrays out (no Django): ``pages.span_document`` turns them into what
the page draws. A coder's units are three parallel arrays ``begin, end, category`` (category
as a small integer index), ``end`` exclusive. Long documents with thousands of units stay
fast: every comparison is a broadcast over blocks of units, every coverage a difference
array over the elementary segments between unit edges.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: Rows of the first coder's units compared at once (bounds the n × m overlap blocks).
BLOCK = 2048


@dataclass(frozen=True)
class Units:
    """One coder's units on one document."""

    begin: NDArray[np.float64]
    end: NDArray[np.float64]
    category: NDArray[np.intp]

    @classmethod
    def of(cls, rows: Sequence[tuple[float, float, int]]) -> Units:
        array = np.asarray(rows, dtype=np.float64).reshape(-1, 3)
        return cls(array[:, 0], array[:, 1], array[:, 2].astype(np.intp))

    def __len__(self) -> int:
        return len(self.begin)


@dataclass(frozen=True)
class PairMarks:
    """How another coder marked each of a coder's units (one boolean per unit)."""

    #: No unit of the other coder overlaps it.
    missed: NDArray[np.bool_]
    #: The other coder has an overlapping unit of its category, none with its boundaries.
    boundary: NDArray[np.bool_]
    #: The other coder's overlapping units all carry other categories.
    category: NDArray[np.bool_]


def compare(units: Units, other: Units) -> PairMarks:
    """``units`` against ``other``: which are missed, differ in boundaries or in category."""
    n = len(units)
    touching = np.zeros(n, dtype=bool)
    exact = np.zeros(n, dtype=bool)
    same_category = np.zeros(n, dtype=bool)
    for start in range(0, n, BLOCK):
        rows = slice(start, start + BLOCK)
        b, e, c = units.begin[rows, None], units.end[rows, None], units.category[rows, None]
        overlap = (b < other.end[None, :]) & (other.begin[None, :] < e)
        same = overlap & (c == other.category[None, :])
        touching[rows] = overlap.any(axis=1)
        same_category[rows] = same.any(axis=1)
        exact[rows] = (same & (b == other.begin[None, :]) & (e == other.end[None, :])).any(axis=1)
    differs = touching & ~exact
    return PairMarks(
        missed=~touching, boundary=differs & same_category, category=differs & ~same_category
    )


def coverage(units: Units, edges: NDArray[np.float64], n_categories: int) -> NDArray[np.bool_]:
    """Which categories cover each elementary segment ``[edges[i], edges[i + 1])``: a
    ``(n_categories, len(edges) - 1)`` array. Every unit edge must be one of ``edges``."""
    n_segments = max(len(edges) - 1, 0)
    counts = np.zeros((n_categories, n_segments + 1), dtype=np.int64)
    if len(units) and n_segments:
        starts = np.searchsorted(edges, units.begin)
        stops = np.searchsorted(edges, units.end)
        np.add.at(counts, (units.category, starts), 1)
        np.add.at(counts, (units.category, stops), -1)
    return np.cumsum(counts, axis=1)[:, :n_segments] > 0


@dataclass(frozen=True)
class Disputes:
    """Runs of segments where the coders' categories differ, and splits."""

    #: ``(begin, end)`` of each disputed run.
    runs: NDArray[np.float64]
    #: Per run and coder, whether each category covers the run: ``(runs, coders, categories)``.
    cover: NDArray[np.bool_]
    #: Offsets where some coders begin or end a unit and others do not, outside any run.
    splits: NDArray[np.float64]


def disputes(lanes: Sequence[Units], n_categories: int) -> Disputes:
    """Where the coders (two or more) disagree on the categories of the continuum."""
    empty = Disputes(np.zeros((0, 2)), np.zeros((0, len(lanes), n_categories), bool), np.zeros(0))
    if len(lanes) < 2:
        return empty
    edges = np.unique(np.concatenate([np.concatenate([u.begin, u.end]) for u in lanes]))
    if len(edges) < 2:
        return empty
    cover = np.stack([coverage(u, edges, n_categories) for u in lanes])  # (coders, K, S)
    disputed = (cover != cover[:1]).any(axis=(0, 1))
    same_as_previous = np.zeros_like(disputed)
    same_as_previous[1:] = (
        disputed[1:] & disputed[:-1] & (cover[:, :, 1:] == cover[:, :, :-1]).all(axis=(0, 1))
    )
    starts = np.flatnonzero(disputed & ~same_as_previous)
    last = _run_ends(disputed, same_as_previous, starts)
    runs = np.column_stack([edges[starts], edges[last + 1]]) if len(starts) else empty.runs
    run_cover = np.transpose(cover[:, :, starts], (2, 0, 1))
    bounds = [np.unique(np.concatenate([u.begin, u.end])) for u in lanes]
    everyone = bounds[0]
    for own in bounds[1:]:
        everyone = np.intersect1d(everyone, own)
    candidates = np.setdiff1d(np.unique(np.concatenate(bounds)), everyone)
    return Disputes(runs, run_cover, candidates[~within(candidates, runs)])


def within(points: NDArray[np.float64], runs: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Whether each point lies in one of the sorted, disjoint ``[begin, end]`` runs."""
    if not len(runs):
        return np.zeros(len(points), dtype=bool)
    index = np.searchsorted(runs[:, 0], points, side="right") - 1
    return (index >= 0) & (points <= runs[np.maximum(index, 0), 1])


def cut(
    units: Units, flags: NDArray[np.bool_], size: int, n_categories: int
) -> tuple[NDArray[np.intp], NDArray[np.bool_], NDArray[np.bool_]]:
    """A text of ``size`` characters cut at the units' edges (clipped to the text).

    Returns the ``edges`` (0, ..., ``size``), which categories cover each piece
    ``(n_categories, pieces)`` and which flags its covering units carry ``(n_flags, pieces)``
    (``flags`` is ``(units, n_flags)``).
    """
    begin = np.clip(units.begin, 0, size).astype(np.intp)
    end = np.clip(units.end, 0, size).astype(np.intp)
    edges = np.unique(np.concatenate([[0, size], begin, end]))
    clipped = Units(begin.astype(np.float64), end.astype(np.float64), units.category)
    categories = coverage(clipped, edges.astype(np.float64), n_categories)
    unit_index, flag_index = np.nonzero(flags)
    flagged = Units(clipped.begin[unit_index], clipped.end[unit_index], flag_index)
    return edges, categories, coverage(flagged, edges.astype(np.float64), flags.shape[1])


def _run_ends(
    disputed: NDArray[np.bool_], same_as_previous: NDArray[np.bool_], starts: NDArray[np.intp]
) -> NDArray[np.intp]:
    """The last segment of each run that begins at ``starts``."""
    continues = np.append(same_as_previous[1:], False)  # segment i's run goes on at i + 1
    breaks = np.flatnonzero(disputed & ~continues)
    return breaks[np.searchsorted(breaks, starts)]
