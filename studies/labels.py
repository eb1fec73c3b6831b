"""Labels as labeling tools write them, and as the database stores them.

A question's kind fixes what a label is:

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

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from studies.models import Category, LabelKind, Question, SpanUnit
from studies.text_rules import NumberFormatError, parse_number

Label = tuple[int | None, float | None, tuple[int, ...] | None]
StoredUnit = Sequence[float]
"""One stored span unit, ``[begin, end, category_id]`` (as read from ``Annotation.units``)."""

SET_SEPARATOR = "|"
PATH_SEPARATOR = "/"


class LabelErrorCode:
    REQUIRED = "required"
    UNKNOWN_CATEGORY = "unknown_category"
    UNKNOWN_NODE = "unknown_node"
    SET_FOR_SINGLE_LABEL = "set_for_single_label"
    EMPTY_SET = "empty_set"
    NOT_A_NUMBER = "not_a_number"
    NUMBER_OUT_OF_RANGE = "number_out_of_range"
    INVALID_TYPE = "invalid_type"
    SPAN_QUESTION = "span_question"


SPAN_UPLOAD_HINT = (
    "This is a span question: its annotations are units (begin, end, label), uploaded to "
    "POST /api/v1/studies/{study}/annotations/spans/, not single labels."
)


def has_categories(kind: str) -> bool:
    """Whether a question of this kind declares categories (a span question's are the
    labels of its units)."""
    return kind in LabelKind.categorical() or kind == LabelKind.SPAN


class LabelError(ValueError):
    """A label the question does not accept; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class CategoryRow:
    id: int
    code: str
    parent_id: int | None
    position: int = 0


def format_number(number: float) -> str:
    """Canonical text of a number: integers without a decimal point, others as ``repr``."""
    number = float(number)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


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
        self.kind = LabelKind(kind)
        # What a span question's offsets count (blank: characters); "" for other kinds.
        self.span_unit: str = (
            SpanUnit(span_unit or SpanUnit.CHARACTER).value if self.kind == LabelKind.SPAN else ""
        )
        rows = sorted(categories, key=lambda row: (row.position, row.id))
        self.id_by_code: dict[str, int] = {row.code: row.id for row in rows}
        self.code_by_id: dict[int, str] = {row.id: row.code for row in rows}
        # Declared order, for the canonical text of sets.
        self.rank_by_id: dict[int, int] = {row.id: rank for rank, row in enumerate(rows)}
        self.min_value = None if min_value is None else float(min_value)
        if self.kind == LabelKind.RATIO and (min_value is None or min_value < 0):
            self.min_value = 0.0
        self.max_value = None if max_value is None else float(max_value)
        self.path_by_id: dict[int, str] = {}
        self.id_by_path: dict[str, int] = {}
        if self.kind == LabelKind.HIERARCHY:
            self._build_paths(rows)
        parsers: dict[str, Callable[[Any], Label]] = {
            LabelKind.NOMINAL: self._parse_category,
            LabelKind.ORDINAL: self._parse_category,
            LabelKind.HIERARCHY: self._parse_node,
            LabelKind.SET: self._parse_set,
            LabelKind.INTERVAL: self._parse_number,
            LabelKind.RATIO: self._parse_number,
            LabelKind.SPAN: self._refuse_span,
        }
        self.parse: Callable[[Any], Label] = parsers[self.kind]

    @classmethod
    def for_question(cls, question: Question) -> LabelScheme:
        """The question's scheme, with its categories loaded in one query."""
        categories: list[CategoryRow] = []
        if has_categories(question.kind):
            categories = [
                CategoryRow(id=pk, code=code, parent_id=parent_id, position=position)
                for pk, code, parent_id, position in Category.objects.filter(
                    question=question
                ).values_list("id", "code", "parent_id", "position")
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
        return self.kind == LabelKind.SPAN and self.span_unit != SpanUnit.SECOND

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

    # Parsing ----------------------------------------------------------------------------

    @staticmethod
    def _as_code(raw: Any) -> str:
        if raw is None or raw == "":
            raise LabelError(LabelErrorCode.REQUIRED, "A label is required.")
        if isinstance(raw, str):
            return raw.strip()
        if isinstance(raw, list):
            raise LabelError(
                LabelErrorCode.SET_FOR_SINGLE_LABEL,
                "This question takes one category, not a set.",
            )
        if isinstance(raw, int) and not isinstance(raw, bool):
            # Ordinal scales often use numeric codes ("1".."5"): a JSON 3 means code "3".
            return str(raw)
        raise LabelError(LabelErrorCode.INVALID_TYPE, "A label must be a category code.")

    def _parse_category(self, raw: Any) -> Label:
        code = self._as_code(raw)
        category_id = self.id_by_code.get(code)
        if category_id is not None:
            return (category_id, None, None)
        if SET_SEPARATOR in code:
            raise LabelError(
                LabelErrorCode.SET_FOR_SINGLE_LABEL,
                "This question takes one category, not a set.",
            )
        raise LabelError(
            LabelErrorCode.UNKNOWN_CATEGORY, f"{code!r} is not a category of this question."
        )

    def _parse_node(self, raw: Any) -> Label:
        code = self._as_code(raw)
        node_id = self.id_by_code.get(code)
        if node_id is not None:
            return (node_id, None, None)
        if SET_SEPARATOR in code:
            raise LabelError(
                LabelErrorCode.SET_FOR_SINGLE_LABEL,
                "This question takes one node of its tree, not a set.",
            )
        node_id = self.id_by_path.get(code.strip(PATH_SEPARATOR))
        if node_id is not None:
            return (node_id, None, None)
        raise LabelError(
            LabelErrorCode.UNKNOWN_NODE,
            f"{code!r} is neither the code nor the path of a node of this question's tree.",
        )

    def _set_members(self, raw: Any) -> list[Any]:
        if raw is None or raw == "":
            raise LabelError(LabelErrorCode.REQUIRED, "A label is required.")
        if isinstance(raw, list):
            return raw
        if isinstance(raw, str):
            text = raw.strip()
            if text.startswith("["):
                try:
                    members = json.loads(text)
                except ValueError:
                    members = None
                if isinstance(members, list):
                    return members
            return text.split(SET_SEPARATOR)
        if isinstance(raw, int) and not isinstance(raw, bool):
            return [str(raw)]
        raise LabelError(
            LabelErrorCode.INVALID_TYPE, "A set is written 'a|b|c' or as a list of codes."
        )

    def _parse_set(self, raw: Any) -> Label:
        ids: set[int] = set()
        unknown: list[str] = []
        for member in self._set_members(raw):
            if isinstance(member, int) and not isinstance(member, bool):
                member = str(member)
            if not isinstance(member, str):
                raise LabelError(LabelErrorCode.INVALID_TYPE, "A set's members must be codes.")
            code = member.strip()
            if not code:
                continue
            category_id = self.id_by_code.get(code)
            if category_id is None:
                unknown.append(code)
            else:
                ids.add(category_id)
        if unknown:
            listed = ", ".join(repr(code) for code in unknown)
            raise LabelError(
                LabelErrorCode.UNKNOWN_CATEGORY,
                f"Not categories of this question: {listed}.",
            )
        if not ids:
            raise LabelError(LabelErrorCode.EMPTY_SET, "A set label needs at least one category.")
        return (None, None, tuple(sorted(ids)))

    def _parse_number(self, raw: Any) -> Label:
        if raw is None or raw == "":
            raise LabelError(LabelErrorCode.REQUIRED, "A label is required.")
        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            raise LabelError(LabelErrorCode.NOT_A_NUMBER, "This question takes a number.")
        if isinstance(raw, str):
            # Text goes by the one number rule: no "1_000", no "١٢", no "inf".
            try:
                number = parse_number(raw)
            except NumberFormatError as error:
                raise LabelError(LabelErrorCode.NOT_A_NUMBER, error.message) from None
        else:
            try:
                number = float(raw)
            except OverflowError:
                raise LabelError(
                    LabelErrorCode.NOT_A_NUMBER, f"{raw!r} is too large a number."
                ) from None
        if not math.isfinite(number):
            raise LabelError(LabelErrorCode.NOT_A_NUMBER, f"{raw!r} is not a finite number.")
        if (self.min_value is not None and number < self.min_value) or (
            self.max_value is not None and number > self.max_value
        ):
            raise LabelError(
                LabelErrorCode.NUMBER_OUT_OF_RANGE,
                f"{format_number(number)} is outside {self.range_text()}.",
            )
        return (None, number, None)

    def _refuse_span(self, raw: Any) -> Label:
        raise LabelError(LabelErrorCode.SPAN_QUESTION, SPAN_UPLOAD_HINT)

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
        return "; ".join(
            f"{format_number(begin)}-{format_number(end)} {code.get(int(pk), f'#{int(pk)}')}"
            for begin, end, pk in units
        )

    def units_json(self, units: Iterable[StoredUnit]) -> list[dict[str, Any]]:
        """A span annotation's units as the API returns them: ``{"begin", "end", "label"}``
        with the category's code; offsets are integers for characters and tokens."""
        code = self.code_by_id
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
        if self.kind != LabelKind.HIERARCHY or label[0] is None:
            return None
        return self.path_by_id.get(label[0])


def label_of(category_id: int | None, number: float | None, category_set: Any) -> Label:
    """The label of stored annotation columns (``category_set`` as read from JSON)."""
    return (
        category_id,
        number,
        tuple(category_set) if category_set is not None else None,
    )
