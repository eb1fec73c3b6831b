"""Relations: F1 and alpha on hand-worked cases, against plain computations and the
krippendorff package, the report and the reader."""

from __future__ import annotations

import json
from itertools import combinations

import krippendorff
import numpy as np
import pytest

from metrics.errors import InputError
from metrics.structured.relations import (
    RelationData,
    decompose_relation_alpha,
    decompose_relation_f1,
    read_relations,
    relation_alpha,
    relation_f1,
    relation_report,
)

# docs/references.md#relation-hand-case: three coders, two documents.
HAND_ROWS = [
    # document, coder, head, tail, label
    ("d1", "ann", (0, 4), (10, 15), "works_for"),
    ("d1", "ann", (0, 4), (20, 25), "knows"),
    ("d1", "ann", (30, 35), (40, 45), "located_in"),
    ("d1", "bob", (0, 4), (10, 15), "works_for"),
    ("d1", "bob", (20, 25), (0, 4), "knows"),  # undirected: the same as ann's
    ("d1", "bob", (30, 35), (40, 44), "located_in"),  # tail IoU 4/5 with ann's
    ("d1", "cy", (10, 15), (0, 4), "works_for"),  # directed: reversed, not ann's
    ("d2", "ann", None, None, None),  # annotated, no relation
    ("d2", "bob", (5, 9), (12, 20), "knows"),
]  # cy did not annotate d2


def _data(rows: list, undirected: tuple[str, ...] = ("knows",)) -> RelationData:
    columns: list[list] = [[] for _ in range(7)]
    for document, coder, head, tail, label in rows:
        values = [document, coder, *(head or (None, None)), *(tail or (None, None)), label]
        for column, value in zip(columns, values, strict=True):
            column.append(value)
    return RelationData.from_long(*columns, undirected=undirected)


def test_relation_f1_exact_hand_case() -> None:
    # (ann, bob): d1 TP 2 (works_for; knows in either order), FP 1, FN 1; d2 bob's knows FP 1
    # -> 2·2/(4 + 2 + 1) = 4/7. (ann, cy) and (bob, cy): no match -> 0. Mean 4/21.
    result = relation_f1(_data(HAND_ROWS))
    assert [pair.value for pair in result.pairs] == pytest.approx([4 / 7, 0.0, 0.0])
    assert [(p.true_positives, p.false_positives, p.false_negatives) for p in result.pairs] == [
        (2, 2, 1),
        (0, 1, 3),
        (0, 1, 3),
    ]
    assert [pair.documents for pair in result.pairs] == [2, 1, 1]
    assert result.value == pytest.approx(4 / 21)
    assert result.categories == pytest.approx(
        {"knows": 2 / 9, "located_in": 0.0, "works_for": 1 / 3}
    )


def test_relation_f1_overlap_hand_case() -> None:
    # located_in's tails [40, 45) and [40, 44) overlap with IoU 4/5: (ann, bob) d1 TP 3,
    # d2 FP 1 -> 6/7; the other pairs stay 0. Mean 2/7; located_in 1/3.
    result = relation_f1(_data(HAND_ROWS), match="overlap", min_overlap=0.5)
    assert [pair.value for pair in result.pairs] == pytest.approx([6 / 7, 0.0, 0.0])
    assert result.value == pytest.approx(2 / 7)
    assert result.categories["located_in"] == pytest.approx(1 / 3)
    assert relation_f1(_data(HAND_ROWS), match="overlap", min_overlap=0.9).value == pytest.approx(
        4 / 21
    )


def test_directed_labels_do_not_match_reversed() -> None:
    directed = relation_f1(_data(HAND_ROWS, undirected=()))
    # knows is now directed: ann's (0,4)->(20,25) and bob's (20,25)->(0,4) differ.
    assert directed.pairs[0].value == pytest.approx(2 / 7)


def test_relations_are_matched_one_to_one_not_through_units() -> None:
    # docs/references.md#relation-hand-case: bob marks the same entity as [0, 4) in one
    # relation and [0, 3) in another. Matching units first would pair ann's [0, 4) with one
    # of them only; matching relations keeps both (IoU of [0, 3) and [0, 4) is 3/4).
    rows = [
        ("d", "ann", (0, 4), (10, 15), "works_for"),
        ("d", "ann", (0, 4), (20, 25), "knows"),
        ("d", "bob", (0, 4), (10, 15), "works_for"),
        ("d", "bob", (0, 3), (20, 25), "knows"),
    ]
    assert relation_f1(_data(rows), match="overlap", min_overlap=0.5).value == 1.0
    assert relation_f1(_data(rows)).value == 0.5


def _hand_alpha_values(exact: bool) -> list[list[str]]:
    """Coders (ann, bob, cy) × candidate pairs, written out by hand; "" is missing."""
    n = "no relation"
    if not exact:  # units aligned by overlap: located_in's tails are one unit
        return [
            ["works_for", "knows", "located_in", n, n],
            ["works_for", "knows", "located_in", n, "knows"],
            [n, n, n, "works_for", ""],
        ]
    return [
        ["works_for", "knows", "located_in", n, n, n],
        ["works_for", "knows", n, "located_in", n, "knows"],
        [n, n, n, n, "works_for", ""],
    ]


def _krippendorff(values: list[list[str]]) -> float:
    domain = sorted({v for row in values for v in row if v})
    matrix = np.array(
        [[domain.index(v) if v else np.nan for v in row] for row in values], dtype=float
    )
    return float(krippendorff.alpha(matrix, level_of_measurement="nominal"))


def test_relation_alpha_hand_case_by_overlap() -> None:
    # Candidate pairs (aligned units): works_for (W,W,N), knows (K,K,N), located_in (L,L,N),
    # cy's reversed works_for (N,N,W), d2's knows (N,K). n = 14 (W 3, K 3, L 2, N 6);
    # D_o = 10/14; D_e = (196 - 9 - 9 - 4 - 36)/(14·13) = 69/91; alpha = 4/69.
    result = relation_alpha(_data(HAND_ROWS), match="overlap", min_overlap=0.5)
    assert result.observed == pytest.approx(5 / 7)
    assert result.expected == pytest.approx(69 / 91)
    assert result.value == pytest.approx(4 / 69)
    assert result.candidate_pairs == 5
    assert result.value == pytest.approx(_krippendorff(_hand_alpha_values(exact=False)), abs=1e-12)


def test_relation_alpha_hand_case_exact() -> None:
    # Exact alignment: located_in's tails are two units, so two candidate pairs (L,N,N) and
    # (N,L,N). n = 17; D_o = 12/17; D_e = 186/272; alpha = -1/31.
    result = relation_alpha(_data(HAND_ROWS), match="exact")
    assert result.value == pytest.approx(-1 / 31)
    assert result.candidate_pairs == 6
    assert result.value == pytest.approx(_krippendorff(_hand_alpha_values(exact=True)), abs=1e-12)


def test_two_labels_on_one_pair_are_one_value() -> None:
    rows = [
        ("d", "a", (0, 2), (5, 7), "r"),
        ("d", "a", (0, 2), (5, 7), "s"),
        ("d", "b", (0, 2), (5, 7), "r"),
        ("d", "a", (10, 12), (15, 17), "r"),
        ("d", "b", (10, 12), (15, 17), "r"),
    ]
    # Items: ({r, s}, r) and (r, r). Values: {r,s} ×1, r ×3 (n = 4); D_o = 2/4;
    # D_e = (16 - 1 - 9)/12 = 1/2: alpha = 0.
    assert relation_alpha(_data(rows), match="exact").value == pytest.approx(0.0, abs=1e-12)


# -- against plain computations on random data ------------------------------------------------


def _random_rows(seed: int) -> list:
    rng = np.random.default_rng(seed)
    rows = []
    for document in range(6):
        spans = [(int(b), int(b) + int(rng.integers(1, 6))) for b in rng.integers(0, 60, 6)]
        for coder in ("a", "b", "c"):
            if rng.random() < 0.15:
                continue
            chosen = set()
            for _ in range(int(rng.integers(0, 5))):
                h, t = rng.choice(len(spans), size=2, replace=False)
                head, tail = spans[h], spans[t]
                if rng.random() < 0.3:  # jitter a boundary
                    head = (head[0], head[1] + 1)
                label = str(rng.choice(["r", "s", "u"]))
                if label == "u":
                    head, tail = min(head, tail), max(head, tail)
                chosen.add((f"d{document}", coder, head, tail, label))
            rows += sorted(chosen) or [(f"d{document}", coder, None, None, None)]
    return rows


def _iou(x: tuple[int, int], y: tuple[int, int]) -> float:
    overlap = min(x[1], y[1]) - max(x[0], y[0])
    union = max(x[1], y[1]) - min(x[0], y[0])
    return overlap / union if overlap > 0 else 0.0


def _plain_pair_f1(rows: list, a: str, b: str, threshold: float | None) -> float | None:
    """Kuhn's augmenting paths over relation pairs: same document and label, ends equal
    (threshold None) or overlapping with IoU >= threshold; u undirected."""
    docs_a = {r[0] for r in rows if r[1] == a}
    docs_b = {r[0] for r in rows if r[1] == b}
    shared = docs_a & docs_b
    mine = [r for r in rows if r[1] == a and r[0] in shared and r[4]]
    theirs = [r for r in rows if r[1] == b and r[0] in shared and r[4]]

    def close(x: tuple[int, int], y: tuple[int, int]) -> bool:
        return x == y if threshold is None else _iou(x, y) >= threshold

    def may(r: tuple, s: tuple) -> bool:
        if r[0] != s[0] or r[4] != s[4]:
            return False
        straight = close(r[2], s[2]) and close(r[3], s[3])
        crossed = r[4] == "u" and close(r[2], s[3]) and close(r[3], s[2])
        return straight or crossed

    match: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, s in enumerate(theirs):
            if j not in seen and may(mine[i], s):
                seen.add(j)
                if j not in match or augment(match[j], seen):
                    match[j] = i
                    return True
        return False

    tp = sum(augment(i, set()) for i in range(len(mine)))
    denominator = len(mine) + len(theirs)
    return None if denominator == 0 else 2 * tp / denominator


@pytest.mark.parametrize("seed", range(8))
def test_relation_f1_equals_a_plain_computation(seed: int) -> None:
    rows = _random_rows(seed)
    data = _data(rows, undirected=("u",))
    for threshold, options in ((None, {}), (0.5, {"match": "overlap", "min_overlap": 0.5})):
        expected = [
            _plain_pair_f1(rows, a, b, threshold) for a, b in combinations(("a", "b", "c"), 2)
        ]
        defined = [value for value in expected if value is not None]
        if not defined:
            continue
        result = relation_f1(data, **options)
        assert [pair.value for pair in result.pairs] == pytest.approx(expected)
        assert result.value == pytest.approx(np.mean(defined))
        assert float(decompose_relation_f1(data, **options).evaluate()) == pytest.approx(
            result.value
        )


@pytest.mark.parametrize("seed", range(4))
def test_exact_relation_alpha_equals_krippendorff_on_the_candidate_table(seed: int) -> None:
    # Exact alignment: candidate pairs are (document, head span, tail span) any coder related.
    rows = _random_rows(seed)
    data = _data(rows, undirected=("u",))
    annotated = {(r[0], r[1]) for r in rows}
    values: dict[tuple, dict[str, set[str]]] = {}
    for document, coder, head, tail, label in rows:
        if label:
            values.setdefault((document, head, tail), {}).setdefault(coder, set()).add(label)
    table = []
    for coder in ("a", "b", "c"):
        row = []
        for (document, _, _), by_coder in sorted(values.items()):
            if (document, coder) not in annotated:
                row.append("")
            else:
                row.append("+".join(sorted(by_coder.get(coder, {"no relation"}))))
        table.append(row)
    assert relation_alpha(data, match="exact").value == pytest.approx(
        _krippendorff(table), abs=1e-9
    )
    decomposition = decompose_relation_alpha(data, match="exact")
    assert decomposition.n_items == data.n_documents
    assert float(decomposition.evaluate()) == pytest.approx(_krippendorff(table), abs=1e-9)


# -- data, report, reader ---------------------------------------------------------------------


def test_data_refusals() -> None:
    with pytest.raises(ValueError, match="partly empty"):
        RelationData.from_long(["d"], ["a"], [0], [2], [None], [None], ["r"])
    with pytest.raises(ValueError, match="ends before it begins"):
        RelationData.from_long(["d"], ["a"], [3], [2], [5], [6], ["r"])
    with pytest.raises(ValueError, match="twice in document 'd'"):
        _data([("d", "a", (0, 2), (5, 7), "u"), ("d", "a", (5, 7), (0, 2), "u")], ("u",))


def test_report_shape_with_bootstrap() -> None:
    data = _data(_random_rows(3), undirected=("u",))
    report = relation_report(data, bootstrap=200, seed=4)
    coefficients = report["coefficients"]
    assert set(coefficients) == {"relation_f1", "relation_f1_overlap", "alpha"}
    assert set(coefficients["relation_f1"]) >= {"value", "categories", "ci"}
    assert coefficients["relation_f1_overlap"]["min_overlap"] == 0.5
    assert coefficients["alpha"]["match"] == "overlap"
    assert coefficients["alpha"]["ci"]["replicates"] == 200
    assert report["undirected"] == ["u"]
    assert relation_report(data, bootstrap=200, seed=4) == report
    json.dumps(report)


def test_report_hand_case() -> None:
    report = relation_report(_data(HAND_ROWS))
    assert report["coefficients"]["relation_f1"]["value"] == pytest.approx(4 / 21)
    assert report["coefficients"]["relation_f1_overlap"]["value"] == pytest.approx(2 / 7)
    assert report["coefficients"]["alpha"]["value"] == pytest.approx(4 / 69)
    assert (report["n_documents"], report["n_coders"], report["n_relations"]) == (2, 3, 8)


HEADER = "document,coder,head_begin,head_end,tail_begin,tail_end,label\n"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("document,coder,label\n", "missing head_begin"),
        (HEADER + "d,a,0,2,,5,r\n", "line 2, field 'tail_begin': empty"),
        (HEADER + "d,a,0,x,4,5,r\n", "line 2, field 'head_end': expected a number"),
        (HEADER + "d,a,3,2,4,5,r\n", "line 2, field 'head_end': 2 is before its begin 3"),
        (HEADER + "d,a,0,2,4,5,r\nd,a,0,2,4,5,r\n", "line 3, field 'label': the same relation"),
        (HEADER + "d,a,0,2,4,5,r\nd,a,,,,,\n", "line 3, field 'label': an empty row says"),
        (HEADER + "d,,0,2,4,5,r\n", "line 2, field 'coder': empty"),
    ],
)
def test_reader_errors_name_line_and_field(tmp_path, body: str, message: str) -> None:
    path = tmp_path / "relations.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_relations(path)


def test_reader_undirected_duplicate_in_either_order(tmp_path) -> None:
    path = tmp_path / "relations.csv"
    path.write_text(HEADER + "d,a,0,2,4,5,u\nd,a,4,5,0,2,u\n", encoding="utf-8")
    assert read_relations(path).n_relations == 2
    with pytest.raises(InputError, match="line 3, field 'label': the same relation as line 2"):
        read_relations(path, undirected=["u"])
