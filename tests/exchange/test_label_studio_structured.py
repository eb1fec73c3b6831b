"""Label Studio's textarea, ranker and pairwise results read into the rows of their
questions' CSV shapes (``exchange.formats.label_studio_structured``), and what is refused.

The result shapes are Label Studio's own (web/libs/editor/src/tags/control/Ranker.jsx:
``value.ranker`` maps the tag's name, or each Bucket's, to item ids in order;
Pairwise.js: ``value.selected`` is ``left`` or ``right``; a textarea's ``value.text`` is a
list of texts)."""

from __future__ import annotations

import json
from typing import Any

from exchange.formats.base import ParseOptions
from exchange.formats.label_studio import parse


def _export(*results: dict[str, Any], coder: str = "alice") -> bytes:
    task = {
        "id": 7,
        "data": {"prompt": "Rank the answers."},
        "annotations": [{"id": 70, "completed_by": {"email": coder}, "result": list(results)}],
    }
    return json.dumps([task]).encode()


def _rows(data: bytes) -> tuple[list[tuple[Any, ...]], list[tuple[str, str, str, str | None]]]:
    parsed = parse(data, ParseOptions())
    rows = [(r.image, r.coder, r.kind, r.field, r.cells) for r in parsed.regions]
    rejected = [(r.source, r.field, r.detail, r.tool_field) for r in parsed.rejected]
    return rows, rejected


def test_a_ranker_lists_item_ids_best_first() -> None:
    rows, rejected = _rows(
        _export(
            {
                "id": "r1",
                "type": "ranker",
                "from_name": "rank",
                "to_name": "answers",
                "value": {"ranker": {"rank": ["mdn", "wiki", "blog"]}},
            }
        )
    )
    assert rejected == []
    assert rows == [
        ("7", "alice", "ranking", "rank", {"option": "mdn", "rank": 1}),
        ("7", "alice", "ranking", "rank", {"option": "wiki", "rank": 2}),
        ("7", "alice", "ranking", "rank", {"option": "blog", "rank": 3}),
    ]


def test_items_left_in_the_unranked_column_are_left_out() -> None:
    rows, rejected = _rows(
        _export(
            {
                "type": "ranker",
                "from_name": "rank",
                "to_name": "answers",
                "value": {"ranker": {"rank": ["b", "a"], "_": ["c"]}},
            }
        )
    )
    assert rejected == []
    assert [r[4] for r in rows] == [{"option": "b", "rank": 1}, {"option": "a", "rank": 2}]


def test_buckets_are_refused_as_groups_not_rankings() -> None:
    rows, rejected = _rows(
        _export(
            {
                "id": "r2",
                "type": "ranker",
                "from_name": "rank",
                "to_name": "answers",
                "value": {"ranker": {"best": ["mdn"], "ads": ["blog"]}},
            }
        )
    )
    assert rows == []
    assert rejected == [
        (
            "task 7, annotation 70, result r2",
            "value.ranker",
            "A ranker result has one ranked column (got 'best', 'ads'): a Ranker with Buckets "
            "groups items without ranking them, so it is not imported.",
            "rank",
        )
    ]


def test_a_ranker_naming_an_item_twice_is_refused() -> None:
    _, rejected = _rows(
        _export(
            {
                "type": "ranker",
                "from_name": "rank",
                "to_name": "answers",
                "value": {"ranker": {"rank": ["a", "a"]}},
            }
        )
    )
    assert [(r[1], r[2]) for r in rejected] == [
        ("value.ranker", "The ranked column names an item twice.")
    ]


def test_a_pairwise_pick_is_a_or_b_with_the_left_shown_first() -> None:
    rows, rejected = _rows(
        _export(
            {"type": "pairwise", "from_name": "pw", "to_name": "pw", "value": {"selected": "left"}},
            {
                "type": "pairwise",
                "from_name": "pw2",
                "to_name": "pw2",
                "value": {"selected": "right"},
            },
        )
    )
    assert rejected == []
    assert rows == [
        ("7", "alice", "preference", "pw", {"choice": "A", "shown_first": "A"}),
        ("7", "alice", "preference", "pw2", {"choice": "B", "shown_first": "A"}),
    ]


def test_a_pairwise_without_a_side_is_refused() -> None:
    _, rejected = _rows(
        _export(
            {"id": "p", "type": "pairwise", "from_name": "pw", "value": {"selected": "none"}},
        )
    )
    assert rejected == [
        (
            "task 7, annotation 70, result p",
            "value.selected",
            "value.selected must be left or right.",
            "pw",
        )
    ]


def test_a_textarea_is_one_text_its_submissions_joined_by_line_breaks() -> None:
    rows, rejected = _rows(
        _export(
            {"type": "textarea", "from_name": "caption", "value": {"text": ["A dog", "runs."]}},
            {"type": "textarea", "from_name": "note", "value": {"text": [""]}},
        )
    )
    assert rejected == []
    assert rows == [
        ("7", "alice", "text", "caption", {"text": "A dog\nruns."}),
        ("7", "alice", "text", "note", {"text": ""}),
    ]


def test_a_textarea_of_a_region_is_refused() -> None:
    _, rejected = _rows(
        _export(
            {
                "id": "t",
                "type": "textarea",
                "from_name": "transcript",
                "value": {"start": 0, "end": 4, "text": ["Hi"]},
            }
        )
    )
    assert [(r[1], r[3]) for r in rejected] == [("value", "transcript")]
    assert rejected[0][2].startswith("A per-region textarea result")
