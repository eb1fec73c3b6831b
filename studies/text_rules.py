"""Rules for text that crosses the server's edge in files: numbers, CSV rows, spreadsheet
cells and Unicode text. Every upload, import and download applies these, so the rules are
written once.

- :func:`parse_number`: the one number rule. ASCII digits, an optional sign, an optional
  decimal point and an optional exponent (``-2.5``, ``+3``, ``.5``, ``1e-3``); surrounding
  spaces and tabs are ignored. No digit group separators (``1_000``, ``1,000``), no digits
  of other scripts (``١٢``), no ``inf`` or ``nan``, nothing that overflows a float.
- :func:`read_csv`: the one CSV reader. A data row whose field count differs from the
  header's is refused with its 1-based file line (the header is line 1), never padded or
  cut; rows of blank cells only are skipped. :func:`text_lines` reads a streamed body's
  lines in time linear in its size, and refuses a line over ``AGREEMENT_CSV_MAX_LINE_BYTES``.
  Every reader of a header refuses a column named twice (:func:`repeated_column`), so
  that no column silently wins over another.
- :func:`spreadsheet_text` and :func:`write_csv`: the one cell neutraliser, as OWASP's CSV
  injection guidance recommends. A text cell starting with ``=``, ``+``, ``-``, ``@``, TAB
  or CR gets a leading ``'``, so a spreadsheet shows it as text instead of running it as a
  formula; numbers in numeric columns stay numbers. :func:`restore_text` undoes it when a
  file the server wrote is read back.
- :func:`lone_surrogate_path`: where a decoded JSON value holds a lone UTF-16 surrogate
  (``"\\ud800"``), text that cannot be stored or written out as UTF-8.
"""

from __future__ import annotations

import codecs
import csv
import io
import math
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import IO, Any, NamedTuple

from django.conf import settings

# The number rule --------------------------------------------------------------------------

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_WHOLE_NUMBER = re.compile(r"[0-9]+")
_BLANKS = " \t"

NUMBER_RULE = "ASCII digits with an optional sign, decimal point and exponent, e.g. -2.5 or 1e-3"


class NumberFormatError(ValueError):
    """Text that is not a number by :data:`NUMBER_RULE`; ``message`` says why."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def is_number_text(text: str) -> bool:
    """Whether ``text`` is written as :func:`parse_number` reads it (finite or not)."""
    return _NUMBER.fullmatch(text.strip(_BLANKS)) is not None


def parse_number(text: str) -> float:
    """The finite number ``text`` writes, by the one number rule.

    Raises
    ------
    NumberFormatError
        When ``text`` is not written that way, or its value overflows a float.

    Examples
    --------
    >>> parse_number(" -2.5e1 ")
    -25.0
    >>> parse_number("1_000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    studies.text_rules.NumberFormatError: '1_000' is not a number: write ASCII digits ...
    """
    if not is_number_text(text):
        raise NumberFormatError(f"{text!r} is not a number: write {NUMBER_RULE}.")
    number = float(text.strip(_BLANKS))
    if not math.isfinite(number):
        raise NumberFormatError(f"{text!r} is too large a number.")
    return number


def parse_whole_number(text: str) -> int:
    """A count or offset: ASCII digits only (no sign, point or exponent).

    >>> parse_whole_number(" 12 ")
    12
    """
    stripped = text.strip(_BLANKS)
    if _WHOLE_NUMBER.fullmatch(stripped) is None:
        raise NumberFormatError(f"{text!r} is not a whole number: write ASCII digits 0-9.")
    return int(stripped)


# Reading CSV -----------------------------------------------------------------------------


class CsvReadError(ValueError):
    """A CSV text that cannot be read as a table: ``line`` is the 1-based file line of the
    record at fault, ``code`` is ``field_count``, ``malformed_csv`` or ``line_too_long``
    (:class:`LineTooLongError`); ``message`` names the line, ``detail`` says the same for a
    report that names the line itself."""

    def __init__(self, message: str, *, line: int, code: str, detail: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.code = code
        self.detail = detail or message


FIELD_COUNT = "field_count"
MALFORMED_CSV = "malformed_csv"
LINE_TOO_LONG = "line_too_long"


class LineTooLongError(CsvReadError):
    """A line of a streamed CSV longer than the limit (``AGREEMENT_CSV_MAX_LINE_BYTES``):
    reading stops there, so nothing after it can be read."""

    def __init__(self, line: int, limit: int) -> None:
        limit_text = f"{limit:,} bytes, the limit of a CSV line (AGREEMENT_CSV_MAX_LINE_BYTES)"
        super().__init__(
            f"Line {line} is longer than {limit_text}.",
            line=line,
            code=LINE_TOO_LONG,
            detail=f"The line is longer than {limit_text}.",
        )


DUPLICATE_COLUMN = "duplicate_column"


def repeated_column(
    header: Iterable[str], *, key: Callable[[str], str] | None = None
) -> str | None:
    """The first column name of ``header`` (stripped of surrounding spaces) that an earlier
    column already has, compared as ``key`` reads them (as they are by default); None when
    the names are distinct. Blank names do not count: spreadsheets leave them after the
    last column.

    >>> repeated_column(["item", "coder", "label", "", "", " Coder "], key=str.lower)
    'Coder'
    """
    seen: set[str] = set()
    for name in (name.strip() for name in header):
        if not name:
            continue
        normal = name if key is None else key(name)
        if normal in seen:
            return name
        seen.add(normal)
    return None


def repeated_column_message(name: str) -> str:
    return f"The CSV header names the column {name!r} more than once."


class CsvRow(NamedTuple):
    """A data row: its cells as written and the file line it starts on (header = 1).

    A named tuple, not a dataclass: an import makes millions of them."""

    line: int
    cells: list[str]


def read_csv(
    text: str | Iterable[str], *, reject: Callable[[CsvReadError], None] | None = None
) -> tuple[list[str], Iterator[CsvRow]]:
    """The header's cells (``[]`` for an empty text) and an iterator over the data rows.

    ``text`` is the whole text, or its lines with their line ends (see :func:`text_lines`).

    Reading is lazy: :class:`CsvReadError` comes out of the iterator at the first row that
    is not well-formed CSV, or whose field count differs from the header's. A caller that
    reports bad rows one by one passes ``reject``: rows with a wrong field count then go to
    it (code ``field_count``) and are left out, and reading goes on. A leading byte-order
    mark is dropped; rows whose cells are all blank are skipped.

    Examples
    --------
    >>> header, rows = read_csv("item,coder,label\\n\\nd1,ann,pos\\nd2,ann,neg,extra\\n")
    >>> header, next(rows)
    (['item', 'coder', 'label'], CsvRow(line=3, cells=['d1', 'ann', 'pos']))
    >>> next(rows)
    Traceback (most recent call last):
    ...
    studies.text_rules.CsvReadError: Line 4 has 4 fields; the header has 3.
    """
    if isinstance(text, str):
        text = io.StringIO(text.removeprefix("\ufeff"), newline="")
    reader = csv.reader(text, strict=True)
    try:
        header = next(reader, None)
    except csv.Error as error:
        raise CsvReadError(
            f"Line 1 is not well-formed CSV: {error}.", line=1, code=MALFORMED_CSV
        ) from None
    if header is None:
        return [], iter(())

    def rows() -> Iterator[CsvRow]:
        width, end = len(header), reader.line_num
        while True:
            start = end + 1
            try:
                cells = next(reader, None)
            except csv.Error as error:
                raise CsvReadError(
                    f"Line {start} is not well-formed CSV: {error}.", line=start, code=MALFORMED_CSV
                ) from None
            if cells is None:
                return
            end = reader.line_num
            if not "".join(cells).strip():  # every cell blank
                continue
            if len(cells) != width:
                fields = f"{len(cells)} field{'s' * (len(cells) != 1)}; the header has {width}."
                refused = CsvReadError(
                    f"Line {start} has {fields}",
                    line=start,
                    code=FIELD_COUNT,
                    detail=f"The line has {fields}",
                )
                if reject is None:
                    raise refused
                reject(refused)
                continue
            yield CsvRow(start, cells)

    return header, rows()


def text_lines(
    stream: IO[bytes], *, chunk_size: int = 1 << 16, max_line_bytes: int | None = None
) -> Iterator[str]:
    """The lines of a UTF-8 byte stream (an optional byte-order mark dropped), ends kept,
    decoded as they are read; only LF ends a line (CR LF included), as the CSV reader
    expects. Raises ``UnicodeDecodeError`` on bytes that are not UTF-8, and
    :class:`LineTooLongError` at the first line of more than ``max_line_bytes`` bytes (its
    end included; by default the setting ``AGREEMENT_CSV_MAX_LINE_BYTES``), having read at
    most that many bytes and one chunk more of it.

    The work is linear in the stream's size: only the unfinished last line is kept, in
    pieces joined when its end comes, and line ends are looked for in the new chunk alone.

    >>> list(text_lines(io.BytesIO("\\ufeffa,b\\r\\nc,\\u2028d\\n".encode()), max_line_bytes=64))
    ['a,b\\r\\n', 'c,\\u2028d\\n']
    """
    limit = settings.AGREEMENT_CSV_MAX_LINE_BYTES if max_line_bytes is None else max_line_bytes
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    tail: list[bytes] = []  # the unfinished line
    tail_size = 0
    line = 1  # the number of the unfinished line
    while chunk := stream.read(chunk_size):
        last_end = chunk.rfind(b"\n")
        if last_end < 0:
            tail.append(chunk)
            tail_size += len(chunk)
            if tail_size > limit:
                raise LineTooLongError(line, limit)
            continue
        first_end = chunk.find(b"\n")
        if tail_size + first_end + 1 > limit:
            raise LineTooLongError(line, limit)
        if last_end - first_end > limit:  # a chunk larger than the limit: check its lines
            _refuse_long_lines(chunk[first_end + 1 : last_end + 1], first=line + 1, limit=limit)
        tail.append(chunk[: last_end + 1])
        lines = decoder.decode(b"".join(tail)).split("\n")
        lines.pop()  # the empty text after the last line end
        line += len(lines)
        yield from (text + "\n" for text in lines)
        tail = [chunk[last_end + 1 :]]
        tail_size = len(tail[0])
        if tail_size > limit:
            raise LineTooLongError(line, limit)
    rest = decoder.decode(b"".join(tail), final=True)
    if rest:
        yield rest


def _refuse_long_lines(data: bytes, *, first: int, limit: int) -> None:
    """:class:`LineTooLongError` for the first line of ``data`` (whole lines, the first
    being line ``first``) longer than ``limit`` bytes."""
    for number, text in enumerate(data.split(b"\n"), start=first):
        if len(text) + 1 > limit:
            raise LineTooLongError(number, limit)


# Writing CSV that spreadsheets open safely ------------------------------------------------

#: What makes a spreadsheet read a cell as a formula (OWASP, "CSV Injection").
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_QUOTE = "'"


def spreadsheet_text(text: str) -> str:
    """A text cell a spreadsheet shows as text: a leading ``'`` when it starts with a
    formula character. Text that already starts with quotes followed by one gets one more,
    so that :func:`restore_text` gives back exactly what was written.

    >>> [spreadsheet_text(t) for t in ("=1+2", "-2+3", "plain", "'=x", "")]
    ["'=1+2", "'-2+3", 'plain', "''=x", '']
    """
    if text.lstrip(_QUOTE).startswith(FORMULA_STARTS):
        return _QUOTE + text
    return text


def restore_text(cell: str) -> str:
    """The text :func:`spreadsheet_text` neutralised (other cells unchanged).

    >>> [restore_text(c) for c in ("'=1+2", "''=x", "'quoted", "-1")]
    ['=1+2', "'=x", "'quoted", '-1']
    """
    if cell.startswith(_QUOTE) and cell.lstrip(_QUOTE).startswith(FORMULA_STARTS):
        return cell[1:]
    return cell


def _numeric_cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    text = str(value)
    # A number column only ever holds numbers; anything else is treated as text.
    return text if text == "" or is_number_text(text) else spreadsheet_text(text)


_NEEDS_QUOTES = re.compile(r'[",\r\n]')


def _field(value: Any) -> str:
    text = str(value)
    if _NEEDS_QUOTES.search(text):
        return '"' + text.replace('"', '""') + '"'
    return text


def write_csv(
    header: Sequence[str], rows: Iterable[Sequence[Any]], *, numeric: Collection[int] = ()
) -> str:
    """CSV text whose cells spreadsheets never run as formulas.

    Header cells and cells of text columns pass through :func:`spreadsheet_text`; cells of
    the ``numeric`` columns (0-based indices) are written as they are when they are
    numbers (a negative number stays ``-0.25``), as text otherwise. ``None`` is empty.
    Lines end with ``\\n``; a cell holding a comma, a quote, a CR or an LF is quoted
    (RFC 4180), a CR included: Python's ``csv`` module leaves a lone CR unquoted when
    lines end with LF, and a spreadsheet starts a new row there.

    >>> print(write_csv(["coder", "value"], [["=HYPERLINK(1)", -0.25]], numeric={1}), end="")
    coder,value
    '=HYPERLINK(1),-0.25
    >>> write_csv(["a", "b"], [["x\\r=1+2", 'say "hi", twice']])
    'a,b\\n"x\\r=1+2","say ""hi"", twice"\\n'
    """
    lines = [",".join(_field(spreadsheet_text(str(name))) for name in header)]
    for row in rows:
        cells = [
            _numeric_cell(value)
            if index in numeric
            else ("" if value is None else spreadsheet_text(str(value)))
            for index, value in enumerate(row)
        ]
        # A lone empty cell is written "" so that the row is not read as a blank line.
        lines.append('""' if cells == [""] else ",".join(_field(cell) for cell in cells))
    lines.append("")
    return "\n".join(lines)


# Unicode text ----------------------------------------------------------------------------


def is_unicode_text(text: str) -> bool:
    """Whether ``text`` can be written as UTF-8 (holds no lone surrogate)."""
    if text.isascii():
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def lone_surrogate_path(value: Any, *, dotted_indices: bool = False) -> str | None:
    """Where the first string or key of a decoded JSON value holding a lone surrogate is,
    as ``[2].annotations[0].completed_by`` (``2.annotations.0.completed_by`` with
    ``dotted_indices``, as API error attributes are written); ``""`` for ``value`` itself,
    None when none. A key holding one is written with the surrogate escaped.

    >>> lone_surrogate_path([{"item": "ok"}, {"coder": "x\\ud800"}])
    '[1].coder'
    >>> lone_surrogate_path({"rows": [{"item": "ok"}, {"item": "bad\\ud800"}]}, dotted_indices=True)
    'rows.1.item'
    >>> lone_surrogate_path({"item": "\\U0001f600"}) is None
    True
    """

    def index_path(path: str, index: int) -> str:
        if not dotted_indices:
            return f"{path}[{index}]"
        return f"{path}.{index}" if path else str(index)

    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, path = stack.pop()
        if isinstance(node, str):
            if not is_unicode_text(node):
                return path
        elif isinstance(node, dict):
            children = []
            for key, child in node.items():
                where = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and not is_unicode_text(key):
                    return where.encode("utf-8", "backslashreplace").decode("utf-8")
                children.append((child, where))
            stack.extend(reversed(children))
        elif isinstance(node, list):
            stack.extend(
                (child, index_path(path, i)) for i, child in reversed(list(enumerate(node)))
            )
    return None


_SURROGATE_ESCAPE = re.compile(r"(\\+)u([dD][89a-fA-F][0-9a-fA-F]{2})")


def lone_surrogate_line(json_text: str) -> int | None:
    """The 1-based line of the first ``\\uD800``..``\\uDFFF`` escape of a JSON text that is
    not half of a surrogate pair; None when there is none.

    >>> lone_surrogate_line('{"a": "\\\\ud83d\\\\ude00",\\n "b": "\\\\udc00"}')
    2
    """
    paired_low = -1
    for match in _SURROGATE_ESCAPE.finditer(json_text):
        if len(match.group(1)) % 2 == 0:
            continue  # an escaped backslash followed by the letters "u d8..", not an escape
        start = match.start(2) - 2
        code = int(match.group(2), 16)
        if code >= 0xDC00:
            if start != paired_low:
                return json_text.count("\n", 0, start) + 1
            continue
        following = _SURROGATE_ESCAPE.match(json_text, match.end())
        if (
            following is not None
            and len(following.group(1)) == 1
            and int(following.group(2), 16) >= 0xDC00
        ):
            paired_low = following.start(2) - 2
            continue
        return json_text.count("\n", 0, start) + 1
    return None
