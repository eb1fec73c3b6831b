"""Read relations from CSV: ``document,coder,head_begin,head_end,tail_begin,tail_end,label``.

One relation per row, offsets as the span kind has them (``end`` exclusive). A row with all
but ``document`` and ``coder`` empty says the coder annotated the document and related
nothing there; a coder with no row for a document did not annotate it. Every error names the
file, the line and the field.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable
from pathlib import Path

from metrics.errors import InputError
from metrics.structured._reader import identifier, number, read_rows
from metrics.structured.relations.data import RelationData

RELATION_FIELDS = (
    "document",
    "coder",
    "head_begin",
    "head_end",
    "tail_begin",
    "tail_end",
    "label",
)
_REST = RELATION_FIELDS[2:]

__all__ = ["RELATION_FIELDS", "read_relations"]


def read_relations(path: Path | str, *, undirected: Collection[Hashable] = ()) -> RelationData:
    """Read a relations CSV file into :class:`RelationData`.

    Parameters
    ----------
    path : path
    undirected : collection of str
        The labels whose relations have no direction (``x–y`` is ``y–x``).

    Raises
    ------
    InputError
        (a ``ValueError``) naming the file, line and field: a missing column, an empty
        document or coder, a partly empty row, a non-numeric or infinite offset, an end before
        its begin, the same relation twice (an undirected one in either order), an empty row
        for a coder who has relations in that document.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "relations.csv"
    >>> _ = path.write_text("document,coder,head_begin,head_end,tail_begin,tail_end,label\\n"
    ...                     "d1,ann,0,4,10,15,works_for\\nd1,bob,,,,,\\n")
    >>> data = read_relations(path)
    >>> data.n_relations, data.annotated.tolist()
    (1, [[True, True]])
    """
    path = Path(path)
    symmetric = set(undirected)
    rows, _ = read_rows(path, RELATION_FIELDS, "relation")
    columns: dict[str, list[object]] = {name: [] for name in RELATION_FIELDS}
    seen: dict[tuple[object, ...], int] = {}
    related: dict[tuple[str, str], int] = {}
    empty: dict[tuple[str, str], int] = {}
    for line, row in rows:
        where = f"{path}, line {line}"
        document = identifier(row["document"], "document", where)
        coder = identifier(row["coder"], "coder", where)
        pair = (document, coder)
        filled = [name for name in _REST if (row[name] or "").strip() != ""]
        if not filled:
            if pair in related:
                raise InputError(
                    f"{where}, field 'label': an empty row says coder {coder!r} related nothing "
                    f"in {document!r}, but line {related[pair]} has a relation of theirs there."
                )
            empty.setdefault(pair, line)
            values: list[object] = [None] * 5
        else:
            missing = [name for name in _REST if name not in filled]
            if missing:
                raise InputError(
                    f"{where}, field '{missing[0]}': empty; a relation needs head_begin, "
                    "head_end, tail_begin, tail_end and label (all empty: no relation)."
                )
            if pair in empty:
                raise InputError(
                    f"{where}, field 'label': line {empty[pair]} says coder {coder!r} related "
                    f"nothing in {document!r}."
                )
            offsets = [number(row[name], name, where) for name in _REST[:4]]
            for begin, end, name in ((0, 1, "head_end"), (2, 3, "tail_end")):
                if offsets[end] < offsets[begin]:
                    raise InputError(
                        f"{where}, field '{name}': {offsets[end]:g} is before its begin "
                        f"{offsets[begin]:g}."
                    )
            label = (row["label"] or "").strip()
            head, tail = tuple(offsets[:2]), tuple(offsets[2:])
            if label in symmetric:
                head, tail = min(head, tail), max(head, tail)
            key = (document, coder, head, tail, label)
            if key in seen:
                raise InputError(f"{where}, field 'label': the same relation as line {seen[key]}.")
            seen[key] = line
            related.setdefault(pair, line)
            values = [*offsets, label]
        columns["document"].append(document)
        columns["coder"].append(coder)
        for name, value in zip(_REST, values, strict=True):
            columns[name].append(value)
    try:
        return RelationData.from_long(
            *(columns[name] for name in RELATION_FIELDS),  # type: ignore[arg-type]
            undirected=symmetric,
        )
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None
