"""Prodigy JSONL (``prodigy db-out <dataset>``).

- document (item): ``_input_hash`` (Prodigy's own agreement groups by it; see the
  ``document_key`` option for other keys);
- coder: ``_annotator_id``, else ``_session_id``, else the ``coder`` option;
- label: in choice tasks (``options`` present) the ``accept`` list (one id, or a set when
  several are accepted); in binary tasks the ``answer`` (``accept`` / ``reject``), and when
  the task carries a ``label`` (``textcat.teach``) that label is the question's field, so
  each label can map onto its own yes/no question;
- span units: in span tasks (``_view_id`` ``ner``, ``ner_manual``, ``spans`` or
  ``spans_manual``; without a ``_view_id``, a ``spans`` list and neither ``options`` nor
  a task ``label``) each of ``spans: [{start, end, label}]`` (characters of ``text``, end
  exclusive; a span without a label takes the task's). Only ``accept`` answers count: an
  accepted task with no spans is "annotated, nothing found"; a rejected span task (a
  wrong suggestion in ``ner.teach``) is skipped. The units of a document are those of
  every task of that ``_input_hash`` the coder accepted.

``answer == "ignore"`` is skipped, as are rejected choice tasks (the annotator chose none
of the options).

Model answers: Prodigy's OpenAI recipes (``textcat.openai.fetch``, ``ner.openai.fetch``)
write the model's pre-annotations with the prompt and response under an ``openai`` object;
a record that has one and no annotator (``_annotator_id``, ``_session_id``) is the model's
answer, not a person's. Its coder is the model (``openai.model`` when the recipe records
it, else ``openai``), a model coder (:attr:`ParsedFile.model_coders`), and its binary
``answer`` may be the recipe's ``true`` / ``false``. The same record answered by a person
(``*.openai.correct``: it has an ``_annotator_id``) is that person's. With
``predictions=false`` model answers are skipped.
"""

from __future__ import annotations

from typing import Any

from exchange.formats.base import (
    PREDICTION_SKIPPED,
    ImportErrorCode,
    ModelCoderSpec,
    ParsedFile,
    ParsedRow,
    ParsedSpan,
    ParseOptions,
    decode,
    document_key,
    json_lines,
    key_text,
    offsets_error,
    one_or_set,
    register,
    whole_number,
)

ANSWERS = ("accept", "reject", "ignore")
SPAN_VIEWS = frozenset({"ner", "ner_manual", "spans", "spans_manual"})
NO_SPANS = "accepted task without spans"


def _is_span_task(record: dict[str, Any]) -> bool:
    view = record.get("_view_id")
    if isinstance(view, str) and view:
        return view in SPAN_VIEWS
    return (
        isinstance(record.get("spans"), list) and "options" not in record and "label" not in record
    )


@register(
    "prodigy",
    title="Prodigy JSONL (db-out)",
    description="_input_hash = document, _annotator_id = coder; choices (accept), binary "
    "answers, and spans of accepted ner / spans tasks; ignored answers are skipped.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    for source, record in json_lines(decode(data)):
        parsed.records += 1
        if not isinstance(record, dict):
            parsed.reject(source, "record", ImportErrorCode.INVALID_TYPE, "A record is an object.")
            continue
        _record(parsed, source, record, options=options)
    return parsed


def _record(
    parsed: ParsedFile, source: str, record: dict[str, Any], *, options: ParseOptions
) -> None:
    spans = _is_span_task(record)
    # A binary task's label is its question field; a choice or span task has none.
    field = None if "options" in record or spans else key_text(record.get("label"))
    model = _model_of(record, options)
    if model == PREDICTION_SKIPPED:
        parsed.skip(PREDICTION_SKIPPED)
        return
    answer = _answer(record, model)
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
    meta = record.get("meta")
    item, looked_for = document_key(
        own_id=record.get("_input_hash"),
        text=record.get("text"),
        fields=(record, meta if isinstance(meta, dict) else {}),
        key=options.document_key,
    )
    if item is None:
        what = "_input_hash" if options.document_key == "id" else looked_for
        parsed.reject(
            source,
            "_input_hash",
            ImportErrorCode.REQUIRED,
            f"The task has no document key ({what}).",
            tool_field=field,
        )
        return
    parsed.text_of(item, record.get("text"))
    coder = key_text(record.get("_annotator_id")) or key_text(record.get("_session_id"))
    coder = model or coder or options.coder
    if model is not None:
        parsed.model_coders.setdefault(model, ModelCoderSpec(model))
    if coder is None:
        parsed.reject(
            source,
            "_annotator_id",
            ImportErrorCode.REQUIRED,
            "_annotator_id / _session_id (the annotator) is missing.",
            tool_field=field,
        )
        return
    if spans:
        if answer == "reject":
            parsed.skip("rejected span task")
            return
        _spans(parsed, source, record, item=item, coder=coder)
        return
    if "options" in record:
        _choice(parsed, source, record, item=item, coder=coder, answer=answer)
        return
    parsed.rows.append(ParsedRow(source=source, item=item, coder=coder, label=answer, field=field))


def _choice(
    parsed: ParsedFile, source: str, record: dict[str, Any], *, item: str, coder: str, answer: str
) -> None:
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


def _answer(record: dict[str, Any], model: str | None) -> Any:
    """The record's answer; a model's ``true`` / ``false`` (the OpenAI recipes' binary
    answers) read as accept / reject."""
    answer = record.get("answer")
    if model is not None and isinstance(answer, bool):
        return "accept" if answer else "reject"
    return answer


def _model_of(record: dict[str, Any], options: ParseOptions) -> str | None:
    """The model whose answer the record is (an ``openai`` object and no annotator), or
    None for a person's record; ``PREDICTION_SKIPPED`` when model answers are not read."""
    openai = record.get("openai")
    if not isinstance(openai, dict):
        return None
    if key_text(record.get("_annotator_id")) or key_text(record.get("_session_id")):
        return None
    if not options.predictions:
        return PREDICTION_SKIPPED
    return key_text(openai.get("model")) or "openai"


def _spans(
    parsed: ParsedFile, source: str, record: dict[str, Any], *, item: str, coder: str
) -> None:
    text = record.get("text")
    spans = record.get("spans", [])
    pair = (item, coder)
    if not isinstance(spans, list):
        parsed.reject(
            source,
            "spans",
            ImportErrorCode.INVALID_TYPE,
            "spans must be a list of {start, end, label}.",
            pair=pair,
        )
        return
    parsed.document(item, text=text)
    if not spans:
        parsed.spans.append(ParsedSpan(source, item, coder, empty_reason=NO_SPANS))
        return
    task_label = key_text(record.get("label"))
    length = len(text) if isinstance(text, str) else None
    for index, span in enumerate(spans):
        where = f"{source}, span {index + 1}"
        if not isinstance(span, dict):
            parsed.reject(
                where,
                "spans",
                ImportErrorCode.INVALID_TYPE,
                "A span is an object {start, end, label}.",
                pair=pair,
            )
            continue
        begin, end = span.get("start"), span.get("end")
        error = offsets_error(begin, end, length=length)
        if error:
            parsed.reject(where, "start", ImportErrorCode.INVALID_OFFSETS, error, pair=pair)
            continue
        label = key_text(span.get("label")) or task_label
        if label is None:
            parsed.reject(
                where, "label", ImportErrorCode.REQUIRED, "The span has no label.", pair=pair
            )
            continue
        parsed.spans.append(
            ParsedSpan(where, item, coder, whole_number(begin), whole_number(end), label)
        )
