"""γ and γ-cat (metrics.spans.gamma) against pygamma-agreement 0.5.9, DKPro's pygamma fixtures,
hand computations and an exhaustive search.

Sources (figures copied here; the tests read nothing from outside the repository):
- DKPro Agreement's pygamma fixtures (docs/references.md#pygamma-dkpro-fixtures): continua,
  best-alignment disorders, random continua with their disorders, and γ from 30 samples,
  all generated with pygamma-agreement 0.5.9.
- pygamma-agreement 0.5.9 run by us on our own cases with 1,000 random continua
  (docs/references.md#pygamma-live-cases) and with statistics pooled over documents
  (docs/references.md#pygamma-pooled-documents).
- Hand computations (docs/references.md#gamma-hand-examples).

pygamma computes in float32: its observed disorders are compared to a relative 1e-6 (they are
deterministic; our float64 values match the exact fractions to 1e-12). Expected disorders are
Monte-Carlo means: ours must lie within four standard errors of pygamma's, the standard
deviation of one random continuum's disorder (``sd``) being pygamma's.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from functools import cache
from typing import Any, NamedTuple

import numpy as np
import pytest

from metrics.spans import _gamma_alignment as alignment
from metrics.spans._gamma_dissimilarity import Dissimilarity
from metrics.spans.data import SpanData
from metrics.spans.gamma import (
    Gamma,
    decompose_gamma,
    gamma_agreement,
    gamma_cat,
)
from metrics.uncertainty.bootstrap import bootstrap

Unit = tuple[str, float, float, str]


def span_data(units: Sequence[Unit], **options: Any) -> SpanData:
    return SpanData.from_units([("doc", *unit) for unit in units], **options)


# -- DKPro Agreement's pygamma fixtures (docs/references.md#pygamma-dkpro-fixtures) ------------

DKPRO: dict[str, tuple[Sequence[Unit], dict[str, Any]]] = {
    "01": (
        [
            ("Ann1", 1, 5, "a"), ("Ann1", 6, 10, "b"), ("Ann1", 11, 15, "a"),
            ("Ann2", 2, 6, "a"), ("Ann2", 7, 11, "b"), ("Ann2", 12, 16, "a"),
        ],
        {},
    ),
    "02": (
        [
            ("Ann1", 1, 5, "a"), ("Ann1", 6, 10, "b"), ("Ann1", 20, 24, "a"),
            ("Ann1", 30, 34, "b"), ("Ann2", 2, 6, "a"), ("Ann2", 31, 35, "b"),
        ],
        {},
    ),
    "03": (
        [
            ("Ann1", 1, 5, "a"), ("Ann1", 10, 15, "b"), ("Ann1", 20, 25, "c"),
            ("Ann2", 1, 5, "a"), ("Ann2", 10, 15, "b"), ("Ann2", 20, 25, "c"),
        ],
        {},
    ),
    "04": (
        [
            ("Ann1", 1, 5, "a"), ("Ann1", 10, 14, "b"), ("Ann2", 2, 6, "a"),
            ("Ann2", 11, 15, "b"), ("Ann3", 1, 4, "a"), ("Ann3", 9, 14, "c"),
        ],
        {},
    ),
    "05": (
        [("Ann1", 1 + 10 * i, 6 + 10 * i, "abc"[i % 3]) for i in range(16)]
        + [("Ann2", 2 + 10 * i, 8 + 10 * i, "abc"[(i + 1) % 3]) for i in range(16)],
        {},
    ),
    "06": (
        [
            ("Ann1", 1, 5, "a"), ("Ann1", 6, 10, "b"), ("Ann1", 11, 15, "c"),
            ("Ann2", 2, 7, "a"), ("Ann2", 8, 12, "b"), ("Ann2", 11, 15, "a"),
        ],
        {"alpha": 3.0, "beta": 2.0},
    ),
}  # fmt: skip

# tier1 bestAlignmentDisorder (float32) and tier3 expected disorder / γ from 30 samples.
DKPRO_OBSERVED = {
    "01": 0.0625,
    "02": 0.7083333134651184,
    "03": 0.0,
    "04": 0.40875643491744995,
    "05": 1.0743801593780518,
    "06": 1.0277777910232544,
}
DKPRO_30_SAMPLES = {  # (expected disorder, γ)
    "01": (0.5369704365730286, 0.8836062550544739),
    "02": (1.6350783109664917, 0.5667893886566162),
    "03": (1.0543665885925293, 1.0),
    "04": (1.1979972124099731, 0.6588001847267151),
    "05": (0.9759838581085205, -0.10081756114959717),
    "06": (1.3599934577941895, 0.24427741765975952),
}

# tier2: random continua drawn by pygamma's sampler, with pygamma's best-alignment disorder.
DKPRO_RANDOM_CONTINUA: list[tuple[Sequence[Unit], float]] = [
    (
        [
            ("Ann1", 3.739378792537379, 7.164390503074478, "c"),
            ("Ann1", 11.300820699564976, 16.138917134227825, "a"),
            ("Ann2", 3.3955264392011246, 6.733030496281247, "a"),
            ("Ann2", 8.453036351042616, 12.383369995930018, "c"),
            ("Ann3", 2.533878572186274, 6.779294234723135, "a"),
            ("Ann3", 10.1748270562878, 14.272698176941343, "a"),
        ],
        0.8253426551818848,
    ),
    (
        [
            ("Ann1", 1.4699326906561878, 6.363081622694205, "b"),
            ("Ann1", 9.151188796103702, 13.570419821472388, "a"),
            ("Ann2", 0.23547566319096905, 5.519133282930137, "a"),
            ("Ann2", 9.041876277995224, 12.38351464912028, "b"),
            ("Ann3", 1.3790215600695561, 5.692205968998483, "a"),
            ("Ann3", 12.47640755762505, 16.491958863470707, "a"),
        ],
        0.9491496086120605,
    ),
    (
        [
            ("Ann1", 4.590062557341935, 8.430596476405938, "b"),
            ("Ann1", 12.778038819838205, 16.77230368821116, "a"),
            ("Ann2", 2.4462907887708916, 6.909375711063197, "b"),
            ("Ann2", 11.378319692913173, 15.27670771071711, "a"),
            ("Ann3", -1.0602198895988244, 2.96145816184545, "b"),
            ("Ann3", 5.749410239980914, 9.854337303865965, "a"),
        ],
        1.3278087377548218,
    ),
    (
        [
            ("Ann1", 1.5036681137022987, 5.5036681137022985, "b"),
            ("Ann1", 21.638979871703626, 25.638979871703626, "a"),
            ("Ann1", 25.187437860841495, 29.187437860841495, "a"),
            ("Ann2", -5.049272967793716, -1.0492729677937156, "a"),
            ("Ann2", 0.11160041653499575, 4.111600416534996, "a"),
        ],
        1.6484463214874268,
    ),
    (
        [
            ("Ann1", -5.46270206180098, -1.4627020618009796, "a"),
            ("Ann1", 11.040048521608725, 15.040048521608725, "a"),
            ("Ann2", -2.6481626814218244, 1.3518373185781756, "a"),
        ],
        0.9967346787452698,
    ),
]


# -- our cases, run with pygamma-agreement 0.5.9 (docs/references.md#pygamma-live-cases) ---------

OWN: dict[str, tuple[Sequence[Unit], dict[str, Any]]] = {
    "two_coders_no_categories": (
        [
            ("A", 0, 10, "x"), ("A", 12, 20, "x"), ("A", 25, 40, "x"), ("A", 45, 50, "x"),
            ("A", 60, 75, "x"), ("A", 80, 85, "x"), ("A", 90, 100, "x"),
            ("B", 1, 9, "x"), ("B", 12, 22, "x"), ("B", 26, 38, "x"), ("B", 47, 55, "x"),
            ("B", 62, 70, "x"), ("B", 71, 76, "x"), ("B", 95, 100, "x"),
        ],
        {},
    ),
    "three_coders_categories": (
        [
            ("A", 0, 10, "a"), ("A", 15, 30, "b"), ("A", 35, 40, "a"), ("A", 50, 70, "c"),
            ("A", 72, 80, "a"), ("B", 2, 11, "a"), ("B", 14, 28, "b"), ("B", 36, 42, "b"),
            ("B", 52, 68, "c"), ("B", 85, 90, "a"), ("C", 0, 9, "a"), ("C", 16, 31, "c"),
            ("C", 34, 41, "a"), ("C", 55, 65, "c"), ("C", 56, 60, "b"),
        ],
        {},
    ),
    # C annotated the document and marked nothing (pygamma: an annotator without units).
    "three_coders_one_found_nothing": (
        [
            ("A", 0, 10, "a"), ("A", 20, 30, "b"), ("A", 40, 55, "a"),
            ("B", 1, 12, "a"), ("B", 21, 29, "b"), ("B", 60, 70, "b"),
        ],
        {"annotated": [("doc", "C")]},
    ),
    "four_coders_categories": (
        [
            ("A", 0, 5, "a"), ("A", 10, 20, "b"), ("B", 1, 6, "a"), ("B", 11, 19, "b"),
            ("B", 30, 35, "a"), ("C", 0, 4, "a"), ("C", 12, 22, "a"), ("D", 2, 7, "b"),
            ("D", 9, 21, "b"), ("D", 31, 36, "a"),
        ],
        {},
    ),
}  # fmt: skip
OWN["three_coders_category_matrix"] = (OWN["three_coders_categories"][0], {})
MATRIX = [[0.0, 0.5, 1.0], [0.5, 0.0, 0.5], [1.0, 0.5, 0.0]]  # categories a, b, c


class Peer(NamedTuple):
    """pygamma-agreement 0.5.9, 1,000 random continua, numpy seed 11."""

    observed: float
    expected: float
    sd: float
    gamma: float
    cat_observed: float
    cat_expected: float
    cat_sd: float
    gamma_cat: float
    n: int = 1000


PYGAMMA = {
    "dkpro01": Peer(0.0625, 0.50142, 0.30068, 0.87536, 0.0, 0.43110, 0.28966, 1.0),
    "dkpro02": Peer(
        0.7083333134651184, 1.61322, 0.38543, 0.56092, 0.5161290168762207, 0.56909, 0.43237, 0.09306
    ),
    "dkpro03": Peer(0.0, 1.04367, 0.33697, 1.0, 0.0, 0.72144, 0.27246, 1.0),
    "dkpro04": Peer(
        0.40875643491744995, 1.15954, 0.32122, 0.64748,
        0.3382706344127655, 0.72414, 0.22491, 0.53286,
    ),
    "dkpro05": Peer(
        1.0743801593780518, 0.93318, 0.15226, -0.15131, 1.0, 0.69886, 0.11388, -0.43090
    ),
    "dkpro06": Peer(
        1.0277777910232544, 1.33531, 0.47109, 0.23031, 0.52173912525177, 0.59027, 0.34692, 0.11611
    ),
    "two_coders_no_categories": Peer(
        0.36153095960617065, 0.62391, 0.20550, 0.42054,
        0.26776328682899475, 0.36056, 0.18916, 0.25736,
    ),
    "three_coders_categories": Peer(
        0.8389504551887512, 1.33269, 0.20990, 0.37048, 0.605660617351532, 0.84187, 0.07992, 0.28058
    ),
    "three_coders_one_found_nothing": Peer(
        1.498792290687561, 1.90784, 0.52260, 0.21440, 0.7530832886695862, 0.82626, 0.27001, 0.08856
    ),
    "four_coders_categories": Peer(
        0.7930099368095398, 1.40859, 0.34084, 0.43702, 0.6673974394798279, 0.82920, 0.13098, 0.19513
    ),
    "three_coders_category_matrix": Peer(
        0.7056171298027039, 1.20342, 0.22122, 0.41366, 0.5074766278266907, 0.76685, 0.10340, 0.33823
    ),
}  # fmt: skip

SAMPLES = 400  # our random continua per cross-check


def case(name: str) -> tuple[SpanData, dict[str, Any]]:
    if name.startswith("dkpro"):
        units, dkpro_options = DKPRO[name[-2:]]
        return span_data(units), dict(dkpro_options)
    units, data_options = OWN[name]
    options: dict[str, Any] = {}
    if name == "three_coders_category_matrix":
        options["categorical"] = MATRIX
    return span_data(units, **data_options), options


def within_sampling_error(
    ours: float, theirs: float, sd: float, n_theirs: int, n_ours: int
) -> bool:
    return abs(ours - theirs) <= 4 * sd * math.sqrt(1 / n_theirs + 1 / n_ours) + 1e-12


# -- the dissimilarity, by hand (docs/references.md#gamma-hand-examples) ------------------------


def test_positional_dissimilarity_of_two_units_by_hand() -> None:
    # u = [1, 5), v = [2, 7): |1 - 2| + |5 - 7| = 3 over lengths 4 + 5 = 9, squared: 1/9.
    begin, end = np.array([1.0, 2.0]), np.array([5.0, 7.0])
    i, j = np.array([0]), np.array([1])
    plain = Dissimilarity.build(2, alpha=1.0, beta=1.0, delta_empty=1.0, categorical="nominal")
    assert plain.positional(begin, end, i, j)[0] == pytest.approx(1 / 9, abs=1e-15)
    # Combined with alpha 3, beta 2 and categories a, a: 3 · 1/9 + 2 · 0 = 1/3; a, b: 1/3 + 2.
    weighted = Dissimilarity.build(2, alpha=3.0, beta=2.0, delta_empty=1.0, categorical="nominal")
    assert weighted.combined(begin, end, np.array([0, 0]), i, j)[0] == pytest.approx(1 / 3)
    assert weighted.combined(begin, end, np.array([0, 1]), i, j)[0] == pytest.approx(7 / 3)
    # Δ∅ scales both parts (pygamma multiplies each by delta_empty).
    doubled = Dissimilarity.build(2, alpha=1.0, beta=1.0, delta_empty=2.0, categorical="nominal")
    assert doubled.combined(begin, end, np.array([0, 1]), i, j)[0] == pytest.approx(2 / 9 + 2)


def test_pair_dissimilarities_of_dkpro_fixture_01() -> None:
    # docs/references.md#pygamma-dkpro-fixtures: tier1 pairDissimilarities (positional).
    units = DKPRO["01"][0]
    begin = np.array([u[1] for u in units], dtype=float)
    end = np.array([u[2] for u in units], dtype=float)
    plain = Dissimilarity.build(2, alpha=1.0, beta=1.0, delta_empty=1.0, categorical="nominal")
    expected = {(0, 3): 0.0625, (0, 4): 2.25, (0, 5): 7.5625, (1, 3): 1.0, (2, 3): 5.0625}
    for (i, j), value in expected.items():
        assert plain.positional(begin, end, np.array([i]), np.array([j]))[0] == value


# -- observed disorder: exact ----------------------------------------------------------------------


def test_observed_disorder_by_hand() -> None:
    # docs/references.md#gamma-hand-examples
    # Fixture 02: two pairs shifted by 1 on length-4 units cost (2/8)² = 1/16 each, two lone
    # units cost 1 each: (1/16 + 1/16 + 2) / (6 units / 2 annotators) = 17/24.
    assert gamma_agreement(span_data(DKPRO["02"][0]), samples=1).observed == pytest.approx(
        17 / 24, abs=1e-12
    )
    # Fixture 06 (alpha 3, beta 2): 3·(3/9)² ... = 1/3 + 3/4 + 2 over 3 units per annotator.
    units, options = DKPRO["06"]
    assert gamma_agreement(span_data(units), samples=1, **options).observed == pytest.approx(
        37 / 36, abs=1e-12
    )


@pytest.mark.parametrize("fixture", sorted(DKPRO))
def test_observed_disorder_of_dkpro_fixtures(fixture: str) -> None:
    # docs/references.md#pygamma-dkpro-fixtures (pygamma's float32 tier1 bestAlignmentDisorder)
    units, options = DKPRO[fixture]
    observed = gamma_agreement(span_data(units), samples=1, **options).observed
    assert observed == pytest.approx(DKPRO_OBSERVED[fixture], rel=1e-6, abs=1e-12)


@pytest.mark.parametrize("index", range(len(DKPRO_RANDOM_CONTINUA)))
def test_observed_disorder_of_pygamma_random_continua(index: int) -> None:
    # docs/references.md#pygamma-dkpro-fixtures (tier2): three annotators, uneven counts.
    units, disorder = DKPRO_RANDOM_CONTINUA[index]
    data = span_data(units, extents={"doc": (-10.0, 40.0)})
    assert gamma_agreement(data, samples=1).observed == pytest.approx(disorder, rel=1e-6)


@pytest.mark.parametrize("name", sorted(PYGAMMA))
def test_observed_disorder_equals_pygamma(name: str) -> None:
    # docs/references.md#pygamma-live-cases
    data, options = case(name)
    result = gamma_agreement(data, samples=1, gamma_cat=True, **options)
    peer = PYGAMMA[name]
    assert result.observed == pytest.approx(peer.observed, rel=1e-6, abs=1e-12)
    assert result.gamma_cat is not None
    if name != "dkpro06":  # a tie between two best alignments, see the test below
        assert result.gamma_cat.observed == pytest.approx(peer.cat_observed, rel=1e-6, abs=1e-12)


def test_gamma_cat_of_tied_best_alignments() -> None:
    # docs/references.md#gamma-hand-examples: in fixture 06 the pair ([11,15) c, [11,15) a)
    # costs 0 + 2·1 = 2, as much as two lone units: both alignments are best (γ agrees), and
    # γ-cat depends on which one is found. Aligned pairs a-a (weight 1 - 3·1/9 = 2/3) and b-b
    # (1 - 3·1/4 = 1/4) agree; then c-a aligned (weight 1, disagreement 1) gives
    # 1 / (2/3 + 1/4 + 1) = 12/23 (pygamma's), and c, a alone (two unaligned pairs, Δ∅² each
    # with weight Δ∅) give 2 / (2/3 + 1/4 + 2) = 24/35 (ours).
    units, options = DKPRO["06"]
    result = gamma_cat(span_data(units), samples=1, **options)
    assert result.observed == pytest.approx(24 / 35, abs=1e-12)
    assert PYGAMMA["dkpro06"].cat_observed == pytest.approx(12 / 23, rel=1e-6)


def test_documents_side_by_side_equal_one_continuum() -> None:
    # docs/references.md#pygamma-live-cases: pygamma on one continuum holding the second
    # document 10,000 further on gives D_o 0.8012779355049133 and γ-cat's 0.6056606769561768;
    # two documents give the same (costs and units summed over documents).
    first = OWN["three_coders_categories"][0]
    second = [u for u in first if u != ("C", 56, 60, "b")] + [("A", 90, 95, "c")]
    data = SpanData.from_units([("d1", *u) for u in first] + [("d2", *u) for u in second])
    result = gamma_agreement(data, samples=1, gamma_cat=True)
    assert result.n_documents == 2
    assert result.observed == pytest.approx(0.8012779355049133, rel=1e-6)
    assert result.gamma_cat is not None
    assert result.gamma_cat.observed == pytest.approx(0.6056606769561768, rel=1e-6)


# -- the best alignment is the best: exhaustive search ---------------------------------------------


def brute_force_cost(units: Sequence[Unit], coders: list[str], alpha: float, beta: float) -> float:
    """Least summed disorder over every partition into unitary alignments (Δ∅ = 1)."""
    k = len(coders)
    pairs = k * (k - 1) / 2
    by_coder = [[u for u in units if u[0] == c] for c in coders]

    def d(u: Unit, v: Unit) -> float:
        shift = abs(u[1] - v[1]) + abs(u[2] - v[2])
        return alpha * (shift / ((u[2] - u[1]) + (v[2] - v[1]))) ** 2 + beta * (u[3] != v[3])

    @cache
    def best(left: frozenset[tuple[int, int]]) -> float:
        if not left:
            return 0.0
        first = min(left)
        choices = [
            [first] if c == first[0] else [None, *[x for x in left if x[0] == c]] for c in range(k)
        ]
        least = math.inf
        for chosen in itertools.product(*choices):
            members = [by_coder[x[0]][x[1]] for x in chosen if x is not None]
            inside = sum(d(u, v) for u, v in itertools.combinations(members, 2))
            m = len(members)
            cost = (inside + (pairs - m * (m - 1) / 2)) / pairs
            rest = left - {x for x in chosen if x is not None}
            least = min(least, cost + best(rest))
        return least

    return best(frozenset((c, i) for c in range(k) for i in range(len(by_coder[c]))))


@pytest.mark.parametrize("seed", range(12))
def test_best_alignment_equals_exhaustive_search(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = 2 + seed % 3
    coders = [f"c{i}" for i in range(k)]
    units: list[Unit] = []
    for coder in coders:
        for _ in range(rng.integers(0, 4 if k < 4 else 3)):
            begin = float(rng.integers(0, 30))
            units.append((coder, begin, begin + float(rng.integers(1, 12)), "ab"[rng.integers(2)]))
    if not units:
        units.append(("c0", 0.0, 5.0, "a"))
    alpha, beta = [(1.0, 1.0), (3.0, 2.0), (1.0, 0.0)][seed % 3]
    data = SpanData.from_units(
        [("doc", *u) for u in units],
        annotated=[("doc", c) for c in coders],
        extents={"doc": (0.0, 50.0)},
    )
    result = gamma_agreement(data, alpha=alpha, beta=beta, samples=1)
    expected = brute_force_cost(units, coders, alpha, beta) / (len(units) / k)
    assert result.observed == pytest.approx(expected, abs=1e-9)


def random_continua(k: int, groups: int, seed: int) -> alignment.Continua:
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 9, size=(groups, k))
    n = int(counts.sum())
    group = np.repeat(np.repeat(np.arange(groups), k), counts.ravel())
    slot = np.repeat(np.tile(np.arange(k), groups), counts.ravel())
    begin = rng.uniform(0, 60, n)
    end = begin + rng.uniform(0.5, 15, n)
    return alignment.Continua.build(
        group, slot, begin, end, rng.integers(0, 3, n), np.full(groups, k)
    )


@pytest.mark.parametrize("seed", range(5))
def test_two_annotator_assignment_equals_the_integer_programme(seed: int) -> None:
    continua = random_continua(2, 20, seed)
    dissimilarity = Dissimilarity.build(
        3, alpha=1.0, beta=1.0, delta_empty=1.0, categorical="nominal"
    )
    fast = alignment.best_alignment(continua, dissimilarity, method="assignment")
    exact = alignment.best_alignment(continua, dissimilarity, method="milp")
    np.testing.assert_allclose(
        fast.group_disorder(continua.n_groups), exact.group_disorder(continua.n_groups), atol=1e-9
    )


@pytest.mark.parametrize(("k", "seed"), [(3, 4), (4, 0), (4, 1)])
def test_relaxation_first_equals_the_integer_programme(
    k: int, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # These continua have a fractional LP optimum: the integer programme is solved on the
    # components holding fractional values only, and must give the whole programme's optimum.
    continua = random_continua(k, 15, seed=seed)
    dissimilarity = Dissimilarity.build(
        3, alpha=1.0, beta=1.0, delta_empty=1.0, categorical="nominal"
    )
    exact = alignment.best_alignment(continua, dissimilarity, method="milp")
    solved = []
    whole = alignment._integer_programme

    def spy(incidence: Any, cost: Any) -> Any:
        solved.append(incidence.shape[0])
        return whole(incidence, cost)

    monkeypatch.setattr(alignment, "_integer_programme", spy)
    auto = alignment.best_alignment(continua, dissimilarity)
    assert solved
    assert max(solved) < continua.n_units
    np.testing.assert_allclose(
        auto.group_disorder(continua.n_groups), exact.group_disorder(continua.n_groups), atol=1e-9
    )


def test_every_unit_is_aligned_once() -> None:
    continua = random_continua(3, 10, seed=9)
    dissimilarity = Dissimilarity.build(
        3, alpha=1.0, beta=1.0, delta_empty=1.0, categorical="nominal"
    )
    members = alignment.best_alignment(continua, dissimilarity).members
    used = np.sort(members[members >= 0])
    np.testing.assert_array_equal(used, np.arange(continua.n_units))


# -- expected disorder and γ: within sampling error --------------------------------------------


@pytest.mark.parametrize("name", sorted(PYGAMMA))
def test_expected_disorder_and_gamma_agree_with_pygamma(name: str) -> None:
    # docs/references.md#pygamma-live-cases
    data, options = case(name)
    result = gamma_agreement(data, samples=SAMPLES, seed=3, gamma_cat=True, **options)
    peer = PYGAMMA[name]
    assert result.samples == SAMPLES
    assert within_sampling_error(result.expected, peer.expected, peer.sd, peer.n, SAMPLES)
    assert result.gamma_cat is not None
    assert within_sampling_error(
        result.gamma_cat.expected, peer.cat_expected, peer.cat_sd, peer.n, SAMPLES
    )
    # γ = 1 - D_o / D_e moves by D_o / D_e² per unit of D_e.
    slack = 4 * peer.sd * math.sqrt(1 / peer.n + 1 / SAMPLES)
    tolerance = peer.observed * slack / (peer.expected - slack) ** 2 + 1e-9
    assert result.value == pytest.approx(peer.gamma, abs=tolerance)


@pytest.mark.parametrize("fixture", sorted(DKPRO))
def test_gamma_agrees_with_dkpro_fixture_values(fixture: str) -> None:
    # docs/references.md#pygamma-dkpro-fixtures: γ from pygamma's 30 random continua
    # (0.8836, 0.5668, 1.0, 0.6588, -0.1008, 0.2443); its standard error uses the sd of
    # docs/references.md#pygamma-live-cases.
    units, options = DKPRO[fixture]
    result = gamma_agreement(span_data(units), samples=SAMPLES, seed=4, **options)
    expected, value = DKPRO_30_SAMPLES[fixture]
    sd = PYGAMMA[f"dkpro{fixture}"].sd
    assert within_sampling_error(result.expected, expected, sd, 30, SAMPLES)
    slack = 4 * sd * math.sqrt(1 / 30 + 1 / SAMPLES)
    tolerance = result.observed * slack / (expected - slack) ** 2 + 1e-9
    assert result.value == pytest.approx(value, abs=tolerance)


def test_documents_pool_their_statistics_as_pygamma_sampler() -> None:
    # docs/references.md#pygamma-pooled-documents: pygamma's best alignment of each document,
    # and its StatisticalContinuumSampler given the statistics pooled over the documents
    # (init_sampling_custom), 1,000 random continua: D_o 0.7299937009811401, D_e 1.52312
    # (sd 0.50076), γ 0.52073.
    data = SpanData.from_units(POOLED_UNITS, complete=True)
    result = gamma_agreement(data, samples=SAMPLES, seed=5)
    assert result.observed == pytest.approx(0.7299937009811401, rel=1e-6)
    assert within_sampling_error(result.expected, 1.52312, 0.50076, 1000, SAMPLES)


POOLED_UNITS = [
    ("d1", "A", 0, 10, "a"), ("d1", "A", 15, 30, "b"), ("d1", "A", 35, 40, "a"),
    ("d1", "B", 2, 11, "a"), ("d1", "B", 14, 28, "b"), ("d1", "B", 36, 42, "b"),
    ("d1", "C", 0, 9, "a"), ("d1", "C", 16, 31, "c"),
    ("d2", "A", 5, 20, "c"), ("d2", "A", 22, 25, "a"), ("d2", "B", 4, 18, "c"),
    ("d2", "B", 21, 26, "a"), ("d2", "B", 30, 40, "b"), ("d2", "C", 6, 19, "c"),
    ("d2", "C", 22, 27, "b"),
    ("d3", "A", 1, 8, "a"), ("d3", "B", 2, 9, "a"),  # C annotated d3 and marked nothing
]  # fmt: skip


# -- properties -----------------------------------------------------------------------------------


def test_identical_annotations_give_one() -> None:
    units = [(c, b, e, k) for c in ("A", "B", "C") for b, e, k in [(0, 5, "x"), (8, 20, "y")]]
    result = gamma_agreement(span_data(units), samples=5)
    assert result.observed == 0.0
    assert result.value == 1.0
    assert result.expected > 0
    assert gamma_cat(span_data(units), samples=5).value == 1.0


def test_same_seed_same_value_other_seed_other_value() -> None:
    data, _ = case("three_coders_categories")
    first = gamma_agreement(data, samples=20, seed=7, gamma_cat=True)
    again = gamma_agreement(data, samples=20, seed=7, gamma_cat=True)
    other = gamma_agreement(data, samples=20, seed=8, gamma_cat=True)
    assert first == again
    assert first.expected != other.expected
    assert first.observed == other.observed


def test_precision_level_draws_the_samples_it_needs() -> None:
    # pygamma's rule: ceil((sd / mean · 1.96 / precision)²) continua in all, from the first batch.
    data, _ = case("two_coders_no_categories")
    result = gamma_agreement(data, samples=10, seed=2, precision_level="low")
    first = np.array(result.sample_disorders[:10])
    needed = math.ceil((first.std() / first.mean() * 1.96 / 0.1) ** 2)
    assert result.samples == max(10, needed) > 10
    assert result.expected == pytest.approx(np.mean(result.sample_disorders))
    assert gamma_agreement(data, samples=10, seed=2, precision_level=0.1) == result


def test_coders_who_did_not_annotate_a_document_do_not_count_there() -> None:
    # C annotated d1 only: d2 is a two-annotator continuum, as if C did not exist there.
    d1 = [("d1", c, b, e, k) for c, b, e, k in OWN["three_coders_categories"][0]]
    d2 = [("d2", c, b, e, k) for c, b, e, k in OWN["two_coders_no_categories"][0]]
    both = gamma_agreement(SpanData.from_units(d1 + d2), samples=1)
    cost_1 = PYGAMMA["three_coders_categories"].observed * 15 / 3
    cost_2 = PYGAMMA["two_coders_no_categories"].observed * 14 / 2
    assert both.observed == pytest.approx((cost_1 + cost_2) / (15 / 3 + 14 / 2), rel=1e-6)
    # A document only one coder annotated is left out.
    lone = [("d3", "A", 0.0, 4.0, "a")]
    with_lone = gamma_agreement(SpanData.from_units(d1 + d2 + lone), samples=1)
    assert with_lone.observed == both.observed
    assert with_lone.n_documents == 2


def test_delta_empty_scales_the_disorders() -> None:
    data, _ = case("three_coders_categories")
    one = gamma_agreement(data, samples=5, seed=1)
    two = gamma_agreement(data, samples=5, seed=1, delta_empty=2.0)
    assert two.observed == pytest.approx(2 * one.observed)
    assert two.expected == pytest.approx(2 * one.expected)
    assert two.value == pytest.approx(one.value)


def test_a_zero_category_matrix_equals_no_categorical_weight() -> None:
    data, _ = case("three_coders_categories")
    zero = gamma_agreement(data, samples=5, categorical=np.zeros((3, 3)))
    unweighted = gamma_agreement(data, samples=5, beta=0.0)
    assert zero.observed == pytest.approx(unweighted.observed)
    assert zero.value == pytest.approx(unweighted.value)


# -- decomposition and bootstrap --------------------------------------------------------------


def test_decomposition_holds_the_expected_disorder() -> None:
    d1 = [("d1", c, b, e, k) for c, b, e, k in OWN["three_coders_categories"][0]]
    d2 = [("d2", c, b, e, k) for c, b, e, k in OWN["two_coders_no_categories"][0]]
    lone = [("d3", "A", 0.0, 4.0, "a")]
    data = SpanData.from_units(d1 + d2 + lone)
    full = gamma_agreement(data, samples=20, seed=1)
    decomposition = decompose_gamma(data, expected=full.expected)
    assert decomposition.n_items == 3
    np.testing.assert_array_equal(decomposition.item_stats[2], [0.0, 0.0])
    assert float(decomposition.evaluate()) == pytest.approx(full.value, abs=1e-12)
    # Without `expected`, the same seed and samples give the same expected disorder.
    assert float(decompose_gamma(data, samples=20, seed=1).evaluate()) == pytest.approx(full.value)
    # Leaving d1 out: D_o of d2 alone, D_e held.
    only_d2 = decomposition.evaluate(np.array([[0.0, 1.0, 0.0]]))[0]
    assert only_d2 == pytest.approx(
        1 - PYGAMMA["two_coders_no_categories"].observed / full.expected, rel=1e-6
    )
    # A resample without units is undefined.
    assert np.isnan(decomposition.evaluate(np.array([[0.0, 0.0, 3.0]]))[0])
    interval = bootstrap(decomposition, replicates=200, seed=0, method="percentile")
    assert interval.low <= full.value <= interval.high


def test_gamma_cat_decomposition() -> None:
    d1 = [("d1", c, b, e, k) for c, b, e, k in OWN["three_coders_categories"][0]]
    d2 = [("d2", c, b, e, k) for c, b, e, k in OWN["four_coders_categories"][0]]
    data = SpanData.from_units(d1 + d2)
    full = gamma_cat(data, samples=20, seed=1)
    decomposition = decompose_gamma(data, expected=full.expected, gamma_cat=True)
    assert decomposition.name == "gamma_cat"
    assert float(decomposition.evaluate()) == pytest.approx(full.value, abs=1e-12)


# -- errors ----------------------------------------------------------------------------------------


def test_errors() -> None:
    with pytest.raises(ValueError, match="at least two annotators"):
        gamma_agreement(span_data([("A", 0, 5, "x")]))
    with pytest.raises(ValueError, match="annotated by two coders"):
        gamma_agreement(SpanData.from_units([("d1", "A", 0, 5, "x"), ("d2", "B", 0, 5, "x")]))
    with pytest.raises(ValueError, match="no unit"):
        gamma_agreement(SpanData.from_units([], annotated=[("d", "A"), ("d", "B")]))
    with pytest.raises(ValueError, match="positive length"):
        gamma_agreement(span_data([("A", 0, 5, "x"), ("B", 3, 3, "x")]))
    data, _ = case("dkpro01")
    with pytest.raises(ValueError, match="shape"):
        gamma_agreement(data, categorical=np.zeros((3, 3)))
    with pytest.raises(ValueError, match="symmetric"):
        gamma_agreement(data, categorical=np.array([[0, 1], [0.5, 0]]))
    with pytest.raises(ValueError, match="'nominal'"):
        gamma_agreement(data, categorical="ordinal")
    with pytest.raises(ValueError, match="samples"):
        gamma_agreement(data, samples=0)
    with pytest.raises(ValueError, match="precision_level"):
        gamma_agreement(data, precision_level="extreme")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="alpha"):
        gamma_agreement(data, alpha=-1.0)
    with pytest.raises(ValueError, match="delta_empty"):
        gamma_agreement(data, delta_empty=0.0)
    with pytest.raises(ValueError, match="expected"):
        decompose_gamma(data, expected=float("nan"))


def test_result_type() -> None:
    result = gamma_agreement(case("dkpro01")[0], samples=3, seed=2)
    assert isinstance(result, Gamma)
    assert (result.measure, result.samples, result.seed, result.n_units) == ("gamma", 3, 2, 6)
    assert result.gamma_cat is None
    assert len(result.sample_disorders) == 3
