"""Interval helpers shared by the span measures: exact order keys, overlaps, gaps.

Units live in *groups* (a document, or one coder's units of one category in a document).
Positions are floats and every comparison between them is exact: :func:`position_keys`
turns ``(group, position)`` pairs into integers that sort like the pairs, and a
``searchsorted`` on those keys finds, for every unit at once, the units of a sorted list it
overlaps in its own group.

All functions take units sorted by ``(group, begin, end)``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "first_overlap",
    "gaps",
    "merge_overlapping",
    "overlap_ranges",
    "position_keys",
]


def position_keys(
    group: NDArray[np.intp], *positions: NDArray[np.float64]
) -> tuple[NDArray[np.int64], ...]:
    """Integer keys of ``(group, position)`` pairs, one key array per position array.

    Keys sort like the pairs (group first) and are equal exactly when the pairs are, across
    all the given arrays, so keys of different arrays can be compared and searched in one
    another. Integer positions give ``group · span + position`` directly; others are ranked
    by a sort.

    Examples
    --------
    >>> group = np.array([0, 0, 1])
    >>> position_keys(group, np.array([5.0, 7.5, 1.0]), np.array([7.5, 9.0, 2.0]))
    (array([0, 1, 3]), array([1, 2, 4]))
    >>> position_keys(group, np.array([5.0, 7.0, 1.0]), np.array([7.0, 9.0, 2.0]))
    (array([4, 6, 9]), array([ 6,  8, 10]))
    """
    sizes = [len(p) for p in positions]
    values = np.concatenate(positions) if positions else np.empty(0)
    groups = np.tile(np.asarray(group, dtype=np.int64), len(positions))
    if values.size == 0:
        return tuple(np.empty(0, dtype=np.int64) for _ in positions)
    low, high = float(values.min()), float(values.max())
    span = high - low + 1
    if (
        np.array_equal(values, np.floor(values))
        and span < 2**52
        and (float(groups.max()) + 1) * span < 2**62
    ):
        keys = groups * int(span) + (values - low).astype(np.int64)
    else:
        order = np.lexsort((values, groups))
        sorted_values, sorted_groups = values[order], groups[order]
        new = np.ones(len(order), dtype=bool)
        new[1:] = (sorted_values[1:] != sorted_values[:-1]) | (
            sorted_groups[1:] != sorted_groups[:-1]
        )
        keys = np.empty(len(order), dtype=np.int64)
        keys[order] = np.cumsum(new) - 1
    return tuple(np.split(keys, np.cumsum(sizes)[:-1]))


def _same_group_as_next(group: NDArray[np.intp]) -> NDArray[np.bool_]:
    return np.asarray(group[1:] == group[:-1])


def first_overlap(
    group: NDArray[np.intp], begin: NDArray[np.float64], end: NDArray[np.float64]
) -> int | None:
    """Index ``k`` of the first unit that overlaps unit ``k + 1`` of its group, or None.

    Two units overlap when each begins before the other ends (touching units and a
    zero-length unit at another's edge do not). In a list sorted by ``(group, begin, end)``
    some unit overlaps its successor whenever any two units of a group overlap.
    """
    if len(begin) < 2:
        return None
    overlaps = _same_group_as_next(group) & (begin[1:] < end[:-1]) & (end[1:] > begin[:-1])
    found = np.flatnonzero(overlaps)
    return int(found[0]) if found.size else None


def merge_overlapping(
    group: NDArray[np.intp], begin: NDArray[np.float64], end: NDArray[np.float64]
) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Merge each run of overlapping units of a group into their union.

    Returns ``(first, merged_end)``: the index of each merged unit's first unit (its begin
    and any per-unit attribute are taken from there) and the merged unit's end.
    """
    n = len(begin)
    if n == 0:
        return np.empty(0, dtype=np.intp), np.empty(0, dtype=np.float64)
    # The running largest end of a group: keys sort by group first, so a plain running
    # maximum over keys never carries an end from one group into the next.
    (end_key,) = position_keys(group, end)
    running = np.maximum.accumulate(end_key)
    where_reached = np.maximum.accumulate(np.where(end_key == running, np.arange(n), 0))
    running_end = end[where_reached]
    starts = np.ones(n, dtype=bool)
    # A unit starts a new merged unit unless it begins strictly inside the running union
    # (a zero-length unit at the union's begin stays apart, as in first_overlap).
    starts[1:] = ~_same_group_as_next(group) | (begin[1:] >= running_end[:-1])
    first = np.flatnonzero(starts).astype(np.intp)
    last = np.append(first[1:], n) - 1
    return first, running_end[last]


def overlap_ranges(
    target_begin_key: NDArray[np.int64],
    target_end_key: NDArray[np.int64],
    query_begin_key: NDArray[np.int64],
    query_end_key: NDArray[np.int64],
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """For each query unit, the target units it overlaps: ``target[lo:hi]`` (empty if hi <= lo).

    Targets are disjoint units sorted by ``(group, begin)``, so their ends are sorted too;
    keys come from :func:`position_keys` over the targets' and queries' groups. When
    the range is empty, ``lo`` is the first target after the query (its group permitting).
    """
    lo = np.searchsorted(target_end_key, query_begin_key, side="right")
    hi = np.searchsorted(target_begin_key, query_end_key, side="left")
    return lo.astype(np.intp), hi.astype(np.intp)


def gaps(
    unit_group: NDArray[np.intp],
    begin: NDArray[np.float64],
    end: NDArray[np.float64],
    group_begin: NDArray[np.float64],
    group_end: NDArray[np.float64],
) -> tuple[NDArray[np.intp], NDArray[np.float64], NDArray[np.float64]]:
    """The stretches of each group's extent that none of its units covers.

    Units are disjoint within a group and sorted; ``group_begin`` / ``group_end`` give every
    group's extent (groups without units are one gap each). Only gaps of positive length are
    returned, as ``(group, begin, end)``, in no particular order.
    """
    n_groups = len(group_begin)
    n = len(begin)
    first_of_group = np.ones(n, dtype=bool)
    first_of_group[1:] = ~_same_group_as_next(unit_group)
    last_of_group = np.ones(n, dtype=bool)
    last_of_group[:-1] = ~_same_group_as_next(unit_group)
    previous_end = np.empty(n, dtype=np.float64)
    previous_end[1:] = end[:-1]
    previous_end[first_of_group] = group_begin[unit_group[first_of_group]]
    # Gap before each unit, then after each group's last unit, then whole empty groups.
    has_units = np.zeros(n_groups, dtype=bool)
    has_units[unit_group] = True
    empty = np.flatnonzero(~has_units)
    gap_group = np.concatenate([unit_group, unit_group[last_of_group], empty])
    gap_begin = np.concatenate([previous_end, end[last_of_group], group_begin[empty]])
    gap_end = np.concatenate([begin, group_end[unit_group[last_of_group]], group_end[empty]])
    keep = gap_end > gap_begin
    return gap_group[keep].astype(np.intp), gap_begin[keep], gap_end[keep]
