"""Model coders: the alternative annotator test and PPI at size, with the reference codes' ratio.

Usage::

    python benchmarks/bench_models.py --alttest-notebook PATH/TO/alt_test_example.ipynb

- alt-test: 10,000 items × 6 humans × 3 models (goal ≤ 5 s), ``alt_tests`` on the long
  arrays (the three models share the humans' work). The authors' reference code
  (nitaytech/AltTest, ``alt_test_example.ipynb``: its first two code cells are executed
  unchanged, as in ``tests/metrics/models/data/run_alttest_reference.py``) runs on the same
  data, once per model, when ``--alttest-notebook`` (or ``ALTTEST_NOTEBOOK``) names the
  notebook; the repository has no licence, so it is not copied here.
- PPI: 1,000,000 model labels, 2,000 of them with a human label too (goal ≤ 2 s),
  ``ppi_prevalence`` on the long arrays (string labels, four categories), against
  ``ppi_py.ppi_mean_ci`` called once per category on the indicator arrays (ppi-python, a test
  extra), timed from the same arrays.

Every figure comes from one run: each timing is the best of ``--repeat`` runs (default 3),
and the results of ours and of the reference are compared (p-values to 1e-9, intervals to
1e-9) before the ratio is printed.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.models import alt_tests, ppi_prevalence

LABELS = np.array(["neg", "neu", "pos", "mixed", "n/a"])


def best_of(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run()
        best = min(best, time.perf_counter() - start)
    return best, result


# -- alt-test ----------------------------------------------------------------------------------


def simulate_alt(
    n_items: int = 10_000, n_humans: int = 6, n_models: int = 3, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Five categories; humans right 70–85% of the time, models 50%, 62% and 74%; 5% of the human
    annotations missing."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(5, size=n_items, p=[0.3, 0.3, 0.2, 0.15, 0.05])
    items, coders, labels = [], [], []
    for c in range(n_humans + n_models):
        is_model = c >= n_humans
        accuracy = 0.5 + 0.12 * (c - n_humans) if is_model else 0.7 + 0.03 * c
        label = np.where(rng.random(n_items) < accuracy, truth, rng.integers(0, 5, n_items))
        keep = np.ones(n_items, bool) if is_model else rng.random(n_items) > 0.05
        items.append(np.flatnonzero(keep))
        coders.append(np.full(int(keep.sum()), f"model{c - n_humans}" if is_model else f"h{c}"))
        labels.append(LABELS[label[keep]])
    return np.concatenate(items), np.concatenate(coders), np.concatenate(labels)


def load_reference(notebook: Path) -> dict[str, Any]:
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = ["".join(cell["source"]) for cell in cells if cell["cell_type"] == "code"]
    namespace: dict[str, Any] = {}
    exec(compile(code[0] + "\n\n" + code[1], str(notebook), "exec"), namespace)
    return namespace


def reference_alt(
    namespace: dict[str, Any], items: np.ndarray, coders: np.ndarray, labels: np.ndarray
) -> dict[str, tuple[float, float, list[float]]]:
    """The reference's dicts are built outside the timing; returns {model: (ω, ρ, p-values)}."""
    humans: dict[str, dict[int, str]] = {}
    models: dict[str, dict[int, str]] = {}
    for item, coder, label in zip(items.tolist(), coders.tolist(), labels.tolist(), strict=True):
        (models if coder.startswith("model") else humans).setdefault(coder, {})[item] = label
    humans = {coder: humans[coder] for coder in sorted(humans)}
    recorded: list[float] = []
    ttest = namespace["ttest"]

    def recording(indicators: Any, eps: float) -> float:
        p = ttest(indicators, eps)
        recorded.append(float(p))
        return p

    namespace["ttest"] = recording

    def run() -> dict[str, tuple[float, float, list[float]]]:
        out = {}
        for model in sorted(models):
            recorded.clear()
            with contextlib.redirect_stdout(io.StringIO()):
                omega, rho = namespace["alt_test"](models[model], humans, "accuracy", 0.2, 0.05)
            out[model] = (omega, rho, list(recorded))
        return out

    return run  # type: ignore[return-value]


def bench_alt(repeat: int, notebook: Path | None) -> None:
    items, coders, labels = simulate_alt()
    models = ["model0", "model1", "model2"]
    ours_time, ours = best_of(repeat, lambda: alt_tests(items, coders, labels, models=models))
    print(
        f"alt-test, {len(set(items.tolist()))} items × 6 humans × 3 models "
        f"({items.size} annotations): {ours_time:.3f} s (goal ≤ 5 s)"
    )
    for model in models:
        r = ours[model]
        print(
            f"    {model}: winning rate {r.winning_rate:.3f}, advantage probability "
            f"{r.advantage_probability:.4f}, passed {r.passed}"
        )
    if notebook is None:
        print("    reference: not run (pass --alttest-notebook PATH or set ALTTEST_NOTEBOOK)")
        return
    run = reference_alt(load_reference(notebook), items, coders, labels)
    reference_time, reference = best_of(repeat, run)  # type: ignore[arg-type]
    for model in models:
        omega, rho, p_values = reference[model]
        mine = ours[model]
        assert mine.winning_rate == omega, (model, mine.winning_rate, omega)
        assert abs(mine.advantage_probability - rho) < 1e-12, (model, rho)
        assert np.allclose([t.p_value for t in mine.humans], p_values, rtol=1e-9, atol=0)
    print(
        f"    reference code (AltTest notebook, once per model): {reference_time:.3f} s; "
        f"same results; ratio {reference_time / ours_time:.0f}× faster"
    )


# -- PPI ---------------------------------------------------------------------------------------


def simulate_ppi(
    n_model: int = 1_000_000, n_gold: int = 2_000, seed: int = 1
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The model labels items 0..n_model-1 (right 85% of the time); the human labels the
    first ``n_gold`` of them. Returns the long arrays and the codes (truth, model)."""
    rng = np.random.default_rng(seed)
    truth = rng.choice(4, size=n_model, p=[0.5, 0.3, 0.15, 0.05])
    model = np.where(rng.random(n_model) < 0.85, truth, rng.integers(0, 4, n_model))
    items = np.concatenate([np.arange(n_model), np.arange(n_gold)])
    coders = np.concatenate([np.full(n_model, "llm"), np.full(n_gold, "ann")])
    labels = np.concatenate([LABELS[model], LABELS[truth[:n_gold]]])
    return items, coders, labels, truth, model


def bench_ppi(repeat: int) -> None:
    n_gold = 2_000
    items, coders, labels, _truth, model = simulate_ppi(n_gold=n_gold)
    ours_time, ours = best_of(
        repeat, lambda: ppi_prevalence(items, coders, labels, gold="ann", model="llm")
    )
    print(
        f"PPI, {model.size:,} model labels with {n_gold:,} human labels, 4 categories: "
        f"{ours_time:.3f} s (goal ≤ 2 s)"
    )
    for entry in ours.categories:
        print(
            f"    {entry.label}: {entry.estimate:.4f} [{entry.ci[0]:.4f}, {entry.ci[1]:.4f}] "
            f"(classical [{entry.classical_ci[0]:.4f}, {entry.classical_ci[1]:.4f}], "
            f"model {entry.naive:.4f}, lambda {entry.lam:.3f})"
        )
    try:
        import ppi_py
    except ImportError:
        print("    ppi-python: not installed (pip install ppi-python)")
        return

    def run() -> dict[str, tuple[float, float]]:
        # From the same long arrays: split into the two sets, then one call per category.
        gold = coders == "ann"
        gold_label = dict(zip(items[gold].tolist(), labels[gold].tolist(), strict=True))
        model_rows = ~gold
        model_items, model_labels = items[model_rows], labels[model_rows]
        labelled = np.isin(model_items, items[gold])
        human = np.array([gold_label[i] for i in model_items[labelled].tolist()])
        out = {}
        for category in np.unique(labels):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                low, high = ppi_py.ppi_mean_ci(
                    (human == category).astype(float),
                    (model_labels[labelled] == category).astype(float),
                    (model_labels[~labelled] == category).astype(float),
                    alpha=0.05,
                )
            out[str(category)] = (float(low[0]), float(high[0]))
        return out

    peer_time, peer = best_of(repeat, run)
    for entry in ours.categories:
        assert np.allclose(entry.ci, peer[str(entry.label)], rtol=0, atol=1e-9), entry.label
    print(
        f"    ppi_py.ppi_mean_ci once per category: {peer_time:.3f} s; same intervals "
        f"(1e-9); ratio {peer_time / ours_time:.1f}× faster"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--alttest-notebook",
        type=Path,
        default=os.environ.get("ALTTEST_NOTEBOOK"),
        help="nitaytech/AltTest's alt_test_example.ipynb, for the reference's ratio",
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    bench_alt(args.repeat, args.alttest_notebook)
    print()
    bench_ppi(args.repeat)


if __name__ == "__main__":
    main()
