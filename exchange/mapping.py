"""Mapping an export file's own names onto the study's, for every import format.

A parser (``exchange.formats``) reports the file in the tool's terms: a field name per
label (Label Studio ``from_name``...), labels as the annotators chose them, annotator
names. This module maps them onto the study, the same way whatever the format:

- tool fields onto questions (``question_map``; a field mapped to null is ignored, with
  every record of it, rejected or not);
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from django.core.exceptions import ValidationError

from exchange.formats import ParsedFile, ParsedRow, Rejection
from exchange.formats.base import ImportErrorCode

# Tool fields onto questions --------------------------------------------------------------


@dataclass
class FieldGroups:
    """The parsed rows per question key, and what mapping the fields left out.

    ``ignored`` counts the records (rows and rejections) of each field mapped to null;
    ``rejections`` are the parser's rejections that still stand, then one per field that
    maps to no question.
    """

    rows: dict[str, list[ParsedRow]] = field(default_factory=dict)
    ignored: dict[str, int] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)


def _is_ignored(tool_field: str | None, question_map: Mapping[str, str | None]) -> bool:
    return tool_field is not None and tool_field in question_map and not question_map[tool_field]


def _question_of(
    row_field: str | None,
    *,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    question_keys: set[str],
    single_field: bool,
) -> str | None:
    """The question key a (not ignored) field goes to; None when it maps to none."""
    if row_field is None:
        return question_key
    if row_field in question_map:
        return question_map[row_field]
    if row_field in question_keys:
        return row_field
    if question_key and single_field:
        return question_key
    return None


def fields_to_questions(
    parsed: ParsedFile,
    *,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    question_keys: set[str],
) -> FieldGroups:
    """Group the parsed rows by question key; drop the records of ignored fields.

    A field goes to ``question_map[field]`` (null: ignored), else to the question with that
    key, else to ``question_key`` when the file has one field only; rows without a field go
    to ``question_key``. Raises ``ValidationError`` on ``question`` when such rows exist
    and no question was given.
    """
    groups = FieldGroups()
    for rejection in parsed.rejected:
        if rejection.tool_field is not None and _is_ignored(rejection.tool_field, question_map):
            groups.ignored[rejection.tool_field] = groups.ignored.get(rejection.tool_field, 0) + 1
        else:
            groups.rejections.append(rejection)
    single_field = len({row.field for row in parsed.rows if row.field is not None}) == 1
    unmapped: dict[str | None, list[ParsedRow]] = {}
    for row in parsed.rows:
        if row.field is not None and _is_ignored(row.field, question_map):
            groups.ignored[row.field] = groups.ignored.get(row.field, 0) + 1
            continue
        key = _question_of(
            row.field,
            question_key=question_key,
            question_map=question_map,
            question_keys=question_keys,
            single_field=single_field,
        )
        if key is None:
            unmapped.setdefault(row.field, []).append(row)
        else:
            groups.rows.setdefault(key, []).append(row)
    if None in unmapped:
        raise ValidationError(
            {
                "question": [
                    ValidationError(
                        "A question is required: this file does not name its questions.",
                        code="required",
                    )
                ]
            }
        )
    groups.rejections.extend(
        Rejection(
            source=rows[0].source,
            field="question",
            code=ImportErrorCode.UNMAPPED_FIELD,
            detail=(
                f"{len(rows)} label(s) of the tool's field {row_field!r} map to no question: "
                "add it to question_map (a question key, or null to ignore it)."
            ),
            tool_field=row_field,
        )
        for row_field, rows in unmapped.items()
    )
    return groups
