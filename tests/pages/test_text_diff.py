"""The word-level marks of the per-item view of a text question (``pages.text_diff``;
docs/references.md#word-diff-hand-cases):
literal HTML, every text escaped."""

from __future__ import annotations

from pages.text_diff import MAX_DIFF_TOKENS, word_diff


def test_equal_texts_have_no_marks() -> None:
    assert word_diff("A dog runs.", "A dog runs.") == "A dog runs."


def test_a_replaced_word_is_struck_out_and_the_new_words_added() -> None:
    assert word_diff("A dog runs.", "A dog is running.") == (
        "A dog <del>runs.</del><ins>is running.</ins>"
    )


def test_an_added_and_a_missing_word() -> None:
    assert word_diff("Two cats.", "Two cats sleep.") == "Two <del>cats.</del><ins>cats sleep.</ins>"
    assert word_diff("A red bus", "A bus") == "A <del>red </del>bus"
    assert word_diff("A bus", "A red bus") == "A <ins>red </ins>bus"


def test_from_and_to_the_empty_text() -> None:
    assert word_diff("", "A bus") == "<ins>A bus</ins>"
    assert word_diff("A bus", "") == "<del>A bus</del>"


def test_markup_in_the_texts_is_escaped() -> None:
    assert word_diff("<b>bold</b> & co", "<i>bold</i> & co") == (
        "<del>&lt;b&gt;bold&lt;/b&gt;</del><ins>&lt;i&gt;bold&lt;/i&gt;</ins> &amp; co"
    )


def test_texts_too_long_to_compare_get_no_diff() -> None:
    long = "word " * MAX_DIFF_TOKENS
    assert word_diff(long, "word") is None
