"""Rankings: mid-ranks, Kendall's W against published examples and scipy, alpha against the
krippendorff package, the consensus, the report."""

from __future__ import annotations

import json
from itertools import combinations

import numpy as np
import pytest
from scipy import stats

from metrics.errors import InputError
from metrics.structured.rankings import (
    RankingData,
    consensus_agreement,
    decompose_kendall_w,
    decompose_ranking_alpha,
    footrule_distance,
    kendall_tau_distance,
    kendall_w,
    ranking_alpha,
    ranking_report,
    read_rankings,
)
from tests.metrics.structured.conftest import krippendorff_alpha_with


def _one_item(matrix: list[list[float]]) -> RankingData:
    """Coders (rows) × options (columns) of scores on one item."""
    rows = [
        ("item", f"c{c}", f"o{o:02d}", float(value))
        for c, scores in enumerate(matrix)
        for o, value in enumerate(scores)
    ]
    items, coders, options, ranks = zip(*rows, strict=True)
    return RankingData.from_long(items, coders, options, ranks)


# -- mid-ranks --------------------------------------------------------------------------------


def test_ranks_are_read_as_an_order_and_turned_into_midranks() -> None:
    # The example: 1, 2, 2, 4 becomes 1, 2.5, 2.5, 4; so does 1, 2, 2, 3.
    for ranks in ([1, 2, 2, 4], [1, 2, 2, 3], [10, 20, 20, 30]):
        data = RankingData.from_long(["q"] * 4, ["a"] * 4, list("wxyz"), ranks)
        assert data.slot_midrank.tolist() == [1.0, 2.5, 2.5, 4.0]
        assert data.ranking_ties.tolist() == [6.0]


def test_a_partial_ranking_places_the_rest_last_tied() -> None:
    data = RankingData.from_long(
        ["q"] * 5, ["a", "a", "b", "b", "b"], list("xyxyz"), [1, 2, 1, 2, 3]
    )
    # a ranked x, y of x, y, z: z is third.  b ranked all three.
    assert data.slot_midrank.tolist() == [1.0, 2.0, 3.0, 1.0, 2.0, 3.0]
    assert data.completed == 1
    data = RankingData.from_long(["q"] * 4, ["a", "b", "b", "b"], list("xxyz"), [1, 3, 2, 1])
    assert data.slot_midrank.tolist() == [1.0, 2.5, 2.5, 3.0, 2.0, 1.0]


# -- Kendall's W ------------------------------------------------------------------------------


def test_kendall_w_without_ties_siegel_castellan() -> None:
    # docs/references.md#kendall-w-siegel-castellan
    ranks = [
        [5, 6, 7, 1, 2, 4, 3, 8],
        [1, 7, 6, 2, 3, 5, 4, 8],
        [4, 5, 1, 3, 2, 7, 6, 8],
    ]
    result = kendall_w(_one_item(ranks))
    assert result.value == pytest.approx(0.6560847, abs=5e-8)
    assert result.chi2 == pytest.approx(13.778, abs=5e-4)
    assert result.df == 7
    assert result.p == pytest.approx(0.05528, abs=5e-6)


def test_kendall_w_with_ties_anxiety_ratings() -> None:
    # docs/references.md#kendall-w-anxiety
    rater1 = [3, 3, 3, 4, 5, 5, 2, 3, 5, 2, 2, 6, 1, 5, 2, 2, 1, 2, 4, 3]
    rater2 = [3, 6, 4, 6, 2, 4, 2, 4, 3, 3, 2, 3, 3, 3, 2, 2, 1, 3, 3, 4]
    rater3 = [2, 1, 4, 4, 3, 2, 1, 6, 1, 1, 1, 2, 3, 3, 1, 1, 3, 3, 2, 2]
    result = kendall_w(_one_item([rater1, rater2, rater3]))
    assert result.value == pytest.approx(0.5396569, abs=5e-8)
    assert result.chi2 == pytest.approx(30.76, abs=5e-3)
    assert result.df == 19
    assert result.p == pytest.approx(0.04288, abs=5e-6)


ROUNDING_TIMES = [
    [5.40, 5.50, 5.55], [5.85, 5.70, 5.75], [5.20, 5.60, 5.50], [5.55, 5.50, 5.40],
    [5.90, 5.85, 5.70], [5.45, 5.55, 5.60], [5.40, 5.40, 5.35], [5.45, 5.50, 5.35],
    [5.25, 5.15, 5.00], [5.85, 5.80, 5.70], [5.25, 5.20, 5.10], [5.65, 5.55, 5.45],
    [5.60, 5.35, 5.45], [5.05, 5.00, 4.95], [5.50, 5.50, 5.40], [5.45, 5.55, 5.50],
    [5.55, 5.55, 5.35], [5.45, 5.50, 5.55], [5.50, 5.45, 5.25], [5.65, 5.60, 5.40],
    [5.70, 5.65, 5.55], [6.30, 6.30, 6.25],
]  # fmt: skip


def test_kendall_w_reproduces_r_friedman_test_rounding_times() -> None:
    # docs/references.md#friedman-rounding-times: 22 players (coders) × 3 methods (options).
    result = kendall_w(_one_item(ROUNDING_TIMES))
    assert result.chi2 == pytest.approx(11.143, abs=5e-4)
    assert result.df == 2
    assert result.p == pytest.approx(0.003805, abs=5e-7)
    assert result.value == pytest.approx(0.2532468, abs=5e-8)


def test_chi2_equals_scipy_friedmanchisquare_and_m_n_minus_1_w() -> None:
    # docs/references.md#scipy-friedmanchisquare (peer, live)
    rng = np.random.default_rng(11)
    for _ in range(30):
        m, n = int(rng.integers(2, 9)), int(rng.integers(3, 7))
        scores = rng.integers(1, 4, size=(m, n)).astype(float)  # many ties
        data = _one_item(scores.tolist())
        items = kendall_w(data).items
        if items[0].value is None:
            continue
        expected = stats.friedmanchisquare(*scores.T).statistic
        assert items[0].chi2 == pytest.approx(expected, rel=1e-12)
        assert items[0].chi2 == pytest.approx(m * (n - 1) * items[0].value, rel=1e-12)


def test_mean_over_items_and_summed_test() -> None:
    # Two items written out: item 1 two identical rankings of 3 options (W = 1, χ² = 4);
    # item 2 two reversed rankings (W = 0, χ² = 0). Mean 1/2, χ² 4 on 4 df.
    data = RankingData.from_long(
        [1] * 6 + [2] * 6,
        list("aaabbb") * 2,
        list("xyz") * 4,
        [1, 2, 3, 1, 2, 3, 1, 2, 3, 3, 2, 1],
    )
    result = kendall_w(data)
    assert [item.value for item in result.items] == [1.0, 0.0]
    assert result.value == 0.5
    assert (result.chi2, result.df) == (4.0, 4)
    assert result.p == pytest.approx(stats.chi2.sf(4.0, 4))
    assert float(decompose_kendall_w(data).evaluate()) == 0.5


def test_undefined_items_are_reported_with_a_reason() -> None:
    data = RankingData.from_long(
        [1, 1, 2, 2, 2, 2, 3, 3],
        ["a", "a", "a", "a", "b", "b", "a", "b"],
        ["x", "y", "x", "y", "x", "y", "x", "x"],
        [1, 2, 1, 1, 2, 2, 1, 1],
    )
    reasons = [item.reason for item in kendall_w_items_of(data)]
    assert "two coders" in reasons[0]
    assert "tied every option" in reasons[1]
    assert "two options" in reasons[2]
    with pytest.raises(ValueError, match="undefined on every item"):
        kendall_w(data)


def kendall_w_items_of(data: RankingData) -> tuple:
    from metrics.structured.rankings import kendall_w_items

    return kendall_w_items(data)


# -- distances and alpha ----------------------------------------------------------------------


def kendall_reference(first: tuple[float, ...], second: tuple[float, ...]) -> float:
    """Pairs ordered differently, a pair tied in exactly one ranking counting one half."""
    total = 0.0
    pairs = list(combinations(range(len(first)), 2))
    for j, k in pairs:
        a, b = np.sign(first[j] - first[k]), np.sign(second[j] - second[k])
        total += 1.0 if a * b < 0 else 0.5 if (a == 0) != (b == 0) else 0.0
    return total / len(pairs)


def footrule_reference(first: tuple[float, ...], second: tuple[float, ...]) -> float:
    n = len(first)
    return sum(abs(a - b) for a, b in zip(first, second, strict=True)) / (n * n // 2)


def test_distance_hand_cases() -> None:
    # docs/references.md#ranking-distance-hand-cases
    assert kendall_tau_distance([1, 2, 3, 4], [4, 3, 2, 1]) == 1.0
    assert kendall_tau_distance([1, 2, 3, 4], [2, 1, 3, 4]) == pytest.approx(1 / 6)
    assert kendall_tau_distance([1, 2, 3, 4], [1, 2.5, 2.5, 4]) == pytest.approx(0.5 / 6)
    assert kendall_tau_distance([1.5, 1.5, 3], [1.5, 1.5, 3]) == 0.0
    assert footrule_distance([1, 2, 3, 4], [4, 3, 2, 1]) == 1.0  # 8 / ⌊16/2⌋
    assert footrule_distance([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]) == 1.0  # 12 / ⌊25/2⌋
    assert footrule_distance([1, 2, 3], [2, 1, 3]) == pytest.approx(2 / 4)


def _random_rankings(seed: int, n_items: int = 20, n_options: int = 4) -> RankingData:
    rng = np.random.default_rng(seed)
    rows = []
    for item in range(n_items):
        base = rng.permutation(n_options)
        for coder in ("ann", "bob", "cy", "di"):
            if rng.random() < 0.25:
                continue
            ranks = base + rng.integers(0, 3, n_options)  # noisy copies with ties
            rows += [(item, coder, f"o{o}", float(ranks[o] + 1)) for o in range(n_options)]
    items, coders, options, ranks = zip(*rows, strict=True)
    return RankingData.from_long(items, coders, options, ranks)


def _value_rows(data: RankingData) -> list[tuple[object, object, tuple[float, ...]]]:
    n = data.options_per_item[0]
    matrix = data.slot_midrank.reshape(-1, n)
    return [
        (int(data.ranking_item[r]), int(data.ranking_coder[r]), tuple(matrix[r].tolist()))
        for r in range(data.n_rankings)
    ]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kendall_alpha_equals_krippendorff_with_the_same_callable(seed: int) -> None:
    # docs/references.md#krippendorff-callable-distances
    data = _random_rankings(seed)
    expected = krippendorff_alpha_with(_value_rows(data), kendall_reference)
    assert ranking_alpha(data).value == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", [4, 5])
def test_footrule_alpha_equals_krippendorff_with_the_same_callable(seed: int) -> None:
    # docs/references.md#krippendorff-callable-distances
    data = _random_rankings(seed, n_options=5)
    expected = krippendorff_alpha_with(_value_rows(data), footrule_reference)
    assert ranking_alpha(data, distance="footrule").value == pytest.approx(expected, abs=1e-9)


def test_alpha_hand_worked() -> None:
    # docs/references.md#ranking-alpha-hand-case
    data = RankingData.from_long(
        [1] * 6 + [2] * 6,
        list("aaabbb") * 2,
        list("xyz") * 4,
        [1, 2, 3, 1, 2, 3, 1, 2, 3, 3, 2, 1],
    )
    # Four rankings: x>y>z three times, z>y>x once (Kendall distance 1).
    # D_o = (1/4)·2·1 = 1/2; D_e = 2·3·1·1/(4·3) = 1/2: alpha = 0.
    result = ranking_alpha(data)
    assert (result.observed, result.expected) == (pytest.approx(0.5), pytest.approx(0.5))
    assert result.value == pytest.approx(0.0, abs=1e-15)
    decomposition = decompose_ranking_alpha(data)
    assert float(decomposition.evaluate()) == pytest.approx(0.0, abs=1e-15)


def test_alpha_refuses_one_item_and_different_option_sets() -> None:
    one = RankingData.from_long([1] * 4, list("aabb"), list("xyxy"), [1, 2, 2, 1])
    with pytest.raises(ValueError, match="at least two items"):
        ranking_alpha(one)
    mixed = RankingData.from_long([1, 1, 2, 2], list("abab"), list("xxyy"), [1, 1, 1, 1])
    with pytest.raises(ValueError, match="same options in every item"):
        ranking_alpha(mixed)


# -- consensus --------------------------------------------------------------------------------


def test_consensus_of_the_others() -> None:
    # docs/references.md#ranking-consensus-hand-case: four coders, one item of three options.
    # a, b, c rank x > y > z; d ranks y > x > z. For a the others' rank sums are x 4, y 5,
    # z 9: the consensus is x > y > z, a agrees (0). For d the others all say x > y > z; d
    # swaps x and y: one pair of three (1/3).
    data = RankingData.from_long(
        [1] * 12, list("aaabbbcccddd"), list("xyz") * 4, [1, 2, 3] * 3 + [2, 1, 3]
    )
    result = consensus_agreement(data)
    assert [result[c].distance for c in "abc"] == [0.0, 0.0, 0.0]
    assert result["d"].distance == pytest.approx(1 / 3)
    assert result["d"].tau == pytest.approx(1 / 3)
    assert result["d"].items == 1


def test_consensus_equals_a_plain_computation() -> None:
    data = _random_rankings(7, n_items=15)
    n = data.options_per_item[0]
    matrix = data.slot_midrank.reshape(-1, n)
    expected: dict[int, list[float]] = {}
    for r in range(data.n_rankings):
        item = data.ranking_item[r]
        others = [s for s in range(data.n_rankings) if data.ranking_item[s] == item and s != r]
        if not others:
            continue
        mean = matrix[others].mean(axis=0)
        expected.setdefault(int(data.ranking_coder[r]), []).append(
            kendall_reference(tuple(matrix[r]), tuple(mean))
        )
    result = consensus_agreement(data)
    for coder, values in expected.items():
        assert result[data.coders[coder]].distance == pytest.approx(np.mean(values), abs=1e-12)


# -- report and reader ------------------------------------------------------------------------


def test_report_shape_with_bootstrap() -> None:
    data = _random_rankings(3, n_items=30)
    report = ranking_report(data, bootstrap=200, seed=2)
    w = report["coefficients"]["kendall_w"]
    assert set(w) >= {"value", "chi2", "df", "p", "items", "ci"}
    assert len(w["items"]) == 30
    alpha = report["coefficients"]["alpha"]
    assert alpha["value"] == pytest.approx(ranking_alpha(data).value)
    assert alpha["ci"]["replicates"] == 200
    assert report["coefficients"]["alpha_footrule"]["distance"] == "footrule"
    assert set(report["coders"]) == {"ann", "bob", "cy", "di"}
    assert ranking_report(data, bootstrap=200, seed=2) == report
    json.dumps(report)


def test_report_items_coders_and_disputed() -> None:
    # Item 1: a and b agree (W = 1); item 2: reversed (W = 0); item 3: b ranks only x, so y
    # and z are tied last for b (completed), a ranks x > y > z: R = (2, 4.5, 5.5), centre 4,
    # S = 4 + 0.25 + 2.25 = 6.5, ΣT = 2³ - 2 = 6, W = 12 · 6.5 / (4 · 24 - 2 · 6) = 13/14.
    data = RankingData.from_long(
        [1] * 6 + [2] * 6 + [3] * 4,
        list("aaabbb") * 2 + list("aaab"),
        list("xyz") * 4 + list("xyzx"),
        [1, 2, 3, 1, 2, 3, 1, 2, 3, 3, 2, 1, 1, 2, 3, 1],
    )
    report = ranking_report(data)
    items = report["coefficients"]["kendall_w"]["items"]
    assert [item["value"] for item in items] == pytest.approx([1.0, 0.0, 13 / 14])
    assert [(item["coders"], item["options"], item["df"]) for item in items] == [(2, 3, 2)] * 3
    assert report["completed"] == 1
    assert (report["n_items"], report["n_coders"], report["n_options"], report["n_rankings"]) == (
        3,
        2,
        3,
        6,
    )
    assert [entry["item"] for entry in report["disputed"]] == [2, 3, 1]


def test_report_with_one_item_has_the_classic_w_and_no_alpha() -> None:
    report = ranking_report(_one_item(ROUNDING_TIMES))
    assert report["coefficients"]["kendall_w"]["chi2"] == pytest.approx(11.143, abs=5e-4)
    assert report["coefficients"]["alpha"]["value"] is None
    assert "at least two items" in report["coefficients"]["alpha"]["reason"]


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("item,coder,option\n", "missing rank"),
        ("item,coder,option,rank\nq,a,x,one\n", "line 2, field 'rank': expected a number"),
        ("item,coder,option,rank\nq,a,x,0\n", "line 2, field 'rank': ranks start at 1"),
        ("item,coder,option,rank\nq,a,x,1\nq,a,x,2\n", "line 3, field 'option': coder 'a'"),
        ("item,coder,option,rank\nq,,x,1\n", "line 2, field 'coder': empty"),
    ],
)
def test_reader_errors_name_line_and_field(tmp_path, body: str, message: str) -> None:
    path = tmp_path / "ranks.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_rankings(path)
