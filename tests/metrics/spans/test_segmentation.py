"""P_k and WindowDiff: equal to NLTK's (live, NLTK is a test extra) on its doctests and on
random segmentations, and on span data against NLTK run on boundary strings built here."""

from __future__ import annotations

import importlib
from itertools import combinations

import numpy as np
import pytest

from metrics.spans.data import SpanData
from metrics.spans.segmentation import (
    decompose_segmentation,
    pk,
    segmentation_agreement,
    window_diff,
)

nltk_segmentation = importlib.import_module("nltk.metrics.segmentation")


def test_nltk_doctest_examples() -> None:
    # docs/references.md#nltk-segmentation-doctests: nltk.metrics.segmentation doctests
    # (NLTK 3.10.4), printed there as '%.2f'.
    assert f"{pk('0100' * 100, '1' * 400, 2):.2f}" == "0.50"
    assert f"{pk('0100' * 100, '0' * 400, 2):.2f}" == "0.50"
    assert f"{pk('0100' * 100, '0100' * 100, 2):.2f}" == "0.00"
    s1, s2, s3 = "000100000010", "000010000100", "100000010000"
    assert f"{window_diff(s1, s1, 3):.2f}" == "0.00"
    assert f"{window_diff(s1, s2, 3):.2f}" == "0.30"
    assert f"{window_diff(s2, s3, 3):.2f}" == "0.80"
    # The same cases, live and to full precision.
    assert pk("0100" * 100, "1" * 400, 2) == nltk_segmentation.pk("0100" * 100, "1" * 400, 2)
    assert window_diff(s2, s3, 3) == nltk_segmentation.windowdiff(s2, s3, 3)


def test_hand_case() -> None:
    # docs/references.md#segmentation-hand-case
    # ref 0010010000, hyp 0010001000, k 2: windows start at 0..8 (9). ref has a boundary in
    # windows 1, 2 (index 2) and 4, 5 (index 5); hyp in 1, 2 and 5, 6. Windows 4 and 6
    # differ: P_k = WindowDiff = 2/9.
    assert pk("0010010000", "0010001000", 2) == pytest.approx(2 / 9)
    assert window_diff("0010010000", "0010001000", 2) == pytest.approx(2 / 9)
    # Default k: round(10 / (2 · 2)) = round(2.5) = 2 (Python rounds half to even).
    assert pk("0010010000", "0010001000") == pytest.approx(2 / 9)
    # Weighted WindowDiff: 1100 vs 0000 with k 2 has counts 2, 1, 0 against 0: (2 + 1) / 3.
    assert window_diff("1100", "0000", 2, weighted=True) == pytest.approx(1.0)
    assert window_diff([1, 1, 0, 0], [0, 0, 0, 0], 2, boundary=1) == pytest.approx(2 / 3)


@pytest.mark.parametrize("seed", range(30))
def test_against_nltk_on_random_strings(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for _ in range(20):
        n = int(rng.integers(1, 60))
        share = rng.random() * 0.5
        ref = "".join(np.where(rng.random(n) < share, "1", "0"))
        hyp = "".join(np.where(rng.random(n) < share, "1", "0"))
        k = int(rng.integers(0, n + 1))
        assert pk(ref, hyp, k) == nltk_segmentation.pk(ref, hyp, k)
        assert pk(ref, hyp) == nltk_segmentation.pk(ref, hyp)
        assert window_diff(ref, hyp, k) == nltk_segmentation.windowdiff(ref, hyp, k)
        weighted = nltk_segmentation.windowdiff(ref, hyp, k, weighted=True)
        assert window_diff(ref, hyp, k, weighted=True) == pytest.approx(weighted, abs=1e-12)


def test_string_errors() -> None:
    with pytest.raises(ValueError, match="unequal length"):
        pk("010", "01")
    with pytest.raises(ValueError, match="between 0 and the length 3"):
        window_diff("010", "010", 4)
    with pytest.raises(ValueError, match="integer"):
        pk("010", "010", 1.5)  # type: ignore[arg-type]


# -- on spans --------------------------------------------------------------------------------


def test_spans_hand_case() -> None:
    # docs/references.md#segmentation-hand-case
    # d [0, 10): ann [2, 5), bob [2, 6) -> 0010010000 and 0010001000 (above): 2 errors in 9
    # windows (k = round(10 / 4) = 2). e [0, 6): ann [0, 6) (no inner boundary), bob [1, 3)
    # -> 000000 and 010100; k = round(6 / max(2, 2)) = 3, windows 0..3: bob has a boundary
    # in all four, ann in none: 4 errors of 4 for P_k and WindowDiff.
    # Pooled: (2 + 4) / (9 + 4) = 6/13.
    data = SpanData.from_units(
        [("d", "ann", 2, 5, "X"), ("d", "bob", 2, 6, "Y"),
         ("e", "ann", 0, 6, "X"), ("e", "bob", 1, 3, "X")],
        extents={"d": (0, 10), "e": (0, 6)},
    )  # fmt: skip
    result = segmentation_agreement(data)
    assert result.pk == pytest.approx(6 / 13)
    assert result.window_diff == pytest.approx(6 / 13)
    assert result.windows == 13
    (pair,) = result.pairs
    assert (pair.coders, pair.documents, pair.windows) == (("ann", "bob"), 2, 13)
    assert pk("000000", "010100", 3) == 1.0
    rows = decompose_segmentation(data, "pk")
    assert rows.item_stats.tolist() == [[2.0, 9.0], [4.0, 4.0]]
    assert float(rows.evaluate()) == pytest.approx(6 / 13)


def _strings(data: SpanData, document: int, coder: int) -> str:
    begin, end = (int(x) for x in data.extents[document])
    marks = ["0"] * (end - begin)
    for d, c, b, e in zip(data.document, data.coder, data.begin, data.end, strict=True):
        if d == document and c == coder:
            for at in (int(b), int(e)):
                if begin < at < end:
                    marks[at - begin] = "1"
    return "".join(marks)


def _random_spans(seed: int) -> SpanData:
    rng = np.random.default_rng(seed)
    coders = [f"c{i}" for i in range(int(rng.integers(2, 4)))]
    units, extents, annotated = [], {}, []
    for d in range(int(rng.integers(1, 5))):
        length = int(rng.integers(0, 50))
        extents[f"d{d}"] = (0, length)
        for coder in coders:
            if rng.random() < 0.2:
                continue
            annotated.append((f"d{d}", coder))
            for _ in range(int(rng.integers(0, 5)) if length else 0):
                begin = int(rng.integers(0, length))
                units.append((f"d{d}", coder, begin, int(rng.integers(begin, length + 1)), "X"))
    return SpanData.from_units(units, extents=extents, annotated=annotated)


@pytest.mark.parametrize("seed", range(30))
@pytest.mark.parametrize("fixed_k", [None, 3])
def test_spans_against_nltk(seed: int, fixed_k: int | None) -> None:
    data = _random_spans(seed)
    errors = np.zeros(2)
    windows = 0
    for a, b in combinations(range(data.n_coders), 2):
        for d in np.flatnonzero(data.annotated[:, a] & data.annotated[:, b]):
            first, second = _strings(data, d, a), _strings(data, d, b)
            n = len(first)
            if n == 0:
                continue
            boundaries = first.count("1") + second.count("1")
            k = min(fixed_k, n) if fixed_k else max(1, round(n / max(boundaries, 2)))
            count = n - k + 1
            errors += count * np.array(
                [nltk_segmentation.pk(first, second, k),
                 nltk_segmentation.windowdiff(first, second, k)]
            )  # fmt: skip
            windows += count
    if windows == 0:
        with pytest.raises(ValueError, match="positive length"):
            segmentation_agreement(data, k=fixed_k)
        return
    result = segmentation_agreement(data, k=fixed_k)
    assert result.windows == windows
    assert result.pk == pytest.approx(errors[0] / windows, abs=1e-12)
    assert result.window_diff == pytest.approx(errors[1] / windows, abs=1e-12)
    for measure, value in (("pk", result.pk), ("window_diff", result.window_diff)):
        decomposition = decompose_segmentation(data, measure, k=fixed_k)
        assert float(decomposition.evaluate()) == pytest.approx(value)


def test_span_errors() -> None:
    seconds = SpanData.from_units([("d", "a", 0.5, 2, "X"), ("d", "b", 0, 2, "X")])
    with pytest.raises(ValueError, match="integer offsets"):
        segmentation_agreement(seconds)
    data = SpanData.from_units([("d", "a", 0, 2, "X"), ("d", "b", 0, 2, "X")])
    with pytest.raises(ValueError, match="positive integer"):
        segmentation_agreement(data, k=0)
    apart = SpanData.from_units([("d", "a", 0, 2, "X"), ("e", "b", 0, 2, "X")])
    with pytest.raises(ValueError, match="annotated by two"):
        segmentation_agreement(apart)
    with pytest.raises(ValueError, match="measure must be"):
        decompose_segmentation(data, "ghd")  # type: ignore[arg-type]
