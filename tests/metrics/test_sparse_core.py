"""The long-format core: the same data entered dense or as triples gives the same numbers.

The sparse designs have many coders who each share only a few items, as crowd studies do.
Dense input is a coders × items array with nan, built here with numpy, never by the library.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from metrics import (
    ReliabilityData,
    coder_distributions,
    contingency_matrix,
    dawid_skene,
    item_disagreement,
    krippendorff_alpha,
    light_kappa,
    pairwise_coder_matrix,
    per_category_agreement,
)
from metrics.coefficients.agreement import agreement_weights
from metrics.coefficients.prevalence import annotator_bias
from metrics.diagnostics import _pairwise_by_pairs, _pairwise_sharing, _pairwise_vectorised
from metrics.distances.scalar import MatrixDistance
from metrics.report import coefficient_specs, report, report_distance
from metrics.uncertainty.true_agreement import true_agreement_by_pair

TOLERANCE = 1e-12


def _sparse_design(
    seed: int, n_coders: int, n_items: int, n_values: int, per_item: tuple[int, int]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(item, coder, value) triples: each item labelled by a few of many coders.

    Every coder and every item gets at least one value, so the dense matrix and the triples
    describe the same coders and items.
    """
    rng = np.random.default_rng(seed)
    items: list[int] = []
    coders: list[int] = []
    for item in range(n_items):
        chosen = rng.choice(n_coders, size=int(rng.integers(*per_item)), replace=False)
        items.extend([item] * len(chosen))
        coders.extend(chosen.tolist())
    for coder in sorted(set(range(n_coders)) - set(coders)):
        item = int(rng.integers(n_items))
        while any(i == item and c == coder for i, c in zip(items, coders, strict=True)):
            item = int(rng.integers(n_items))
        items.append(item)
        coders.append(coder)
    # Skewed values, so that chance agreement is not trivial.
    weights = np.linspace(2, 1, n_values)
    values = rng.choice(n_values, size=len(items), p=weights / weights.sum())
    order = rng.permutation(len(items))  # triples in no particular order
    return np.array(items)[order], np.array(coders)[order], (values + 1)[order]


def _dense(items: np.ndarray, coders: np.ndarray, values: np.ndarray) -> np.ndarray:
    matrix = np.full((coders.max() + 1, items.max() + 1), np.nan)
    matrix[coders, items] = values
    return matrix


def _assert_same(a: Any, b: Any, where: str = "") -> None:
    if isinstance(a, dict):
        assert isinstance(b, dict), where
        assert a.keys() == b.keys(), where
        for key in a:
            _assert_same(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list | tuple):
        assert isinstance(b, list | tuple), where
        assert len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _assert_same(x, y, f"{where}[{i}]")
    elif isinstance(a, np.ndarray):
        np.testing.assert_allclose(a, b, atol=TOLERANCE, rtol=0, equal_nan=True, err_msg=where)
    elif isinstance(a, float) and not isinstance(b, str):
        assert b is not None, where
        same = (math.isnan(a) and math.isnan(b)) or abs(a - b) <= TOLERANCE
        assert same, f"{where}: {a} != {b}"
    else:
        assert a == b, where


CASES = [
    # (seed, coders, items, values, labels per item)
    (1, 40, 80, 3, (2, 5)),
    (2, 25, 60, 4, (1, 4)),
    (3, 2, 70, 2, (1, 3)),  # two coders with missing values: kappa_w, true agreement
]


@pytest.fixture(params=CASES, ids=lambda case: f"seed{case[0]}-{case[1]}coders")
def both_forms(request: pytest.FixtureRequest) -> tuple[ReliabilityData, ReliabilityData]:
    items, coders, values = _sparse_design(*request.param)
    dense = ReliabilityData.from_matrix(_dense(items, coders, values))
    long = ReliabilityData.from_long(items, coders, values)
    return dense, long


def test_both_forms_hold_the_same_annotations(
    both_forms: tuple[ReliabilityData, ReliabilityData],
) -> None:
    dense, long = both_forms
    assert dense.domain == long.domain
    assert (list(dense.items), list(dense.coders)) == (list(long.items), list(long.coders))
    for name in ("item_index", "coder_index", "value_code"):
        np.testing.assert_array_equal(getattr(dense, name), getattr(long, name))
    np.testing.assert_array_equal(dense.codes, long.codes)


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_report_is_the_same_dense_and_long(
    both_forms: tuple[ReliabilityData, ReliabilityData], level: str
) -> None:
    dense, long = both_forms
    options: dict[str, Any] = {"level": level, "bootstrap": 60, "seed": 3}
    _assert_same(report(dense, **options), report(long, **options), level)


def test_report_on_the_raw_array_equals_the_long_triples() -> None:
    items, coders, values = _sparse_design(4, 30, 50, 3, (2, 4))
    options: dict[str, Any] = {"level": "nominal", "bootstrap": 40, "benchmark_method": "normal"}
    from_array = report(_dense(items, coders, values), **options)
    from_long = report(ReliabilityData.from_long(items, coders, values), **options)
    _assert_same(from_array, from_long)


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_every_report_decomposition_is_the_same(
    both_forms: tuple[ReliabilityData, ReliabilityData], level: str
) -> None:
    dense, long = both_forms
    distance = report_distance(level, None)
    for spec in coefficient_specs(dense.n_coders, distance is not None):
        options = {"distance": distance} if spec.weighted and distance is not None else {}
        try:
            first = spec.decompose(dense, **options)
        except ValueError as error:
            with pytest.raises(ValueError, match=re.escape(str(error))):
                spec.decompose(long, **options)
            continue
        second = spec.decompose(long, **options)
        _assert_same(first.totals(), second.totals(), spec.key)
        _assert_same(float(first.evaluate()), float(second.evaluate()), spec.key)


DIAGNOSTICS: list[tuple[str, Callable[[ReliabilityData], Any]]] = [
    ("pairwise kappa", lambda rd: pairwise_coder_matrix(rd).values),
    ("pairwise pi", lambda rd: pairwise_coder_matrix(rd, coefficient="pi").values),
    ("pairwise ac1", lambda rd: pairwise_coder_matrix(rd, coefficient="ac1").values),
    ("shared items", lambda rd: pairwise_coder_matrix(rd).n_shared_items),
    ("per-category kappa", lambda rd: per_category_agreement(rd).values),
    ("per-category pi", lambda rd: per_category_agreement(rd, method="pi").values),
    ("coder distributions", lambda rd: coder_distributions(rd).divergence),
    ("item disagreement", lambda rd: item_disagreement(rd).disagreement),
    ("contingency", lambda rd: contingency_matrix(rd, 0, 1).counts),
    ("light kappa", lambda rd: (light_kappa(rd).value, light_kappa(rd).pair_values)),
    ("light pairs", lambda rd: (light_kappa(rd).pairs, light_kappa(rd).skipped_pairs)),
    ("annotator bias", lambda rd: (annotator_bias(rd).bias, annotator_bias(rd).variance_form)),
    (
        "true agreement",
        lambda rd: [
            (p.table, p.interval.m_low, p.interval.m_high)
            for p in true_agreement_by_pair(rd, model="homogeneity")
        ],
    ),
    ("dawid-skene", lambda rd: dawid_skene(rd).posterior),
    ("alpha", lambda rd: krippendorff_alpha(rd, distance="interval").value),
]


@pytest.mark.parametrize(("name", "function"), DIAGNOSTICS, ids=[n for n, _ in DIAGNOSTICS])
def test_diagnostics_are_the_same_dense_and_long(
    both_forms: tuple[ReliabilityData, ReliabilityData],
    name: str,
    function: Callable[[ReliabilityData], Any],
) -> None:
    dense, long = both_forms
    try:
        expected = function(dense)
    except ValueError as error:
        with pytest.raises(ValueError, match=re.escape(str(error))):
            function(long)
        return
    _assert_same(expected, function(long), name)


@pytest.mark.parametrize(
    ("coefficient", "weighted"),
    [
        ("kappa", False),
        ("pi", False),
        ("ac1", False),
        ("s", False),
        ("observed_agreement", False),
        ("weighted_kappa", True),
        ("ac1", True),
        ("brennan_prediger", True),
    ],
)
def test_pairwise_paths_agree_on_a_sparse_design(coefficient: str, weighted: bool) -> None:
    items, coders, values = _sparse_design(5, 30, 40, 3, (2, 4))
    data = ReliabilityData.from_long(items, coders, values)
    positions = np.arange(data.n_values, dtype=float)
    distance = np.subtract.outer(positions, positions) ** 2 if weighted else None
    fixed = None if distance is None else MatrixDistance(distance)
    weights = agreement_weights(data, fixed)
    by_pairs = _pairwise_by_pairs(data, coefficient, fixed)  # one call per sharing pair
    vectorised = _pairwise_vectorised(data, coefficient, weights)  # all pairs at once
    sharing_only = _pairwise_sharing(data, coefficient, weights)  # pairs sharing items
    shared = pairwise_coder_matrix(data).n_shared_items
    off = ~np.eye(data.n_coders, dtype=bool)
    sharing = (shared > 0) & off
    np.testing.assert_allclose(by_pairs[sharing], vectorised[sharing], atol=TOLERANCE)
    np.testing.assert_allclose(sharing_only[off], by_pairs[off], atol=TOLERANCE)
    assert np.isnan(by_pairs[~sharing & off]).all()


def test_pair_helpers_list_only_pairs_that_share_items() -> None:
    # Coders 0 and 1 share items 0 and 1; item 2 is labelled by coders 2 and 3 only.
    data = ReliabilityData.from_long(
        [0, 0, 1, 1, 2, 2], [0, 1, 0, 1, 2, 3], ["a", "a", "a", "b", "b", "b"]
    )
    first, second, shared = data.coder_pairs()
    assert (first.tolist(), second.tolist(), shared.tolist()) == ([0, 2], [1, 3], [2, 1])
    items, a, b = data.paired_codes(0, 1)
    assert (items.tolist(), a.tolist(), b.tolist()) == ([0, 1], [0, 0], [0, 1])
    left, right = data.item_pairs()
    assert (left.tolist(), right.tolist()) == ([0, 2, 4], [1, 3, 5])


def test_from_long_refuses_a_repeated_annotation() -> None:
    with pytest.raises(ValueError, match="Coder 'b' labelled item 2 more than once"):
        ReliabilityData.from_long([1, 2, 2], ["a", "b", "b"], ["x", "y", "x"])


def test_crowd_sized_data_holds_no_coders_by_items_array() -> None:
    n_coders, n_items, per_item = 2000, 200_000, 5
    rng = np.random.default_rng(0)
    items = np.repeat(np.arange(n_items), per_item)
    # Five distinct coders per item: a random start and four fixed offsets (mod n_coders).
    start = rng.integers(0, n_coders, n_items)
    coders = (start[:, None] + np.array([0, 1, 3, 7, 15])[None, :]) % n_coders
    labels = rng.integers(0, 4, items.size)
    data = ReliabilityData.from_long(items, coders.reshape(-1), labels)
    assert (data.n_coders, data.n_items, data.n_annotations) == (n_coders, n_items, 1_000_000)
    krippendorff_alpha(data)  # and the views alpha builds on the way
    data.pairable_value_counts()
    dense_size = n_coders * n_items
    arrays = [value for value in vars(data).values() if isinstance(value, np.ndarray)]
    arrays += [
        value
        for value in vars(data).values()
        if isinstance(value, tuple)
        for value in value
        if isinstance(value, np.ndarray)
    ]
    assert arrays, "the data holds its long arrays"
    assert max(array.size for array in arrays) < dense_size // 100
    assert sum(array.nbytes for array in arrays) < 200 * 2**20
    assert "codes" not in vars(data)  # the dense view was never materialised
