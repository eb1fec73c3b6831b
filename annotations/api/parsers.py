"""CSV bodies. Bulk uploads: a header naming ``item``, ``coder`` and ``label``, one
annotation per line (UTF-8, an optional byte-order mark; other columns are ignored). Span
uploads: ``document,coder,begin,end,label``, read by ``annotations.spans``."""

from __future__ import annotations

import codecs
import csv
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from annotations.services import MAX_BULK_ROWS, PayloadTooLargeError

CSV_COLUMNS = ("item", "coder", "label")


class CsvParser(BaseParser):
    """Parses ``text/csv`` into ``{"annotations": [{"item", "coder", "label"}, ...]}``.

    Reading stops one row past ``MAX_BULK_ROWS``: the service then refuses the upload as
    too large without the server holding an arbitrarily long body in memory.
    """

    media_type = "text/csv"

    def parse(
        self,
        stream: IO[Any],
        media_type: str | None = None,
        parser_context: Mapping[str, Any] | None = None,
    ) -> dict[str, list[dict[str, str]]]:
        text = codecs.getreader("utf-8-sig")(stream)
        try:
            reader = csv.reader(text)
            header = next(reader, None)
            if header is None:
                raise ParseError("The CSV body is empty: a header item,coder,label is expected.")
            columns = [name.strip().lower() for name in header]
            missing = [name for name in CSV_COLUMNS if name not in columns]
            if missing:
                raise ParseError(
                    f"The CSV header lacks the column(s) {', '.join(missing)}; "
                    "expected item,coder,label."
                )
            item_at, coder_at, label_at = (columns.index(name) for name in CSV_COLUMNS)
            width = max(item_at, coder_at, label_at) + 1
            rows: list[dict[str, str]] = []
            for line in reader:
                if not line:
                    continue  # blank line
                if len(line) < width:
                    line = line + [""] * (width - len(line))
                rows.append(
                    {"item": line[item_at], "coder": line[coder_at], "label": line[label_at]}
                )
                if len(rows) > MAX_BULK_ROWS:
                    break
        except UnicodeDecodeError:
            raise ParseError("The CSV body must be UTF-8 text.") from None
        except csv.Error as error:
            raise ParseError(f"The CSV body is malformed: {error}.") from None
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
