"""The SVG charts: accessible, one line per question, gaps where a round has no value."""

from __future__ import annotations

import re

from pages.charts import heatmap, history_chart
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
