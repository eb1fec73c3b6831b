"""The document view's marks on hand-built units: how another coder marked each unit, the
disputed runs and splits, and a text cut at unit edges (expected values worked out by hand)."""

from __future__ import annotations

import numpy as np

from pages.span_marks import Units, compare, cut, disputes, within


def test_compare_tells_exact_boundary_category_and_missed_units_apart() -> None:
    own = Units.of([(0, 10, 0), (20, 30, 1), (40, 45, 0), (60, 70, 0)])
    other = Units.of([(0, 10, 0), (22, 30, 1), (41, 50, 1), (60, 70, 0), (62, 64, 1)])
    marks = compare(own, other)
    # 0-10 exact; 20-30 vs 22-30 same category; 40-45 only another category; 60-70 exact
    # (the nested 62-64 of another category does not undo the exact match).
    assert marks.missed.tolist() == [False, False, False, False]
    assert marks.boundary.tolist() == [False, True, False, False]
    assert marks.category.tolist() == [False, False, True, False]
    back = compare(other, own)
    assert back.missed.tolist() == [False, False, False, False, False]
    assert back.category.tolist() == [False, False, True, False, True]


def test_a_unit_nobody_else_touches_is_missed_and_adjacent_units_do_not_overlap() -> None:
    marks = compare(Units.of([(10, 20, 0)]), Units.of([(0, 10, 0), (20, 30, 0)]))
    assert marks.missed.tolist() == [True]


def test_disputes_merge_runs_with_the_same_coverage_and_split_on_a_change() -> None:
    a = Units.of([(0, 10, 0), (5, 15, 1)])
    b = Units.of([(0, 10, 0)])
    found = disputes([a, b], n_categories=2)
    # [5, 10): a has both categories, b only 0; [10, 15): a has 1, b nothing.
    assert found.runs.tolist() == [[5.0, 10.0], [10.0, 15.0]]
    assert found.cover.tolist() == [
        [[True, True], [True, False]],
        [[False, True], [False, False]],
    ]
    assert found.splits.tolist() == []


def test_one_unit_against_two_adjacent_ones_is_a_split_not_a_dispute() -> None:
    found = disputes([Units.of([(0, 10, 0)]), Units.of([(0, 4, 0), (4, 10, 0)])], 1)
    assert found.runs.tolist() == []
    assert found.splits.tolist() == [4.0]


def test_a_coder_who_found_nothing_disputes_every_unit_of_the_others() -> None:
    found = disputes([Units.of([(2, 4, 0), (6, 9, 0)]), Units.of([])], 1)
    assert found.runs.tolist() == [[2.0, 4.0], [6.0, 9.0]]


def test_within_uses_closed_runs() -> None:
    runs = np.array([[2.0, 4.0], [6.0, 9.0]])
    points = np.array([1.0, 2.0, 4.0, 5.0, 9.0, 10.0])
    assert within(points, runs).tolist() == [False, True, True, False, True, False]


def test_cut_gives_each_piece_its_categories_and_flags() -> None:
    units = Units.of([(2, 6, 0), (4, 8, 1), (15, 40, 0)])
    flags = np.array(
        [[False, True, False, False], [False, False, True, False], [False] * 4], dtype=bool
    )
    edges, categories, flagged = cut(units, flags, size=20, n_categories=2)
    assert edges.tolist() == [0, 2, 4, 6, 8, 15, 20]  # the last unit is clipped to the text
    assert categories.T.tolist() == [
        [False, False], [True, False], [True, True], [False, True], [False, False],
        [True, False],
    ]  # fmt: skip
    assert [np.flatnonzero(column).tolist() for column in flagged.T] == [
        [], [1], [1, 2], [2], [], [],
    ]  # fmt: skip
