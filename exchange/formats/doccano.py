"""doccano JSONL export of a text classification project.

One record per line: ``{"id": 12, "text": "...", "label": ["positive"]}`` (a list, so a set
when the project allows several labels). The annotator is the record's ``annotator``,
``user`` or ``username`` field when there is one; otherwise the whole file is one
annotator's (doccano writes one file per user when collaborative annotation is off): the
``coder`` option, else the uploaded file's name without extension (``alice.jsonl``).
A zip of such files (doccano's export archive) imports every ``.jsonl`` member, each
named after its annotator.

The item is the record's ``id`` (or ``example_id``); a record without one is keyed by a
hash of its text, so the same text matches across annotators' files. Records with an
empty label list are skipped (not labelled is not a label). Span lists
(``[[0, 2, "ORG"], ...]``, sequence labeling) are not imported.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from pathlib import PurePosixPath
from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedRow,
    ParseOptions,
    decode,
    json_lines,
    key_text,
    one_or_set,
    register,
)

ANNOTATOR_FIELDS = ("annotator", "user", "username")
ITEM_FIELDS = ("id", "example_id")
MAX_ZIP_MEMBERS = 1_000
MAX_UNZIPPED_BYTES = 256 * 2**20  # a zip bomb stops here, not in memory


def text_key(text: str) -> str:
    return "text:" + hashlib.sha256(text.encode()).hexdigest()[:20]


def _stem(name: str | None) -> str | None:
    if not name:
        return None
    return PurePosixPath(name).stem.strip() or None


@register(
    "doccano",
    title="doccano JSONL (text classification)",
    description="One record per line with text and a label list; one file (or zip member) "
    "per annotator, or an annotator field.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    if data[:4] == b"PK\x03\x04":
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
            members = [
                info
                for info in archive.infolist()
                if not info.is_dir() and info.filename.lower().endswith((".jsonl", ".json"))
            ]
            if not members:
                raise MalformedFileError("The zip archive holds no .jsonl file.")
            if len(members) > MAX_ZIP_MEMBERS:
                raise MalformedFileError(f"The zip archive holds over {MAX_ZIP_MEMBERS} files.")
            if sum(info.file_size for info in members) > MAX_UNZIPPED_BYTES:
                raise MalformedFileError(
                    f"The zip archive unpacks to over {MAX_UNZIPPED_BYTES // 2**20} MB."
                )
            for info in members:
                _parse_text(
                    parsed,
                    decode(archive.read(info)),
                    coder=_stem(info.filename),
                    prefix=f"{info.filename} ",
                )
        except (zipfile.BadZipFile, EOFError):
            raise MalformedFileError("The zip archive is damaged or truncated.") from None
        return parsed
    _parse_text(parsed, decode(data), coder=options.coder or _stem(options.filename), prefix="")
    return parsed


def _parse_text(parsed: ParsedFile, text: str, *, coder: str | None, prefix: str) -> None:
    for source, record in json_lines(text, prefix=prefix):
        parsed.records += 1
        if not isinstance(record, dict):
            parsed.reject(source, "record", ImportErrorCode.INVALID_TYPE, "A record is an object.")
            continue
        _record(parsed, source, record, file_coder=coder)


def _record(
    parsed: ParsedFile, source: str, record: dict[str, Any], *, file_coder: str | None
) -> None:
    coder = next(
        (key_text(record[name]) for name in ANNOTATOR_FIELDS if key_text(record.get(name))),
        file_coder,
    )
    if coder is None:
        parsed.reject(
            source,
            "annotator",
            ImportErrorCode.REQUIRED,
            "No annotator: the record has no annotator field and no coder was given for the file.",
        )
        return
    item = next(
        (key_text(record[name]) for name in ITEM_FIELDS if key_text(record.get(name))), None
    )
    if item is None:
        text = record.get("text")
        if not isinstance(text, str):
            parsed.reject(
                source, "id", ImportErrorCode.REQUIRED, "The record has neither an id nor a text."
            )
            return
        item = text_key(text)
    labels = record.get("label", record.get("labels"))
    if labels is None:
        parsed.reject(source, "label", ImportErrorCode.REQUIRED, "The record has no label field.")
        return
    if isinstance(labels, str):
        labels = [labels]
    if not isinstance(labels, list):
        parsed.reject(
            source, "label", ImportErrorCode.INVALID_TYPE, "label must be a list of label names."
        )
        return
    if not labels:
        parsed.skip("record without a label")
        return
    if any(isinstance(label, list) for label in labels):
        parsed.reject(
            source,
            "label",
            ImportErrorCode.UNSUPPORTED_TYPE,
            "Span labels (sequence labeling) are not imported; only text classification.",
        )
        return
    parsed.text_of(item, record.get("text"))
    parsed.rows.append(ParsedRow(source=source, item=item, coder=coder, label=one_or_set(labels)))
