"""Dawid–Skene and MACE on a simulated crowd: time to convergence, peak memory, crowd-kit ratio.

Usage::

    python benchmarks/bench_quality.py            # 200k annotations, with crowd-kit's ratio
    python benchmarks/bench_quality.py --full     # also 6M annotations (2,400 coders,
                                                  # 1M items, 5 classes), about 90 s more
    python benchmarks/bench_quality.py --no-peer  # ours only

The crowd is simulated with a seed: items draw a true label from skewed class priors; each
item gets 6 coders (distinct); 70% of the coders are good (accuracy 0.65–0.95, their errors
spread over the other labels), 20% mediocre (0.35–0.6), 10% spammers (a fixed favourite
label or uniformly random labels whatever the item). Peak memory is tracemalloc's peak of
the model call (numpy and scipy allocations), printed with the input's own size: it grows
in proportion to the annotations.

crowd-kit (``pip install crowd-kit``) runs on the same data in the same process when it can
be imported, else under ``--peer-python PATH`` (a virtual environment's python that has it)
through a subprocess. Dawid–Skene is compared with the same tolerance on the change in
log-likelihood (or ELBO, crowd-kit's) per annotation; MACE with EM, 2 starts (crowd-kit's
default of 10 takes it 100 s at this size; time grows in proportion) and the cap of 50
iterations, which crowd-kit runs every start to (our convergence test is off for the
comparison: tolerance 0). The 6M run uses MACE's defaults: 10 starts, tolerance 1e-6.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.quality import dawid_skene, mace

N_CLASSES = 5
PRIORS = np.array([0.35, 0.25, 0.2, 0.12, 0.08])
PER_ITEM = 6


def simulate(
    n_items: int, n_coders: int, seed: int = 0
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
    """(item, coder, label) of ``n_items × 6`` annotations, and the items' true labels."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(N_CLASSES, size=n_items, p=PRIORS)
    confusion = _confusions(rng, n_coders)
    # Six distinct coders per item: a random start and a random stride below n_coders / 6.
    start = rng.integers(0, n_coders, size=n_items)
    stride = rng.integers(1, max(2, n_coders // PER_ITEM), size=n_items)
    coder = (start[:, None] + np.arange(PER_ITEM) * stride[:, None]) % n_coders
    item = np.repeat(np.arange(n_items), PER_ITEM)
    coder = coder.ravel()
    # Draw each label from row (coder, truth) of the coder's confusion matrix by one search
    # in the concatenation of all rows' cumulative sums, each row shifted by its index.
    row = coder * N_CLASSES + truth[item]
    cumulative = np.cumsum(confusion.reshape(-1, N_CLASSES), axis=1)
    cumulative[:, -1] = 1.0
    shifted = (cumulative + np.arange(len(cumulative))[:, None]).ravel()
    position = np.searchsorted(shifted, row + rng.random(len(row)), side="right")
    label = position - row * N_CLASSES
    return item.astype(np.intp), coder.astype(np.intp), label.astype(np.intp), truth


def _confusions(rng: np.random.Generator, n_coders: int) -> NDArray[np.float64]:
    kind = rng.choice(3, size=n_coders, p=[0.7, 0.2, 0.1])
    accuracy = np.where(
        kind == 0, rng.uniform(0.65, 0.95, n_coders), rng.uniform(0.35, 0.6, n_coders)
    )
    off = (1.0 - accuracy) / (N_CLASSES - 1)
    confusion = np.repeat(off[:, None, None], N_CLASSES, axis=1).repeat(N_CLASSES, axis=2)
    confusion[:, np.arange(N_CLASSES), np.arange(N_CLASSES)] = accuracy[:, None]
    spammers = np.flatnonzero(kind == 2)
    favourite = rng.integers(0, N_CLASSES, size=len(spammers))
    fixed = rng.random(len(spammers)) < 0.5
    spam = np.full((len(spammers), N_CLASSES), 1.0 / N_CLASSES)
    spam[fixed] = 0.02
    spam[fixed, favourite[fixed]] = 1.0 - 0.02 * (N_CLASSES - 1)
    confusion[spammers] = spam[:, None, :]
    return confusion


def majority_vote(item: NDArray[np.intp], label: NDArray[np.intp], n_items: int) -> NDArray[Any]:
    counts = np.bincount(item * N_CLASSES + label, minlength=n_items * N_CLASSES)
    return np.argmax(counts.reshape(n_items, N_CLASSES), axis=1)


def measure(function: Any, *args: Any, **options: Any) -> tuple[Any, float, float]:
    """(result, seconds, peak MiB by tracemalloc) of one call."""
    tracemalloc.start()
    started = time.perf_counter()
    result = function(*args, **options)
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    return result, seconds, peak


def ours(n_items: int, n_coders: int, *, mace_tol: float, restarts: int) -> dict[str, Any]:
    item, coder, label, truth = simulate(n_items, n_coders)
    data = (item, coder, label)
    input_mib = 3 * item.nbytes / 2**20
    ds, ds_seconds, ds_peak = measure(dawid_skene, data, tol=1e-5)
    mc, mace_seconds, mace_peak = measure(
        mace, data, tol=mace_tol, max_iter=50, n_restarts=restarts
    )
    vote = majority_vote(item, label, n_items)
    return {
        "annotations": len(item),
        "input_mib": input_mib,
        "majority_accuracy": float(np.mean(vote == truth)),
        "ds": {
            "seconds": ds_seconds,
            "peak_mib": ds_peak,
            "iterations": ds.iterations,
            "converged": ds.converged,
            "accuracy": float(np.mean(ds.label_codes == truth)),
        },
        "mace": {
            "seconds": mace_seconds,
            "peak_mib": mace_peak,
            "iterations": mc.iterations,
            "converged": mc.converged,
            "accuracy": float(np.mean(mc.label_codes == truth)),
        },
    }


PEER_SCRIPT = """
import json, sys, time
import numpy as np, pandas as pd
sys.path.insert(0, {root!r})
from benchmarks.bench_quality import simulate
from crowdkit.aggregation import DawidSkene, MACE
item, coder, label, truth = simulate({n_items}, {n_coders})
frame = pd.DataFrame({{"task": item, "worker": coder, "label": label}})
started = time.perf_counter()
ds = DawidSkene(n_iter=100, tol=1e-5).fit(frame)
ds_seconds = time.perf_counter() - started
started = time.perf_counter()
mc = MACE(n_restarts=2, n_iter=50, method="em", random_state=0).fit(frame)
mace_seconds = time.perf_counter() - started
ds_labels = ds.labels_.sort_index().to_numpy()
mace_labels = mc.labels_.sort_index().to_numpy()
print(json.dumps({{
    "ds": {{"seconds": ds_seconds, "iterations": len(ds.loss_history_),
            "accuracy": float(np.mean(ds_labels == truth))}},
    "mace": {{"seconds": mace_seconds, "iterations": 50,
              "accuracy": float(np.mean(mace_labels == truth))}},
}}))
"""


def peer(n_items: int, n_coders: int, python: str) -> dict[str, Any]:
    script = PEER_SCRIPT.format(
        root=str(Path(__file__).resolve().parents[1]), n_items=n_items, n_coders=n_coders
    )
    output = subprocess.run(
        [python, "-c", script], check=True, capture_output=True, text=True
    ).stdout
    return dict(json.loads(output.strip().splitlines()[-1]))


def print_size(name: str, figures: dict[str, Any], peer_figures: dict[str, Any] | None) -> None:
    print(
        f"\n{name}: {figures['annotations']:,} annotations "
        f"(input {figures['input_mib']:.0f} MiB); majority vote accuracy "
        f"{figures['majority_accuracy']:.4f}"
    )
    print(
        f"{'model':<6} {'seconds':>8} {'iter':>5} {'conv':>5} {'peak MiB':>9} {'accuracy':>9}"
        + ("   crowd-kit s  iter  accuracy   ratio" if peer_figures else "")
    )
    for model in ("ds", "mace"):
        row = figures[model]
        line = (
            f"{model:<6} {row['seconds']:8.2f} {row['iterations']:5d} {row['converged']!s:>5} "
            f"{row['peak_mib']:9.0f} {row['accuracy']:9.4f}"
        )
        if peer_figures:
            other = peer_figures[model]
            line += (
                f"   {other['seconds']:11.2f} {other['iterations']:5d} {other['accuracy']:9.4f}"
                f"   {other['seconds'] / row['seconds']:5.1f}×"
            )
        print(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--full", action="store_true", help="also run 6M annotations")
    parser.add_argument("--no-peer", action="store_true", help="skip crowd-kit")
    parser.add_argument("--peer-python", default=sys.executable, help="python with crowd-kit")
    args = parser.parse_args()
    small = (200_000 // PER_ITEM, 2_400)
    peer_figures = None if args.no_peer else peer(*small, args.peer_python)
    # crowd-kit's MACE runs every start to the cap: ours too for the ratio (tolerance 0
    # goes on while the log-likelihood rises).
    print_size("small", ours(*small, mace_tol=0.0, restarts=2), peer_figures)
    if args.full:
        print_size("full", ours(1_000_000, 2_400, mace_tol=1e-6, restarts=10), None)


if __name__ == "__main__":
    main()
