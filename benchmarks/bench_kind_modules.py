"""The label-kind redesign (studies/kinds/) against the code before it, on the per-label paths
it touched, in one run: the two trees are imported in turn by subprocesses, alternately, and
the medians compared.

- ``parse``: 200,000 labels through ``LabelScheme.parse`` one by one (the JSON bulk upload's
  path; a crowd CSV ingest parses each distinct label once, so its per-row cost does not
  involve the kind at all);
- ``alpha``: nominal alpha and its report on 6,000,000 annotations (1,200,000 items × 5
  coders) through ``computations.engine``, as the worker computes a crowd round once its
  scope is read (the kind is asked once per computation).

Usage::

    python benchmarks/bench_kind_modules.py BEFORE_TREE AFTER_TREE [--runs 3]

where each tree is a checkout of the project (``git worktree add ../before 46c5bbd``).
Prints each step's median seconds per tree and the ratio after/before.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = r"""
import json, os, sys, time
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
import django
django.setup()
import numpy as np
from studies.labels import CategoryRow, LabelScheme
from computations import engine

step = sys.argv[1]
if step == "parse":
    categories = [CategoryRow(i, f"c{i}", None) for i in range(5)]
    scheme = LabelScheme(kind="nominal", categories=categories)
    labels = [f"c{i % 5}" for i in range(200_000)]
    start = time.perf_counter()
    for label in labels:
        scheme.parse(label)
    seconds = time.perf_counter() - start
else:
    rng = np.random.default_rng(0)
    n_items, n_coders = 1_200_000, 5
    items = np.repeat(np.arange(n_items), n_coders)
    coders = np.tile(np.arange(n_coders), n_items)
    truth = rng.integers(0, 5, n_items)
    labels = np.where(rng.random(items.size) < 0.8, truth[items], rng.integers(0, 5, items.size))
    codes = np.array(["a", "b", "c", "d", "e"])[labels]
    params = {**engine.default_parameters("nominal"), "coefficients": ["alpha"]}
    start = time.perf_counter()
    data = engine.reliability_data(items, coders, codes, domain=("a", "b", "c", "d", "e"))
    engine.point_report(data, params, parents={}, bootstrap=0)
    seconds = time.perf_counter() - start
print(json.dumps({"seconds": seconds}))
"""


def run(tree: Path, step: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, step],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1])["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f}")
    for step in ("parse", "alpha"):
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for name in ("before", "after"):
                times[name].append(run(getattr(args, name), step))
        before, after = statistics.median(times["before"]), statistics.median(times["after"])
        print(
            f"{step:6s} before {before:7.3f} s   after {after:7.3f} s   ratio {after / before:.3f}"
        )


if __name__ == "__main__":
    main()
