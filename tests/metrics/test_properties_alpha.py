"""Properties of alpha that hold on any data (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from metrics.coefficients.alpha import alpha_individual, krippendorff_alpha

LEVELS = ["nominal", "ordinal", "interval", "ratio"]


@st.composite
def reliability_matrices(draw: st.DrawFn, min_values: int = 2) -> np.ndarray:
    n_coders = draw(st.integers(2, 5))
    n_items = draw(st.integers(2, 15))
    n_values = draw(st.integers(min_values, 6))
    cells = draw(
        st.lists(
            st.one_of(st.none(), st.integers(1, n_values)),
            min_size=n_coders * n_items,
            max_size=n_coders * n_items,
        )
    )
    values = np.array([np.nan if cell is None else cell for cell in cells], dtype=float)
    return values.reshape(n_coders, n_items)


def alpha_or_none(values: np.ndarray, distance: str = "nominal") -> float | None:
    try:
        return krippendorff_alpha(values, distance=distance).value
    except ValueError:
        return None


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reliability_matrices(), st.permutations(range(1, 7)))
def test_nominal_alpha_is_invariant_under_relabelling(
    values: np.ndarray, permutation: list[int]
) -> None:
    value = alpha_or_none(values)
    assume(value is not None)
    mapping = np.array([0, *permutation], dtype=float)
    relabelled = np.where(np.isnan(values), np.nan, mapping[np.nan_to_num(values).astype(int)])
    assert alpha_or_none(relabelled) == pytest.approx(value, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(reliability_matrices(), st.randoms(use_true_random=False), st.sampled_from(LEVELS))
def test_alpha_is_symmetric_in_coders(values: np.ndarray, random, level: str) -> None:  # type: ignore[no-untyped-def]
    value = alpha_or_none(values, level)
    assume(value is not None)
    order = list(range(values.shape[0]))
    random.shuffle(order)
    assert alpha_or_none(values[order], level) == pytest.approx(value, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(1, 5), min_size=2, max_size=30), st.integers(2, 6))
def test_perfect_agreement_gives_one(truth: list[int], n_coders: int) -> None:
    assume(len(set(truth)) > 1)
    values = np.tile(np.array(truth, dtype=float), (n_coders, 1))
    for level in LEVELS:
        assert krippendorff_alpha(values, distance=level).value == 1.0
    assert alpha_individual(values).value == 1.0


@settings(max_examples=60, deadline=None)
@given(reliability_matrices(), st.sampled_from(LEVELS))
def test_alpha_is_at_most_one_and_disagreements_non_negative(
    values: np.ndarray, level: str
) -> None:
    try:
        result = krippendorff_alpha(values, distance=level)
    except ValueError:
        return
    assert result.value <= 1.0 + 1e-12
    assert result.observed >= 0.0
    assert result.expected > 0.0


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("seed", range(3))
def test_random_labels_give_alpha_near_zero(level: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    values = rng.integers(1, 6, size=(5, 4000)).astype(float)
    values[rng.random(values.shape) < 0.2] = np.nan
    assert abs(krippendorff_alpha(values, distance=level).value) < 0.02
    assert abs(alpha_individual(values, distance=level).value) < 0.02
