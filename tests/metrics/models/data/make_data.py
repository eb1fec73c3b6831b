"""How the fixtures in this directory were made (run once; the CSVs are committed).

    python tests/metrics/models/data/make_data.py

Each file is ``item,coder,label``; the model coder is ``llm``. The reference outputs the
alt-test tests compare with come from running the authors' code on ``alt_*.csv`` (see
``docs/references.md#alttest-reference``); the PPI tests compare ``ppi_small.csv`` with
``ppi_py`` (``docs/references.md#ppi-python-mean``).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def _write(name: str, rows: list[tuple[str, str, object]]) -> None:
    with (HERE / name).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, lineterminator="\n")
        writer.writerow(["item", "coder", "label"])
        writer.writerows(rows)


def nominal() -> None:
    """80 items, 3 categories; humans h1–h3 of varying accuracy, h4 on 20 items only (not
    tested), about 10% of the other annotations missing, items i70 and i71 labelled by h1
    alone (not usable), the model missing on 3 items."""
    rng = np.random.default_rng(20250801)
    categories = np.array(["neg", "neu", "pos"])
    truth = rng.integers(0, 3, size=80)
    accuracy = {"h1": 0.85, "h2": 0.7, "h3": 0.55, "h4": 0.8, "llm": 0.65}
    rows = []
    for i, t in enumerate(truth):
        for coder, acc in accuracy.items():
            if coder == "h4" and i >= 20:
                continue
            if coder == "llm" and i in (5, 17, 42):
                continue
            if coder in ("h1", "h2", "h3") and rng.random() < 0.1:
                continue
            if i in (70, 71) and coder in ("h2", "h3"):  # one human only: not usable
                continue
            label = t if rng.random() < acc else rng.integers(0, 3)
            rows.append((f"i{i:02d}", coder, categories[label]))
    _write("alt_nominal.csv", rows)


def numeric() -> None:
    """60 items rated 1–5 (a few half points); five humans with noise of varying spread, the
    model close to the truth."""
    rng = np.random.default_rng(7)
    truth = rng.integers(1, 6, size=60)
    spread = {"a": 0.6, "b": 0.9, "c": 1.2, "d": 0.7, "e": 1.5, "llm": 0.5}
    rows = []
    for i, t in enumerate(truth):
        for coder, s in spread.items():
            if coder == "e" and rng.random() < 0.3:
                continue
            value = float(np.clip(np.round(2 * (t + rng.normal(0, s))) / 2, 1, 5))
            if value != int(value) and rng.random() < 0.7:
                value = float(round(value))
            rows.append((f"s{i:02d}", coder, f"{value:g}"))
    _write("alt_numeric.csv", rows)


def ties() -> None:
    """40 items on which three humans and the model all give the same label: every
    difference is 0 (no variance)."""
    rows = []
    for i in range(40):
        label = "yes" if i % 3 else "no"
        for coder in ("h1", "h2", "h3", "llm"):
            rows.append((f"t{i:02d}", coder, label))
    _write("alt_ties.csv", rows)


def ppi_small() -> None:
    """A human (``ann``) labels 40 items, the model 200 (the 40 among them), ``ann`` 5 more
    alone. Categories spam / ham / other; the model never says ``other`` (its indicator's
    predictions are constant: lambda 0)."""
    rng = np.random.default_rng(2023)
    categories = np.array(["spam", "ham", "other"])
    truth = rng.choice(3, size=205, p=[0.3, 0.6, 0.1])
    model = np.where(rng.random(205) < 0.8, truth, rng.integers(0, 2, size=205))
    model = np.where(model == 2, 1, model)
    rows = []
    for i in range(205):
        if i < 40 or i >= 200:
            rows.append((f"d{i:03d}", "ann", categories[truth[i]]))
        if i < 200:
            rows.append((f"d{i:03d}", "llm", categories[model[i]]))
    _write("ppi_small.csv", rows)


if __name__ == "__main__":
    ppi_small()
    nominal()
    numeric()
    ties()
