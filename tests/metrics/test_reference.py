"""Each coder against a reference labelling (``metrics.reference``).

- A small example worked by hand (docs/references.md#reference-hand-example).
- scikit-learn 1.9.1 on random data with missing labels, to 1e-12:
  ``accuracy_score``, ``cohen_kappa_score``, ``precision_recall_fscore_support``,
  ``f1_score`` (macro) and ``confusion_matrix`` (docs/references.md#sklearn-reference-scores).
- interval alpha of the pair against the ``krippendorff`` package (same entry).
"""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    f1_score,
    precision_recall_fscore_support,
)

from metrics import ReliabilityData
from metrics.reference import REFERENCE_MEASURES, reference_agreement

TOL = 1e-12


def test_hand_worked_example() -> None:
    # docs/references.md#reference-hand-example
    coders = [["a", "a", "b", "b", "a", "b"], ["a", "b", "b", "b", "a", "a"]]
    gold = ["a", "a", "b", "b", "b", "a"]
    result = reference_agreement(coders, gold, replicates=0)
    first = result.coders[0]
    assert result.domain == ("a", "b")
    assert result.n_reference_items == 6
    assert first.n_items == 6
    assert first.confusion.tolist() == [[2, 1], [1, 2]]
    assert first.accuracy == pytest.approx(4 / 6, abs=TOL)
    assert first.kappa == pytest.approx(1 / 3, abs=TOL)
    assert first.alpha == pytest.approx(7 / 18, abs=TOL)
    assert first.precision.tolist() == pytest.approx([2 / 3, 2 / 3], abs=TOL)
    assert first.recall.tolist() == pytest.approx([2 / 3, 2 / 3], abs=TOL)
    assert first.f1.tolist() == pytest.approx([2 / 3, 2 / 3], abs=TOL)
    assert first.support.tolist() == [3, 3]
    assert first.intervals == {}


def test_hand_worked_missing_and_undefined() -> None:
    # docs/references.md#reference-hand-example (second case)
    nan = np.nan
    result = reference_agreement(
        [[1, 1, 1, nan], [nan, nan, nan, nan]], [1, 1, 1, 2], replicates=100
    )
    always_one, silent = result.coders
    assert always_one.n_items == 3
    assert always_one.accuracy == 1.0
    assert np.isnan(always_one.kappa)
    assert "chance agreement is 1" in always_one.notes["kappa"]
    assert np.isnan(always_one.alpha)
    assert always_one.confusion.tolist() == [[3, 0], [0, 0]]
    assert always_one.f1[0] == 1.0
    assert np.isnan(always_one.f1[1])
    assert always_one.macro_f1 == 1.0
    assert sorted(always_one.intervals) == ["accuracy", "macro_f1"]
    assert silent.n_items == 0
    assert np.isnan(silent.accuracy)
    assert silent.notes["all"] == "The coder labelled no item the reference labelled."


def random_case(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    n_coders, n_items, size = int(rng.integers(1, 5)), int(rng.integers(10, 80)), 4
    truth = rng.integers(0, size, n_items).astype(float)
    noise = rng.random((n_coders, n_items)) < rng.uniform(0.1, 0.6)
    data = np.where(noise, rng.integers(0, size, (n_coders, n_items)), truth).astype(float)
    data[rng.random(data.shape) < 0.2] = np.nan
    data[:, :2] = [0.0, 1.0]  # every coder shares two items with the reference
    reference = truth.copy()
    reference[2:][rng.random(n_items - 2) < 0.1] = np.nan
    reference[:2] = [0.0, 1.0]
    return data, reference


@pytest.mark.parametrize("seed", range(12))
def test_matches_scikit_learn(seed: int) -> None:
    # docs/references.md#sklearn-reference-scores
    data, reference = random_case(seed)
    labels = [0.0, 1.0, 2.0, 3.0]
    result = reference_agreement(data, reference, domain=labels, replicates=0)
    assert result.domain == tuple(labels)
    for row, coder in zip(data, result.coders, strict=True):
        both = ~np.isnan(row) & ~np.isnan(reference)
        y_true, y_pred = reference[both], row[both]
        assert coder.n_items == both.sum()
        assert coder.accuracy == pytest.approx(accuracy_score(y_true, y_pred), abs=TOL)
        assert coder.kappa == pytest.approx(cohen_kappa_score(y_true, y_pred), abs=TOL)
        matrix = confusion_matrix(y_true, y_pred, labels=labels)
        assert coder.confusion.tolist() == matrix.tolist()
        precision, recall, f1, support = precision_recall_fscore_support(
            y_true, y_pred, labels=labels, zero_division=np.nan, average=None
        )
        np.testing.assert_allclose(coder.precision, precision, atol=TOL, equal_nan=True)
        np.testing.assert_allclose(coder.recall, recall, atol=TOL, equal_nan=True)
        assert coder.support.tolist() == support.tolist()
        used = sorted(set(y_true) | set(y_pred))
        macro = f1_score(y_true, y_pred, labels=used, average="macro", zero_division=0)
        assert coder.macro_f1 == pytest.approx(macro, abs=TOL)
        # F1 where sklearn's is defined (a category either side used, P + R > 0).
        defined = ~np.isnan(f1)
        np.testing.assert_allclose(coder.f1[defined], f1[defined], atol=TOL)
        pair = np.vstack([y_pred, y_true])
        alpha = krippendorff.alpha(pair, level_of_measurement="interval")
        interval = reference_agreement(
            data, reference, domain=labels, distance="interval", replicates=0
        ).coders[list(result.coders).index(coder)]
        assert interval.alpha == pytest.approx(alpha, abs=1e-9)


def test_intervals_cover_the_estimate_and_share_the_resample() -> None:
    data, reference = random_case(3)
    result = reference_agreement(data, reference, replicates=300, seed=7, method="percentile")
    for coder in result.coders:
        assert set(coder.intervals) <= set(REFERENCE_MEASURES)
        for measure, interval in coder.intervals.items():
            assert interval.estimate == pytest.approx(coder.value(measure), abs=TOL)
            assert interval.low <= interval.estimate <= interval.high
            assert interval.replicates == 300
            assert interval.seed == 7


def test_accepts_reliability_data_and_a_label_only_the_reference_used() -> None:
    data = ReliabilityData.from_long(
        ["i1", "i2", "i3", "i1", "i2"],
        ["ann", "ann", "ann", "bob", "bob"],
        ["x", "y", "x", "x", "x"],
    )
    result = reference_agreement(data, ["x", "z", "y"], replicates=0)
    assert result.domain == ("x", "y", "z")
    ann, bob = result.coders
    assert (ann.coder, bob.coder) == ("ann", "bob")
    assert ann.confusion.tolist() == [[1, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert ann.accuracy == pytest.approx(1 / 3, abs=TOL)
    assert bob.n_items == 2


def test_intervals_equal_the_bootstrap_of_each_measure_alone() -> None:
    from metrics import bootstrap, decompose_cohen_kappa

    data, reference = random_case(5)
    result = reference_agreement(data[:1], reference, replicates=200, seed=3)
    both = ~np.isnan(data[0]) & ~np.isnan(reference)
    alone = bootstrap(
        decompose_cohen_kappa(np.vstack([data[0][both], reference[both]])), replicates=200, seed=3
    )
    interval = result.coders[0].intervals["kappa"]
    assert (interval.low, interval.high) == (alone.low, alone.high)


def test_refuses_a_reference_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match="The reference has 2 labels but the data has 3 items"):
        reference_agreement([[1, 2, 3]], [1, 2])
