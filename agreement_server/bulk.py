"""Bounded bulk writes: no statement carries more than a batch of rows (issue 25).

``AGREEMENT_WRITE_BATCH_SIZE`` rows per statement (default 1,000; docs/operations.md).
Django's ``bulk_update`` is not used for many rows: it sets each field with a ``CASE`` of
one branch per row, which every row walks, so one statement of n rows costs n² (a 35,542-entry
review queue took PostgreSQL 41 minutes). ``bulk_update_rows`` updates by a join instead:

- PostgreSQL: ``WITH v (id, …) AS (VALUES (…), (…)) UPDATE t SET … FROM v WHERE t.id = v.id``,
  one statement per batch, a hash or index join: linear in its rows;
- SQLite: one prepared ``UPDATE … WHERE id = ?`` run for each row (``executemany``, a batch at
  a time): one row per statement, on every SQLite version Django supports.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar

from django.conf import settings
from django.db import connection
from django.db.models import Field, Model

T = TypeVar("T")

_POSTGRESQL_MAX_PARAMETERS = 65_535


def write_batch_size() -> int:
    """Rows per write statement (``AGREEMENT_WRITE_BATCH_SIZE``)."""
    return int(settings.AGREEMENT_WRITE_BATCH_SIZE)


def batched(values: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    """``values`` in consecutive slices of at most ``size``."""
    for start in range(0, len(values), size):
        yield values[start : start + size]


def bulk_update_rows(
    model: type[Model],
    fields: Sequence[str],
    rows: Sequence[Sequence[Any]],
    *,
    batch_size: int | None = None,
) -> int:
    """Set ``fields`` of each row whose primary key is ``row[0]`` to ``row[1:]`` (Python
    values, converted as the fields save them), a batch of rows per statement; returns the
    number of rows given. Run it inside the caller's transaction for all or nothing."""
    if not rows:
        return 0
    targets = _fields(model, fields)
    size = batch_size or write_batch_size()

    def prepared(row: Sequence[Any]) -> list[Any]:
        if len(row) != len(targets):
            raise ValueError(f"Each row is the primary key and {len(fields)} values.")
        return [
            field.get_db_prep_save(value, connection)
            for field, value in zip(targets, row, strict=True)
        ]

    table = connection.ops.quote_name(model._meta.db_table)
    columns = [_column(field) for field in targets]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            casts = [f"::{field.cast_db_type(connection)}" for field in targets]
            sql = _values_update(table, columns, casts)
            # Under PostgreSQL's limit of parameters per statement (server-side binding).
            for batch in batched(rows, min(size, _POSTGRESQL_MAX_PARAMETERS // len(columns))):
                cursor.execute(sql(len(batch)), [v for row in batch for v in prepared(row)])
        else:
            key, *assigned = columns
            one_row = (
                f"UPDATE {table} SET {', '.join(f'{c} = %s' for c in assigned)} WHERE {key} = %s"
            )
            for batch in batched(rows, size):
                cursor.executemany(one_row, [[*v[1:], v[0]] for v in map(prepared, batch)])
    return len(rows)


def _fields(model: type[Model], names: Sequence[str]) -> list[Field[Any, Any]]:
    """The model's primary key, then the named fields: concrete ones only."""
    found = [model._meta.pk, *(model._meta.get_field(name) for name in names)]
    fields = [field for field in found if isinstance(field, Field) and field.concrete]
    if len(fields) != len(found):
        raise ValueError("Only the concrete fields of a model with a primary key are updated.")
    return fields


def _column(field: Field[Any, Any]) -> str:
    if not field.column:
        raise ValueError(f"The field {field.name} has no column.")
    return str(connection.ops.quote_name(field.column))


def _values_update(table: str, columns: list[str], casts: list[str]) -> Callable[[int], str]:
    """The statement that updates ``n`` rows (the key first) from a VALUES list joined on it."""
    key, *assigned = columns
    row = f"({', '.join(f'%s{cast}' for cast in casts)})"
    assignments = ", ".join(f"{c} = v.{c}" for c in assigned)

    def statement(n: int) -> str:
        return (
            f"WITH v ({', '.join(columns)}) AS (VALUES {', '.join([row] * n)})"
            f" UPDATE {table} AS t SET {assignments} FROM v WHERE t.{key} = v.{key}"
        )

    return statement
