"""The report dictionary (the public JSON contract) on published examples."""

from __future__ import annotations

import json

import numpy as np
import pytest

from metrics.data import ReliabilityData
from metrics.report import COEFFICIENT_KEYS, report, report_distance

nan = np.nan

# Artstein & Poesio (2008) Table 1 as (count, coder A, coder B) (docs/references.md#ap2008-table1).
TABLE_1 = [(20, "STAT", "STAT"), (10, "STAT", "IREQ"), (20, "IREQ", "STAT"), (50, "IREQ", "IREQ")]
# Artstein & Poesio (2008) Table 4 (docs/references.md#ap2008-table4).
TABLE_4 = [(46, "STAT", "STAT"), (6, "IREQ", "STAT"), (32, "IREQ", "IREQ"), (6, "IREQ", "CHCK"),
           (10, "CHCK", "CHCK")]  # fmt: skip
# Krippendorff (2011): 4 coders × 12 units, missing values
# (docs/references.md#k2011-reliability-data).
K2011 = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, nan, nan, nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, nan, nan],
    [nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, 3],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, nan],
]


def two_coders(rows: list[tuple[int, str, str]]) -> np.ndarray:
    return np.array([(a, b) for count, a, b in rows for _ in range(count)], dtype=object).T


def test_table_1_report_has_the_printed_values() -> None:
    # Artstein & Poesio (2008), Table 2: A_o 0.7, S 0.4 (A_e 0.5), π ≈ 0.341 (A_e 0.545),
    # κ ≈ 0.348 (A_e 0.54); nominal α = 313/910 (docs/references.md#ap2008-table1).
    result = report(two_coders(TABLE_1))
    coefficients = result["coefficients"]
    assert (result["n_items"], result["n_coders"], result["n_annotations"]) == (100, 2, 200)
    assert result["n_pairable_items"] == 100
    assert coefficients["observed_agreement"]["value"] == pytest.approx(0.7)
    assert coefficients["s"]["value"] == pytest.approx(0.4)
    assert coefficients["s"]["expected"] == pytest.approx(0.5)
    assert coefficients["pi"]["expected"] == pytest.approx(0.545)
    assert round(coefficients["pi"]["value"], 3) == 0.341
    assert coefficients["kappa"]["expected"] == pytest.approx(0.54)
    assert round(coefficients["kappa"]["value"], 3) == 0.348
    assert coefficients["alpha"]["value"] == pytest.approx(313 / 910)
    assert coefficients["alpha"]["kind"] == "disagreement"
    assert coefficients["kappa"]["kind"] == "agreement"
    assert "kappa_w" not in coefficients  # no distance given
    assert "true_agreement" in result
    assert set(result["true_agreement"]) == {"low", "high", "confidence", "model"}


def test_table_4_with_the_weights_of_table_6() -> None:
    # Artstein & Poesio (2008), §2.7.2: α ≈ 0.8156, κ_w ≈ 0.8163 with the §2.6.2 weights
    # (docs/references.md#ap2008-table6).
    labels = ["CHCK", "IREQ", "STAT"]  # the domain's (sorted) order
    weights = np.array([[0, 0.5, 0.5], [0.5, 0, 1], [0.5, 1, 0]])
    result = report(two_coders(TABLE_4), distance=weights)
    coefficients = result["coefficients"]
    assert round(coefficients["alpha"]["value"], 4) == 0.8156
    assert round(coefficients["kappa_w"]["value"], 4) == 0.8163
    assert round(coefficients["pi"]["value"], 4) == 0.7995  # unweighted (Table 5, recomputed)
    assert round(coefficients["kappa"]["value"], 4) == 0.8013
    assert "true_agreement" not in result  # three categories
    assert "true_agreement" in result["skipped"]
    assert labels == sorted(labels)


@pytest.mark.parametrize(
    ("level", "alpha"),
    [("nominal", 0.7434210526), ("ordinal", 0.8153875038), ("interval", 0.8491071429),
     ("ratio", 0.7974027747)],
)  # fmt: skip
def test_levels_on_krippendorff_2011(level: str, alpha: float) -> None:
    result = report(K2011, level=level)
    assert result["coefficients"]["alpha"]["value"] == pytest.approx(alpha, abs=1e-9)
    assert result["distance"] == level
    assert result["n_pairable_items"] == 11
    assert result["n_annotations"] == 41
    # Multi-coder data: the multi-pi (irrCAC 0.4.4 raw fleiss() .761) and multi-kappa entries.
    assert round(result["coefficients"]["pi"]["value"], 3) == 0.761
    assert "kappa" in result["coefficients"]
    assert "kappa_w" not in result["coefficients"]
    assert "true_agreement" not in result


def test_weighted_ac2_on_krippendorff_2011_interval() -> None:
    # irrCAC 0.4.4 raw gwet() with quadratic weights on this data: AC2 0.914
    # (docs/references.md#irrcac-raw-4raters).
    result = report(K2011, level="interval")
    assert round(result["coefficients"]["ac1"]["value"], 3) == 0.914
    assert round(result["coefficients"]["brennan_prediger"]["value"], 3) == 0.902


def test_bootstrap_adds_intervals_and_analytic_standard_errors() -> None:
    result = report(K2011, bootstrap=200, seed=7, confidence=0.9)
    alpha = result["coefficients"]["alpha"]
    assert set(alpha["ci"]) == {"low", "high", "confidence", "method", "replicates", "benchmarks"}
    assert alpha["ci"]["low"] <= alpha["value"] <= alpha["ci"]["high"]
    assert alpha["ci"]["confidence"] == 0.9
    assert alpha["ci"]["replicates"] == 200
    # irrCAC 0.4.4 raw krippendorff(): se 0.146; gwet(): se 0.143
    # (docs/references.md#irrcac-raw-4raters).
    assert round(alpha["se"], 3) == pytest.approx(0.146, abs=1e-3)
    assert round(result["coefficients"]["ac1"]["se"], 3) == 0.143
    again = report(K2011, bootstrap=200, seed=7, confidence=0.9)
    assert again == result


def test_report_is_json_serialisable_and_ordered() -> None:
    result = report(K2011, bootstrap=50)
    text = json.dumps(result, allow_nan=False)
    assert json.loads(text) == result
    keys = [key for key in COEFFICIENT_KEYS if key in result["coefficients"]]
    assert list(result["coefficients"]) == keys


def test_undefined_coefficients_are_skipped_with_the_reason() -> None:
    data = ReliabilityData.from_matrix([["A"] * 3, ["A"] * 3], domain=["A", "B"])
    result = report(data)
    assert "alpha" not in result["coefficients"]
    assert "expected disagreement is 0" in result["skipped"]["alpha"]
    assert result["coefficients"]["observed_agreement"]["value"] == 1.0


def test_set_level_defaults_to_masi() -> None:
    s = frozenset
    data = ReliabilityData.from_long(
        [0, 0, 1, 1, 2, 2], ["a", "b"] * 3, [s("x"), s("xy"), s("z"), s("z"), s("y"), s("y")]
    )
    result = report(data, level="set")
    assert result["distance"] == "masi"
    # MASI (Passonneau 2006) {x} vs {x, y}: 1 - J·M = 2/3; D_o = (2 · 2/3) / 6 over 6 values.
    assert result["coefficients"]["alpha"]["observed"] == pytest.approx(2 / 9)


def test_unknown_level_and_bad_options_raise() -> None:
    with pytest.raises(ValueError, match="Unknown level"):
        report(K2011, level="fuzzy")
    with pytest.raises(ValueError, match="confidence"):
        report(K2011, confidence=1.5)
    with pytest.raises(ValueError, match="needs a tree"):
        report_distance("hierarchy")
    # The old report-level call resolve_distance(level, distance, tree) fails loudly.
    from metrics import resolve_distance

    with pytest.raises(TypeError, match="report_distance"):
        resolve_distance("nominal", "nominal")  # type: ignore[arg-type]


def test_package_re_exports_the_public_api() -> None:
    import metrics

    assert metrics.__version__
    assert [name for name in metrics.__all__ if not hasattr(metrics, name)] == []
    for name in ("krippendorff_alpha", "report", "get_distance", "cohen_kappa", "bootstrap"):
        assert name in metrics.__all__
    assert metrics.report is report


def test_everything_the_server_uses_is_public_at_the_top_level() -> None:
    # studies/services/agreement_engine.py and studies/selectors_pages.py import these (the
    # server must not reach into submodules or private modules).
    import metrics

    server_names = {
        "COEFFICIENT_KEYS", "DEFAULT_DISTANCE", "HIERARCHY_DISTANCES", "LEVELS",
        "CoefficientSpec", "Decomposition", "ReliabilityData", "__version__", "analytic_se",
        "annotator_bias", "bootstrap_chunk", "bootstrap_combine", "bootstrap_difference",
        "bootstrap_difference_unpaired", "coder_distributions", "coefficient_specs",
        "coincidence_matrix", "distance_names", "interpret_interval", "interpret_value",
        "item_disagreement", "kappa_comparison", "pairwise_coder_matrix",
        "per_category_agreement", "report", "report_distance",
    }  # fmt: skip
    assert server_names <= set(metrics.__all__)
    assert metrics.COEFFICIENT_KEYS == COEFFICIENT_KEYS
    assert metrics.Decomposition.__module__ == "metrics.decomposition"
    assert not any(name.startswith("_") and name != "__version__" for name in metrics.__all__)


def test_hierarchy_level_with_a_tree() -> None:
    tree = {"root": None, "A": "root", "A1": "A", "A2": "A", "B": "root"}
    data = [["A1", "A2", "B", "A"], ["A1", "A1", "B", "A2"]]
    result = report(np.array(data, dtype=object), level="hierarchy", tree=tree)
    assert result["distance"] == "tree"
    assert "alpha" in result["coefficients"]
