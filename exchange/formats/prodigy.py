"""Prodigy JSONL (``prodigy db-out <dataset>``).

- item: ``_input_hash`` (Prodigy's own agreement groups by it);
- coder: ``_annotator_id``, else ``_session_id``;
- label: in choice tasks (``options`` present) the ``accept`` list (one id, or a set when
  several are accepted); in binary tasks the ``answer`` (``accept`` / ``reject``), and when
  the task carries a ``label`` (``textcat.teach``) that label is the question's field, so
  each label can map onto its own yes/no question.

``answer == "ignore"`` is skipped, as are rejected choice tasks (the annotator chose none
of the options). Span tasks (``spans`` without options) are not imported.
"""

from __future__ import annotations

from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    ParsedFile,
    ParsedRow,
    ParseOptions,
    decode,
    json_lines,
    key_text,
    one_or_set,
    register,
)

ANSWERS = ("accept", "reject", "ignore")


@register(
    "prodigy",
    title="Prodigy JSONL (db-out)",
    description="_input_hash = item, _annotator_id = coder, accept (choices) or answer "
    "(binary); ignored answers are skipped.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    for source, record in json_lines(decode(data)):
        parsed.records += 1
        if not isinstance(record, dict):
            parsed.reject(source, "record", ImportErrorCode.INVALID_TYPE, "A record is an object.")
            continue
        _record(parsed, source, record, default_coder=options.coder)
    return parsed


def _record(
    parsed: ParsedFile, source: str, record: dict[str, Any], *, default_coder: str | None
) -> None:
    # A binary task's label is its question field; a choice task has none.
    field = None if "options" in record else key_text(record.get("label"))
    answer = record.get("answer")
    if answer not in ANSWERS:
        parsed.reject(
            source,
            "answer",
            ImportErrorCode.REQUIRED if answer is None else ImportErrorCode.INVALID_TYPE,
            "answer must be accept, reject or ignore.",
            tool_field=field,
        )
        return
    if answer == "ignore":
        parsed.skip("ignored answer")
        return
    item = key_text(record.get("_input_hash"))
    if item is None:
        parsed.reject(
            source,
            "_input_hash",
            ImportErrorCode.REQUIRED,
            "_input_hash (the item) is missing.",
            tool_field=field,
        )
        return
    parsed.text_of(item, record.get("text"))
    coder = key_text(record.get("_annotator_id")) or key_text(record.get("_session_id"))
    coder = coder or default_coder
    if coder is None:
        parsed.reject(
            source,
            "_annotator_id",
            ImportErrorCode.REQUIRED,
            "_annotator_id / _session_id (the annotator) is missing.",
            tool_field=field,
        )
        return
    if "options" in record:
        accepted = record.get("accept")
        if answer == "reject":
            parsed.skip("rejected choice task")
            return
        if not isinstance(accepted, list) or not all(
            key_text(choice) is not None for choice in accepted
        ):
            parsed.reject(
                source,
                "accept",
                ImportErrorCode.INVALID_TYPE,
                "accept must be a list of option ids.",
            )
            return
        if not accepted:
            parsed.skip("choice task with no option accepted")
            return
        label: Any = one_or_set([key_text(choice) for choice in accepted])
        parsed.rows.append(ParsedRow(source=source, item=item, coder=coder, label=label))
        return
    if record.get("spans") and "label" not in record:
        parsed.reject(
            source,
            "spans",
            ImportErrorCode.UNSUPPORTED_TYPE,
            "Span tasks are not imported; only choice and binary tasks.",
        )
        return
    parsed.rows.append(ParsedRow(source=source, item=item, coder=coder, label=answer, field=field))
