"""A question's user-supplied distance table: the distance between two of its values (two
texts) as the team computed it elsewhere (from embeddings, say; the server downloads no
model). Uploaded whole, as CSV ``text_a,text_b,distance`` or JSON rows with those keys,
and used by a computation whose ``distance`` is ``user``.

Checks, each error naming its row and field: both texts given (an empty text is a text),
at most ``MAX_VALUE_CHARS`` characters; the distance a finite number, not negative; a
text's distance to itself 0; a pair given in both orders given the same distance
(symmetric); no pair twice; at most ``MAX_DISTANCE_PAIRS`` rows. Alpha needs every pair of
different values that its D_o and D_e compare: a computation that meets a pair the table
lacks fails naming the two texts.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from studies.models import Question, QuestionDistanceTable
from studies.text_rules import CsvReadError, NumberFormatError, parse_number, read_csv

COLUMNS = ("text_a", "text_b", "distance")
MAX_DISTANCE_PAIRS = 200_000
MAX_VALUE_CHARS = 100_000
MAX_ERRORS = 50


@dataclass(frozen=True)
class DistanceRow:
    cells: Mapping[str, Any]
    #: Where the row is, as errors name it: ``rows.3`` (JSON) or ``line 4`` (CSV).
    where: str


def distance_rows_from_csv(text: str) -> list[DistanceRow]:
    """The rows of a CSV ``text_a,text_b,distance`` (other columns ignored; cells as
    written, spaces kept: they are part of a text)."""
    try:
        header, lines = read_csv(text)
        columns = [name.strip().lower() for name in header]
        missing = [name for name in COLUMNS if name not in columns]
        if missing:
            raise ValidationError(
                {
                    "header": ValidationError(
                        f"The CSV header lacks {', '.join(missing)}; expected {','.join(COLUMNS)}.",
                        code="missing_columns",
                    )
                }
            )
        at = {name: columns.index(name) for name in COLUMNS}
        rows = []
        for line in lines:
            rows.append(
                DistanceRow({name: line.cells[i] for name, i in at.items()}, f"line {line.line}")
            )
            if len(rows) > MAX_DISTANCE_PAIRS:
                break
    except CsvReadError as error:
        raise ValidationError(
            {"file": ValidationError(error.message, code="malformed_file")}
        ) from None
    return rows


def distance_rows_from_json(records: Sequence[Any]) -> list[DistanceRow]:
    return [
        DistanceRow(record if isinstance(record, Mapping) else {}, f"rows.{index}")
        for index, record in enumerate(records)
    ]


class _Errors:
    def __init__(self) -> None:
        self.by_attr: dict[str, list[ValidationError]] = {}
        self.count = 0

    def add(self, where: str, field: str, code: str, message: str) -> None:
        self.count += 1
        if self.count <= MAX_ERRORS:
            self.by_attr.setdefault(f"{where}.{field}", []).append(
                ValidationError(message, code=code)
            )


def _text(row: DistanceRow, field: str, errors: _Errors) -> str | None:
    value = row.cells.get(field)
    if not isinstance(value, str):
        errors.add(row.where, field, "required", f'{field} is required (a text; "" is one).')
        return None
    if len(value) > MAX_VALUE_CHARS or "\x00" in value:
        errors.add(
            row.where,
            field,
            "invalid_text",
            f"{field} has at most {MAX_VALUE_CHARS:,} characters and no NUL.",
        )
        return None
    return value


def _distance(row: DistanceRow, errors: _Errors) -> float | None:
    raw = row.cells.get("distance")
    try:
        if isinstance(raw, bool) or not isinstance(raw, int | float | str):
            raise NumberFormatError("a number is expected")
        value = parse_number(raw) if isinstance(raw, str) else float(raw)
    except (NumberFormatError, OverflowError):
        errors.add(row.where, "distance", "not_a_number", "distance must be a number.")
        return None
    if not math.isfinite(value) or value < 0:
        errors.add(
            row.where,
            "distance",
            "invalid_distance",
            f"A distance is a finite number, 0 or more (got {raw!r}).",
        )
        return None
    return value


def checked_pairs(rows: Sequence[DistanceRow]) -> list[list[Any]]:
    """``[text_a, text_b, distance]`` per unordered pair of different texts, ``text_a <
    text_b``, sorted; raises ``ValidationError`` naming every bad row's field."""
    if len(rows) > MAX_DISTANCE_PAIRS:
        raise ValidationError(
            {
                "rows": ValidationError(
                    f"A distance table has at most {MAX_DISTANCE_PAIRS:,} rows.",
                    code="too_many_rows",
                )
            }
        )
    if not rows:
        raise ValidationError({"rows": ValidationError("No distance given.", code="required")})
    errors = _Errors()
    seen: dict[tuple[str, str], tuple[float, str, bool]] = {}
    for row in rows:
        first, second = _text(row, "text_a", errors), _text(row, "text_b", errors)
        distance = _distance(row, errors)
        if first is None or second is None or distance is None:
            continue
        if first == second:
            if distance != 0:
                errors.add(
                    row.where,
                    "distance",
                    "diagonal_not_zero",
                    "A text's distance to itself is 0.",
                )
            continue
        key, forward = (first, second) if first < second else (second, first), first < second
        known = seen.get(key)
        if known is None:
            seen[key] = (distance, row.where, forward)
        elif known[2] == forward:
            errors.add(
                row.where, "text_b", "duplicate_pair", f"This pair is given already ({known[1]})."
            )
        elif known[0] != distance:
            errors.add(
                row.where,
                "distance",
                "not_symmetric",
                f"The pair in the other order ({known[1]}) has the distance {known[0]:g}: a "
                "distance is symmetric.",
            )
    if errors.by_attr:
        raise ValidationError(errors.by_attr)
    return [[a, b, d] for (a, b), (d, _, _) in sorted(seen.items())]


def _refuse_unless_taken(question: Question) -> None:
    values = question.label_kind.structured
    if values is None or not values.takes_distance_table:
        raise ValidationError(
            {
                "question": ValidationError(
                    f"Question {question.key!r} ({question.kind}) takes no distance table: "
                    "only free-text questions do.",
                    code="no_distance_table",
                )
            }
        )


def distance_table_replace(
    *, question: Question, rows: Sequence[DistanceRow]
) -> QuestionDistanceTable:
    """The question's distance table, replaced whole by ``rows`` (all or nothing)."""
    _refuse_unless_taken(question)
    pairs = checked_pairs(rows)
    with transaction.atomic():
        table, _ = QuestionDistanceTable.objects.update_or_create(
            question=question,
            defaults={
                "pairs": pairs,
                "n_pairs": len(pairs),
                "fingerprint": pairs_fingerprint(pairs),
                "uploaded_at": timezone.now(),
            },
        )
    return table


def pairs_fingerprint(pairs: Sequence[Sequence[Any]]) -> str:
    """A SHA-256 of the checked pairs (sorted, one order per pair): the same table uploaded
    again has the same fingerprint, any other distance another."""
    canonical = [[a, b, float(d)] for a, b, d in pairs]
    return hashlib.sha256(json.dumps(canonical, separators=(",", ":")).encode()).hexdigest()


def distance_table_delete(*, question: Question) -> None:
    QuestionDistanceTable.objects.filter(question=question).delete()


def distance_table_summary(*, question: Question) -> QuestionDistanceTable | None:
    """The table's size and date, without its pairs."""
    return (
        QuestionDistanceTable.objects.filter(question=question)
        .defer("pairs")
        .select_related("question")
        .first()
    )


@dataclass(frozen=True)
class DistanceMapping:
    """The table as a computation reads it: ``{(text_a, text_b): distance}`` (one order per
    pair) and the fingerprint of what was read."""

    distances: dict[tuple[str, str], float]
    fingerprint: str


def distance_mapping(*, question: Question) -> DistanceMapping | None:
    """The question's table (one read: its pairs and their fingerprint), or None."""
    row = (
        QuestionDistanceTable.objects.filter(question=question)
        .values_list("pairs", "fingerprint")
        .first()
    )
    if row is None:
        return None
    pairs, fingerprint = row
    return DistanceMapping({(a, b): float(d) for a, b, d in pairs}, fingerprint)


def distance_table_fingerprints(*, question_ids: Iterable[int]) -> dict[int, str]:
    """The fingerprint of each of these questions' tables (a question without one is
    absent): one query, the pairs never read."""
    return dict(
        QuestionDistanceTable.objects.filter(question_id__in=list(question_ids)).values_list(
            "question_id", "fingerprint"
        )
    )
