"""Read rankings from CSV: ``item,coder,option,rank``, one ranked option per row.

``rank`` is a number, 1 for the best option; equal ranks are ties (``1,2,2,4`` and
``1,2,2,3`` are the same ranking: ranks are read as an order). A coder who leaves some of an
item's options out ranked them last, tied (see :mod:`metrics.structured.rankings.data`).
Every error names the file, the line and the field.
"""

from __future__ import annotations

from pathlib import Path

from metrics.errors import InputError
from metrics.structured._reader import identifier, number, read_rows
from metrics.structured.rankings.data import RankingData

RANKING_FIELDS = ("item", "coder", "option", "rank")

__all__ = ["RANKING_FIELDS", "read_rankings"]


def read_rankings(path: Path | str) -> RankingData:
    """Read a CSV file ``item,coder,option,rank`` into :class:`RankingData`.

    Raises
    ------
    InputError
        (a ``ValueError``) naming the file, line and field: a missing column, an empty item,
        coder or option, a rank that is not a number or below 1, an option ranked twice by
        one coder in one item.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "ranks.csv"
    >>> _ = path.write_text("item,coder,option,rank\\n"
    ...                     "q,ann,a,1\\nq,ann,b,2\\nq,bob,a,2\\nq,bob,b,1\\n")
    >>> read_rankings(path).slot_midrank.tolist()
    [1.0, 2.0, 2.0, 1.0]
    """
    path = Path(path)
    rows, _ = read_rows(path, RANKING_FIELDS, "ranking")
    items: list[str] = []
    coders: list[str] = []
    options: list[str] = []
    ranks: list[float] = []
    seen: dict[tuple[str, str, str], int] = {}
    for line, row in rows:
        where = f"{path}, line {line}"
        item = identifier(row["item"], "item", where)
        coder = identifier(row["coder"], "coder", where)
        option = identifier(row["option"], "option", where)
        rank = number(row["rank"], "rank", where)
        if rank < 1:
            raise InputError(f"{where}, field 'rank': ranks start at 1 (the best); got {rank:g}.")
        key = (item, coder, option)
        if key in seen:
            raise InputError(
                f"{where}, field 'option': coder {coder!r} already ranked option {option!r} of "
                f"item {item!r} on line {seen[key]}."
            )
        seen[key] = line
        items.append(item)
        coders.append(coder)
        options.append(option)
        ranks.append(rank)
    return RankingData.from_long(items, coders, options, ranks)
