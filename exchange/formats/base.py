"""What every import format produces: parsed rows, rejections, and the registry of formats.

A format module is a *parser* only: it reads the bytes a labeling tool exported and
returns :class:`ParsedFile`, one :class:`ParsedRow` per (item, coder, label) it found, each
naming where in the file it came from. It never touches the database; mapping the rows
onto a round and questions and writing them is ``exchange.imports``.
"""

from __future__ import annotations

import codecs
import csv
import io
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any


class ImportErrorCode:
    MALFORMED_FILE = "malformed_file"
    UNKNOWN_FORMAT = "unknown_format"
    REQUIRED = "required"
    INVALID_TYPE = "invalid_type"
    UNSUPPORTED_TYPE = "unsupported_type"
    INVALID_COUNT = "invalid_count"
    UNMAPPED_FIELD = "unmapped_field"
    NO_ROWS = "no_rows"


class MalformedFileError(ValueError):
    """The file cannot be read at all (not UTF-8, truncated JSON, no header...)."""

    def __init__(self, message: str, *, source: str = "file") -> None:
        super().__init__(message)
        self.message = message
        self.source = source


@dataclass(frozen=True)
class ParsedRow:
    """One label found in the file.

    ``field`` is the tool's name for the question (Label Studio ``from_name``, an
    INCEpTION feature, a ``question`` column), or None when the file has no such notion.
    ``label`` is passed as is to the question's ``LabelScheme``: a code, a path, a number,
    or a list of codes for a set.
    """

    source: str
    item: str
    coder: str
    label: Any
    field: str | None = None


@dataclass(frozen=True)
class Rejection:
    """A record of the file that gives no annotation, and why.

    ``field`` names the record's attribute at fault (``type``, ``coder``...);
    ``tool_field`` is the tool's question field the record belongs to (a Label Studio
    ``from_name``...), when the parser could read it: an import told to ignore that field
    (``question_map`` to null) drops the rejection with the rest of the field.
    """

    source: str
    field: str
    code: str
    detail: str
    tool_field: str | None = None


@dataclass
class ParsedFile:
    rows: list[ParsedRow] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    # reason -> count of records read but deliberately not imported (cancelled, ignored...)
    skipped: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    records: int = 0
    # item -> its text (the task's text, the span's covered text), kept for new items
    item_texts: dict[str, str] = field(default_factory=dict)

    def text_of(self, item: str, text: object) -> None:
        if isinstance(text, str) and text and item not in self.item_texts:
            self.item_texts[item] = text

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def reject(
        self,
        source: str,
        field_name: str,
        code: str,
        detail: str,
        *,
        tool_field: str | None = None,
    ) -> None:
        self.rejected.append(Rejection(source, field_name, code, detail, tool_field))


@dataclass(frozen=True)
class ParseOptions:
    """What the caller says about the file beyond its bytes.

    ``coder`` names the annotator of a one-annotator file (doccano), ``filename`` is the
    uploaded file's name (its stem is the fallback coder of such files).
    """

    coder: str | None = None
    filename: str | None = None


Parser = Callable[[bytes, ParseOptions], ParsedFile]


@dataclass(frozen=True)
class ImportFormat:
    name: str
    title: str
    description: str
    parse: Parser


FORMATS: dict[str, ImportFormat] = {}


def register(name: str, *, title: str, description: str) -> Callable[[Parser], Parser]:
    def decorate(parse: Parser) -> Parser:
        FORMATS[name] = ImportFormat(name=name, title=title, description=description, parse=parse)
        return parse

    return decorate


# Helpers shared by the parsers ---------------------------------------------------------


def decode(data: bytes) -> str:
    try:
        return codecs.decode(data, "utf-8-sig")
    except UnicodeDecodeError as error:
        raise MalformedFileError(
            f"The file must be UTF-8 text (byte {error.start} is not)."
        ) from None


def load_json(text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedFileError(
            f"The file is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno}).",
            source=f"line {error.lineno}",
        ) from None
    except RecursionError:
        raise MalformedFileError("The file's JSON is nested too deeply.") from None


def json_lines(text: str, *, prefix: str = "") -> Iterator[tuple[str, Any]]:
    """(source, record) per non-blank line of a JSONL text; a bad line is a malformed file."""
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        source = f"{prefix}line {number}"
        try:
            record = json.loads(line)
        except RecursionError:
            raise MalformedFileError(f"{source} is nested too deeply.", source=source) from None
        except json.JSONDecodeError as error:
            raise MalformedFileError(
                f"{source} is not valid JSON: {error.msg} (column {error.colno}).",
                source=source,
            ) from None
        yield source, record


def csv_rows(text: str) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The header (stripped) and (line number, cells) of every non-blank data line."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
    except csv.Error as error:
        raise MalformedFileError(f"The CSV file is malformed: {error}.") from None
    if header is None or not any(cell.strip() for cell in header):
        raise MalformedFileError("The CSV file is empty: a header line is expected.")

    def lines() -> Iterator[tuple[int, list[str]]]:
        try:
            for cells in reader:
                if cells and any(cell.strip() for cell in cells):
                    yield reader.line_num, cells
        except csv.Error as error:
            raise MalformedFileError(
                f"The CSV file is malformed at line {reader.line_num}: {error}.",
                source=f"line {reader.line_num}",
            ) from None

    return [cell.strip() for cell in header], lines()


def key_text(raw: Any) -> str | None:
    """An item or coder key: text (stripped) or an integer; None when neither or empty."""
    if isinstance(raw, str):
        return raw.strip() or None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    return None


def one_or_set(values: list[Any]) -> Any:
    """A list of chosen values as a label: the value itself when one, the list otherwise."""
    return values[0] if len(values) == 1 else values
