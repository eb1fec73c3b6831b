"""How the pages write numbers: fixed decimals, an em dash for none, and never a negative
zero (a value that rounds to zero is written "0.000", not "-0.000")."""

from __future__ import annotations

import math

NONE = "—"


def _defined(value: float | int | None) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number


def _unsigned_zero(text: str) -> str:
    """ "-0.000" → "0.000" ("-0.001" unchanged): the minus of a value that rounds to zero."""
    if text.startswith(("-", "+")) and not any(ch in "123456789" for ch in text):
        return text[1:]
    return text


def number_text(value: float | int | None, digits: int = 3) -> str:
    """``value`` with ``digits`` decimals; an em dash when there is none (None, NaN, ±inf)."""
    number = _defined(value)
    if number is None:
        return NONE
    return _unsigned_zero(f"{number:.{int(digits)}f}")


def signed_text(value: float | int | None, digits: int = 3) -> str:
    """A difference with its sign ("+0.120", "-0.050"); a zero has none ("0.000")."""
    number = _defined(value)
    if number is None:
        return NONE
    return _unsigned_zero(f"{number:+.{int(digits)}f}")


def percent_text(value: float | int | None, digits: int = 1) -> str:
    """A share as a percentage ("12.5 %")."""
    number = _defined(value)
    if number is None:
        return NONE
    return f"{number_text(100 * number, digits)} %"


def precise_text(value: float | int | None, significant: int = 3, digits: int = 3) -> str:
    """``digits`` decimals, or more for a small number: enough for ``significant``
    significant digits (0.00234, 0.0451), at most 8 decimals; an em dash for none."""
    number = _defined(value)
    if number is None:
        return NONE
    if number == 0 or abs(number) >= 10 ** -(digits - significant + 1):
        return number_text(number, digits)
    needed = significant - 1 - math.floor(math.log10(abs(number)))
    return number_text(number, min(max(digits, needed), 8))
