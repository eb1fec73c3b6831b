"""Streamed CSV bodies are read in work proportional to their size, each line at most
``AGREEMENT_CSV_MAX_LINE_BYTES`` bytes (issue 25, finding 4).

Before the fix ``text_lines`` split its whole growing buffer again for every 64 KB chunk
of a long line: 50 MB took 6.2 s and 200 MB 92 s before the 400, with no limit on the
streamed path. The work is counted here in characters searched and bytes read, never in
seconds: doubling the input at most doubles it, and a line over the limit stops the
reading one chunk past the limit.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import IO, Any

import pytest
from django.core.management import CommandError, call_command
from django.test import override_settings
from rest_framework.test import APIClient

import studies.text_rules
from annotations.api import parsers
from studies.models import Annotation, AnnotationChange, Study
from studies.text_rules import CsvReadError, text_lines
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url
from tests.proportion import CountingStream, searched_characters

CHUNK = 1 << 16  # text_lines' chunk of a request body
LIMIT = 1 << 20  # AGREEMENT_CSV_MAX_LINE_BYTES's default
HEADER = b"item,coder,label\n"


def read_all(body: bytes, *, chunk_size: int) -> list[str]:
    return list(text_lines(io.BytesIO(body), chunk_size=chunk_size))


# The line reader -----------------------------------------------------------------------------


@override_settings(AGREEMENT_CSV_MAX_LINE_BYTES=1 << 22)
@pytest.mark.parametrize(
    "body",
    [
        pytest.param(lambda size: b"x" * size + b"\n", id="one long line"),
        pytest.param(lambda size: HEADER + b"d,a," + b"x" * size, id="a long last line"),
        pytest.param(
            lambda size: b"".join(b"x" * (size // 16) + b"\r\n" for _ in range(16)),
            id="lines of many chunks",
        ),
    ],
)
def test_doubling_a_line_at_most_doubles_the_characters_searched(
    body: Callable[[int], bytes],
) -> None:
    def searched(size: int) -> int:
        data = body(size)
        with searched_characters(studies.text_rules) as work:
            lines = read_all(data, chunk_size=1024)
        assert "".join(lines).encode() == data
        return work.amount

    small, large = searched(1 << 18), searched(1 << 19)
    assert small <= 4 * (1 << 18)
    assert large <= 2 * small


@override_settings(AGREEMENT_CSV_MAX_LINE_BYTES=1 << 16)
@pytest.mark.parametrize("size", [1 << 20, 1 << 21])
def test_a_line_over_the_limit_stops_the_reading_one_chunk_past_the_limit(size: int) -> None:
    stream = CountingStream(HEADER + b"d," + b"x" * size + b"\n")
    lines = text_lines(stream, chunk_size=4096)
    with pytest.raises(CsvReadError) as raised:
        list(lines)
    assert (raised.value.code, raised.value.line) == ("line_too_long", 2)
    assert raised.value.message == (
        "Line 2 is longer than 65,536 bytes, the limit of a CSV line "
        "(AGREEMENT_CSV_MAX_LINE_BYTES)."
    )
    assert stream.bytes_read <= len(HEADER) + (1 << 16) + 4096


@pytest.mark.parametrize("chunk_size", [1, 3, 7, 64, 1 << 16])
def test_the_lines_are_the_same_whatever_the_chunk(chunk_size: int) -> None:
    text = '\ufeffitem,coder,label\r\n"a\nb",é,\u2028x\n\nlast, ✓ ,no end'
    assert read_all(text.encode(), chunk_size=chunk_size) == [
        "item,coder,label\r\n",
        '"a\n',
        'b",é,\u2028x\n',
        "\n",
        "last, ✓ ,no end",
    ]


@pytest.mark.parametrize(
    ("body", "line"),
    [
        (b"x" * 65 + b"\n", 1),  # the line end counts
        (HEADER + b"x" * 66, 2),  # the last line, without an end
        (HEADER + b"ok\n" + b"x" * 80 + b"\nok\n", 3),  # inside a chunk larger than the limit
    ],
)
@pytest.mark.parametrize("chunk_size", [1, 16, 1024])
def test_the_limit_counts_bytes_and_names_the_line(body: bytes, line: int, chunk_size: int) -> None:
    with pytest.raises(CsvReadError) as raised:
        list(text_lines(io.BytesIO(body), chunk_size=chunk_size, max_line_bytes=65))
    assert (raised.value.code, raised.value.line) == ("line_too_long", line)


def test_a_line_at_the_limit_is_read() -> None:
    body = "é" * 32 + "\n" + "x" * 64  # 65 bytes with its end, then 64 without one
    lines = list(text_lines(io.BytesIO(body.encode()), chunk_size=7, max_line_bytes=65))
    assert lines == ["é" * 32 + "\n", "x" * 64]


# The bulk upload ------------------------------------------------------------------------------


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


@pytest.fixture
def body_reads(monkeypatch: pytest.MonkeyPatch) -> list[CountingStream]:
    """The request bodies the CSV parser reads, each counting the bytes read from it."""
    streams: list[CountingStream] = []
    read_lines = parsers.text_lines

    def counted(stream: IO[bytes], **options: Any) -> Any:
        streams.append(CountingStream(stream.read()))
        return read_lines(streams[-1], **options)

    monkeypatch.setattr(parsers, "text_lines", counted)
    return streams


def post_csv(client: APIClient, scheme: Scheme, body: bytes, query: str = "") -> Any:
    return client.post(
        f"{bulk_url(scheme.study)}?round=Round%201&question=sentiment{query}",
        data=body,
        content_type="text/csv",
    )


def nothing_stored(study: Study) -> bool:
    return not Annotation.objects.filter(question__study=study).exists() and not (
        AnnotationChange.objects.filter(study=study).exists()
    )


def too_long(line: int, limit: int = LIMIT) -> dict[str, Any]:
    return {
        "type": "validation_error",
        "errors": [
            {
                "code": "line_too_long",
                "detail": f"Line {line} is longer than {limit:,} bytes, the limit of a CSV line "
                "(AGREEMENT_CSV_MAX_LINE_BYTES).",
                "attr": f"line {line}",
            }
        ],
    }


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", "&partial=true"])
def test_the_probe_one_line_of_megabytes_is_a_400_on_line_1_read_to_the_limit(
    annotator_client: APIClient, scheme: Scheme, body_reads: list[CountingStream], query: str
) -> None:
    response = post_csv(annotator_client, scheme, b"item," * (1 << 20), query)
    assert response.status_code == 400
    assert response.json() == too_long(1)
    assert body_reads[0].bytes_read <= LIMIT + CHUNK
    assert nothing_stored(scheme.study)


@pytest.mark.django_db
@override_settings(AGREEMENT_CSV_MAX_LINE_BYTES=1 << 16)
@pytest.mark.parametrize("query", ["", "&partial=true"])
def test_a_line_over_the_limit_refuses_the_whole_upload(
    annotator_client: APIClient, scheme: Scheme, query: str
) -> None:
    body = HEADER + b"doc-1,alice,pos\n" + b"doc-2,alice," + b"x" * (1 << 18) + b"\n"
    response = post_csv(annotator_client, scheme, body, query)
    assert response.status_code == 400
    assert response.json() == too_long(3, 1 << 16)
    assert nothing_stored(scheme.study)


@pytest.mark.django_db
@override_settings(AGREEMENT_CSV_MAX_LINE_BYTES=1 << 22)
def test_doubling_a_bulk_line_at_most_doubles_the_characters_searched(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    def searched(size: int) -> int:
        with searched_characters(studies.text_rules) as work:
            response = post_csv(annotator_client, scheme, HEADER + b"d,a," + b"x" * size)
        assert response.status_code == 400  # a cell over the CSV reader's field limit
        return work.amount

    assert searched(1 << 21) <= 2 * searched(1 << 20)


@pytest.mark.django_db
@override_settings(AGREEMENT_CSV_MAX_LINE_BYTES=1 << 16)
def test_the_import_command_names_a_line_over_the_limit(scheme: Scheme, tmp_path: Any) -> None:
    path = tmp_path / "crowd.csv"
    path.write_bytes(HEADER + b"doc-1,alice," + b"x" * (1 << 17) + b"\n")
    with pytest.raises(CommandError) as raised:
        call_command(
            "annotations_import_csv",
            str(scheme.study.pk),
            scheme.round.name,
            "sentiment",
            str(path),
            "--partial",
            stdout=io.StringIO(),
        )
    assert str(raised.value) == (
        "Nothing was imported:\n  line 2: Line 2 is longer than 65,536 bytes, the limit of a "
        "CSV line (AGREEMENT_CSV_MAX_LINE_BYTES)."
    )
