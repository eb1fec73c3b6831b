"""What the relation formats share (brat, WebAnno TSV relation layers, Prodigy ``rel``, Label
Studio ``relation`` results): a relation read from a tool's file becomes a
:class:`ParsedRegion` of kind ``relation`` whose cells are the relation question's CSV shape
(``head_begin``, ``head_end``, ``tail_begin``, ``tail_end``, ``label``), with character
offsets; a coder who annotated a document and related nothing there gets an empty one."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import Any

from exchange.formats.base import ImportErrorCode, ParsedFile, ParsedRegion, offsets_error

#: The kind every relation record must go to.
RELATION = "relation"


def add_relation(
    parsed: ParsedFile,
    *,
    source: str,
    document: str,
    coder: str,
    head: Sequence[Any],
    tail: Sequence[Any],
    label: Any,
    text_length: int | None = None,
    field: str | None = None,
    head_field: str = "head",
    tail_field: str = "tail",
    both_ways: bool = False,
) -> bool:
    """Add one relation, or reject it naming the file's field; whether it was added.
    ``both_ways``: the tool drew it in both directions (see :func:`both_ways`)."""
    for name, (begin, end) in ((head_field, head), (tail_field, tail)):
        problem = offsets_error(begin, end, length=text_length)
        if problem:
            parsed.reject(
                source,
                name,
                ImportErrorCode.INVALID_OFFSETS,
                f"The relation's {name}: {problem}",
                tool_field=field,
                pair=(document, coder),
            )
            return False
    if not isinstance(label, str) or not label.strip():
        parsed.reject(
            source,
            "label",
            ImportErrorCode.REQUIRED,
            "The relation has no label.",
            tool_field=field,
            pair=(document, coder),
        )
        return False
    cells = {
        "head_begin": int(head[0]),
        "head_end": int(head[1]),
        "tail_begin": int(tail[0]),
        "tail_end": int(tail[1]),
        "label": label.strip(),
    }
    parsed.regions.append(
        ParsedRegion(source, document, coder, RELATION, cells, field, both_ways=both_ways)
    )
    return True


def both_ways(
    relation: ParsedRegion, *, undirected: Collection[str], known: Collection[str]
) -> list[ParsedRegion]:
    """A relation drawn in both directions, its label matched onto a code of the question:
    one relation when the label is undirected (stored in document order anyway), else head
    → tail and tail → head. A label the question does not know stays one relation (the
    writer refuses it once), and so does a relation of a unit with itself."""
    cells = relation.cells
    if not relation.both_ways or relation.is_empty:
        return [relation]
    label = cells.get("label")
    head = (cells["head_begin"], cells["head_end"])
    tail = (cells["tail_begin"], cells["tail_end"])
    if label in undirected or label not in known or head == tail:
        return [relation]
    reverse = {
        **cells,
        "head_begin": tail[0],
        "head_end": tail[1],
        "tail_begin": head[0],
        "tail_end": head[1],
    }
    return [relation, replace(relation, cells=reverse)]


def no_relation(
    parsed: ParsedFile, *, source: str, document: str, coder: str, field: str | None = None
) -> None:
    """A coder who annotated ``document`` and related nothing there."""
    parsed.regions.append(ParsedRegion(source, document, coder, RELATION, {}, field))
