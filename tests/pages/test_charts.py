"""The SVG charts: accessible, one line per question, gaps where a round has no value."""

from __future__ import annotations

import re

from pages.charts import heatmap, history_chart, sparkline
from pages.selectors import CoefficientHistory, Matrix, Point, Series


def _history(points_b: list[Point]) -> CoefficientHistory:
    a = Series(
        "q1", [Point("R1", 0.5, 0.4, 0.6), Point("R2", 0.7, 0.6, 0.8), Point("R3", 0.9, None, None)]
    )
    b = Series("q<2>", points_b)
    return CoefficientHistory("alpha", "Krippendorff's alpha", ["R1", "R2", "R3"], [a, b])


def test_history_chart_has_title_desc_axes_reference_lines_and_a_line_per_question() -> None:
    missing = [
        Point("R1", 0.2, None, None),
        Point("R2", None, None, None),
        Point("R3", -0.3, -0.5, 0.0),
    ]
    svg = str(history_chart(_history(missing), chart_id="c"))
    assert svg.startswith("<svg")
    assert re.search(r'aria-labelledby="c-title c-desc"', svg)
    assert '<title id="c-title">' in svg
    assert '<desc id="c-desc">' in svg
    assert svg.count('class="axis-label"') == 2
    assert svg.count('class="round-tick"') == 3
    assert 'data-value="0.667"' in svg
    assert 'data-value="0.8"' in svg
    assert svg.count('<g class="series"') == 2
    # q1: one band over R1-R2; q2: its R2 gap splits the line in two runs (one point each).
    assert svg.count('class="series-line"') == 1 + 2
    assert svg.count('class="point"') == 3 + 2
    assert "q&lt;2&gt;" in svg
    assert "q<2>" not in svg
    # The y axis reaches below zero for the negative value and interval.
    assert ">-0.6<" in svg


def test_heatmap_labels_rows_columns_and_every_cell() -> None:
    matrix = Matrix(["a", "b"], ["a", "b"], [[1.0, 0.25], [0.25, None]])
    svg = str(heatmap(matrix, chart_id="h", title="T", desc="D"))
    assert '<title id="h-title">T</title>' in svg
    assert svg.count('class="cell"') == 4
    assert ">0.25<" in svg
    assert ">—<" in svg


def _rounds(names: list[str]) -> CoefficientHistory:
    points = [Point(name, 0.5, None, None) for name in names]
    return CoefficientHistory("alpha", "Krippendorff's alpha", names, [Series("q1", points)])


def test_a_chart_without_its_legend_leaves_it_to_the_page() -> None:
    svg = str(history_chart(_rounds(["R1", "R2"]), chart_id="c", legend=False))
    assert 'class="legend"' not in svg
    assert svg.count('class="round-tick"') == 2


def test_many_rounds_are_named_every_few_rounds_so_that_names_never_meet() -> None:
    """Twelve names of 21 characters, shortened to 14 ("Round 2026-01…", 13 + 1): at 6.6 px a
    character and 8 px between, a name needs 14 × 6.6 + 8 = 100.4 px; a 380 px chart has
    380 − 60 − 56 = 264 px for 11 steps, 24 px each: every ⌈100.4 / 24⌉ = 5th round is named
    (rounds 1, 6 and 11)."""
    names = [f"Round 2026-{n:02d} (pilot)" for n in range(1, 13)]
    svg = str(history_chart(_rounds(names), chart_id="c", legend=False, width=380, height=240))
    ticks = re.findall(r'<text class="round-tick"[^>]*>([^<]*)</text>', svg)
    assert ticks == ["Round 2026-01…", "Round 2026-06…", "Round 2026-11…"]
    # The points keep every round's whole name.
    assert "<title>q1, Round 2026-12 (pilot): 0.500</title>" in svg


def test_a_question_keeps_its_colour_on_every_chart() -> None:
    """A question's series carries its place in the study: the second question is drawn in
    the palette's second colour even on a chart where it is the only series."""
    only_second = CoefficientHistory(
        "kappa", "kappa", ["R1"], [Series("q2", [Point("R1", 0.4, None, None)], number=1)]
    )
    svg = str(history_chart(only_second, chart_id="c", legend=False))
    assert 'stroke="#D55E00"' in svg or 'fill="#D55E00"' in svg
    assert "#0072B2" not in svg


def test_a_sparkline_draws_the_known_rounds_and_marks_the_last() -> None:
    points = [Point("R1", 0.25, None, None), Point("R2", None, None, None),
              Point("R3", 0.75, None, None)]  # fmt: skip
    history = CoefficientHistory("alpha", "Krippendorff's alpha", ["R1", "R2", "R3"],
                                 [Series("q<1>", points)])  # fmt: skip
    svg = str(sparkline(history, chart_id="s"))
    # A missing round breaks the line: two runs of one point each, no polyline of two.
    assert svg.count('class="spark-line"') == 2
    # On the 0–1 scale inside 4 px margins of a 120 × 32 box: 0.75 at y = 4 + 24 × 0.25 = 10,
    # R3 at x = 116.
    assert '<circle class="spark-last" cx="116.0" cy="10.0"' in svg
    assert (
        '<title id="s-title">Krippendorff&#x27;s alpha of q&lt;1&gt; by round: R1 0.250, '
        "R2 —, R3 0.750</title>"
    ) in svg
