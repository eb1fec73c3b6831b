"""The kappa family from sparse counts: the same numbers as the dense items × values path.

Interval and ratio questions have as many distinct values as annotations, nearly: the
agreement family (A_o, S, pi, kappa, AC1, Brennan–Prediger), its decompositions, bootstrap,
jackknife, linearised SEs and per-category agreement must then work from the (item, value)
pairs that occur. Small data are run through both paths (forced) and compared to 1e-12; a
large continuous case runs with the dense tables made to raise and is checked against plain
pandas formulas written here, and small continuous cases against statsmodels and
scikit-learn.
"""

from __future__ import annotations

import dataclasses
import math
import tracemalloc
from collections.abc import Iterator

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from metrics import (
    ReliabilityData,
    bennett_s,
    brennan_prediger,
    cohen_kappa,
    conger_kappa,
    fleiss_pi,
    gwet_ac1,
    observed_agreement,
    per_category_agreement,
    scott_pi,
)
from metrics.coefficients.agreement import agreement_weights, build_decomposition
from metrics.coefficients.alpha import MAX_MATRIX_VALUES
from metrics.coefficients.interval_weights import IntervalWeights
from metrics.diagnostics import _per_category_dense, _per_category_sparse
from metrics.uncertainty import analytic, bootstrap
from metrics.uncertainty.bootstrap import bootstrap_chunk, jackknife_values

TOLERANCE = 1e-12
CHANCES = ("none", "uniform", "pooled", "gwet", "coder")


def _long(seed: int, n_items: int, n_coders: int, n_values: int) -> pd.DataFrame:
    """Missing values, a coder with a single value, labels skewed towards agreement."""
    rng = np.random.default_rng(seed)
    items = np.repeat(np.arange(n_items), n_coders)
    coders = np.tile(np.arange(n_coders), n_items)
    truth = rng.integers(0, n_values, n_items)
    labels = np.where(
        rng.random(items.size) < 0.6, truth[items], rng.integers(0, n_values, items.size)
    )
    kept = rng.random(items.size) < 0.8
    frame = pd.DataFrame({"item": items[kept], "coder": coders[kept], "label": labels[kept]})
    lonely = pd.DataFrame({"item": [0], "coder": [n_coders], "label": [1]})
    return pd.concat([frame, lonely], ignore_index=True)


def _data(frame: pd.DataFrame, domain: list[int] | None = None) -> ReliabilityData:
    return ReliabilityData.from_long(
        frame["item"].to_numpy(),
        frame["coder"].to_numpy(),
        frame["label"].to_numpy(),
        domain=domain,
    )


def _cases() -> Iterator[tuple[str, ReliabilityData]]:
    frame = _long(3, 120, 4, 6)
    yield "as given", _data(frame)
    shuffled = frame.sample(frac=1.0, random_state=7)
    yield "shuffled", _data(shuffled)
    yield "unused values declared", _data(frame, domain=list(range(9)))


CASES = list(_cases())


@pytest.mark.parametrize("chance", CHANCES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize(("label", "data"), CASES, ids=[c[0] for c in CASES])
def test_sparse_decomposition_equals_dense(
    label: str, data: ReliabilityData, chance: str, weighted: bool
) -> None:
    weights = agreement_weights(data, "interval") if weighted else None
    dense, _ = build_decomposition(data, "x", chance, weights, sparse_counts=False)  # type: ignore[arg-type]
    sparse_, _ = build_decomposition(data, "x", chance, weights, sparse_counts=True)  # type: ignore[arg-type]
    assert float(sparse_.evaluate()) == pytest.approx(float(dense.evaluate()), abs=TOLERANCE)
    draws = np.random.default_rng(1).integers(0, 3, size=(7, data.n_items)).astype(np.float64)
    np.testing.assert_allclose(sparse_.evaluate(draws), dense.evaluate(draws), atol=TOLERANCE)
    np.testing.assert_allclose(jackknife_values(sparse_), jackknife_values(dense), atol=TOLERANCE)
    replicates = bootstrap_chunk(sparse_, seed=4, start=0, stop=25)
    np.testing.assert_allclose(
        replicates, bootstrap_chunk(dense, seed=4, start=0, stop=25), atol=TOLERANCE
    )


@pytest.mark.parametrize(
    ("chance", "sparse_counts", "weighted"),
    [
        ("pooled", True, False),
        ("gwet", True, False),
        ("coder", True, False),
        ("coder", False, False),
        ("coder", True, True),
        ("coder", False, True),
    ],
)
def test_leave_one_out_equals_finalize_of_each_remainder(
    chance: str, sparse_counts: bool, weighted: bool
) -> None:
    """The O(nnz) leave-one-out against finalize(total - row), item by item (weighted kappa:
    the same update through the V × V weights)."""
    data = CASES[2][1]
    weights = agreement_weights(data, "interval") if weighted else None
    decomposition, _ = build_decomposition(data, "x", chance, weights, sparse_counts=sparse_counts)  # type: ignore[arg-type]
    assert decomposition.leave_one_out is not None
    plain = dataclasses.replace(decomposition, leave_one_out=None)
    total = decomposition.totals()
    rows = decomposition.item_stats.toarray()
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.array([float(decomposition.finalize(total - row)) for row in rows])
    np.testing.assert_allclose(jackknife_values(decomposition), expected, atol=TOLERANCE)
    np.testing.assert_allclose(jackknife_values(plain), expected, atol=TOLERANCE)
    sliced = jackknife_values(decomposition, start=5, stop=40)
    np.testing.assert_allclose(sliced, expected[5:40], atol=TOLERANCE)


@pytest.mark.parametrize("chance", ["pooled", "coder"])
def test_wide_rows_are_totalled_a_few_replicates_at_a_time_with_the_same_values(
    chance: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sub-blocks of 3 replicates give the whole block's values bit for bit, in any chunks."""
    data = CASES[0][1]
    decomposition, _ = build_decomposition(data, "x", chance, sparse_counts=True)  # type: ignore[arg-type]
    whole = bootstrap_chunk(decomposition, seed=2, start=0, stop=20)
    width = decomposition.item_stats.shape[1]
    monkeypatch.setattr(bootstrap, "_SUB_BLOCK_ELEMENTS", 3 * width)
    pieces = [bootstrap_chunk(decomposition, seed=2, start=a, stop=b) for a, b in [(0, 4), (4, 20)]]
    np.testing.assert_array_equal(np.concatenate(pieces), whole)


FUNCTIONS = [observed_agreement, bennett_s, fleiss_pi, conger_kappa, gwet_ac1, brennan_prediger]


@pytest.fixture
def force_sparse(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every ``dense_counts_are_linear`` answers False: the sparse path everywhere."""
    monkeypatch.setattr(ReliabilityData, "dense_counts_are_linear", property(lambda self: False))


def _values(data: ReliabilityData) -> list[float]:
    two = data.restricted_to_coders([0, 1])
    return [f(data).value for f in FUNCTIONS] + [scott_pi(two).value, cohen_kappa(two).value]


@pytest.fixture
def dense_values() -> list[list[float]]:
    return [_values(data) for _, data in CASES]


def test_public_coefficients_equal_on_both_paths(
    dense_values: list[list[float]], force_sparse: None
) -> None:
    for (_, data), dense in zip(CASES, dense_values, strict=True):
        np.testing.assert_allclose(_values(data), dense, atol=TOLERANCE)


@pytest.mark.parametrize("coefficient", ["ac1", "fleiss", "conger", "brennan_prediger", "alpha"])
def test_linearised_se_equals_on_both_paths(coefficient: str) -> None:
    for _, data in CASES:
        dense = analytic._raw_linearized(
            data, coefficient, None, 0.95, math.inf, sparse_counts=False
        )
        sparse_ = analytic._raw_linearized(
            data, coefficient, None, 0.95, math.inf, sparse_counts=True
        )
        assert sparse_.estimate == pytest.approx(dense.estimate, abs=TOLERANCE)
        assert sparse_.se == pytest.approx(dense.se, abs=TOLERANCE)


@pytest.mark.parametrize("method", ["pi", "kappa"])
def test_per_category_equals_on_both_paths(method: str) -> None:
    for _, data in CASES:
        observed, expected = _per_category_sparse(data, method)
        dense_observed, dense_expected = _per_category_dense(data, method)
        np.testing.assert_allclose(observed, dense_observed, atol=TOLERANCE)
        np.testing.assert_allclose(expected, dense_expected, atol=TOLERANCE)


def test_weights_over_a_huge_domain_are_refused() -> None:
    values = np.arange(MAX_MATRIX_VALUES + 1, dtype=np.float64)
    data = ReliabilityData.from_long(np.zeros(values.size, dtype=int), values, values)
    with pytest.raises(ValueError, match="larger than the limit"):
        agreement_weights(data, "interval")


# -- continuous values: peers and plain formulas ---------------------------------------------


def _continuous(seed: int, n_items: int, n_coders: int) -> tuple[pd.DataFrame, np.ndarray]:
    """Reals to 1e-6 (nearly all distinct); coders 1 and 2 copy coder 0 half the time."""
    rng = np.random.default_rng(seed)
    values = np.round(
        rng.normal(size=(n_items, 1)) * 100 + rng.normal(size=(n_items, n_coders)) * 30, 6
    )
    for coder in range(1, min(n_coders, 3)):
        copy = rng.random(n_items) < 0.5
        values[copy, coder] = values[copy, 0]
    frame = pd.DataFrame(
        {
            "item": np.repeat(np.arange(n_items), n_coders),
            "coder": np.tile(np.arange(n_coders), n_items),
            "label": values.ravel(),
        }
    )
    return frame, values


def test_small_continuous_pi_equals_statsmodels(force_sparse: None) -> None:
    frame, values = _continuous(11, 300, 3)
    table, _ = aggregate_raters(values)
    expected = fleiss_kappa(table, method="fleiss")
    assert fleiss_pi(_data(frame)).value == pytest.approx(expected, abs=TOLERANCE)


def test_small_continuous_kappa_equals_scikit_learn(force_sparse: None) -> None:
    frame, values = _continuous(12, 400, 2)
    expected = cohen_kappa_score(values[:, 0].astype(str), values[:, 1].astype(str))
    assert cohen_kappa(_data(frame)).value == pytest.approx(expected, abs=TOLERANCE)


def _plain_formulas(frame: pd.DataFrame) -> dict[str, float]:
    """A_o, S, pi and multi-kappa of complete data, by pandas groupby only."""
    per_item = frame.groupby("item").size()
    cells = frame.groupby(["item", "label"]).size()
    agreeing = (cells * (cells - 1)).groupby(level="item").sum()
    observed = float((agreeing / (per_item * (per_item - 1))).mean())
    n_values = frame["label"].nunique()
    shares = cells / per_item.reindex(cells.index.get_level_values("item")).to_numpy()
    pooled = shares.groupby(level="label").sum() / len(per_item)
    pi_expected = float((pooled**2).sum())
    coder_shares = frame.groupby(["coder", "label"]).size() / len(per_item)
    summed = coder_shares.groupby(level="label").sum()
    n_coders = frame["coder"].nunique()
    kappa_expected = float((summed**2).sum() - (coder_shares**2).sum()) / (
        n_coders * (n_coders - 1)
    )

    def corrected(expected: float) -> float:
        return (observed - expected) / (1 - expected)

    return {
        "observed_agreement": observed,
        "s": corrected(1 / n_values),
        "pi": corrected(pi_expected),
        "kappa": corrected(kappa_expected),
    }


def _refuse(self: ReliabilityData) -> None:
    raise AssertionError("a dense items × values or coders × values table was built")


def test_many_distinct_reals_without_dense_tables(monkeypatch: pytest.MonkeyPatch) -> None:
    frame, _ = _continuous(13, 20_000, 3)
    data = _data(frame)
    assert data.n_values > 39_000
    assert not data.dense_counts_are_linear
    for name in ("item_value_counts", "coder_value_counts", "codes"):
        monkeypatch.setattr(ReliabilityData, name, property(_refuse))
    expected = _plain_formulas(frame)
    tracemalloc.start()
    try:
        found = {
            "observed_agreement": observed_agreement(data).value,
            "s": bennett_s(data).value,
            "pi": fleiss_pi(data).value,
            "kappa": conger_kappa(data).value,
        }
        decomposition, _ = build_decomposition(data, "kappa", "coder")
        jackknife = jackknife_values(decomposition)
        replicates = bootstrap_chunk(decomposition, seed=0, start=0, stop=5)
        se = analytic.linearized_se(data, coefficient="conger")
        categories = per_category_agreement(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    for key, value in expected.items():
        assert found[key] == pytest.approx(value, abs=TOLERANCE), key
    # A dense n_items × V table alone would be 20,000 × 39,000+ floats: 6 GB.
    assert peak < 300e6
    assert se.estimate == pytest.approx(expected["kappa"], abs=TOLERANCE)
    assert np.all(np.isfinite(replicates))
    assert jackknife.shape == (data.n_items,)
    total = decomposition.totals()
    for item in (0, 1, 9_999):
        row = decomposition.item_stats[item].toarray().ravel()
        assert jackknife[item] == pytest.approx(
            float(decomposition.finalize(total - row)), abs=1e-12
        )
    assert len(categories.values) == data.n_values


# -- interval weights without their matrix (AC2, weighted Brennan–Prediger) -------------------


@pytest.mark.parametrize("chance", ["none", "uniform", "gwet"])
@pytest.mark.parametrize(("label", "data"), CASES, ids=[c[0] for c in CASES])
def test_interval_weights_as_operations_equal_the_matrix(
    label: str, data: ReliabilityData, chance: str
) -> None:
    matrix = agreement_weights(data, "interval")
    operations = IntervalWeights.of(np.asarray(data.domain, dtype=np.float64))
    assert operations.sum() == pytest.approx(float(matrix.sum()), rel=TOLERANCE)
    dense, _ = build_decomposition(data, "x", chance, matrix, sparse_counts=False)  # type: ignore[arg-type]
    light, _ = build_decomposition(data, "x", chance, operations)  # type: ignore[arg-type]
    assert float(light.evaluate()) == pytest.approx(float(dense.evaluate()), abs=TOLERANCE)
    draws = np.random.default_rng(2).integers(0, 3, size=(7, data.n_items)).astype(np.float64)
    np.testing.assert_allclose(light.evaluate(draws), dense.evaluate(draws), atol=TOLERANCE)
    np.testing.assert_allclose(jackknife_values(light), jackknife_values(dense), atol=TOLERANCE)


def test_ac2_and_brennan_prediger_on_many_reals_against_plain_formulas(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Above MAX_MATRIX_VALUES values: no weight matrix, values from brute-force sums here."""
    frame, values = _continuous(14, 3_000, 3)
    data = _data(frame)
    assert data.n_values > MAX_MATRIX_VALUES
    for name in ("item_value_counts", "coder_value_counts", "codes"):
        monkeypatch.setattr(ReliabilityData, name, property(_refuse))
    domain = np.unique(values)
    largest = (domain.max() - domain.min()) ** 2
    # Σ_kl w_kl over the domain, by blocks of rows of the V × V differences.
    total = sum(
        float((1.0 - np.subtract.outer(domain[i : i + 500], domain) ** 2 / largest).sum())
        for i in range(0, domain.size, 500)
    )
    pairs = [(0, 1), (0, 2), (1, 2)]
    agreeing = sum(1.0 - (values[:, a] - values[:, b]) ** 2 / largest for a, b in pairs)
    observed = float(np.mean(2 * agreeing / 6))
    size = domain.size
    pooled = frame.groupby("label").size().to_numpy() / frame.shape[0]
    ac2_expected = total / (size * (size - 1)) * float((pooled * (1 - pooled)).sum())
    bp_expected = total / size**2
    ac2 = gwet_ac1(data, distance="interval")
    bp = brennan_prediger(data, distance="interval")
    assert ac2.observed == pytest.approx(observed, abs=TOLERANCE)
    assert ac2.value == pytest.approx((observed - ac2_expected) / (1 - ac2_expected), abs=TOLERANCE)
    assert bp.value == pytest.approx((observed - bp_expected) / (1 - bp_expected), abs=TOLERANCE)
