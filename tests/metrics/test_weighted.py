"""Cohen's (1968) weighted kappa against Artstein & Poesio (2008) and peer-library vectors."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.coefficients.agreement import cohen_kappa, conger_kappa
from metrics.coefficients.weighted import decompose_weighted_kappa, weighted_kappa
from metrics.data import ReliabilityData

from .test_agreement import AP_TABLE_4, RAW_4RATERS, items, pairs
from .test_gwet import CUSTOM_WEIGHTS, linear, quadratic

# Artstein & Poesio (2008) §2.7.2: distance 0.5 to or from CHCK, 1 between STAT and IREQ.
CHCK = {"CHCK"}


def ap_distance(domain: tuple[object, ...]) -> np.ndarray:
    return np.array(
        [[0.0 if a == b else 0.5 if {a, b} & CHCK else 1.0 for b in domain] for a in domain]
    )


def test_artstein_poesio_table_4_weighted() -> None:
    # A&P (2008) Table 6 / §2.7.2: D_o 0.09, D_e^kw 0.49, kappa_w ≈ 0.8163 (= 40/49).
    data = pairs(AP_TABLE_4)
    result = weighted_kappa(data, distance=ap_distance(data.domain))
    assert 1 - result.observed == pytest.approx(0.09)
    assert 1 - result.expected == pytest.approx(0.49)
    assert result.value == pytest.approx(40 / 49)
    assert round(result.value, 4) == 0.8163


def test_nominal_weights_give_cohen_kappa() -> None:
    # A&P (2008) §2.6.2 (docs/references.md#ap2008-weighted-kappa-identities): with equal weights
    # kappa_w = kappa; DKPro ArtsteinPoesio2008Test: WeightedKappa (nominal) Do 0.120, De 0.604,
    # 0.8013.
    data = pairs(AP_TABLE_4)
    result = weighted_kappa(data, distance=1 - np.eye(3))
    assert result.value == pytest.approx(cohen_kappa(data).value)
    assert 1 - result.observed == pytest.approx(0.120)
    assert 1 - result.expected == pytest.approx(0.604)


def test_distance_is_normalised_by_its_maximum() -> None:
    # A&P (2008) §2.6.2: dividing by d_max cancels in the ratio (DKPro #7, testNormalization;
    # docs/references.md#ap2008-weighted-kappa-identities).
    data = pairs(AP_TABLE_4)
    distance = ap_distance(data.domain)
    assert weighted_kappa(data, distance=distance * 7).value == pytest.approx(40 / 49)


@pytest.mark.parametrize(
    ("distance", "observed", "value"),
    [
        # DKPro WeightedAgreementTest.testMissingVariance
        # (docs/references.md#dkpro-weighted-missing-variance), tol 0.001:
        # nominal Do 0.153, De 0.153, kappa_w 0.000; interval Do 0.096, De 0.096, 0.000.
        (1 - np.eye(3), 0.153, 0.0),
        (quadratic(3), 0.096, 0.0),
    ],
)
def test_tiny_variance(distance: np.ndarray, observed: float, value: float) -> None:
    for categories in ((1, 2, 3), (10, 20, 30)):  # testNormalization: same values.
        low, mid, high = categories
        data = pairs([(11, low, low), (1, low, mid), (1, low, high)])
        result = weighted_kappa(data, distance=distance)
        assert 1 - result.observed == pytest.approx(observed, abs=1e-3)
        assert 1 - result.expected == pytest.approx(observed, abs=1e-3)
        assert result.value == pytest.approx(value, abs=1e-12)


def test_statsmodels_sas_table10_linear() -> None:
    # statsmodels test_inter_rater (docs/references.md#statsmodels-sas-table10): weights=[0, 1, 2]
    # kappa 0.4701 (recomputed 0.4701195219).
    data = ReliabilityData.from_contingency([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    assert weighted_kappa(data, distance=linear(3)).value == pytest.approx(0.4701195219, abs=1e-9)


@pytest.mark.parametrize(
    ("distance", "expected", "value"),
    [
        # irrCAC raw conger() on Krippendorff (2004) p. 230 data
        # (docs/references.md#irrcac-raw-4raters), digits 3.
        (quadratic(5), 0.827, 0.858),
        (linear(5), 0.675, 0.814),
        (1 - CUSTOM_WEIGHTS, 0.521, 0.763),
    ],
)
def test_more_than_two_coders_follow_gwet(
    distance: np.ndarray, expected: float, value: float
) -> None:
    data = items(RAW_4RATERS)
    result = weighted_kappa(data, distance=distance)
    assert (round(result.expected, 3), round(result.value, 3)) == (expected, value)
    assert result.value == pytest.approx(conger_kappa(data, distance=distance).value)


def test_two_coders_with_asymmetric_weights_use_their_symmetric_part() -> None:
    # Cohen (1968) let the first coder index the rows of directed weights; this library has
    # one convention for every coefficient (docs/metrics.md, "Weights"): the symmetric part
    # d̄ = (d + d')/2, so the value is the textbook kappa_w with d̄ (computed by hand here)
    # and does not depend on which coder is listed first.
    counts = np.array([[10, 3, 1], [2, 12, 4], [0, 5, 9]])
    data = ReliabilityData.from_contingency(counts)
    distance = 1 - CUSTOM_WEIGHTS[:3, :3]
    table = counts / counts.sum()
    symmetric = (distance + distance.T) / 2
    expected = (
        1 - (symmetric * table).sum() / (symmetric * np.outer(table.sum(1), table.sum(0))).sum()
    )
    assert weighted_kappa(data, distance=distance).value == pytest.approx(expected, abs=1e-12)
    flipped = ReliabilityData(data.codes[::-1], data.domain, data.items, ("B", "A"))
    assert weighted_kappa(flipped, distance=distance).value == pytest.approx(expected, abs=1e-12)
    chance = np.outer(table.sum(1), table.sum(0))
    directed = 1 - (distance * table).sum() / (distance * chance).sum()
    assert abs(directed - expected) > 1e-3  # Cohen's directed reading is another number


def test_validation() -> None:
    data = pairs(AP_TABLE_4)
    with pytest.raises(ValueError, match="V × V"):
        weighted_kappa(data, distance=1 - np.eye(2))
    with pytest.raises(ValueError, match="diagonal"):
        weighted_kappa(data, distance=np.ones((3, 3)))
    with pytest.raises(ValueError, match="zero everywhere"):
        weighted_kappa(data, distance=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="non-negative"):
        weighted_kappa(data, distance=-np.ones((3, 3)))
    with pytest.raises(ValueError, match="agreement-table"):
        weighted_kappa(ReliabilityData.from_agreement_table([[1, 1]]), distance=1 - np.eye(2))


def test_public_value_equals_decomposition() -> None:
    for data in (pairs(AP_TABLE_4), items(RAW_4RATERS)):
        distance = ap_distance(data.domain) if data.n_coders == 2 else quadratic(5)
        decomposition = decompose_weighted_kappa(data, distance=distance)
        # Two coders take the pair-table closed form: equal to rounding.
        assert weighted_kappa(data, distance=distance).value == pytest.approx(
            float(decomposition.evaluate()), rel=1e-12, abs=1e-12
        )


def test_distance_objects_and_registry_names() -> None:
    # Interval distance = squared difference of the values (A&P 2008 §2.6.1), as irrCAC's
    # quadratic weights: conger quadratic on docs/references.md#irrcac-raw-4raters data is 0.858.
    from metrics.distances import get_distance

    data = items(RAW_4RATERS)
    by_matrix = weighted_kappa(data, distance=quadratic(5)).value
    assert weighted_kappa(data, distance=get_distance("interval")).value == pytest.approx(by_matrix)
    assert weighted_kappa(data, distance="interval").value == pytest.approx(by_matrix)
    assert round(by_matrix, 3) == 0.858
