"""The hint every "unknown category" error carries: the declared code closest to the one
given (``difflib.get_close_matches``, its default cutoff of 0.6), or, when none is close,
the declared codes themselves (the first ten)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from functools import lru_cache

LISTED = 10


def category_hint(code: str, codes: Iterable[str]) -> str:
    """``(closest: 'positive')``, ``(declared: 'a', 'b')`` or ``(none declared)``.

    Examples
    --------
    >>> category_hint("psotive", ["negative", "positive"])
    "(closest: 'positive')"
    >>> category_hint("zzz", ["negative", "positive"])
    "(declared: 'negative', 'positive')"
    """
    return _hint(code, tuple(codes))


@lru_cache(maxsize=4096)  # an upload repeats its typo on many rows
def _hint(code: str, codes: tuple[str, ...]) -> str:
    if not codes:
        return "(none declared)"
    close = difflib.get_close_matches(code, codes, n=1)
    if close:
        return f"(closest: {close[0]!r})"
    listed = ", ".join(repr(known) for known in codes[:LISTED])
    more = f", and {len(codes) - LISTED} more" if len(codes) > LISTED else ""
    return f"(declared: {listed}{more})"


def not_a_category(code: object, codes: Iterable[str]) -> str:
    """The one message of an unknown category code (as written: text, or a number).

    >>> not_a_category("Postive", ["negative", "neutral", "positive"])
    "'Postive' is not a category of this question (closest: 'positive')."
    """
    hint = category_hint(str(code).strip(), codes)
    return f"{code!r} is not a category of this question {hint}."


def unknown_field(name: str, fields: Iterable[str]) -> str:
    """The one message of a request field nobody declared: the closest declared name, or
    the declared names when none is close.

    >>> unknown_field("min_overlpa", ["bootstrap", "min_overlap", "seed"])
    "Unknown field: 'min_overlpa'; did you mean 'min_overlap'?"
    >>> unknown_field("zzz", ["bootstrap", "seed"])
    "Unknown field: 'zzz'; the fields are: bootstrap, seed."
    """
    known = sorted(fields)
    close = difflib.get_close_matches(name, known, n=1)
    if close:
        return f"Unknown field: {name!r}; did you mean {close[0]!r}?"
    return f"Unknown field: {name!r}; the fields are: {', '.join(known)}."
