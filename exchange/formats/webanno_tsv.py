"""INCEpTION / WebAnno TSV 3.x (``inception_tsv``): one annotator's spans of one document.

INCEpTION exports a project's annotations per document and annotator; with the
"WebAnno TSV v3.3" format the project archive holds ``annotation/<document>/<user>.tsv``.
Import that archive (every ``.tsv`` member is the document named by its folder and the
user named by its file; ``curation/`` members and the ``CURATION_USER`` / ``INITIAL_CAS``
files are skipped), or one ``.tsv`` file, whose name (without extension) is the document
and whose annotator is the ``coder`` option.

The file: ``#FORMAT=WebAnno TSV 3.x``, one ``#T_SP=<layer>|<feature>|...`` line per span
layer (``#T_CH`` chain and ``#T_RL`` relation layers add their own columns), then
sentences: ``#Text=`` lines and one line per token, ``<sentence>-<token>``, the token's
offsets ``<begin>-<end>``, the token, then one column per layer feature: ``_`` (no
annotation), ``LABEL``, ``LABEL[3]`` (annotation 3, spanning several tokens), stacked
annotations separated by ``|``; ``*`` is an annotation without a value for that feature.
Lines ``<sentence>-<token>.<n>`` are sub-token annotations with their own offsets.

The import reads one span layer's feature (``layer`` option, ``Layer`` or
``Layer.feature``; default ``NamedEntity.value``): each annotation is a unit from its
first line's begin to its last line's end (a sub-token line, when the annotation has
one, stands for its token). Offsets in the file count UTF-16 code units (Java); they are
converted to characters using the tokens' text. A document file with no annotation of
that layer is "annotated, nothing found". An annotation without a value is rejected.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedSpan,
    ParseOptions,
    decode,
    is_zip,
    register,
    stem,
    zip_members,
)

NAMED_ENTITY = "de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity"
DEFAULT_FEATURE = "value"
NOT_ANNOTATORS = frozenset({"CURATION_USER", "INITIAL_CAS"})
NO_VALUE = "*"
NO_ANNOTATION = "_"
NOTHING_FOUND = "document without a span of the layer"
# ASCII digits only (``\d`` alone also matches other scripts' digits, such as "١٢").
_TOKEN_ID = re.compile(r"^(\d+)-(\d+)(?:\.(\d+))?$", re.ASCII)
_OFFSETS = re.compile(r"^(\d+)-(\d+)$", re.ASCII)
_WITH_ID = re.compile(r"^(.*?)\[(\d+)\]$", re.DOTALL | re.ASCII)
_LAYER_HEADERS = ("#T_SP=", "#T_CH=", "#T_RL=")


@dataclass(frozen=True)
class _Column:
    index: int  # among the cells after the token
    field: str  # "<short layer>.<feature>"


@dataclass
class _Entry:
    token: tuple[int, int]
    sub: bool
    begin: int
    end: int
    label: str
    line: int


@dataclass
class _Reading:
    """One TSV file being read."""

    document: str
    coder: str
    prefix: str
    entries: dict[object, list[_Entry]] = field(default_factory=dict)
    astral: list[int] = field(default_factory=list)  # UTF-16 positions of 2-unit characters
    sentences: list[tuple[int, str]] = field(default_factory=list)  # (UTF-16 begin, text)
    bad: bool = False


def annotator_files(parsed: ParsedFile, data: bytes) -> Iterator[tuple[str, str, str, str]]:
    """An INCEpTION project archive's annotator files as (member name, text, document,
    user); curation and initial documents are counted as skipped."""
    for name, text in zip_members(data, (".tsv",)):
        path = PurePosixPath(name)
        user, document = path.stem, path.parent.name
        if user in NOT_ANNOTATORS or "curation" in path.parts[:1]:
            parsed.skip("curation or initial document (no annotator)")
            continue
        if not document:
            raise MalformedFileError(
                f"{name}: a member of the archive is <document>/<user>.tsv "
                "(INCEpTION's annotation/ folder).",
                source=name,
            )
        yield name, text, document, user


@register(
    "inception_tsv",
    title="INCEpTION / WebAnno TSV 3 (spans)",
    description="One annotator's document (or the project export's annotation/<doc>/<user>.tsv "
    "files in a zip); the spans of one layer (default NamedEntity.value).",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile(exact_texts=False)
    if is_zip(data):
        for name, text, document, user in annotator_files(parsed, data):
            _parse_file(
                parsed, text, document=document, coder=user, prefix=f"{name} ", options=options
            )
        return parsed
    single = stem(options.filename)
    if single is None:
        raise MalformedFileError(
            "A single TSV file is named after its document: upload it as a file (multipart)."
        )
    if not options.coder:
        raise MalformedFileError(
            "A single TSV file is one annotator's: name the annotator with the coder option "
            "(or import INCEpTION's project archive, whose files are named by user)."
        )
    _parse_file(
        parsed, decode(data), document=single, coder=options.coder, prefix="", options=options
    )
    return parsed


def _layer_columns(headers: list[str]) -> tuple[list[tuple[str, list[str], int]], int]:
    """(span layer, its features, index of its first column) per span layer, and the
    number of annotation columns."""
    layers: list[tuple[str, list[str], int]] = []
    width = 0
    for header in headers:
        kind, _, rest = header.partition("=")
        name, *features = rest.split("|")
        features = [feature for feature in features if feature]
        if kind == "#T_SP":
            layers.append((name, features, width))
        width += max(1, len(features))
    return layers, width


def _short(layer: str) -> str:
    return layer.rsplit(".", 1)[-1]


def _column(layers: list[tuple[str, list[str], int]], spec: str | None, where: str) -> _Column:
    """The column the ``layer`` option names (default ``NamedEntity.value``)."""
    wanted = spec or f"{NAMED_ENTITY}.{DEFAULT_FEATURE}"
    for name, features, first in layers:
        for layer_name in (name, _short(name)):
            if wanted == layer_name and features:
                feature = DEFAULT_FEATURE if DEFAULT_FEATURE in features else features[0]
                return _Column(first + features.index(feature), f"{_short(name)}.{feature}")
            for feature in features:
                if wanted == f"{layer_name}.{feature}":
                    return _Column(first + features.index(feature), f"{_short(name)}.{feature}")
    available = ", ".join(
        f"{_short(name)}.{feature}" for name, features, _ in layers for feature in features
    )
    raise MalformedFileError(
        f"{where}has no span layer {spec or 'NamedEntity'!r}; name one with the layer option "
        f"(the file's span layers: {available or 'none'}).",
        source=where.strip() or "file",
    )


def _split_stack(cell: str) -> Iterator[str]:
    """The stacked values of a cell, split at the ``|`` that are not escaped."""
    part: list[str] = []
    escaped = False
    for character in cell:
        if escaped:
            part.append(character)
            escaped = False
        elif character == "\\":
            part.append(character)
            escaped = True
        elif character == "|":
            yield "".join(part)
            part = []
        else:
            part.append(character)
    yield "".join(part)


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def _parse_file(
    parsed: ParsedFile, text: str, *, document: str, coder: str, prefix: str, options: ParseOptions
) -> None:
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if not first.startswith("#FORMAT=WebAnno TSV 3"):
        raise MalformedFileError(
            f"{prefix}is not a WebAnno TSV 3 file (it starts with #FORMAT=WebAnno TSV 3.x).",
            source=prefix.strip() or "file",
        )
    headers = [line for line in lines if line.startswith(_LAYER_HEADERS)]
    layers, width = _layer_columns(headers)
    column = _column(layers, options.layer, prefix)
    reading = _Reading(document=document, coder=coder, prefix=prefix)
    in_text = False
    for number, line in enumerate(lines, start=1):
        if line.startswith("#Text="):
            if in_text:
                begin, previous = reading.sentences[-1]
                reading.sentences[-1] = (begin, f"{previous}\n{line[6:]}")
            else:
                reading.sentences.append((-1, line[6:]))
            in_text = True
            continue
        in_text = False
        if not line.strip() or line.startswith("#"):
            continue
        parsed.records += 1
        _token_line(parsed, reading, column, width, number, line)
    _units(parsed, reading, column)


def _token_line(
    parsed: ParsedFile, reading: _Reading, column: _Column, width: int, number: int, line: str
) -> None:
    source = f"{reading.prefix}line {number}"
    pair = (reading.document, reading.coder)
    cells = line.split("\t")
    token_id = _TOKEN_ID.match(cells[0])
    offsets = _OFFSETS.match(cells[1]) if len(cells) > 1 else None
    if token_id is None or offsets is None or len(cells) < 3 + width:
        reading.bad = True
        parsed.reject(
            source,
            "line",
            ImportErrorCode.INVALID_TYPE,
            f"A token line is <sentence>-<token>, <begin>-<end>, the token, then {width} "
            "annotation column(s).",
            pair=pair,
        )
        return
    begin, end = int(offsets.group(1)), int(offsets.group(2))
    if end < begin:
        reading.bad = True
        parsed.reject(
            source,
            "offsets",
            ImportErrorCode.INVALID_OFFSETS,
            f"end {end} is before begin {begin}.",
            pair=pair,
        )
        return
    token = (int(token_id.group(1)), int(token_id.group(2)))
    sub = token_id.group(3) is not None
    if not sub:
        _note_characters(reading, begin, _unescape(cells[2]))
        if reading.sentences and reading.sentences[-1][0] < 0:
            reading.sentences[-1] = (begin, reading.sentences[-1][1])
    cell = cells[3 + column.index]
    if cell == NO_ANNOTATION:
        return
    for index, value in enumerate(_split_stack(cell)):
        match = _WITH_ID.match(value)
        label, key = (match.group(1), int(match.group(2))) if match else (value, None)
        if label == NO_VALUE or not label:
            reading.bad = True
            parsed.reject(
                source,
                column.field,
                ImportErrorCode.REQUIRED,
                f"An annotation of {column.field} has no value ({value!r}).",
                tool_field=column.field,
                pair=pair,
            )
            continue
        entry = _Entry(token, sub, begin, end, _unescape(label), number)
        reading.entries.setdefault(key if key is not None else (number, index), []).append(entry)


def _note_characters(reading: _Reading, begin: int, token: str) -> None:
    """Remember where the token's characters outside the BMP are (two UTF-16 units)."""
    units = begin
    for character in token:
        if ord(character) > 0xFFFF:
            reading.astral.append(units)
            units += 2
        else:
            units += 1


def _units(parsed: ParsedFile, reading: _Reading, column: _Column) -> None:
    astral = sorted(reading.astral)

    def characters(units: int) -> int:
        return units - bisect.bisect_left(astral, units)

    parsed.document(reading.document, text=_text(reading, characters))
    found = False
    for entries in reading.entries.values():
        with_sub = {entry.token for entry in entries if entry.sub}
        kept = [entry for entry in entries if entry.sub or entry.token not in with_sub]
        first = min(kept, key=lambda entry: entry.begin)
        begin = characters(first.begin)
        end = characters(max(entry.end for entry in kept))
        parsed.spans.append(
            ParsedSpan(
                f"{reading.prefix}line {first.line}",
                reading.document,
                reading.coder,
                begin,
                end,
                first.label,
                column.field,
            )
        )
        found = True
    if not found and not reading.bad:
        parsed.spans.append(
            ParsedSpan(
                f"{reading.prefix}line 1".strip(),
                reading.document,
                reading.coder,
                field=column.field,
                empty_reason=NOTHING_FOUND,
            )
        )


def _text(reading: _Reading, characters: Callable[[int], int]) -> str:
    """The document's text rebuilt from its sentences (gaps between them as line breaks);
    empty when the sentences do not fit their offsets."""
    parts: list[str] = []
    length = 0
    for begin, sentence in reading.sentences:
        if begin < 0:
            continue
        start = characters(begin)
        if start < length:
            return ""
        if start > length:
            parts.append("\n" * (start - length))
        parts.append(sentence)
        length = start + len(sentence)
    return "".join(parts)
