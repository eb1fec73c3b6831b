"""The generic shapes of agreement libraries (see docs/imports.md).

``long_csv``: one annotation per line, columns ``item, coder, label`` (also accepted:
``unit``/``subject``, ``rater``/``annotator``/``user``, ``value``/``category``) and an
optional ``question`` column naming each line's question.

``wide_csv``: a reliability matrix, items in rows: the first column is the item, every
other column a coder (its header is the coder key). Empty cells, ``NA`` and ``.`` are
missing values.

``agreement_table``: value counts for anonymous (crowd) data: the first column is the
item, every other column a category with the number of coders who chose it. Coders have
no identity here, so each item's labels go to synthetic coders ``slot-1`` ... ``slot-n``
in column order; only coefficients that ignore coder identity (Fleiss' kappa,
Krippendorff's alpha, Randolph, AC1) are meaningful on such data.

All three are read by ``studies.text_rules.read_csv``: a line with more or fewer fields
than the header is a rejected ``row`` (code ``field_count``) of that 1-based line, never
padded or cut; a header naming a column twice (``long_csv``: case aside) is a malformed
file; text cells the exports neutralised for spreadsheets (``'=x``) read back as written
(``=x``).
"""

from __future__ import annotations

from collections.abc import Iterator

from exchange.formats.base import (
    ImportErrorCode,
    MalformedFileError,
    ParsedFile,
    ParsedRegion,
    ParsedRow,
    ParseOptions,
    decode,
    refuse_repeated_column,
    register,
)
from studies.text_rules import (
    CsvReadError,
    NumberFormatError,
    parse_whole_number,
    read_csv,
    restore_text,
)

ALIASES = {
    "item": ("item", "unit", "subject", "item_id"),
    "coder": ("coder", "rater", "annotator", "user", "coder_id"),
    "label": ("label", "value", "category", "answer"),
}
MISSING_CELLS = frozenset({"", "NA", "N/A", "NaN", "nan", "."})
SLOT_PREFIX = "slot-"
MAX_COUNT = 10_000


def _table(data: bytes, parsed: ParsedFile) -> tuple[list[str], Iterator[tuple[int, list[str]]]]:
    """The header and (line, cells) of each data line, every cell stripped of surrounding
    whitespace, then restored when the exports neutralised it (``'\tx`` is ``\tx``); lines
    with a wrong field count are rejected into ``parsed``."""

    def reject(error: CsvReadError) -> None:
        parsed.records += 1
        parsed.reject(f"line {error.line}", "row", error.code, error.detail)

    try:
        header, rows = read_csv(decode(data), reject=reject)
    except CsvReadError as error:
        raise MalformedFileError(error.message, source=f"line {error.line}") from None
    if not any(cell.strip() for cell in header):
        raise MalformedFileError("The CSV file is empty: a header line is expected.")

    def lines() -> Iterator[tuple[int, list[str]]]:
        try:
            for row in rows:
                yield row.line, [restore_text(cell.strip()) for cell in row.cells]
        except CsvReadError as error:
            raise MalformedFileError(error.message, source=f"line {error.line}") from None

    return [restore_text(cell.strip()) for cell in header], lines()


def _column(columns: list[str], role: str) -> int | None:
    for alias in ALIASES[role]:
        if alias in columns:
            return columns.index(alias)
    return None


@register(
    "long_csv",
    title="Long CSV (item, coder, label)",
    description="One annotation per line; an optional question column.",
)
def parse_long(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    header, lines = _table(data, parsed)
    refuse_repeated_column(header, ignore_case=True)
    columns = [name.lower() for name in header]
    at = {role: _column(columns, role) for role in ALIASES}
    missing = [role for role, index in at.items() if index is None]
    if missing:
        raise MalformedFileError(
            f"The CSV header lacks the column(s) {', '.join(missing)}; expected item,coder,label."
        )
    question_at = columns.index("question") if "question" in columns else None
    for number, cells in lines:
        parsed.records += 1
        source = f"line {number}"
        values = {role: cells[index] if index is not None else "" for role, index in at.items()}
        field = None
        if question_at is not None:
            field = cells[question_at] or None
        empty = [role for role in ("item", "coder") if not values[role]]
        if empty:
            parsed.reject(
                source,
                empty[0],
                ImportErrorCode.REQUIRED,
                f"The {empty[0]} is empty.",
                tool_field=field,
            )
            continue
        if values["label"] in MISSING_CELLS:
            parsed.skip("line with an empty label")
            continue
        parsed.rows.append(
            ParsedRow(
                source=source,
                item=values["item"],
                coder=values["coder"],
                label=values["label"],
                field=field,
            )
        )
    return parsed


@register(
    "wide_csv",
    title="Wide CSV (item, then one column per coder)",
    description="A reliability matrix with items in rows; empty, NA and . are missing.",
)
def parse_wide(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    header, lines = _table(data, parsed)
    coders = header[1:]
    if not coders:
        raise MalformedFileError("A wide CSV has an item column and at least one coder column.")
    if not all(coders):
        raise MalformedFileError("Every coder column needs a name in the header.")
    refuse_repeated_column(header)
    for number, cells in lines:
        parsed.records += 1
        source = f"line {number}"
        item = cells[0]
        if not item:
            parsed.reject(
                source, header[0] or "item", ImportErrorCode.REQUIRED, "The item is empty."
            )
            continue
        for coder, value in zip(coders, cells[1:], strict=True):
            if value in MISSING_CELLS:
                continue
            parsed.rows.append(
                ParsedRow(source=f"{source}, column {coder}", item=item, coder=coder, label=value)
            )
    return parsed


@register(
    "agreement_table",
    title="Agreement table (item x category counts)",
    description="Anonymous crowd data: counts per item and category; synthetic coders "
    "slot-1..slot-n are created.",
)
def parse_table(data: bytes, options: ParseOptions) -> ParsedFile:
    parsed = ParsedFile()
    header, lines = _table(data, parsed)
    categories = header[1:]
    if not categories or not all(categories):
        raise MalformedFileError(
            "An agreement table has an item column, then one named column per category."
        )
    refuse_repeated_column(header)
    slots = 0
    for number, cells in lines:
        parsed.records += 1
        source = f"line {number}"
        item = cells[0]
        if not item:
            parsed.reject(
                source, header[0] or "item", ImportErrorCode.REQUIRED, "The item is empty."
            )
            continue
        counts: list[tuple[str, int]] = []
        bad = False
        for category, cell in zip(categories, cells[1:], strict=True):
            try:
                count = parse_whole_number(cell or "0")
            except NumberFormatError:
                count = -1
            if not 0 <= count <= MAX_COUNT:
                parsed.reject(
                    f"{source}, column {category}",
                    category,
                    ImportErrorCode.INVALID_COUNT,
                    f"{cell!r} is not a count (a whole number from 0 to {MAX_COUNT}).",
                )
                bad = True
                continue
            counts.append((category, count))
        if bad:
            continue
        slot = 0
        for category, count in counts:
            for _ in range(count):
                slot += 1
                parsed.rows.append(
                    ParsedRow(
                        source=f"{source}, column {category}",
                        item=item,
                        coder=f"{SLOT_PREFIX}{slot}",
                        label=category,
                    )
                )
        slots = max(slots, slot)
    if slots:
        parsed.notes.append(
            f"The table has no coder identities: labels were given to {slots} synthetic "
            f"coders {SLOT_PREFIX}1..{SLOT_PREFIX}{slots} in column order. Use coefficients "
            "that ignore coder identity (Fleiss' kappa, Krippendorff's alpha)."
        )
    return parsed


#: The column naming the item in a structured CSV, as each structured kind's CLI calls it.
STRUCTURED_ITEM_COLUMNS = ("item", "image", "document")


@register(
    "structured_csv",
    title="Structured values CSV (the question's own shape)",
    description="A region, ranking, preference or text question's rows as its CLI and upload "
    "read them: image,coder,x,y,width,height,label; item,coder,option,rank; "
    "item,coder,choice,shown_first; item,coder,text.",
)
def parse_structured(data: bytes, options: ParseOptions) -> ParsedFile:
    """Rows of a structured question in its own CSV shape: the item column (``item``,
    ``image`` or ``document``), ``coder``, and the value columns, passed on as they are (the
    question's kind checks them when they are written)."""
    parsed = ParsedFile()
    header, lines = _table(data, parsed)
    columns = [name.lower() for name in header]
    item = next((columns.index(name) for name in STRUCTURED_ITEM_COLUMNS if name in columns), None)
    if item is None or "coder" not in columns:
        raise MalformedFileError(
            "A structured CSV names its item (item, image or document) and coder columns."
        )
    coder = columns.index("coder")
    values = [(i, name) for i, name in enumerate(columns) if i not in (item, coder)]
    for line, cells in lines:
        parsed.records += 1
        source = f"line {line}"
        if not cells[item] or not cells[coder]:
            parsed.reject(
                source,
                "item" if not cells[item] else "coder",
                ImportErrorCode.REQUIRED,
                "The item and the coder are required.",
            )
            continue
        record = {name: cells[i] for i, name in values}
        parsed.regions.append(ParsedRegion(source, cells[item], cells[coder], "", record))
    return parsed
