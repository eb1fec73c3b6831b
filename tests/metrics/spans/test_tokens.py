"""Token-level alpha and kappa: hand cases, and the peers on the same position table.

Peers, live: ``krippendorff`` (PyPI; nominal alpha) and scikit-learn's ``cohen_kappa_score``
on the coders × positions table that :func:`token_reliability_data` builds; the library's own
``cohen_kappa``/``conger_kappa`` on that table for more coders and missing documents.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from metrics import cohen_kappa, conger_kappa, krippendorff_alpha
from metrics.spans.data import SpanData
from metrics.spans.tokens import (
    decompose_token_agreement,
    token_agreement,
    token_reliability_data,
)

krippendorff = importlib.import_module("krippendorff")
sklearn_metrics = importlib.import_module("sklearn.metrics")

# Hand case (docs/references.md#token-agreement-hand-case). Document d [0, 10): ann PER
# [1, 3), bob PER [2, 4). Document f [0, 5): ann LOC [0, 2), bob annotated and found nothing.
# Document e [0, 4): only ann (PER [0, 4)), left out.
#
#   d  position  0  1    2    3    4..9        f  position  0    1    2..4
#      ann       O  PER  PER  O    O              ann       LOC  LOC  O
#      bob       O  O    PER  PER  O              bob       O    O    O
#
# 15 positions, 4 disagree (d1, d3, f0, f1). Alpha, nominal: n = 30 values, n_PER = 4,
# n_LOC = 2, n_O = 24; D_o = 4 · 2 / 30 = 8/30; D_e = (30² − 4² − 2² − 24²) / (30 · 29) =
# 304/870; alpha = 1 − (8/30) / (304/870) = 9/38.
# Kappa: A_o = 11/15; ann PER 2, LOC 2, O 11; bob PER 2, LOC 0, O 13; A_e = (2·2 + 2·0 +
# 11·13) / 15² = 147/225; kappa = (165 − 147) / (225 − 147) = 18/78 = 3/13.
HAND = [
    ("d", "ann", 1, 3, "PER"),
    ("d", "bob", 2, 4, "PER"),
    ("e", "ann", 0, 4, "PER"),
    ("f", "ann", 0, 2, "LOC"),
]
HAND_EXTENTS = {"d": (0, 10), "e": (0, 4), "f": (0, 5)}


@pytest.fixture
def hand() -> SpanData:
    return SpanData.from_units(HAND, extents=HAND_EXTENTS, annotated=[("f", "bob")])


def test_hand_case_table(hand: SpanData) -> None:
    table = token_reliability_data(hand)
    assert table.domain == ("LOC", "PER", "O")
    assert table.coders == ("ann", "bob")
    assert table.codes.tolist() == [
        [2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 0, 0, 2, 2, 2],
        [2, 2, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    ]
    assert len(table.items) == 15
    assert table.items[0] == ("d", 0)
    assert table.items[11] == ("f", 1)
    assert list(table.items)[-1] == ("f", 4)
    assert table.items[10:12] == [("f", 0), ("f", 1)]


def test_hand_case_alpha(hand: SpanData) -> None:
    result = token_agreement(hand)
    assert result.value == pytest.approx(9 / 38, abs=1e-12)
    assert result.observed == pytest.approx(8 / 30, abs=1e-12)
    assert result.expected == pytest.approx(304 / 870, abs=1e-12)
    assert (result.n_items, result.n_pairable_items, result.kind) == (15, 15, "disagreement")


def test_hand_case_kappa(hand: SpanData) -> None:
    result = token_agreement(hand, "kappa")
    assert result.value == pytest.approx(3 / 13, abs=1e-12)
    assert result.observed == pytest.approx(11 / 15, abs=1e-12)
    assert result.expected == pytest.approx(147 / 225, abs=1e-12)
    assert result.kind == "agreement"


def test_hand_case_against_the_peers(hand: SpanData) -> None:
    codes = token_reliability_data(hand).codes
    peer_alpha = krippendorff.alpha(
        reliability_data=codes.astype(float), level_of_measurement="nominal"
    )
    assert peer_alpha == pytest.approx(9 / 38, abs=1e-12)
    assert sklearn_metrics.cohen_kappa_score(codes[0], codes[1]) == pytest.approx(3 / 13, abs=1e-12)


def test_decomposition_sums_positions_per_document(hand: SpanData) -> None:
    alpha = decompose_token_agreement(hand)
    assert alpha.name == "token_alpha"
    assert alpha.n_items == 3  # d, e, f
    rows = np.asarray(alpha.item_stats)
    # Columns [D_o contribution, n_LOC, n_PER, n_O]; e has a zero row.
    assert rows.tolist() == [[4.0, 0.0, 4.0, 16.0], [0.0, 0.0, 0.0, 0.0], [4.0, 2.0, 0.0, 8.0]]
    assert float(alpha.evaluate()) == pytest.approx(9 / 38, abs=1e-12)
    kappa = decompose_token_agreement(hand, "kappa")
    assert float(kappa.evaluate()) == pytest.approx(3 / 13, abs=1e-12)


def test_overlapping_categories_are_refused_or_resolved() -> None:
    data = SpanData.from_units(
        [("d", "ann", 0, 6, "ORG"), ("d", "ann", 2, 4, "LOC"), ("d", "bob", 0, 6, "ORG")],
        extents={"d": (0, 8)},
    )
    with pytest.raises(ValueError, match=r"'d', coder 'ann': position 2 .*'LOC' and 'ORG'"):
        token_reliability_data(data)
    with pytest.raises(ValueError, match="overlaps='first'"):
        token_agreement(data)
    # The first unit by begin is ORG [0, 6): ann's positions are ORG 0..5, O 6..7 like bob's.
    table = token_reliability_data(data, overlaps="first")
    assert table.codes.tolist() == [[1, 1, 1, 1, 1, 1, 2, 2], [1, 1, 1, 1, 1, 1, 2, 2]]
    assert token_agreement(data, overlaps="first").value == 1.0


def test_overlapping_units_of_one_category_are_no_conflict() -> None:
    data = SpanData.from_units(
        [("d", "ann", 0, 4, "X"), ("d", "ann", 2, 6, "X"), ("d", "bob", 0, 6, "X")],
        extents={"d": (0, 8)},
    )
    assert token_reliability_data(data).codes.tolist() == [[0] * 6 + [1] * 2] * 2


def test_errors() -> None:
    seconds = SpanData.from_units([("d", "a", 0.5, 2, "X"), ("d", "b", 0, 2, "X")])
    with pytest.raises(ValueError, match=r"integer offsets.*begin 0\.5"):
        token_agreement(seconds)
    data = SpanData.from_units([("d", "a", 0, 2, "O"), ("d", "b", 0, 2, "O")])
    with pytest.raises(ValueError, match="also a category"):
        token_agreement(data)
    assert token_reliability_data(data, outside="-").domain == ("O", "-")
    lone = SpanData.from_units([("d", "a", 0, 2, "X")], extents={"d": (0, 4)})
    with pytest.raises(ValueError, match="two coders"):
        token_agreement(lone)
    same = SpanData.from_units([], extents={"d": (0, 4)}, annotated=[("d", "a"), ("d", "b")])
    with pytest.raises(ValueError, match="undefined"):
        token_agreement(same)
    with pytest.raises(ValueError, match="coefficient must be"):
        token_agreement(same, "pi")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="overlaps must be"):
        token_agreement(same, overlaps="last")  # type: ignore[arg-type]


def _random_spans(seed: int) -> SpanData:
    rng = np.random.default_rng(seed)
    n_coders = int(rng.integers(2, 5))
    units, extents, annotated = [], {}, []
    for d in range(int(rng.integers(1, 6))):
        length = int(rng.integers(0, 40))
        extents[f"d{d}"] = (0, length)
        for c in range(n_coders):
            if rng.random() < 0.2:
                continue
            annotated.append((f"d{d}", f"c{c}"))
            position = 0
            while position < length and rng.random() < 0.8:
                begin = int(rng.integers(position, length))
                end = min(length, begin + int(rng.integers(1, 7)))
                units.append((f"d{d}", f"c{c}", begin, end, str(rng.choice(["A", "B", "C"]))))
                position = end
    return SpanData.from_units(units, extents=extents, annotated=annotated)


@pytest.mark.parametrize("seed", range(40))
def test_against_krippendorff_and_kappa_on_the_position_table(seed: int) -> None:
    data = _random_spans(seed)
    try:
        table = token_reliability_data(data)
    except ValueError:
        pytest.skip("no position")
    values = np.where(table.codes < 0, np.nan, table.codes).astype(float)
    try:
        ours = token_agreement(data)
    except ValueError:
        with pytest.raises(ValueError, match="Alpha"):
            krippendorff_alpha(table)
        return
    peer = krippendorff.alpha(reliability_data=values, level_of_measurement="nominal")
    assert ours.value == pytest.approx(peer, abs=1e-10)
    assert ours.n_items == table.n_items
    kappa = cohen_kappa if data.n_coders == 2 else conger_kappa
    try:
        expected = kappa(table)
    except ValueError:
        return
    result = token_agreement(data, "kappa")
    assert result.value == pytest.approx(expected.value, abs=1e-10)
    assert result.observed == pytest.approx(expected.observed, abs=1e-10)
    assert result.expected == pytest.approx(expected.expected, abs=1e-10)


def _painted(data: SpanData) -> list[list[int]]:
    """The position table by plain Python: each coder's units painted position by position,
    the first unit (by begin, end, category) winning; only documents two coders annotated."""
    outside = len(data.categories)
    rows: list[list[int]] = [[] for _ in data.coders]
    units = sorted(
        zip(data.document.tolist(), data.coder.tolist(), data.begin.tolist(),
            data.end.tolist(), data.category.tolist(), strict=True),
        key=lambda u: (u[2], u[3], u[4]),
    )  # fmt: skip
    for d in range(data.n_documents):
        if data.annotated[d].sum() < 2:
            continue
        low, high = (int(x) for x in data.extents[d])
        for c in range(data.n_coders):
            if not data.annotated[d, c]:
                rows[c] += [-1] * (high - low)
                continue
            labels: dict[int, int] = {}
            for doc, coder, begin, end, category in units:
                if doc == d and coder == c:
                    for position in range(int(begin), int(end)):
                        labels.setdefault(position, category)
            rows[c] += [labels.get(p, outside) for p in range(low, high)]
    return rows


@pytest.mark.parametrize("seed", range(30))
def test_first_unit_wins_like_a_python_painter(seed: int) -> None:
    rng = np.random.default_rng(seed)
    units = []
    for d in range(3):
        for coder in ("a", "b", "c"):
            for _ in range(int(rng.integers(0, 6))):
                begin = int(rng.integers(0, 20))
                end = begin + int(rng.integers(0, 9))
                units.append((f"d{d}", coder, begin, end, str(rng.choice(["A", "B", "C"]))))
    data = SpanData.from_units(units, extents={f"d{d}": (0, 30) for d in range(3)}, complete=True)
    table = token_reliability_data(data, overlaps="first")
    assert table.codes.tolist() == _painted(data)
