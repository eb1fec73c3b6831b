"""One literal case per registered label kind, for the kind contract suite.

Every value below is written out by hand: what a tool sends, what the API must give back,
the change log's canonical text, the error a bad value must get. A new kind is done when it
has a case here and ``test_contract.py`` passes for it.

The agreement table of each case is perfect agreement: every coder gives each item the same
value, so the disagreement observed is zero and alpha (and alpha_U) is 1 by definition
(Artstein & Poesio 2008, §2.6: alpha = 1 - D_o / D_e).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rest_framework.test import APIClient

from studies.models import Study

#: Every case's items (a text, so character offsets are checked) and coders.
TEXT = "Alice met Bob in Paris."
ITEMS = ("d1", "d2", "d3", "d4")
CODERS = ("alice", "bob")


@dataclass(frozen=True)
class KindCase:
    #: The question as POSTed to ``questions/`` (key ``q``).
    question: dict[str, Any]
    #: The upload endpoint under the study and the body's list of rows.
    upload: str
    rows_field: str
    #: Rows that are good values, and each row's value read back (API ``label`` or
    #: ``units``) and its change-log text.
    good_rows: list[dict[str, Any]]
    read_back: list[Any]
    change_texts: list[str]
    #: One bad row and the (code, attr) of its error.
    bad_row: dict[str, Any]
    bad_error: tuple[str, str]
    #: Perfect agreement: each item's value, given by every coder.
    agreed: dict[str, Any]
    #: The coefficient a computation must report as exactly 1.0 on ``agreed``.
    headline: str
    #: The headline's row in the round report page (as the HTML writes it).
    page_text: str
    #: The export under ``exports/`` and its CSV lines for ``good_rows``.
    export: str
    export_lines: list[str]
    #: A tool's file of the same values: (format, file name, content) and what it creates.
    import_file: tuple[str, str, bytes]
    imported: int
    #: Features this kind refuses with a 400 (the review rule endpoint, say).
    refuses_review: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


def _label_rows(values: dict[tuple[str, str], Any]) -> list[dict[str, Any]]:
    return [{"item": i, "coder": c, "label": v} for (i, c), v in values.items()]


def _agreed_rows(agreed: dict[str, Any], rows_field: str) -> list[dict[str, Any]]:
    if rows_field == "item_rows":
        return [
            {"item": item, "coder": coder, **record}
            for item, records in agreed.items()
            for coder in CODERS
            for record in records
        ]
    if rows_field == "document_rows":
        # An empty list: each coder annotated the document and related nothing.
        return [
            {"document": item, "coder": coder, **record}
            for item, records in agreed.items()
            for coder in CODERS
            for record in records or [{}]
        ]
    if rows_field == "rows":
        # An item's empty list: each coder annotated it and drew nothing.
        return [
            {"image": item, "coder": coder, **record}
            for item, records in agreed.items()
            for coder in CODERS
            for record in records or [{}]
        ]
    if rows_field == "units":
        return [
            {"document": item, "coder": coder, **unit}
            for item, units in agreed.items()
            for coder in CODERS
            for unit in units
        ]
    return [
        {"item": item, "coder": coder, "label": value}
        for item, value in agreed.items()
        for coder in CODERS
    ]


def agreed_rows(case: KindCase) -> list[dict[str, Any]]:
    return _agreed_rows(case.agreed, case.rows_field)


def _long_csv(lines: list[str]) -> tuple[str, str, bytes]:
    return ("long_csv", "labels.csv", ("item,coder,label\n" + "\n".join(lines) + "\n").encode())


def _categories(*codes: str) -> list[dict[str, Any]]:
    return [{"code": code} for code in codes]


BULK = "annotations/bulk/"
STRUCTURED = "annotations/structured/"
MATCHED_ROW = '<th scope="row">Matched alpha, mean over images (Tschirschwitz et al.)</th>'


def _label_studio(result: str) -> tuple[str, str, bytes]:
    """A Label Studio export of one image task (200 × 100 pixels) annotated by alice."""
    return (
        "label_studio",
        "regions.json",
        (
            '[{"id": 1, "data": {"image": "https://example.org/d1.png"}, "annotations": ['
            '{"id": 11, "completed_by": "alice", "result": [{"from_name": "q", "to_name": '
            '"image", "original_width": 200, "original_height": 100, ' + result + "}]}]}]"
        ).encode(),
    )


ALPHA_ROW = '<th scope="row">Krippendorff&#x27;s alpha</th>'

CASES: dict[str, KindCase] = {
    "nominal": KindCase(
        question={"kind": "nominal", "categories": _categories("pos", "neg", "neutral")},
        upload=BULK,
        rows_field="annotations",
        good_rows=_label_rows({("d1", "alice"): "pos", ("d1", "bob"): " neg "}),
        read_back=["pos", "neg"],
        change_texts=["pos", "neg"],
        bad_row={"item": "d2", "coder": "alice", "label": "nope"},
        bad_error=("unknown_category", "annotations.0.label"),
        agreed={"d1": "pos", "d2": "neg", "d3": "neutral", "d4": "pos"},
        headline="alpha",
        page_text=ALPHA_ROW,
        export="annotations",
        export_lines=["item,coder,label", "d1,alice,pos", "d1,bob,neg"],
        import_file=_long_csv(["d1,alice,pos", "d1,bob,neg", "d2,alice,neutral"]),
        imported=3,
    ),
    "ordinal": KindCase(
        question={"kind": "ordinal", "categories": _categories("1", "2", "3", "4")},
        upload=BULK,
        rows_field="annotations",
        good_rows=_label_rows({("d1", "alice"): 3, ("d1", "bob"): "4"}),
        read_back=["3", "4"],
        change_texts=["3", "4"],
        bad_row={"item": "d2", "coder": "alice", "label": "9"},
        bad_error=("unknown_category", "annotations.0.label"),
        agreed={"d1": "1", "d2": "2", "d3": "3", "d4": "4"},
        headline="alpha",
        page_text=ALPHA_ROW,
        export="annotations",
        export_lines=["item,coder,label", "d1,alice,3", "d1,bob,4"],
        import_file=_long_csv(["d1,alice,3", "d1,bob,4", "d2,alice,1"]),
        imported=3,
    ),
    "interval": KindCase(
        question={"kind": "interval", "min_value": -5, "max_value": 5},
        upload=BULK,
        rows_field="annotations",
        good_rows=_label_rows({("d1", "alice"): "2.5", ("d1", "bob"): -1}),
        read_back=[2.5, -1.0],
        change_texts=["2.5", "-1"],
        bad_row={"item": "d2", "coder": "alice", "label": 7},
        bad_error=("number_out_of_range", "annotations.0.label"),
        agreed={"d1": -2, "d2": 0, "d3": 1.5, "d4": 4},
        headline="alpha",
        page_text=ALPHA_ROW,
        export="annotations",
        export_lines=["item,coder,label", "d1,alice,2.5", "d1,bob,-1"],
        import_file=_long_csv(["d1,alice,2.5", "d1,bob,-1", "d2,alice,0"]),
        imported=3,
    ),
    "ratio": KindCase(
        question={"kind": "ratio", "max_value": 120},
        upload=BULK,
        rows_field="annotations",
        good_rows=_label_rows({("d1", "alice"): 30, ("d1", "bob"): "0.5"}),
        read_back=[30.0, 0.5],
        change_texts=["30", "0.5"],
        bad_row={"item": "d2", "coder": "alice", "label": -1},
        bad_error=("number_out_of_range", "annotations.0.label"),
        agreed={"d1": 1, "d2": 10, "d3": 40, "d4": 100},
        headline="alpha",
        page_text=ALPHA_ROW,
        export="annotations",
        export_lines=["item,coder,label", "d1,alice,30", "d1,bob,0.5"],
        import_file=_long_csv(["d1,alice,30", "d1,bob,0.5", "d2,alice,12"]),
        imported=3,
    ),
    "set": KindCase(
        question={"kind": "set", "categories": _categories("sports", "politics", "culture")},
        upload=BULK,
        rows_field="annotations",
        good_rows=_label_rows(
            {("d1", "alice"): "politics|sports", ("d1", "bob"): ["culture", "sports"]}
        ),
        read_back=[["sports", "politics"], ["sports", "culture"]],
        change_texts=["sports|politics", "sports|culture"],
        # A thousand "[" once answered 500 (RecursionError); a set is flat.
        bad_row={"item": "d2", "coder": "alice", "label": "[" * 1000},
        bad_error=("invalid_type", "annotations.0.label"),
        agreed={"d1": "sports", "d2": "politics|culture", "d3": "culture", "d4": "sports|culture"},
        headline="alpha",
        page_text=ALPHA_ROW,
        export="annotations",
        export_lines=["item,coder,label", "d1,alice,sports|politics", "d1,bob,sports|culture"],
        import_file=_long_csv(["d1,alice,politics|sports", "d1,bob,culture", "d2,alice,sports"]),
        imported=3,
    ),
    "hierarchy": KindCase(
        question={
            "kind": "hierarchy",
            "categories": [
                {"code": "animal"},
                {"code": "plant"},
                {"code": "dog", "parent": "animal"},
                {"code": "cat", "parent": "animal"},
                {"code": "tree", "parent": "plant"},
            ],
        },
        upload=BULK,
        rows_field="annotations",
        good_rows=_label_rows({("d1", "alice"): "animal/dog", ("d1", "bob"): "cat"}),
        read_back=["dog", "cat"],
        change_texts=["dog", "cat"],
        bad_row={"item": "d2", "coder": "alice", "label": "animal/fish"},
        bad_error=("unknown_node", "annotations.0.label"),
        agreed={"d1": "dog", "d2": "cat", "d3": "tree", "d4": "plant"},
        headline="alpha",
        page_text=ALPHA_ROW,
        export="annotations",
        export_lines=["item,coder,label", "d1,alice,dog", "d1,bob,cat"],
        import_file=_long_csv(["d1,alice,animal/dog", "d1,bob,cat", "d2,alice,tree"]),
        imported=3,
    ),
    "span": KindCase(
        question={"kind": "span", "categories": _categories("PER", "LOC")},
        upload="annotations/spans/",
        rows_field="units",
        good_rows=[
            {"document": "d1", "coder": "alice", "begin": 0, "end": 5, "label": "PER"},
            {"document": "d1", "coder": "alice", "begin": 17, "end": 22, "label": "LOC"},
            {"document": "d1", "coder": "bob", "begin": 10, "end": 13, "label": "PER"},
        ],
        read_back=[
            [{"begin": 0, "end": 5, "label": "PER"}, {"begin": 17, "end": 22, "label": "LOC"}],
            [{"begin": 10, "end": 13, "label": "PER"}],
        ],
        change_texts=["0-5 PER; 17-22 LOC", "10-13 PER"],
        bad_row={"document": "d2", "coder": "alice", "begin": 7, "end": 3, "label": "PER"},
        bad_error=("end_before_begin", "units.0.end"),
        agreed={
            "d1": [{"begin": 0, "end": 5, "label": "PER"}],
            "d2": [{"begin": 10, "end": 13, "label": "PER"}],
            "d3": [{"begin": 17, "end": 22, "label": "LOC"}],
            "d4": [
                {"begin": 0, "end": 5, "label": "PER"},
                {"begin": 17, "end": 22, "label": "LOC"},
            ],
        },
        headline="alpha_u",
        page_text='<th scope="row">Unitizing alpha (αᵤ)</th>',
        export="spans",
        export_lines=[
            "document,coder,begin,end,label",
            "d1,alice,0,5,PER",
            "d1,alice,17,22,LOC",
            "d1,bob,10,13,PER",
        ],
        import_file=(
            "label_studio",
            "spans.json",
            b'[{"id": 1, "data": {"text": "Alice met Bob in Paris."}, "annotations": ['
            b'{"id": 11, "completed_by": "alice", "result": [{"from_name": "q", '
            b'"to_name": "text", "type": "labels", "value": {"start": 0, "end": 5, '
            b'"labels": ["PER"]}}]}]}]',
        ),
        imported=1,
        refuses_review=True,
    ),
    "box": KindCase(
        question={"kind": "box", "categories": _categories("car", "person")},
        upload=STRUCTURED,
        rows_field="rows",
        good_rows=[
            {
                "image": "d1",
                "coder": "alice",
                "x": 10,
                "y": 20,
                "width": 30,
                "height": 40,
                "label": "car",
            },
            {
                "image": "d1",
                "coder": "bob",
                "x": "12",
                "y": "20",
                "width": "30.5",
                "height": "40",
                "label": "car",
                "rotation": "15",
            },
        ],
        read_back=[
            [{"x": 10, "y": 20, "width": 30, "height": 40, "rotation": 0, "label": "car"}],
            [{"x": 12, "y": 20, "width": 30.5, "height": 40, "rotation": 15, "label": "car"}],
        ],
        change_texts=["10,20 30x40 car", "12,20 30.5x40 r15 car"],
        bad_row={
            "image": "d2",
            "coder": "alice",
            "x": 1,
            "y": 2,
            "width": -5,
            "height": 4,
            "label": "car",
        },
        bad_error=("not_positive", "rows.0.width"),
        agreed={
            "d1": [{"x": 0, "y": 0, "width": 10, "height": 10, "label": "car"}],
            "d2": [{"x": 5, "y": 5, "width": 20, "height": 10, "label": "person"}],
            "d3": [],
            "d4": [
                {"x": 0, "y": 0, "width": 10, "height": 10, "label": "car"},
                {"x": 50, "y": 50, "width": 10, "height": 30, "label": "person"},
            ],
        },
        headline="alpha_matched",
        page_text=MATCHED_ROW,
        export="structured",
        export_lines=[
            "image,coder,x,y,width,height,label,rotation",
            "d1,alice,10,20,30,40,car,0",
            "d1,bob,12,20,30.5,40,car,15",
        ],
        import_file=_label_studio(
            '"type": "rectanglelabels", "value": {"x": 10, "y": 20, "width": 15, "height": 40, '
            '"rotation": 0, "rectanglelabels": ["car"]}'
        ),
        imported=1,
        refuses_review=True,
    ),
    "polygon": KindCase(
        question={"kind": "polygon", "categories": _categories("roof", "road")},
        upload=STRUCTURED,
        rows_field="rows",
        good_rows=[
            {"image": "d1", "coder": "alice", "points": "0 0;10 0;10 10", "label": "roof"},
            {
                "image": "d1",
                "coder": "bob",
                "points": [[0, 0], [10, 0], [0, 10.5]],
                "label": "road",
            },
        ],
        read_back=[
            [{"points": [[0, 0], [10, 0], [10, 10]], "label": "roof"}],
            [{"points": [[0, 0], [10, 0], [0, 10.5]], "label": "road"}],
        ],
        change_texts=["roof (0 0, 10 0, 10 10)", "road (0 0, 10 0, 0 10.5)"],
        bad_row={"image": "d2", "coder": "alice", "points": "0 0;10 0", "label": "roof"},
        bad_error=("too_few_points", "rows.0.points"),
        agreed={
            "d1": [{"points": "0 0;10 0;10 10", "label": "roof"}],
            "d2": [{"points": "5 5;25 5;25 25;5 25", "label": "road"}],
            "d3": [],
            "d4": [{"points": "0 0;40 0;20 30", "label": "roof"}],
        },
        headline="alpha_matched",
        page_text=MATCHED_ROW,
        export="structured",
        export_lines=[
            "image,coder,points,label",
            "d1,alice,0 0;10 0;10 10,roof",
            "d1,bob,0 0;10 0;0 10.5,road",
        ],
        import_file=_label_studio(
            '"type": "polygonlabels", "value": {"points": [[0, 0], [50, 0], [50, 50]], '
            '"polygonlabels": ["roof"]}'
        ),
        imported=1,
        refuses_review=True,
    ),
    "keypoint": KindCase(
        question={"kind": "keypoint", "categories": _categories("nose", "eye")},
        upload=STRUCTURED,
        rows_field="rows",
        good_rows=[
            {"image": "d1", "coder": "alice", "x": 10, "y": 20, "label": "nose"},
            {"image": "d1", "coder": "bob", "x": "11.5", "y": "20", "label": "eye"},
        ],
        read_back=[
            [{"x": 10, "y": 20, "label": "nose"}],
            [{"x": 11.5, "y": 20, "label": "eye"}],
        ],
        change_texts=["10,20 nose", "11.5,20 eye"],
        bad_row={"image": "d2", "coder": "alice", "x": "far", "y": 2, "label": "nose"},
        bad_error=("not_a_number", "rows.0.x"),
        agreed={
            "d1": [{"x": 10, "y": 10, "label": "nose"}],
            "d2": [{"x": 40, "y": 20, "label": "eye"}, {"x": 60, "y": 20, "label": "eye"}],
            "d3": [],
            "d4": [{"x": 5, "y": 90, "label": "nose"}],
        },
        headline="alpha_matched",
        page_text=MATCHED_ROW,
        export="structured",
        export_lines=["image,coder,x,y,label", "d1,alice,10,20,nose", "d1,bob,11.5,20,eye"],
        import_file=_label_studio(
            '"type": "keypointlabels", "value": {"x": 50, "y": 50, "width": 1, '
            '"keypointlabels": ["nose"]}'
        ),
        imported=1,
        refuses_review=True,
    ),
    "text": KindCase(
        question={"kind": "text"},
        upload=STRUCTURED,
        rows_field="item_rows",
        good_rows=[
            {"item": "d1", "coder": "alice", "text": "A cat on a mat."},
            {"item": "d1", "coder": "bob", "text": ""},
        ],
        read_back=[[{"text": "A cat on a mat."}], [{"text": ""}]],
        change_texts=["A cat on a mat.", ""],
        bad_row={"item": "d2", "coder": "alice", "text": 7},
        bad_error=("invalid_type", "rows.0.text"),
        agreed={
            "d1": [{"text": "A cat on a mat."}],
            "d2": [{"text": "Two dogs."}],
            "d3": [{"text": "A red bus"}],
            "d4": [{"text": ""}],
        },
        headline="alpha",
        page_text='<th scope="row">Krippendorff&#x27;s alpha, text distance</th>',
        export="structured",
        export_lines=["item,coder,text", "d1,alice,A cat on a mat.", "d1,bob,"],
        import_file=(
            "structured_csv",
            "texts.csv",
            b"item,coder,text\nd1,alice,A cat\nd1,bob,A cat.\nd2,alice,\n",
        ),
        imported=3,
        refuses_review=True,
    ),
    "ranking": KindCase(
        question={"kind": "ranking"},
        upload=STRUCTURED,
        rows_field="item_rows",
        good_rows=[
            {"item": "d1", "coder": "alice", "option": "x", "rank": 1},
            {"item": "d1", "coder": "alice", "option": "y", "rank": "2"},
            {"item": "d1", "coder": "bob", "option": "y", "rank": 1},
            {"item": "d1", "coder": "bob", "option": "x", "rank": 1},
        ],
        read_back=[
            [{"option": "x", "rank": 1}, {"option": "y", "rank": 2}],
            [{"option": "x", "rank": 1}, {"option": "y", "rank": 1}],
        ],
        change_texts=["x 1; y 2", "x 1; y 1"],
        bad_row={"item": "d2", "coder": "alice", "option": "x", "rank": 0},
        bad_error=("not_positive", "rows.0.rank"),
        agreed={
            item: [{"option": o, "rank": r} for o, r in ranks]
            for item, ranks in {
                "d1": [("x", 1), ("y", 2), ("z", 3)],
                "d2": [("x", 3), ("y", 1), ("z", 2)],
                "d3": [("x", 2), ("y", 3), ("z", 1)],
                "d4": [("x", 1), ("y", 3), ("z", 2)],
            }.items()
        },
        headline="alpha",
        page_text='<th scope="row">Krippendorff&#x27;s alpha, Kendall tau distance</th>',
        export="structured",
        export_lines=[
            "item,coder,option,rank",
            "d1,alice,x,1",
            "d1,alice,y,2",
            "d1,bob,x,1",
            "d1,bob,y,1",
        ],
        import_file=(
            "structured_csv",
            "rankings.csv",
            b"item,coder,option,rank\nd1,alice,x,1\nd1,alice,y,2\nd1,bob,x,2\nd1,bob,y,1\n",
        ),
        imported=2,
        refuses_review=True,
    ),
    "preference": KindCase(
        question={"kind": "preference"},
        upload=STRUCTURED,
        rows_field="item_rows",
        good_rows=[
            {"item": "d1", "coder": "alice", "choice": "A", "shown_first": "B"},
            {"item": "d1", "coder": "bob", "choice": "tie"},
        ],
        read_back=[[{"choice": "A", "shown_first": "B"}], [{"choice": "tie", "shown_first": None}]],
        change_texts=["A (shown first: B)", "tie"],
        bad_row={"item": "d2", "coder": "alice", "choice": "C"},
        bad_error=("invalid_choice", "rows.0.choice"),
        agreed={
            "d1": [{"choice": "A", "shown_first": "A"}],
            "d2": [{"choice": "B", "shown_first": "A"}],
            "d3": [{"choice": "tie", "shown_first": "B"}],
            "d4": [{"choice": "A", "shown_first": "B"}],
        },
        headline="alpha",
        page_text='<th scope="row">Krippendorff&#x27;s alpha on the choice (nominal)</th>',
        export="structured",
        export_lines=["item,coder,choice,shown_first", "d1,alice,A,B", "d1,bob,tie,"],
        import_file=(
            "structured_csv",
            "preferences.csv",
            b"item,coder,choice,shown_first\nd1,alice,A,B\nd1,bob,B,A\nd2,alice,tie,\n",
        ),
        imported=3,
        refuses_review=True,
    ),
    "relation": KindCase(
        # TEXT: Alice [0, 5), Bob [10, 13), Paris [17, 22); "knows" is undirected, so bob's
        # Bob -> Alice is stored as Alice -> Bob.
        question={
            "kind": "relation",
            "categories": [{"code": "works_for"}, {"code": "knows", "undirected": True}],
        },
        upload=STRUCTURED,
        rows_field="document_rows",
        good_rows=[
            {
                "document": "d1",
                "coder": "alice",
                "head_begin": 0,
                "head_end": 5,
                "tail_begin": "10",
                "tail_end": "13",
                "label": "works_for",
            },
            {
                "document": "d1",
                "coder": "bob",
                "head_begin": 10,
                "head_end": 13,
                "tail_begin": 0,
                "tail_end": 5,
                "label": "knows",
            },
        ],
        read_back=[
            [
                {
                    "head_begin": 0,
                    "head_end": 5,
                    "tail_begin": 10,
                    "tail_end": 13,
                    "label": "works_for",
                }
            ],
            [{"head_begin": 0, "head_end": 5, "tail_begin": 10, "tail_end": 13, "label": "knows"}],
        ],
        change_texts=["0-5 -> 10-13 works_for", "0-5 -> 10-13 knows"],
        bad_row={
            "document": "d2",
            "coder": "alice",
            "head_begin": 0,
            "head_end": 5,
            "tail_begin": 17,
            "tail_end": 30,
            "label": "works_for",
        },
        bad_error=("outside_document", "rows.0.tail_end"),
        agreed={
            item: [
                {
                    "head_begin": hb,
                    "head_end": he,
                    "tail_begin": tb,
                    "tail_end": te,
                    "label": label,
                }
                for hb, he, tb, te, label in relations
            ]
            for item, relations in {
                "d1": [(0, 5, 10, 13, "works_for")],
                "d2": [],
                "d3": [(10, 13, 17, 22, "knows")],
                "d4": [(0, 5, 17, 22, "works_for"), (0, 5, 10, 13, "knows")],
            }.items()
        },
        headline="alpha",
        page_text='<th scope="row">Krippendorff&#x27;s alpha on relations (nominal)</th>',
        export="structured",
        export_lines=[
            "document,coder,head_begin,head_end,tail_begin,tail_end,label",
            "d1,alice,0,5,10,13,works_for",
            "d1,bob,0,5,10,13,knows",
        ],
        import_file=(
            "structured_csv",
            "relations.csv",
            b"document,coder,head_begin,head_end,tail_begin,tail_end,label\n"
            b"d1,alice,0,5,10,13,works_for\nd1,bob,10,13,0,5,knows\nd2,alice,,,,,\n",
        ),
        imported=3,
        refuses_review=True,
    ),
}


def upload(client: APIClient, study: Study, case: KindCase, rows: list[Any]) -> Any:
    """POST ``rows`` of question ``q`` in Round 1 to the case's upload endpoint."""
    field = "rows" if case.rows_field in ("rows", "item_rows", "document_rows") else case.rows_field
    body = {"round": "Round 1", "question": "q", field: rows}
    return client.post(f"/api/v1/studies/{study.pk}/{case.upload}", body, format="json")
