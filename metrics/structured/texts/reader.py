"""Read free-text annotations from CSV: ``item,coder,text``, one text per row.

The text is taken exactly as written (no stripping, no case folding, no normalisation); an
empty ``text`` cell is the empty text, not a missing value. A coder with no row for an item
did not annotate it. Every error names the file, the line and the field.
"""

from __future__ import annotations

from pathlib import Path

from metrics.errors import InputError
from metrics.structured._reader import identifier, number, read_rows
from metrics.structured.texts.data import TextData

TEXT_FIELDS = ("item", "coder", "text")
DISTANCE_FIELDS = ("text_a", "text_b", "distance")

__all__ = ["DISTANCE_FIELDS", "TEXT_FIELDS", "read_text_distances", "read_texts"]


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


def read_text_distances(path: Path | str) -> dict[tuple[str, str], float]:
    """Read user-supplied text distances, CSV ``text_a,text_b,distance`` (one pair per row).

    The texts are matched exactly as written (as :func:`read_texts` reads them); a pair may be
    given in either order, and both orders mean their mean. Alpha needs a distance for every
    pair of distinct texts of the data (the mapping of
    :func:`~metrics.structured.texts.text_alpha`).

    Raises
    ------
    InputError
        Naming the file, line and field: a missing column or cell, a distance that is not a
        finite number ≥ 0, a pair given twice in the same order, a text paired with itself at a
        distance other than 0.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "distances.csv"
    >>> _ = path.write_text("text_a,text_b,distance\\na cat,the cat,0.1\\n")
    >>> read_text_distances(path)
    {('a cat', 'the cat'): 0.1}
    """
    path = Path(path)
    rows, _ = read_rows(path, DISTANCE_FIELDS, "distance")
    distances: dict[tuple[str, str], float] = {}
    lines: dict[tuple[str, str], int] = {}
    for line, row in rows:
        where = f"{path}, line {line}"
        first, second = row["text_a"], row["text_b"]
        for name, text in (("text_a", first), ("text_b", second)):
            if text is None:
                raise InputError(f"{where}, field '{name}': missing (the row is too short).")
        value = number(row["distance"], "distance", where)
        if value < 0:
            raise InputError(f"{where}, field 'distance': must be ≥ 0, got {value:g}.")
        key = (str(first), str(second))
        if key[0] == key[1] and value != 0:
            raise InputError(f"{where}, field 'distance': a text is at distance 0 from itself.")
        if key in lines:
            raise InputError(f"{where}, field 'text_b': the same pair as line {lines[key]}.")
        lines[key] = line
        distances[key] = value
    return distances
