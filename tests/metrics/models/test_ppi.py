"""Prediction-powered prevalences against ppi-python (``ppi_py``).

The literals are what ppi-python 0.2.3's ``ppi_mean_ci`` / ``ppi_mean_pointestimate`` /
``classical_mean_ci`` print on ``data/ppi_small.csv``, called once per category on the
indicator arrays (docs/references.md#ppi-python-mean); the live tests call the installed
package (a test extra) on random data and compare to 1e-9.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from metrics.cli import main
from metrics.models import (
    model_agreement,
    ppi_mean,
    ppi_prevalence,
    ppi_prevalence_from_labels,
    wilson_interval,
)

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parents[3]


def read(name: str) -> tuple[list[str], list[str], list[str]]:
    with (DATA / name).open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [r["item"] for r in rows], [r["coder"] for r in rows], [r["label"] for r in rows]


def test_ppi_small_equals_ppi_python_literals() -> None:
    # docs/references.md#ppi-python-mean: alpha=0.05 on the indicators of each category.
    result = ppi_prevalence(*read("ppi_small.csv"), gold="ann", model="llm")
    assert (result.n_labelled, result.n_unlabelled, result.n_gold_only) == (40, 160, 5)
    ham, spam = result.category("ham"), result.category("spam")
    assert ham.estimate == pytest.approx(0.6044686873452059, abs=1e-12)
    assert ham.lam == pytest.approx(0.45531312654794226, abs=1e-12)
    assert ham.ci == pytest.approx((0.47873813744726446, 0.7301992372431473), abs=1e-12)
    assert ham.classical_ci == pytest.approx((0.5021883054602991, 0.7978116945397009), abs=1e-12)
    assert spam.estimate == pytest.approx(0.2810926996108032, abs=1e-12)
    assert spam.lam == pytest.approx(0.560926996108032, abs=1e-12)
    assert spam.ci == pytest.approx((0.1940345278990786, 0.3681508713225278), abs=1e-12)
    assert spam.classical_ci == pytest.approx((0.09559227400783427, 0.35440772599216575), abs=1e-12)
    # The model never says "other": ppi_py's tuned interval is nan there; lambda = 0 gives
    # ppi_mean_ci(..., lam=0), the classical interval.
    other = result.category("other")
    assert other.lam == 0.0
    assert "constant" in (other.note or "")
    assert other.ci == pytest.approx((0.022511030043055366, 0.22748896995694462), abs=1e-12)
    assert other.classical_ci == other.ci
    # Naive: the model's share over all 200 items it labelled (139 ham, 61 spam).
    assert (ham.naive, spam.naive, other.naive) == (0.695, 0.305, 0.0)


def test_confidence_level() -> None:
    # ppi_mean_ci(..., alpha=0.1) on the ham indicator.
    result = ppi_prevalence(*read("ppi_small.csv"), gold="ann", model="llm", confidence=0.9)
    assert result.category("ham").ci == pytest.approx(
        (0.49895228365130645, 0.7099850910391052), abs=1e-12
    )
    assert result.category("spam").ci == pytest.approx(
        (0.208031178774032, 0.3541542204475744), abs=1e-12
    )


def _random_case(seed: int) -> tuple[int, np.ndarray, np.ndarray, int, int]:
    rng = np.random.default_rng(seed)
    K = int(rng.integers(2, 6))
    n = int(rng.integers(3, 300))
    N = int(rng.integers(1, 2000))
    truth = rng.integers(0, K, n + N)
    model = np.where(rng.random(n + N) < rng.uniform(0, 1), truth, rng.integers(0, K, n + N))
    if seed % 4 == 0:
        model[:] = 0  # constant predictions for every category
    gold = np.where(np.arange(n + N) < n, truth, -1)
    return K, gold, model, n, N


@pytest.mark.parametrize("seed", range(24))
def test_each_category_equals_ppi_mean_ci(seed: int) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    K, gold, model, n, _N = _random_case(seed)
    confidence = (0.8, 0.9, 0.95, 0.99)[seed % 4]
    result = ppi_prevalence_from_labels(
        [None if g < 0 else int(g) for g in gold],
        [int(m) for m in model],
        domain=list(range(K)),
        confidence=confidence,
    )
    for k, entry in enumerate(result.categories):
        Y = (gold[:n] == k).astype(float)
        Yhat = (model[:n] == k).astype(float)
        unlabelled = (model[n:] == k).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            low, high = ppi_py.ppi_mean_ci(Y, Yhat, unlabelled, alpha=1 - confidence)
            if np.isnan(low[0]):  # constant predictions: ppi_py gives nan, we use lambda 0
                assert entry.lam == 0.0
                low, high = ppi_py.ppi_mean_ci(Y, Yhat, unlabelled, alpha=1 - confidence, lam=0)
                estimate = ppi_py.ppi_mean_pointestimate(Y, Yhat, unlabelled, lam=0)
            else:
                estimate = ppi_py.ppi_mean_pointestimate(Y, Yhat, unlabelled)
            classical = ppi_py.classical_mean_ci(Y, alpha=1 - confidence)
        assert entry.ci == pytest.approx((low[0], high[0]), abs=1e-9)
        assert entry.estimate == pytest.approx(float(np.ravel(estimate)[0]), abs=1e-9)
        assert entry.classical_ci == pytest.approx(tuple(map(float, classical)), abs=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_ppi_mean_equals_ppi_mean_ci_on_numbers(seed: int) -> None:
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(100 + seed)
    n, N = int(rng.integers(5, 400)), int(rng.integers(1, 5000))
    truth = rng.normal(3, 1, n + N)
    prediction = truth * rng.uniform(-0.5, 1.5) + rng.normal(0, rng.uniform(0.1, 2), n + N)
    result = ppi_mean(truth[:n], prediction[:n], prediction[n:], confidence=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high = ppi_py.ppi_mean_ci(truth[:n], prediction[:n], prediction[n:], alpha=0.1)
        fixed = ppi_py.ppi_mean_ci(truth[:n], prediction[:n], prediction[n:], alpha=0.1, lam=1)
    assert result.ci == pytest.approx((low[0], high[0]), abs=1e-9)
    pinned = ppi_mean(truth[:n], prediction[:n], prediction[n:], confidence=0.9, lam=1.0)
    assert pinned.ci == pytest.approx((fixed[0][0], fixed[1][0]), abs=1e-9)


def test_sets_and_agreement_on_the_labelled_items() -> None:
    result = ppi_prevalence(*read("ppi_small.csv"), gold="ann", model="llm")
    agreement = result.agreement
    assert agreement.n_items == 40
    assert agreement.domain == ("ham", "other", "spam")
    assert int(agreement.confusion.sum()) == 40
    assert agreement.confusion[:, 1].sum() == 0  # the model never says "other"
    payload = result.to_json()
    assert set(payload["categories"]) == {"ham", "other", "spam"}
    assert set(payload["categories"]["ham"]) >= {"estimate", "ci", "classical_ci"}
    json.dumps(payload, allow_nan=False)


def test_accuracy_and_kappa_intervals_equal_statsmodels() -> None:
    # docs/references.md#statsmodels-wilson-kappa
    proportion = pytest.importorskip("statsmodels.stats.proportion")
    inter_rater = pytest.importorskip("statsmodels.stats.inter_rater")
    table = np.array([[20, 5, 1], [4, 30, 2], [0, 3, 10]])
    agreement = model_agreement(table)
    low, high = proportion.proportion_confint(60, 75, alpha=0.05, method="wilson")
    assert agreement.accuracy == 60 / 75
    assert agreement.accuracy_ci == pytest.approx((low, high), abs=1e-12)
    kappa = inter_rater.cohens_kappa(table)  # 95% interval
    assert agreement.kappa == pytest.approx(kappa.kappa, abs=1e-12)
    assert agreement.kappa_ci == pytest.approx((kappa.kappa_low, kappa.kappa_upp), abs=1e-12)
    # statsmodels' Wilson interval of 7 of 10 (the doctest of wilson_interval).
    assert wilson_interval(7, 10) == pytest.approx(
        proportion.proportion_confint(7, 10, method="wilson"), abs=1e-12
    )


def test_refusals() -> None:
    items, coders, labels = read("ppi_small.csv")
    with pytest.raises(ValueError, match="gold coder 'bob' labelled no item"):
        ppi_prevalence(items, coders, labels, gold="bob", model="llm")
    with pytest.raises(ValueError, match="at least two items labelled by both"):
        ppi_prevalence(["a", "a", "b"], ["h", "m", "m"], ["x", "x", "y"], gold="h", model="m")
    with pytest.raises(ValueError, match="labelled by the model alone"):
        ppi_prevalence(
            ["a", "a", "b", "b"], ["h", "m", "h", "m"], ["x", "x", "y", "x"], gold="h", model="m"
        )


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m metrics ppi ARGS`` in this process (the exit code and both streams)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["ppi", *args])
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def test_python_m_metrics_runs_the_command() -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics",
            "ppi",
            str(DATA / "ppi_small.csv"),
            "--gold",
            "ann",
            "--model",
            "llm",
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["categories"]


def test_cli_json_contract() -> None:
    completed = run_cli(str(DATA / "ppi_small.csv"), "--gold", "ann", "--model", "llm", "--json")
    assert completed.returncode == 0, completed.stderr
    result = json.loads(completed.stdout)
    ham = result["categories"]["ham"]
    assert ham["estimate"] == pytest.approx(0.6044686873452059, abs=1e-12)
    assert ham["ci"] == pytest.approx([0.47873813744726446, 0.7301992372431473], abs=1e-12)
    assert ham["classical_ci"] == pytest.approx([0.5021883054602991, 0.7978116945397009])
    table = run_cli(str(DATA / "ppi_small.csv"), "--gold", "ann", "--model", "llm")
    assert table.returncode == 0
    assert "40 items labelled by both" in table.stdout


def test_cli_bad_input_exits_2(tmp_path: Path) -> None:
    completed = run_cli(str(DATA / "ppi_small.csv"), "--gold", "bob", "--model", "llm")
    assert completed.returncode == 2
    assert "--gold 'bob'" in completed.stderr
    broken = tmp_path / "broken.csv"
    broken.write_text("item,coder,label\n1,ann,x\n1,llm,\n", encoding="utf-8")
    completed = run_cli(str(broken), "--gold", "ann", "--model", "llm")
    assert completed.returncode == 2
    assert "line 3, field 'label'" in completed.stderr
    completed = run_cli(
        str(DATA / "ppi_small.csv"), "--gold", "ann", "--model", "llm", "--confidence", "2"
    )
    assert completed.returncode == 2
    assert "confidence" in completed.stderr
