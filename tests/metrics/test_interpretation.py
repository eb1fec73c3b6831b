"""Interpretation scales: Landis & Koch (1977) bands and Krippendorff's 0.667/0.8 cutoffs."""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics.uncertainty.interpretation import (
    SCALES,
    interpret_interval,
    interpret_replicates,
    interpret_value,
)


@pytest.mark.parametrize(
    ("value", "label"),
    [
        (-0.1, "poor"),
        (0.0, "slight"),
        (0.2, "slight"),  # Landis & Koch: 0.00–0.20 slight, 0.21–0.40 fair
        (0.21, "fair"),
        (0.4, "fair"),
        (0.41, "moderate"),
        (0.6, "moderate"),
        (0.61, "substantial"),
        (0.8, "substantial"),
        (0.81, "almost perfect"),
        (1.0, "almost perfect"),
    ],
)
def test_landis_koch_bands(value, label):
    assert interpret_value(value, scale="landis_koch").label == label


@pytest.mark.parametrize(
    ("value", "label"),
    [
        (-0.5, "discard"),
        (0.6669, "discard"),
        (0.667, "tentative"),
        (0.7999, "tentative"),
        (0.8, "good"),
        (1.0, "good"),
    ],
)
def test_krippendorff_cutoffs(value, label):
    assert interpret_value(value).label == label


def test_di_eugenio_glass_example_1_straddles_the_threshold():
    # Di Eugenio & Glass (2004), Example 1 (docs/references.md#deg2004-examples): kappa_Co 0.6724,
    # kappa_S&C 0.6632 (their §1: the two kappas can fall on either side of 0.67).
    assert interpret_value(0.6724).label == "tentative"
    assert interpret_value(0.6632).label == "discard"


def test_interval_straddling_a_threshold_is_labelled_with_both_bands():
    # Krenn et al. (2004), NN7: kappa 0.775, 95% CI [0.719, 0.831] (derived,
    # docs/references.md#kez2004-tables).
    result = interpret_interval(0.719, 0.831)
    assert result.labels == ("tentative", "good")
    assert result.cuts_inside == (0.8,)
    assert result.straddles
    assert result.summary == "tentative to good: the interval straddles 0.8"
    # Artstein & Poesio (2008) §4.1.3 (docs/references.md#ap2008-interpretation): "K = 0.78 ±
    # 0.05".
    assert interpret_interval(0.73, 0.83).labels == ("tentative", "good")


def test_interval_over_several_landis_koch_bands():
    # Krenn et al. (2004), NN12: kappa 0.265, 95% CI [0.186, 0.345] (derived,
    # docs/references.md#kez2004-tables).
    result = interpret_interval(0.186, 0.345, scale="landis_koch")
    assert result.labels == ("slight", "fair")
    wide = interpret_interval(0.1, 0.9, scale="landis_koch")
    assert wide.labels == ("slight", "fair", "moderate", "substantial", "almost perfect")
    assert wide.cuts_inside == (0.2, 0.4, 0.6, 0.8)
    one = interpret_interval(0.85, 0.9)
    assert one.labels == ("good",)
    assert not one.straddles


def test_replicates_give_bootstrap_probabilities():
    replicates = np.array([0.79] * 3 + [0.82] * 97)
    result = interpret_replicates(replicates)
    assert result.probabilities_above == (1.0, 0.97)
    assert result.statements[1] == "above 0.8 with 97% bootstrap probability"
    assert result.n_replicates == 100
    assert result.summary.startswith("above 0.8 with 97%")


def test_replicate_percentages_never_round_to_certainty():
    replicates = np.r_[np.full(999, 0.9), 0.5]
    result = interpret_replicates(replicates, thresholds=(0.6, 0.95))
    assert result.statements == (
        "above 0.6 with > 99% bootstrap probability",
        "above 0.95 with 0% bootstrap probability",
    )
    assert interpret_replicates(np.r_[0.9, np.full(999, 0.5)], thresholds=(0.8,)).statements == (
        "above 0.8 with < 1% bootstrap probability",
    )


def test_nan_replicates_raise_or_are_omitted_explicitly():
    replicates = [0.9, math.nan, 0.7]
    with pytest.raises(ValueError, match="NaN"):
        interpret_replicates(replicates)
    result = interpret_replicates(replicates, nan_policy="omit")
    assert (result.n_replicates, result.n_omitted) == (2, 1)
    assert result.probabilities_above == (1.0, 0.5)
    with pytest.raises(ValueError, match="Every replicate is NaN"):
        interpret_replicates([math.nan], nan_policy="omit")


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: interpret_value(1.2), "at most 1"),
        (lambda: interpret_value(math.nan), "finite"),
        (lambda: interpret_value("high"), "number"),
        (lambda: interpret_value(0.5, scale="green"), "Unknown scale"),
        (lambda: interpret_interval(0.8, 0.7), "above the upper end"),
        (lambda: interpret_replicates([]), "non-empty"),
        (lambda: interpret_replicates([0.5], thresholds=(0.8, 0.667)), "increasing"),
        (lambda: interpret_replicates([0.5], nan_policy="drop"), "nan_policy"),
    ],
)
def test_invalid_input_is_refused(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_docstrings_warn_about_weighted_coefficients():
    for function in (interpret_value, interpret_replicates):
        assert "weighted" in function.__doc__
    assert set(SCALES) == {"krippendorff", "landis_koch"}


def test_results_hold_python_floats():
    result = interpret_value(np.float64(0.7))
    assert type(result.value) is float
    assert type(interpret_replicates(np.array([0.9])).probabilities_above[0]) is float
