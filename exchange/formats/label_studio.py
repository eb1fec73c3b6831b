"""Label Studio "JSON" export: a list of tasks, each with ``annotations[].result[]``.

- document (item): the task ``id`` (see the ``document_key`` option for other keys);
- coder: the annotation's ``completed_by`` (a user id, or an object whose ``email``,
  ``username`` or ``id`` is used);
- question: the result's ``from_name`` (the control tag);
- label by result ``type``: ``choices`` (one choice, or a set when several are chosen),
  ``rating``, ``number``, ``taxonomy`` (each path joined with ``/``, a node of a hierarchy
  question);
- span units by result ``type``: ``labels`` (``value.start`` .. ``value.end``, characters
  of ``data.text``), ``hypertextlabels`` and ``paragraphlabels`` (``value.globalOffsets``,
  the character offsets Label Studio adds to those results; without them the result only
  has element paths or paragraph indices and is rejected). A region with several labels
  gives one unit per label;
- image regions by result ``type`` (``exchange.formats.label_studio_regions``):
  ``rectanglelabels`` (boxes, with ``rotation``), ``polygonlabels`` and ``keypointlabels``,
  their percent coordinates turned into pixels with ``original_width`` and
  ``original_height``; the task's ``data.image`` is the item's image URL;
- structured values by result ``type`` (``exchange.formats.label_studio_structured``):
  ``textarea`` (a free text), ``ranker`` (a ranking of a list's items) and ``pairwise``
  (a choice between the left and the right object).

A submitted annotation is the coder's whole answer for the task: for every span field of
the file it has no result of, the coder annotated the document and found nothing (an
annotation with an empty ``result`` is such a mark for every span field, or, in a file
without span results, for the import's ``question``); likewise it drew nothing for every
region field it has no result of. Cancelled annotations
(``was_cancelled``) are skipped. A result of another type (``video``...) is rejected,
with its ``from_name`` as the rejection's tool field: an import that maps that field to null
ignores it.

Model ``predictions`` are a model's labels, kept apart from the people's: each prediction
is read as an annotation whose coder is its ``model_version`` (a model coder, kind model,
named so: :attr:`ParsedFile.model_coders`), with the same result types as annotations. A
prediction without a ``model_version`` cannot be told apart from another model's and is
skipped, as every prediction is when the import says ``predictions=false``, and those of
this server's review export (tasks with ``data.review_entry``: their "predictions" are the
coders' own labels, shown to a reviewer).
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from exchange.formats.base import (
    PREDICTION_SKIPPED,
    ImportErrorCode,
    MalformedFileError,
    ModelCoderSpec,
    ParsedFile,
    ParsedRow,
    ParsedSpan,
    ParseOptions,
    decode,
    document_key,
    key_text,
    load_json,
    offsets_error,
    one_or_set,
    register,
    whole_number,
)
from exchange.formats.label_studio_regions import (
    REGION_TYPES,
    nothing_drawn,
    region_fields,
    region_result,
)
from exchange.formats.label_studio_relations import (
    RELATION_TYPE,
    has_relations,
    relation_results,
)
from exchange.formats.label_studio_structured import STRUCTURED_TYPES, structured_result

SPAN_TYPES = ("labels", "hypertextlabels", "paragraphlabels")
SUPPORTED_TYPES = ("choices", "rating", "number", "taxonomy", *SPAN_TYPES)
NO_RESULT = "annotation without a result"
NO_MODEL_VERSION = "prediction without a model_version"
REVIEW_EXPORT = "prediction of a review export (a coder's label, not a model's)"


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
    if kind in ("choices", *SPAN_TYPES):
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


@dataclass
class _Task:
    """What the results of one task share."""

    document: str
    source: str
    text: str | None
    # UTF-16 positions of the text's characters outside the BMP (two JavaScript units each)
    astral: list[int] | None = None
    utf16_fixes: int = 0
    span_fields: frozenset[str] = field(default_factory=frozenset)
    # from_name -> region kind, of every region result of the file
    region_fields: Mapping[str, str] = field(default_factory=dict)
    # a task of this server's review export (``data.review_entry``), whose predictions are
    # the coders' labels
    review_export: bool = False
    # whether the file has relation results (exchange.formats.label_studio_relations)
    relations: bool = False


def _span_fields(tasks: list[Any]) -> frozenset[str]:
    """The ``from_name`` of every span result of the file."""
    names: set[str] = set()
    for task in tasks:
        annotations = task.get("annotations") if isinstance(task, dict) else None
        for annotation in annotations if isinstance(annotations, list) else []:
            results = annotation.get("result") if isinstance(annotation, dict) else None
            for result in results if isinstance(results, list) else []:
                if isinstance(result, dict) and result.get("type") in SPAN_TYPES:
                    name = key_text(result.get("from_name"))
                    if name:
                        names.add(name)
    return frozenset(names)


@register(
    "label_studio",
    title="Label Studio JSON export",
    description="Tasks with annotations[].result[]: choices, rating, number, taxonomy; spans "
    "(labels, hypertextlabels, paragraphlabels); image regions (rectanglelabels, "
    "polygonlabels, keypointlabels, percent coordinates turned into pixels); textarea, "
    "ranker and pairwise (free text, rankings and preferences).",
)
def parse(data: bytes, options: ParseOptions) -> ParsedFile:
    tasks = load_json(decode(data))
    if isinstance(tasks, dict):
        tasks = [tasks]  # a single task
    if not isinstance(tasks, list):
        raise MalformedFileError("A Label Studio export is a JSON list of tasks.")
    parsed = ParsedFile()
    span_fields = _span_fields(tasks)
    regions = region_fields(tasks)
    relations = has_relations(tasks)
    fixes = 0
    for task_index, raw in enumerate(tasks):
        task = _task(parsed, task_index, raw, options, span_fields, regions)
        if task is None:
            continue
        task.relations = relations
        for annotation_index, annotation in enumerate(raw["annotations"]):
            _annotation(parsed, task, annotation_index, annotation)
        predictions = raw.get("predictions")
        for prediction_index, prediction in enumerate(
            predictions if isinstance(predictions, list) else []
        ):
            if task.review_export:
                # This server's review export: its "predictions" are the people's labels.
                parsed.records += 1
                parsed.skip(REVIEW_EXPORT)
                continue
            _prediction(parsed, task, prediction_index, prediction, options)
        fixes += task.utf16_fixes
    if fixes:
        parsed.notes.append(
            f"{fixes} span(s) had JavaScript (UTF-16) offsets, which count a character "
            "outside the Basic Multilingual Plane (an emoji...) twice; they were converted "
            "to character offsets, checked against the span's text."
        )
    if parsed.scores_skipped:
        parsed.notes.append(
            f"{parsed.scores_skipped} prediction score(s) not a number from 0 to 1 were not "
            "kept as the model's confidence (its calibration reads confidences in [0, 1])."
        )
    return parsed


def _task(
    parsed: ParsedFile,
    task_index: int,
    task: Any,
    options: ParseOptions,
    span_fields: frozenset[str],
    regions: Mapping[str, str],
) -> _Task | None:
    if not isinstance(task, dict):
        parsed.records += 1
        parsed.reject(
            f"task[{task_index}]", "task", ImportErrorCode.INVALID_TYPE, "A task is an object."
        )
        return None
    task_id = key_text(task.get("id"))
    source = f"task {task_id}" if task_id else f"task[{task_index}]"
    if task_id is None:
        parsed.records += 1
        parsed.reject(
            source, "id", ImportErrorCode.REQUIRED, "The task has no id (text or integer)."
        )
        return None
    data = task.get("data")
    data = data if isinstance(data, dict) else {}
    text = data.get("text") if isinstance(data.get("text"), str) else None
    meta = task.get("meta")
    document, looked_for = document_key(
        own_id=task_id,
        text=text,
        fields=(data, meta if isinstance(meta, dict) else {}),
        key=options.document_key,
    )
    if document is None:
        parsed.records += 1
        parsed.reject(
            source,
            "data",
            ImportErrorCode.REQUIRED,
            f"The task has no document key ({looked_for} of document_key).",
        )
        return None
    if not isinstance(task.get("annotations", []), list):
        parsed.records += 1
        parsed.reject(
            source, "annotations", ImportErrorCode.INVALID_TYPE, "annotations must be a list."
        )
        return None
    task.setdefault("annotations", [])
    parsed.text_of(document, text)
    if regions:
        parsed.image(document, url=data.get("image"))
    return _Task(
        document=document,
        source=source,
        text=text,
        span_fields=span_fields,
        region_fields=regions,
        review_export=data.get("review_entry") is not None,
    )


def _prediction(
    parsed: ParsedFile, task: _Task, index: int, prediction: Any, options: ParseOptions
) -> None:
    """A model's prediction: an annotation whose coder is its ``model_version``."""
    if not options.predictions:
        parsed.records += 1
        parsed.skip(PREDICTION_SKIPPED)
        return
    version = key_text(prediction.get("model_version")) if isinstance(prediction, dict) else None
    if version is None:
        parsed.records += 1
        parsed.skip(NO_MODEL_VERSION)
        return
    parsed.model_coders.setdefault(version, ModelCoderSpec(version, version))
    _annotation(parsed, task, index, prediction, model=version, score=prediction.get("score"))


def _confidence(parsed: ParsedFile, score: Any) -> float | None:
    """A prediction's ``score`` as the model's confidence, when it is a number in [0, 1]
    (a tool may score on another scale: those are counted in a note, not kept)."""
    if score is None:
        return None
    if isinstance(score, int | float) and not isinstance(score, bool) and 0 <= score <= 1:
        return float(score)
    parsed.skip_score()
    return None


def _annotation(
    parsed: ParsedFile,
    task: _Task,
    annotation_index: int,
    annotation: Any,
    *,
    model: str | None = None,
    score: Any = None,
) -> None:
    """One annotation of the task, or with ``model`` one prediction of that model (its
    coder) and its ``score``, the confidence of each of its results without a score of
    their own."""
    what = "prediction" if model is not None else "annotation"
    if not isinstance(annotation, dict):
        parsed.records += 1
        parsed.reject(
            f"{task.source}, {what}[{annotation_index}]",
            what,
            ImportErrorCode.INVALID_TYPE,
            f"An {what} is an object.",
        )
        return
    annotation_id = key_text(annotation.get("id"))
    source = f"{task.source}, {what} {annotation_id or f'[{annotation_index}]'}"
    results = annotation.get("result", [])
    if annotation.get("was_cancelled"):
        parsed.records += 1
        parsed.skip("cancelled annotation")
        return
    coder = model if model is not None else _coder_of(annotation.get("completed_by"))
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
        parsed.reject(
            source,
            "result",
            ImportErrorCode.INVALID_TYPE,
            "result must be a list.",
            pair=(task.document, coder),
        )
        return
    if not results:
        parsed.records += 1
        _nothing_drawn(parsed, task, coder, source, answered=set())
        if task.span_fields:
            for name in sorted(task.span_fields):
                _found_nothing(parsed, task, coder, source, name)
        else:
            # No span field in the file: a mark for the import's question, if a span one.
            _found_nothing(parsed, task, coder, source, None)
        _relations(parsed, task, coder, source, results)
        return
    answered: set[str] = set()
    for result_index, result in enumerate(results):
        parsed.records += 1
        span_field = _result(parsed, task, coder, source, result_index, result, score)
        if span_field is not None:
            answered.add(span_field)
    for name in sorted(task.span_fields - answered):
        _found_nothing(parsed, task, coder, source, name)
    _nothing_drawn(parsed, task, coder, source, answered=answered)
    _relations(parsed, task, coder, source, results)


def _relations(parsed: ParsedFile, task: _Task, coder: str, source: str, results: list) -> None:
    """The annotation's relations, in a file that has relation results."""
    if task.relations:
        relation_results(
            parsed,
            document=task.document,
            text=task.text,
            coder=coder,
            source=source,
            results=results,
            characters=lambda begin, end, text: _characters(task, begin, end, text),
        )


def _nothing_drawn(
    parsed: ParsedFile, task: _Task, coder: str, source: str, *, answered: set[str]
) -> None:
    """A mark for each region field the annotation has no region of: drew nothing there."""
    for name, region in sorted(task.region_fields.items()):
        if name not in answered:
            nothing_drawn(
                parsed,
                image=task.document,
                coder=coder,
                source=source,
                from_name=name,
                region=region,
            )


def _found_nothing(
    parsed: ParsedFile, task: _Task, coder: str, source: str, name: str | None
) -> None:
    parsed.document(task.document, text=task.text)
    parsed.spans.append(
        ParsedSpan(source, task.document, coder, field=name, empty_reason=NO_RESULT)
    )


def _result(
    parsed: ParsedFile,
    task: _Task,
    coder: str,
    source: str,
    index: int,
    result: Any,
    score: Any = None,
) -> str | None:
    """Read one result; return its span field when it is a span result (even rejected)."""
    if not isinstance(result, dict):
        parsed.reject(
            f"{source}, result[{index}]",
            "result",
            ImportErrorCode.INVALID_TYPE,
            "A result is an object.",
            pair=(task.document, coder),
        )
        return None
    result_source = f"{source}, result {key_text(result.get('id')) or f'[{index}]'}"
    kind = result.get("type")
    if kind == RELATION_TYPE:
        return None  # read with the annotation's other results (_relations)
    from_name = key_text(result.get("from_name"))
    value = result.get("value")
    if isinstance(kind, str) and kind in REGION_TYPES and from_name is not None:
        region_result(
            parsed,
            image=task.document,
            coder=coder,
            source=result_source,
            from_name=from_name,
            kind=kind,
            result=result,
        )
        return from_name
    if isinstance(kind, str) and kind in STRUCTURED_TYPES and from_name is not None:
        structured_result(
            parsed,
            item=task.document,
            coder=coder,
            source=result_source,
            from_name=from_name,
            kind=kind,
            result=result,
        )
        return None
    if kind not in SUPPORTED_TYPES:
        parsed.reject(
            result_source,
            "type",
            ImportErrorCode.UNSUPPORTED_TYPE,
            _unsupported_type_detail(kind, from_name),
            tool_field=from_name,
        )
        return None
    if from_name is None:
        parsed.reject(
            result_source,
            "from_name",
            ImportErrorCode.REQUIRED,
            "from_name is missing.",
            pair=(task.document, coder),
        )
        return None
    is_span = kind in SPAN_TYPES
    pair = (task.document, coder) if is_span else None
    if not isinstance(value, dict):
        parsed.reject(
            result_source,
            "value",
            ImportErrorCode.REQUIRED,
            "value is missing.",
            tool_field=from_name,
            pair=pair,
        )
        return from_name if is_span else None
    label, error = _value_label(kind, value)
    if error:
        parsed.reject(
            result_source,
            f"value.{kind}",
            ImportErrorCode.INVALID_TYPE,
            error,
            tool_field=from_name,
            pair=pair,
        )
        return from_name if is_span else None
    if is_span:
        _span(parsed, task, coder, result_source, from_name, kind, value)
        return from_name
    own = result.get("score")
    parsed.rows.append(
        ParsedRow(
            source=result_source,
            item=task.document,
            coder=coder,
            label=label,
            field=from_name,
            confidence=_confidence(parsed, own if own is not None else score),
        )
    )
    return None


def _span(
    parsed: ParsedFile,
    task: _Task,
    coder: str,
    source: str,
    from_name: str,
    kind: str,
    value: dict[str, Any],
) -> None:
    pair = (task.document, coder)
    if kind == "labels":
        where, begin, end = "value.start", value.get("start"), value.get("end")
        length = len(task.text) if task.text is not None else None
    else:
        offsets = value.get("globalOffsets")
        if not isinstance(offsets, dict):
            parsed.reject(
                source,
                "value.globalOffsets",
                ImportErrorCode.INVALID_OFFSETS,
                f"This {kind} result has no value.globalOffsets, so no character offsets "
                "(its start and end are element paths or paragraph indices); export from a "
                "Label Studio version that writes globalOffsets, or map the field to null: "
                + json.dumps({"question_map": {from_name: None}})[1:-1]
                + ".",
                tool_field=from_name,
                pair=pair,
            )
            return
        where, begin, end, length = (
            "value.globalOffsets",
            offsets.get("start"),
            offsets.get("end"),
            None,
        )
    error = offsets_error(begin, end, length=length)
    if error:
        parsed.reject(
            source, where, ImportErrorCode.INVALID_OFFSETS, error, tool_field=from_name, pair=pair
        )
        return
    b, e = whole_number(begin), whole_number(end)
    assert b is not None
    assert e is not None
    if kind == "labels":
        b, e = _characters(task, b, e, value.get("text"))
    parsed.document(task.document, text=task.text)
    for label in value[kind]:
        name = key_text(label)
        if name is None:
            parsed.reject(
                source,
                f"value.{kind}",
                ImportErrorCode.INVALID_TYPE,
                f"A span label must be a label name (got {label!r}).",
                tool_field=from_name,
                pair=pair,
            )
            continue
        parsed.spans.append(ParsedSpan(source, task.document, coder, b, e, name, from_name))


def _characters(task: _Task, begin: int, end: int, span_text: Any) -> tuple[int, int]:
    """The offsets in characters: as given, unless they are JavaScript UTF-16 offsets,
    which only the span's own text can tell (the text at the given offsets differs from
    it, the text at the converted offsets equals it)."""
    text = task.text
    if text is None or not isinstance(span_text, str) or text[begin:end] == span_text:
        return begin, end
    if task.astral is None:
        task.astral = []
        units = 0
        for character in text:
            if ord(character) > 0xFFFF:
                task.astral.append(units)
                units += 2
            else:
                units += 1
    if not task.astral:
        return begin, end
    b = begin - bisect.bisect_left(task.astral, begin)
    e = end - bisect.bisect_left(task.astral, end)
    if text[b:e] == span_text:
        task.utf16_fixes += 1
        return b, e
    return begin, end


def _unsupported_type_detail(kind: Any, from_name: str | None) -> str:
    supported = ", ".join((*SUPPORTED_TYPES, *REGION_TYPES, *STRUCTURED_TYPES))
    if from_name is None:
        return f"Result type {kind!r} is not imported (supported: {supported})."
    ignore = json.dumps({"question_map": {from_name: None}}, ensure_ascii=False)[1:-1]
    return (
        f"Result type {kind!r} of field {from_name!r} is not imported (supported: "
        f"{supported}); to leave the field out, map it to null: {ignore}."
    )
