"""Pairwise preferences: alpha against the krippendorff package, position bias against
scipy's binomial test, circular triads against Kendall & Babington Smith's score formula."""

from __future__ import annotations

import json
from math import comb

import krippendorff
import numpy as np
import pytest
from scipy import stats

from metrics.errors import InputError
from metrics.structured.preferences import (
    PreferenceData,
    circular_triads,
    decompose_preference_alpha,
    position_bias,
    preference_alpha,
    preference_report,
    read_preferences,
)


def _random(seed: int, n_items: int = 40, with_options: bool = False) -> PreferenceData:
    rng = np.random.default_rng(seed)
    rows = []
    options = [f"r{k}" for k in range(6)]
    for item in range(n_items):
        truth = str(rng.choice(["A", "B", "tie"], p=[0.45, 0.45, 0.1]))
        a, b = rng.choice(6, size=2, replace=False)
        for coder in ("ann", "bob", "cy"):
            if rng.random() < 0.2:
                continue
            choice = truth if rng.random() < 0.7 else str(rng.choice(["A", "B", "tie"]))
            shown = str(rng.choice(["A", "B", ""]))
            rows.append((item, coder, choice, shown or None, options[a], options[b]))
    items, coders, choices, shown, first, second = zip(*rows, strict=True)
    if with_options:
        return PreferenceData.from_long(
            items, coders, choices, shown, option_a=first, option_b=second
        )
    return PreferenceData.from_long(items, coders, choices, shown)


def _matrix(data: PreferenceData) -> np.ndarray:
    """Coders × items of choice codes 0 (A), 1 (tie), 2 (B), nan missing."""
    matrix = np.full((data.n_coders, data.n_items), np.nan)
    matrix[data.coder_index, data.item_index] = data.choice
    return matrix


# -- alpha ------------------------------------------------------------------------------------


def test_alpha_hand_worked() -> None:
    # docs/references.md#preference-alpha-hand-case
    data = PreferenceData.from_long(
        [1, 1, 2, 2, 3, 3, 4, 4], list("abababab"), ["A", "A", "B", "B", "A", "tie", "tie", "B"]
    )
    result = preference_alpha(data)
    assert result.observed == pytest.approx(1 / 2)
    assert result.expected == pytest.approx(3 / 4)
    assert result.value == pytest.approx(1 / 3)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_alpha_equals_krippendorff(seed: int) -> None:
    # docs/references.md#krippendorff-callable-distances (peer, live: nominal and ordinal)
    data = _random(seed)
    matrix = _matrix(data)
    nominal = krippendorff.alpha(matrix, value_domain=[0, 1, 2], level_of_measurement="nominal")
    ordinal = krippendorff.alpha(matrix, value_domain=[0, 1, 2], level_of_measurement="ordinal")
    assert preference_alpha(data).value == pytest.approx(nominal, abs=1e-9)
    assert preference_alpha(data, scale="ordinal").value == pytest.approx(ordinal, abs=1e-9)
    decomposition = decompose_preference_alpha(data, scale="ordinal")
    assert float(decomposition.evaluate()) == pytest.approx(ordinal, abs=1e-9)


# -- position bias ----------------------------------------------------------------------------


def test_position_bias_hand_case() -> None:
    # docs/references.md#position-bias-hand-case: 9 of 10 non-tie choices picked the first
    # shown; two-sided exact binomial p = 2 · (C(10,9) + C(10,10)) / 2^10 = 22/1024.
    choices = ["A"] * 9 + ["B", "tie"]
    data = PreferenceData.from_long(range(11), ["ann"] * 11, choices, shown_first=["A"] * 11)
    result = position_bias(data).coders["ann"]
    assert (result.k, result.n, result.share_first) == (9, 10, 0.9)
    assert result.p == pytest.approx(2 * (comb(10, 9) + comb(10, 10)) / 2**10)


def test_position_bias_equals_scipy_binomtest_per_coder_and_overall() -> None:
    # docs/references.md#scipy-binomtest (peer, live)
    data = _random(4, n_items=200)
    result = position_bias(data)
    usable = (data.choice != 1) & (data.shown_first != -1)
    first = usable & (data.choice == data.shown_first)
    for c, name in enumerate(data.coders):
        k = int((first & (data.coder_index == c)).sum())
        n = int((usable & (data.coder_index == c)).sum())
        assert (result.coders[name].k, result.coders[name].n) == (k, n)
        assert result.coders[name].p == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-12)
    k, n = int(first.sum()), int(usable.sum())
    assert result.overall.p == pytest.approx(stats.binomtest(k, n, 0.5).pvalue, rel=1e-12)


def test_position_bias_without_usable_choices() -> None:
    data = PreferenceData.from_long([1, 2], ["a", "a"], ["tie", "A"], shown_first=["A", None])
    result = position_bias(data).coders["a"]
    assert (result.share_first, result.n, result.p) == (None, 0, None)


# -- circular triads --------------------------------------------------------------------------


def _tournament(beats: list[tuple[str, str]], coder: str = "ann") -> PreferenceData:
    items = list(range(len(beats)))
    return PreferenceData.from_long(
        items,
        [coder] * len(beats),
        ["A"] * len(beats),
        option_a=[w for w, _ in beats],
        option_b=[loser for _, loser in beats],
    )


def test_circular_triads_hand_cases() -> None:
    # docs/references.md#circular-triads-hand-cases
    cycle = circular_triads(_tournament([("x", "y"), ("y", "z"), ("z", "x")]))["ann"]
    assert (cycle.triads, cycle.circular, cycle.zeta) == (1, 1, 0.0)
    ordered = circular_triads(_tournament([("x", "y"), ("y", "z"), ("x", "z")]))["ann"]
    assert (ordered.triads, ordered.circular, ordered.zeta) == (1, 0, 1.0)
    # Five options, each beating the next two (a regular tournament): every option wins
    # twice, d = 5·4·9/12 - (1/2)·5·4 = 5 = d_max for n = 5, so ζ = 0.
    names = "vwxyz"
    regular = [(names[i], names[(i + k) % 5]) for i in range(5) for k in (1, 2)]
    result = circular_triads(_tournament(regular))["ann"]
    assert (result.options, result.pairs, result.triads, result.circular) == (5, 10, 10, 5)
    assert result.zeta == 0.0


def test_circular_triads_equal_the_score_formula_on_random_tournaments() -> None:
    # docs/references.md#circular-triads-hand-cases: Kendall & Babington Smith (1940),
    # d = n(n-1)(2n-1)/12 - (1/2) Σ a_i² with a_i the wins of option i; ζ = 1 - d/d_max.
    rng = np.random.default_rng(5)
    for n in (4, 5, 6, 7):
        names = [f"o{i}" for i in range(n)]
        beats = []
        wins = np.zeros(n)
        for i in range(n):
            for j in range(i + 1, n):
                winner, loser = (i, j) if rng.random() < 0.5 else (j, i)
                wins[winner] += 1
                beats.append((names[winner], names[loser]))
        d = n * (n - 1) * (2 * n - 1) / 12 - 0.5 * float((wins**2).sum())
        d_max = (n**3 - n) / 24 if n % 2 else (n**3 - 4 * n) / 24
        result = circular_triads(_tournament(beats))["ann"]
        assert result.circular == d
        assert result.triads == comb(n, 3)
        assert result.zeta == pytest.approx(1 - d / d_max)


def test_ties_and_repeated_pairs() -> None:
    # x–y judged twice one way and once the other (net x > y), y–z a tie, x–z once.
    data = PreferenceData.from_long(
        [1, 2, 3, 4, 5],
        ["ann"] * 5,
        ["A", "A", "B", "tie", "A"],
        option_a=["x", "x", "x", "y", "z"],
        option_b=["y", "y", "y", "z", "x"],
    )
    result = circular_triads(data)["ann"]
    assert (result.options, result.pairs, result.triads, result.circular) == (3, 2, 0, 0)
    assert result.zeta is None  # y–z has no preference: not a complete tournament


def test_triads_need_options() -> None:
    with pytest.raises(ValueError, match="option_a and option_b"):
        circular_triads(_random(1))


# -- data, report, reader ---------------------------------------------------------------------


def test_data_refusals() -> None:
    with pytest.raises(ValueError, match="choice 1 is 'C'"):
        PreferenceData.from_long([1, 2], ["a", "a"], ["A", "C"])
    with pytest.raises(ValueError, match="more than once"):
        PreferenceData.from_long([1, 1], ["a", "a"], ["A", "B"])
    with pytest.raises(ValueError, match="name different options"):
        PreferenceData.from_long(
            [1, 1], ["a", "b"], ["A", "B"], option_a=["x", "x"], option_b=["y", "z"]
        )


def test_report_shape_with_bootstrap() -> None:
    data = _random(6, n_items=60, with_options=True)
    report = preference_report(data, bootstrap=200, seed=1)
    assert report["coefficients"]["alpha"]["value"] == pytest.approx(preference_alpha(data).value)
    assert report["coefficients"]["alpha"]["ci"]["replicates"] == 200
    assert report["coefficients"]["alpha_ordinal"]["scale"] == "ordinal: A < tie < B"
    assert set(report["position_bias"]) == {"ann", "bob", "cy"}
    assert set(report["position_bias"]["ann"]) == {"share_first", "n", "p"}
    assert set(report["consistency"]["ann"]) == {"options", "pairs", "triads", "circular", "zeta"}
    assert sum(report["choices"].values()) == data.n_annotations
    json.dumps(report)
    assert "consistency" not in preference_report(_random(6))


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("item,coder,choice\n1,a,A\n", "missing shown_first"),
        ("item,coder,choice,shown_first\n1,a,C,A\n", "line 2, field 'choice': expected A, B"),
        ("item,coder,choice,shown_first\n1,a,A,X\n", "line 2, field 'shown_first'"),
        ("item,coder,choice,shown_first\n1,a,A,A\n1,a,B,A\n", "line 3, field 'coder'"),
        ("item,coder,choice,shown_first,option_a\n1,a,A,A,x\n", "line 1: give both option_a"),
        (
            "item,coder,choice,shown_first,option_a,option_b\n1,a,A,A,x,y\n1,b,A,A,x,z\n",
            "line 3, field 'option_a': item '1' compares 'x' and 'y' on line 2",
        ),
    ],
)
def test_reader_errors_name_line_and_field(tmp_path, body: str, message: str) -> None:
    path = tmp_path / "prefs.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_preferences(path)


def test_reader_reads_case_and_empty_shown_first(tmp_path) -> None:
    path = tmp_path / "prefs.csv"
    path.write_text("item,coder,choice,shown_first\n1,a,a,b\n1,b,TIE,\n", encoding="utf-8")
    data = read_preferences(path)
    assert data.choice.tolist() == [0, 1]
    assert data.shown_first.tolist() == [2, -1]
