"""Read span annotations from CSV: ``document,coder,begin,end,label``, one unit per row.

``end`` is exclusive. A row with ``begin``, ``end`` and ``label`` all empty says the coder
annotated the document and found nothing there; a coder with no row for a document did not
annotate it. Offsets are integers (characters, tokens) or decimal numbers (seconds).

The optional *continuum* file gives each document's extent, CSV ``document,begin,end``.
Without it a document spans 0 to the largest end of its units, so positions after the last
unit (and a document where nobody marked anything) are unknown to the token and
segmentation measures: give the extents when you have them.

Every error names the file, the line and the field.
"""

from __future__ import annotations

import csv
import math
from collections.abc import Hashable
from pathlib import Path

from metrics.errors import InputError
from metrics.spans.data import SpanData

UNIT_FIELDS = ("document", "coder", "begin", "end", "label")
CONTINUUM_FIELDS = ("document", "begin", "end")

__all__ = ["CONTINUUM_FIELDS", "UNIT_FIELDS", "read_continuum", "read_spans"]


def _rows(path: Path, fields: tuple[str, ...], what: str) -> list[tuple[int, dict[str, str]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as error:
        raise InputError(f"{path}: cannot read the {what} file ({error}).") from None
    reader = csv.DictReader(text.splitlines())
    header = [name.strip() for name in reader.fieldnames or []]
    missing = [name for name in fields if name not in header]
    if missing:
        raise InputError(
            f"{path}, line 1: the CSV header must name {', '.join(fields)}; "
            f"missing {', '.join(missing)}."
        )
    reader.fieldnames = header
    rows = []
    for row in reader:
        values = {name: (row.get(name) or "").strip() for name in fields}
        if not any(values.values()):
            continue
        rows.append((reader.line_num, values))
    return rows


def _number(raw: str, field: str, where: str) -> float:
    if raw == "":
        raise InputError(f"{where}, field '{field}': empty; expected a number.")
    try:
        value = float(int(raw))
    except ValueError:
        try:
            value = float(raw)
        except ValueError:
            raise InputError(f"{where}, field '{field}': expected a number, got {raw!r}.") from None
    if not math.isfinite(value):
        raise InputError(f"{where}, field '{field}': expected a finite number, got {raw!r}.")
    return value


def _name(raw: str, field: str, where: str) -> str:
    if raw == "":
        raise InputError(f"{where}, field '{field}': empty.")
    return raw


def read_continuum(path: Path | str) -> dict[Hashable, tuple[float, float]]:
    """Read document extents, CSV ``document,begin,end`` (``end`` exclusive).

    Returns
    -------
    dict
        ``{document: (begin, end)}``.

    Raises
    ------
    InputError
        Naming the file, line and field: a missing column, an empty or non-numeric
        offset, ``end`` before ``begin``, a document listed twice.
    """
    path = Path(path)
    extents: dict[Hashable, tuple[float, float]] = {}
    lines: dict[Hashable, int] = {}
    for number, row in _rows(path, CONTINUUM_FIELDS, "continuum"):
        where = f"{path}, line {number}"
        document = _name(row["document"], "document", where)
        if document in extents:
            raise InputError(
                f"{where}, field 'document': {document!r} is already on line {lines[document]}."
            )
        begin = _number(row["begin"], "begin", where)
        end = _number(row["end"], "end", where)
        if end < begin:
            raise InputError(f"{where}, field 'end': {end:g} is before begin {begin:g}.")
        extents[document] = (begin, end)
        lines[document] = number
    return extents


def read_spans(path: Path | str, *, continuum: Path | str | None = None) -> SpanData:
    """Read span annotations (CSV ``document,coder,begin,end,label``) into :class:`SpanData`.

    Parameters
    ----------
    path : path
        The units, one per row; ``end`` exclusive. A row with empty ``begin``, ``end`` and
        ``label``: the coder annotated the document and found nothing.
    continuum : path, optional
        Document extents, CSV ``document,begin,end`` (see :func:`read_continuum`). With it,
        every document of the units must be listed and every unit must lie inside its
        document; documents listed without units are kept.

    Returns
    -------
    SpanData

    Raises
    ------
    InputError
        (a ``ValueError``) naming the file, line and field of the first problem: a missing
        column, an empty document or coder, a partly empty unit, a non-numeric offset,
        ``end`` before ``begin``, the same unit twice, an empty row for a coder who marked
        units in that document, a document missing from the continuum or a unit outside
        its extent.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "units.csv").write_text(
    ...     "document,coder,begin,end,label\\nd1,ann,0,5,PER\\nd1,bob,1,5,PER\\nd1,cy,,,\\n")
    >>> data = read_spans(folder / "units.csv")
    >>> data.coders, data.n_units, data.annotated.tolist()
    (('ann', 'bob', 'cy'), 2, [[True, True, True]])
    """
    path = Path(path)
    extents = read_continuum(continuum) if continuum is not None else None
    rows = _rows(path, UNIT_FIELDS, "span")
    if not rows:
        raise InputError(f"{path}: no rows after the header.")
    units: list[tuple[str, str, float, float, str]] = []
    seen: dict[tuple[str, str, float, float, str], int] = {}
    marked: dict[tuple[str, str], int] = {}
    empty: dict[tuple[str, str], int] = {}
    for number, row in rows:
        where = f"{path}, line {number}"
        document = _name(row["document"], "document", where)
        coder = _name(row["coder"], "coder", where)
        if extents is not None and document not in extents:
            raise InputError(
                f"{where}, field 'document': {document!r} is not in the continuum file {continuum}."
            )
        pair = (document, coder)
        if row["begin"] == row["end"] == row["label"] == "":
            if pair in marked:
                raise InputError(
                    f"{where}, field 'begin': an empty row says coder {coder!r} found nothing "
                    f"in {document!r}, but line {marked[pair]} has a unit of theirs there."
                )
            empty.setdefault(pair, number)
            continue
        begin = _number(row["begin"], "begin", where)
        end = _number(row["end"], "end", where)
        label = _name(row["label"], "label", where)
        if end < begin:
            raise InputError(f"{where}, field 'end': {end:g} is before begin {begin:g}.")
        if pair in empty:
            raise InputError(
                f"{where}, field 'begin': line {empty[pair]} says coder {coder!r} found "
                f"nothing in {document!r}."
            )
        if extents is not None:
            low, high = extents[document]
            if begin < low or end > high:
                field = "begin" if begin < low else "end"
                raise InputError(
                    f"{where}, field '{field}': [{begin:g}, {end:g}) lies outside document "
                    f"{document!r}'s extent [{low:g}, {high:g}) in {continuum}."
                )
        unit = (document, coder, begin, end, label)
        if unit in seen:
            raise InputError(f"{where}, field 'begin': the same unit as line {seen[unit]}.")
        seen[unit] = number
        marked.setdefault(pair, number)
        units.append(unit)
    try:
        return SpanData.from_units(units, extents=extents, annotated=list(empty))
    except ValueError as error:
        raise InputError(f"{path}: {error}") from None
