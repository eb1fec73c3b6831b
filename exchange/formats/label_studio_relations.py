"""Label Studio's relations: results of ``type`` ``relation`` between two span results of
the same annotation (``from_id`` and ``to_id`` name the span results' ``id``), with their
``labels`` (one relation per label) and ``direction``: ``right`` reads ``from`` as the head
and ``to`` as the tail, ``left`` the other way round, ``bi`` both ways. A ``bi`` relation is
marked ``both_ways``; the import, which knows the question's categories, stores it once when
its label is declared undirected (in document order, as every undirected relation) and as
two relations, from → to and to → from, when it is directed
(``exchange.formats.relations.both_ways``).

The units are the span results' ``value.start`` and ``value.end`` (characters of the task's
``data.text``, end exclusive, converted from JavaScript offsets as the span import does). A
relation result has no ``from_name``: its relations go to the import's ``question``. In a
file with relation results, an annotation without one says its annotator related nothing in
the document. A relation without a label, or between results that are no text spans, is
rejected naming the result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from exchange.formats.base import ImportErrorCode, ParsedFile, key_text, whole_number
from exchange.formats.relations import add_relation, no_relation

RELATION_TYPE = "relation"
DIRECTIONS = ("right", "left", "bi")


def has_relations(tasks: Sequence[Any]) -> bool:
    """Whether any annotation of the file has a relation result."""
    for task in tasks:
        annotations = task.get("annotations") if isinstance(task, dict) else None
        for annotation in annotations if isinstance(annotations, list) else []:
            results = annotation.get("result") if isinstance(annotation, dict) else None
            for result in results if isinstance(results, list) else []:
                if isinstance(result, dict) and result.get("type") == RELATION_TYPE:
                    return True
    return False


def _units(
    results: Sequence[Any], characters: Callable[[int, int, Any], tuple[int, int]]
) -> dict[str, tuple[int, int]]:
    """The span results by id: their character offsets."""
    units = {}
    for result in results:
        if not isinstance(result, dict) or result.get("type") == RELATION_TYPE:
            continue
        identifier = key_text(result.get("id"))
        value = result.get("value")
        if identifier is None or not isinstance(value, dict):
            continue
        begin, end = whole_number(value.get("start")), whole_number(value.get("end"))
        if begin is not None and end is not None:
            units[identifier] = characters(begin, end, value.get("text"))
    return units


def relation_results(
    parsed: ParsedFile,
    *,
    document: str,
    text: str | None,
    coder: str,
    source: str,
    results: Sequence[Any],
    characters: Callable[[int, int, Any], tuple[int, int]],
) -> None:
    """Read the relation results of one annotation (its ``results``); with none, the mark
    that the annotator related nothing in the document."""
    relations = [
        (index, r)
        for index, r in enumerate(results)
        if isinstance(r, dict) and r.get("type") == RELATION_TYPE
    ]
    if not relations:
        no_relation(parsed, source=source, document=document, coder=coder)
        return
    units = _units(results, characters)
    for index, result in relations:
        where = f"{source}, result [{index}]"
        pair = (document, coder)
        ends = [key_text(result.get("from_id")), key_text(result.get("to_id"))]
        for name, identifier in zip(("from_id", "to_id"), ends, strict=True):
            if identifier is None or identifier not in units:
                parsed.reject(
                    where,
                    name,
                    ImportErrorCode.REQUIRED,
                    f"{name} {identifier!r} names no text span result of this annotation.",
                    pair=pair,
                )
                break
        else:
            direction = result.get("direction", "right")
            if direction not in DIRECTIONS:
                parsed.reject(
                    where,
                    "direction",
                    ImportErrorCode.INVALID_TYPE,
                    f"direction is one of {', '.join(DIRECTIONS)}.",
                    pair=pair,
                )
                continue
            head, tail = units[ends[0] or ""], units[ends[1] or ""]
            if direction == "left":
                head, tail = tail, head
            labels = result.get("labels")
            if not isinstance(labels, list) or not labels:
                parsed.reject(
                    where,
                    "labels",
                    ImportErrorCode.REQUIRED,
                    "The relation has no label (labels is empty): label it in Label Studio, "
                    "or leave it out.",
                    pair=pair,
                )
                continue
            for label in labels:
                add_relation(
                    parsed,
                    source=where,
                    document=document,
                    coder=coder,
                    head=head,
                    tail=tail,
                    label=label,
                    text_length=len(text) if text is not None else None,
                    head_field="from_id",
                    tail_field="to_id",
                    both_ways=direction == "bi",
                )
