"""Read free-text annotations from CSV: ``item,coder,text``, one text per row.

The text is taken exactly as written (no stripping, no case folding, no normalisation); an
empty ``text`` cell is the empty text, not a missing value. A coder with no row for an item
did not annotate it. Every error names the file, the line and the field.
"""

from __future__ import annotations

from pathlib import Path

from metrics.errors import InputError
from metrics.structured._reader import identifier, read_rows
from metrics.structured.texts.data import TextData

TEXT_FIELDS = ("item", "coder", "text")

__all__ = ["TEXT_FIELDS", "read_texts"]


def read_texts(path: Path | str) -> TextData:
    """Read a CSV file ``item,coder,text`` into :class:`TextData`.

    Raises
    ------
    InputError
        (a ``ValueError``) naming the file, line and field: a missing column, an empty item or
        coder, a row without a text field, a coder with two texts for one item.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "texts.csv"
    >>> _ = path.write_text('item,coder,text\\n1,ann,A cat\\n1,bob,"a cat, sitting"\\n2,ann,\\n')
    >>> data = read_texts(path)
    >>> data.texts, data.n_annotations
    (('A cat', 'a cat, sitting', ''), 3)
    """
    path = Path(path)
    rows, _ = read_rows(path, TEXT_FIELDS, "text")
    items: list[str] = []
    coders: list[str] = []
    texts: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    for line, row in rows:
        where = f"{path}, line {line}"
        item = identifier(row["item"], "item", where)
        coder = identifier(row["coder"], "coder", where)
        text = row["text"]
        if text is None:
            raise InputError(f"{where}, field 'text': missing (the row is too short).")
        if (item, coder) in seen:
            raise InputError(
                f"{where}, field 'coder': coder {coder!r} already gave item {item!r} a text "
                f"on line {seen[item, coder]}."
            )
        seen[item, coder] = line
        items.append(item)
        coders.append(coder)
        texts.append(text)
    return TextData.from_long(items, coders, texts)
