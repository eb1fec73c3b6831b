"""Relations drawn as arcs between units on a document, as server-side SVG: one lane per
coder, the document's offsets across the width, each unit a bar and each relation an arc
from its head to its tail (an arrowhead at the tail) with its label at the top.

As the other charts (``pages.charts``): a ``<title>`` and ``<desc>``, a ``<title>`` on every
mark with its offsets, and a table of the same relations beside it on the page. When the
document's text is short enough to read on one line, it is written under each lane in a
monospace font stretched to the width, so that every character sits at its offset; the
units' texts are in the table whatever the length. Colours are the coders' (Okabe–Ito).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

WIDTH = 960
LEFT, RIGHT, TOP = 120, 20, 24
ARC_SPACE, BAR, TEXT_ROW, GAP = 70, 10, 18, 10
#: The longest text written under a lane (longer ones would be unreadable on one line).
MAX_LINE = 160


def _number(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _extent(drawings: Sequence[Any], text: str | None) -> float:
    ends = [
        float(end)
        for drawing in drawings
        for shape in drawing.shapes
        if shape.get("type") == "arc"
        for end in (shape["head"][1], shape["tail"][1])
    ]
    return max([float(len(text)) if text else 0.0, *ends, 1.0])


def relation_arcs(drawings: Sequence[Any], text: str | None, *, chart_id: str) -> SafeString:
    """The SVG of every coder's relations on one document (see the module docstring);
    ``drawings`` are the page's coder drawings, their shapes ``{"type": "arc", "head":
    [begin, end], "tail": [begin, end], "label"}``."""
    end = _extent(drawings, text)
    plot_w = WIDTH - LEFT - RIGHT
    written = bool(text) and len(text or "") <= MAX_LINE
    lane = ARC_SPACE + BAR + (TEXT_ROW if written else 0) + GAP
    height = TOP + lane * max(len(drawings), 1)

    def x(offset: float) -> float:
        return LEFT + plot_w * min(max(offset, 0.0), end) / end

    parts = [
        f'<svg id="{chart_id}" class="chart relation-arcs" viewBox="0 0 {WIDTH} {height}" '
        f'role="img" aria-labelledby="{chart_id}-title {chart_id}-desc">',
        f'<title id="{chart_id}-title">Relations by coder</title>',
        f'<desc id="{chart_id}-desc">One lane per coder: the document\'s offsets 0 to '
        f"{_number(end)} across; a bar per unit, an arc from each relation's head to its tail "
        "(arrowhead at the tail), its label above. The table below lists the same relations."
        "</desc>",
        f'<defs><marker id="{chart_id}-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
        'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
        '<path d="M 0 0 L 10 5 L 0 10 z" fill="#333333"/></marker></defs>',
    ]
    for index, drawing in enumerate(drawings):
        top = TOP + index * lane
        base = top + ARC_SPACE
        colour = escape(drawing.colour)
        coder = escape(drawing.coder)
        parts.append(f'<g class="relation-lane" data-coder="{coder}">')
        parts.append(
            f'<text class="lane-name" x="{LEFT - 8}" y="{_number(base + BAR)}" '
            f'text-anchor="end">{coder}</text>'
        )
        parts.append(
            f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{_number(base + BAR / 2)}" '
            f'y2="{_number(base + BAR / 2)}" stroke="#BBBBBB"/>'
        )
        arcs = [shape for shape in drawing.shapes if shape.get("type") == "arc"]
        if not arcs:
            parts.append(
                f'<text class="lane-note" x="{LEFT + 4}" y="{_number(base - 6)}">'
                "annotated, no relation</text>"
            )
        units = sorted({tuple(shape[end_]) for shape in arcs for end_ in ("head", "tail")})
        for begin, stop in units:
            width = max(x(stop) - x(begin), 2.0)
            parts.append(
                f'<rect class="unit" x="{_number(x(begin))}" y="{base}" width="{_number(width)}" '
                f'height="{BAR}" fill="{colour}" fill-opacity="0.35" stroke="{colour}">'
                f"<title>{coder}: unit {_number(begin)}–{_number(stop)}</title></rect>"
            )
        for shape in arcs:
            (hb, he), (tb, te) = shape["head"], shape["tail"]
            x0, x1 = x((hb + he) / 2), x((tb + te) / 2)
            rise = min(ARC_SPACE - 14, 12 + abs(x1 - x0) / 3)
            label = escape(shape["label"])
            parts.append(
                f'<path class="arc" d="M {_number(x0)} {base} C {_number(x0)} '
                f"{_number(base - rise)} {_number(x1)} {_number(base - rise)} {_number(x1)} "
                f'{base}" fill="none" stroke="{colour}" stroke-width="1.6" '
                f'marker-end="url(#{chart_id}-arrow)"><title>{coder}: {_number(hb)}–'
                f"{_number(he)} → {_number(tb)}–{_number(te)} {label}</title></path>"
            )
            parts.append(
                f'<text class="arc-label" x="{_number((x0 + x1) / 2)}" '
                f'y="{_number(base - rise * 0.75 - 3)}" text-anchor="middle">{label}</text>'
            )
        if written:
            parts.append(
                f'<text class="relation-text" x="{LEFT}" y="{_number(base + BAR + TEXT_ROW - 4)}" '
                f'font-family="monospace" textLength="{plot_w}" '
                f'lengthAdjust="spacingAndGlyphs" xml:space="preserve">{escape(text or "")}</text>'
            )
        parts.append("</g>")
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped


def _excerpt(text: str | None, begin: float, end: float) -> str:
    if not text:
        return ""
    return text[int(begin) : int(end)]


def relation_rows(drawings: Sequence[Any], text: str | None) -> list[dict[str, Any]]:
    """Each coder's relations as the table beside the arcs lists them: offsets, the units'
    texts and the label; a coder who related nothing gets one row saying so."""
    rows: list[dict[str, Any]] = []
    for drawing in drawings:
        arcs = [shape for shape in drawing.shapes if shape.get("type") == "arc"]
        if not arcs:
            rows.append({"coder": drawing.coder, "nothing": True})
        for shape in arcs:
            (hb, he), (tb, te) = shape["head"], shape["tail"]
            rows.append(
                {
                    "coder": drawing.coder,
                    "nothing": False,
                    "head": f"{_number(hb)}–{_number(he)}",
                    "tail": f"{_number(tb)}–{_number(te)}",
                    "head_text": _excerpt(text, hb, he),
                    "tail_text": _excerpt(text, tb, te),
                    "label": shape["label"],
                }
            )
    return rows
