"""CSV bodies. Bulk uploads: a header naming ``item``, ``coder`` and ``label``, one
annotation per line (UTF-8, an optional byte-order mark; other columns are ignored); a body
of more than ``MAX_BULK_ROWS`` rows, or a ``partial=true`` upload, is handed on as its lines
for the streaming ingest. Span
uploads: ``document,coder,begin,end,label``, read by ``annotations.spans``.

Both read rows with ``studies.text_rules.read_csv``: a row with more or fewer fields than
the header is a 400 on ``line <n>`` (code ``field_count``, the header being line 1), and a
cell the exports neutralised for spreadsheets (``'=x``) reads back as written (``=x``). A
header naming a column twice (case aside) is a 400 ``duplicate_column`` on ``line 1``."""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from typing import IO, Any

from rest_framework.exceptions import ErrorDetail, ParseError, ValidationError
from rest_framework.parsers import BaseParser

from annotations.services import MAX_BULK_ROWS, PayloadTooLargeError
from studies.text_rules import (
    DUPLICATE_COLUMN,
    CsvReadError,
    read_csv,
    repeated_column,
    repeated_column_message,
    restore_text,
    text_lines,
)

CSV_COLUMNS = ("item", "coder", "label")


TRUE_TEXTS = frozenset({"true", "1", "yes", "on"})


class _Recorded:
    """The lines of a stream, kept as they are read until ``stop`` (to read them again)."""

    def __init__(self, lines: Iterator[str]) -> None:
        self.lines = lines
        self.kept: list[str] | None = []

    def __iter__(self) -> Iterator[str]:
        for line in self.lines:
            if self.kept is not None:
                self.kept.append(line)
            yield line

    def replay(self) -> Iterator[str]:
        """Every line read so far, then the rest of the stream."""
        kept, self.kept = self.kept or [], None
        return itertools.chain(kept, self.lines)


def _wants_partial(parser_context: Mapping[str, Any] | None) -> bool:
    request = (parser_context or {}).get("request")
    value = request.query_params.get("partial", "") if request is not None else ""
    return str(value).strip().lower() in TRUE_TEXTS


class CsvParser(BaseParser):
    """Parses ``text/csv`` into ``{"annotations": [{"item", "coder", "label"}, ...]}``, or,
    for a body of more than ``MAX_BULK_ROWS`` rows or a ``partial=true`` upload, into
    ``{"csv_lines": <the body's lines, read lazily>}`` for the streaming ingest
    (``annotations.ingest``): the server never holds a large body's rows in memory.
    """

    media_type = "text/csv"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        if _wants_partial(parser_context):
            return {"csv_lines": text_lines(stream)}
        recorded = _Recorded(text_lines(stream))
        try:
            header, lines = read_csv(iter(recorded))
            columns = [name.strip().lower() for name in header]
            if not any(columns):
                raise ParseError("The CSV body is empty: a header item,coder,label is expected.")
            repeated = repeated_column(header, key=str.lower)
            if repeated is not None:
                message = repeated_column_message(repeated)
                raise ValidationError({"line 1": [ErrorDetail(message, code=DUPLICATE_COLUMN)]})
            missing = [name for name in CSV_COLUMNS if name not in columns]
            if missing:
                raise ParseError(
                    f"The CSV header lacks the column(s) {', '.join(missing)}; "
                    "expected item,coder,label."
                )
            item_at, coder_at, label_at = (columns.index(name) for name in CSV_COLUMNS)
            # A model coder's confidence, when the file has the column (empty: none).
            confidence_at = columns.index("confidence") if "confidence" in columns else None
            rows: list[dict[str, str]] = []
            for line in lines:
                cells = line.cells
                row = {
                    "item": restore_text(cells[item_at]),
                    "coder": restore_text(cells[coder_at]),
                    "label": restore_text(cells[label_at]),
                }
                if confidence_at is not None:
                    row["confidence"] = cells[confidence_at].strip()
                rows.append(row)
                if len(rows) > MAX_BULK_ROWS:
                    return {"csv_lines": recorded.replay()}
        except UnicodeDecodeError:
            raise ParseError("The CSV body must be UTF-8 text.") from None
        except CsvReadError as error:
            raise ValidationError(
                {f"line {error.line}": [ErrorDetail(error.message, code=error.code)]}
            ) from None
        return {"annotations": rows}


MAX_SPAN_CSV_BYTES = 64 * 1024 * 1024


class SpanCsvParser(BaseParser):
    """Reads a ``text/csv`` span upload as text, ``{"csv": str}`` (UTF-8, an optional
    byte-order mark); ``annotations.spans.span_units_from_csv`` reads its rows."""

    media_type = "text/csv"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, str]:
        data = stream.read(MAX_SPAN_CSV_BYTES + 1)
        if len(data) > MAX_SPAN_CSV_BYTES:
            raise PayloadTooLargeError(
                f"A span CSV has at most {MAX_SPAN_CSV_BYTES // (1024 * 1024)} MB; split it."
            )
        return {"csv": csv_text(data)}


def csv_text(data: bytes) -> str:
    """A CSV body as text: UTF-8, an optional byte-order mark dropped."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ParseError("The CSV body must be UTF-8 text.") from None
