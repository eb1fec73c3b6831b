"""Coverage by simulation: intervals must cover the known population coefficient ~95% of the time.

Generating model (one study): each item has a true category drawn from ``p``; each coder
reports it with probability ``r`` and otherwise a category drawn from ``p`` again. Every coder's
values are then distributed as ``p``, two coders agree with probability
``r² + (1 - r²) Σ p²`` and chance agreement is ``Σ p²``, so the population value of
Krippendorff's alpha, Scott's / Fleiss' pi and Cohen's kappa is ``r²``.

A 95% interval is accepted when it covers the truth in 90–99% of the simulated studies (the
binomial spread of 200 studies at 95% is ±1.5%; small-sample bias of the estimators and
Hughes' (2022) observation that the item bootstrap under-covers for small n account for the
rest of the band).
"""

from __future__ import annotations

import numpy as np
import pytest

from metrics.coefficients.alpha import decompose_krippendorff_alpha
from metrics.data import ReliabilityData
from metrics.uncertainty.analytic import cohen_kappa_se, linearized_se
from metrics.uncertainty.bootstrap import bootstrap_chunk, bootstrap_combine

PREVALENCE = np.array([0.5, 0.3, 0.2])
RELIABILITY = 0.8
TRUTH = RELIABILITY**2  # population alpha = pi = kappa under the model


def simulate(rng: np.random.Generator, n_items: int, n_coders: int) -> np.ndarray:
    """Coders × items codes from the generating model (0..2)."""
    truth = rng.choice(3, n_items, p=PREVALENCE)
    correct = rng.random((n_coders, n_items)) < RELIABILITY
    return np.where(correct, truth, rng.choice(3, (n_coders, n_items), p=PREVALENCE))


def test_population_value_of_the_model_is_r_squared() -> None:
    # A very large study: alpha is within sampling error of r² = 0.64.
    codes = simulate(np.random.default_rng(0), 200_000, 3)
    alpha = float(decompose_krippendorff_alpha(codes.astype(float)).evaluate())
    assert alpha == pytest.approx(TRUTH, abs=0.005)


def _bootstrap_coverage(studies: int, replicates: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    covered = {"bca": 0, "percentile": 0}
    for study in range(studies):
        decomposition = decompose_krippendorff_alpha(simulate(rng, 80, 3).astype(float))
        values = bootstrap_chunk(decomposition, seed=study, start=0, stop=replicates)
        for method in covered:
            result = bootstrap_combine(
                decomposition, [values], seed=study, replicates=replicates, method=method
            )
            covered[method] += result.low <= TRUTH <= result.high
    return {method: count / studies for method, count in covered.items()}


def test_bootstrap_intervals_for_alpha_cover_the_truth() -> None:
    # 200 studies of 80 items × 3 coders, 150 replicates each (kept small for speed; the
    # slow test below uses the default 1,000).
    coverage = _bootstrap_coverage(studies=200, replicates=150, seed=2026)
    for method, share in coverage.items():
        assert 0.90 <= share <= 0.99, (method, share)


@pytest.mark.slow
def test_bootstrap_intervals_for_alpha_cover_the_truth_with_default_replicates() -> None:
    coverage = _bootstrap_coverage(studies=200, replicates=1000, seed=7)
    for method, share in coverage.items():
        assert 0.90 <= share <= 0.99, (method, share)


def test_analytic_kappa_and_fleiss_intervals_cover_the_truth() -> None:
    rng = np.random.default_rng(11)
    studies = 400
    cohen = fleiss = 0
    for _ in range(studies):
        codes = simulate(rng, 100, 2)
        cohen_result = cohen_kappa_se(ReliabilityData.from_matrix(codes))
        cohen += cohen_result.low <= TRUTH <= cohen_result.high
        three = simulate(rng, 60, 3).astype(float)
        three[rng.random(three.shape) < 0.15] = np.nan  # missing values
        fleiss_result = linearized_se(ReliabilityData.from_matrix(three), coefficient="fleiss")
        fleiss += fleiss_result.low <= TRUTH <= fleiss_result.high
    assert 0.90 <= cohen / studies <= 0.99
    assert 0.90 <= fleiss / studies <= 0.99
