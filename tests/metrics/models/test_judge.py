"""Judge diagnostics: calibration (scikit-learn's quantile bins,
docs/references.md#sklearn-calibration-quantile), self-consistency (``krippendorff.alpha``,
docs/references.md#krippendorff-self-consistency) and the combined report."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from metrics import ReliabilityData
from metrics.models import (
    alt_test,
    calibration,
    judge_report,
    self_consistency,
    self_consistency_on_data,
)

DATA = Path(__file__).resolve().parent / "data"


def test_ece_of_a_hand_worked_example() -> None:
    # Six labels, three equal-mass bins (edges at the 0, 1/3, 2/3, 1 quantiles):
    # {0.55, 0.6}: 1 of 2 correct, mean 0.575 -> |0.5 - 0.575| = 0.075
    # {0.7, 0.75}: 2 of 2, mean 0.725          -> 0.275
    # {0.9, 0.95}: 1 of 2, mean 0.925          -> 0.425
    # ECE = (0.075 + 0.275 + 0.425) / 3 = 0.258333...
    result = calibration(
        [0.6, 0.55, 0.9, 0.7, 0.95, 0.75], [True, False, True, True, False, True], bins=3
    )
    assert result.ece == pytest.approx(0.775 / 3, abs=1e-12)
    assert [b.count for b in result.bins] == [2, 2, 2]
    assert [b.mean_confidence for b in result.bins] == pytest.approx([0.575, 0.725, 0.925])
    assert [b.accuracy for b in result.bins] == pytest.approx([0.5, 1.0, 0.5])
    assert result.accuracy == pytest.approx(4 / 6)


@pytest.mark.parametrize("seed", range(6))
def test_bins_equal_sklearn_calibration_curve_quantile(seed: int) -> None:
    sk = pytest.importorskip("sklearn.calibration")
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 2000))
    confidence = np.round(rng.beta(5, 2, n), int(rng.integers(1, 4)))  # rounding makes ties
    correct = rng.random(n) < confidence**1.5
    bins = int(rng.integers(2, 15))
    result = calibration(confidence, correct, bins=bins)
    prob_true, prob_pred = sk.calibration_curve(
        correct, confidence, n_bins=bins, strategy="quantile"
    )
    assert [b.accuracy for b in result.bins] == pytest.approx(prob_true.tolist(), abs=1e-12)
    assert [b.mean_confidence for b in result.bins] == pytest.approx(prob_pred.tolist(), abs=1e-12)
    assert sum(b.count for b in result.bins) == n


def test_calibration_refuses_bad_input() -> None:
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        calibration([0.5, 1.2], [True, False])
    with pytest.raises(ValueError, match="one per label"):
        calibration([0.5], [True, False])


def test_self_consistency_equals_krippendorff() -> None:
    krippendorff = pytest.importorskip("krippendorff")
    rng = np.random.default_rng(5)
    first = rng.integers(0, 4, 60)
    second = np.where(rng.random(60) < 0.8, first, rng.integers(0, 4, 60))
    items = list(range(60)) * 2
    runs = ["v1"] * 60 + ["v2"] * 60
    result = self_consistency(items, runs, [*first, *second], replicates=200)
    expected = krippendorff.alpha(reliability_data=[first, second], level_of_measurement="nominal")
    assert result.alpha == pytest.approx(expected, abs=1e-12)
    assert result.identical == pytest.approx(np.mean(first == second))
    assert result.ci is not None
    assert result.ci[0] < result.alpha < result.ci[1]
    assert result.n_items == 60


def read(name: str) -> tuple[list[str], list[str], list[str]]:
    with (DATA / name).open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    return [r["item"] for r in rows], [r["coder"] for r in rows], [r["label"] for r in rows]


def test_judge_report_gathers_every_diagnostic() -> None:
    items, coders, labels = read("alt_nominal.csv")
    # A second run of the model: its labels again, two of them changed.
    rerun = [(i, v) for i, c, v in zip(items, coders, labels, strict=True) if c == "llm"]
    items2 = items + [i for i, _ in rerun]
    coders2 = coders + ["llm-v2"] * len(rerun)
    labels2 = labels + [("neu" if k in (3, 9) else v) for k, (_, v) in enumerate(rerun)]
    rng = np.random.default_rng(0)
    confidences = np.where(np.array(coders2) == "llm", rng.uniform(0.4, 1, len(items2)), np.nan)
    report = judge_report(
        items2,
        coders2,
        labels2,
        model="llm",
        repeat="llm-v2",
        gold="h1",
        confidences=confidences,
        replicates=100,
        bins=5,
    )
    assert report["humans"] == ["h1", "h2", "h3", "h4"]
    # The alt-test part is the plain alt_test's (reference values in test_alt_test.py).
    assert report["alt_test"] == alt_test(items, coders, labels, model="llm").to_json()
    assert set(report["against_humans"]) == {"h1", "h2", "h3", "h4"}
    # h4 labelled i00–i19; the model left out i05 and i17 (the reference counts 18 too).
    assert report["against_humans"]["h4"]["n_items"] == 18
    assert report["ppi"]["n_unlabelled"] > 0
    assert report["self_consistency"]["n_items"] == len(rerun)
    assert report["self_consistency"]["identical"] < 1
    assert report["calibration"]["reference"].startswith("the gold coder")
    assert sum(b["count"] for b in report["calibration"]["bins"]) == report["calibration"]["n"]
    json.dumps(report, allow_nan=False)


def test_judge_report_names_a_refused_alt_test() -> None:
    items, coders, labels = read("alt_nominal.csv")
    report = judge_report(items, coders, labels, model="llm", min_items_per_human=500)
    assert "No human coder qualifies" in report["alt_test"]["refused"]


def test_self_consistency_on_data_leaves_the_other_coders_out() -> None:
    # The doctest's runs (alpha 80/99 by hand, krippendorff 0.9.0: docs/references.md) among
    # a person's labels, which must not count.
    first, second = list("aabbabbaab"), list("aabbabbabb")
    data = ReliabilityData.from_long(
        list(range(10)) * 3, ["r1"] * 10 + ["r2"] * 10 + ["person"] * 10,
        first + second + list("bbbbbbbbbb"),
    )  # fmt: skip
    result = self_consistency_on_data(data, runs=["r1", "r2"], replicates=0)
    assert result.alpha == pytest.approx(80 / 99, abs=1e-12)
    assert result.runs == ("r1", "r2")
    assert result.identical == pytest.approx(0.9)
