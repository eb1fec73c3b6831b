"""One input entry point: ``domain=`` everywhere, and ordinal data needs an order.

The ordinal distance ranks labels in the domain's order. String labels without a declared
domain are only sorted alphabetically, which for low/mid/high puts "high" first: ordinal
alpha would silently be 1/9 instead of 7/9 (docs/references.md#derived-ordinal-low-mid-high).
Every entry point refuses such data with a ValueError naming ``domain``.
"""

from __future__ import annotations

import inspect

import krippendorff
import numpy as np
import pytest

import metrics
from metrics import (
    ReliabilityData,
    alpha_individual,
    as_reliability_data,
    decompose_krippendorff_alpha,
    gwet_ac1,
    item_disagreement,
    krippendorff_alpha,
    linearized_se,
    pairwise_coder_matrix,
    report,
    weighted_kappa,
)

# docs/references.md#derived-ordinal-low-mid-high: two coders, three items.
LOW_MID_HIGH = np.array([["low", "mid", "mid"], ["low", "mid", "high"]], dtype=object)
ORDER = ["low", "mid", "high"]


def test_ordinal_alpha_with_the_declared_order_is_seven_ninths() -> None:
    # By hand (Krippendorff 2011's ordinal metric): n_low 2, n_mid 3, n_high 1;
    # d(mid, high) = 4, D_o = 2·4/6 = 4/3, D_e = 6, alpha = 1 − 2/9 = 7/9.
    result = krippendorff_alpha(LOW_MID_HIGH, distance="ordinal", domain=ORDER)
    assert result.value == pytest.approx(7 / 9, abs=1e-12)
    assert (result.observed, result.expected) == pytest.approx((4 / 3, 6.0), abs=1e-12)
    # Peer: the krippendorff package (0.8) with the same ordered value domain.
    peer = krippendorff.alpha(
        reliability_data=LOW_MID_HIGH.astype(str),
        level_of_measurement="ordinal",
        value_domain=ORDER,
    )
    assert result.value == pytest.approx(peer, abs=1e-12)
    assert round(result.value, 3) == 0.778


def test_the_alphabetical_order_would_give_one_ninth() -> None:
    # What the old behaviour computed: high < low < mid. The peer gives the same 1/9 when
    # told that order, which is why refusing (rather than guessing) is the fix.
    peer = krippendorff.alpha(
        reliability_data=LOW_MID_HIGH.astype(str),
        level_of_measurement="ordinal",
        value_domain=sorted(ORDER),
    )
    assert peer == pytest.approx(1 / 9, abs=1e-12)
    assert krippendorff_alpha(
        LOW_MID_HIGH, distance="ordinal", domain=sorted(ORDER)
    ).value == pytest.approx(1 / 9, abs=1e-12)


@pytest.mark.parametrize(
    "call",
    [
        lambda data: krippendorff_alpha(data, distance="ordinal"),
        lambda data: decompose_krippendorff_alpha(data, distance="ordinal"),
        lambda data: alpha_individual(data, distance="ordinal"),
        lambda data: weighted_kappa(data, distance="ordinal"),
        lambda data: gwet_ac1(data, distance="ordinal"),
        lambda data: item_disagreement(data, distance="ordinal"),
        lambda data: pairwise_coder_matrix(data, coefficient="weighted_kappa", distance="ordinal"),
        lambda data: linearized_se(
            as_reliability_data(data), coefficient="alpha", distance="ordinal"
        ),
        lambda data: report(data, level="ordinal"),
    ],
)
def test_ordinal_on_unordered_string_labels_is_refused_everywhere(call) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError, match=r"domain=\[\.\.\.\]"):
        call(LOW_MID_HIGH)


def test_report_with_a_domain_gives_the_ordered_value() -> None:
    result = report(LOW_MID_HIGH, level="ordinal", domain=ORDER)
    assert result["coefficients"]["alpha"]["value"] == pytest.approx(7 / 9, abs=1e-12)


def test_numbers_keep_their_order_without_a_domain() -> None:
    numbers = np.array([[1, 2, 2], [1, 2, 3]], dtype=float)
    assert krippendorff_alpha(numbers, distance="ordinal").value == pytest.approx(7 / 9)
    # Strings that all spell numbers are ordered by value ("10" after "9"), not alphabetically.
    spelled = np.array([["1", "9", "9"], ["1", "9", "10"]], dtype=object)
    data = as_reliability_data(spelled)
    assert data.domain == ("1", "9", "10")
    assert data.ordered_domain
    assert krippendorff_alpha(spelled, distance="ordinal").value == pytest.approx(7 / 9)


def test_interval_and_ratio_refuse_text_and_point_to_ordinal() -> None:
    for distance in ("interval", "ratio"):
        with pytest.raises(ValueError, match="ordinal distance with domain"):
            krippendorff_alpha(LOW_MID_HIGH, distance=distance, domain=ORDER)


def test_domain_recodes_reliability_data_and_refuses_unknown_labels() -> None:
    data = ReliabilityData.from_long([1, 2, 3, 1, 2, 3], list("aaabbb"), LOW_MID_HIGH.ravel())
    assert not data.ordered_domain
    declared = as_reliability_data(data, domain=ORDER)
    assert declared.domain == tuple(ORDER)
    assert declared.ordered_domain
    assert krippendorff_alpha(data, distance="ordinal", domain=ORDER).value == pytest.approx(7 / 9)
    with pytest.raises(ValueError, match="outside the declared domain"):
        as_reliability_data(data, domain=["low", "mid"])
    with pytest.raises(ValueError, match="outside the declared domain"):
        as_reliability_data(LOW_MID_HIGH, domain=["low", "mid"])


def _takes_data(function: object) -> bool:
    if not inspect.isfunction(function):
        return False
    parameters = list(inspect.signature(function).parameters)
    return bool(parameters) and parameters[0] == "data"


PUBLIC_DATA_FUNCTIONS = sorted(
    name for name in metrics.__all__ if _takes_data(getattr(metrics, name))
)


def test_every_public_function_taking_data_accepts_domain() -> None:
    assert len(PUBLIC_DATA_FUNCTIONS) > 40
    missing = [
        name
        for name in PUBLIC_DATA_FUNCTIONS
        if "domain" not in inspect.signature(getattr(metrics, name)).parameters
    ]
    assert missing == []


@pytest.mark.parametrize("name", PUBLIC_DATA_FUNCTIONS)
def test_a_label_outside_the_domain_is_the_same_error_everywhere(name: str) -> None:
    function = getattr(metrics, name)
    data = ReliabilityData.from_contingency([[3, 1], [1, 3]], domain=["yes", "no"])
    options: dict[str, object] = {"domain": ["yes", "maybe"]}
    parameters = inspect.signature(function).parameters
    for required, value in {
        "coefficient": "fleiss",
        "model": "conservative",
        "coder_a": "A",
        "coder_b": "B",
        "distance": "nominal",
        "reference": ["yes"] * 8,
    }.items():
        if required in parameters and parameters[required].default is inspect.Parameter.empty:
            options[required] = value
    with pytest.raises(ValueError, match=r"Labels outside the declared domain: \['no'\]"):
        function(data, **options)
