"""The report's benchmark bands (``ci.benchmarks``) and ICC table (``icc``), through ``report``
and the command line.

Published values: irrCAC's benchmarking of AC1 on raw_4raters
(docs/references.md#irrcac-benchmark-examples, #irrcac-raw-4raters) and Shrout & Fleiss's
Table 4 with pingouin's full-precision figures (docs/references.md#shrout-fleiss-1979,
#pingouin-icc-cases).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from metrics.cli import main
from metrics.report import REPORT_BENCHMARK_SCALES, benchmarks_json, report

nan = math.nan

# Krippendorff (2004) p. 230 = irrCAC's raw_4raters, coders × items.
# docs/references.md#k2011-reliability-data, #irrcac-raw-4raters
RAW_4RATERS = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]

# Shrout & Fleiss (1979), Table 2: six targets × four judges, here judges × targets.
# docs/references.md#shrout-fleiss-1979
SHROUT_FLEISS = [
    [9, 6, 8, 7, 10, 6],
    [2, 1, 4, 1, 5, 2],
    [5, 3, 6, 2, 6, 4],
    [8, 2, 8, 6, 9, 7],
]
# Table 4 (two decimals) by psych::ICC's names.
SHROUT_FLEISS_TABLE_4 = {
    "ICC1": 0.17,
    "ICC2": 0.29,
    "ICC3": 0.71,
    "ICC1k": 0.44,
    "ICC2k": 0.62,
    "ICC3k": 0.91,
}


# -- benchmarks -------------------------------------------------------------------------------


def test_ac1_of_raw_4raters_is_qualified_as_irrcac_does() -> None:
    # R irrCAC's vignette: AC1 0.775 (se 0.14295) is Moderate on Landis & Koch and Altman,
    # Intermediate to Good on Fleiss; irrCAC 0.4.4 prints Fleiss CumProb [0.54415, 0.99542,
    # 1.0]. docs/references.md#irrcac-benchmark-examples
    result = report(np.array(RAW_4RATERS), bootstrap=200, benchmark_method="normal")
    ac1 = result["coefficients"]["ac1"]
    bands = ac1["ci"]["benchmarks"]
    assert (bands["method"], bands["se_source"], bands["threshold"]) == (
        "normal",
        "analytic",
        0.95,
    )
    assert round(bands["se"], 5) == 0.14295
    scales = bands["scales"]
    assert list(scales) == list(REPORT_BENCHMARK_SCALES)
    assert [round(c, 5) for c in scales["fleiss"]["cumulative"]] == [0.54415, 0.99542, 1.0]
    assert scales["landis_koch"]["attained"] == "moderate"
    assert scales["altman"]["attained"] == "moderate"
    assert scales["fleiss"]["attained"] == "intermediate to good"
    assert round(scales["fleiss"]["attained_probability"], 5) == 0.99542
    assert (scales["fleiss"]["leading"], round(scales["fleiss"]["leading_probability"], 5)) == (
        "excellent",
        0.54415,
    )


def test_irrcac_example_through_benchmarks_json() -> None:
    # irrCAC 0.4.4's Benchmark(coeff=0.67, se=0.15): Landis & Koch CumProb [0.18168,
    # 0.67511, 0.96356, 0.99912, 1.0, 1.0]. docs/references.md#irrcac-benchmark-examples
    bands = benchmarks_json(estimate=0.67, se=0.15)["scales"]["landis_koch"]
    assert [round(c, 5) for c in bands["cumulative"]] == [
        0.18168,
        0.67511,
        0.96356,
        0.99912,
        1.0,
        1.0,
    ]
    assert (bands["attained"], bands["leading"]) == ("moderate", "substantial")
    # substantial 0.67511 − 0.18168 (cumulative differences).
    assert round(bands["leading_probability"], 5) == 0.49343


def test_replicates_of_perfect_agreement_are_all_almost_perfect() -> None:
    # Hand case: two coders agree on all ten items, so every replicate of the observed
    # agreement is 1: probability 1 of "almost perfect", 0 elsewhere.
    data = np.array([[1, 2, 3, 1, 2, 3, 1, 2, 3, 1]] * 2)
    result = report(data, bootstrap=50)
    bands = result["coefficients"]["observed_agreement"]["ci"]["benchmarks"]
    assert (bands["method"], bands["n_replicates"], bands["n_omitted"], bands["se"]) == (
        "replicates",
        50,
        0,
        None,
    )
    landis_koch = bands["scales"]["landis_koch"]
    assert landis_koch["probabilities"] == [1.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert (landis_koch["attained"], landis_koch["attained_probability"]) == (
        "almost perfect",
        1.0,
    )
    assert bands["scales"]["krippendorff"]["attained"] == "good"


def test_replicate_shares_are_those_of_the_bootstrap_of_the_interval() -> None:
    # The shares count the same replicates the interval is read from: each band's share is
    # a multiple of 1/200 and they add up to 1.
    result = report(np.array(RAW_4RATERS), bootstrap=200, seed=3)
    bands = result["coefficients"]["alpha"]["ci"]["benchmarks"]
    assert bands["n_replicates"] + bands["n_omitted"] == 200
    for scale in bands["scales"].values():
        shares = np.array(scale["probabilities"]) * bands["n_replicates"]
        assert np.allclose(shares, np.round(shares))
        assert sum(scale["probabilities"]) == pytest.approx(1.0)


def test_no_bootstrap_no_benchmarks_and_a_bad_method_is_refused() -> None:
    result = report(np.array(RAW_4RATERS))
    assert "ci" not in result["coefficients"]["alpha"]
    with pytest.raises(ValueError, match="benchmark_method must be 'replicates' or 'normal'"):
        report(np.array(RAW_4RATERS), bootstrap=10, benchmark_method="beta")  # type: ignore[arg-type]


# -- ICC --------------------------------------------------------------------------------------


def test_icc_table_of_shrout_and_fleiss() -> None:
    result = report(np.array(SHROUT_FLEISS), level="interval")
    table = result["icc"]
    assert (table["n_items"], table["n_coders"], table["confidence"]) == (6, 4, 0.95)
    assert len(table["forms"]) == 10
    named = {f["shrout_fleiss"]: f for f in table["forms"] if f["shrout_fleiss"]}
    assert {k: round(v["value"], 2) for k, v in named.items()} == SHROUT_FLEISS_TABLE_4
    # Table 3: F = BMS/EMS 11.03 on (5, 15), BMS/WMS 1.79 on (5, 18).
    assert (round(named["ICC2"]["f"], 2), named["ICC2"]["df1"], named["ICC2"]["df2"]) == (
        11.03,
        5.0,
        15.0,
    )
    assert (round(named["ICC1"]["f"], 2), named["ICC1"]["df2"]) == (1.79, 18.0)
    # pingouin 0.7.0: ICC(A,1) p 0.000134566516484335, 95% [0.018786513374712058,
    # 0.7610843696489527]. docs/references.md#pingouin-icc-cases
    icc2 = named["ICC2"]
    assert icc2["form"] == "ICC(A,1)"
    assert icc2["p_value"] == pytest.approx(0.000134566516484335, rel=1e-9)
    assert icc2["low"] == pytest.approx(0.018786513374712058, rel=1e-9)
    assert icc2["high"] == pytest.approx(0.7610843696489527, rel=1e-9)
    # Table 3's mean squares, recomputed to four decimals.
    anova = table["anova"]
    assert [round(anova[k], 4) for k in ("ms_items", "ms_within", "ms_coders", "ms_error")] == [
        11.2417,
        6.2639,
        32.4861,
        1.0194,
    ]
    assert "icc" not in result["skipped"]


def test_icc_at_the_ratio_level_too_and_not_at_the_nominal() -> None:
    assert "icc" in report(np.array(SHROUT_FLEISS), level="ratio")
    nominal = report(np.array(SHROUT_FLEISS))
    assert "icc" not in nominal
    assert "icc" not in nominal["skipped"]


def test_icc_of_an_incomplete_design_is_skipped_with_the_reason() -> None:
    result = report(np.array(RAW_4RATERS), level="interval")
    assert "icc" not in result
    assert result["skipped"]["icc"] == (
        "The ICC needs a complete design, every one of the 4 coders' ratings of every item: "
        "4 of 12 items miss a rating. The report gives the ICC for complete designs only."
    )
    # Everything else is still reported: interval alpha 0.849 (Krippendorff 2004).
    assert round(result["coefficients"]["alpha"]["value"], 3) == 0.849


# -- command line -----------------------------------------------------------------------------


def _csv(tmp_path: Path, matrix: list[list[float]]) -> Path:
    path = tmp_path / "ratings.csv"
    lines = ["item,coder,label"]
    for coder, row in enumerate(matrix):
        lines += [f"i{item},c{coder},{v:g}" for item, v in enumerate(row) if not math.isnan(v)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_prints_bands_and_icc(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path, RAW_4RATERS)
    assert main(["report", str(path), "--bootstrap", "100", "--benchmarks", "normal"]) == 0
    out = capsys.readouterr().out
    # One reading per coefficient (metrics.read_coefficient): Landis & Koch for the kappa family,
    # Krippendorff for nominal alpha, none for observed agreement; never two scales.
    assert (
        "Gwet's AC1 (AC2 with a distance)     0.7754 A     0.8182 A     0.1903  [0.5429, "
        "0.9420] 95% bca  se 0.1429\n    reading: substantial on Landis & Koch's scale; "
        "moderate or better with probability 1.00; most probable band: substantial (0.49)\n"
    ) in out
    assert (
        "    reading: tentative on Krippendorff's scale; no band above discard reaches "
        "probability 0.95; most probable band: tentative (0.37)\n"
    ) in out
    assert "    reading: no benchmark scale: not chance-corrected\n" in out
    assert "Fleiss" not in out.replace("Scott's pi / multi-pi (Fleiss)", "")
    assert main(["report", str(path), "--bootstrap", "100", "--benchmarks", "normal",
                 "--benchmark-scale", "fleiss"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert (
        "    reading: excellent on Fleiss's scale; intermediate to good or better with "
        "probability 1.00; most probable band: excellent (0.54)\n"
    ) in out
    sf = _csv(tmp_path, [[float(v) for v in row] for row in SHROUT_FLEISS])
    assert main(["report", str(sf), "--level", "interval", "--json"]) == 0
    table = json.loads(capsys.readouterr().out)["icc"]
    assert round(table["forms"][2]["value"], 2) == 0.29
    assert main(["report", str(sf), "--level", "interval"]) == 0
    text = capsys.readouterr().out
    assert "ICC (McGraw & Wong 1996; 6 items, 4 coders)" in text
    assert "ICC(C,1) twoway_mixed [ICC3]" in text
    assert "0.7148" in text


def test_cli_refuses_benchmarks_for_spans(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "spans.csv"
    path.write_text("document,coder,begin,end,label\nd,a,0,5,X\nd,b,0,5,X\n")
    assert main(["report", str(path), "--level", "span", "--benchmarks", "normal"]) == 2
    assert "--benchmarks does not apply to --level span" in capsys.readouterr().err
