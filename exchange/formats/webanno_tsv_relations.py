"""INCEpTION / WebAnno TSV 3.x relation layers (``inception_tsv_relations``): one
annotator's relations in one document.

The file and the archive are those of ``inception_tsv`` (:mod:`exchange.formats.webanno_tsv`:
``annotation/<document>/<user>.tsv`` members of INCEpTION's project export, or one ``.tsv``
file named after its document with the ``coder`` option). A relation layer's header is
``#T_RL=<layer>|<feature>...|BT_<span layer>``: its columns hold, on the line of the
relation's *target* (dependent) token, the feature's value and in the ``BT_`` column the
address of its *source* (governor) token, ``<sentence>-<token>``, followed by
``[<source id>_<target id>]`` when either end is a multi-token (or stacked) annotation of the
span layer, whose ``[id]`` the span layer's column carries (0: the single-token annotation
at that address). Stacked relations are separated by ``|`` in both columns.

A relation's head is its source (the governor, where INCEpTION's arc starts), its tail its
target; each unit is its span annotation, from its first token's begin to its last token's
end. The ``layer`` option picks the relation layer (``Layer`` or ``Layer.feature``; default
the file's first relation layer and its first feature). Offsets are UTF-16 code units in the
file (Java), converted to characters with the tokens' text. A file with no relation of the
layer says the annotator related nothing in the document; a relation without a value
(``*``) is rejected.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParseOptions,
    decode,
    is_zip,
    register,
    stem,
)
from exchange.formats.relations import add_relation, no_relation
from exchange.formats.webanno_tsv import (
    _LAYER_HEADERS,
    _OFFSETS,
    _TOKEN_ID,
    _WITH_ID,
    NO_ANNOTATION,
    NO_VALUE,
    _note_characters,
    _Reading,
    _short,
    _split_stack,
    _text,
    _unescape,
    annotator_files,
)

_REFERENCE = re.compile(r"^(\d+-\d+(?:\.\d+)?)(?:\[(\d+)_(\d+)\])?$", re.ASCII)


@dataclass(frozen=True)
class _Layout:
    """The columns (after the token) the chosen relation layer reads."""

    feature: int  # the relation's label
    governor: int  # the BT_ column: the source's address
    span: int  # a column of the span layer the relations join (its annotations' ids)
    name: str  # "<short layer>.<feature>", as errors name it
    width: int


@dataclass
class _File:
    """One TSV file being read: token offsets, the span layer's units, relations pending."""

    reading: _Reading
    tokens: dict[str, tuple[int, int]] = field(default_factory=dict)
    spans: dict[int, tuple[int, int]] = field(default_factory=dict)
    # (source line, label, source address, source id, target address, target id)
    pending: list[tuple[str, str, str, int, str, int]] = field(default_factory=list)


def _layout(headers: list[str], spec: str | None, where: str) -> _Layout:
    columns: list[tuple[str, str, list[str], int]] = []
    width = 0
    for header in headers:
        kind, _, rest = header.partition("=")
        name, *features = rest.split("|")
        features = [feature for feature in features if feature]
        columns.append((kind, name, features, width))
        width += max(1, len(features))
    first_span = {name: first for kind, name, _, first in columns if kind == "#T_SP"}
    for kind, name, features, first in columns:
        if kind != "#T_RL" or not features or not features[-1].startswith("BT_"):
            continue
        own = features[:-1]
        chosen = None
        for layer_name in (name, _short(name)):
            if spec is None or spec == layer_name:
                chosen = own[0] if own else None
            for feature in own:
                if spec == f"{layer_name}.{feature}":
                    chosen = feature
        span_layer = features[-1][3:]
        if chosen is None or span_layer not in first_span:
            continue
        return _Layout(
            feature=first + own.index(chosen),
            governor=first + len(features) - 1,
            span=first_span[span_layer],
            name=f"{_short(name)}.{chosen}",
            width=width,
        )
    available = ", ".join(_short(name) for kind, name, _, _ in columns if kind == "#T_RL")
    raise MalformedFileError(
        f"{where}has no relation layer {spec or ''!r} with a feature and the span layer it "
        f"joins; name one with the layer option (the file's relation layers: "
        f"{available or 'none'}).",
        source=where.strip() or "file",
    )


@register(
    "inception_tsv_relations",
    title="INCEpTION / WebAnno TSV 3 (relations)",
    description="One annotator's document (or the project export's annotation/<doc>/<user>.tsv "
    "files in a zip); the relations of one relation layer (#T_RL), source token as head.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    if is_zip(data):
        for name, text, document, user in annotator_files(parsed, data):
            _parse_file(parsed, text, document, user, f"{name} ", options)
        return parsed
    single = stem(options.filename)
    if single is None or not options.coder:
        raise MalformedFileError(
            "A single TSV file is one annotator's document: upload it under the document's "
            "name with the coder option (or import INCEpTION's project archive)."
        )
    _parse_file(parsed, decode(data), single, options.coder, "", options)
    return parsed


def _parse_file(
    parsed: ParsedFile, text: str, document: str, coder: str, prefix: str, options: ParseOptions
) -> None:
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    if not first.startswith("#FORMAT=WebAnno TSV 3"):
        raise MalformedFileError(
            f"{prefix}is not a WebAnno TSV 3 file (it starts with #FORMAT=WebAnno TSV 3.x).",
            source=prefix.strip() or "file",
        )
    layout = _layout(
        [line for line in lines if line.startswith(_LAYER_HEADERS)], options.layer, prefix
    )
    file = _File(_Reading(document=document, coder=coder, prefix=prefix))
    in_text = False
    for number, line in enumerate(lines, start=1):
        if line.startswith("#Text="):
            sentences = file.reading.sentences
            if in_text:
                sentences[-1] = (sentences[-1][0], f"{sentences[-1][1]}\n{line[6:]}")
            else:
                sentences.append((-1, line[6:]))
            in_text = True
            continue
        in_text = False
        if not line.strip() or line.startswith("#"):
            continue
        _token_line(parsed, file, layout, number, line)
    _relations(parsed, file, layout)


def _token_line(parsed: ParsedFile, file: _File, layout: _Layout, number: int, line: str) -> None:
    reading = file.reading
    source = f"{reading.prefix}line {number}"
    cells = line.split("\t")
    token_id = _TOKEN_ID.match(cells[0])
    offsets = _OFFSETS.match(cells[1]) if len(cells) > 1 else None
    if token_id is None or offsets is None or len(cells) < 3 + layout.width:
        reading.bad = True
        parsed.records += 1
        parsed.reject(
            source,
            "line",
            ImportErrorCode.INVALID_TYPE,
            f"A token line is <sentence>-<token>, <begin>-<end>, the token, then "
            f"{layout.width} annotation column(s).",
            pair=(reading.document, reading.coder),
        )
        return
    begin, end = int(offsets.group(1)), int(offsets.group(2))
    address = cells[0]
    file.tokens[address] = (begin, end)
    if token_id.group(3) is None:
        _note_characters(reading, begin, _unescape(cells[2]))
        if reading.sentences and reading.sentences[-1][0] < 0:
            reading.sentences[-1] = (begin, reading.sentences[-1][1])
    span_cell = cells[3 + layout.span]
    if span_cell != NO_ANNOTATION:
        for value in _split_stack(span_cell):
            match = _WITH_ID.match(value)
            if match is not None:
                key = int(match.group(2))
                low, high = file.spans.get(key, (begin, end))
                file.spans[key] = (min(low, begin), max(high, end))
    labels, governors = cells[3 + layout.feature], cells[3 + layout.governor]
    if labels == NO_ANNOTATION and governors == NO_ANNOTATION:
        return
    for label, governor in zip(_split_stack(labels), _split_stack(governors), strict=False):
        parsed.records += 1
        reference = _REFERENCE.match(governor)
        if reference is None:
            parsed.reject(
                source,
                f"BT_{layout.name}",
                ImportErrorCode.INVALID_TYPE,
                f"{governor!r} is no source address (<sentence>-<token>, with [<source "
                "id>_<target id>] for multi-token units).",
                pair=(reading.document, reading.coder),
            )
            continue
        source_id = int(reference.group(2) or 0)
        target_id = int(reference.group(3) or 0)
        file.pending.append(
            (source, _unescape(label), reference.group(1), source_id, address, target_id)
        )


def _relations(parsed: ParsedFile, file: _File, layout: _Layout) -> None:
    reading = file.reading
    astral = sorted(reading.astral)

    def characters(units: int) -> int:
        return units - bisect.bisect_left(astral, units)

    text = _text(reading, characters)
    parsed.text_of(reading.document, text)
    pair = (reading.document, reading.coder)
    for source, label, source_address, source_id, target_address, target_id in file.pending:
        if label in (NO_VALUE, NO_ANNOTATION, ""):
            parsed.reject(
                source,
                layout.name,
                ImportErrorCode.REQUIRED,
                f"A relation of {layout.name} has no value ({label!r}).",
                tool_field=layout.name,
                pair=pair,
            )
            continue
        units = []
        for role, field_name, address, key in (
            ("source", f"BT_{layout.name}", source_address, source_id),
            ("target", layout.name, target_address, target_id),
        ):
            unit = file.spans.get(key) if key else file.tokens.get(address)
            if unit is None:
                parsed.reject(
                    source,
                    field_name,
                    ImportErrorCode.REQUIRED,
                    f"The relation's {role} ({address}[{key}]) is no token or span "
                    "annotation of the file.",
                    pair=pair,
                )
                break
            units.append((characters(unit[0]), characters(unit[1])))
        else:
            add_relation(
                parsed,
                source=source,
                document=reading.document,
                coder=reading.coder,
                head=units[0],
                tail=units[1],
                label=label,
                text_length=len(text) if text else None,
                head_field=f"BT_{layout.name}",
                tail_field=layout.name,
            )
    if not file.pending and not reading.bad:
        no_relation(
            parsed,
            source=f"{reading.prefix}line 1".strip(),
            document=reading.document,
            coder=reading.coder,
        )
