"""Diagnostics: contingency tables, pairwise matrices, per-category, items, coder marginals."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.coefficients.agreement import cohen_kappa, observed_agreement
from metrics.data import ReliabilityData
from metrics.diagnostics import (
    coder_distributions,
    contingency_matrix,
    item_disagreement,
    pairwise_coder_matrix,
    per_category_agreement,
)

from .test_agreement import AGRESTI_1992, MIESKES_2009, RAW_4RATERS, items, pairs


def test_contingency_matrix_of_artstein_poesio_table_4() -> None:
    # A&P (2008) Table 4 printed with rows = coder B, columns = coder A
    # (docs/references.md#ap2008-table4).
    data = ReliabilityData.from_contingency([[46, 0, 0], [6, 32, 6], [0, 0, 10]])
    table = contingency_matrix(data, "B", "A")
    np.testing.assert_array_equal(table.counts, [[46, 6, 0], [0, 32, 0], [0, 6, 10]])
    assert table.row_totals.tolist() == [52, 32, 16]  # Table 6: coder B marginals
    assert table.column_totals.tolist() == [46, 44, 10]  # coder A marginals
    assert table.n_items == 100


def test_contingency_matrix_counts_only_shared_items() -> None:
    matrix = np.array([[0, 1, np.nan, 1], [0, 0, 1, np.nan], [1, 1, 1, 1]])
    table = contingency_matrix(matrix, 0, 1)
    assert table.n_items == 2
    with pytest.raises(ValueError, match="Unknown coder"):
        contingency_matrix(matrix, 0, "zed")


def test_pairwise_coder_matrix() -> None:
    # DKPro Warrens2012Test (docs/references.md#warrens2012-examples): raters 0 and 1 of example 1
    # give kappa 8/11.
    rows = [(10, [1, 1, 1, 1]), (2, [1, 0, 1, 0]), (2, [1, 0, 0, 0]), (1, [0, 0, 0, 1])]
    rows += [(15, [0, 0, 0, 0])]
    data = items([r for count, r in rows for _ in range(count)])
    result = pairwise_coder_matrix(data, coefficient="kappa")
    assert result.values[0, 1] == pytest.approx(8 / 11)
    np.testing.assert_allclose(result.values, result.values.T)
    np.testing.assert_array_equal(np.diag(result.values), 1.0)
    assert result.defined.all()
    assert result.n_shared_items[0, 1] == 30
    sub = ReliabilityData(data.codes[[2, 3]], data.domain, data.items, (2, 3))
    assert result.values[2, 3] == pytest.approx(cohen_kappa(sub).value)


def test_pairwise_coder_matrix_marks_undefined_pairs() -> None:
    matrix = np.array([[0, 1, np.nan, np.nan], [0, 1, 1, 0], [np.nan, np.nan, 0, 1]])
    result = pairwise_coder_matrix(matrix, coefficient="observed_agreement")
    assert not result.defined[0, 2]
    assert np.isnan(result.values[0, 2])
    assert result.values[0, 1] == 1.0
    assert np.isnan(result.values[result.defined]).sum() == 0


def test_pairwise_coder_matrix_validation() -> None:
    data = items(RAW_4RATERS)
    with pytest.raises(ValueError, match="Unknown coefficient"):
        pairwise_coder_matrix(data, coefficient="alpha")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="needs a distance"):
        pairwise_coder_matrix(data, coefficient="weighted_kappa")
    with pytest.raises(ValueError, match="takes no distance"):
        pairwise_coder_matrix(data, coefficient="pi", distance=np.ones((5, 5)))
    with pytest.raises(ValueError, match="anonymous"):
        pairwise_coder_matrix(ReliabilityData.from_agreement_table([[1, 1]]))
    weighted = pairwise_coder_matrix(data, coefficient="weighted_kappa", distance=1 - np.eye(5))
    plain = pairwise_coder_matrix(data, coefficient="kappa")
    np.testing.assert_allclose(weighted.values[weighted.defined], plain.values[plain.defined])


def test_per_category_agreement_agresti_1992() -> None:
    # DKPro Agresti1992Test (docs/references.md#agresti1992-example): category agreement 0.781,
    # 0.247, 0.402, 0.435 are the binarised Scott's pi (recomputed 0.7810, 0.2472, 0.4016, 0.4354);
    # binarised Cohen kappa gives 0.781, 0.266, 0.441, 0.459.
    data = pairs(AGRESTI_1992)
    pi = per_category_agreement(data, method="pi")
    kappa = per_category_agreement(data, method="kappa")
    assert pi.method == "pi"
    assert kappa.method == "kappa"
    assert pi.values == pytest.approx([0.7810, 0.2472, 0.4016, 0.4354], abs=1e-4)
    assert kappa.values == pytest.approx([0.781, 0.266, 0.441, 0.459], abs=1e-3)


def test_per_category_agreement_mieskes_2009() -> None:
    # DKPro Mieskes2009Test (docs/references.md#mieskes2009-pos-tags), tol 0.01: per-category Fleiss
    # kappa.
    result = per_category_agreement(items(MIESKES_2009), method="pi").as_dict()
    expected = {"INP": 1.00, "JJ": 1.00, "MD": 1.00, "NN": 0.48, "PRP": 1.00}
    expected |= {"RB": 0.56, "UH": 0.67, "VB": 0.29, "VBP": -0.02}
    assert result == pytest.approx(expected, abs=0.01)


def test_per_category_agreement_unused_category_is_none() -> None:
    data = ReliabilityData.from_long(
        [0, 0, 1, 1], ["a", "b"] * 2, ["x", "y", "x", "x"], domain="xyz"
    )
    result = per_category_agreement(data, method="pi")
    assert result.values[2] is None
    with pytest.raises(ValueError, match="method"):
        per_category_agreement(data, method="alpha")  # type: ignore[arg-type]


def test_item_disagreement() -> None:
    data = items(RAW_4RATERS)
    result = item_disagreement(data)
    assert result.pairable.sum() == 11
    assert np.isnan(result.disagreement[~result.pairable]).all()
    # Mean over pairable items is 1 − A_o (irrCAC pa 0.818 on these data,
    # docs/references.md#irrcac-raw-4raters).
    mean = result.disagreement[result.pairable].mean()
    assert mean == pytest.approx(1 - observed_agreement(data).value)
    top = result.most_disputed(2)
    assert top[0].item == 5  # unit 6: values 1, 2, 3, 4
    assert top[0].disagreement == pytest.approx(1.0)
    assert top[0].n_values == 4
    assert top[1].disagreement == pytest.approx(0.5)


def test_item_disagreement_with_a_distance() -> None:
    # A&P (2008) §2.7.2 weights: an IREQ/CHCK item disagrees by 0.5.
    data = pairs([(1, "IREQ", "CHCK"), (1, "STAT", "IREQ"), (1, "STAT", "STAT")])
    distance = np.array([[0, 0.5, 0.5], [0.5, 0, 1], [0.5, 1, 0]])  # CHCK, IREQ, STAT
    assert data.domain == ("CHCK", "IREQ", "STAT")
    result = item_disagreement(data, distance=distance)
    assert result.disagreement.tolist() == pytest.approx([0.5, 1.0, 0.0])


def test_coder_distributions() -> None:
    data = ReliabilityData.from_contingency([[46, 0, 0], [6, 32, 6], [0, 0, 10]])
    result = coder_distributions(data)
    # A&P (2008) Table 4 marginals: A 0.46/0.44/0.10, B 0.52/0.32/0.16.
    np.testing.assert_allclose(result.proportions, [[0.46, 0.44, 0.10], [0.52, 0.32, 0.16]])
    np.testing.assert_allclose(result.pooled, [0.49, 0.38, 0.13])
    assert all(0 < d < 1 for d in result.divergence if d is not None)
    same = coder_distributions(ReliabilityData.from_contingency([[5, 0], [0, 5]]))
    assert same.divergence == pytest.approx((0.0, 0.0), abs=1e-15)


def test_coder_without_values_has_no_divergence() -> None:
    matrix = np.array([[0, 1, 1], [np.nan, np.nan, np.nan], [1, 1, 0]])
    result = coder_distributions(matrix)
    assert result.divergence[1] is None
    assert result.proportions[1].tolist() == [0.0, 0.0]
    assert result.most_divergent in (0, 2)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("method", ["pi", "kappa"])
def test_per_category_agreement_equals_binarised_coefficients(seed: int, method: str) -> None:
    from metrics.coefficients.agreement import conger_kappa, fleiss_pi

    rng = np.random.default_rng(seed)
    codes = rng.integers(0, 4, (int(rng.integers(2, 6)), 30))
    codes[rng.random(codes.shape) < 0.3] = -1
    data = ReliabilityData(codes, tuple("abcd"), tuple(range(30)), tuple(range(len(codes))))
    result = per_category_agreement(data, method=method)  # type: ignore[arg-type]
    function = fleiss_pi if method == "pi" else conger_kappa
    for k in range(4):
        binary = ReliabilityData(
            np.where(codes < 0, -1, (codes == k).astype(int)), (0, 1), data.items, data.coders
        )
        try:
            expected = function(binary)
        except ValueError:
            assert result.values[k] is None
            continue
        assert result.values[k] == pytest.approx(expected.value, abs=1e-12)
        assert result.expected[k] == pytest.approx(expected.expected, abs=1e-12)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize(
    ("coefficient", "weighting"),
    [
        ("kappa", None),
        ("pi", None),
        ("observed_agreement", None),
        ("observed_agreement", "quadratic"),
        ("s", None),
        ("ac1", None),
        ("ac1", "quadratic"),
        ("brennan_prediger", "quadratic"),
        ("weighted_kappa", "quadratic"),
        ("weighted_kappa", "asymmetric"),
    ],
)
def test_pairwise_matrix_equals_the_two_coder_functions(
    seed: int, coefficient: str, weighting: str | None
) -> None:
    from metrics.coefficients.agreement import agreement_weights
    from metrics.diagnostics import _pairwise_by_pairs, _pairwise_vectorised
    from metrics.distances import MatrixDistance

    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 5))
    codes = rng.integers(0, size, (int(rng.integers(2, 6)), 25))
    codes[rng.random(codes.shape) < 0.35] = -1
    codes[:, 0] = 0  # one-category coders make some pairs undefined
    data = ReliabilityData(codes, tuple(range(size)), tuple(range(25)), tuple(range(len(codes))))
    positions = np.arange(size, dtype=float)
    distance = {
        None: None,
        "quadratic": np.subtract.outer(positions, positions) ** 2,
        "asymmetric": rng.uniform(0, 1, (size, size)) * (1 - np.eye(size)),
    }[weighting]
    weights = agreement_weights(data, distance)
    fixed = None if distance is None else MatrixDistance(distance)
    expected = _pairwise_by_pairs(data, coefficient, fixed)
    actual = _pairwise_vectorised(data, coefficient, weights)
    off = ~np.eye(len(codes), dtype=bool)
    np.testing.assert_allclose(actual[off], expected[off], atol=1e-12)
