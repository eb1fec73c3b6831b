"""``python -m metrics report FILE --level relation|ranking|preference|text``: the contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metrics.cli import main


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


RELATIONS = """document,coder,head_begin,head_end,tail_begin,tail_end,label
d1,ann,0,4,10,15,works_for
d1,ann,0,4,20,25,knows
d1,bob,0,4,10,15,works_for
d1,bob,20,25,0,4,knows
d2,ann,,,,,
d2,bob,5,9,12,20,knows
d3,ann,1,3,6,8,works_for
d3,bob,1,3,6,8,works_for
"""

RANKINGS = """item,coder,option,rank
q1,ann,a,1
q1,ann,b,2
q1,ann,c,2
q1,bob,a,1
q1,bob,b,3
q1,bob,c,2
q2,ann,a,2
q2,ann,b,1
q2,ann,c,3
q2,bob,a,1
q2,bob,b,2
q2,bob,c,3
"""

PREFERENCES = """item,coder,choice,shown_first
1,ann,A,A
1,bob,A,B
2,ann,B,B
2,bob,tie,A
3,ann,A,A
3,bob,B,
"""

TEXTS = """item,coder,text
1,ann,the cat
1,bob,the cat
2,ann,a dog
2,bob,A dog
3,ann,
3,bob,x
"""


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["report", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_relation_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "relations.csv", RELATIONS)
    result = _json(capsys, str(path), "--level", "relation", "--undirected", "knows")
    coefficients = result["coefficients"]
    assert set(coefficients["relation_f1"]) >= {"value", "categories"}
    # (ann, bob): d1 TP 2, d2 FP 1, d3 TP 1: 2·3/(6 + 1) = 6/7 (knows undirected).
    assert coefficients["relation_f1"]["value"] == pytest.approx(6 / 7)
    assert "relation_f1_overlap" in coefficients
    assert set(coefficients["alpha"]) >= {"value", "observed", "expected"}
    directed = _json(capsys, str(path), "--level", "relation")
    assert directed["coefficients"]["relation_f1"]["value"] == pytest.approx(4 / 7)


def test_ranking_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "rankings.csv", RANKINGS)
    result = _json(capsys, str(path), "--level", "ranking", "--bootstrap", "100", "--seed", "3")
    w = result["coefficients"]["kendall_w"]
    assert set(w) >= {"value", "chi2", "df", "p", "items"}
    assert [item["item"] for item in w["items"]] == ["q1", "q2"]
    assert w["ci"]["replicates"] == 100
    assert set(result["coefficients"]["alpha"]) >= {"value", "observed", "expected"}


def test_preference_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "preferences.csv", PREFERENCES)
    result = _json(capsys, str(path), "--level", "preference")
    assert set(result["coefficients"]["alpha"]) >= {"value", "observed", "expected"}
    # ann: 3 non-tie choices, all of the first shown; bob: A shown B (no), B with no
    # shown_first (left out): 0 of 1.
    assert result["position_bias"]["ann"] == {"share_first": 1.0, "n": 3, "p": 0.25}
    assert result["position_bias"]["bob"] == {"share_first": 0.0, "n": 1, "p": 1.0}


def test_text_level(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "texts.csv", TEXTS)
    result = _json(capsys, str(path), "--level", "text", "--bootstrap", "50", "--seed", "1")
    alpha = result["coefficients"]["alpha"]
    assert set(alpha) >= {"value", "observed", "expected", "ci"}
    assert result["distance"] == "levenshtein"
    jaccard = _json(capsys, str(path), "--level", "text", "--distance", "token_jaccard")
    assert jaccard["distance"] == "token_jaccard"
    assert jaccard["coefficients"]["alpha"]["value"] != alpha["value"]


def test_text_distance_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, "texts.csv", "item,coder,text\n1,a,x\n1,b,x\n2,a,x\n2,b,y\n3,a,z\n")
    distances = _write(tmp_path, "d.csv", "text_a,text_b,distance\nx,y,1\nz,x,0.5\ny,z,2\n")
    result = _json(capsys, str(path), "--level", "text", "--distance-file", str(distances))
    # Pairable values x ×3, y ×1 (item 3 has one text): D_o = 2·1/4; D_e = 2·3·1·1/12.
    assert result["distance"] == "mapping"
    assert result["coefficients"]["alpha"]["observed"] == pytest.approx(0.5)
    assert result["coefficients"]["alpha"]["expected"] == pytest.approx(0.5)
    bad = _write(tmp_path, "bad.csv", "text_a,text_b,distance\nx,y,-1\n")
    assert main(["report", str(path), "--level", "text", "--distance-file", str(bad)]) == 2
    assert "line 2, field 'distance': must be ≥ 0" in capsys.readouterr().err


def test_text_max_pairs_leaves_alpha_null(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, "texts.csv", TEXTS)
    result = _json(capsys, str(path), "--level", "text", "--max-pairs", "3")
    assert result["coefficients"]["alpha"]["value"] is None
    assert "over the limit of 3" in result["coefficients"]["alpha"]["reason"]


def test_text_sampled_expected(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from metrics.structured.texts import read_texts, text_alpha

    path = _write(tmp_path, "texts.csv", TEXTS)
    argv = ["--level", "text", "--expected", "sampled", "--expected-pairs", "4000", "--seed", "5"]
    result = _json(capsys, str(path), *argv)
    entry = result["coefficients"]["alpha"]
    how = entry["expected_method"]
    assert (how["method"], how["pairs"], how["seed"]) == ("sampled", 4000, 5)
    same = text_alpha(read_texts(path), expected="sampled", expected_pairs=4000, seed=5)
    assert entry["value"] == same.value
    assert how["standard_error"] == same.sample.standard_error  # type: ignore[union-attr]
    exact = _json(capsys, str(path), "--level", "text")["coefficients"]["alpha"]
    assert exact["expected_method"] == {"method": "exact"}
    assert abs(entry["expected"] - exact["expected"]) < 4 * how["standard_error"]
    auto = _json(capsys, str(path), "--level", "text", "--expected", "auto", "--max-pairs", "3")
    assert auto["coefficients"]["alpha"]["expected_method"]["method"] == "sampled"
    assert main(["report", str(path), *argv]) == 0
    assert "estimate: D_e from 4,000 random pairs (seed 5)" in capsys.readouterr().out


def test_tables(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for name, body, level in (
        ("r.csv", RELATIONS, "relation"),
        ("k.csv", RANKINGS, "ranking"),
        ("p.csv", PREFERENCES, "preference"),
        ("t.csv", TEXTS, "text"),
    ):
        assert main(["report", str(_write(tmp_path, name, body)), "--level", level]) == 0
        out = capsys.readouterr().out
        assert f"level {level}" in out
        assert "Krippendorff's alpha" in out


@pytest.mark.parametrize(
    ("level", "body", "message"),
    [
        ("relation", "document,coder,head_begin\n", "line 1: the CSV header must name"),
        ("ranking", "item,coder,option,rank\nq,a,x,1.5.\n", "line 2, field 'rank'"),
        ("preference", "item,coder,choice,shown_first\n1,a,maybe,A\n", "line 2, field 'choice'"),
        ("text", "item,coder,text\n1,a,x\n1,a,y\n", "line 3, field 'coder'"),
    ],
)
def test_bad_input_exits_2_naming_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], level: str, body: str, message: str
) -> None:
    path = _write(tmp_path, "bad.csv", body)
    assert main(["report", str(path), "--level", level]) == 2
    error = capsys.readouterr().err
    assert error.startswith(f"error: {path}")
    assert message in error


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--level", "ranking", "--distance", "levenshtein"], "--distance does not apply"),
        (["--level", "text", "--distance", "cosine"], "level text knows levenshtein"),
        (["--level", "text", "--undirected", "x"], "--undirected applies to --level relation"),
        (["--level", "nominal", "--max-pairs", "5"], "--max-pairs applies to --level text"),
        (["--level", "ranking", "--distance-file", "d.csv"], "--distance-file applies to"),
        (["--level", "nominal", "--expected", "sampled"], "--expected applies to --level text"),
        (["--level", "text", "--expected-pairs", "1"], "--expected-pairs must be at least 2"),
        (["--level", "preference", "--gamma"], "--gamma does not apply to --level preference"),
    ],
)
def test_options_that_do_not_apply_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    path = _write(tmp_path, "texts.csv", TEXTS)
    assert main(["report", str(path), *argv]) == 2
    assert message in capsys.readouterr().err
