"""The label-kind redesign (studies/kinds/) against the code before it, on the per-label paths
it touched, in one run: the two trees are imported in turn by subprocesses, alternately, and
the medians compared.

- ``parse``: 200,000 labels through ``LabelScheme.parse`` one by one (the JSON bulk upload's
  path; a crowd CSV ingest parses each distinct label once, so its per-row cost does not
  involve the kind at all);
- ``alpha``: nominal alpha and its report on 6,000,000 annotations (1,200,000 items × 5
  coders) through ``computations.engine``, as the worker computes a crowd round once its
  scope is read (the kind is asked once per computation);
- ``ingest`` (under ``--instructions`` only): an ``item,coder,label`` CSV through
  ``annotations.ingest.annotations_ingest_csv`` into a fresh SQLite database, items and
  coders created, so the count holds the database's work as well as ours.

Usage::

    python benchmarks/bench_kind_modules.py BEFORE_TREE AFTER_TREE [--runs 3] [--instructions]

where each tree is a checkout of the project (``git worktree add ../before 46c5bbd``).
Prints each step's median seconds per tree and the ratio after/before.

Seconds on a shared machine move by tens of percent between runs, more than the 5% this
benchmark must resolve. ``--instructions`` also counts the instructions each step executes
under valgrind's callgrind, collected only between the step's start and end (a small C
helper toggles collection; it needs gcc and valgrind's headers): the count is the same
from run to run whatever else the machine does, so the ratio of counts is the figure to
read. Under valgrind the alpha step runs on 600,000 annotations (120,000 items × 5), the
same path as at 6M, and the ingest on 20,000 rows; both are linear in their rows.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

CHILD = r"""
import json, os, sys, time
# An editable install of the project maps its packages' modules that a tree lacks onto the
# installed tree: drop that mapping so each child imports only the tree it was given.
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tests.settings")
import django
django.setup()
import numpy as np
from studies.labels import CategoryRow, LabelScheme
from computations import engine

step = sys.argv[1]
n_items = int(sys.argv[2]) if len(sys.argv) > 2 else 1_200_000
toggle = None
if len(sys.argv) > 3:
    import ctypes
    toggle = ctypes.CDLL(sys.argv[3])


def mark():
    if toggle is not None:
        toggle.collect()


if step == "parse":
    categories = [CategoryRow(i, f"c{i}", None) for i in range(5)]
    scheme = LabelScheme(kind="nominal", categories=categories)
    labels = [f"c{i % 5}" for i in range(200_000)]
    mark()
    start = time.perf_counter()
    for label in labels:
        scheme.parse(label)
    seconds = time.perf_counter() - start
    mark()
elif step == "ingest":
    from annotations.ingest import annotations_ingest_csv
    from studies.access import Actor
    from studies.models import Category, LabelKind, Question, Round, Study

    study = Study.objects.create(name="kind benchmark")
    round_ = Round.objects.create(study=study, name="R1", position=1)
    question = Question.objects.create(study=study, key="q", kind=LabelKind.NOMINAL)
    Category.objects.bulk_create(
        [Category(question=question, code=c, position=i) for i, c in enumerate("abcde")]
    )
    codes = "abcde"
    lines = ["item,coder,label\n"] + [
        f"task-{row // 5},worker-{(row % 5 + row // 5) % 50},{codes[(row * 7 + row // 5) % 5]}\n"
        for row in range(n_items)
    ]
    mark()
    start = time.perf_counter()
    annotations_ingest_csv(
        study=study, round_ref=round_.pk, question_key="q", lines=iter(lines),
        actor=Actor(user=None, token=None), create_missing=True,
    )
    seconds = time.perf_counter() - start
    mark()
else:
    rng = np.random.default_rng(0)
    n_coders = 5
    items = np.repeat(np.arange(n_items), n_coders)
    coders = np.tile(np.arange(n_coders), n_items)
    truth = rng.integers(0, 5, n_items)
    labels = np.where(rng.random(items.size) < 0.8, truth[items], rng.integers(0, 5, items.size))
    codes = np.array(["a", "b", "c", "d", "e"])[labels]
    params = {**engine.default_parameters("nominal"), "coefficients": ["alpha"]}
    mark()
    start = time.perf_counter()
    data = engine.reliability_data(items, coders, codes, domain=("a", "b", "c", "d", "e"))
    engine.point_report(data, params, parents={}, bootstrap=0)
    seconds = time.perf_counter() - start
    mark()
print(json.dumps({"seconds": seconds}))
"""


MIGRATE = r"""
import sys
sys.meta_path[:] = [f for f in sys.meta_path if "__editable__" not in getattr(f, "__module__", "")]
import django
from django.core.management import call_command
django.setup()
call_command("migrate", verbosity=0)
"""

TOGGLE_C = """
#include <valgrind/callgrind.h>
void collect(void) { CALLGRIND_TOGGLE_COLLECT; }
"""


def build_toggle(folder: Path) -> Path:
    """A shared library whose ``collect()`` switches callgrind's collection on or off."""
    source, library = folder / "toggle.c", folder / "toggle.so"
    source.write_text(TOGGLE_C)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", library, source], check=True)
    return library


def instructions(tree: Path, step: str, toggle: Path, folder: Path) -> int:
    """Instructions executed between the step's start and end, counted by callgrind."""
    out_file = folder / f"callgrind.{tree.resolve().name}.{step}"
    # A fixed hash seed: string hashing, and so dict and set work, the same in every run.
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    if step == "ingest":
        # A fresh SQLite database per tree, migrated outside valgrind: the database work
        # runs in the process, so the count holds all of the ingest's work.
        env["DATABASE_URL"] = f"sqlite:///{folder / f'{tree.resolve().name}.sqlite3'}"
        env["DJANGO_SETTINGS_MODULE"] = "tests.settings"
        subprocess.run(
            [sys.executable, "-c", MIGRATE], cwd=tree, env=env, check=True, capture_output=True
        )
    subprocess.run(
        [
            "valgrind", "--tool=callgrind", "--collect-atstart=no",
            f"--callgrind-out-file={out_file}",
            sys.executable, "-c", CHILD, step, str(INSTRUCTION_SIZE[step]), str(toggle),
        ],
        cwd=tree,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )  # fmt: skip
    for line in out_file.read_text().splitlines():
        if line.startswith(("summary:", "totals:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals in {out_file}")


#: Sizes under valgrind: the alpha step's items (× 5 coders, a tenth of the timed size) and
#: the ingest step's CSV rows (20,000 rows of item,coder,label into SQLite).
INSTRUCTION_SIZE = {"parse": 0, "alpha": 120_000, "ingest": 20_000}


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
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument(
        "--steps", default="parse,alpha,ingest", help="Steps counted under --instructions."
    )
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()[0]:.1f}")
    for step in ("parse", "alpha") if args.runs else ():
        times: dict[str, list[float]] = {"before": [], "after": []}
        for _ in range(args.runs):
            for name in ("before", "after"):
                times[name].append(run(getattr(args, name), step))
        before, after = statistics.median(times["before"]), statistics.median(times["after"])
        print(
            f"{step:6s} before {before:7.3f} s   after {after:7.3f} s   ratio {after / before:.3f}"
        )
    if args.instructions:
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            toggle = build_toggle(folder)
            for step in args.steps.split(","):
                counts = {n: instructions(getattr(args, n), step, toggle, folder)
                          for n in ("before", "after")}  # fmt: skip
                print(
                    f"{step:6s} instructions before {counts['before']:,}   after "
                    f"{counts['after']:,}   ratio {counts['after'] / counts['before']:.4f}"
                )


if __name__ == "__main__":
    main()
