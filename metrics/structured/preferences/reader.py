"""Read pairwise preferences from CSV: ``item,coder,choice,shown_first``, one choice per row.

``choice`` is ``A``, ``B`` or ``tie`` (any case); ``shown_first`` is ``A``, ``B`` or empty
(unknown). Optional columns ``option_a,option_b`` name the item's two options (the same on
every row of an item); with them the report adds each coder's circular triads. Every error
names the file, the line and the field.
"""

from __future__ import annotations

from pathlib import Path

from metrics.errors import InputError
from metrics.structured._reader import identifier, read_rows
from metrics.structured.preferences.data import PreferenceData

PREFERENCE_FIELDS = ("item", "coder", "choice", "shown_first")
OPTION_FIELDS = ("option_a", "option_b")

__all__ = ["OPTION_FIELDS", "PREFERENCE_FIELDS", "read_preferences"]

_CHOICES = {"a": "A", "b": "B", "tie": "tie"}


def read_preferences(path: Path | str) -> PreferenceData:
    """Read a CSV file ``item,coder,choice,shown_first[,option_a,option_b]``.

    Raises
    ------
    InputError
        (a ``ValueError``) naming the file, line and field: a missing column, an empty item or
        coder, a choice other than A, B or tie, a ``shown_first`` other than A, B or empty, a
        coder choosing twice on one item, an empty option, options differing between the rows
        of one item, an item comparing an option with itself.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "prefs.csv"
    >>> _ = path.write_text("item,coder,choice,shown_first\\n1,ann,A,A\\n1,bob,Tie,\\n")
    >>> read_preferences(path).choice.tolist()
    [0, 1]
    """
    path = Path(path)
    rows, present = read_rows(path, PREFERENCE_FIELDS, "preference", optional=OPTION_FIELDS)
    with_options = len(present) == 2
    if len(present) == 1:
        raise InputError(f"{path}, line 1: give both option_a and option_b, or neither.")
    items: list[str] = []
    coders: list[str] = []
    choices: list[str] = []
    shown: list[str | None] = []
    first: list[str] = []
    second: list[str] = []
    seen: dict[tuple[str, str], int] = {}
    named: dict[str, tuple[str, str, int]] = {}
    for line, row in rows:
        where = f"{path}, line {line}"
        item = identifier(row["item"], "item", where)
        coder = identifier(row["coder"], "coder", where)
        raw = (row["choice"] or "").strip()
        if raw.lower() not in _CHOICES:
            raise InputError(f"{where}, field 'choice': expected A, B or tie, got {raw!r}.")
        side = (row["shown_first"] or "").strip()
        if side.upper() not in ("A", "B", ""):
            raise InputError(f"{where}, field 'shown_first': expected A, B or empty, got {side!r}.")
        if (item, coder) in seen:
            raise InputError(
                f"{where}, field 'coder': coder {coder!r} already chose on item {item!r} on line "
                f"{seen[item, coder]}."
            )
        seen[item, coder] = line
        if with_options:
            a = identifier(row["option_a"], "option_a", where)
            b = identifier(row["option_b"], "option_b", where)
            if a == b:
                raise InputError(f"{where}, field 'option_b': the same option as option_a ({a!r}).")
            if item in named and named[item][:2] != (a, b):
                earlier = named[item]
                raise InputError(
                    f"{where}, field 'option_a': item {item!r} compares {earlier[0]!r} and "
                    f"{earlier[1]!r} on line {earlier[2]}, not {a!r} and {b!r}."
                )
            named.setdefault(item, (a, b, line))
            first.append(a)
            second.append(b)
        items.append(item)
        coders.append(coder)
        choices.append(_CHOICES[raw.lower()])
        shown.append(side.upper() or None)
    return PreferenceData.from_long(
        items,
        coders,
        choices,
        shown,
        option_a=first if with_options else None,
        option_b=second if with_options else None,
    )
