"""Prodigy relations JSONL (``prodigy_rel``): ``prodigy db-out`` of a ``rel.manual`` dataset.

Each accepted task is one annotator's relations in one document:

- document: ``_input_hash`` (see the ``document_key`` option for other keys); coder:
  ``_annotator_id``, else ``_session_id``, else the ``coder`` option;
- ``relations: [{head, child, head_span, child_span, label}]``: ``head`` and ``child`` are
  token indices, ``head_span`` and ``child_span`` the two entities with their character
  ``start`` and ``end`` in ``text`` (end exclusive): the relation's head and tail units.

An accepted task with no relation says the annotator related nothing in the document;
rejected and ignored tasks are skipped.
"""

from __future__ import annotations

from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    ParsedFile,
    ParseOptions,
    decode,
    document_key,
    json_lines,
    key_text,
    register,
)
from exchange.formats.relations import add_relation, no_relation


@register(
    "prodigy_rel",
    title="Prodigy relations JSONL (rel.manual)",
    description="_input_hash = document, _annotator_id = coder; relations [{head_span, "
    "child_span, label}] of accepted tasks (character offsets of text).",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    for source, record in json_lines(decode(data)):
        parsed.records += 1
        if not isinstance(record, dict):
            parsed.reject(source, "record", ImportErrorCode.INVALID_TYPE, "A line is an object.")
            continue
        _task(parsed, source, record, options)
    return parsed


def _task(parsed: ParsedFile, source: str, record: dict[str, Any], options: ParseOptions) -> None:
    answer = record.get("answer")
    if answer in ("reject", "ignore"):
        parsed.skip(f"{answer}ed task")
        return
    if answer != "accept":
        parsed.reject(
            source, "answer", ImportErrorCode.INVALID_TYPE, "answer must be accept, reject or "
            "ignore."
        )  # fmt: skip
        return
    meta = record.get("meta")
    document, looked_for = document_key(
        own_id=record.get("_input_hash"),
        text=record.get("text"),
        fields=(record, meta if isinstance(meta, dict) else {}),
        key=options.document_key,
    )
    if document is None:
        parsed.reject(
            source, "_input_hash", ImportErrorCode.REQUIRED, f"No document key ({looked_for})."
        )
        return
    coder = (
        key_text(record.get("_annotator_id"))
        or key_text(record.get("_session_id"))
        or options.coder
    )
    if coder is None:
        parsed.reject(
            source,
            "_annotator_id",
            ImportErrorCode.REQUIRED,
            "_annotator_id / _session_id (the annotator) is missing; or give the coder option.",
        )
        return
    text = record.get("text")
    parsed.text_of(document, text)
    relations = record.get("relations", [])
    if not isinstance(relations, list):
        parsed.reject(
            source, "relations", ImportErrorCode.INVALID_TYPE, "relations must be a list."
        )
        return
    if not relations:
        no_relation(parsed, source=source, document=document, coder=coder)
    for index, relation in enumerate(relations):
        where = f"relations.{index}"
        if not isinstance(relation, dict):
            parsed.reject(source, where, ImportErrorCode.INVALID_TYPE, "A relation is an object.")
            continue
        ends = []
        for name in ("head_span", "child_span"):
            span = relation.get(name)
            span = span if isinstance(span, dict) else {}
            ends.append((span.get("start"), span.get("end")))
        add_relation(
            parsed,
            source=source,
            document=document,
            coder=coder,
            head=ends[0],
            tail=ends[1],
            label=relation.get("label"),
            text_length=len(text) if isinstance(text, str) else None,
            head_field=f"{where}.head_span",
            tail_field=f"{where}.child_span",
        )
