"""Reading the structured kinds' CSV files: one row per line, errors naming line and field.

Each kind's reader declares its columns; this module reads the header, skips blank lines and
hands every row to the kind with its line number. A problem stops the reading with an
:class:`~metrics.errors.InputError` whose message names the file, the line and the field
(``data.csv, line 7, field 'rank': expected a whole number ≥ 1, got 'x'.``), as the span
reader does.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from metrics.errors import InputError

__all__ = ["CsvRow", "identifier", "number", "read_rows"]

CsvRow = tuple[int, dict[str, str | None]]


def read_rows(
    path: Path, fields: tuple[str, ...], what: str, *, optional: tuple[str, ...] = ()
) -> tuple[list[CsvRow], tuple[str, ...]]:
    """The rows of a CSV file with the header naming ``fields`` (and any of ``optional``).

    Values are as written (not stripped); a field missing from a short row is ``None``.
    Returns the rows (line number, values) and the optional fields the header names.
    """
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the {what} file ({error}).") from None
    reader = csv.DictReader(text.splitlines(keepends=True))
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in fields if name not in header]
    if missing:
        raise InputError(
            f"{path}, line 1: the CSV header must name {', '.join(fields)}; "
            f"missing {', '.join(missing)}."
        )
    reader.fieldnames = header
    present = tuple(name for name in optional if name in header)
    rows: list[CsvRow] = []
    for row in reader:
        values = {name: row.get(name) for name in (*fields, *present)}
        if all(value is None or value.strip() == "" for value in values.values()):
            continue
        rows.append((reader.line_num, values))
    if not rows:
        raise InputError(f"{path}: no rows after the header.")
    return rows, present


def identifier(raw: str | None, field: str, where: str) -> str:
    """An item, document, coder or option name: stripped, non-empty."""
    if raw is None or raw.strip() == "":
        raise InputError(f"{where}, field '{field}': empty.")
    return raw.strip()


def number(raw: str | None, field: str, where: str) -> float:
    """A finite number (integers exactly)."""
    text = (raw or "").strip()
    if text == "":
        raise InputError(f"{where}, field '{field}': empty; expected a number.")
    try:
        value = float(int(text))
    except ValueError:
        try:
            value = float(text)
        except ValueError:
            raise InputError(
                f"{where}, field '{field}': expected a number, got {text!r}."
            ) from None
    if not math.isfinite(value):
        raise InputError(f"{where}, field '{field}': expected a finite number, got {text!r}.")
    return value
