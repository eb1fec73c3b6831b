"""Label Studio "JSON" export: a list of tasks, each with ``annotations[].result[]``.

- item: the task ``id``; for span results (``labels``) the span ``<task>:<start>-<end>``;
- coder: the annotation's ``completed_by`` (a user id, or an object whose ``email``,
  ``username`` or ``id`` is used);
- question: the result's ``from_name`` (the control tag);
- label by result ``type``: ``choices`` (one choice, or a set when several are chosen),
  ``rating``, ``number``, ``taxonomy`` (each path joined with ``/``, a node of a hierarchy
  question), ``labels`` (span labels).

Cancelled annotations (``was_cancelled``) and model ``predictions`` are skipped. A result
of another type (``textarea``...) is rejected, with its ``from_name`` as the rejection's
tool field: an import that maps that field to null ignores it.
"""

from __future__ import annotations

import json
from typing import Any

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedRow,
    ParseOptions,
    decode,
    key_text,
    load_json,
    one_or_set,
    register,
)

SUPPORTED_TYPES = ("choices", "rating", "number", "taxonomy", "labels")


def _coder_of(completed_by: Any) -> str | None:
    if isinstance(completed_by, dict):
        for key in ("email", "username", "id"):
            found = key_text(completed_by.get(key))
            if found:
                return found
        return None
    return key_text(completed_by)


def _value_label(kind: str, value: dict[str, Any]) -> tuple[Any, str | None]:
    """(label, error) of one result's ``value``."""
    if kind in ("choices", "labels"):
        chosen = value.get(kind)
        if not isinstance(chosen, list) or not chosen:
            return None, f"value.{kind} must be a non-empty list."
        return one_or_set(chosen), None
    if kind in ("rating", "number"):
        number = value.get(kind)
        if isinstance(number, bool) or not isinstance(number, int | float):
            return None, f"value.{kind} must be a number."
        return number, None
    paths = value.get("taxonomy")
    if (
        not isinstance(paths, list)
        or not paths
        or not all(isinstance(path, list) and path for path in paths)
        or not all(isinstance(part, str) for path in paths for part in path)
    ):
        return None, "value.taxonomy must be a non-empty list of paths (lists of names)."
    return one_or_set(["/".join(part.strip() for part in path) for path in paths]), None


@register(
    "label_studio",
    title="Label Studio JSON export",
    description="Tasks with annotations[].result[]: choices, rating, number, taxonomy, labels.",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    tasks = load_json(decode(data))
    if isinstance(tasks, dict):
        tasks = [tasks]  # a single task
    if not isinstance(tasks, list):
        raise MalformedFileError("A Label Studio export is a JSON list of tasks.")
    parsed = ParsedFile()
    for task_index, task in enumerate(tasks):
        if not isinstance(task, dict):
            parsed.records += 1
            parsed.reject(
                f"task[{task_index}]", "task", ImportErrorCode.INVALID_TYPE, "A task is an object."
            )
            continue
        task_id = key_text(task.get("id"))
        task_source = f"task {task_id}" if task_id else f"task[{task_index}]"
        annotations = task.get("annotations", [])
        if task_id is None:
            parsed.records += 1
            parsed.reject(
                task_source, "id", ImportErrorCode.REQUIRED, "The task has no id (text or integer)."
            )
            continue
        if not isinstance(annotations, list):
            parsed.records += 1
            parsed.reject(
                task_source,
                "annotations",
                ImportErrorCode.INVALID_TYPE,
                "annotations must be a list.",
            )
            continue
        task_data = task.get("data")
        if isinstance(task_data, dict):
            parsed.text_of(task_id, task_data.get("text"))
        for annotation_index, annotation in enumerate(annotations):
            _annotation(parsed, task_id, task_source, annotation_index, annotation)
    return parsed


def _annotation(
    parsed: ParsedFile, task_id: str, task_source: str, annotation_index: int, annotation: Any
) -> None:
    if not isinstance(annotation, dict):
        parsed.records += 1
        parsed.reject(
            f"{task_source}, annotation[{annotation_index}]",
            "annotation",
            ImportErrorCode.INVALID_TYPE,
            "An annotation is an object.",
        )
        return
    annotation_id = key_text(annotation.get("id"))
    source = f"{task_source}, annotation {annotation_id or f'[{annotation_index}]'}"
    results = annotation.get("result", [])
    if annotation.get("was_cancelled"):
        parsed.records += 1
        parsed.skip("cancelled annotation")
        return
    coder = _coder_of(annotation.get("completed_by"))
    if coder is None:
        parsed.records += 1
        parsed.reject(
            source,
            "completed_by",
            ImportErrorCode.REQUIRED,
            "The annotation has no completed_by (the annotator).",
        )
        return
    if not isinstance(results, list):
        parsed.records += 1
        parsed.reject(source, "result", ImportErrorCode.INVALID_TYPE, "result must be a list.")
        return
    for result_index, result in enumerate(results):
        parsed.records += 1
        _result(parsed, task_id, coder, source, result_index, result)


def _result(
    parsed: ParsedFile, task_id: str, coder: str, source: str, index: int, result: Any
) -> None:
    if not isinstance(result, dict):
        parsed.reject(
            f"{source}, result[{index}]",
            "result",
            ImportErrorCode.INVALID_TYPE,
            "A result is an object.",
        )
        return
    result_source = f"{source}, result {key_text(result.get('id')) or f'[{index}]'}"
    kind = result.get("type")
    from_name = key_text(result.get("from_name"))
    value = result.get("value")
    if kind not in SUPPORTED_TYPES:
        parsed.reject(
            result_source,
            "type",
            ImportErrorCode.UNSUPPORTED_TYPE,
            _unsupported_type_detail(kind, from_name),
            tool_field=from_name,
        )
        return
    if from_name is None:
        parsed.reject(result_source, "from_name", ImportErrorCode.REQUIRED, "from_name is missing.")
        return
    if not isinstance(value, dict):
        parsed.reject(
            result_source,
            "value",
            ImportErrorCode.REQUIRED,
            "value is missing.",
            tool_field=from_name,
        )
        return
    label, error = _value_label(kind, value)
    if error:
        parsed.reject(
            result_source,
            f"value.{kind}",
            ImportErrorCode.INVALID_TYPE,
            error,
            tool_field=from_name,
        )
        return
    item = task_id
    if kind == "labels":
        start, end = value.get("start"), value.get("end")
        if not all(isinstance(x, int) and not isinstance(x, bool) for x in (start, end)):
            parsed.reject(
                result_source,
                "value.start",
                ImportErrorCode.INVALID_TYPE,
                "A span needs integer start and end offsets.",
                tool_field=from_name,
            )
            return
        item = f"{task_id}:{start}-{end}"
        parsed.text_of(item, value.get("text"))
    parsed.rows.append(
        ParsedRow(source=result_source, item=item, coder=coder, label=label, field=from_name)
    )


def _unsupported_type_detail(kind: Any, from_name: str | None) -> str:
    supported = ", ".join(SUPPORTED_TYPES)
    if from_name is None:
        return f"Result type {kind!r} is not imported (supported: {supported})."
    ignore = json.dumps({"question_map": {from_name: None}}, ensure_ascii=False)[1:-1]
    return (
        f"Result type {kind!r} of field {from_name!r} is not imported (supported: "
        f"{supported}); to leave the field out, map it to null: {ignore}."
    )
