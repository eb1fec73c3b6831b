"""Item bootstrap over a Decomposition: reproducibility, chunking, intervals, degeneracy."""

from __future__ import annotations

import importlib
import itertools

import numpy as np
import pytest
from scipy import sparse, special, stats

from metrics import Decomposition
from metrics.data import ReliabilityData
from metrics.uncertainty.bootstrap import (
    DEGENERATE_POLICY,
    QUANTILES,
    BootstrapResult,
    bootstrap,
    bootstrap_chunk,
    bootstrap_combine,
    bootstrap_difference,
    bootstrap_difference_unpaired,
    jackknife_values,
)


def _ratio(totals: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(totals[..., 1] > 0, totals[..., 0] / totals[..., 1], np.nan)


def observed_agreement(agree: np.ndarray, pairs: np.ndarray | None = None) -> Decomposition:
    """Observed agreement as a decomposition: stats = [agreeing pairs, pairs] per item."""
    agree = np.asarray(agree, dtype=np.float64)
    pairs = np.ones_like(agree) if pairs is None else np.asarray(pairs, dtype=np.float64)
    return Decomposition("ao", np.column_stack([agree, pairs]), _ratio)


def nominal_alpha(codes: np.ndarray, n_values: int) -> Decomposition:
    """Krippendorff's nominal alpha from a coders × items code matrix (-1 missing).

    stats = [D_o numerator of the item, value counts n_uc] for pairable items;
    alpha = 1 - (n - 1) * sum_u D_u / (n^2 - sum_c n_c^2) (Krippendorff 2004, nominal).
    """
    n_items = codes.shape[1]
    counts = np.zeros((n_items, n_values))
    coder, item = np.nonzero(codes >= 0)
    np.add.at(counts, (item, codes[coder, item]), 1.0)
    m = counts.sum(axis=1)
    counts, m = counts[m >= 2], m[m >= 2]
    disagreement = (m**2 - (counts**2).sum(axis=1)) / (m - 1)

    def finalize(totals: np.ndarray) -> np.ndarray:
        marginals = totals[..., 1:]
        n = marginals.sum(axis=-1)
        expected = n**2 - (marginals**2).sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(expected > 0, 1 - (n - 1) * totals[..., 0] / expected, np.nan)

    return Decomposition("alpha", np.column_stack([disagreement, counts]), finalize)


@pytest.fixture
def ao70() -> Decomposition:
    # Artstein & Poesio (2008) example 1: 100 items, 70 agreements (A_o = 0.7;
    # docs/references.md#ap2008-table1).
    return observed_agreement(np.r_[np.ones(70), np.zeros(30)])


@pytest.fixture
def alpha_data() -> Decomposition:
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 300)
    codes = np.where(rng.random((4, 300)) < 0.6, truth, rng.integers(0, 3, (4, 300)))
    codes[rng.random((4, 300)) < 0.1] = -1
    return nominal_alpha(codes, 3)


def test_nominal_alpha_helper_matches_krippendorff_package() -> None:
    krippendorff = importlib.import_module("krippendorff")
    rng = np.random.default_rng(2)
    codes = rng.integers(0, 4, (3, 50))
    codes[rng.random((3, 50)) < 0.2] = -1
    reliability = np.where(codes >= 0, codes, np.nan)
    expected = krippendorff.alpha(reliability, level_of_measurement="nominal")
    assert float(nominal_alpha(codes, 4).evaluate()) == pytest.approx(expected, abs=1e-12)


# -- reproducibility and chunking ----------------------------------------------------------


def test_same_seed_gives_the_identical_result(alpha_data: Decomposition) -> None:
    first = bootstrap(alpha_data, replicates=500, seed=42)
    second = bootstrap(alpha_data, replicates=500, seed=42)
    assert first == second
    assert (first.low, first.high) == (second.low, second.high)


def test_different_seeds_give_different_replicates(alpha_data: Decomposition) -> None:
    a = bootstrap_chunk(alpha_data, seed=1, start=0, stop=50)
    b = bootstrap_chunk(alpha_data, seed=2, start=0, stop=50)
    assert not np.array_equal(a, b)


@pytest.mark.parametrize(
    "bounds",
    [
        [0, 1000],
        [0, 1, 2, 3, 1000],
        [0, 137, 274, 411, 548, 685, 822, 959, 1000],
        [0, 63, 64, 65, 127, 128, 999, 1000],
    ],
)
def test_any_chunking_equals_the_whole_bit_for_bit(
    alpha_data: Decomposition, bounds: list[int]
) -> None:
    whole = bootstrap(alpha_data, replicates=1000, seed=7)
    chunks = [
        bootstrap_chunk(alpha_data, seed=7, start=a, stop=b) for a, b in itertools.pairwise(bounds)
    ]
    combined = bootstrap_combine(alpha_data, chunks, seed=7, replicates=1000)
    assert combined == whole
    assert np.array_equal(
        np.concatenate(chunks), bootstrap_chunk(alpha_data, seed=7, start=0, stop=1000)
    )
    # The order of the chunks does not matter either.
    assert bootstrap_combine(alpha_data, chunks[::-1], seed=7, replicates=1000) == whole


def test_jackknife_slices_computed_elsewhere_give_the_same_interval_bit_for_bit(
    alpha_data: Decomposition,
) -> None:
    whole = bootstrap(alpha_data, replicates=1000, seed=7)
    chunks = [
        bootstrap_chunk(alpha_data, seed=7, start=a, stop=a + 250) for a in range(0, 1000, 250)
    ]
    n = alpha_data.n_items
    cuts = [0, n // 3, n // 3 + 1, n]
    slices = [jackknife_values(alpha_data, start=a, stop=b) for a, b in itertools.pairwise(cuts)]
    given = np.concatenate(slices)
    assert np.array_equal(given, jackknife_values(alpha_data), equal_nan=True)
    assert bootstrap_combine(alpha_data, chunks, seed=7, replicates=1000, jackknife=given) == whole


def test_leave_one_out_values_of_observed_agreement() -> None:
    # 3 agreeing items and 1 disagreeing: leaving an agreeing one out gives 2/3, the other 3/3.
    decomposition = observed_agreement(np.array([1.0, 1.0, 1.0, 0.0]))
    assert jackknife_values(decomposition).tolist() == [2 / 3, 2 / 3, 2 / 3, 1.0]
    with pytest.raises(ValueError, match="3 jackknife values for a decomposition of 4 items"):
        bootstrap_combine(
            decomposition,
            [bootstrap_chunk(decomposition, seed=0, start=0, stop=10)],
            seed=0,
            replicates=10,
            jackknife=np.zeros(3),
        )


def test_chunking_with_many_items_uses_several_blocks_and_still_agrees() -> None:
    # 150,000 items make a block hold 55 replicates (the memory bound), so the chunks below
    # cross a block boundary.
    rng = np.random.default_rng(0)
    decomposition = observed_agreement(rng.random(150_000) < 0.8)
    whole = bootstrap_chunk(decomposition, seed=5, start=0, stop=60)
    parts = [bootstrap_chunk(decomposition, seed=5, start=a, stop=a + 20) for a in (0, 20, 40)]
    assert np.array_equal(whole, np.concatenate(parts))


def test_sparse_item_statistics_give_the_same_replicates(alpha_data: Decomposition) -> None:
    as_sparse = Decomposition(
        "alpha", sparse.csr_matrix(alpha_data.item_stats), alpha_data.finalize
    )
    dense = bootstrap(alpha_data, replicates=300, seed=3)
    sparse_result = bootstrap(as_sparse, replicates=300, seed=3)
    assert sparse_result.low == pytest.approx(dense.low, abs=1e-12)
    assert sparse_result.high == pytest.approx(dense.high, abs=1e-12)
    chunks = [bootstrap_chunk(as_sparse, seed=3, start=a, stop=a + 100) for a in (0, 100, 200)]
    assert bootstrap_combine(as_sparse, chunks, seed=3, replicates=300) == sparse_result


def test_each_replicate_resamples_items_from_its_own_stream(alpha_data: Decomposition) -> None:
    n = alpha_data.n_items
    values = bootstrap_chunk(alpha_data, seed=9, start=10, stop=13)
    for offset, replicate in enumerate(range(10, 13)):
        drawn = np.random.default_rng([9, replicate]).integers(0, n, size=n)
        expected = alpha_data.finalize(alpha_data.item_stats[drawn].sum(axis=0))
        assert values[offset] == pytest.approx(float(expected), abs=1e-12)


# -- intervals ------------------------------------------------------------------------------


def test_percentile_interval_is_the_quantiles_of_the_replicates(ao70: Decomposition) -> None:
    result = bootstrap(ao70, replicates=2000, seed=0, method="percentile", confidence=0.9)
    values = bootstrap_chunk(ao70, seed=0, start=0, stop=2000)
    low, high = np.quantile(values, [0.05, 0.95])
    assert (result.low, result.high) == (low, high)
    assert result.method == "percentile"
    assert result.confidence == 0.9
    assert result.estimate == pytest.approx(0.7)
    assert result.se == pytest.approx(np.std(values, ddof=1))


def _bca_by_hand(
    decomposition: Decomposition, values: np.ndarray, confidence: float
) -> list[float]:
    """Efron (1987) BCa written out with Python loops (the jackknife deletes one row)."""
    stats_ = np.asarray(decomposition.item_stats)
    estimate = float(decomposition.evaluate())
    z0 = special.ndtri((np.sum(values < estimate) + 0.5 * np.sum(values == estimate)) / values.size)
    theta = np.array(
        [
            float(decomposition.finalize(np.delete(stats_, u, axis=0).sum(axis=0)))
            for u in range(len(stats_))
        ]
    )
    d = theta.mean() - theta
    a = np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)
    bounds = []
    for p in ((1 - confidence) / 2, (1 + confidence) / 2):
        z = stats.norm.ppf(p)
        bounds.append(
            float(np.quantile(values, stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))))
        )
    return bounds


@pytest.mark.parametrize("confidence", [0.8, 0.95, 0.99])
def test_bca_interval_matches_the_textbook_formula(
    alpha_data: Decomposition, confidence: float
) -> None:
    result = bootstrap(alpha_data, replicates=1000, seed=4, confidence=confidence)
    values = bootstrap_chunk(alpha_data, seed=4, start=0, stop=1000)
    low, high = _bca_by_hand(alpha_data, values, confidence)
    assert result.method == "bca"
    assert result.fallback is None
    assert result.low == pytest.approx(low, abs=1e-12)
    assert result.high == pytest.approx(high, abs=1e-12)


def test_bca_of_a_mean_is_close_to_scipy(ao70: Decomposition) -> None:
    data = np.r_[np.ones(70), np.zeros(30)]
    reference = stats.bootstrap(
        (data,), np.mean, n_resamples=10_000, method="BCa", random_state=0
    ).confidence_interval
    result = bootstrap(ao70, replicates=10_000, seed=0)
    # A_o of 100 items moves in steps of 0.01: allow one step for the quantile conventions.
    assert result.low == pytest.approx(reference.low, abs=0.0101)
    assert result.high == pytest.approx(reference.high, abs=0.0101)


def test_interval_contains_estimate_and_confidence_orders_widths(alpha_data: Decomposition) -> None:
    narrow = bootstrap(alpha_data, replicates=1000, seed=0, confidence=0.8)
    wide = bootstrap(alpha_data, replicates=1000, seed=0, confidence=0.99)
    assert wide.low < narrow.low < narrow.estimate < narrow.high < wide.high


def test_bca_with_all_replicates_tied_is_the_point() -> None:
    result = bootstrap(observed_agreement(np.ones(20)), replicates=200, seed=0)
    # z0 = 0 (ties count one half) and a flat jackknife: BCa is defined and degenerate.
    assert (result.method, result.low, result.high) == ("bca", 1.0, 1.0)


def test_bca_falls_back_to_percentile_when_every_replicate_is_on_one_side() -> None:
    # Item u contributes 9**u, so the total equals sum(9**u) only for a permutation of the
    # items; the statistic is 1 there and 0 elsewhere: every replicate lies below the estimate.
    full = float(sum(9**u for u in range(8)))
    decomposition = Decomposition(
        "one-sided",
        np.array([[9.0**u] for u in range(8)]),
        lambda t: np.where(t[..., 0] == full, 1.0, 0.0),
    )
    result = bootstrap(decomposition, replicates=50, seed=0)
    assert result.method == "percentile"
    assert "BCa undefined" in (result.fallback or "")
    assert (result.low, result.high) == (0.0, 0.0)


# -- distribution summaries (Hayes & Krippendorff 2007) -------------------------------------


def test_prob_below_and_quantiles_match_the_exact_bootstrap_distribution() -> None:
    # With stats [agree_u, 1] the bootstrap distribution of A_o is exactly Binomial(n, A_o)/n:
    # each drawn item agrees with probability 70/100 independently.
    n, agree = 100, 70
    decomposition = observed_agreement(np.r_[np.ones(agree), np.zeros(n - agree)])
    result = bootstrap(decomposition, replicates=20_000, seed=2, minimums=(0.6, 0.667, 0.7, 0.8))
    binomial = stats.binom(n, agree / n)
    for minimum, share in result.prob_below.items():
        exact = binomial.cdf(np.ceil(minimum * n) - 1)  # P(X/n < minimum)
        assert share == pytest.approx(exact, abs=0.011), minimum  # 3 binomial SEs
    assert set(result.quantiles) == set(QUANTILES)
    for q, value in result.quantiles.items():
        assert binomial.ppf(q - 0.005) / n <= value <= binomial.ppf(min(q + 0.005, 1)) / n


def test_prob_below_counts_replicates_strictly_below(ao70: Decomposition) -> None:
    result = bootstrap(ao70, replicates=1000, seed=5, minimums=(0.7,))
    values = bootstrap_chunk(ao70, seed=5, start=0, stop=1000)
    assert result.prob_below == {0.7: float(np.mean(values < 0.7))}
    assert result.quantiles[0.5] == float(np.quantile(values, 0.5))


# -- degenerate replicates ------------------------------------------------------------------


def test_degenerate_replicates_are_counted_and_excluded() -> None:
    # Five items; only item 4 carries a second value. A resample without item 4 has one
    # value only, expected disagreement zero, and alpha undefined.
    codes = np.array([[0, 0, 0, 0, 0], [0, 0, 0, 0, 1]])
    decomposition = nominal_alpha(codes, 2)
    result = bootstrap(decomposition, replicates=2000, seed=8)
    drawn_item_4 = [4 in np.random.default_rng([8, r]).integers(0, 5, size=5) for r in range(2000)]
    assert result.n_degenerate == 2000 - sum(drawn_item_4)
    assert result.n_degenerate > 0
    assert result.replicates == 2000
    assert result.degenerate_policy == DEGENERATE_POLICY
    assert "excluded" in result.degenerate_policy
    values = bootstrap_chunk(decomposition, seed=8, start=0, stop=2000)
    assert np.isnan(values).sum() == result.n_degenerate
    assert np.isfinite(result.low)
    assert np.isfinite(result.high)


def test_all_replicates_degenerate_raises() -> None:
    # Item u contributes 9**u: the total is sum(9**u) only when every item is drawn once
    # (base-9 digits are the draw counts), so every replicate but such a permutation is nan.
    defined_total = float(sum(9**u for u in range(8)))
    decomposition = Decomposition(
        "undefined-on-resamples",
        np.array([[9.0**u] for u in range(8)]),
        lambda t: np.where(t[..., 0] == defined_total, 0.5, np.nan),
    )
    with pytest.raises(ValueError, match="at least two"):
        bootstrap(decomposition, replicates=20, seed=0)


def test_undefined_estimate_raises() -> None:
    decomposition = observed_agreement(np.zeros(3), np.zeros(3))
    with pytest.raises(ValueError, match="undefined on the full data"):
        bootstrap(decomposition)


# -- differences ----------------------------------------------------------------------------


def test_paired_difference_resamples_the_same_items(alpha_data: Decomposition) -> None:
    result = bootstrap_difference(alpha_data, alpha_data, replicates=300, seed=0)
    assert (result.estimate, result.low, result.high, result.se) == (0.0, 0.0, 0.0, 0.0)


def test_paired_difference_is_the_difference_of_the_same_replicates() -> None:
    rng = np.random.default_rng(1)
    before = observed_agreement(rng.random(200) < 0.6)
    after = observed_agreement(rng.random(200) < 0.8)
    result = bootstrap_difference(after, before, replicates=500, seed=3, method="percentile")
    values = bootstrap_chunk(after, seed=3, start=0, stop=500) - bootstrap_chunk(
        before, seed=3, start=0, stop=500
    )
    low, high = np.quantile(values, [0.025, 0.975])
    assert result.low == pytest.approx(low, abs=1e-12)
    assert result.high == pytest.approx(high, abs=1e-12)
    assert result.estimate == pytest.approx(float(after.evaluate()) - float(before.evaluate()))


def test_pairing_narrows_the_interval_of_correlated_coefficients() -> None:
    rng = np.random.default_rng(4)
    base = rng.random(300) < 0.7
    later = np.where(rng.random(300) < 0.9, base, ~base)
    first, second = observed_agreement(later), observed_agreement(base)
    paired = bootstrap_difference(first, second, replicates=1000, seed=0)
    unpaired = bootstrap_difference_unpaired(first, second, replicates=1000, seed=0)
    assert paired.estimate == unpaired.estimate
    assert paired.high - paired.low < 0.8 * (unpaired.high - unpaired.low)


def test_paired_difference_needs_the_same_item_count(ao70: Decomposition) -> None:
    with pytest.raises(ValueError, match="same items"):
        bootstrap_difference(ao70, observed_agreement(np.ones(50)))


def test_unpaired_difference_takes_first_stream_from_bootstrap(ao70: Decomposition) -> None:
    other = observed_agreement(np.r_[np.ones(30), np.zeros(20)])
    result = bootstrap_difference_unpaired(ao70, other, replicates=400, seed=6, method="percentile")
    first = bootstrap_chunk(ao70, seed=6, start=0, stop=400)
    assert result.estimate == pytest.approx(0.1)
    assert result.low < 0.1 < result.high
    # Unpaired replicates add both samples' variances.
    assert result.se > np.std(first, ddof=1)


# -- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"replicates": 1}, "replicates"),
        ({"replicates": 10.5}, "replicates"),
        ({"seed": -1}, "seed"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 0}, "confidence"),
        ({"method": "basic"}, "method"),
    ],
)
def test_invalid_options_raise(ao70: Decomposition, options: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        bootstrap(ao70, **options)


def test_invalid_inputs_raise(ao70: Decomposition) -> None:
    with pytest.raises(ValueError, match="Decomposition"):
        bootstrap(np.ones((3, 2)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="two items"):
        bootstrap(observed_agreement(np.ones(1)))
    with pytest.raises(ValueError, match="start"):
        bootstrap_chunk(ao70, seed=0, start=5, stop=2)
    assert bootstrap_chunk(ao70, seed=0, start=70, stop=70).shape == (0,)
    with pytest.raises(ValueError, match="cover every replicate"):
        bootstrap_combine(ao70, [np.zeros(3)], seed=0, replicates=4)


def test_result_is_frozen_and_holds_python_floats(ao70: Decomposition) -> None:
    result = bootstrap(ao70, replicates=100)
    assert isinstance(result, BootstrapResult)
    for name in ("estimate", "low", "high", "confidence", "se"):
        assert type(getattr(result, name)) is float
    assert all(type(v) is float for v in result.quantiles.values())
    with pytest.raises(AttributeError):
        result.low = 0.0  # type: ignore[misc]


def test_caller_arrays_are_not_modified(alpha_data: Decomposition) -> None:
    before = alpha_data.item_stats.copy()
    bootstrap(alpha_data, replicates=50)
    assert np.array_equal(alpha_data.item_stats, before)


# -- the coefficient helpers' decompositions ------------------------------------------------


def _study(seed: int, missing: float) -> ReliabilityData:
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, 60)
    codes = np.where(rng.random((3, 60)) < 0.7, truth, rng.integers(0, 4, (3, 60)))
    codes[rng.random((3, 60)) < missing] = -1
    return ReliabilityData(codes, (1, 2, 3, 5), tuple(range(60)), ("a", "b", "c"))


def _two_coders(data: ReliabilityData) -> ReliabilityData:
    return ReliabilityData(data.codes[:2], data.domain, data.items, data.coders[:2])


REAL_DECOMPOSITIONS = {
    # name: (decompose, compute, data transform)
    "alpha nominal": (
        lambda d: alpha_module.decompose_krippendorff_alpha(d),
        lambda d: alpha_module.krippendorff_alpha(d).value,
        lambda d: d,
    ),
    "alpha interval": (
        lambda d: alpha_module.decompose_krippendorff_alpha(d, distance="interval"),
        lambda d: alpha_module.krippendorff_alpha(d, distance="interval").value,
        lambda d: d,
    ),
    "alpha ordinal": (
        lambda d: alpha_module.decompose_krippendorff_alpha(d, distance="ordinal"),
        lambda d: alpha_module.krippendorff_alpha(d, distance="ordinal").value,
        lambda d: d,
    ),
    "fleiss pi": (
        lambda d: agreement_module.decompose_fleiss_pi(d),
        lambda d: agreement_module.fleiss_pi(d).value,
        lambda d: d,
    ),
    "cohen kappa": (
        lambda d: agreement_module.decompose_cohen_kappa(d),
        lambda d: agreement_module.cohen_kappa(d).value,
        _two_coders,
    ),
    "gwet ac1": (
        lambda d: gwet_module.decompose_gwet_ac1(d),
        lambda d: gwet_module.gwet_ac1(d).value,
        lambda d: d,
    ),
}

alpha_module = importlib.import_module("metrics.coefficients.alpha")
agreement_module = importlib.import_module("metrics.coefficients.agreement")
gwet_module = importlib.import_module("metrics.coefficients.gwet")


@pytest.mark.parametrize("name", sorted(REAL_DECOMPOSITIONS))
def test_replicates_of_real_coefficients_equal_recomputing_on_resampled_items(
    name: str,
) -> None:
    decompose, compute, transform = REAL_DECOMPOSITIONS[name]
    data = transform(_study(5, missing=0.15))
    decomposition = decompose(data)
    assert float(decomposition.evaluate()) == pytest.approx(compute(data), abs=1e-12)
    # One row per item for every coefficient, so they all resample the same items.
    rows = np.arange(data.n_items)
    assert decomposition.n_items == rows.size
    n = rows.size
    values = bootstrap_chunk(decomposition, seed=13, start=0, stop=4)
    for replicate in range(4):
        drawn = rows[np.random.default_rng([13, replicate]).integers(0, n, size=n)]
        resampled = ReliabilityData(data.codes[:, drawn], data.domain, tuple(range(n)), data.coders)
        assert values[replicate] == pytest.approx(compute(resampled), abs=1e-12)
    whole = bootstrap(decomposition, replicates=300, seed=13)
    parts = [bootstrap_chunk(decomposition, seed=13, start=a, stop=a + 100) for a in (0, 100, 200)]
    assert bootstrap_combine(decomposition, parts, seed=13, replicates=300) == whole
    assert whole.low < whole.estimate < whole.high


def test_paired_difference_of_two_rounds_of_alpha() -> None:
    first, second = _study(1, missing=0.0), _study(1, missing=0.0)
    noisier = second.codes.copy()
    rng = np.random.default_rng(0)
    flip = rng.random(noisier.shape) < 0.2
    noisier[flip] = rng.integers(0, 4, flip.sum())
    second = ReliabilityData(noisier, second.domain, second.items, second.coders)
    result = bootstrap_difference(
        alpha_module.decompose_krippendorff_alpha(first),
        alpha_module.decompose_krippendorff_alpha(second),
        replicates=500,
        seed=0,
        minimums=(0.0,),
    )
    expected = (
        alpha_module.krippendorff_alpha(first).value - alpha_module.krippendorff_alpha(second).value
    )
    assert result.estimate == pytest.approx(expected, abs=1e-12)
    assert result.low > 0  # the noisier round is reliably worse
    assert result.prob_below[0.0] < 0.05
