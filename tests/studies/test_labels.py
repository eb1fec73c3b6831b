"""Parsing and formatting labels per question kind (no database needed)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from studies.labels import CategoryRow, LabelError, LabelScheme, format_number

NOMINAL = LabelScheme(
    kind="nominal",
    categories=[CategoryRow(1, "pos", None, 0), CategoryRow(2, "neg", None, 1)],
)
ORDINAL = LabelScheme(
    kind="ordinal",
    categories=[CategoryRow(5, "1", None, 0), CategoryRow(6, "2", None, 1)],
)
SET = LabelScheme(
    kind="set",
    categories=[
        CategoryRow(10, "sports", None, 2),
        CategoryRow(11, "politics", None, 0),
        CategoryRow(12, "culture", None, 1),
    ],
)
TREE = LabelScheme(
    kind="hierarchy",
    categories=[
        CategoryRow(20, "animal", None, 0),
        CategoryRow(21, "dog", 20, 1),
        CategoryRow(22, "puppy", 21, 2),
        CategoryRow(23, "plant", None, 3),
    ],
)
RATIO = LabelScheme(kind="ratio", max_value=120)
INTERVAL = LabelScheme(kind="interval", min_value=-5, max_value=5)


def error_code(scheme: LabelScheme, raw: Any) -> str:
    with pytest.raises(LabelError) as caught:
        scheme.parse(raw)
    return caught.value.code


def test_a_category_is_parsed_by_its_code() -> None:
    assert NOMINAL.parse("neg") == (2, None, None)
    assert NOMINAL.parse("  pos ") == (1, None, None)


def test_an_ordinal_code_may_be_sent_as_a_json_integer() -> None:
    assert ORDINAL.parse(2) == (6, None, None)


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("meh", "unknown_category"),
        (["pos"], "set_for_single_label"),
        ("pos|neg", "set_for_single_label"),
        ("", "required"),
        (None, "required"),
        (True, "invalid_type"),
        ({"code": "pos"}, "invalid_type"),
    ],
)
def test_a_bad_category_names_its_problem(raw: Any, code: str) -> None:
    assert error_code(NOMINAL, raw) == code


def test_a_set_is_parsed_from_pipes_a_list_or_json_text_in_any_order() -> None:
    expected = (None, None, (10, 11))
    assert SET.parse("sports|politics") == expected
    assert SET.parse(["politics", "sports", "sports"]) == expected
    assert SET.parse('["sports", "politics"]') == expected
    assert SET.parse("culture") == (None, None, (12,))


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("sports|chess", "unknown_category"),
        ([], "empty_set"),
        ("|", "empty_set"),
        ("", "required"),
        ([1.5], "invalid_type"),
    ],
)
def test_a_bad_set_names_its_problem(raw: Any, code: str) -> None:
    assert error_code(SET, raw) == code


def test_a_set_is_written_in_declared_order() -> None:
    label = SET.parse("sports|politics|culture")

    assert SET.text(label) == "politics|culture|sports"
    assert SET.json_value(label) == ["politics", "culture", "sports"]


def test_a_node_is_parsed_by_code_or_by_path() -> None:
    assert TREE.parse("puppy") == (22, None, None)
    assert TREE.parse("animal/dog/puppy") == (22, None, None)
    assert TREE.parse("/animal/dog/") == (21, None, None)
    assert TREE.path((22, None, None)) == "animal/dog/puppy"
    assert TREE.text((22, None, None)) == "puppy"


@pytest.mark.parametrize(
    ("raw", "code"),
    [
        ("cat", "unknown_node"),
        ("plant/dog", "unknown_node"),
        ("dog/puppy", "unknown_node"),
        ("dog|plant", "set_for_single_label"),
        (["dog"], "set_for_single_label"),
    ],
)
def test_a_bad_node_names_its_problem(raw: Any, code: str) -> None:
    assert error_code(TREE, raw) == code


def test_numbers_are_parsed_from_json_numbers_or_text() -> None:
    assert RATIO.parse(42) == (None, 42.0, None)
    assert RATIO.parse("7.25") == (None, 7.25, None)
    assert INTERVAL.parse(-5) == (None, -5.0, None)
    assert INTERVAL.parse("5") == (None, 5.0, None)


@pytest.mark.parametrize(
    ("scheme", "raw", "code"),
    [
        (RATIO, "abc", "not_a_number"),
        (RATIO, "nan", "not_a_number"),
        (RATIO, "inf", "not_a_number"),
        (RATIO, [1], "not_a_number"),
        (RATIO, True, "not_a_number"),
        (RATIO, 121, "number_out_of_range"),
        (RATIO, -0.5, "number_out_of_range"),
        (INTERVAL, -5.01, "number_out_of_range"),
        (INTERVAL, "", "required"),
    ],
)
def test_a_bad_number_names_its_problem(scheme: LabelScheme, raw: Any, code: str) -> None:
    assert error_code(scheme, raw) == code


def test_numbers_have_a_canonical_text() -> None:
    assert format_number(3.0) == "3"
    assert format_number(-2.5) == "-2.5"
    assert format_number(1e20) == "1e+20"
    assert RATIO.text((None, 42.0, None)) == "42"


@given(st.floats(min_value=-5, max_value=5))
def test_a_number_survives_its_canonical_text(number: float) -> None:
    label = INTERVAL.parse(number)

    assert INTERVAL.parse(INTERVAL.text(label)) == label


@given(st.sets(st.sampled_from(["sports", "politics", "culture"]), min_size=1))
def test_a_set_survives_its_canonical_text(codes: set[str]) -> None:
    label = SET.parse(sorted(codes))

    assert SET.parse(SET.text(label)) == label
