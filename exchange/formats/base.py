"""What every import format produces: parsed rows, rejections, and the registry of formats.

A format module is a *parser* only: it reads the bytes a labeling tool exported and
returns :class:`ParsedFile`, one :class:`ParsedRow` per (item, coder, label) it found, and
one :class:`ParsedSpan` per span unit (document, coder, begin, end, label) or per
"annotated, found nothing" mark, each naming where in the file it came from. It never
touches the database; mapping them onto a round and questions and writing them is
``exchange.imports``.
"""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import math
import re
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any

from django.conf import settings

from studies.text_rules import (
    lone_surrogate_line,
    lone_surrogate_path,
    repeated_column,
    repeated_column_message,
)


class ImportErrorCode:
    MALFORMED_FILE = "malformed_file"
    UNKNOWN_FORMAT = "unknown_format"
    REQUIRED = "required"
    INVALID_TYPE = "invalid_type"
    UNSUPPORTED_TYPE = "unsupported_type"
    INVALID_COUNT = "invalid_count"
    UNMAPPED_FIELD = "unmapped_field"
    NO_ROWS = "no_rows"
    INVALID_OFFSETS = "invalid_offsets"
    NOT_A_SPAN_QUESTION = "not_a_span_question"
    WRONG_SPAN_UNIT = "wrong_span_unit"
    OLD_STYLE_SPANS = "old_style_spans"


class SpanUnitKind:
    """What a format's span offsets count (the values of ``Question.span_unit``)."""

    CHARACTER = "character"
    TOKEN = "token"


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
    # A model's confidence in the label (Label Studio's prediction ``score``), in [0, 1].
    confidence: float | None = None


@dataclass(frozen=True)
class ParsedSpan:
    """One span unit found in the file, or a mark that ``coder`` annotated ``document``
    and found nothing there (``begin``, ``end`` and ``label`` all None).

    Offsets count what the file's ``span_unit`` says (characters, or tokens for CoNLL),
    ``end`` exclusive. ``field`` is the tool's name for the question, as for
    :class:`ParsedRow`. A nothing-found mark without a field goes to the import's
    ``question`` when that is a span question, and is a skipped record (``empty_reason``)
    otherwise, so that a classification file keeps its old report.
    """

    source: str
    document: str
    coder: str
    begin: int | None = None
    end: int | None = None
    label: str | None = None
    field: str | None = None
    empty_reason: str = "annotation without a label"

    @property
    def is_empty(self) -> bool:
        return self.label is None


@dataclass(frozen=True)
class ParsedRegion:
    """One region found in the file (a box, polygon or keypoint), or a mark that ``coder``
    annotated ``image`` and drew nothing (``cells`` empty).

    ``cells`` are the region in the question's CSV shape, in pixels (``x``, ``y``,
    ``width``, ``height``, ``rotation``, ``points``, ``label``): the parser converts the
    tool's coordinates. ``kind`` is the region kind (``box``, ``polygon``, ``keypoint``) the
    target question must have; ``field`` the tool's name for the question. ``both_ways``
    marks a relation the tool drew in both directions: the import, which knows whether the
    question declares its label undirected, stores it once or both ways
    (``exchange.formats.relations.both_ways``)."""

    source: str
    image: str
    coder: str
    kind: str
    cells: dict[str, Any] = field(default_factory=dict)
    field: str | None = None
    both_ways: bool = False

    @property
    def is_empty(self) -> bool:
        return not self.cells


def _size(value: Any) -> float | None:
    """A positive number of pixels, or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if not (math.isfinite(value) and value > 0):
        return None
    return float(value)


@dataclass(frozen=True)
class ParsedImage:
    """An image a region file names: its size in pixels and its URL (either may be unknown)."""

    width: float | None = None
    height: float | None = None
    url: str = ""


@dataclass(frozen=True)
class ParsedDocument:
    """A document a span file names: its text (for new items) and, when the file gives
    it, its extent (``begin`` .. ``end``; token files give ``0 .. number of tokens``)."""

    text: str = ""
    begin: int | None = None
    end: int | None = None


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
    # (document, coder) of a span record: with ``partial``, that pair is left out whole
    pair: tuple[str, str] | None = None


@dataclass(frozen=True)
class ModelCoderSpec:
    """A model whose predictions a file holds: the coder an import creates for them has
    ``kind`` model, this ``model_name`` and ``model_version``."""

    model_name: str
    model_version: str = ""


#: Why a prediction is not read when the import says ``predictions=false``.
PREDICTION_SKIPPED = "model prediction (predictions=false)"


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
    spans: list[ParsedSpan] = field(default_factory=list)
    documents: dict[str, ParsedDocument] = field(default_factory=dict)
    # what the spans' offsets count
    span_unit: str = SpanUnitKind.CHARACTER
    # False when the documents' texts are rebuilt (tokens joined...), not the tool's own:
    # they then only go to items without a text
    exact_texts: bool = True
    regions: list[ParsedRegion] = field(default_factory=list)
    images: dict[str, ParsedImage] = field(default_factory=dict)
    # coder name of the file -> the model it names, for the names whose labels are a
    # model's predictions (Label Studio ``predictions``, Prodigy's OpenAI answers): the
    # import keeps them apart as model coders
    model_coders: dict[str, ModelCoderSpec] = field(default_factory=dict)

    def image(self, key: str, *, width: Any = None, height: Any = None, url: Any = "") -> None:
        """Note an image's size and URL (the first given wins)."""
        known = self.images.get(key, ParsedImage())
        self.images[key] = ParsedImage(
            width=known.width if known.width is not None else _size(width),
            height=known.height if known.height is not None else _size(height),
            url=known.url or (url if isinstance(url, str) else ""),
        )

    def document(
        self, key: str, *, text: object = None, begin: int | None = None, end: int | None = None
    ) -> None:
        """Note a span document (first text and extent given win)."""
        known = self.documents.get(key, ParsedDocument())
        self.documents[key] = ParsedDocument(
            text=known.text or (text if isinstance(text, str) else ""),
            begin=known.begin if known.begin is not None else begin,
            end=known.end if known.end is not None else end,
        )

    def text_of(self, item: str, text: object) -> None:
        if isinstance(text, str) and text and item not in self.item_texts:
            self.item_texts[item] = text

    #: Prediction scores that are not a number in [0, 1], not kept as confidences.
    scores_skipped: int = 0

    def skip_score(self) -> None:
        self.scores_skipped += 1

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
        pair: tuple[str, str] | None = None,
    ) -> None:
        self.rejected.append(Rejection(source, field_name, code, detail, tool_field, pair))


@dataclass(frozen=True)
class ParseOptions:
    """What the caller says about the file beyond its bytes.

    ``coder`` names the annotator of a one-annotator file (doccano, CoNLL, a WebAnno TSV),
    ``filename`` is the uploaded file's name (its stem is the fallback coder of such
    files). ``document_key`` says what names a document across tools: ``id`` (the tool's
    own id: a Label Studio task id, a doccano id, a Prodigy ``_input_hash``, a CoNLL
    document's position), ``text`` (a hash of the document's text, the same in every
    tool), or the name of a field of the task's data (Label Studio ``data``, a doccano or
    Prodigy record or its ``meta``). ``layer`` picks the span layer of a WebAnno TSV file
    (``Layer`` or ``Layer.feature``; default ``NamedEntity.value``). ``predictions``:
    whether a tool's model predictions are read, as the labels of model coders
    (:attr:`ParsedFile.model_coders`), or skipped.
    """

    coder: str | None = None
    filename: str | None = None
    document_key: str = "id"
    layer: str | None = None
    predictions: bool = True


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


def decode(data: bytes | bytearray) -> str:
    try:
        return codecs.decode(data, "utf-8-sig")
    except UnicodeDecodeError as error:
        raise MalformedFileError(
            f"The file must be UTF-8 text (byte {error.start} is not)."
        ) from None


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _refuse_lone_surrogates(value: Any, text: str, *, source: str | None = None) -> None:
    """A :class:`MalformedFileError` naming the line and the place in the record of the
    first string holding a lone UTF-16 surrogate (``"\\ud800"``): such text is no Unicode,
    cannot be stored, and would fail every later step that writes it out."""
    if not _SURROGATE_ESCAPE.search(text):
        return
    path = lone_surrogate_path(value)
    if path is None:
        return
    if source is None:
        line = lone_surrogate_line(text)
        source = "file" if line is None else f"line {line}"
    where = f" at {path}" if path else ""
    raise MalformedFileError(
        f"{source} holds a lone UTF-16 surrogate{where} (an escape \\ud800 to \\udfff "
        "without its pair), which is no character.",
        source=source,
    )


def load_json(text: str) -> Any:
    """The JSON value of a file; :class:`MalformedFileError` when it is no JSON or holds a
    lone surrogate."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise MalformedFileError(
            f"The file is not valid JSON: {error.msg} (line {error.lineno}, column {error.colno}).",
            source=f"line {error.lineno}",
        ) from None
    except RecursionError:
        raise MalformedFileError("The file's JSON is nested too deeply.") from None
    _refuse_lone_surrogates(value, text)
    return value


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
        _refuse_lone_surrogates(record, line, source=source)
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


def refuse_repeated_column(header: list[str], *, ignore_case: bool = False) -> None:
    """A :class:`MalformedFileError` naming the first column that ``header`` names twice."""
    repeated = repeated_column(header, key=str.lower if ignore_case else None)
    if repeated is not None:
        raise MalformedFileError(repeated_column_message(repeated), source="line 1")


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


def stem(name: str | None) -> str | None:
    """A file name without folders and extension (``export/alice.jsonl`` -> ``alice``)."""
    if not name:
        return None
    return PurePosixPath(name).stem.strip() or None


def text_key(text: str) -> str:
    """A document key from its text alone, so that the same text matches across tools."""
    return "text:" + hashlib.sha256(text.encode()).hexdigest()[:20]


def document_key(
    *, own_id: Any, text: Any, fields: tuple[dict[str, Any], ...], key: str
) -> tuple[str | None, str]:
    """(document key, or None; what was looked for) by the ``document_key`` option.

    ``own_id`` is the tool's own id of the task, ``text`` its text, ``fields`` the
    mappings where a named field may be (a task's ``data``, a record and its ``meta``).
    """
    if key == "id":
        return key_text(own_id), "the id"
    if key == "text":
        return (text_key(text) if isinstance(text, str) else None), "a text"
    for where in fields:
        found = key_text(where.get(key)) if isinstance(where, dict) else None
        if found:
            return found, f"the field {key!r}"
    return None, f"the field {key!r}"


MAX_ZIP_MEMBERS = 1_000
UNZIP_CHUNK = 1 << 16


class ArchiveTooLargeError(ValueError):
    """A zip archive whose members unpack to more than ``AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES``
    bytes; ``member`` is the one being unpacked when the budget ran out."""

    def __init__(self, *, member: str, limit: int) -> None:
        self.member = member
        self.message = (
            f"The zip archive unpacks to more than {limit:,} bytes "
            f"(AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES): unpacking stopped in {member}. "
            "Split the archive."
        )
        super().__init__(self.message)


@dataclass
class _UnzipBudget:
    """What an archive may unpack to in all, and what its members have unpacked so far."""

    limit: int
    spent: int = 0

    def spend(self, size: int, member: str) -> None:
        self.spent += size
        if self.spent > self.limit:
            raise ArchiveTooLargeError(member=member, limit=self.limit)


def is_zip(data: bytes) -> bool:
    return data[:4] == b"PK\x03\x04"


def zip_members(data: bytes, extensions: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(member name, decoded text) of every file of a zip archive with those extensions, by
    name.

    Every member is unpacked before the first is given, so that an archive too large is
    refused before any parsing. The bytes are counted as they come out, never taken from
    the archive's headers, against one budget for all members,
    ``AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES``: :class:`ArchiveTooLargeError` at the first
    chunk past it, having unpacked at most the budget and one chunk.
    """
    budget = _UnzipBudget(limit=settings.AGREEMENT_IMPORT_MAX_UNZIPPED_BYTES)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = [
            info
            for info in archive.infolist()
            if not info.is_dir() and info.filename.lower().endswith(extensions)
        ]
        if not members:
            raise MalformedFileError(f"The zip archive holds no {' or '.join(extensions)} file.")
        if len(members) > MAX_ZIP_MEMBERS:
            raise MalformedFileError(f"The zip archive holds over {MAX_ZIP_MEMBERS} files.")
        unpacked = [
            (info.filename, _unpack(archive, info, budget))
            for info in sorted(members, key=lambda member: member.filename)
        ]
    except (zipfile.BadZipFile, EOFError, zlib.error):
        raise MalformedFileError("The zip archive is damaged or truncated.") from None
    unpacked.reverse()
    while unpacked:  # each member's bytes let go once decoded
        name, content = unpacked.pop()
        yield name, decode(content)


def _unpack(archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: _UnzipBudget) -> bytearray:
    content = bytearray()
    with archive.open(info) as member:
        while chunk := member.read(UNZIP_CHUNK):
            budget.spend(len(chunk), info.filename)
            content += chunk
    return content


def whole_number(raw: Any) -> int | None:
    """An offset as the file gives it: an integer (not a bool), or None."""
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, float) and raw.is_integer():
        return int(raw)
    return None


def offsets_error(begin: Any, end: Any, *, length: int | None, unit: str = "character") -> str:
    """Why ``begin``..``end`` is no span of a text of ``length`` units; "" when it is."""
    b, e = whole_number(begin), whole_number(end)
    if b is None or e is None:
        return f"start and end must be whole {unit} offsets (got {begin!r} and {end!r})."
    if b < 0:
        return f"start {b} is negative."
    if e <= b:
        return f"end {e} must be greater than start {b}."
    if length is not None and e > length:
        return f"end {e} is past the end of the text ({length} {unit}s)."
    return ""
