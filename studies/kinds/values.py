"""The value parsers the kinds share: one category, one node of a tree, a set of
categories, one number. Each takes the question's prepared scheme (category codes, tree
paths, range) and one raw value as a tool writes it, and returns a ``Label`` tuple
``(category_id, number, category_set)`` with exactly one part set, or raises
:class:`LabelError` with a machine-readable code.
"""

from __future__ import annotations

import json
import math
from typing import Any, Protocol

from studies.closest import category_hint, not_a_category
from studies.text_rules import NumberFormatError, parse_number

Label = tuple[int | None, float | None, tuple[int, ...] | None]

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
    STRUCTURED_QUESTION = "structured_question"


class LabelError(ValueError):
    """A label the question does not accept; ``code`` is machine-readable."""

    def __init__(self, code: str, message: str, *, unknown_codes: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        #: ``unknown_category``: the codes that are not categories (an upload may declare
        #: them, ``create_categories``).
        self.unknown_codes = unknown_codes


class PreparedScheme(Protocol):
    """What the parsers read of a question (``studies.labels.LabelScheme`` has it)."""

    id_by_code: dict[str, int]
    id_by_path: dict[str, int]
    min_value: float | None
    max_value: float | None

    def range_text(self) -> str: ...


def format_number(number: float) -> str:
    """Canonical text of a number: integers without a decimal point, others as ``repr``."""
    number = float(number)
    if number.is_integer() and abs(number) < 1e15:
        return str(int(number))
    return repr(number)


def _as_code(raw: Any) -> str:
    if raw is None or raw == "":
        raise LabelError(LabelErrorCode.REQUIRED, "A label is required.")
    if isinstance(raw, str):
        return raw.strip()
    if isinstance(raw, list):
        raise LabelError(
            LabelErrorCode.SET_FOR_SINGLE_LABEL, "This question takes one category, not a set."
        )
    if isinstance(raw, int) and not isinstance(raw, bool):
        # Ordinal scales often use numeric codes ("1".."5"): a JSON 3 means code "3".
        return str(raw)
    raise LabelError(LabelErrorCode.INVALID_TYPE, "A label must be a category code.")


def parse_category(scheme: PreparedScheme, raw: Any) -> Label:
    code = _as_code(raw)
    category_id = scheme.id_by_code.get(code)
    if category_id is not None:
        return (category_id, None, None)
    if SET_SEPARATOR in code:
        raise LabelError(
            LabelErrorCode.SET_FOR_SINGLE_LABEL, "This question takes one category, not a set."
        )
    raise LabelError(
        LabelErrorCode.UNKNOWN_CATEGORY,
        not_a_category(code, scheme.id_by_code),
        unknown_codes=(code,),
    )


def parse_node(scheme: PreparedScheme, raw: Any) -> Label:
    code = _as_code(raw)
    node_id = scheme.id_by_code.get(code)
    if node_id is not None:
        return (node_id, None, None)
    if SET_SEPARATOR in code:
        raise LabelError(
            LabelErrorCode.SET_FOR_SINGLE_LABEL,
            "This question takes one node of its tree, not a set.",
        )
    node_id = scheme.id_by_path.get(code.strip(PATH_SEPARATOR))
    if node_id is not None:
        return (node_id, None, None)
    raise LabelError(
        LabelErrorCode.UNKNOWN_NODE,
        f"{code!r} is neither the code nor the path of a node of this question's tree "
        f"{category_hint(code, scheme.id_by_code)}.",
    )


def flat_json_list(text: str) -> list[Any] | None:
    """``text`` read as a JSON list of scalars, or None when it is not JSON at all.

    A set is flat: a second ``[`` before the list's first member is refused before the
    JSON reader sees it, so no nesting (a thousand ``[``) costs recursion.
    """
    body = text[1:].lstrip()
    if body.startswith("["):
        raise LabelError(LabelErrorCode.INVALID_TYPE, "A set's members must be codes, not lists.")
    try:
        members = json.loads(text)
    except (ValueError, RecursionError):
        return None
    return members if isinstance(members, list) else None


def set_members(raw: Any) -> list[Any]:
    """The members of a set as written: ``"a|b"``, a JSON list in text, or a list."""
    if raw is None or raw == "":
        raise LabelError(LabelErrorCode.REQUIRED, "A label is required.")
    if isinstance(raw, list):
        return raw
    if isinstance(raw, str):
        text = raw.strip()
        if text.startswith("["):
            members = flat_json_list(text)
            if members is not None:
                return members
        return text.split(SET_SEPARATOR)
    if isinstance(raw, int) and not isinstance(raw, bool):
        return [str(raw)]
    raise LabelError(LabelErrorCode.INVALID_TYPE, "A set is written 'a|b|c' or as a list of codes.")


def parse_set(scheme: PreparedScheme, raw: Any) -> Label:
    ids: set[int] = set()
    unknown: list[str] = []
    for member in set_members(raw):
        if isinstance(member, int) and not isinstance(member, bool):
            member = str(member)
        if not isinstance(member, str):
            raise LabelError(LabelErrorCode.INVALID_TYPE, "A set's members must be codes.")
        code = member.strip()
        if not code:
            continue
        category_id = scheme.id_by_code.get(code)
        if category_id is None:
            unknown.append(code)
        else:
            ids.add(category_id)
    if unknown:
        listed = ", ".join(f"{code!r} {category_hint(code, scheme.id_by_code)}" for code in unknown)
        raise LabelError(
            LabelErrorCode.UNKNOWN_CATEGORY,
            f"Not categories of this question: {listed}.",
            unknown_codes=tuple(dict.fromkeys(unknown)),
        )
    if not ids:
        raise LabelError(LabelErrorCode.EMPTY_SET, "A set label needs at least one category.")
    return (None, None, tuple(sorted(ids)))


def parse_number_label(scheme: PreparedScheme, raw: Any) -> Label:
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
    if (scheme.min_value is not None and number < scheme.min_value) or (
        scheme.max_value is not None and number > scheme.max_value
    ):
        raise LabelError(
            LabelErrorCode.NUMBER_OUT_OF_RANGE,
            f"{format_number(number)} is outside {scheme.range_text()}.",
        )
    return (None, number, None)
