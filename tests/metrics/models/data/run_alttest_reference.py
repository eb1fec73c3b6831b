"""Run the authors' alt-test code on the fixtures here and print what the tests assert.

    python tests/metrics/models/data/run_alttest_reference.py PATH/TO/alt_test_example.ipynb

The notebook is nitaytech/AltTest's ``alt_test_example.ipynb`` (the commit is in
``docs/references.md#alttest-reference``); its first two code cells (imports, then
``by_procedure``, ``accuracy``, ``neg_rmse``, ``ttest`` and ``alt_test``) are executed
unchanged. ``ttest`` and ``by_procedure`` are wrapped to record each human's p-value and the
rejections, and the notebook's prints (dropped instances, skipped annotators) are captured.
Humans are passed in the order of their ids (sorted), as the library orders coders.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

#: (file, scoring, epsilon, q) of each run the tests assert.
RUNS = [
    ("alt_nominal.csv", "accuracy", 0.2, 0.05),
    ("alt_nominal.csv", "accuracy", 0.1, 0.05),
    ("alt_nominal.csv", "accuracy", 0.15, 0.2),
    ("alt_numeric.csv", "neg_rmse", 0.15, 0.05),
    ("alt_numeric.csv", "neg_rmse", 0.0, 0.05),
    ("alt_ties.csv", "accuracy", 0.2, 0.05),
    ("alt_ties.csv", "accuracy", 0.0, 0.05),
]


def load_reference(notebook: Path) -> dict[str, Any]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    namespace: dict[str, Any] = {}
    exec(compile(code[0] + "\n\n" + code[1], str(notebook), "exec"), namespace)
    return namespace


def read(name: str, numeric: bool) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    humans: dict[str, dict[str, Any]] = {}
    llm: dict[str, Any] = {}
    with (HERE / name).open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            value: Any = float(row["label"]) if numeric else row["label"]
            if row["coder"] == "llm":
                llm[row["item"]] = value
            else:
                humans.setdefault(row["coder"], {})[row["item"]] = value
    return {coder: humans[coder] for coder in sorted(humans)}, llm


def run(namespace: dict[str, Any], name: str, scoring: str, epsilon: float, q: float) -> dict:
    humans, llm = read(name, scoring == "neg_rmse")
    record: dict[str, Any] = {"p": [], "rejected": None}
    ttest, by_procedure = namespace["ttest"], namespace["by_procedure"]

    def recording_ttest(indicators: Any, eps: float) -> float:
        p = ttest(indicators, eps)
        record["p"].append(float(p))
        return p

    def recording_by(p_values: Any, level: float) -> Any:
        rejected = by_procedure(p_values, level)
        record["rejected"] = [int(i) for i in rejected]
        return rejected

    namespace["ttest"], namespace["by_procedure"] = recording_ttest, recording_by
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            winning_rate, advantage = namespace["alt_test"](llm, humans, scoring, epsilon, q)
    finally:
        namespace["ttest"], namespace["by_procedure"] = ttest, by_procedure
    return {
        "file": name,
        "scoring": scoring,
        "epsilon": epsilon,
        "q": q,
        "winning_rate": winning_rate,
        "advantage_probability": advantage,
        "p_values": record["p"],
        "rejected": record["rejected"],
        "printed": printed.getvalue().splitlines(),
    }


if __name__ == "__main__":
    reference = load_reference(Path(sys.argv[1]))
    for spec in RUNS:
        print(json.dumps(run(reference, *spec)))
