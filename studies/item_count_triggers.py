"""The triggers that keep ``StudyItemCount`` (migrations 0009 and 0010 install them).

PostgreSQL adds per statement from the transition table (one aggregate for a COPY of a
million rows); SQLite has row triggers. SQLite drops a table's triggers when a migration
remakes the table (as any ``AlterField`` on ``Item`` does there): such a migration must call
:func:`install_sqlite` again, as 0010 does.
"""

from __future__ import annotations

from typing import Any

POSTGRESQL = [
    """
    CREATE FUNCTION studies_item_count_added() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        INSERT INTO studies_studyitemcount (study_id, items)
        SELECT study_id, count(*) FROM added_items GROUP BY study_id
        ON CONFLICT (study_id)
        DO UPDATE SET items = studies_studyitemcount.items + EXCLUDED.items;
        RETURN NULL;
    END $$
    """,
    """
    CREATE FUNCTION studies_item_count_removed() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        UPDATE studies_studyitemcount AS counted SET items = counted.items - removed.n
        FROM (SELECT study_id, count(*) AS n FROM removed_items GROUP BY study_id) AS removed
        WHERE counted.study_id = removed.study_id;
        RETURN NULL;
    END $$
    """,
    """
    CREATE TRIGGER studies_item_count_added AFTER INSERT ON studies_item
    REFERENCING NEW TABLE AS added_items
    FOR EACH STATEMENT EXECUTE FUNCTION studies_item_count_added()
    """,
    """
    CREATE TRIGGER studies_item_count_removed AFTER DELETE ON studies_item
    REFERENCING OLD TABLE AS removed_items
    FOR EACH STATEMENT EXECUTE FUNCTION studies_item_count_removed()
    """,
]
POSTGRESQL_DROP = [
    "DROP TRIGGER IF EXISTS studies_item_count_added ON studies_item",
    "DROP TRIGGER IF EXISTS studies_item_count_removed ON studies_item",
    "DROP FUNCTION IF EXISTS studies_item_count_added()",
    "DROP FUNCTION IF EXISTS studies_item_count_removed()",
]
SQLITE = [
    """
    CREATE TRIGGER studies_item_count_added AFTER INSERT ON studies_item BEGIN
        INSERT INTO studies_studyitemcount (study_id, items) VALUES (NEW.study_id, 1)
        ON CONFLICT (study_id) DO UPDATE SET items = items + 1;
    END
    """,
    """
    CREATE TRIGGER studies_item_count_removed AFTER DELETE ON studies_item BEGIN
        UPDATE studies_studyitemcount SET items = items - 1 WHERE study_id = OLD.study_id;
    END
    """,
]
SQLITE_DROP = [
    "DROP TRIGGER IF EXISTS studies_item_count_added",
    "DROP TRIGGER IF EXISTS studies_item_count_removed",
]
#: When the triggers are first created: the items already there.
COUNT_EXISTING = """
    INSERT INTO studies_studyitemcount (study_id, items)
    SELECT study_id, count(*) FROM studies_item GROUP BY study_id
"""


def _run(schema_editor: Any, statements: list[str]) -> None:
    for statement in statements:
        schema_editor.execute(statement)


def install(schema_editor: Any) -> None:
    """Create the triggers and count the items already there."""
    vendor = schema_editor.connection.vendor
    if vendor not in ("postgresql", "sqlite"):
        raise RuntimeError(f"Item counts need triggers written for {vendor}.")
    _run(schema_editor, [*(POSTGRESQL if vendor == "postgresql" else SQLITE), COUNT_EXISTING])


def drop(schema_editor: Any) -> None:
    vendor = schema_editor.connection.vendor
    _run(schema_editor, POSTGRESQL_DROP if vendor == "postgresql" else SQLITE_DROP)


def install_sqlite(schema_editor: Any) -> None:
    """Create SQLite's triggers again after a migration remade the item table."""
    if schema_editor.connection.vendor == "sqlite":
        _run(schema_editor, [*SQLITE_DROP, *SQLITE])
