"""Formatting filters for the study pages: numbers, intervals, trends, matrix cells."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django import template
from django.utils.html import escape, format_html

from pages.number_text import number_text, percent_text, precise_text, signed_text

register = template.Library()

TREND_ARROWS = {"up": "▲", "down": "▼", "flat": "▶"}
TREND_WORDS = {"up": "up", "down": "down", "flat": "no change"}


@register.filter
def num(value: float | int | None, digits: int = 3) -> str:
    """A coefficient with ``digits`` decimals; an em dash when there is none; never -0.000."""
    if isinstance(value, str):
        return value
    return number_text(value, digits)


@register.filter
def coefficient_title(key: str | None) -> str:
    """A stored coefficient key as people read it ("kappa" → "Cohen's kappa / multi-kappa")."""
    from pages.selectors import coefficient_name

    return coefficient_name(key or "")


@register.filter
def precise(value: float | int | None) -> str:
    """A number with the decimals its size needs: three, or three significant digits below
    0.1 (0.00234, not 0.002)."""
    return precise_text(value)


@register.filter
def percent(value: float | None, digits: int = 1) -> str:
    return percent_text(value, digits)


@register.filter
def interval(ci: Mapping[str, Any] | None, digits: int = 3) -> str:
    """``[low, high]`` of a CI mapping (``low``/``high``), or an em dash."""
    if not ci or ci.get("low") is None or ci.get("high") is None:
        return "—"
    return f"[{num(ci['low'], digits)}, {num(ci['high'], digits)}]"


@register.filter
def level(ci: Mapping[str, Any] | None) -> str:
    """ "95 % bca" for a CI with its confidence level and method."""
    confidence = confidence_of(ci)
    if confidence is None:
        return ""
    method = f" {ci['method']}" if ci and ci.get("method") else ""
    return f"{100 * confidence:g} %{method}"


@register.filter
def confidence_of(stored: Mapping[str, Any] | None) -> float | None:
    """The confidence level of a stored interval: ``confidence``, or ``level`` in results
    stored before the metrics library renamed it."""
    if not stored:
        return None
    value = stored.get("confidence", stored.get("level"))
    return None if value is None else float(value)


@register.filter
def trend_arrow(direction: str | None) -> str:
    return TREND_ARROWS.get(direction or "", "")


@register.filter
def trend_word(direction: str | None) -> str:
    return TREND_WORDS.get(direction or "", "no previous round")


@register.filter
def cell(row: Sequence[Any], index: int) -> Any:
    """``row[index]`` in a template (matrix cells)."""
    try:
        return row[int(index)]
    except (IndexError, TypeError, ValueError):
        return None


@register.filter
def get(mapping: Mapping[str, Any] | None, key: str) -> Any:
    if not mapping:
        return None
    return mapping.get(key)


@register.filter
def signed(value: float | None, digits: int = 3) -> str:
    return signed_text(value, digits)


@register.filter
def offset(value: float | None, unit: str = "") -> str:
    """A span offset: an integer bare ("12"), a fraction with its decimals ("1.250")."""
    if value is None:
        return number_text(None)
    from pages.span_charts import offset_text

    return offset_text(float(value), unit)


#: Longest text excerpt shown in the document view's tables.
EXCERPT_LENGTH = 80


@register.filter
def excerpt(text: str | None, span: Any) -> str:
    """The characters ``[span.begin, span.end)`` of ``text``, shortened in the middle."""
    if not text:
        return ""
    piece = text[max(int(span.begin), 0) : max(int(span.end), 0)]
    if len(piece) <= EXCERPT_LENGTH:
        return piece
    half = EXCERPT_LENGTH // 2 - 1
    return f"{piece[:half]} … {piece[-half:]}"


@register.filter
def term(name: str) -> str:
    """ "D_o" as D<sub>o</sub> (the observed and expected terms of a coefficient)."""
    letter, _, index = str(name).partition("_")
    if not index:
        return escape(letter)
    return format_html("{}<sub>{}</sub>", letter, index)


@register.filter
def coder_count(coders: Any) -> str:
    """How many coders a stored document entry names (a count or a list of coders)."""
    if coders is None:
        return number_text(None)
    if isinstance(coders, int | float):
        return str(int(coders))
    try:
        return str(len(coders))
    except TypeError:
        return str(coders)


@register.inclusion_tag("admin/studies/study/history.html")
def admin_study_history(study: Any) -> dict[str, Any]:
    """The study admin's history block (chart, latest results, computations)."""
    from pages.admin_history import study_history_context

    return study_history_context(study)
