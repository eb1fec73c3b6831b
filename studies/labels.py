"""Labels as labeling tools write them, and as the database stores them.

A question's kind fixes what a label is (its module in ``studies/kinds/`` parses it):

- nominal, ordinal: a category code (``"pos"``);
- hierarchy: a node of the category tree, by its code (``"leaf"``) or its path
  (``"root/child/leaf"``);
- set: several codes, ``"a|b|c"`` or a JSON list ``["a", "b", "c"]`` (order and repeats
  do not matter; never empty);
- interval, ratio: a number (JSON number, or text by ``studies.text_rules.parse_number``:
  ASCII digits, sign, decimal point, exponent), within the question's range (ratio numbers
  are never negative);
- span: not a single label at all but a list of units ``[begin, end, category_id]`` (see
  ``annotations.spans``). :meth:`LabelScheme.parse` refuses every value of a span question
  (code ``span_question``) so that the single-label paths answer 400, never 500; the units'
  texts are :meth:`LabelScheme.units_text` and :meth:`LabelScheme.units_json`.

A :class:`LabelScheme` is prepared once per question (one query for its categories) and
then parses thousands of labels with dictionary lookups only. A parsed label is a
:data:`Label` tuple ``(category_id, number, category_set)`` with exactly one part set,
matching the ``Annotation`` columns; ``category_set`` is a sorted tuple of category ids.
:meth:`LabelScheme.text` gives the canonical text kept in the change log: the code, the
number (``"3"``, ``"2.5"``), the set's codes in declared order joined by ``|``, or a span
annotation's units ``"0-5 PER; 7-9 ORG"`` (empty text: annotated, nothing found).
"""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from studies.kinds import Kind, kind_of
from studies.kinds.span import UPLOAD_HINT as SPAN_UPLOAD_HINT
from studies.kinds.values import (
    PATH_SEPARATOR,
    SET_SEPARATOR,
    Label,
    LabelError,
    LabelErrorCode,
    format_number,
)
from studies.models import Category, Question, SpanUnit

StoredUnit = Sequence[float]
"""One stored span unit, ``[begin, end, category_id]`` (as read from ``Annotation.units``)."""

__all__ = [
    "PATH_SEPARATOR",
    "SET_SEPARATOR",
    "SPAN_UPLOAD_HINT",
    "CategoryRow",
    "Label",
    "LabelError",
    "LabelErrorCode",
    "LabelScheme",
    "format_number",
    "has_categories",
    "label_of",
]


def has_categories(kind: str) -> bool:
    """Whether a question of this kind declares categories (a span question's are the
    labels of its units)."""
    return kind_of(kind).has_categories


@dataclass(frozen=True)
class CategoryRow:
    id: int
    code: str
    parent_id: int | None
    position: int = 0
    undirected: bool = False


class LabelScheme:
    """Everything needed to parse and format the labels of one question."""

    def __init__(
        self,
        *,
        kind: str,
        categories: Iterable[CategoryRow] = (),
        min_value: float | None = None,
        max_value: float | None = None,
        span_unit: str = "",
    ) -> None:
        self.spec: Kind = kind_of(kind)
        self.kind: str = self.spec.key
        # What a span question's offsets count (blank: characters); "" for other kinds.
        self.span_unit: str = (
            SpanUnit(span_unit or SpanUnit.CHARACTER).value if self.spec.takes_span_unit else ""
        )
        rows = sorted(categories, key=lambda row: (row.position, row.id))
        self.id_by_code: dict[str, int] = {row.code: row.id for row in rows}
        self.code_by_id: dict[int, str] = {row.id: row.code for row in rows}
        # Declared order, for the canonical text of sets.
        self.rank_by_id: dict[int, int] = {row.id: rank for rank, row in enumerate(rows)}
        #: Categories declared undirected (symmetric relation labels).
        self.undirected_ids: frozenset[int] = frozenset(row.id for row in rows if row.undirected)
        self.min_value = None if min_value is None else float(min_value)
        lowest = self.spec.lowest_value
        if lowest is not None and (min_value is None or min_value < lowest):
            self.min_value = lowest
        self.max_value = None if max_value is None else float(max_value)
        self.path_by_id: dict[int, str] = {}
        self.id_by_path: dict[str, int] = {}
        if self.spec.category_tree:
            self._build_paths(rows)
        #: One raw value as a tool writes it → a :data:`Label`, or a ``LabelError``.
        self.parse: Callable[[Any], Label] = types.MethodType(self.spec.parse, self)

    @classmethod
    def for_question(cls, question: Question) -> LabelScheme:
        """The question's scheme, with its categories loaded in one query."""
        categories: list[CategoryRow] = []
        if kind_of(question.kind).has_categories:
            categories = [
                CategoryRow(
                    id=pk, code=code, parent_id=parent_id, position=position, undirected=flag
                )
                for pk, code, parent_id, position, flag in Category.objects.filter(
                    question=question
                ).values_list("id", "code", "parent_id", "position", "undirected")
            ]
        return cls(
            kind=question.kind,
            categories=categories,
            min_value=question.min_value,
            max_value=question.max_value,
            span_unit=question.span_unit,
        )

    @property
    def integer_offsets(self) -> bool:
        """Span questions counting characters or tokens take integer offsets only."""
        return self.spec.takes_span_unit and self.span_unit != SpanUnit.SECOND

    def _build_paths(self, rows: Sequence[CategoryRow]) -> None:
        by_id = {row.id: row for row in rows}
        for row in rows:
            parts = [row.code]
            seen = {row.id}
            parent_id = row.parent_id
            while parent_id is not None and parent_id in by_id and parent_id not in seen:
                seen.add(parent_id)
                parts.append(by_id[parent_id].code)
                parent_id = by_id[parent_id].parent_id
            path = PATH_SEPARATOR.join(reversed(parts))
            self.path_by_id[row.id] = path
            self.id_by_path[path] = row.id

    def range_text(self) -> str:
        low = "-inf" if self.min_value is None else format_number(self.min_value)
        high = "inf" if self.max_value is None else format_number(self.max_value)
        return f"[{low}, {high}]"

    # Formatting -------------------------------------------------------------------------

    def text(self, label: Label) -> str:
        """The canonical text of a label, as kept in the change log."""
        category_id, number, category_set = label
        if category_id is not None:
            return self.code_by_id.get(category_id, f"#{category_id}")
        if number is not None:
            return format_number(number)
        members = sorted(category_set or (), key=lambda pk: self.rank_by_id.get(pk, pk))
        return SET_SEPARATOR.join(self.code_by_id.get(pk, f"#{pk}") for pk in members)

    def json_value(self, label: Label) -> str | float | list[str]:
        """The label as the API returns it: a code, a number, or a list of codes."""
        category_id, number, category_set = label
        if category_id is not None:
            return self.code_by_id.get(category_id, f"#{category_id}")
        if number is not None:
            return number
        members = sorted(category_set or (), key=lambda pk: self.rank_by_id.get(pk, pk))
        return [self.code_by_id.get(pk, f"#{pk}") for pk in members]

    def units_text(self, units: Iterable[StoredUnit]) -> str:
        """The canonical text of a span annotation's units, as kept in the change log:
        ``"0-5 PER; 7-9 ORG"`` in stored order; ``""`` when the coder found nothing.

        >>> scheme = LabelScheme(kind="span", categories=[CategoryRow(3, "PER", None)])
        >>> scheme.units_text([[0, 5, 3], [7.5, 9, 3]])
        '0-5 PER; 7.5-9 PER'
        """
        code = self.code_by_id
        if self.spec.structured is not None:
            return self.spec.structured.text(list(units), code)
        return "; ".join(
            f"{format_number(begin)}-{format_number(end)} {code.get(int(pk), f'#{int(pk)}')}"
            for begin, end, pk in units
        )

    def units_json(self, units: Iterable[StoredUnit]) -> list[dict[str, Any]]:
        """A span annotation's units as the API returns them: ``{"begin", "end", "label"}``
        with the category's code; offsets are integers for characters and tokens."""
        code = self.code_by_id
        if self.spec.structured is not None:
            return self.spec.structured.to_json(list(units), code)
        number = int if self.integer_offsets else float
        return [
            {
                "begin": number(begin),
                "end": number(end),
                "label": code.get(int(pk), f"#{int(pk)}"),
            }
            for begin, end, pk in units
        ]

    def path(self, label: Label) -> str | None:
        """A hierarchy node's path (``root/child/leaf``); None for other kinds."""
        if not self.spec.category_tree or label[0] is None:
            return None
        return self.path_by_id.get(label[0])


def label_of(category_id: int | None, number: float | None, category_set: Any) -> Label:
    """The label of stored annotation columns (``category_set`` as read from JSON)."""
    return (
        category_id,
        number,
        tuple(category_set) if category_set is not None else None,
    )
