"""Benchmark membership probabilities (Gwet 2014, ch. 6) and the later-round probability.

Published values: irrCAC 0.4.4's example and its test suite, and the R irrCAC vignette;
live: the installed irrCAC (a test extra) on the same and further inputs.
docs/references.md#irrcac-benchmark-examples
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics.coefficients.alpha import decompose_krippendorff_alpha
from metrics.uncertainty.benchmarks import (
    BENCHMARK_SCALES,
    benchmark_probabilities,
    benchmark_replicates,
    paired_difference_replicates,
    probability_later_higher,
)
from metrics.uncertainty.bootstrap import QUANTILES, bootstrap_difference

irrcac_benchmark = pytest.importorskip("irrCAC.benchmark")

# -- published values -------------------------------------------------------------------------

# irrCAC 0.4.4, test/unit/irrCAC/benchmark/test_benchmark.py and the Benchmark docstring:
# Benchmark(coeff=0.67, se=0.15), CumProb rounded to 5 decimals.
# docs/references.md#irrcac-benchmark-examples
IRRCAC_067 = {
    "landis_koch": [0.18168, 0.67511, 0.96356, 0.99912, 1.0, 1.0],
    "altman": [0.18168, 0.67511, 0.96356, 0.99912, 1.0],
    "fleiss": [0.28699, 0.96356, 1.0],
}


@pytest.mark.parametrize("scale", sorted(IRRCAC_067))
def test_irrcac_published_example(scale: str) -> None:
    result = benchmark_probabilities(0.67, 0.15, scale=scale)  # type: ignore[arg-type]
    assert [round(p, 5) for p in result.cumulative] == IRRCAC_067[scale]
    assert result.attained == ("intermediate to good" if scale == "fleiss" else "moderate")
    assert sum(result.probabilities) == pytest.approx(1.0, abs=1e-12)


def test_r_irrcac_vignette_qualifies_ac1_of_raw4raters() -> None:
    # R irrCAC, vignettes/benchmarking.Rmd: AC1 = 0.775 (se 0.14295) on cac.raw4raters is
    # "Moderate" on Landis-Koch and Altman, "Intermediate to Good" on Fleiss.
    # docs/references.md#irrcac-benchmark-examples and #irrcac-raw-4raters (AC1 0.7754440681)
    ac1, se = 0.7754440681, 0.14295
    assert benchmark_probabilities(ac1, se, scale="landis_koch").attained == "moderate"
    assert benchmark_probabilities(ac1, se, scale="altman").attained == "moderate"
    fleiss = benchmark_probabilities(ac1, se, scale="fleiss")
    assert fleiss.attained == "intermediate to good"
    # irrCAC 0.4.4 prints CumProb [0.54415, 0.99542, 1.0] for these inputs.
    assert [round(p, 5) for p in fleiss.cumulative] == [0.54415, 0.99542, 1.0]


def test_summary_names_the_attained_band_and_the_one_above() -> None:
    result = benchmark_probabilities(0.67, 0.15)
    assert result.summary == (
        "moderate (landis_koch scale): moderate or better with probability 0.964; "
        "substantial or better 0.675"
    )
    assert result.labels[0] == "almost perfect"
    assert result.bounds[-1] == (-1.0, 0.0)
    assert (result.method, result.estimate, result.se) == ("normal", 0.67, 0.15)


# -- live irrCAC ------------------------------------------------------------------------------

LIVE_INPUTS = [(0.67, 0.15), (0.775, 0.143), (0.31, 0.08), (0.95, 0.02), (-0.2, 0.3), (1.0, 0.1)]
IRRCAC_METHODS = {"landis_koch": "landis_koch", "altman": "altman", "fleiss": "fleiss"}


@pytest.mark.parametrize(("estimate", "se"), LIVE_INPUTS)
def test_matches_irrcac_live(estimate: float, se: float) -> None:
    peer = irrcac_benchmark.Benchmark(coeff=estimate, se=se)
    for scale, method in IRRCAC_METHODS.items():
        expected = getattr(peer, method)()["CumProb"]
        ours = benchmark_probabilities(estimate, se, scale=scale)  # type: ignore[arg-type]
        assert ours.cumulative == pytest.approx(expected, abs=5e-6), scale
    # Krippendorff's and Koo & Li's scales through irrCAC's custom-scale interface.
    for scale in ("krippendorff", "koo_li"):
        bands = BENCHMARK_SCALES[scale]
        custom = {
            "lb": [b.lower for b in bands],
            "ub": [b.upper for b in bands],
            "interp": [b.label for b in bands],
            "scale_name": scale,
        }
        expected = peer.interpret(custom)["CumProb"]
        ours = benchmark_probabilities(estimate, se, scale=scale)  # type: ignore[arg-type]
        assert ours.cumulative == pytest.approx(expected, abs=5e-6), scale


# -- bootstrap replicates ---------------------------------------------------------------------


def test_replicates_shares_and_cut_ownership() -> None:
    # One replicate on each Landis & Koch cut: 0 is slight, 0.2 slight, 0.4 fair, 0.6
    # moderate, 0.8 substantial, 1 almost perfect; -1.5 is poor.
    cuts = [1.0, 0.8, 0.6, 0.4, 0.2, 0.0, -1.5]
    lk = benchmark_replicates(cuts)
    assert lk.probabilities == pytest.approx([1 / 7, 1 / 7, 1 / 7, 1 / 7, 2 / 7, 1 / 7])
    # Fleiss: 0.4 and 0.75 are both intermediate to good.
    fleiss = benchmark_replicates([0.4, 0.75, 0.76, 0.39], scale="fleiss")
    assert fleiss.probabilities == pytest.approx([0.25, 0.5, 0.25])
    # Krippendorff: 0.667 is tentative, 0.8 good.
    kripp = benchmark_replicates([0.667, 0.8, 0.6669], scale="krippendorff")
    assert kripp.probabilities == pytest.approx([1 / 3, 1 / 3, 1 / 3])
    # Koo & Li: 0.5 moderate, 0.75 good, 0.9 good.
    koo_li = benchmark_replicates([0.5, 0.75, 0.9, 0.91], scale="koo_li")
    assert koo_li.probabilities == pytest.approx([0.25, 0.5, 0.25, 0])
    # Altman: 0.2 is poor.
    altman = benchmark_replicates([0.2, 0.21], scale="altman")
    assert altman.probabilities == pytest.approx([0, 0, 0, 0.5, 0.5])


def test_replicates_95_rule() -> None:
    values = [0.85] * 60 + [0.7] * 34 + [0.5] * 6  # substantial or better: 0.94
    result = benchmark_replicates(values)
    assert result.cumulative == pytest.approx([0.6, 0.94, 1, 1, 1, 1])
    assert result.attained == "moderate"
    assert benchmark_replicates(values, threshold=0.9).attained == "substantial"
    assert (result.method, result.n_replicates, result.estimate) == ("replicates", 100, None)


def test_replicates_from_a_normal_sample_approach_gwets_probabilities() -> None:
    # Draws from N(0.67, 0.15) truncated to [-1, 1]: shares within 4 binomial standard
    # errors of the truncated-normal probabilities (irrCAC's 0.18168, 0.67511, 0.96356, ...).
    rng = np.random.default_rng(7)
    draws = rng.normal(0.67, 0.15, size=400_000)
    draws = draws[(draws >= -1) & (draws <= 1)]
    result = benchmark_replicates(draws)
    expected = IRRCAC_067["landis_koch"]
    tolerance = 4 * math.sqrt(0.25 / draws.size)
    assert result.cumulative == pytest.approx(expected, abs=tolerance)


def test_replicates_nan_policy() -> None:
    with pytest.raises(ValueError, match="1 of 3 replicates are NaN"):
        benchmark_replicates([0.5, math.nan, 0.7])
    result = benchmark_replicates([0.5, math.nan, 0.7], nan_policy="omit")
    assert (result.n_replicates, result.n_omitted) == (2, 1)


# -- later round higher -------------------------------------------------------------------------


def test_probability_later_higher_counts_ties_half() -> None:
    result = probability_later_higher([0.1] * 7 + [0.0] * 2 + [-0.1])
    assert (result.share_higher, result.share_tied, result.share_lower) == (0.7, 0.2, 0.1)
    assert result.probability == pytest.approx(0.8)
    assert result.summary == (
        "the later round is higher with probability 0.80 (10 paired bootstrap replicates)"
    )


# Two rounds on the same twelve items, two coders each (rows: coders); the later round
# agrees on more items.
EARLIER = [[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3], [1, 3, 3, 2, 2, 1, 1, 3, 3, 1, 1, 3]]
LATER = [[1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3], [1, 2, 3, 1, 2, 1, 1, 2, 3, 1, 2, 2]]


def test_paired_replicates_are_bootstrap_differences_replicates() -> None:
    later = decompose_krippendorff_alpha(LATER)
    earlier = decompose_krippendorff_alpha(EARLIER)
    differences = paired_difference_replicates(later, earlier, replicates=500, seed=3)
    summary = bootstrap_difference(
        later, earlier, replicates=500, seed=3, method="percentile", minimums=(0.0,)
    )
    valid = differences[~np.isnan(differences)]
    assert summary.n_degenerate == differences.size - valid.size
    assert list(summary.quantiles.values()) == pytest.approx(
        list(np.quantile(valid, QUANTILES)), abs=1e-15
    )
    result = probability_later_higher(differences, nan_policy="omit")
    assert result.share_lower == pytest.approx(summary.prob_below[0.0], abs=1e-15)
    assert result.probability > 0.9


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: benchmark_probabilities(1.2, 0.1), "at most 1"),
        (lambda: benchmark_probabilities(0.5, 0.0), "positive"),
        (lambda: benchmark_probabilities(math.nan, 0.1), "finite"),
        (lambda: benchmark_probabilities(0.5, 0.1, scale="cicchetti"), "Unknown scale"),
        (lambda: benchmark_probabilities(0.5, 0.1, threshold=0.0), "threshold"),
        (lambda: benchmark_probabilities(-40.0, 0.1), "no probability on"),
        (lambda: benchmark_replicates([]), "non-empty"),
        (lambda: benchmark_replicates([0.5, 1.5]), "at most 1"),
        (lambda: benchmark_replicates([0.5, math.inf]), "finite"),
        (lambda: benchmark_replicates([math.nan], nan_policy="omit"), "Every replicate"),
        (lambda: probability_later_higher([0.1], nan_policy="drop"), "nan_policy"),  # type: ignore[arg-type]
    ],
)
def test_bad_input(call: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()  # type: ignore[operator]


def test_paired_replicates_need_the_same_items() -> None:
    later = decompose_krippendorff_alpha(LATER)
    fewer = decompose_krippendorff_alpha([row[:10] for row in EARLIER])
    with pytest.raises(ValueError, match="same items"):
        paired_difference_replicates(later, fewer)


def test_summary_when_only_the_lowest_band_is_attained() -> None:
    result = benchmark_probabilities(0.67, 0.15, scale="krippendorff")
    assert result.attained == "discard"
    assert result.summary.startswith(
        "discard (krippendorff scale): no higher band reaches probability 0.95; "
        "tentative or better 0."
    )
