"""One weight convention for every coefficient and standard error (docs/metrics.md, "Weights").

Agreement weights are ``w = 1 - d / max(d)``, replaced by their symmetric part
``(w + w') / 2``; alpha only sees the symmetric part of ``d`` through its symmetric
coincidences. That is what irrCAC 0.4.4's raw-data class ``irrCAC.raw.CAC`` does (weights
enter through quadratic forms, and its linearised variances use ``(W π + W' π) / 2``),
checked below against the installed package. Before, a two-coder table with asymmetric
weights gave AC2 0.5207 through ``gwet_ac1`` and 0.5271 through ``linearized_se``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC

from metrics import (
    ReliabilityData,
    brennan_prediger,
    cohen_kappa_se,
    conger_kappa,
    fleiss_pi,
    gwet_ac1,
    krippendorff_alpha,
    linearized_se,
    observed_agreement,
    weighted_kappa,
)
from metrics.coefficients.agreement import agreement_weights

# A two-coder table and the asymmetric agreement weights of irrCAC's raw "custom" test
# (docs/references.md#irrcac-raw-4raters), restricted to three categories.
TABLE = np.array([[10, 3, 1], [2, 12, 4], [0, 5, 9]])
WEIGHTS = np.array([[1, 0.75, 0.5], [0, 1, 0.75], [0.25, 0, 1]])
DISTANCE = 1 - WEIGHTS

COEFFICIENTS = {
    # linearized_se name: the coefficient function computing the same estimate
    "ac1": gwet_ac1,
    "cohen": weighted_kappa,
    "conger": conger_kappa,
    "scott": fleiss_pi,
    "fleiss": fleiss_pi,
    "brennan_prediger": brennan_prediger,
    "alpha": krippendorff_alpha,
    "percent_agreement": observed_agreement,
}


@pytest.mark.parametrize("name", sorted(COEFFICIENTS))
def test_a_table_gives_one_value_through_the_coefficient_and_its_standard_error(
    name: str,
) -> None:
    data = ReliabilityData.from_contingency(TABLE)
    value = COEFFICIENTS[name](data, distance=DISTANCE).value
    assert linearized_se(TABLE, coefficient=name, distance=DISTANCE).estimate == pytest.approx(  # type: ignore[arg-type]
        value, abs=1e-12
    )
    if name != "percent_agreement":  # a table-only coefficient
        raw = linearized_se(data, coefficient=name, distance=DISTANCE)  # type: ignore[arg-type]
        assert raw.estimate == pytest.approx(value, abs=1e-12)
    if name == "cohen":
        assert cohen_kappa_se(TABLE, distance=DISTANCE).estimate == pytest.approx(value, abs=1e-12)


def test_agreement_weights_are_the_symmetric_part_of_one_minus_normalised_distances() -> None:
    data = ReliabilityData.from_contingency(TABLE)
    weights = agreement_weights(data, DISTANCE)
    np.testing.assert_allclose(weights, (WEIGHTS + WEIGHTS.T) / 2, atol=1e-15)
    np.testing.assert_allclose(agreement_weights(data, DISTANCE.T), weights, atol=1e-15)


@pytest.mark.parametrize("name", sorted(set(COEFFICIENTS) - {"percent_agreement"}))
def test_no_coefficient_depends_on_which_coder_comes_first(name: str) -> None:
    data = ReliabilityData.from_contingency(TABLE)
    flipped = ReliabilityData(data.codes[::-1], data.domain, data.items, ("B", "A"))
    function = COEFFICIENTS[name]
    value = function(data, distance=DISTANCE).value
    assert function(flipped, distance=DISTANCE).value == pytest.approx(value, abs=1e-12)
    assert function(data, distance=DISTANCE.T).value == pytest.approx(value, abs=1e-12)
    se = linearized_se(data, coefficient=name, distance=DISTANCE).se  # type: ignore[arg-type]
    assert linearized_se(flipped, coefficient=name, distance=DISTANCE).se == pytest.approx(  # type: ignore[arg-type]
        se, abs=1e-12
    )


def test_irrcac_raw_reads_asymmetric_weights_through_their_symmetric_part() -> None:
    # The cited behaviour of irrCAC 0.4.4 (irrCAC/raw.py): on raw ratings every coefficient
    # and standard error is the same for W and (W + W') / 2, and equals ours.
    rng = np.random.default_rng(7)
    ratings = rng.choice([1.0, 2.0, 3.0], size=(30, 4))
    ratings[rng.random(ratings.shape) < 0.2] = np.nan
    ratings[0, :3] = [1.0, 2.0, 3.0]
    data = ReliabilityData.from_matrix(ratings.T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        directed = CAC(pd.DataFrame(ratings), weights=WEIGHTS, digits=15)
        symmetric = CAC(pd.DataFrame(ratings), weights=(WEIGHTS + WEIGHTS.T) / 2, digits=15)
        pairs = (("gwet", "ac1"), ("fleiss", "fleiss"), ("bp", "brennan_prediger"))
        for method, ours_name in pairs:
            a = getattr(directed, method)()["est"]
            b = getattr(symmetric, method)()["est"]
            assert a["coefficient_value"] == pytest.approx(b["coefficient_value"], abs=1e-12)
            assert a["se"] == pytest.approx(b["se"], abs=1e-12)
            ours = linearized_se(data, coefficient=ours_name, distance=DISTANCE)  # type: ignore[arg-type]
            assert ours.estimate == pytest.approx(a["coefficient_value"], abs=1e-12)
            assert ours.se == pytest.approx(a["se"], abs=1e-12)


def test_alpha_only_ever_sees_the_symmetric_part() -> None:
    data = ReliabilityData.from_contingency(TABLE)
    symmetric = (DISTANCE + DISTANCE.T) / 2
    assert krippendorff_alpha(data, distance=DISTANCE).value == pytest.approx(
        krippendorff_alpha(data, distance=symmetric).value, abs=1e-12
    )


def test_conger_standard_error_follows_the_symmetric_part_where_irrcac_does_not() -> None:
    # irrCAC 0.4.4's conger() reads W symmetrically for the estimate (a quadratic form) but
    # directed in its variance's lambda terms (the symmetrisation is commented out in
    # irrCAC/raw.py), so its SE differs between W and (W + W') / 2. One convention here: we
    # equal irrCAC on (W + W') / 2, estimate and SE.
    rng = np.random.default_rng(7)
    ratings = rng.choice([1.0, 2.0, 3.0], size=(30, 4))
    ratings[rng.random(ratings.shape) < 0.2] = np.nan
    ratings[0, :3] = [1.0, 2.0, 3.0]
    data = ReliabilityData.from_matrix(ratings.T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        directed = CAC(pd.DataFrame(ratings), weights=WEIGHTS, digits=15).conger()["est"]
        peer = CAC(pd.DataFrame(ratings), weights=(WEIGHTS + WEIGHTS.T) / 2, digits=15)
        symmetric = peer.conger()["est"]
    ours = linearized_se(data, coefficient="conger", distance=DISTANCE)
    assert directed["coefficient_value"] == pytest.approx(symmetric["coefficient_value"])
    assert abs(directed["se"] - symmetric["se"]) > 1e-3
    assert ours.estimate == pytest.approx(symmetric["coefficient_value"], abs=1e-12)
    assert ours.se == pytest.approx(symmetric["se"], abs=1e-12)
