"""Time the ICC table on 100,000 items × 5 coders, side by side with pingouin.

Run from the tree root: ``python benchmarks/bench_icc.py [n_items]``. Prints the best wall
time of a few runs of ``icc_table`` (all ten forms from one ANOVA) and of ``icc`` (one
form), pingouin's ``intraclass_corr`` (its six forms) on the same ratings, the ratio, and
the largest difference between the two libraries' values.

pingouin 0.7.0 needs numpy 2, which the project's environment does not have, so it runs in
its own virtual environment through a subprocess: set ``PINGOUIN_PYTHON`` to that
environment's interpreter (default ``/work/venv-icc/bin/python``). Only the call to
``intraclass_corr`` is timed there (the long-format table it needs is built beforehand);
without pingouin the peer columns are left out.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.coefficients.icc import icc, icc_table
from metrics.data import ReliabilityData

N_ITEMS = 100_000
N_CODERS = 5
REPEATS = 3
PINGOUIN_PYTHON = os.environ.get("PINGOUIN_PYTHON", "/work/venv-icc/bin/python")

# Runs in pingouin's environment: reads coders × items from an .npy file, prints JSON.
PEER_SCRIPT = """
import json, sys, time
import numpy as np, pandas as pd, pingouin as pg
pg.options["round.column.CI95"] = None
ratings = np.load(sys.argv[1])
k, n = ratings.shape
long = pd.DataFrame({"item": np.tile(np.arange(n), k), "coder": np.repeat(np.arange(k), n),
                     "rating": ratings.ravel()})
best = float("inf")
for _ in range(int(sys.argv[2])):
    start = time.perf_counter()
    out = pg.intraclass_corr(long, targets="item", raters="coder", ratings="rating")
    best = min(best, time.perf_counter() - start)
values = {row["Type"]: [float(row["ICC"]), float(row["CI95"][0]), float(row["CI95"][1])]
          for _, row in out.iterrows()}
print(json.dumps({"seconds": best, "values": values, "version": pg.__version__}))
"""

# pingouin's names for the forms it shares with icc_table.
PEER_FORMS = {
    "ICC(1,1)": ("oneway", "agreement", "single"),
    "ICC(1,k)": ("oneway", "agreement", "average"),
    "ICC(A,1)": ("twoway_random", "agreement", "single"),
    "ICC(A,k)": ("twoway_random", "agreement", "average"),
    "ICC(C,1)": ("twoway_mixed", "consistency", "single"),
    "ICC(C,k)": ("twoway_mixed", "consistency", "average"),
}


def ratings(n_items: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    items = rng.normal(50.0, 10.0, size=n_items)
    offsets = np.array([0.0, 1.0, -0.5, 2.0, 0.3])[:N_CODERS]
    return np.round(items + offsets[:, None] + rng.normal(0.0, 5.0, (N_CODERS, n_items)), 1)


def best_of(call: object) -> float:
    best = float("inf")
    for _ in range(REPEATS):
        start = time.perf_counter()
        call()  # type: ignore[operator]
        best = min(best, time.perf_counter() - start)
    return best


def peer(data: np.ndarray) -> dict[str, object] | None:
    if not Path(PINGOUIN_PYTHON).exists():
        return None
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "ratings.npy"
        np.save(path, data)
        completed = subprocess.run(
            [PINGOUIN_PYTHON, "-c", PEER_SCRIPT, str(path), str(REPEATS)],
            capture_output=True,
            text=True,
            check=False,
        )
    if completed.returncode != 0:
        print(f"pingouin failed: {completed.stderr.strip().splitlines()[-1:]}")
        return None
    result: dict[str, object] = json.loads(completed.stdout)
    return result


def main() -> None:
    n_items = int(sys.argv[1]) if len(sys.argv) > 1 else N_ITEMS
    data = ratings(n_items)
    ours_table = best_of(lambda: icc_table(data))
    ours_one = best_of(lambda: icc(data))
    coded = ReliabilityData.from_matrix(data)
    ours_coded = best_of(lambda: icc(coded))
    table = icc_table(data)
    print(f"ICC, {n_items:,} items × {N_CODERS} coders, best of {REPEATS} runs")
    print(f"  metrics icc_table (10 forms)   {ours_table:8.3f} s")
    print(f"  metrics icc (ICC(A,1))         {ours_one:8.3f} s")
    print(f"  metrics icc on ReliabilityData {ours_coded:8.3f} s  (values decoded from the domain)")
    other = peer(data)
    if other is None:
        print(f"  pingouin: not available at {PINGOUIN_PYTHON} (set PINGOUIN_PYTHON)")
        return
    seconds = float(other["seconds"])  # type: ignore[arg-type]
    print(f"  pingouin {other['version']} intraclass_corr  {seconds:8.3f} s  (6 forms)")
    print(f"  ratio pingouin / icc_table     {seconds / ours_table:8.1f} ×")
    values: dict[str, list[float]] = other["values"]  # type: ignore[assignment]
    difference = max(
        abs(a - b)
        for name, form in PEER_FORMS.items()
        for a, b in zip(
            values[name],
            (table.get(*form).value, table.get(*form).low, table.get(*form).high),
            strict=True,
        )
    )
    print(f"  largest difference in ICC and 95% bounds: {difference:.1e}")


if __name__ == "__main__":
    main()
