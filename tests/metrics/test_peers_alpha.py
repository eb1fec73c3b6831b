"""Alpha against peer libraries on random data with missing values.

Peers: ``krippendorff`` (fast-krippendorff, PyPI 0.8) for the four levels, and NLTK's
``AnnotationTask.alpha`` (nltk 3.8+) for nominal and interval distances, all to 1e-9.
"""

from __future__ import annotations

import importlib

import numpy as np
import pytest

from metrics.coefficients.alpha import (
    alpha_individual,
    decompose_krippendorff_alpha,
    krippendorff_alpha,
)

krippendorff = importlib.import_module("krippendorff")
nltk_agreement = importlib.import_module("nltk.metrics.agreement")
nltk_distance = importlib.import_module("nltk.metrics.distance")

LEVELS = ["nominal", "ordinal", "interval", "ratio"]


def random_data(seed: int, *, real: bool = False) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n_coders = int(rng.integers(2, 7))
    n_items = int(rng.integers(5, 60))
    if real:
        values = np.round(rng.gamma(2.0, 2.0, size=(n_coders, n_items)), 2)
    else:
        n_values = int(rng.integers(2, 8))
        truth = rng.integers(1, n_values + 1, size=n_items)
        noise = rng.integers(1, n_values + 1, size=(n_coders, n_items))
        values = np.where(rng.random((n_coders, n_items)) < 0.6, truth, noise).astype(float)
    values[rng.random(values.shape) < 0.3] = np.nan
    return values


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("level", LEVELS)
def test_matches_krippendorff_package(seed: int, level: str) -> None:
    values = random_data(seed, real=seed % 3 == 0)
    expected = krippendorff.alpha(reliability_data=values, level_of_measurement=level)
    assert krippendorff_alpha(values, distance=level).value == pytest.approx(expected, abs=1e-9)
    decomposition = decompose_krippendorff_alpha(values, distance=level)
    assert float(decomposition.evaluate()) == pytest.approx(expected, abs=1e-9)


def triples(values: np.ndarray) -> list[tuple[str, str, float]]:
    return [
        (f"c{coder}", f"i{item}", float(values[coder, item]))
        for coder, item in zip(*np.nonzero(~np.isnan(values)), strict=True)
    ]


@pytest.mark.parametrize("seed", range(8))
def test_matches_nltk_nominal_and_interval(seed: int) -> None:
    values = random_data(100 + seed)
    task = nltk_agreement.AnnotationTask(triples(values))
    assert krippendorff_alpha(values).value == pytest.approx(task.alpha(), abs=1e-9)
    interval_task = nltk_agreement.AnnotationTask(
        triples(values), distance=nltk_distance.interval_distance
    )
    assert krippendorff_alpha(values, distance="interval").value == pytest.approx(
        interval_task.alpha(), abs=1e-9
    )


@pytest.mark.parametrize("seed", range(6))
def test_kappa_like_alpha_matches_nltk_multi_kappa_on_complete_data(seed: int) -> None:
    # NLTK's multi_kappa is Davies & Fleiss (1982): pairwise A_o and A_e averaged over coder
    # pairs; with complete nominal data the individual-distribution alpha is the same number.
    rng = np.random.default_rng(200 + seed)
    values = rng.integers(0, 4, size=(int(rng.integers(2, 5)), 25)).astype(float)
    task = nltk_agreement.AnnotationTask(triples(values))
    assert alpha_individual(values).value == pytest.approx(task.multi_kappa(), abs=1e-9)
