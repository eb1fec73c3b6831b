"""Free text: Levenshtein, token Jaccard, alpha against the krippendorff package, the report."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics import MatrixDistance
from metrics.errors import InputError
from metrics.structured.texts import (
    TextCodes,
    TextData,
    TokenSets,
    decompose_text_alpha,
    levenshtein,
    levenshtein_pairs,
    normalized_levenshtein,
    read_texts,
    text_alpha,
    text_report,
    token_jaccard,
)
from tests.metrics.structured.conftest import (
    jaccard_reference,
    krippendorff_alpha_with,
    levenshtein_reference,
    normalized_levenshtein_reference,
)

# -- distances --------------------------------------------------------------------------------


def test_levenshtein_textbook_pairs() -> None:
    # docs/references.md#levenshtein-hand-cases
    assert levenshtein("kitten", "sitting") == 3
    assert levenshtein("Saturday", "Sunday") == 3
    assert levenshtein("", "") == 0
    assert levenshtein("", "abc") == 3
    assert levenshtein("flaw", "lawn") == 2


def test_levenshtein_reads_code_points_case_sensitively_without_normalisation() -> None:
    # docs/references.md#levenshtein-hand-cases
    assert levenshtein("Ab", "ab") == 1
    assert levenshtein("café", "cafe") == 1
    assert (
        levenshtein("caf\u00e9", "cafe\u0301") == 2
    )  # composed vs decomposed é: 1 vs 2 code points
    assert levenshtein("🎉a", "a") == 1
    assert normalized_levenshtein("kitten", "sitting") == pytest.approx(3 / 7)
    assert normalized_levenshtein("", "") == 0.0


def test_levenshtein_pairs_equal_the_plain_dynamic_programme() -> None:
    rng = np.random.default_rng(7)
    letters = list("ab cé🎉XY")
    texts = ["".join(rng.choice(letters, size=int(rng.integers(0, 200)))) for _ in range(120)]
    texts += [text[:40] + "q" + text[40:] for text in texts[:40]]  # shared prefix and suffix
    texts += ["", " ", "a" * 64, "a" * 65, "b" * 128, "a" * 129]  # word boundaries
    codes = TextCodes.encode(texts)
    left = rng.integers(0, len(texts), 400)
    right = rng.integers(0, len(texts), 400)
    left[:40], right[:40] = np.arange(40), np.arange(120, 160)
    expected = [levenshtein_reference(texts[a], texts[b]) for a, b in zip(left, right, strict=True)]
    assert levenshtein_pairs(codes, left, right).tolist() == expected


def test_levenshtein_on_a_large_alphabet_and_long_texts() -> None:
    rng = np.random.default_rng(8)
    alphabet = [chr(0x4E00 + k) for k in range(3000)]  # CJK ideographs
    texts = ["".join(rng.choice(alphabet, size=int(rng.integers(20, 200)))) for _ in range(8)]
    texts += [texts[0][:60] + texts[1][:90], "".join(rng.choice(alphabet[:3], size=260))]
    codes = TextCodes.encode(texts)
    left, right = np.triu_indices(len(texts), k=1)
    expected = [levenshtein_reference(texts[a], texts[b]) for a, b in zip(left, right, strict=True)]
    assert levenshtein_pairs(codes, left, right).tolist() == expected


def test_token_jaccard_hand_cases() -> None:
    # docs/references.md#token-jaccard-hand-cases
    assert token_jaccard("A cat sat", "the CAT") == pytest.approx(1 - 1 / 4)
    assert token_jaccard("a b", "B  a") == 0.0
    assert token_jaccard("", "   ") == 0.0
    assert token_jaccard("x", "") == 1.0
    assert token_jaccard("a, b", "a b") == pytest.approx(1 - 1 / 3)  # "a," is not "a"


def test_token_sets_equal_the_plain_set_computation() -> None:
    rng = np.random.default_rng(3)
    words = ["a", "A", "b", "c,", "d", ""]
    texts = [" ".join(rng.choice(words, size=int(rng.integers(0, 6)))) for _ in range(60)]
    sets = TokenSets.encode(texts)
    left, right = rng.integers(0, 60, 400), rng.integers(0, 60, 400)
    expected = [jaccard_reference(texts[a], texts[b]) for a, b in zip(left, right, strict=True)]
    np.testing.assert_allclose(sets.distances(left, right), expected, atol=1e-15)


# -- alpha ------------------------------------------------------------------------------------


def _random_rows(seed: int, n_items: int = 25) -> list[tuple[int, str, str]]:
    rng = np.random.default_rng(seed)
    base = ["the cat sat", "a dog", "The Cat sat down", "", "a dog barks", "cat", "chat"]
    rows = []
    for item in range(n_items):
        for coder in ("ann", "bob", "cy", "di"):
            if rng.random() < 0.25:
                continue  # missing
            text = str(rng.choice(base))
            if rng.random() < 0.3:
                text += str(rng.choice([" x", "!", "s"]))
            rows.append((item, coder, text))
    return rows


def _data(rows: list[tuple[int, str, str]]) -> TextData:
    items, coders, texts = zip(*rows, strict=True)
    return TextData.from_long(list(items), list(coders), list(texts))


def test_alpha_hand_worked() -> None:
    # docs/references.md#text-alpha-hand-case
    data = TextData.from_long(
        [1, 1, 2, 2, 3, 3], list("ababab"), ["ab", "ab", "ab", "abcd", "", ""]
    )
    # Pairable values n = 6: "ab" ×3, "abcd" ×1, "" ×2. Distances: ab–abcd 2/4, ab–"" 1,
    # abcd–"" 1. D_o = (1/6)(2 · 0.5) = 1/6. D_e = 2(3·1·0.5 + 3·2·1 + 1·2·1)/(6·5) = 19/30.
    result = text_alpha(data)
    assert result.observed == pytest.approx(1 / 6)
    assert result.expected == pytest.approx(19 / 30)
    assert result.value == pytest.approx(1 - (1 / 6) / (19 / 30))
    assert (result.n_distinct, result.observed_pairs, result.expected_pairs) == (3, 1, 3)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_levenshtein_alpha_equals_krippendorff_with_the_same_callable(seed: int) -> None:
    # docs/references.md#krippendorff-callable-distances
    rows = _random_rows(seed)
    expected = krippendorff_alpha_with(rows, normalized_levenshtein_reference)
    assert text_alpha(_data(rows)).value == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize("seed", [4, 5])
def test_token_jaccard_alpha_equals_krippendorff_with_the_same_callable(seed: int) -> None:
    # docs/references.md#krippendorff-callable-distances
    rows = _random_rows(seed)
    expected = krippendorff_alpha_with(rows, jaccard_reference)
    assert text_alpha(_data(rows), distance="token_jaccard").value == pytest.approx(
        expected, abs=1e-9
    )


def test_user_supplied_distances_equal_krippendorff() -> None:
    # docs/references.md#krippendorff-callable-distances
    rows = _random_rows(6)
    data = _data(rows)
    rng = np.random.default_rng(0)
    size = data.n_texts
    weights = rng.random((size, size))
    weights = weights + weights.T
    np.fill_diagonal(weights, 0.0)
    position = {text: i for i, text in enumerate(data.texts)}

    def lookup(a: str, b: str) -> float:
        return float(weights[position[a], position[b]])

    expected = krippendorff_alpha_with(rows, lookup)
    matrix = MatrixDistance(weights, labels=list(data.texts))
    mapping = {(a, b): lookup(a, b) for a in data.texts for b in data.texts if a < b}
    for distance in (matrix, mapping, lookup):
        assert text_alpha(data, distance=distance).value == pytest.approx(expected, abs=1e-9)


def test_mapping_missing_a_pair_is_named() -> None:
    data = TextData.from_long([1, 1], ["a", "b"], ["x", "y"])
    with pytest.raises(ValueError, match="no entry for the texts 'x' and 'y'"):
        text_alpha(data, distance={("x", "z"): 1.0})


def test_streamed_expected_disagreement_equals_the_matrix_path() -> None:
    from metrics.structured._pairwise import pairwise_alpha
    from metrics.structured.texts.alpha import text_distance

    data = _data(_random_rows(8, n_items=40))
    _, pair = text_distance("levenshtein", data.texts)
    args = (data.item_index, data.text_code, data.n_items, data.n_texts, pair)
    in_matrix = pairwise_alpha(*args)
    streamed = pairwise_alpha(*args, matrix_limit=0)
    assert streamed.value == pytest.approx(in_matrix.value, abs=1e-12)
    assert streamed.expected_held
    assert not in_matrix.expected_held
    assert float(streamed.decomposition.evaluate()) == pytest.approx(streamed.value, abs=1e-12)


def test_token_jaccard_sums_from_shared_tokens_equal_pair_by_pair() -> None:
    from metrics.structured._pairwise import pairwise_alpha
    from metrics.structured.texts.alpha import text_distance

    rows = [*_random_rows(10, n_items=40), (99, "ann", "   "), (99, "bob", "")]
    data = _data(rows)
    _, jaccard = text_distance("token_jaccard", data.texts)
    args = (data.item_index, data.text_code, data.n_items, data.n_texts)

    def plain(left: np.ndarray, right: np.ndarray) -> np.ndarray:
        return jaccard(left, right)  # the same distance without the sums

    for limit in (5000, 0):
        fast = pairwise_alpha(*args, jaccard, matrix_limit=limit)
        slow = pairwise_alpha(*args, plain, matrix_limit=limit)
        assert fast.value == pytest.approx(slow.value, abs=1e-12)
        assert fast.expected == pytest.approx(slow.expected, abs=1e-12)


def test_decomposition_and_its_leave_one_out() -> None:
    data = _data(_random_rows(9))
    decomposition = decompose_text_alpha(data)
    assert float(decomposition.evaluate()) == pytest.approx(text_alpha(data).value, abs=1e-12)
    totals = decomposition.totals()
    stats = decomposition.item_stats.toarray()
    direct = decomposition.finalize(totals[None, :] - stats)
    assert decomposition.leave_one_out is not None
    updated = decomposition.leave_one_out(totals)(decomposition.item_stats)
    np.testing.assert_allclose(updated, direct, atol=1e-12, equal_nan=True)


def test_alpha_refusals() -> None:
    with pytest.raises(ValueError, match="at least one item with values from at least two"):
        text_alpha(TextData.from_long([1, 2], ["a", "a"], ["x", "y"]))
    with pytest.raises(ValueError, match="expected disagreement is 0"):
        text_alpha(TextData.from_long([1, 1], ["a", "b"], ["x", "x"]))
    data = _data(_random_rows(1))
    with pytest.raises(ValueError, match="over the limit of 2"):
        text_alpha(data, max_pairs=2)
    with pytest.raises(ValueError, match="Unknown text distance"):
        text_alpha(data, distance="cosine")


def test_data_refusals() -> None:
    with pytest.raises(ValueError, match="more than one text"):
        TextData.from_long([1, 1], ["a", "a"], ["x", "y"])
    with pytest.raises(ValueError, match="not a str"):
        TextData.from_long([1], ["a"], [None])  # type: ignore[list-item]


# -- report and reader ------------------------------------------------------------------------


def test_report_shape_and_bootstrap() -> None:
    data = _data(_random_rows(2, n_items=30))
    report = text_report(data, bootstrap=200, seed=5)
    alpha = report["coefficients"]["alpha"]
    assert alpha["value"] == pytest.approx(text_alpha(data).value)
    assert alpha["ci"]["replicates"] == 200
    assert alpha["ci"]["low"] <= alpha["value"]
    assert report["level"] == "text"
    assert report["distance"] == "levenshtein"
    assert text_report(data, bootstrap=200, seed=5) == report
    json.dumps(report)
    shares = [entry["observed_disagreement"] for entry in report["disputed"]]
    assert shares == sorted(shares, reverse=True)


def test_report_above_the_matrix_limit_holds_d_e(monkeypatch: pytest.MonkeyPatch) -> None:
    import functools

    import metrics.structured.texts.alpha as module

    monkeypatch.setattr(
        module, "pairwise_alpha", functools.partial(module.pairwise_alpha, matrix_limit=0)
    )
    data = _data(_random_rows(2, n_items=30))
    alpha = text_report(data, bootstrap=100, seed=5)["coefficients"]["alpha"]
    assert alpha["value"] == pytest.approx(text_alpha(data).value, abs=1e-12)
    assert "holds D_e at the full data's value" in alpha["ci_note"]
    assert alpha["ci"]["replicates"] == 100


def test_report_leaves_alpha_null_with_the_reason() -> None:
    data = TextData.from_long([1, 1], ["a", "b"], ["x", "x"])
    entry = text_report(data)["coefficients"]["alpha"]
    assert entry["value"] is None
    assert "expected disagreement is 0" in entry["reason"]


def test_reader_keeps_texts_as_written(tmp_path) -> None:
    path = tmp_path / "texts.csv"
    path.write_text(
        'item,coder,text\n1,ann, A cat \n1,bob,"two\nlines"\n2,ann,\n2,bob,x\n', encoding="utf-8"
    )
    data = read_texts(path)
    assert data.texts == (" A cat ", "two\nlines", "", "x")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ("item,coder\n1,a\n", "line 1: the CSV header must name item, coder, text; missing text"),
        ("item,coder,text\n1,,x\n", "line 2, field 'coder': empty"),
        ("item,coder,text\n1,a,x\n1,a,y\n", "line 3, field 'coder': coder 'a' already gave"),
        ("item,coder,text\n1,a\n", "line 2, field 'text': missing"),
    ],
)
def test_reader_errors_name_line_and_field(tmp_path, body: str, message: str) -> None:
    path = tmp_path / "texts.csv"
    path.write_text(body, encoding="utf-8")
    with pytest.raises(InputError, match=message):
        read_texts(path)
