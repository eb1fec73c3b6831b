"""The document view's lanes as server-side SVG: a ruler over the item's extent, one lane per
coder with their units as bars coloured by category, and a lane of disputed stretches.

As the other charts (``pages.charts``): a ``<title>`` and ``<desc>``, a ``<title>`` on every
mark with its numbers, and a table of the same units beside it on the page. Colours are the
Okabe–Ito palette; a disagreement is also drawn as a dashed outline and written in the mark's
title, so colour is never the only cue.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from pages.charts import PALETTE
from pages.number_text import number_text
from pages.span_document import SpanDocument, UnitView

WIDTH = 960
LEFT, RIGHT, TOP = 130, 20, 40
LANE, BAR_GAP = 30, 4
DISPUTE = "#B00020"


def offset_text(value: float, unit: str) -> str:
    """An offset as the page writes it: integers bare, seconds with up to 3 decimals."""
    if float(value).is_integer():
        return str(int(value))
    return number_text(value, 3 if unit == "second" else 2)


def nice_ticks(begin: float, end: float, target: int = 10) -> list[float]:
    """Round offsets (1, 2 or 5 times a power of ten apart) from ``begin`` to ``end``."""
    span = end - begin
    if span <= 0:
        return [begin]
    raw = span / target
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 5, 10) if m * power >= raw)
    first = math.ceil(begin / step) * step
    count = math.floor((end - first) / step + 1e-9) + 1
    return [round(first + i * step, 9) for i in range(count)]


def _rows(units: list[UnitView]) -> list[int]:
    """A sub-row per unit so that overlapping units of one coder do not hide each other."""
    ends: list[float] = []
    rows = []
    for unit in units:
        for row, end in enumerate(ends):
            if end <= unit.begin:
                ends[row] = unit.end
                rows.append(row)
                break
        else:
            ends.append(unit.end)
            rows.append(len(ends) - 1)
    return rows


def document_lanes(document: SpanDocument, *, chart_id: str = "document-lanes") -> SafeString:
    """The SVG of a document view (see module docstring)."""
    begin, end = document.extent
    plot_w = WIDTH - LEFT - RIGHT
    unit = document.unit

    def x(value: float) -> float:
        clamped = min(max(value, begin), end)
        return LEFT + plot_w * (clamped - begin) / (end - begin)

    layout = []
    y = TOP + LANE  # the disputed lane comes first
    for lane in document.lanes:
        rows = _rows(lane.units)
        height = LANE * max(1, max(rows, default=0) + 1)
        layout.append((lane, rows, y, height))
        y += height
    height = y + 40
    desc = (
        f"Units of {len(document.annotating)} coders on {document.item.external_id}, "
        f"{offset_text(begin, unit)} to {offset_text(end, unit)} {document.unit_name}; one "
        "lane per coder, bars coloured by category, disagreements outlined with dashes; the "
        f"top lane marks {len(document.stretches)} disputed stretches. The tables below list "
        "the same units."
    )
    cid = escape(chart_id)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart document-lanes" role="img" '
        f'id="{cid}" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" height="{height}" '
        f'data-lanes="{len(document.lanes)}" aria-labelledby="{cid}-title {cid}-desc">',
        f'<title id="{cid}-title">Units by coder on {escape(document.item.external_id)}</title>',
        f'<desc id="{cid}-desc">{escape(desc)}</desc>',
    ]
    for tick in nice_ticks(begin, end):
        tx = x(tick)
        parts.append(
            f'<line class="grid" x1="{tx:.1f}" x2="{tx:.1f}" y1="{TOP - 4}" y2="{y}" '
            'stroke="#e5e5e5"/>'
            f'<text class="ruler-tick" x="{tx:.1f}" y="{TOP - 8}" text-anchor="middle" '
            f'font-size="11">{escape(offset_text(tick, unit))}</text>'
        )
    parts.append(
        f'<text class="axis-label" x="{LEFT + plot_w / 2}" y="{height - 8}" '
        f'text-anchor="middle" font-size="12">Offset ({escape(document.unit_name)})</text>'
    )
    parts.append(_disputed_lane(document, x))
    for lane, rows, top, lane_height in layout:
        parts.append(
            f'<g class="lane" data-coder="{escape(lane.coder)}">'
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{top + lane_height}" '
            f'y2="{top + lane_height}" stroke="#ddd"/>'
            f'<text class="lane-label" x="{LEFT - 8}" y="{top + LANE / 2 + 4}" '
            f'text-anchor="end" font-size="12">{escape(lane.coder)}</text>'
        )
        if not lane.annotated or not lane.units:
            note = "not annotated" if not lane.annotated else "annotated, nothing found"
            parts.append(
                f'<text class="lane-note" x="{LEFT + 6}" y="{top + LANE / 2 + 4}" '
                f'font-size="11" fill="#666" font-style="italic">{note}</text>'
            )
        for unit_view, row in zip(lane.units, rows, strict=True):
            parts.append(_bar(unit_view, lane.coder, x, top + row * LANE, unit))
        parts.append("</g>")
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped


def _bar(
    unit_view: UnitView, coder: str, x: Callable[[float], float], top: float, unit: str
) -> str:
    x0, x1 = x(unit_view.begin), x(unit_view.end)
    width = max(x1 - x0, 2.0)
    colour = PALETTE[unit_view.category.colour % len(PALETTE)]
    outline = (
        f'stroke="{DISPUTE}" stroke-width="2" stroke-dasharray="4 2"'
        if unit_view.flags
        else 'stroke="#fff" stroke-width="1"'
    )
    span = f"{offset_text(unit_view.begin, unit)}–{offset_text(unit_view.end, unit)}"
    note = f"; {unit_view.note}" if unit_view.note else ""
    title = f"{coder}: {unit_view.category.code}, {span}{note}"
    label = ""
    code = unit_view.category.code
    classes = f"unit {unit_view.flag_classes}".strip()
    if width >= 7 * len(code) + 6:
        label = (
            f'<text class="bar-label" x="{x0 + 4:.1f}" y="{top + LANE / 2 + 4}" '
            'font-size="11" fill="#000" stroke="#fff" stroke-width="3" '
            f'paint-order="stroke">{escape(code)}</text>'
        )
    return (
        f'<g class="{classes}" data-category="{escape(code)}" '
        f'data-begin="{unit_view.begin:g}" data-end="{unit_view.end:g}">'
        f'<rect x="{x0:.1f}" y="{top + BAR_GAP}" width="{width:.1f}" '
        f'height="{LANE - 2 * BAR_GAP}" fill="{colour}" fill-opacity="0.85" {outline}/>'
        f"{label}<title>{escape(title)}</title></g>"
    )


def _disputed_lane(document: SpanDocument, x: Callable[[float], float]) -> str:
    top = TOP
    parts = [
        '<g class="lane disputed-lane">'
        f'<rect x="{LEFT}" y="{top + BAR_GAP}" width="{WIDTH - LEFT - RIGHT}" '
        f'height="{LANE - 2 * BAR_GAP}" fill="#f6f6f6"/>'
        f'<text class="lane-label" x="{LEFT - 8}" y="{top + LANE / 2 + 4}" '
        f'text-anchor="end" font-size="12" fill="{DISPUTE}">disputed</text>'
    ]
    for stretch in document.stretches:
        x0, x1 = x(stretch.begin), x(stretch.end)
        who = "; ".join(f"{coder}: {cats or 'nothing'}" for coder, cats in stretch.categories)
        span = (
            f"{offset_text(stretch.begin, document.unit)}–{offset_text(stretch.end, document.unit)}"
        )
        parts.append(
            f'<rect class="stretch" x="{x0:.1f}" y="{top + BAR_GAP}" '
            f'width="{max(x1 - x0, 2.0):.1f}" height="{LANE - 2 * BAR_GAP}" '
            f'fill="{DISPUTE}" fill-opacity="0.55" data-begin="{stretch.begin:g}" '
            f'data-end="{stretch.end:g}"><title>Disputed {escape(span)}: '
            f"{escape(who)}</title></rect>"
        )
    for split in document.splits:
        sx = x(split)
        parts.append(
            f'<line class="split" x1="{sx:.1f}" x2="{sx:.1f}" y1="{top + 2}" '
            f'y2="{top + LANE - 2}" stroke="{DISPUTE}" stroke-width="2">'
            f"<title>Split at {escape(offset_text(split, document.unit))}: some coders "
            "begin or end a unit here, others do not</title></line>"
        )
    parts.append("</g>")
    return "".join(parts)
