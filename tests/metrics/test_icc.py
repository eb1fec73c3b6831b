"""Intraclass correlations: Shrout & Fleiss's published values, pingouin, and a hand case.

Every matrix here is coders × items (the library's orientation); R and pingouin print the
transpose. pingouin (0.7.0) needs numpy 2, so it cannot join the test extras without
upgrading numpy and scipy: its values were produced in a separate environment and are
copied below (docs/references.md#pingouin-icc-cases).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from metrics.coefficients.icc import FORMS, decompose_icc, icc, icc_anova, icc_table
from metrics.data import ReliabilityData
from metrics.uncertainty.bootstrap import bootstrap

# Shrout & Fleiss (1979), Table 2: six targets rated by four judges, here judges × targets.
# docs/references.md#shrout-fleiss-1979
SHROUT_FLEISS = [
    [9, 6, 8, 7, 10, 6],
    [2, 1, 4, 1, 5, 2],
    [5, 3, 6, 2, 6, 4],
    [8, 2, 8, 6, 9, 7],
]

# pingouin's "icc" data set (wine quality, 8 wines × 4 judges A-D), judges × wines.
# docs/references.md#pingouin-icc-cases
WINE = [
    [1, 1, 3, 6, 6, 7, 8, 9],
    [2, 3, 8, 4, 5, 5, 7, 9],
    [0, 3, 1, 3, 5, 6, 7, 9],
    [1, 2, 4, 3, 6, 2, 9, 8],
]

# Three coders, ten items, coder B about 1.5 points above A; two items miss one rating.
# docs/references.md#pingouin-icc-cases
nan = math.nan
BIASED = [
    [4, 6, 3, 8, 5, 7, 2, 9, 6, 5],
    [6, 7, 5, 10, 6, 9, 4, 10, nan, 7],
    [5, 7, 4, 9, nan, 8, 3, 10, 7, 6],
]

# 50 items × 5 coders (here 5 rows of 50): item effect N(10, 3), coder offsets
# (0, 1, -0.5, 2, 0.3), noise N(0, 1.5), rounded to one decimal.
# docs/references.md#pingouin-icc-cases
RANDOM_50X5 = np.array(
    """
    11.4 10.6 7.0 13.2 6.6 10.3 8.2 14.1 6.5 12.0 9.0 13.3 8.1 10.0 8.9 13.0 6.6 7.0 8.8
    10.2 5.3 5.8 11.2 4.8 10.7 10.1 11.8 5.7 12.9 11.2 13.2 10.9 8.6 6.1 11.3 7.6 9.5
    8.1 6.7 9.6 13.9 15.8 10.6 13.7 12.6 5.3 7.4 8.3 12.6 8.4

    12.7 15.2 6.0 10.3 9.1 11.6 11.6 18.2 6.9 13.2 4.2 14.5 8.9 14.9 11.0 11.7 12.6 9.9
    10.2 12.7 5.8 8.8 12.2 6.3 11.4 10.1 9.8 6.0 14.4 12.5 13.2 8.0 11.1 10.3 13.3 10.3
    12.5 10.6 7.4 11.6 13.3 15.8 12.4 9.5 8.4 7.4 6.9 10.8 10.6 8.9

    11.5 8.7 1.5 8.5 4.9 9.9 9.7 16.0 7.5 13.4 4.9 16.0 8.7 9.3 8.1 9.3 7.4 8.9 7.5 10.5
    4.4 7.6 10.0 4.1 12.8 9.3 10.4 5.2 11.2 11.5 14.5 11.2 11.7 11.2 8.1 5.9 8.4 11.4
    7.8 6.6 9.1 13.4 11.1 13.2 8.9 6.2 4.6 6.1 9.5 8.2

    13.3 9.8 6.9 16.1 11.1 13.8 8.3 19.8 8.0 14.4 8.4 16.3 7.8 11.5 11.1 13.2 9.5 11.6
    11.4 15.9 6.9 6.1 11.8 10.3 11.6 8.7 13.4 5.5 13.2 16.3 15.8 14.6 13.8 9.5 13.0 8.6
    12.2 12.0 9.5 12.2 11.7 16.4 14.8 12.0 12.0 7.0 8.6 9.3 14.1 7.6

    12.3 12.8 6.3 10.6 7.6 9.6 10.3 18.3 9.0 9.9 4.5 14.5 4.5 12.5 7.9 10.9 8.1 9.4 8.7
    11.7 7.3 7.7 9.6 9.6 11.2 8.5 11.8 5.1 13.7 10.7 12.5 12.5 10.9 12.6 12.4 6.0 10.1
    6.7 8.9 13.0 11.3 16.5 9.3 12.2 10.1 9.4 6.4 7.8 9.8 6.9
    """.split(),
    dtype=float,
).reshape(5, 50)

# The hand case (docs/references.md#icc-hand-case): two coders, three items.
HAND = [[1, 4, 7], [3, 7, 8]]

# pingouin 0.7.0 intraclass_corr (nan_policy="omit", rounding off): for each form
# (value, F, df1, df2, p, CI95 low, CI95 high). docs/references.md#pingouin-icc-cases
# fmt: off
PINGOUIN = {
    "shrout_fleiss": {
        "ICC(1,1)": (0.1657417684054755, 1.7946784922394683, 5, 18, 0.16476880834463953,
                     -0.13293232487475096, 0.722560062328121),
        "ICC(A,1)": (0.28976377952755916, 11.027247956403299, 5, 15, 0.000134566516484335,
                     0.018786513374712058, 0.7610843696489527),
        "ICC(C,1)": (0.7148407148407154, 11.027247956403299, 5, 15, 0.000134566516484335,
                     0.34246476503392614, 0.9458582599553597),
        "ICC(1,k)": (0.44279713367926876, 1.7946784922394683, 5, 18, 0.16476880834463953,
                     -0.8844421552381196, 0.9124154203407755),
        "ICC(A,k)": (0.6200505475989893, 11.027247956403299, 5, 15, 0.000134566516484335,
                     0.07113681530250353, 0.9272320401677219),
        "ICC(C,k)": (0.9093155423770697, 11.027247956403299, 5, 15, 0.000134566516484335,
                     0.6756747138163055, 0.9858916781690623),
    },
    "wine": {
        "ICC(1,1)": (0.727520915896081, 11.680025856496444, 7, 24, 2.1813509548618443e-06,
                     0.43377283327098887, 0.9266960292566442),
        "ICC(A,1)": (0.7276887871853546, 11.7866927592955, 7, 21, 5.0257154640603615e-06,
                     0.4344896578911301, 0.9267086063159158),
        "ICC(C,1)": (0.7294865007940708, 11.7866927592955, 7, 21, 5.0257154640603615e-06,
                     0.42614603012923313, 0.9278952614727314),
        "ICC(1,k)": (0.9143837511760474, 11.680025856496444, 7, 24, 2.1813509548618443e-06,
                     0.7539553231006357, 0.9806078670546005),
        "ICC(A,k)": (0.9144500359453631, 11.7866927592955, 7, 21, 5.0257154640603615e-06,
                     0.7544962191493993, 0.9806113877700278),
        "ICC(C,k)": (0.9151585588577121, 11.7866927592955, 7, 21, 5.0257154640603615e-06,
                     0.7481371241589805, 0.9809432541084128),
    },
    "biased_dropped": {
        "ICC(1,1)": (0.8655569782330347, 20.314285714285756, 7, 16, 7.683502516122119e-07,
                     0.638984771875402, 0.9681812727508765),
        "ICC(A,1)": (0.8708487084870851, 237.0000000000067, 7, 14, 1.9088685776899614e-13,
                     0.19492912201346801, 0.9769333173925994),
        "ICC(C,1)": (0.9874476987447702, 237.0000000000067, 7, 14, 1.9088685776899614e-13,
                     0.9584025097751852, 0.9972509205242471),
        "ICC(1,k)": (0.9507735583684952, 20.314285714285756, 7, 16, 7.683502516122119e-07,
                     0.8415188521220673, 0.9891638969112084),
        "ICC(A,k)": (0.9528936742934052, 237.0000000000067, 7, 14, 1.9088685776899614e-13,
                     0.420753244838882, 0.9921910209703568),
        "ICC(C,k)": (0.9957805907172997, 237.0000000000067, 7, 14, 1.9088685776899614e-13,
                     0.9857386798411273, 0.9990819576605134),
    },
    "random_50x5": {
        "ICC(1,1)": (0.64543818916134, 10.101913537087619, 49, 200, 3.503190219540182e-33,
                     0.5312713219949783, 0.7532661524845907),
        "ICC(A,1)": (0.6515462194810152, 13.418973742311637, 49, 196, 4.236328895081668e-41,
                     0.5062643232510887, 0.7705803812530153),
        "ICC(C,1)": (0.7129566830992616, 13.418973742311637, 49, 196, 4.236328895081668e-41,
                     0.6107951972776238, 0.8048431636006089),
        "ICC(1,k)": (0.9010088537851118, 10.101913537087619, 49, 200, 3.503190219540182e-33,
                     0.8500109165634924, 0.9385173498317539),
        "ICC(A,k)": (0.9033732899685454, 13.418973742311637, 49, 196, 4.236328895081668e-41,
                     0.8367846857344793, 0.9438016782016437),
        "ICC(C,k)": (0.9254786528982556, 13.418973742311637, 49, 196, 4.236328895081668e-41,
                     0.886963587868146, 0.953747428259088),
    },
    "hand": {
        "ICC(A,1)": (0.7627118644067796, 31.0, 2, 2, 0.03125,
                     -0.08792831999147795, 0.9922936130609274),
        "ICC(A,k)": (0.8653846153846154, 31.0, 2, 2, 0.03125,
                     -0.1928101089393684, 0.9961319020005126),
    },
}
# fmt: on

DATASETS = {
    "shrout_fleiss": (SHROUT_FLEISS, "raise"),
    "wine": (WINE, "raise"),
    "biased_dropped": (BIASED, "drop"),
    "random_50x5": (RANDOM_50X5, "raise"),
    "hand": (HAND, "raise"),
}

# pingouin's names → (model, type, unit); the mixed-model twins share the same numbers.
PINGOUIN_FORMS = {
    "ICC(1,1)": [("oneway", "agreement", "single")],
    "ICC(1,k)": [("oneway", "agreement", "average")],
    "ICC(A,1)": [("twoway_random", "agreement", "single"), ("twoway_mixed", "agreement", "single")],
    "ICC(A,k)": [
        ("twoway_random", "agreement", "average"),
        ("twoway_mixed", "agreement", "average"),
    ],
    "ICC(C,1)": [
        ("twoway_random", "consistency", "single"),
        ("twoway_mixed", "consistency", "single"),
    ],
    "ICC(C,k)": [
        ("twoway_random", "consistency", "average"),
        ("twoway_mixed", "consistency", "average"),
    ],
}


# -- Shrout & Fleiss (1979): the published values ---------------------------------------------


def test_shrout_fleiss_table_4() -> None:
    # Table 4 prints two decimals; docs/references.md#shrout-fleiss-1979
    table = icc_table(SHROUT_FLEISS).shrout_fleiss()
    published = {
        "ICC1": 0.17,
        "ICC2": 0.29,
        "ICC3": 0.71,
        "ICC1k": 0.44,
        "ICC2k": 0.62,
        "ICC3k": 0.91,
    }
    assert {name: round(r.value, 2) for name, r in table.items()} == published


def test_shrout_fleiss_mean_squares_and_f_values() -> None:
    # Table 3's mean squares (two decimals) and the F ratios BMS/WMS, BMS/EMS;
    # docs/references.md#shrout-fleiss-1979
    anova = icc_anova(SHROUT_FLEISS)
    got = [anova.ms_items, anova.ms_within, anova.ms_coders, anova.ms_error]
    assert [round(x, 2) for x in got] == [11.24, 6.26, 32.49, 1.02]
    assert (anova.n_items, anova.n_coders, anova.n_dropped) == (6, 4, 0)
    table = icc_table(SHROUT_FLEISS).shrout_fleiss()
    assert round(table["ICC1"].f, 2) == 1.79
    assert round(table["ICC2"].f, 2) == 11.03
    assert (table["ICC1"].df1, table["ICC1"].df2) == (5, 18)
    assert (table["ICC3"].df1, table["ICC3"].df2) == (5, 15)


# -- pingouin -----------------------------------------------------------------------------------


@pytest.mark.parametrize("dataset", sorted(PINGOUIN))
def test_matches_pingouin(dataset: str) -> None:
    ratings, missing = DATASETS[dataset]
    table = icc_table(ratings, missing=missing)
    for name, expected in PINGOUIN[dataset].items():
        for model, type_, unit in PINGOUIN_FORMS[name]:
            r = table.get(model, type_, unit)
            got = (r.value, r.f, r.df1, r.df2, r.p_value, r.low, r.high)
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (dataset, name, model)


def test_pingouin_listwise_deletion_counts_the_dropped_items() -> None:
    table = icc_table(BIASED, missing="drop")
    assert (table.anova.n_items, table.anova.n_dropped) == (8, 2)
    assert all(r.n_dropped == 2 and r.n_items == 8 for r in table.results)


# -- the hand case ------------------------------------------------------------------------------


def test_hand_case() -> None:
    # Coders A (1, 4, 7) and B (3, 7, 8); docs/references.md#icc-hand-case.
    # Grand mean 5; item means 2, 5.5, 7.5; coder means 4 and 6.
    # SS_items = 2 (9 + 0.25 + 6.25) = 31, SS_coders = 3 (1 + 1) = 6,
    # SS_total = (16 + 1 + 4) + (4 + 4 + 9) = 38, SS_error = 38 - 31 - 6 = 1.
    # MS_R = 31/2, MS_C = 6, MS_E = 1/2, MS_W = (6 + 1)/3 = 7/3.
    anova = icc_anova(HAND)
    assert (anova.ss_items, anova.ss_coders, anova.ss_error) == pytest.approx((31, 6, 1))
    assert (anova.ms_items, anova.ms_coders, anova.ms_error, anova.ms_within) == pytest.approx(
        (15.5, 6, 0.5, 7 / 3)
    )
    table = icc_table(HAND)
    expected = {
        # (15.5 - 7/3) / (15.5 + 7/3) = 79/107 and (15.5 - 7/3) / 15.5 = 79/93
        ("oneway", "agreement", "single"): 79 / 107,
        ("oneway", "agreement", "average"): 79 / 93,
        # 15 / (15.5 + 0.5) and 15 / 15.5
        ("twoway_mixed", "consistency", "single"): 15 / 16,
        ("twoway_mixed", "consistency", "average"): 30 / 31,
        # 15 / (16 + 2 (6 - 0.5) / 3) = 45/59 and 15 / (15.5 + 5.5/3) = 45/52
        ("twoway_random", "agreement", "single"): 45 / 59,
        ("twoway_random", "agreement", "average"): 45 / 52,
    }
    for form, value in expected.items():
        assert table.get(*form).value == pytest.approx(value, rel=1e-12)


def test_hand_case_f_tests_and_exact_intervals() -> None:
    # F(2, nu) has survival (1 + 2F/nu)^(-nu/2), F(2, 2) in particular 1/(1 + F), so
    # F_.975(2, 2) = 39. Two-way: F = 15.5/0.5 = 31 on (2, 2), p = 1/32. Consistency
    # interval: F_L = 31/39, F_U = 31 * 39 = 1209; ICC(C,1) in [(F_L - 1)/(F_L + 1),
    # (F_U - 1)/(F_U + 1)] = [-4/35, 1208/1210], ICC(C,k) in [1 - 39/31, 1 - 1/1209].
    single = icc(HAND, model="twoway_mixed", type="consistency")
    assert (single.f, single.df1, single.df2) == pytest.approx((31, 2, 2))
    assert single.p_value == pytest.approx(1 / 32, rel=1e-12)
    assert (single.low, single.high) == pytest.approx((-4 / 35, 1208 / 1210), rel=1e-9)
    average = icc(HAND, model="twoway_mixed", type="consistency", unit="average")
    assert (average.low, average.high) == pytest.approx((-8 / 31, 1208 / 1209), rel=1e-9)
    # One-way: F = 15.5 / (7/3) = 46.5/7 on (2, 3); p = (1 + 2F/3)^(-3/2) = (38/7)^(-3/2).
    # F_.975(2, 3) = 1.5 (40^(2/3) - 1); F_.975(3, 2) = 1 / F_.025(2, 3) with
    # F_.025(2, 3) = 1.5 (0.975^(-2/3) - 1).
    oneway = icc(HAND, model="oneway")
    f = 46.5 / 7
    assert (oneway.f, oneway.df1, oneway.df2) == pytest.approx((f, 2, 3))
    assert oneway.p_value == pytest.approx((38 / 7) ** -1.5, rel=1e-12)
    f_low = f / (1.5 * (40 ** (2 / 3) - 1))
    f_high = f / (1.5 * (0.975 ** (-2 / 3) - 1))
    assert (oneway.low, oneway.high) == pytest.approx(
        ((f_low - 1) / (f_low + 1), (f_high - 1) / (f_high + 1)), rel=1e-9
    )


# -- the forms and their names ------------------------------------------------------------------


def test_the_ten_forms_and_their_names() -> None:
    table = icc_table(SHROUT_FLEISS)
    assert [(r.model, r.type, r.unit) for r in table.results] == list(FORMS)
    names = [(r.form, r.shrout_fleiss) for r in table.results]
    assert names == [
        ("ICC(1)", "ICC1"),
        ("ICC(k)", "ICC1k"),
        ("ICC(A,1)", "ICC2"),
        ("ICC(A,k)", "ICC2k"),
        ("ICC(C,1)", None),
        ("ICC(C,k)", None),
        ("ICC(A,1)", None),
        ("ICC(A,k)", None),
        ("ICC(C,1)", "ICC3"),
        ("ICC(C,k)", "ICC3k"),
    ]


def test_icc_defaults_to_two_way_random_absolute_agreement_single() -> None:
    r = icc(SHROUT_FLEISS)
    assert (r.model, r.type, r.unit, r.shrout_fleiss) == (
        "twoway_random",
        "agreement",
        "single",
        "ICC2",
    )
    assert r.value == pytest.approx(PINGOUIN["shrout_fleiss"]["ICC(A,1)"][0], rel=1e-12)


def test_confidence_level_widens_the_interval() -> None:
    narrow = icc(SHROUT_FLEISS, confidence=0.8)
    wide = icc(SHROUT_FLEISS, confidence=0.99)
    assert wide.low < narrow.low < narrow.value < narrow.high < wide.high
    assert (narrow.confidence, wide.confidence) == (0.8, 0.99)


# -- data handling ------------------------------------------------------------------------------


def test_reliability_data_and_arrays_agree() -> None:
    rd = ReliabilityData.from_matrix(np.array(SHROUT_FLEISS, dtype=float))
    assert icc_table(rd) == icc_table(SHROUT_FLEISS)
    long = ReliabilityData.from_long(
        [u for _ in range(4) for u in "abcdef"],
        [c for c in "JKLM" for _ in range(6)],
        [str(x) for row in SHROUT_FLEISS for x in row],
    )
    assert icc(long).value == pytest.approx(icc(SHROUT_FLEISS).value, rel=1e-12)


def test_incomplete_items_are_refused_with_their_count() -> None:
    with pytest.raises(ValueError, match=r"2 of 10 items miss a rating.*missing='drop'"):
        icc(BIASED)


def test_one_way_reads_rows_as_slots() -> None:
    # Each item rated by two of four coders: the one-way ICC of the compacted ratings.
    spread = [
        [1, nan, 7, nan],
        [3, 4, nan, nan],
        [nan, 7, 8, 2],
        [nan, nan, nan, 6],
    ]
    compact = [[1, 4, 7, 2], [3, 7, 8, 6]]
    assert icc(spread, model="oneway") == icc(compact, model="oneway")
    with pytest.raises(ValueError, match="2 of 10 items miss"):
        icc(BIASED, model="oneway")
    with pytest.raises(ValueError, match="complete design"):
        icc_table(spread)


def test_dropping_every_item_is_refused() -> None:
    ratings = [[1, 2, 3], [nan, nan, 4]]
    with pytest.raises(ValueError, match="at least two complete items; 1 of 3"):
        icc(ratings, missing="drop")


@pytest.mark.parametrize(
    ("ratings", "kwargs", "message"),
    [
        ([["low", "high"], ["mid", "high"]], {}, "interval or ratio"),
        ([[1, 2, 3]], {}, "at least two coders"),
        ([[1], [2]], {}, "at least two complete items"),
        ([[2, 2, 2], [3, 3, 3]], {}, "same mean rating"),
        ([[1, 2, math.inf], [1, 2, 3]], {}, "finite"),
        (SHROUT_FLEISS, {"model": "oneway", "type": "consistency"}, "no consistency"),
        (SHROUT_FLEISS, {"model": "twoway"}, "model must be"),
        (SHROUT_FLEISS, {"type": "absolute"}, "type must be"),
        (SHROUT_FLEISS, {"unit": "mean"}, "unit must be"),
        (SHROUT_FLEISS, {"confidence": 1.0}, "confidence"),
        (SHROUT_FLEISS, {"missing": "omit"}, "missing must be"),
    ],
)
def test_bad_input(ratings: object, kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        icc(ratings, **kwargs)  # type: ignore[arg-type]


def test_perfect_agreement() -> None:
    same = [[1, 5, 3, 8], [1, 5, 3, 8], [1, 5, 3, 8]]
    for r in icc_table(same).results:
        assert (r.value, r.low, r.high, r.f, r.p_value) == (1.0, 1.0, 1.0, math.inf, 0.0)
    # A constant offset: perfect consistency, imperfect absolute agreement.
    shifted = [[1, 5, 3, 8], [2, 6, 4, 9]]
    assert icc(shifted, model="twoway_mixed", type="consistency").value == 1.0
    assert icc(shifted).value < 1.0


def test_population_value_on_a_large_design() -> None:
    # Item and noise variances 1 each: the population ICC is 0.5.
    rng = np.random.default_rng(0)
    ratings = rng.normal(size=(5, 200_000)) + rng.normal(size=200_000)
    r = icc(ratings)
    assert 0.45 < r.value < 0.55


# -- per-item decomposition (bootstrap) ---------------------------------------------------------


@pytest.mark.parametrize("dataset", sorted(DATASETS))
def test_decomposition_reproduces_every_form(dataset: str) -> None:
    ratings, missing = DATASETS[dataset]
    table = icc_table(ratings, missing=missing)
    for model, type_, unit in FORMS:
        decomposition = decompose_icc(ratings, model=model, type=type_, unit=unit, missing=missing)
        assert decomposition.n_items == np.shape(ratings)[1]
        assert float(decomposition.evaluate()) == pytest.approx(
            table.get(model, type_, unit).value, rel=1e-9
        )


def test_decomposition_keeps_dropped_items_as_zero_rows() -> None:
    decomposition = decompose_icc(BIASED, missing="drop")
    stats = np.asarray(decomposition.item_stats)
    assert stats.shape[0] == 10
    assert not stats[[4, 8]].any()
    assert stats[:, 0].sum() == 8


def test_decomposition_bootstraps() -> None:
    decomposition = decompose_icc(RANDOM_50X5)
    result = bootstrap(decomposition, replicates=400, seed=1)
    # The F interval of ICC(A,1) is [0.506, 0.771] (pingouin, above); the bootstrap's
    # must cover the estimate and be of the same order.
    assert result.low < 0.6515462194810152 < result.high
    assert 0.1 < result.high - result.low < 0.5
    # A resample of items that all share one mean is degenerate (nan), not an error.
    flat = decompose_icc([[1, 2, 3], [3, 2, 1]])
    assert math.isnan(float(flat.evaluate(np.array([[0.0, 3.0, 0.0]]))[0]))


def test_anonymous_coders_allow_only_the_one_way_model() -> None:
    # Items × values counts: item 1 got 2, 2, 3; item 2 got 1, 3, 3; item 3 got 1, 1, 2.
    table = ReliabilityData.from_agreement_table(
        [[0, 2, 1], [1, 0, 2], [2, 1, 0]], domain=[1, 2, 3]
    )
    slots = [[2, 1, 1], [2, 3, 1], [3, 3, 2]]
    assert icc(table, model="oneway") == icc(slots, model="oneway")
    with pytest.raises(ValueError, match="coder identities"):
        icc(table)
    with pytest.raises(ValueError, match="coder identities"):
        icc_table(table)
