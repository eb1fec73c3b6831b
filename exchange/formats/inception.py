"""INCEpTION / WebAnno agreement-page exports.

``inception``: the span label export, JSON (a list of ``{"doc", "user", "begin", "end",
"text", "label"}``) or CSV with the columns ``doc,user,begin,end,text,label``. Each record
is a span unit of the document ``doc`` (character offsets, end exclusive), the coder is
``user``, the label is ``label``. The export lists spans only: a user with no span in a
document is not known to have annotated it.

``inception_diagnosis``: the Diagnosis CSV: ``Type, Collection, Document, Layer, Feature,
Position, Flags`` then one column per annotator. The item is ``<Document>:<Position>``,
the question's field is the ``Feature``. Cells ``<no annotation>`` (nothing there) and
``<no label>`` (an annotation with an empty feature; not a value we can store) are
skipped; stacked values (``a, b``) become a set.
"""

from __future__ import annotations

from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedRow,
    ParsedSpan,
    ParseOptions,
    csv_rows,
    decode,
    key_text,
    load_json,
    refuse_repeated_column,
    register,
)
from studies.text_rules import NumberFormatError, parse_whole_number

SPAN_COLUMNS = ("doc", "user", "begin", "end", "text", "label")
DIAGNOSIS_COLUMNS = ("Type", "Collection", "Document", "Layer", "Feature", "Position", "Flags")
NO_ANNOTATION = "<no annotation>"
NO_LABEL = "<no label>"
STACK_SEPARATOR = ", "


def _offset(raw: Any) -> int | None:
    if isinstance(raw, int) and not isinstance(raw, bool):
        return raw
    if isinstance(raw, str):
        try:
            return parse_whole_number(raw)
        except NumberFormatError:
            return None
    return None


def _span(parsed: ParsedFile, source: str, record: dict[str, Any]) -> None:
    doc = key_text(record.get("doc"))
    user = key_text(record.get("user"))
    begin, end = _offset(record.get("begin")), _offset(record.get("end"))
    label = record.get("label")
    for name, value in (("doc", doc), ("user", user)):
        if value is None:
            parsed.reject(source, name, ImportErrorCode.REQUIRED, f"{name} is missing.")
            return
    assert doc is not None
    assert user is not None
    for name, raw, offset in (
        ("begin", record.get("begin"), begin),
        ("end", record.get("end"), end),
    ):
        if offset is None:
            code = ImportErrorCode.REQUIRED if raw in (None, "") else ImportErrorCode.INVALID_TYPE
            parsed.reject(
                source,
                name,
                code,
                f"{name} must be a character offset (an integer).",
                pair=(doc, user),
            )
            return
    assert begin is not None
    assert end is not None
    if end <= begin:
        parsed.reject(
            source,
            "end",
            ImportErrorCode.INVALID_OFFSETS,
            f"end {end} must be greater than begin {begin}.",
            pair=(doc, user),
        )
        return
    if label is None or label == "":
        parsed.reject(
            source,
            "label",
            ImportErrorCode.REQUIRED,
            "label is missing (select a feature when exporting from INCEpTION).",
            pair=(doc, user),
        )
        return
    parsed.document(doc)
    parsed.spans.append(ParsedSpan(source, doc, user, begin, end, str(label).strip()))


@register(
    "inception",
    title="INCEpTION agreement export (spans)",
    description="JSON list or CSV with doc, user, begin, end, text, label.",
)
def parse_spans(data: bytes, options: ParseOptions) -> ParsedFile:
    text = decode(data)
    parsed = ParsedFile()
    if text.lstrip().startswith(("[", "{")):
        records = load_json(text)
        if not isinstance(records, list):
            raise MalformedFileError("An INCEpTION JSON export is a list of span records.")
        for index, record in enumerate(records):
            parsed.records += 1
            source = f"record {index}"
            if not isinstance(record, dict):
                parsed.reject(
                    source, "record", ImportErrorCode.INVALID_TYPE, "A record is an object."
                )
                continue
            _span(parsed, source, record)
        return parsed
    header, lines = csv_rows(text)
    refuse_repeated_column(header, ignore_case=True)
    columns = [name.lower() for name in header]
    missing = [name for name in SPAN_COLUMNS[:4] if name not in columns]
    if missing:
        raise MalformedFileError(
            f"The CSV header lacks {', '.join(missing)}; expected {','.join(SPAN_COLUMNS)}."
        )
    for number, cells in lines:
        parsed.records += 1
        record = dict(zip(columns, (cell.strip() for cell in cells), strict=False))
        _span(parsed, f"line {number}", record)
    return parsed


@register(
    "inception_diagnosis",
    title="INCEpTION agreement Diagnosis CSV",
    description="Type, Collection, Document, Layer, Feature, Position, Flags, then one column "
    "per annotator.",
)
def parse_diagnosis(data: bytes, options: ParseOptions) -> ParsedFile:
    header, lines = csv_rows(decode(data))
    if tuple(header[: len(DIAGNOSIS_COLUMNS)]) != DIAGNOSIS_COLUMNS:
        raise MalformedFileError(
            "A Diagnosis CSV starts with the columns " + ", ".join(DIAGNOSIS_COLUMNS) + "."
        )
    annotators = header[len(DIAGNOSIS_COLUMNS) :]
    if not annotators or not all(annotators):
        raise MalformedFileError("The Diagnosis CSV names no annotator (or an empty one).")
    refuse_repeated_column(header)
    parsed = ParsedFile()
    width = len(header)
    for number, cells in lines:
        parsed.records += 1
        source = f"line {number}"
        feature = cells[4].strip() if len(cells) > 4 else ""
        if len(cells) != width:
            parsed.reject(
                source,
                "row",
                ImportErrorCode.INVALID_TYPE,
                f"The line has {len(cells)} cells; the header has {width}.",
                tool_field=feature or None,
            )
            continue
        document, position = cells[2].strip(), cells[5].strip()
        if not document or not position:
            parsed.reject(
                source,
                "Document" if not document else "Position",
                ImportErrorCode.REQUIRED,
                "Document and Position are required.",
                tool_field=feature or None,
            )
            continue
        for annotator, cell in zip(annotators, cells[len(DIAGNOSIS_COLUMNS) :], strict=True):
            value = cell.strip()
            if value in ("", NO_ANNOTATION):
                continue
            if value == NO_LABEL:
                parsed.skip("annotation without a label (<no label>)")
                continue
            stacked = [part.strip() for part in value.split(STACK_SEPARATOR) if part.strip()]
            label: Any = stacked[0] if len(stacked) == 1 else stacked
            parsed.rows.append(
                ParsedRow(
                    source=f"{source}, column {annotator}",
                    item=f"{document}:{position}",
                    coder=annotator,
                    label=label,
                    field=feature or None,
                )
            )
    return parsed
