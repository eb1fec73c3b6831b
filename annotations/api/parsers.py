"""A CSV body for bulk uploads: a header naming ``item``, ``coder`` and ``label``, one
annotation per line (UTF-8, an optional byte-order mark; other columns are ignored)."""

from __future__ import annotations

import codecs
import csv
from collections.abc import Mapping
from typing import IO, Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import BaseParser

from annotations.services import MAX_BULK_ROWS

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
