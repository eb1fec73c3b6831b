"""The coder page's chart: every coder's mean agreement with the others, round after round.

It reads like the study's history charts (``pages.charts``: same colours and dashes, a
``<title>`` on every point, Krippendorff's 0.667 and 0.8 as dashed lines) but keeps its words
clear of the marks at any width: the points sit inside the plot, away from its right edge
where the reference lines are labelled, and the legend is an HTML list under the chart that
wraps, so a long coder key is never cut off by the drawing's edge.
"""

from __future__ import annotations

import math

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from pages.charts import DASHES, PALETTE
from pages.number_text import number_text
from pages.selectors import REFERENCE_LINES, CoefficientHistory

WIDTH, HEIGHT = 560, 300
LEFT, RIGHT, TOP, BOTTOM = 52, 46, 16, 50
#: The points' distance from the plot's left and right edges.
INSET = 28
FONT = 13


def _y_range(history: CoefficientHistory) -> tuple[float, float]:
    values = [p.value for s in history.series for p in s.points if p.value is not None]
    return math.floor(min([0.0, *values]) * 5) / 5, math.ceil(max([1.0, *values]) * 5) / 5


def _runs(points: list[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    """Runs of consecutive known points (a round without a value breaks the line)."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point is None:
            runs.append([])
        else:
            runs[-1].append(point)
    return [run for run in runs if run]


def coder_chart(history: CoefficientHistory, *, chart_id: str, desc: str) -> SafeString:
    """The chart (an ``svg``) and its legend (a ``ul``), one line per coder."""
    rounds = history.rounds
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    low, high = _y_range(history)

    def x(index: int) -> float:
        if len(rounds) <= 1:
            return LEFT + plot_w / 2
        return LEFT + INSET + (plot_w - 2 * INSET) * index / (len(rounds) - 1)

    def y(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    cid = escape(chart_id)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart history-chart coder-chart" '
        f'role="img" id="{cid}" data-coefficient="{escape(history.coefficient)}" '
        f'data-rounds="{len(rounds)}" data-series="{len(history.series)}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'aria-labelledby="{cid}-title {cid}-desc">',
        f'<title id="{cid}-title">{escape(history.name)} by round</title>',
        f'<desc id="{cid}-desc">{escape(desc)}</desc>',
        f'<rect class="plot-area" x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" '
        'fill="#fff" stroke="#999"/>',
    ]
    step = 0.2 if high - low > 0.6 else 0.1
    for n in range(round((high - low) / step) + 1):
        tick = round(low + n * step, 6)
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}" stroke="#e5e5e5"/><text class="y-tick" x="{LEFT - 6}" '
            f'y="{y(tick) + 4:.1f}" text-anchor="end" font-size="{FONT}">{tick:.1f}</text>'
        )
    for reference in REFERENCE_LINES:
        if low <= reference <= high:
            parts.append(
                f'<line class="reference-line" data-value="{reference}" x1="{LEFT}" '
                f'x2="{LEFT + plot_w}" y1="{y(reference):.1f}" y2="{y(reference):.1f}" '
                f'stroke="#555" stroke-dasharray="5 4"><title>Reference line at {reference}'
                f'</title></line><text class="reference-label" x="{LEFT + plot_w + 3}" '
                f'y="{y(reference) + 4:.1f}" font-size="{FONT - 2}" fill="#555">'
                f"{reference}</text>"
            )
    for index, name in enumerate(rounds):
        parts.append(
            f'<text class="round-tick" x="{x(index):.1f}" y="{TOP + plot_h + 18}" '
            f'text-anchor="middle" font-size="{FONT}">{escape(name)}</text>'
        )
    parts.append(
        f'<text class="axis-label" x="{LEFT + plot_w / 2}" y="{HEIGHT - 8}" '
        f'text-anchor="middle" font-size="{FONT}">Round</text>'
    )
    legend = []
    for number, series in enumerate(history.series):
        colour, dash = PALETTE[number % len(PALETTE)], DASHES[number % len(DASHES)]
        key = escape(series.question_key)
        parts.append(f'<g class="series" data-question="{key}">')
        known = [(x(i), y(p.value)) if p.value is not None else None
                 for i, p in enumerate(series.points)]  # fmt: skip
        for run in _runs(known):
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in run)
            parts.append(
                f'<polyline class="series-line" points="{path}" fill="none" '
                f'stroke="{colour}" stroke-width="2" stroke-dasharray="{dash}"/>'
            )
        for i, p in enumerate(series.points):
            if p.value is not None:
                parts.append(
                    f'<circle class="point" cx="{x(i):.1f}" cy="{y(p.value):.1f}" r="4" '
                    f'fill="{colour}" data-value="{p.value}"><title>{key}, '
                    f"{escape(p.round_name)}: {number_text(p.value)}</title></circle>"
                )
        parts.append("</g>")
        legend.append(
            f'<li data-coder="{key}"><svg class="legend-line" width="26" height="10" '
            f'aria-hidden="true"><line x1="1" x2="25" y1="5" y2="5" stroke="{colour}" '
            f'stroke-width="2" stroke-dasharray="{dash}"/></svg> {key}</li>'
        )
    parts.append("</svg>")
    parts.append(f'<ul class="chart-legend" aria-label="Lines">{"".join(legend)}</ul>')
    return mark_safe("".join(parts))  # every text above is escaped
