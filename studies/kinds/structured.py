"""Kinds whose value is a structure: a coder's whole annotation of an item (its regions on
an image, say), kept in the one structured column ``Annotation.units``.

Such a kind gives its :class:`Kind` a :class:`StructuredValues`: how one row of an upload
(the CLI's CSV shape, or the same keys in JSON) becomes one record, how a pair's records
become its stored value, the value's change-log text and API form, and how the round's
values become the library's report. The generic upload (``annotations.structured``), the
computation step, the pages and the exports ask it; none of them knows the kind.

A row whose value columns are all empty says "annotated, nothing": the pair's value is an
empty list, which differs from having no annotation.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from studies.closest import not_a_category
from studies.text_rules import NumberFormatError, parse_number

Record = Any
Value = list[Any]


class RowError(ValueError):
    """One bad field of one row: ``field`` names the column, ``code`` is machine-readable."""

    def __init__(self, field: str, code: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.code = code
        self.message = message


@dataclass(frozen=True)
class ItemFacts:
    """What a row may be checked against: the item's declared size, and the extent
    ``[begin, end)`` of a document's offsets (its declared extent, else ``[0, len(text))``;
    None: unknown)."""

    width: float | None = None
    height: float | None = None
    extent: tuple[float, float] | None = None


def blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def optional_number(row: Mapping[str, Any], field: str) -> float | None:
    """A row's number, or None for an empty cell."""
    return None if blank(row.get(field)) else number(row, field)


def number(row: Mapping[str, Any], field: str) -> float:
    """A finite number from a row's cell (a JSON number or text by the one number rule)."""
    raw = row.get(field)
    if blank(raw):
        raise RowError(field, "required", f"{field} is required.")
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        raise RowError(field, "not_a_number", f"{field} must be a number.")
    try:
        value = parse_number(raw) if isinstance(raw, str) else float(raw)
    except (NumberFormatError, OverflowError) as error:
        raise RowError(field, "not_a_number", f"{field}: {error}") from None
    if not math.isfinite(value):
        raise RowError(field, "not_a_number", f"{field} must be a finite number.")
    return value


def category(row: Mapping[str, Any], id_by_code: Mapping[str, int], field: str = "label") -> int:
    raw = row.get(field)
    if blank(raw):
        raise RowError(field, "required", f"{field} is required.")
    if not isinstance(raw, str | int) or isinstance(raw, bool):
        raise RowError(field, "invalid_type", f"{field} must be a category code.")
    code = str(raw).strip()
    found = id_by_code.get(code)
    if found is None:
        raise RowError(field, "unknown_category", not_a_category(code, id_by_code))
    return found


def short(number: float) -> Any:
    """A coordinate as stored and shown: an integer when it is one, else the float."""
    return int(number) if float(number).is_integer() and abs(number) < 1e15 else float(number)


@dataclass(frozen=True)
class StructuredValues:
    """How a structured kind's values cross the server's edges."""

    #: The CSV column naming the item (``image``, ``document``, ``item``).
    item_column: str
    #: The value columns of a row, in the CLI's order (the item and coder come first).
    value_columns: tuple[str, ...]
    #: Value columns a row may leave out entirely.
    optional_columns: tuple[str, ...]
    #: ``parse(row, id_by_code, item) -> record``; raises :class:`RowError`.
    parse: Callable[[Mapping[str, Any], Mapping[str, int], ItemFacts], Record]
    #: ``text(value, code_by_id) -> str``: the change log's canonical text.
    text: Callable[[Value, Mapping[int, str]], str]
    #: ``to_json(value, code_by_id) -> list[dict]``: the API's form (one dict per record,
    #: keyed as the CSV columns, the category by its code).
    to_json: Callable[[Value, Mapping[int, str]], list[dict[str, Any]]]
    #: ``category_ids(value) -> set[int]``: the categories a value uses.
    category_ids: Callable[[Value], set[int]]
    #: ``report(rows, code_by_id, items, params) -> dict``: the library's report of the
    #: scope's ``(item_key, coder_key, value)`` rows; ``items`` maps an item key to its facts.
    report: Callable[
        [Sequence[tuple[str, str, Value]], Mapping[int, str], Mapping[str, ItemFacts], Any],
        dict[str, Any],
    ]
    #: ``draw(value, code_by_id) -> shapes``: how a page draws one coder's value, as
    #: ``{"type": "polygon", "points": [[x, y], ...], "label"}`` or ``{"type": "point",
    #: "x", "y", "label"}`` (pixels), each with its ``extent`` (the points it covers), or
    #: ``{"type": "arc", "head": [begin, end], "tail": [begin, end], "label"}`` (offsets of
    #: a document; extent empty), which the page draws as arcs on the text.
    draw: Callable[[Value, Mapping[int, str]], list[dict[str, Any]]]
    #: The coefficients' names people read, in display order.
    names: Mapping[str, str]
    #: Coefficients that are not chance-corrected (Krippendorff's bands do not apply).
    not_chance_corrected: frozenset[str] = frozenset()
    #: ``coco(record) -> dict``: a record as a COCO annotation's fields (``category_id``,
    #: ``bbox``, ``segmentation``, ``keypoints``, ``area``); None: no COCO export.
    coco: Callable[[Record], dict[str, Any]] | None = None
    #: Whether a row with every value column empty says "annotated, nothing" (not for text:
    #: an empty cell is the empty text).
    nothing_row: bool = True
    #: At most this many records per (item, coder) pair (a text, a choice: 1); None: any.
    max_records: int | None = None
    #: What the value of a most disputed item is, as the report's column names it.
    disputed_measure: str = "Agreement"
    #: The template of the per-item view, drawing every coder's value of one item.
    item_template: str = "pages/structured_item.html"
    #: Whether the per-item view marks each coder's text's differences from the first
    #: coder's (a word-level diff of ``text``): for free texts.
    marks_differences: bool = False
    #: Whether the question takes a user-supplied distance table between its values
    #: (``studies.distance_tables``): its computation then gets it as
    #: ``params["distance_table"]`` when its ``distance`` is ``user``.
    takes_distance_table: bool = False
    #: ``canonical(record, scheme) -> record``: a parsed record in its stored form, given the
    #: question's prepared ``LabelScheme`` (an undirected relation in document order).
    canonical: Callable[[Record, Any], Record] | None = None
    #: Whether the records of one (item, coder) pair must differ (a relation given twice is
    #: refused); otherwise a record may repeat.
    unique_records: bool = False
    #: ``parameter_errors(params) -> {field: message}``: the kind's own options checked.
    parameter_errors: Callable[[Mapping[str, Any]], Mapping[str, str]] = lambda params: {}

    @property
    def columns(self) -> tuple[str, ...]:
        """The CSV header of an upload and an export."""
        return (self.item_column, "coder", *self.value_columns)

    def is_nothing(self, row: Mapping[str, Any]) -> bool:
        """Whether a row says "annotated, nothing" (every value column empty)."""
        return self.nothing_row and all(blank(row.get(name)) for name in self.value_columns)

    def value(self, records: Sequence[Record]) -> Value:
        """A pair's stored value: its records in one canonical order."""
        return sorted(records, key=_order_key)


def _order_key(record: Any) -> Any:
    return [(1, str(part)) if isinstance(part, list) else (0, part) for part in record]
