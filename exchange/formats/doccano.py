"""doccano JSONL exports: text classification and sequence labeling (spans).

One record per line. Text classification: ``{"id": 12, "text": "...", "label":
["positive"]}`` (a list, so a set when the project allows several labels). Sequence
labeling, in either of doccano's two shapes: ``"label": [[0, 5, "ORG"], ...]`` or
``"entities": [{"start_offset": 0, "end_offset": 5, "label": "ORG"}, ...]``; the offsets
are characters of ``text``, the end exclusive.

The annotator is the record's ``annotator``, ``user`` or ``username`` field when there is
one; otherwise the whole file is one annotator's (doccano writes one file per user when
collaborative annotation is off): the ``coder`` option, else the uploaded file's name
without extension (``alice.jsonl``). A zip of such files (doccano's export archive)
imports every ``.jsonl`` member, each named after its annotator.

The document (item) is the record's ``id`` (or ``example_id``); a record without one is
keyed by a hash of its text, so the same text matches across annotators' files (see the
``document_key`` option for other keys). A record with an empty label list is a mark
"this annotator saw the document and found nothing": a span question stores it as such,
any other question skips it (not labelled is not a label).
"""

from __future__ import annotations

from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    ParsedFile,
    ParsedRow,
    ParsedSpan,
    ParseOptions,
    decode,
    document_key,
    is_zip,
    json_lines,
    key_text,
    offsets_error,
    one_or_set,
    register,
    stem,
    text_key,
    whole_number,
    zip_members,
)

ANNOTATOR_FIELDS = ("annotator", "user", "username")
ITEM_FIELDS = ("id", "example_id")
NO_LABEL = "record without a label"


@register(
    "doccano",
    title="doccano JSONL (text classification, sequence labeling)",
    description="One record per line with text and a label list (or spans: [start, end, "
    "label] lists or entities); one file (or zip member) per annotator, or an annotator "
    "field.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    if is_zip(data):
        for name, text in zip_members(data, (".jsonl", ".json")):
            _parse_text(parsed, text, coder=stem(name), prefix=f"{name} ", options=options)
        return parsed
    _parse_text(
        parsed,
        decode(data),
        coder=options.coder or stem(options.filename),
        prefix="",
        options=options,
    )
    return parsed


def _parse_text(
    parsed: ParsedFile, text: str, *, coder: str | None, prefix: str, options: ParseOptions
) -> None:
    for source, record in json_lines(text, prefix=prefix):
        parsed.records += 1
        if not isinstance(record, dict):
            parsed.reject(source, "record", ImportErrorCode.INVALID_TYPE, "A record is an object.")
            continue
        _record(parsed, source, record, file_coder=coder, options=options)


def _item(record: dict[str, Any], options: ParseOptions) -> tuple[str | None, str]:
    text = record.get("text")
    if options.document_key == "id":
        own = next((record[name] for name in ITEM_FIELDS if key_text(record.get(name))), None)
        if own is None:
            # No id: the text names the record, the same in every annotator's file.
            return (text_key(text) if isinstance(text, str) else None), "an id or a text"
        return key_text(own), "an id"
    meta = record.get("meta")
    return document_key(
        own_id=None,
        text=text,
        fields=(record, meta if isinstance(meta, dict) else {}),
        key=options.document_key,
    )


def _record(
    parsed: ParsedFile,
    source: str,
    record: dict[str, Any],
    *,
    file_coder: str | None,
    options: ParseOptions,
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
    item, looked_for = _item(record, options)
    if item is None:
        parsed.reject(
            source,
            "id",
            ImportErrorCode.REQUIRED,
            f"The record has no document key ({looked_for}).",
        )
        return
    if "entities" in record:
        _entities(parsed, source, record, item=item, coder=coder)
        return
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
        _found_nothing(parsed, source, record, item=item, coder=coder)
        return
    if any(isinstance(label, list) for label in labels):
        _span_lists(parsed, source, record, labels, item=item, coder=coder)
        return
    parsed.text_of(item, record.get("text"))
    parsed.rows.append(ParsedRow(source=source, item=item, coder=coder, label=one_or_set(labels)))


def _found_nothing(
    parsed: ParsedFile, source: str, record: dict[str, Any], *, item: str, coder: str
) -> None:
    parsed.document(item, text=record.get("text"))
    parsed.spans.append(ParsedSpan(source, item, coder, empty_reason=NO_LABEL))


def _span(
    parsed: ParsedFile,
    source: str,
    record: dict[str, Any],
    *,
    item: str,
    coder: str,
    begin: Any,
    end: Any,
    label: Any,
) -> bool:
    """Add one span; False (and a rejection) when it is bad."""
    text = record.get("text")
    error = offsets_error(begin, end, length=len(text) if isinstance(text, str) else None)
    if error:
        parsed.reject(source, "label", ImportErrorCode.INVALID_OFFSETS, error, pair=(item, coder))
        return False
    name = key_text(label)
    if name is None:
        parsed.reject(
            source,
            "label",
            ImportErrorCode.INVALID_TYPE,
            f"A span's label must be a label name (got {label!r}).",
            pair=(item, coder),
        )
        return False
    parsed.spans.append(
        ParsedSpan(source, item, coder, whole_number(begin), whole_number(end), name)
    )
    return True


def _span_lists(
    parsed: ParsedFile,
    source: str,
    record: dict[str, Any],
    spans: list[Any],
    *,
    item: str,
    coder: str,
) -> None:
    parsed.document(item, text=record.get("text"))
    for index, span in enumerate(spans):
        where = f"{source}, span {index + 1}"
        if not isinstance(span, list) or len(span) != 3:
            parsed.reject(
                where,
                "label",
                ImportErrorCode.INVALID_TYPE,
                "A span is a list [start, end, label].",
                pair=(item, coder),
            )
            continue
        _span(
            parsed, where, record, item=item, coder=coder, begin=span[0], end=span[1], label=span[2]
        )


def _entities(
    parsed: ParsedFile, source: str, record: dict[str, Any], *, item: str, coder: str
) -> None:
    entities = record.get("entities")
    if not isinstance(entities, list):
        parsed.reject(
            source,
            "entities",
            ImportErrorCode.INVALID_TYPE,
            "entities must be a list of {start_offset, end_offset, label}.",
            pair=(item, coder),
        )
        return
    if not entities:
        _found_nothing(parsed, source, record, item=item, coder=coder)
        return
    parsed.document(item, text=record.get("text"))
    for index, entity in enumerate(entities):
        where = f"{source}, entity {index + 1}"
        if not isinstance(entity, dict):
            parsed.reject(
                where,
                "entities",
                ImportErrorCode.INVALID_TYPE,
                "An entity is an object {start_offset, end_offset, label}.",
                pair=(item, coder),
            )
            continue
        _span(
            parsed,
            where,
            record,
            item=item,
            coder=coder,
            begin=entity.get("start_offset"),
            end=entity.get("end_offset"),
            label=entity.get("label"),
        )
