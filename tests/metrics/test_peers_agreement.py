"""Cross-checks against peer libraries on random data, to 1e-9.

- irrCAC 0.4.4 ``irrCAC.raw.CAC``: ``fleiss()``, ``conger()``, ``gwet()``, ``bp()``, with
  missing values and identity / quadratic / linear / custom (asymmetric) weights; our
  ``distance`` is ``1 - weights``.
- statsmodels ``fleiss_kappa`` (agreement tables) and ``cohens_kappa`` (contingency tables,
  also with 2-D weights, which statsmodels reads as Cohen's directed disagreement weights: it
  is given their symmetric part, the one convention of this library).
- scikit-learn ``cohen_kappa_score`` (unweighted, linear and quadratic).
- NLTK ``AnnotationTask`` on complete data, where its formulas are right: ``avg_Ao``,
  ``S`` (all categories used), ``pi`` (multi-pi), ``multi_kappa`` (Davies & Fleiss) and
  ``kappa`` (Light's average of pairwise kappas).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from irrCAC.raw import CAC
from irrCAC.weights import Weights
from nltk.metrics.agreement import AnnotationTask
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, cohens_kappa, fleiss_kappa

from metrics.coefficients.agreement import (
    bennett_s,
    cohen_kappa,
    conger_kappa,
    fleiss_pi,
    light_kappa,
    observed_agreement,
)
from metrics.coefficients.gwet import brennan_prediger, gwet_ac1
from metrics.coefficients.weighted import weighted_kappa
from metrics.data import ReliabilityData

TOL = 1e-9


def random_matrix(seed: int, *, missing: float = 0.25, coders: int | None = None) -> np.ndarray:
    """Coders × items values in 1..V with ``nan`` for missing; every coder and value present."""
    rng = np.random.default_rng(seed)
    n_coders = coders or int(rng.integers(2, 7))
    n_items, size = int(rng.integers(8, 60)), int(rng.integers(2, 6))
    skew = rng.dirichlet(np.ones(size))
    matrix = (rng.choice(size, size=(n_coders, n_items), p=skew) + 1).astype(float)
    matrix[rng.random(matrix.shape) < missing] = np.nan
    matrix[:, 0] = np.arange(n_coders) % size + 1  # every coder has a value
    matrix[0, 1 : size + 1] = np.arange(size) + 1  # every value occurs
    return matrix


def irrcac(matrix: np.ndarray, weights: str | np.ndarray) -> CAC:
    categories = sorted(np.unique(matrix[~np.isnan(matrix)]).tolist())
    frame = pd.DataFrame(matrix.T)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return CAC(frame, weights=weights, categories=categories, digits=15)


def custom_weights(size: int, seed: int) -> np.ndarray:
    weights = np.random.default_rng(seed).uniform(0, 1, (size, size))
    np.fill_diagonal(weights, 1.0)
    weights[-1, 0] = 0.0  # so that 1 - d / d_max gives back these weights
    return weights


WEIGHTINGS = ["identity", "quadratic", "linear", "ratio", "custom"]


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("weighting", WEIGHTINGS)
def test_irrcac_on_random_data_with_missing_values(seed: int, weighting: str) -> None:
    matrix = random_matrix(seed)
    size = len(np.unique(matrix[~np.isnan(matrix)]))
    weights = custom_weights(size, seed) if weighting == "custom" else weighting
    cac = irrcac(matrix, weights)
    distance = None if weighting == "identity" else 1 - np.asarray(cac.weights_mat)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = {
            "fleiss": cac.fleiss()["est"],
            "conger": cac.conger()["est"],
            "gwet": cac.gwet()["est"],
            "bp": cac.bp()["est"],
        }
    ours = {
        "fleiss": fleiss_pi(matrix, distance=distance),
        "conger": conger_kappa(matrix, distance=distance),
        "gwet": gwet_ac1(matrix, distance=distance),
        "bp": brennan_prediger(matrix, distance=distance),
    }
    for name, result in ours.items():
        est = expected[name]
        assert result.observed == pytest.approx(est["pa"], abs=TOL), name
        assert result.expected == pytest.approx(est["pe"], abs=TOL), name
        assert result.value == pytest.approx(est["coefficient_value"], abs=TOL), name
    if weighting == "identity":
        assert bennett_s(matrix).value == pytest.approx(
            expected["bp"]["coefficient_value"], abs=TOL
        )
        assert observed_agreement(matrix).value == pytest.approx(expected["fleiss"]["pa"], abs=TOL)
    elif matrix.shape[0] > 2 or weighting != "custom":
        # Weighted kappa follows Gwet's weighted multi-kappa (irrCAC conger) for > 2 coders,
        # and for 2 coders with symmetric weights.
        value = weighted_kappa(matrix, distance=distance).value
        assert value == pytest.approx(expected["conger"]["coefficient_value"], abs=TOL)


@pytest.mark.parametrize("seed", range(8))
def test_two_coder_kappa_is_irrcac_conger_with_missing_values(seed: int) -> None:
    matrix = random_matrix(seed, coders=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = irrcac(matrix, "identity").conger()["est"]["coefficient_value"]
    assert cohen_kappa(matrix).value == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("seed", range(8))
def test_statsmodels_fleiss_kappa(seed: int) -> None:
    matrix = random_matrix(seed, missing=0.0)
    table, _ = aggregate_raters(matrix.T.astype(int))
    data = ReliabilityData.from_agreement_table(table)
    assert fleiss_pi(data).value == pytest.approx(fleiss_kappa(table), abs=TOL)
    assert fleiss_pi(matrix).value == pytest.approx(fleiss_kappa(table), abs=TOL)
    assert bennett_s(data).value == pytest.approx(fleiss_kappa(table, method="randolph"), abs=TOL)


@pytest.mark.parametrize("seed", range(8))
def test_statsmodels_cohens_kappa(seed: int) -> None:
    rng = np.random.default_rng(seed)
    size = int(rng.integers(2, 6))
    table = rng.integers(0, 12, (size, size)) + np.eye(size, dtype=int) * 10
    data = ReliabilityData.from_contingency(table)
    assert cohen_kappa(data).value == pytest.approx(cohens_kappa(table).kappa, abs=TOL)
    scores = np.arange(size)
    for wt in ("linear", "quadratic"):
        expected = cohens_kappa(table, weights=scores, wt=wt).kappa
        power = 1 if wt == "linear" else 2
        distance = np.abs(np.subtract.outer(scores, scores)).astype(float) ** power
        assert weighted_kappa(data, distance=distance).value == pytest.approx(expected, abs=TOL)
    # Asymmetric weights count through their symmetric part (docs/metrics.md, "Weights");
    # statsmodels reads a 2-D weight matrix as directed, so it is given the symmetric part.
    asymmetric = rng.uniform(0, 1, (size, size)) * (1 - np.eye(size))
    expected = cohens_kappa(table, weights=(asymmetric + asymmetric.T) / 2).kappa
    assert weighted_kappa(data, distance=asymmetric).value == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_sklearn_cohen_kappa_score(seed: int, weights: str | None) -> None:
    matrix = random_matrix(seed, missing=0.0, coders=2)
    expected = cohen_kappa_score(matrix[0], matrix[1], weights=weights)
    if weights is None:
        assert cohen_kappa(matrix).value == pytest.approx(expected, abs=TOL)
        return
    size = len(np.unique(matrix))
    positions = np.arange(size)
    distance = np.abs(np.subtract.outer(positions, positions)).astype(float)
    distance = distance if weights == "linear" else distance**2
    assert weighted_kappa(matrix, distance=distance).value == pytest.approx(expected, abs=TOL)


@pytest.mark.parametrize("seed", range(6))
def test_nltk_annotation_task_on_complete_data(seed: int) -> None:
    matrix = random_matrix(seed, missing=0.0)
    triples = [
        (f"c{coder}", f"i{item}", str(int(matrix[coder, item])))
        for coder in range(matrix.shape[0])
        for item in range(matrix.shape[1])
    ]
    task = AnnotationTask(data=triples)
    assert observed_agreement(matrix).value == pytest.approx(task.avg_Ao(), abs=TOL)
    assert bennett_s(matrix).value == pytest.approx(task.S(), abs=TOL)
    assert fleiss_pi(matrix).value == pytest.approx(task.pi(), abs=TOL)
    assert conger_kappa(matrix).value == pytest.approx(task.multi_kappa(), abs=TOL)
    assert light_kappa(matrix).value == pytest.approx(task.kappa(), abs=TOL)


def test_irrcac_weight_schemes_are_one_minus_normalised_distances() -> None:
    # Our weights w = 1 - d/d_max reproduce irrCAC's named schemes (irrCAC.weights).
    categories = [1, 2, 3, 4, 5]
    values = np.array(categories, dtype=float)
    difference = np.abs(np.subtract.outer(values, values))
    schemes = Weights(categories)
    np.testing.assert_allclose(schemes["quadratic"], 1 - difference**2 / difference.max() ** 2)
    np.testing.assert_allclose(schemes["linear"], 1 - difference / difference.max())


# irrCAC raw tests on Krippendorff (2004) p. 230 data (docs/references.md#irrcac-raw-4raters),
# digits = 3: (pa, pe, coefficient) for gwet / fleiss / conger / bp under each weighting.
TV40_WEIGHTED = {
    "quadratic": [
        (0.975, 0.714, 0.914),
        (0.975, 0.818, 0.865),
        (0.975, 0.827, 0.858),
        (0.975, 0.750, 0.902),
    ],
    "linear": [
        (0.939, 0.571, 0.859),
        (0.939, 0.667, 0.818),
        (0.939, 0.675, 0.814),
        (0.939, 0.600, 0.848),
    ],
    "ordinal": [
        (0.968, 0.685, 0.899),
        (0.968, 0.788, 0.850),
        (0.968, 0.796, 0.844),
        (0.968, 0.720, 0.886),
    ],
    "radical": [
        (0.897, 0.430, 0.820),
        (0.897, 0.511, 0.790),
        (0.897, 0.515, 0.788),
        (0.897, 0.452, 0.813),
    ],
    "ratio": [
        (0.954, 0.678, 0.857),
        (0.954, 0.743, 0.821),
        (0.954, 0.756, 0.812),
        (0.954, 0.713, 0.840),
    ],
    "circular": [
        (0.902, 0.426, 0.830),
        (0.902, 0.494, 0.807),
        (0.902, 0.499, 0.805),
        (0.902, 0.447, 0.824),
    ],
    "bipolar": [
        (0.968, 0.682, 0.900),
        (0.968, 0.785, 0.853),
        (0.968, 0.796, 0.845),
        (0.968, 0.717, 0.888),
    ],
}


@pytest.mark.parametrize("scheme", sorted(TV40_WEIGHTED))
def test_irrcac_weighted_vectors_on_krippendorff_2004(scheme: str) -> None:
    from .test_agreement import RAW_4RATERS, items

    data = items(RAW_4RATERS)
    distance = 1 - np.asarray(Weights([1, 2, 3, 4, 5])[scheme])
    functions = (gwet_ac1, fleiss_pi, conger_kappa, brennan_prediger)
    for function, expected in zip(functions, TV40_WEIGHTED[scheme], strict=True):
        result = function(data, distance=distance)
        rounded = (round(result.observed, 3), round(result.expected, 3), round(result.value, 3))
        assert rounded == pytest.approx(expected, abs=1e-12), function.__name__


def test_light_kappa_on_krippendorff_2011_is_the_mean_of_irrcac_pairwise_kappas() -> None:
    # docs/metrics.md's JSON example prints light_kappa 0.712 on
    # docs/references.md#k2011-reliability-data: the mean over the six coder pairs of Cohen's
    # kappa with Gwet's missing-data convention, which is irrCAC's conger() on each pair.
    # (0.710, printed before, came from unit 12's value transcribed under coder B.)
    from .test_agreement import RAW_4RATERS

    matrix = np.array(RAW_4RATERS, dtype=float).T
    pairwise = []
    for g in range(4):
        for h in range(g + 1, 4):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                frame = pd.DataFrame(matrix[[g, h]].T)
                kappa = CAC(frame, categories=[1.0, 2.0, 3.0, 4.0, 5.0], digits=15).conger()
            pairwise.append(kappa["est"]["coefficient_value"])
    result = light_kappa(matrix)
    assert result.value == pytest.approx(np.mean(pairwise), abs=TOL)
    assert conger_kappa(matrix).value == pytest.approx(0.7630, abs=5e-4)  # irrCAC conger() .763
    assert round(result.value, 3) == 0.712
