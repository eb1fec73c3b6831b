"""Server-side SVG charts: no JavaScript, no CDN, readable by screen readers.

Every chart carries a ``<title>`` and a ``<desc>`` (``aria-labelledby``), axis labels, and a
``<title>`` on each mark with its number; the pages put a table of the same numbers beside
every chart. Inputs are plain data from ``pages.selectors``; nothing here queries.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from pages.number_text import number_text as _number
from pages.selectors import REFERENCE_LINES, CoefficientHistory, Matrix, Series

#: Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")
DASHES = ("", "6 3", "2 3", "8 3 2 3", "1 2", "10 4", "4 4")

WIDTH, HEIGHT = 680, 320
LEFT, RIGHT, TOP, BOTTOM = 60, 150, 36, 56


def _y_range(history: CoefficientHistory) -> tuple[float, float]:
    values = [
        v
        for series in history.series
        for p in series.points
        for v in (p.value, p.low, p.high)
        if v is not None
    ]
    low = min([0.0, *values])
    high = max([1.0, *values])
    return math.floor(low * 5) / 5, math.ceil(high * 5) / 5


def _ticks(low: float, high: float) -> list[float]:
    step = 0.2 if high - low > 0.6 else 0.1
    count = round((high - low) / step)
    return [round(low + i * step, 6) for i in range(count + 1)]


def _segments(points: Sequence[tuple[float, float] | None]) -> list[list[tuple[float, float]]]:
    """Runs of consecutive known points (a missing round breaks the line)."""
    runs: list[list[tuple[float, float]]] = [[]]
    for point in points:
        if point is None:
            if runs[-1]:
                runs.append([])
        else:
            runs[-1].append(point)
    return [run for run in runs if run]


#: The right margin without a legend inside the chart: room for the reference lines' labels
#: and half of the last round's name.
RIGHT_WITHOUT_LEGEND = 56
#: Round names longer than this are shortened on the axis (the points' titles and the
#: table beside the chart keep them whole).
TICK_CHARS = 14
#: About the width of one character of the axis' 11 px text.
TICK_CHAR_WIDTH = 6.6


def series_style(number: int) -> tuple[str, str]:
    """The colour and dash of the ``number``-th question on every chart (and its legend)."""
    return PALETTE[number % len(PALETTE)], DASHES[number % len(DASHES)]


@dataclass(frozen=True)
class LegendEntry:
    """One line of a history chart's HTML legend (``templates/pages/_history_legend.html``)."""

    key: str  # the question's key (the model page: the model coder's)
    colour: str
    dash: str


def legend_of(histories: Sequence[CoefficientHistory]) -> list[LegendEntry]:
    """Every series drawn on any of these charts (``history_chart(legend=False)``), with its
    colour and dash, in the charts' order: the legend a page lists beside or under them."""
    seen: dict[int, str] = {}
    for history in histories:
        for number, series in enumerate(history.series):
            seen.setdefault(number if series.number is None else series.number, series.question_key)
    return [LegendEntry(key, *series_style(number)) for number, key in sorted(seen.items())]


def _tick_text(name: str) -> str:
    return name if len(name) <= TICK_CHARS else name[: TICK_CHARS - 1] + "…"


def _tick_step(names: Sequence[str], plot_w: float) -> int:
    """Label every ``step``-th round so that no two labels meet, however many rounds."""
    if len(names) <= 1:
        return 1
    widest = max(len(_tick_text(name)) for name in names) * TICK_CHAR_WIDTH + 8
    spacing = plot_w / (len(names) - 1)
    return max(1, math.ceil(widest / spacing))


def history_chart(
    history: CoefficientHistory,
    *,
    chart_id: str,
    desc: str | None = None,
    legend: bool = True,
    width: int = WIDTH,
    height: int = HEIGHT,
    y_label: str | None = None,
) -> SafeString:
    """One coefficient across the study's rounds: a line and a confidence band per question,
    with Krippendorff's 0.667 and 0.8 reference lines when the coefficient is chance-corrected.

    ``legend=False`` leaves the legend to the page (an HTML list beside the charts, which
    never overlaps however many questions); with many rounds only every few rounds are
    named on the axis, so that the names never overlap either.
    """
    rounds = history.rounds
    right = RIGHT if legend else RIGHT_WITHOUT_LEGEND
    plot_w, plot_h = width - LEFT - right, height - TOP - BOTTOM
    low, high = _y_range(history)

    def x(index: int) -> float:
        if len(rounds) <= 1:
            return LEFT + plot_w / 2
        return LEFT + plot_w * index / (len(rounds) - 1)

    def y(value: float) -> float:
        return TOP + plot_h * (high - value) / (high - low)

    title = f"{history.name} by round"
    references = REFERENCE_LINES if history.bands else ()
    desc = desc or (
        f"{history.name} in each of {len(rounds)} rounds, one line per question "
        f"({', '.join(s.question_key for s in history.series) or 'no values yet'}), shaded "
        "bands are confidence intervals"
        + ("; dashed lines mark 0.667 and 0.8" if references else "")
        + ". The table beside the chart lists the same numbers."
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart history-chart" role="img" '
        f'id="{escape(chart_id)}" data-coefficient="{escape(history.coefficient)}" '
        f'data-rounds="{len(rounds)}" data-series="{len(history.series)}" '
        f'viewBox="0 0 {width} {height}" width="{width}" height="{height}" '
        f'aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc">',
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>',
        f'<desc id="{escape(chart_id)}-desc">{escape(desc)}</desc>',
        f'<rect class="plot-area" x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" '
        'fill="#fff" stroke="#999"/>',
    ]
    for tick in _ticks(low, high):
        ty = y(tick)
        parts.append(
            f'<line class="grid" x1="{LEFT}" x2="{LEFT + plot_w}" y1="{ty:.1f}" y2="{ty:.1f}" '
            'stroke="#e5e5e5"/>'
            f'<text class="y-tick" x="{LEFT - 6}" y="{ty + 4:.1f}" text-anchor="end" '
            f'font-size="11">{tick:.1f}</text>'
        )
    for reference in references:
        if low <= reference <= high:
            ry = y(reference)
            parts.append(
                f'<line class="reference-line" data-value="{reference}" x1="{LEFT}" '
                f'x2="{LEFT + plot_w}" y1="{ry:.1f}" y2="{ry:.1f}" stroke="#555" '
                'stroke-dasharray="5 4"><title>Reference line at '
                f"{reference}</title></line>"
                f'<text class="reference-label" x="{LEFT + plot_w + 4}" y="{ry + 4:.1f}" '
                f'font-size="10" fill="#555">{reference}</text>'
            )
    step = _tick_step(rounds, plot_w)
    for index, name in enumerate(rounds):
        if index % step:
            continue
        parts.append(
            f'<text class="round-tick" x="{x(index):.1f}" y="{TOP + plot_h + 16}" '
            f'text-anchor="middle" font-size="11">{escape(_tick_text(name))}</text>'
        )
    parts.append(
        f'<text class="axis-label" x="{LEFT + plot_w / 2}" y="{height - 10}" '
        'text-anchor="middle" font-size="12">Round</text>'
        f'<text class="axis-label" transform="translate(14 {TOP + plot_h / 2}) rotate(-90)" '
        f'text-anchor="middle" font-size="12">{escape(y_label or history.name)}</text>'
    )
    for number, series in enumerate(history.series):
        parts.extend(
            _series_marks(
                series,
                number if series.number is None else series.number,
                x,
                y,
                legend_x=LEFT + plot_w if legend else None,
                legend_row=number,
            )
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped


def _series_marks(
    series: Series,
    number: int,
    x: Callable[[int], float],
    y: Callable[[float], float],
    *,
    legend_x: float | None,
    legend_row: int,
) -> list[str]:
    """One question's band, line, points (each with its number) and legend entry (none when
    ``legend_x`` is None: the page lists the legend)."""
    out: list[str] = []
    colour, dash = series_style(number)
    key = escape(series.question_key)
    out.append(f'<g class="series" data-question="{key}">')
    bands = _segments(
        [
            (x(i), i) if p.low is not None and p.high is not None else None
            for i, p in enumerate(series.points)
        ]
    )
    for run in bands:
        indexes = [int(i) for _, i in run]
        upper = [(x(i), y(series.points[i].high or 0.0)) for i in indexes]
        lower = [(x(i), y(series.points[i].low or 0.0)) for i in reversed(indexes)]
        if len(indexes) == 1:  # a single round: a short vertical bar
            (bx, by1), (_, by2) = upper[0], lower[0]
            out.append(
                f'<rect class="ci-band" x="{bx - 6:.1f}" y="{by1:.1f}" width="12" '
                f'height="{max(by2 - by1, 1):.1f}" fill="{colour}" fill-opacity="0.18"/>'
            )
            continue
        points = " ".join(f"{px:.1f},{py:.1f}" for px, py in upper + lower)
        out.append(
            f'<polygon class="ci-band" points="{points}" fill="{colour}" '
            'fill-opacity="0.18" stroke="none"/>'
        )
    known = [
        (x(i), y(p.value)) if p.value is not None else None for i, p in enumerate(series.points)
    ]
    for run in _segments(known):
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in run)
        out.append(
            f'<polyline class="series-line" points="{path}" fill="none" stroke="{colour}" '
            f'stroke-width="2" stroke-dasharray="{dash}"/>'
        )
    for i, p in enumerate(series.points):
        if p.value is None:
            continue
        interval = (
            f", interval {_number(p.low)} to {_number(p.high)}"
            if p.low is not None and p.high is not None
            else ""
        )
        out.append(
            f'<circle class="point" cx="{x(i):.1f}" cy="{y(p.value):.1f}" r="4" '
            f'fill="{colour}" data-value="{p.value}"><title>{key}, '
            f"{escape(p.round_name)}: {_number(p.value)}{escape(interval)}</title></circle>"
        )
    if legend_x is None:
        out.append("</g>")
        return out
    legend_y = TOP + 14 + 18 * legend_row
    out.append(
        f'<line x1="{legend_x + 30}" x2="{legend_x + 52}" y1="{legend_y - 4}" '
        f'y2="{legend_y - 4}" stroke="{colour}" stroke-width="2" '
        f'stroke-dasharray="{dash}"/><text class="legend" x="{legend_x + 56}" '
        f'y="{legend_y}" font-size="11">{key}</text></g>'
    )
    return out


def _cell_colour(value: float | None) -> str:
    if value is None:
        return "#f0f0f0"
    v = max(-1.0, min(1.0, value))
    if v >= 0:  # white to blue
        r, g, b = (int(255 - (255 - c) * v) for c in (0x08, 0x51, 0x9C))
    else:  # white to orange
        r, g, b = (int(255 - (255 - c) * -v) for c in (0xD5, 0x5E, 0x00))
    return f"#{r:02x}{g:02x}{b:02x}"


#: A heatmap label's width per character at 11 px (DejaVu Sans' widest letters are ~10 px,
#: its average ~6.5 px), and the longest label drawn in full.
LABEL_CHAR = 7
LABEL_CHARS = 28


def _short(label: str) -> str:
    """A label cut to ``LABEL_CHARS`` characters (its full text is the mark's title)."""
    return label if len(label) <= LABEL_CHARS else label[: LABEL_CHARS - 1] + "…"


def _full(label: str, shown: str) -> str:
    return "" if label == shown else f"<title>{escape(label)}</title>"


def heatmap(
    matrix: Matrix, *, chart_id: str, title: str, desc: str, digits: int = 2, scale: bool = True
) -> SafeString:
    """A matrix as coloured cells with their numbers (coder × coder agreement, coincidences).

    ``scale`` colours values in [-1, 1]; without it, cells are coloured relative to the
    largest value (counts).
    """
    size = 46
    # Margins as wide as the longest label (a generous 7 px a character at 11 px), so that no
    # label is cut off; column labels stand upright, one per column, so none overlaps another.
    columns = [_short(column) for column in matrix.columns]
    rows = [_short(row) for row in matrix.rows]
    left = 16 + LABEL_CHAR * max((len(row) for row in rows), default=0)
    top = 16 + LABEL_CHAR * max((len(column) for column in columns), default=0)
    width = left + size * len(matrix.columns) + 10
    height = top + size * len(matrix.rows) + 10
    largest = (
        max((abs(v) for row in matrix.values for v in row if v is not None), default=1.0) or 1.0
    )
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart heatmap" role="img" '
        f'id="{escape(chart_id)}" viewBox="0 0 {width} {height}" width="{width}" '
        f'height="{height}" aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc">',
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>',
        f'<desc id="{escape(chart_id)}-desc">{escape(desc)}</desc>',
    ]
    for j, column in enumerate(columns):
        cx = left + size * j + size / 2
        parts.append(
            f'<text class="column-label" transform="translate({cx + 4:.1f} {top - 6}) '
            f'rotate(-90)" font-size="11">{escape(column)}{_full(matrix.columns[j], column)}'
            "</text>"
        )
    for i, row in enumerate(matrix.rows):
        cy = top + size * i
        parts.append(
            f'<text class="row-label" x="{left - 6}" y="{cy + size / 2 + 4:.1f}" '
            f'text-anchor="end" font-size="11">{escape(rows[i])}{_full(row, rows[i])}</text>'
        )
        for j, value in enumerate(matrix.values[i]):
            shade = value if scale or value is None else value / largest
            colour = _cell_colour(shade)
            dark = shade is not None and shade > 0.55
            parts.append(
                f'<g class="cell"><rect x="{left + size * j}" y="{cy}" width="{size}" '
                f'height="{size}" fill="{colour}" stroke="#fff"/>'
                f'<text x="{left + size * j + size / 2:.1f}" y="{cy + size / 2 + 4:.1f}" '
                f'text-anchor="middle" font-size="11" fill="{"#fff" if dark else "#000"}">'
                f"{_number(value, digits)}</text><title>{escape(row)} × "
                f"{escape(matrix.columns[j])}: {_number(value, digits)}</title></g>"
            )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped


#: The reliability diagram's square plot.
DIAGRAM_SIDE, DIAGRAM_MARGIN = 320, 56


def reliability_diagram(
    bins: Sequence[tuple[float, float, int]], *, chart_id: str, desc: str
) -> SafeString:
    """A model's calibration: per equal-mass bin ``(mean confidence, accuracy, count)``, a
    dot at (confidence, accuracy) and its gap to the diagonal, on which a calibrated model's
    dots lie (below it: over-confident; above: under-confident)."""
    side, margin = DIAGRAM_SIDE, DIAGRAM_MARGIN
    size = side + 2 * margin

    def x(value: float) -> float:
        return margin + side * value

    def y(value: float) -> float:
        return margin + side * (1 - value)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="chart reliability-diagram" role="img" '
        f'id="{escape(chart_id)}" data-bins="{len(bins)}" viewBox="0 0 {size} {size}" '
        f'width="{size}" height="{size}" '
        f'aria-labelledby="{escape(chart_id)}-title {escape(chart_id)}-desc">',
        f'<title id="{escape(chart_id)}-title">Reliability diagram</title>',
        f'<desc id="{escape(chart_id)}-desc">{escape(desc)}</desc>',
        f'<rect class="plot-area" x="{margin}" y="{margin}" width="{side}" height="{side}" '
        'fill="#fff" stroke="#999"/>',
    ]
    for tick in _ticks(0.0, 1.0):
        parts.append(
            f'<line class="grid" x1="{margin}" x2="{margin + side}" y1="{y(tick):.1f}" '
            f'y2="{y(tick):.1f}" stroke="#e5e5e5"/>'
            f'<text class="y-tick" x="{margin - 6}" y="{y(tick) + 4:.1f}" text-anchor="end" '
            f'font-size="11">{tick:.1f}</text>'
            f'<text class="x-tick" x="{x(tick):.1f}" y="{margin + side + 16}" '
            f'text-anchor="middle" font-size="11">{tick:.1f}</text>'
        )
    parts.append(
        f'<line class="reference-line" x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" '
        'stroke="#555" stroke-dasharray="5 4"><title>Perfect calibration: accuracy equals '
        "confidence</title></line>"
        f'<text class="axis-label" x="{margin + side / 2}" y="{size - 12}" '
        'text-anchor="middle" font-size="12">Mean confidence of the bin</text>'
        f'<text class="axis-label" transform="translate(16 {margin + side / 2}) rotate(-90)" '
        'text-anchor="middle" font-size="12">Accuracy (against the reference)</text>'
    )
    for confidence, accuracy, count in bins:
        mark = (
            f"Bin of {count} label{'s' if count != 1 else ''}: mean confidence "
            f"{_number(confidence)}, accuracy {_number(accuracy)}"
        )
        parts.append(
            f'<line class="gap" x1="{x(confidence):.1f}" x2="{x(confidence):.1f}" '
            f'y1="{y(confidence):.1f}" y2="{y(accuracy):.1f}" stroke="{PALETTE[1]}" '
            'stroke-width="2"/>'
            f'<circle class="bin" cx="{x(confidence):.1f}" cy="{y(accuracy):.1f}" r="5" '
            f'fill="{PALETTE[0]}" data-count="{count}"><title>{escape(mark)}</title></circle>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped


SPARK_WIDTH, SPARK_HEIGHT, SPARK_PAD = 120, 32, 4


def sparkline(history: CoefficientHistory, *, chart_id: str) -> SafeString:
    """A question's headline coefficient across the rounds, small: one line (a missing round
    breaks it), the last value marked, on the same 0-1 scale as the history charts (so a
    steep line means a large change). ``history`` holds one series."""
    series = history.series[0] if history.series else Series("", [])
    values = [p.value for p in series.points]
    known = [v for v in values if v is not None]
    low, high = min([0.0, *known]), max([1.0, *known])
    inner_w, inner_h = SPARK_WIDTH - 2 * SPARK_PAD, SPARK_HEIGHT - 2 * SPARK_PAD

    def x(index: int) -> float:
        if len(values) <= 1:
            return SPARK_PAD + inner_w / 2
        return SPARK_PAD + inner_w * index / (len(values) - 1)

    def y(value: float) -> float:
        return SPARK_PAD + inner_h * (high - value) / (high - low)

    said = ", ".join(f"{p.round_name} {_number(p.value)}" for p in series.points)
    title = f"{history.name} of {series.question_key} by round: {said or 'no rounds'}"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="sparkline" role="img" '
        f'id="{escape(chart_id)}" viewBox="0 0 {SPARK_WIDTH} {SPARK_HEIGHT}" '
        f'width="{SPARK_WIDTH}" height="{SPARK_HEIGHT}" aria-labelledby="{escape(chart_id)}-title"'
        f' data-points="{len(known)}">',
        f'<title id="{escape(chart_id)}-title">{escape(title)}</title>',
        f'<line class="baseline" x1="{SPARK_PAD}" x2="{SPARK_WIDTH - SPARK_PAD}" '
        f'y1="{y(low):.1f}" y2="{y(low):.1f}" stroke="#ddd"/>',
    ]
    runs = _segments([(x(i), y(v)) if v is not None else None for i, v in enumerate(values)])
    for run in runs:
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in run)
        parts.append(
            f'<polyline class="spark-line" points="{path}" fill="none" stroke="{PALETTE[0]}" '
            'stroke-width="1.5"/>'
        )
    last = next((i for i in range(len(values) - 1, -1, -1) if values[i] is not None), None)
    if last is not None:
        value = values[last]
        assert value is not None
        parts.append(
            f'<circle class="spark-last" cx="{x(last):.1f}" cy="{y(value):.1f}" r="2.5" '
            f'fill="{PALETTE[0]}"/>'
        )
    parts.append("</svg>")
    return mark_safe("".join(parts))  # every text above is escaped
