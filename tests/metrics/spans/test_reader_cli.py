"""read_spans and ``python -m metrics report FILE --level span``: parsing, errors naming file,
line and field (exit code 2), the JSON and the table."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.cli import InputError, main
from metrics.spans.reader import read_continuum, read_spans

ROOT = Path(__file__).resolve().parents[3]

UNITS = """document,coder,begin,end,label
d1,ann,0,5,PER
d1,ann,10,14,LOC
d1,bob,0,5,PER
d1,bob,11,14,LOC
d2,ann,3,8,ORG
d2,bob,,,
d3,ann,2,6,PER
d3,bob,2,6,PER
d3,bob,8,12,LOC
"""
CONTINUUM = "document,begin,end\nd1,0,20\nd2,0,12\nd3,0,15\nd4,0,9\n"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_spans_with_continuum(tmp_path: Path) -> None:
    units = write(tmp_path, "u.csv", UNITS)
    data = read_spans(units, continuum=write(tmp_path, "c.csv", CONTINUUM))
    assert data.documents == ("d1", "d2", "d3", "d4")
    assert data.coders == ("ann", "bob")
    assert data.n_units == 8
    assert data.extents.tolist() == [[0, 20], [0, 12], [0, 15], [0, 9]]
    assert data.annotated.tolist() == [[True, True], [True, True], [True, True], [False, False]]


def test_read_spans_without_continuum_and_in_seconds(tmp_path: Path) -> None:
    path = write(tmp_path, "u.csv", "document,coder,begin,end,label,note\na,x,0.5,1.25,S,hi\n")
    data = read_spans(path)
    assert (data.begin.tolist(), data.end.tolist(), data.extents.tolist()) == (
        [0.5], [1.25], [[0.0, 1.25]]
    )  # fmt: skip


HEADER = "document,coder,begin,end,label\n"


@pytest.mark.parametrize(
    ("rows", "message"),
    [
        ("d,,0,1,X\n", r"line 2, field 'coder': empty"),
        ("d,a,0,,X\n", r"line 2, field 'end': empty"),
        ("d,a,0,1,\n", r"line 2, field 'label': empty"),
        ("d,a,zero,1,X\n", r"line 2, field 'begin': expected a number"),
        ("d,a,0,inf,X\n", r"line 2, field 'end': expected a finite"),
        ("d,a,4,1,X\n", r"line 2, field 'end': 1 is before begin 4"),
        ("d,a,0,1,X\nd,a,0,1,X\n", r"line 3, field 'begin': the same unit as line 2"),
        ("d,a,0,1,X\nd,a,,,\n", r"line 3, field 'begin': an empty row"),
        ("d,a,,,\nd,a,0,1,X\n", r"line 3, field 'begin': line 2 says"),
    ],
)
def test_bad_span_files_name_line_and_field(tmp_path: Path, rows: str, message: str) -> None:
    path = write(tmp_path, "u.csv", HEADER + rows)
    with pytest.raises(InputError, match=message) as error:
        read_spans(path)
    assert str(path) in str(error.value)


def test_bad_header_and_empty_file(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"line 1: the CSV header must name .* missing label"):
        read_spans(write(tmp_path, "h.csv", "document,coder,begin,end\n"))
    with pytest.raises(InputError, match="no rows after the header"):
        read_spans(write(tmp_path, "e.csv", HEADER))


def test_bad_continuum(tmp_path: Path) -> None:
    units = write(tmp_path, "u.csv", UNITS)
    missing = write(tmp_path, "c.csv", "document,begin,end\nd1,0,20\n")
    with pytest.raises(InputError, match=r"u.csv, line 6, field 'document': 'd2' is not in"):
        read_spans(units, continuum=missing)
    short = write(tmp_path, "s.csv", "document,begin,end\nd1,0,12\nd2,0,12\nd3,0,15\n")
    with pytest.raises(InputError, match=r"line 3, field 'end': \[10, 14\) lies outside"):
        read_spans(units, continuum=short)
    repeated = write(tmp_path, "r.csv", "document,begin,end\nd1,0,20\nd1,0,20\n")
    with pytest.raises(InputError, match=r"r\.csv, line 3, field 'document': 'd1' is already"):
        read_continuum(repeated)
    reversed_ = write(tmp_path, "v.csv", "document,begin,end\nd1,9,2\n")
    with pytest.raises(InputError, match=r"v\.csv, line 2, field 'end'"):
        read_continuum(reversed_)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "metrics", "report", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


def test_cli_json(tmp_path: Path) -> None:
    units = write(tmp_path, "u.csv", UNITS)
    continuum = write(tmp_path, "c.csv", CONTINUUM)
    completed = run(str(units), "--level", "span", "--continuum", str(continuum), "--json",
                    "--bootstrap", "100", "--seed", "3", "--confidence", "0.9")  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    assert (result["level"], result["n_documents"], result["n_units"]) == ("span", 4, 8)
    coefficients = result["coefficients"]
    assert coefficients["span_f1"]["value"] == 0.5
    assert coefficients["span_f1_overlap"]["value"] == 0.75
    assert coefficients["span_f1"]["ci"]["replicates"] == 100
    assert coefficients["span_f1"]["ci"]["confidence"] == 0.9
    assert "gamma" not in coefficients
    assert coefficients["alpha_u"]["value"] is not None
    with_gamma = run(str(units), "--level", "span", "--continuum", str(continuum), "--json",
                     "--gamma")  # fmt: skip
    assert with_gamma.returncode == 0, with_gamma.stderr
    assert json.loads(with_gamma.stdout)["coefficients"]["gamma"]["value"] is not None
    assert [entry["document"] for entry in result["documents"]][-1] == "d4"


def test_cli_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    units = write(tmp_path, "u.csv", UNITS)
    assert main(["report", str(units), "--level", "span"]) == 0
    out = capsys.readouterr().out
    assert "Span F1, exact match" in out
    assert "0.5000" in out


def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    bad = write(tmp_path, "bad.csv", "document,coder,begin,end,label\nd,a,0,x,X\n")
    completed = run(str(bad), "--level", "span")
    assert completed.returncode == 2
    assert f"{bad}, line 2, field 'end'" in completed.stderr
    units = write(tmp_path, "u.csv", UNITS)
    assert run(str(units), "--level", "span", "--domain", "a,b").returncode == 2
    assert run(str(units), "--level", "nominal", "--gamma").returncode == 2
