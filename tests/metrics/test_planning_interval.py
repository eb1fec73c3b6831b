"""The interval a plan simulates is the report's: ABC end points against the BCa bootstrap.

``metrics.uncertainty.abc`` computes, without resampling, the end points the report's BCa
interval approaches with many replicates (DiCiccio & Efron 1992). On data sets from the
nominal model (true alpha 0.7, categories 0.5/0.3/0.2) the ABC lower bound is compared with
the report's own BCa lower bound (``metrics.uncertainty.bootstrap.bootstrap``, 4,000
replicates, so that its Monte-Carlo error, about 0.003 here, stays below the tolerance) and
with the normal-delta bound the planner used before. Figures: docs/planning.md, "Which
interval", and docs/references.md#plan-interval.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics import (
    Decomposition,
    decompose_cohen_kappa,
    decompose_fleiss_pi,
    decompose_krippendorff_alpha,
)
from metrics.planning import simulated_rounds
from metrics.uncertainty import abc
from metrics.uncertainty.abc import abc_interval, abc_limits
from metrics.uncertainty.bootstrap import bootstrap

PRIOR = np.array([0.5, 0.3, 0.2])


def generate(rng: np.random.Generator, n: int, coders: int, alpha: float = 0.7) -> np.ndarray:
    true = rng.choice(3, size=n, p=PRIOR)
    keep = rng.random((coders, n)) < math.sqrt(alpha)
    other = rng.choice(3, size=(coders, n), p=PRIOR)
    return np.where(keep, true[None, :], other).astype(float)


CASES = [
    (decompose_krippendorff_alpha, 3, 40),
    (decompose_krippendorff_alpha, 3, 200),
    (decompose_cohen_kappa, 2, 60),
    (decompose_fleiss_pi, 4, 60),
]


def test_abc_lower_bounds_equal_the_reports_bca_within_its_monte_carlo_error() -> None:
    rng = np.random.default_rng(5)
    abc_gaps, normal_gaps = [], []
    for decompose, coders, n in CASES:
        for draw in range(2):
            decomposition = decompose(generate(rng, n, coders))  # type: ignore[operator]
            report = bootstrap(decomposition, replicates=4000, seed=draw)
            low, high = abc_interval(decomposition, confidence=0.95)
            estimate, se = simulated_rounds(decomposition, np.ones((1, n)))
            normal = float(estimate[0] - 1.959964 * se[0])
            # Tolerance: the BCa bound's own Monte-Carlo error at 4,000 replicates (≈ 0.003)
            # plus the O(n^-3/2) gap between ABC and ideal BCa (≤ 0.008 observed at 40 items).
            assert abs(low - report.low) <= 0.012, (decompose, n, low, report.low)
            assert abs(high - report.high) <= 0.015, (decompose, n, high, report.high)
            abc_gaps.append(abs(low - report.low))
            normal_gaps.append(normal - report.low)
    # The normal bound sits above the report's (alpha is skewed to the left); ABC does not.
    assert float(np.mean(abc_gaps)) < float(np.mean(normal_gaps))
    assert float(np.mean(normal_gaps)) > 0.0


def test_abc_of_many_rounds_equals_abc_of_each_round_alone() -> None:
    # Vectorised over rounds: a block of rounds gives each round the bounds it gets alone.
    decomposition = decompose_krippendorff_alpha(generate(np.random.default_rng(1), 80, 3))
    weights = np.random.default_rng(2).multinomial(80, np.full(80, 1 / 80), size=5)
    levels = np.array([0.025, 0.975])
    together = abc_limits(decomposition, weights.astype(float), levels)
    for row, expected in zip(weights, together, strict=True):
        single = abc_limits(decomposition, row[None, :].astype(float), levels)
        np.testing.assert_allclose(single[0], expected, rtol=1e-9)


def test_wide_statistics_take_one_direction_per_item_with_the_same_bounds(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Σ_u w_u ẗ_u = n² tr(H C): along C's eigenvectors (k directions) or along every item's
    # own direction n s_u − T; the two sums are the same number, so are the bounds.
    decomposition = decompose_cohen_kappa(generate(np.random.default_rng(3), 60, 2))
    weights = np.random.default_rng(4).multinomial(60, np.full(60, 1 / 60), size=4).astype(float)
    levels = np.array([0.025, 0.975])
    by_eigenvectors = abc_limits(decomposition, weights, levels)
    monkeypatch.setattr(abc, "_MAX_EIGEN_COLUMNS", 0)
    by_items = abc_limits(decomposition, weights, levels)
    np.testing.assert_allclose(by_items, by_eigenvectors, atol=1e-6)


def test_a_round_without_spread_has_its_estimate_as_both_bounds() -> None:
    # Every item has the same statistics row: every bootstrap replicate equals the estimate,
    # so the report's interval is [estimate, estimate]; ABC says the same.
    ratio = Decomposition("ao", np.array([[1.0, 1.0]] * 30), lambda t: t[..., 0] / t[..., 1])
    assert abc_interval(ratio) == pytest.approx((1.0, 1.0))
