"""Argilla ranking responses: the records of an Argilla dataset as its SDK exports them
(``dataset.records.to_json`` / ``to_list(flatten=False)``: a JSON list of records, or a
JSON Lines file of them), each record's responses to a ranking question turned into the rows
``item,coder,option,rank`` of a ranking question.

- item = the record's ``id`` (else its ``_server_id``; another ``document_key`` names a key of
  its ``fields`` or ``metadata``); field = the question's name; coder = the response's
  ``user_id`` (a ``username`` when the response has one).
- ``responses`` maps each question to its responses, ``[{"value", "user_id", "status"}]``
  (Argilla 2); the older FeedbackDataset layout, a list of ``{"user_id", "status",
  "values": {question: {"value"}}}``, is read too.
- A ranking response's ``value`` is a list of ``{"value": option, "rank": r}`` (1 best; ties
  share a rank); options a response leaves out were not ranked.
- Only submitted responses count (``status`` ``submitted``, or none given); drafts and
  discarded ones are skipped and counted. A response of another shape (a label, a text) is
  rejected, naming its question, so that an import maps that question to null to leave it out.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedRegion,
    ParseOptions,
    decode,
    document_key,
    json_lines,
    key_text,
    load_json,
    register,
)

SUBMITTED = "submitted"


def _records(text: str) -> Iterator[tuple[str, Any]]:
    if text.lstrip().startswith(("[", "{")) and not _is_json_lines(text):
        value = load_json(text)
        if isinstance(value, dict):
            value = value.get("records", [value])
        if not isinstance(value, list):
            raise MalformedFileError("An Argilla export is a JSON list of records.")
        for index, record in enumerate(value):
            yield f"record[{index}]", record
        return
    yield from json_lines(text)


def _is_json_lines(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    if len(lines) < 2 or not lines[0].lstrip().startswith("{"):
        return False
    try:
        json.loads(lines[0])
    except ValueError:
        return False
    return True


def _responses(record: Mapping[str, Any]) -> Iterator[tuple[str, Mapping[str, Any], Any]]:
    """(question, response, value) of every response of the record, in both layouts."""
    responses = record.get("responses")
    if isinstance(responses, dict):
        for question, given in responses.items():
            for response in given if isinstance(given, list) else [given]:
                if isinstance(response, dict):
                    yield str(question), response, response.get("value")
    elif isinstance(responses, list):
        for response in responses:
            values = response.get("values") if isinstance(response, dict) else None
            for question, answer in (values or {}).items():
                value = answer.get("value") if isinstance(answer, dict) else answer
                yield str(question), response, value


def _ranking(value: Any) -> list[dict[str, Any]] | None:
    """The rows of a ranking response's value, or None when it is no ranking."""
    if not isinstance(value, list) or not value:
        return None
    if not all(isinstance(entry, dict) and "rank" in entry for entry in value):
        return None
    return [{"option": entry.get("value"), "rank": entry.get("rank")} for entry in value]


@register(
    "argilla",
    title="Argilla records (ranking responses)",
    description="An Argilla dataset's records as its SDK exports them (JSON list or JSON "
    "Lines): the responses to ranking questions, as item,coder,option,rank rows.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    for source, record in _records(decode(data)):
        if not isinstance(record, dict):
            parsed.records += 1
            parsed.reject(source, "record", ImportErrorCode.INVALID_TYPE, "A record is an object.")
            continue
        own_id = record.get("id") if key_text(record.get("id")) else record.get("_server_id")
        fields = record.get("fields")
        item, looked_for = document_key(
            own_id=own_id,
            text=None,
            fields=tuple(
                where for where in (fields, record.get("metadata")) if isinstance(where, dict)
            ),
            key=options.document_key,
        )
        if item is None:
            parsed.records += 1
            parsed.reject(
                source,
                "id",
                ImportErrorCode.REQUIRED,
                f"The record has no item key ({looked_for} of document_key).",
            )
            continue
        source = f"record {item}"
        for question, response, value in _responses(record):
            parsed.records += 1
            _response(parsed, item, source, question, response, value)
    return parsed


def _response(
    parsed: ParsedFile,
    item: str,
    source: str,
    question: str,
    response: Mapping[str, Any],
    value: Any,
) -> None:
    status = response.get("status", SUBMITTED)
    if status != SUBMITTED:
        parsed.skip(f"{status} response")
        return
    coder = key_text(response.get("username")) or key_text(response.get("user_id"))
    where = f"{source}, {question}"
    if coder is None:
        parsed.reject(
            where,
            "user_id",
            ImportErrorCode.REQUIRED,
            "The response has no user_id.",
            tool_field=question,
        )
        return
    rows = _ranking(value)
    if rows is None:
        parsed.reject(
            where,
            "value",
            ImportErrorCode.UNSUPPORTED_TYPE,
            f"The response to {question!r} is no ranking (a list of value and rank): only "
            "ranking responses are imported; to leave the question out, map it to null: "
            + json.dumps({"question_map": {question: None}}, ensure_ascii=False)[1:-1]
            + ".",
            tool_field=question,
            pair=(item, coder),
        )
        return
    parsed.regions.extend(
        ParsedRegion(where, item, coder, "ranking", cells, question) for cells in rows
    )
