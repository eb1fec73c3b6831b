"""``python -m metrics report`` on small files: JSON values, the table, exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.cli import main, read_annotations, read_tree

ROOT = Path(__file__).resolve().parents[2]

# Krippendorff (2011) reliability data (4 coders × 12 units, missing values) as item,coder,label
# (docs/references.md#k2011-reliability-data).
K2011 = {
    "A": [1, 2, 3, 3, 2, 1, 4, 1, 2, None, None, None],
    "B": [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, None, None],
    "C": [None, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    "D": [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, None],
}


@pytest.fixture
def k2011_csv(tmp_path: Path) -> Path:
    lines = ["item,coder,label"]
    for coder, values in K2011.items():
        lines += [f"u{i + 1},{coder},{v}" for i, v in enumerate(values) if v is not None]
    path = tmp_path / "k2011.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "metrics", "report", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_json_report_of_krippendorff_2011(k2011_csv: Path) -> None:
    # Krippendorff (2011): nominal alpha 0.743 (Do 0.2, De 0.779); NLTK test_advanced
    # 0.743421052632.
    completed = run(str(k2011_csv), "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert (result["n_items"], result["n_coders"], result["n_annotations"]) == (12, 4, 41)
    assert result["n_pairable_items"] == 11
    alpha = result["coefficients"]["alpha"]
    assert alpha["value"] == pytest.approx(0.743421052632, abs=1e-9)
    assert alpha["observed"] == pytest.approx(0.2)
    assert alpha["kind"] == "disagreement"
    assert set(alpha) == {"value", "observed", "expected", "kind"}


def test_json_report_interval_with_bootstrap(k2011_csv: Path) -> None:
    # Interval alpha 0.849 (DKPro testIntervallAgreement); AC2 quadratic .914 (irrCAC 0.4.4)
    # (docs/references.md#k2011-reliability-data, #irrcac-raw-4raters).
    completed = run(str(k2011_csv), "--json", "--level", "interval", "--bootstrap", "100",
                    "--seed", "3", "--confidence", "0.9")  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    alpha = result["coefficients"]["alpha"]
    assert alpha["value"] == pytest.approx(0.8491071429, abs=1e-9)
    assert alpha["ci"]["replicates"] == 100
    assert alpha["ci"]["confidence"] == 0.9
    assert round(result["coefficients"]["ac1"]["value"], 3) == 0.914


def test_table_output_names_the_coefficients(
    k2011_csv: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(k2011_csv)]) == 0
    out = capsys.readouterr().out
    assert "Krippendorff's alpha" in out
    assert "0.7434" in out


def test_two_coders_two_categories_get_a_true_agreement_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Artstein & Poesio (2008) Table 1 as JSON lines: A_o 0.7, κ ≈ 0.348
    # (docs/references.md#ap2008-table1).
    rows = [("STAT", "STAT")] * 20 + [("STAT", "IREQ")] * 10 + [("IREQ", "STAT")] * 20
    rows += [("IREQ", "IREQ")] * 50
    path = tmp_path / "table1.jsonl"
    path.write_text(
        "".join(
            json.dumps({"item": i, "coder": coder, "label": label}) + "\n"
            for i, pair in enumerate(rows)
            for coder, label in zip("AB", pair, strict=True)
        )
    )
    assert main(["report", str(path), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["coefficients"]["observed_agreement"]["value"] == pytest.approx(0.7)
    assert round(result["coefficients"]["kappa"]["value"], 3) == 0.348
    assert result["true_agreement"]["model"] == "conservative"
    assert 0 <= result["true_agreement"]["low"] <= result["true_agreement"]["high"] <= 0.7


def test_set_labels_from_csv_and_json(tmp_path: Path) -> None:
    csv_path = tmp_path / "sets.csv"
    csv_path.write_text("item,coder,label\n1,a,x|y\n1,b,x\n2,a,z\n2,b,z\n3,a,y\n3,b,y\n")
    data = read_annotations(csv_path, level="set")
    assert frozenset({"x", "y"}) in data.domain
    json_path = tmp_path / "sets.jsonl"
    json_path.write_text('{"item": 1, "coder": "a", "label": ["x", "y"]}\n'
                         '{"item": 1, "coder": "b", "label": ["x"]}\n'
                         '{"item": 2, "coder": "a", "label": ["z"]}\n'
                         '{"item": 2, "coder": "b", "label": ["z"]}\n')  # fmt: skip
    completed = run(str(json_path), "--json", "--level", "set")
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["distance"] == "masi"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("item,coder,label\n1,A,1\n1,A,2\n", "line 3, field 'coder'"),
        ("item,coder,label\n1,A,1\n1,B,high\n", "line 3, field 'label'"),
        ("item,coder\n1,A\n", "line 1: the CSV header must name item, coder and label"),
        ("item,coder,label\n1,,2\n", "line 2, field 'coder'"),
        (
            '{"item": 1, "coder": "A", "label": 1}\n{"item": 1, "label": 2}\n',
            "line 2, field 'coder'",
        ),
        ('{"item": 1, "coder": "A", "label": 1}\n{"item": 2,\n', "line 2: not valid JSON"),
    ],
)
def test_bad_input_exits_with_2_and_names_line_and_field(
    tmp_path: Path, content: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(content)
    assert main(["report", str(path), "--level", "interval"]) == 2
    assert message in capsys.readouterr().err


def test_bad_input_through_python_m_metrics(tmp_path: Path) -> None:
    path = tmp_path / "bad.csv"
    path.write_text("item,coder,label\n1,A,1\n1,B,high\n")
    completed = run(str(path), "--level", "interval")
    assert completed.returncode == 2
    assert "line 3, field 'label'" in completed.stderr


def test_unknown_distance_exits_with_2(k2011_csv: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(k2011_csv), "--distance", "cosine"]) == 2
    assert "known distances" in capsys.readouterr().err


def test_read_tree(tmp_path: Path) -> None:
    path = tmp_path / "tree.csv"
    path.write_text("node,parent\nroot,\nA,root\nA1,A\n")
    assert read_tree(path) == {"root": None, "A": "root", "A1": "A"}


def test_hierarchy_level_reads_the_tree(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from metrics.coefficients.alpha import krippendorff_alpha
    from metrics.distances import MatrixDistance

    tree = tmp_path / "tree.csv"
    tree.write_text("node,parent\nA,\nA1,A\nA2,A\nB,\n")
    data = tmp_path / "labels.csv"
    rows = [("1", "x", "A1"), ("1", "y", "A2"), ("2", "x", "A"), ("2", "y", "A1"),
            ("3", "x", "B"), ("3", "y", "B"), ("4", "x", "A2"), ("4", "y", "A2")]  # fmt: skip
    data.write_text("item,coder,label\n" + "".join(f"{i},{c},{v}\n" for i, c, v in rows))
    assert main(["report", str(data), "--level", "hierarchy", "--tree", str(tree), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["distance"] == "tree"
    # Path length / (2 × depth 2): A1–A2 1/2, A–A1 1/4, B–A1 3/4, over the domain A, A1, A2, B.
    matrix = MatrixDistance(
        [[0, 0.25, 0.25, 0.5], [0.25, 0, 0.5, 0.75], [0.25, 0.5, 0, 0.75], [0.5, 0.75, 0.75, 0]],
        labels=["A", "A1", "A2", "B"],
    )
    expected = krippendorff_alpha(read_annotations(data), distance=matrix).value
    assert result["coefficients"]["alpha"]["value"] == pytest.approx(expected)
    assert main(["report", str(data), "--level", "hierarchy"]) == 2
    assert "needs a tree" in capsys.readouterr().err
