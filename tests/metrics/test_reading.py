"""One reading of reliability (metrics.benchmark_scale_for and read_coefficient): at most
one benchmark scale per coefficient.

The rule: no scale for observed agreement (not chance-corrected), none for weighted or
distance-based coefficients unless one is chosen (Artstein & Poesio 2008, §4.4.3: alpha
ranges from 0.122 to 0.998 on the same data depending on the distance), Krippendorff's for
nominal alpha, Landis & Koch's for the unweighted kappa family.
"""

from __future__ import annotations

import pytest

from metrics import benchmark_scale_for, read_coefficient
from metrics.report import benchmarks_json


@pytest.mark.parametrize(
    ("coefficient", "distance", "scale"),
    [
        ("observed_agreement", "nominal", None),
        ("alpha", "nominal", "krippendorff"),
        ("alpha", None, "krippendorff"),
        ("token_alpha", None, "krippendorff"),
        ("kappa", "nominal", "landis_koch"),
        ("pi", "ordinal", "landis_koch"),  # pi takes no distance: it stays unweighted
        ("light_kappa", "nominal", "landis_koch"),
        ("ac1", "nominal", "landis_koch"),
        ("alpha", "masi", None),
        ("alpha", "tree", None),
        ("alpha", "interval", None),
        ("ac1", "ordinal", None),  # AC2
        ("kappa_w", "ordinal", None),
        ("alpha_u", None, None),
        ("region_alpha_iou", None, None),
        ("span_f1", None, None),
        ("pk", None, None),
    ],
)
def test_each_coefficient_has_at_most_one_scale(
    coefficient: str, distance: str | None, scale: str | None
) -> None:
    assert benchmark_scale_for(coefficient, distance=distance).scale == scale


def test_a_chosen_scale_reads_weighted_coefficients_but_never_observed_agreement() -> None:
    assert benchmark_scale_for("alpha", distance="masi", chosen="fleiss").scale == "fleiss"
    assert benchmark_scale_for("kappa", chosen="krippendorff").scale == "krippendorff"
    assert benchmark_scale_for("observed_agreement", chosen="fleiss").scale is None
    with pytest.raises(ValueError, match="Unknown benchmark scale 'likert'"):
        benchmark_scale_for("alpha", chosen="likert")


def test_the_reading_names_why_no_scale_applies() -> None:
    masi = read_coefficient("alpha", 0.67, distance="masi")
    assert masi.text == (
        "no benchmark scale: weighted by the masi distance, and the scales were proposed for "
        "unweighted coefficients (choose one to read it on)"
    )
    assert read_coefficient("observed_agreement", 0.9).text == (
        "no benchmark scale: not chance-corrected"
    )


def test_the_reading_takes_the_band_and_probabilities_of_its_one_scale() -> None:
    # irrCAC's example, kappa 0.67 with SE 0.15 (docs/references.md#irrcac-benchmark-examples):
    # Landis & Koch: moderate or better with probability 0.96356, most probable substantial
    # (0.49343); Krippendorff: no band above discard, tentative or better 0.501.
    bands = benchmarks_json(estimate=0.67, se=0.15)
    kappa = read_coefficient("kappa", 0.67, bands)
    assert kappa.text == (
        "substantial on Landis & Koch's scale; moderate or better with probability 0.96; "
        "most probable band: substantial (0.49)"
    )
    alpha = read_coefficient("alpha", 0.67, bands)
    assert alpha.band == "tentative"
    assert alpha.text.startswith(
        "tentative on Krippendorff's scale; no band above discard reaches probability 0.95"
    )
    assert "Landis" not in alpha.text
    assert alpha.as_json()["scale"] == "krippendorff"


@pytest.mark.parametrize(
    ("scale", "value", "band"),
    [
        ("krippendorff", 0.8, "good"),
        ("krippendorff", 0.667, "tentative"),
        ("krippendorff", 0.6669, "discard"),
        ("landis_koch", 0.4, "fair"),
        ("landis_koch", 0.0, "slight"),
        ("landis_koch", -0.1, "poor"),
    ],
)
def test_a_value_on_a_cut_takes_the_band_its_scale_gives(
    scale: str, value: float, band: str
) -> None:
    assert read_coefficient("kappa", value, chosen=scale).band == band
