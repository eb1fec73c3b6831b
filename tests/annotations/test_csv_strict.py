"""Strict CSV input (issue 13, finding 3): a row with more or fewer fields than the header
is refused with its 1-based file line, and numbers follow one rule (ASCII digits, sign,
decimal point, exponent) in the bulk upload, the span upload and the rules themselves.

Before the fix the bulk upload dropped a row's extra field, padded a short row, and stored
``1_000`` as 1000 and ``١٢`` (Arabic-Indic digits) as 12.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Annotation, AnnotationChange, Study
from studies.text_rules import (
    CsvReadError,
    CsvRow,
    NumberFormatError,
    parse_number,
    parse_whole_number,
    read_csv,
    text_lines,
)
from tests.annotations.span_setup import SpanScheme, build_span_scheme, spans_url
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url

RULE = "ASCII digits with an optional sign, decimal point and exponent, e.g. -2.5 or 1e-3"


# The number rule ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "number"),
    [
        ("3", 3.0),
        ("-2.5", -2.5),
        ("+4", 4.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1e3", 1000.0),
        ("-1.5E-2", -0.015),
        (" 7 ", 7.0),
        ("\t-0.25\t", -0.25),
    ],
)
def test_the_number_rule_reads_ascii_decimal_numbers(text: str, number: float) -> None:
    assert parse_number(text) == number


@pytest.mark.parametrize(
    "text",
    [
        "1_000",  # Python's float() takes digit group underscores
        "١٢",  # Arabic-Indic digits: float() reads 12
        "１２",  # fullwidth digits
        "1,000",
        "inf",
        "-Infinity",
        "nan",
        "0x10",
        "1e",
        ".",
        "",
        "+-1",
        "\u00a03",  # a no-break space around the number: float() strips it, the rule does not
    ],
)
def test_the_number_rule_refuses_anything_else(text: str) -> None:
    with pytest.raises(NumberFormatError) as error:
        parse_number(text)
    assert error.value.message == f"{text!r} is not a number: write {RULE}."


def test_a_number_too_large_for_a_float_is_refused() -> None:
    with pytest.raises(NumberFormatError) as error:
        parse_number("1e999")
    assert error.value.message == "'1e999' is too large a number."


@pytest.mark.parametrize("text", ["-1", "1.0", "١", "1e2", "+3", ""])
def test_whole_numbers_are_ascii_digits_only(text: str) -> None:
    assert parse_whole_number(" 12 ") == 12
    with pytest.raises(NumberFormatError):
        parse_whole_number(text)


# The CSV reader ------------------------------------------------------------------------------


def test_rows_carry_the_file_line_they_start_on() -> None:
    text = '\ufeffitem,coder,label\r\n\r\n"doc\n1",alice,pos\r\ndoc-2,bob,"a\r\nb"\r\n,,\r\nd3,c,x'
    header, rows = read_csv(text)
    assert header == ["item", "coder", "label"]
    assert list(rows) == [
        CsvRow(3, ["doc\n1", "alice", "pos"]),
        CsvRow(5, ["doc-2", "bob", "a\r\nb"]),
        CsvRow(8, ["d3", "c", "x"]),
    ]


@pytest.mark.parametrize(
    ("text", "message", "line"),
    [
        ("a,b\n1,2\n3,4,5\n", "Line 3 has 3 fields; the header has 2.", 3),
        ("a,b\n1,2\n3\n", "Line 3 has 1 field; the header has 2.", 3),
        ('a,b\n"x\ny",2\n"p\nq"\n', "Line 4 has 1 field; the header has 2.", 4),
        ('a,b\n1,2\n"open,3\n', "Line 3 is not well-formed CSV: unexpected end of data.", 3),
    ],
)
def test_a_row_that_does_not_fit_the_header_is_refused_with_its_line(
    text: str, message: str, line: int
) -> None:
    _, rows = read_csv(text)
    with pytest.raises(CsvReadError) as error:
        list(rows)
    assert (error.value.message, error.value.line) == (message, line)


def test_a_reader_that_reports_rows_one_by_one_goes_on_after_a_bad_row() -> None:
    refused: list[tuple[int, str]] = []
    _, rows = read_csv(
        "a,b\n1,2\n3,4,5\n6\n7,8\n", reject=lambda e: refused.append((e.line, e.code))
    )
    assert list(rows) == [CsvRow(2, ["1", "2"]), CsvRow(5, ["7", "8"])]
    assert refused == [(3, "field_count"), (4, "field_count")]


def test_a_streamed_body_keeps_line_separators_inside_cells() -> None:
    body = '\ufeffa,b\r\n"x\u2028y",2\n'.encode()
    header, rows = read_csv(text_lines(io.BytesIO(body), chunk_size=3))
    assert (header, list(rows)) == (["a", "b"], [CsvRow(2, ["x\u2028y", "2"])])


# The bulk upload ------------------------------------------------------------------------------


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def post_bulk_csv(client: APIClient, scheme: Scheme, text: str, question: str) -> Any:
    return client.post(
        f"{bulk_url(scheme.study)}?round=Round%201&question={question}",
        data=text.encode(),
        content_type="text/csv",
    )


def nothing_stored(study: Study) -> bool:
    return not Annotation.objects.filter(question__study=study).exists() and not (
        AnnotationChange.objects.filter(study=study).exists()
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "attr", "detail"),
    [
        (
            "item,coder,label\ndoc-1,alice,pos\ndoc-2,alice,pos,extra\n",
            "line 3",
            "Line 3 has 4 fields; the header has 3.",
        ),
        (
            "item,coder,label\ndoc-1,alice,pos\ndoc-2,alice\n",
            "line 3",
            "Line 3 has 2 fields; the header has 3.",
        ),
        (
            'item,coder,label\n"doc\n1",alice,pos\n\ndoc-2,bob,neg,\n',
            "line 5",
            "Line 5 has 4 fields; the header has 3.",
        ),
    ],
)
def test_a_bulk_csv_row_with_a_wrong_field_count_is_a_400_naming_its_line(
    annotator_client: APIClient, scheme: Scheme, text: str, attr: str, detail: str
) -> None:
    response = post_bulk_csv(annotator_client, scheme, text, "sentiment")
    assert response.status_code == 400
    assert response.json() == {
        "type": "validation_error",
        "errors": [{"code": "field_count", "detail": detail, "attr": attr}],
    }
    assert nothing_stored(scheme.study)


@pytest.mark.django_db
def test_bulk_csv_numbers_follow_the_one_rule(annotator_client: APIClient, scheme: Scheme) -> None:
    text = "item,coder,label\ndoc-1,alice,1_000\ndoc-1,bob,١٢\ndoc-2,alice,inf\ndoc-2,bob,1e999\n"
    response = post_bulk_csv(annotator_client, scheme, text, "age")
    assert response.status_code == 400
    assert response.json() == {
        "type": "validation_error",
        "errors": [
            {
                "code": "not_a_number",
                "detail": f"'1_000' is not a number: write {RULE}.",
                "attr": "annotations.0.label",
            },
            {
                "code": "not_a_number",
                "detail": f"'١٢' is not a number: write {RULE}.",
                "attr": "annotations.1.label",
            },
            {
                "code": "not_a_number",
                "detail": f"'inf' is not a number: write {RULE}.",
                "attr": "annotations.2.label",
            },
            {
                "code": "not_a_number",
                "detail": "'1e999' is too large a number.",
                "attr": "annotations.3.label",
            },
        ],
    }
    assert nothing_stored(scheme.study)


@pytest.mark.django_db
def test_bulk_csv_numbers_by_the_rule_are_stored(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    text = "item,coder,label\ndoc-1,alice,-2.5e0\ndoc-1,bob, +.5 \n"
    response = post_bulk_csv(annotator_client, scheme, text, "score")
    assert response.status_code == 200, response.json()
    assert dict(
        Annotation.objects.filter(question=scheme.score).values_list("coder__key", "number")
    ) == {"alice": -2.5, "bob": 0.5}


@pytest.mark.django_db
def test_a_json_label_given_as_text_follows_the_same_rule(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = annotator_client.post(
        bulk_url(scheme.study),
        {
            "round": "Round 1",
            "question": "age",
            "annotations": [
                {"item": "doc-1", "coder": "alice", "label": "1_000"},
                {"item": "doc-2", "coder": "alice", "label": 40},
            ],
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {
        "type": "validation_error",
        "errors": [
            {
                "code": "not_a_number",
                "detail": f"'1_000' is not a number: write {RULE}.",
                "attr": "annotations.0.label",
            }
        ],
    }


# The span upload ------------------------------------------------------------------------------


@pytest.fixture
def span_scheme(study: Study) -> SpanScheme:
    return build_span_scheme(study)


def post_span_csv(client: APIClient, scheme: SpanScheme, text: str) -> Any:
    return client.post(
        f"{spans_url(scheme.study)}?round=Round%201&question=entities",
        data=text.encode(),
        content_type="text/csv",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("text", "attr", "detail"),
    [
        (
            "document,coder,begin,end,label\ndoc-1,alice,0,5,PER\ndoc-1,bob,0,5,PER,x\n",
            "line 3",
            "Line 3 has 6 fields; the header has 5.",
        ),
        (
            "document,coder,begin,end,label\ndoc-1,alice,0,5,PER\n\ndoc-1,bob,,\n",
            "line 4",
            "Line 4 has 4 fields; the header has 5.",
        ),
    ],
)
def test_a_span_csv_row_with_a_wrong_field_count_is_a_400_naming_its_line(
    annotator_client: APIClient, span_scheme: SpanScheme, text: str, attr: str, detail: str
) -> None:
    response = post_span_csv(annotator_client, span_scheme, text)
    assert response.status_code == 400
    assert response.json() == {
        "type": "validation_error",
        "errors": [{"code": "field_count", "detail": detail, "attr": attr}],
    }
    assert not Annotation.objects.filter(question=span_scheme.entities).exists()


@pytest.mark.django_db
def test_span_offsets_follow_the_one_number_rule(
    annotator_client: APIClient, span_scheme: SpanScheme
) -> None:
    text = (
        "document,coder,begin,end,label\n"
        "doc-1,alice,0,1_0,PER\n"
        "doc-1,bob,٠,5,PER\n"
        "doc-2,alice,nan,5,PER\n"
    )
    response = post_span_csv(annotator_client, span_scheme, text)
    assert response.status_code == 400
    assert response.json() == {
        "type": "validation_error",
        "errors": [
            {
                "code": "not_a_number",
                "detail": "line 2: The end '1_0' is not a finite number.",
                "attr": "line 2.end",
            },
            {
                "code": "not_a_number",
                "detail": "line 3: The begin '٠' is not a finite number.",
                "attr": "line 3.begin",
            },
            {
                "code": "not_a_number",
                "detail": "line 4: The begin 'nan' is not a finite number.",
                "attr": "line 4.begin",
            },
        ],
    }
