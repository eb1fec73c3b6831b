"""brat standoff (``brat``): ``.ann`` files of text-bound annotations and relations.

One ``.ann`` file is one annotator's annotation of one document: ``T`` lines are entities
(``T1<TAB>Person 0 5<TAB>Alice``, character offsets of the document's ``.txt``, end
exclusive), ``R`` lines relations between two of them (``R1<TAB>Works_for Arg1:T1
Arg2:T2``: head ``Arg1``, tail ``Arg2``). The import reads the relations into a relation
question; a file without an ``R`` line says the annotator related nothing in the document.

Upload a zip archive of ``<annotator>/<document>.ann`` files (with the document's text as
``<annotator>/<document>.txt`` or ``<document>.txt``, which the offsets are checked
against and new items get), or one ``.ann`` file: its name is the document, the ``coder``
option its annotator. Equivalence lines (``*<TAB>Equiv T1 T2``) are refused: brat's ``*``
groups several entities at once, which is no (head, tail) pair; write them as ``R`` lines
of a label declared undirected. Discontinuous entities (``0 5;8 10``) are refused (a
relation's unit is one span). Events (``E``), attributes (``A``, ``M``), normalisations
(``N``) and notes (``#``) are not relations and are skipped.
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParseOptions,
    decode,
    is_zip,
    register,
    stem,
    zip_members,
)
from exchange.formats.relations import add_relation, no_relation

_ENTITY = re.compile(r"^(\S+) (\d+) (\d+)$")
_ARGUMENT = re.compile(r"^([^:\s]+):(\S+)$")
SKIPPED = {
    "E": "brat event (not a relation)",
    "A": "brat attribute (not a relation)",
    "M": "brat attribute (not a relation)",
    "N": "brat normalisation (not a relation)",
    "#": "brat note (not a relation)",
}


@register(
    "brat",
    title="brat standoff (.ann)",
    description="Relations (R lines between T entities) of brat .ann files: a zip of "
    "<annotator>/<document>.ann (with the .txt texts), or one .ann file (its name the "
    "document, the coder option its annotator).",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    if is_zip(data):
        members = dict(zip_members(data, (".ann", ".txt")))
        for name in sorted(member for member in members if member.lower().endswith(".ann")):
            path = PurePosixPath(name)
            if len(path.parts) < 2:
                raise MalformedFileError(
                    f"{name}: a brat archive holds <annotator>/<document>.ann files."
                )
            coder, document = path.parts[-2], path.stem
            text = members.get(str(path.with_suffix(".txt")))
            if text is None:
                text = members.get(str(PurePosixPath(*path.parts[:-2], f"{document}.txt")))
            _ann(parsed, members[name], name, document, coder, text)
        return parsed
    single = stem(options.filename)
    if not options.coder or not single:
        raise MalformedFileError(
            "One .ann file is one annotator's document: name its annotator with the coder "
            "option (and upload it under the document's name), or upload a zip of "
            "<annotator>/<document>.ann files."
        )
    _ann(parsed, decode(data), options.filename or single, single, options.coder, None)
    return parsed


def _ann(
    parsed: ParsedFile, content: str, name: str, document: str, coder: str, text: str | None
) -> None:
    """One annotator's ``.ann`` file of one document."""
    parsed.text_of(document, text)
    entities: dict[str, tuple[int, int]] = {}
    relations: list[tuple[str, str, str, str, str]] = []  # source, label, head, tail, line
    lines = content.splitlines()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        source = f"{name}, line {number}"
        identifier, _, rest = line.partition("\t")
        kind = identifier[:1]
        if kind == "T":
            parsed.records += 1
            annotation = rest.partition("\t")[0]
            found = _ENTITY.match(annotation)
            if found is None:
                detail = (
                    "a discontinuous entity (several spans) cannot be a relation's unit"
                    if ";" in annotation
                    else "an entity is '<type> <begin> <end>'"
                )
                parsed.reject(
                    source, "offsets", ImportErrorCode.INVALID_OFFSETS, f"{identifier}: {detail}."
                )
                continue
            entities[identifier] = (int(found.group(2)), int(found.group(3)))
        elif kind == "R":
            parsed.records += 1
            relations.append((source, identifier, *_relation(parsed, source, rest)))
        elif kind == "*":
            parsed.records += 1
            parsed.reject(
                source,
                "*",
                ImportErrorCode.UNSUPPORTED_TYPE,
                "brat equivalence lines (*) group entities without a head and a tail: they "
                "are not imported. Write each pair as an R line of a label declared "
                "undirected.",
                pair=(document, coder),
            )
        elif kind in SKIPPED:
            parsed.records += 1
            parsed.skip(SKIPPED[kind])
        else:
            parsed.records += 1
            parsed.reject(
                source,
                "id",
                ImportErrorCode.INVALID_TYPE,
                f"{identifier!r} is no brat annotation id (T, R, E, A, M, N, * or #).",
            )
    added = 0
    for source, _identifier, label, head, tail in relations:
        if not label:
            continue  # rejected while reading
        missing = next(
            ((arg, ref) for arg, ref in (("Arg1", head), ("Arg2", tail)) if ref not in entities),
            None,
        )
        if missing is not None:
            parsed.reject(
                source,
                missing[0],
                ImportErrorCode.REQUIRED,
                f"{missing[0]} names {missing[1]!r}, which no T line of the file declares.",
                pair=(document, coder),
            )
            continue
        added += add_relation(
            parsed,
            source=source,
            document=document,
            coder=coder,
            head=entities[head],
            tail=entities[tail],
            label=label,
            text_length=len(text) if text is not None else None,
            head_field="Arg1",
            tail_field="Arg2",
        )
    if not relations:
        no_relation(parsed, source=name, document=document, coder=coder)


def _relation(parsed: ParsedFile, source: str, rest: str) -> tuple[str, str, str]:
    """(label, head id, tail id) of an ``R`` line; the label empty when rejected."""
    parts = rest.split()
    arguments = {}
    for part in parts[1:]:
        found = _ARGUMENT.match(part)
        if found is not None:
            arguments[found.group(1)] = found.group(2)
    if len(parts) != 3 or set(arguments) != {"Arg1", "Arg2"}:
        parsed.reject(
            source,
            "arguments",
            ImportErrorCode.INVALID_TYPE,
            "A relation is '<label> Arg1:<T id> Arg2:<T id>'.",
        )
        return "", "", ""
    return parts[0], arguments["Arg1"], arguments["Arg2"]
