"""Sample-size planning: how many items the next round needs for its lower bound to reach a target.

A target reads "the lower end of the round's ``confidence`` interval for the coefficient is at
least ``target``, with probability ``power``" (for example alpha's 95% lower bound ≥ 0.8 with
probability 0.9). For a candidate size ``n`` we simulate many future rounds of ``n`` items,
compute the lower bound each would report, and count how often it reaches the target; a
doubling search followed by bisection finds the smallest ``n`` that does it often enough.

Where the rounds come from
--------------------------
- **A pilot** (:func:`plan_items`): the pilot's items are the population. A simulated round
  draws ``n`` of them with replacement, so it is the row ``w`` of resampling counts of a
  :class:`~metrics.Decomposition`, exactly as a bootstrap replicate but with ``n`` draws
  instead of the pilot's size: its totals are ``w @ item_stats``. A block of rounds is one
  multinomial draw and one matrix product.
- **A model** (:func:`plan_without_pilot`): no pilot, but an assumed category distribution
  ``π``, an assumed population alpha (or pairwise agreement rate) and ``k`` coders per item.
  Each item has a true category drawn from ``π``; each coder independently reports it with
  probability ``p``, and otherwise a draw from ``π``. Two coders then agree with probability
  ``p² + (1 - p²) Σ π_c²`` while chance agreement is ``Σ π_c²``, so the population alpha (and
  pi and kappa) is ``p²``: ``p = sqrt(alpha)``. Every one of the ``V^k`` label patterns an
  item can show is one row of a :class:`~metrics.Decomposition`, weighted by its exact
  probability under the model; a round is a multinomial draw of ``n`` patterns.

The lower bound of a simulated round
------------------------------------
Bootstrapping every simulated round would cost replicates × rounds × sizes matrix products.
Instead each round reports the normal interval ``estimate − z · SE`` with
``z = Φ⁻¹((1 + confidence)/2)`` (the lower end of a two-sided interval at ``confidence``, as
the report prints it) and the delta-method (linearised) standard error of the round:
with ``g`` the gradient of ``finalize`` at the round's totals ``T`` (central differences),
every item ``u`` has the influence value ``L_u = g · s_u`` and

    SE² = n / (n − 1) · Σ_u w_u (L_u − L̄)²,   L̄ = Σ_u w_u L_u / n.

This is the first-order (infinitesimal-jackknife) variance of ``finalize(Σ s_u)``, the same
linearisation behind the analytic standard errors of kappa-like coefficients; it costs one
evaluation of ``finalize`` per statistics column and round, and it is vectorised over rounds.
Its coverage is checked by simulation in ``tests/metrics/test_planning.py`` and reported in
``docs/planning.md``. A round whose coefficient is undefined counts as a failure.

Examples
--------
>>> import numpy as np
>>> from metrics import decompose_krippendorff_alpha
>>> data, probabilities = model_pilot({"a": 0.5, "b": 0.5}, alpha=0.8, coders=2)
>>> decomposition = decompose_krippendorff_alpha(data)
>>> round(float(decomposition.evaluate(probabilities[None, :] * 1e6)[0]), 3)
0.8
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Hashable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics.data import ReliabilityData
from metrics.decomposition import Decomposition
from metrics.uncertainty.abc import abc_limits

#: How each simulated round's lower bound is computed (``PlanResult.method``): the ABC
#: interval, the analytic form of the report's BCa bootstrap interval
#: (:mod:`metrics.uncertainty.abc`).
METHOD = "bca-abc"
#: How the pilot's own uncertainty enters the plan (``pilot_uncertainty``):
#: ``"lower-bound"`` plans on the pilot's one-sided lower bound (see :data:`PILOT_LEVEL`);
#: ``"bootstrap"`` draws each simulated round's population from the pilot's bootstrap
#: distribution (a bootstrap resample of the pilot's items, or for the model an alpha drawn
#: from the pilot's bootstrap replicates), which keeps the promise on average over pilots;
#: ``"none"`` takes the pilot as the truth.
PILOT_UNCERTAINTY = ("lower-bound", "bootstrap", "none")
#: ``"lower-bound"``: every simulated round is drawn from a bootstrap resample of the pilot
#: whose coefficient sits at the pilot's one-sided lower bound at this level (the 20%
#: quantile of its bootstrap replicates), after Browne (1995), who plans on an 80% upper
#: confidence limit of a pilot's standard deviation: the plan then keeps its power for
#: about 80% of the pilots a population gives.
PILOT_LEVEL = 0.8
#: The default: plans keep their promise under the process that generated the pilot, not
#: only under the pilot (docs/planning.md).
DEFAULT_PILOT_UNCERTAINTY = "lower-bound"
#: Decimals to which a resample's distance to the pilot's bound is rounded before ranking.
_TIE_DECIMALS = 9
#: Rounds ``start`` to ``stop - 1`` → their populations, one row per round: either the
#: probabilities of drawing each population row (float), or the list of population rows a
#: resample holds (integer; a round draws uniformly from the list).
Populations = Callable[[int, int], NDArray[Any]]
#: At most this many label patterns (categories ** coders) are enumerated by the model.
MAX_PATTERNS = 200_000
# Elements of one block of resampling counts (rounds × items); bounds memory to ~32 MB.
_BLOCK_ELEMENTS = 1 << 22
# Relative step of the central differences behind the gradient of finalize.
_STEP = 1e-6

__all__ = [
    "DEFAULT_PILOT_UNCERTAINTY",
    "MAX_PATTERNS",
    "METHOD",
    "PILOT_UNCERTAINTY",
    "PlanResult",
    "model_draws",
    "model_pilot",
    "pilot_resamples",
    "plan_items",
    "plan_without_pilot",
    "round_probability",
    "simulated_rounds",
]


@dataclass(frozen=True)
class PlanResult:
    """How many items the next round needs, and the curve the search evaluated.

    Attributes
    ----------
    n_items : int
        The smallest evaluated size whose probability reached ``power`` (up to the search
        resolution, see :func:`plan_items`).
    target, power, confidence : float
        The target for the lower bound, the probability required, the confidence level of
        the interval whose lower end is compared with the target.
    probability : float
        Estimated probability that a round of ``n_items`` items reaches the target.
    curve : tuple of (int, float)
        Every evaluated size with its probability, by size.
    method : str
        :data:`METHOD`: the lower bound of a simulated round is the ABC interval, the
        analytic form of the BCa bootstrap interval the report prints.
    seed : int
        Seed of the simulated rounds (size ``n`` uses ``np.random.default_rng([seed, n])``).
    estimate : float
        The coefficient on the population the rounds are drawn from (the pilot, or the model).
    replicates : int
        Simulated rounds per evaluated size.
    source : str
        ``"pilot"`` or ``"model"``.
    pilot_uncertainty : str
        One of :data:`PILOT_UNCERTAINTY`: ``"bootstrap"`` when every simulated round drew its
        population from the pilot's bootstrap distribution, ``"none"`` when the pilot (or the
        model's assumed value) was taken as the truth.
    ceiling : float
        The probability very large rounds approach: the share of simulated populations
        whose coefficient exceeds the target (1 when the pilot is taken as the truth).
    """

    n_items: int
    target: float
    power: float
    confidence: float
    probability: float
    curve: tuple[tuple[int, float], ...]
    method: str
    seed: int
    estimate: float
    replicates: int
    source: str
    pilot_uncertainty: str = "none"
    ceiling: float = 1.0

    def to_json(self) -> dict[str, Any]:
        """The JSON contract of ``python -m metrics plan --json``."""
        return {
            "n_items": self.n_items,
            "target": self.target,
            "power": self.power,
            "confidence": self.confidence,
            "probability": self.probability,
            "curve": [{"n": n, "probability": p} for n, p in self.curve],
            "method": self.method,
            "seed": self.seed,
            "estimate": self.estimate,
            "replicates": self.replicates,
            "source": self.source,
            "pilot_uncertainty": self.pilot_uncertainty,
            "ceiling": self.ceiling,
        }


# -- the lower bound of simulated rounds --------------------------------------------------------


def simulated_rounds(
    decomposition: Decomposition, weights: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Estimate and delta-method standard error of each simulated round.

    Parameters
    ----------
    decomposition : Decomposition
        The coefficient as per-item statistics.
    weights : ndarray, shape (rounds, n_items)
        Row ``r`` counts how often each item of ``decomposition`` is in round ``r``; a round
        has ``weights[r].sum()`` items (at least 2).

    Returns
    -------
    estimates, standard_errors : ndarray of float64, shape (rounds,)
        ``nan`` where the coefficient (or its gradient) is undefined on the round.

    Examples
    --------
    Observed agreement of 100 items, 70 agreed on: SE = sqrt(0.7 · 0.3 / 99 · 100/100).

    >>> stats = np.array([[1.0, 1.0]] * 70 + [[0.0, 1.0]] * 30)
    >>> ao = Decomposition("ao", stats, lambda t: t[..., 0] / t[..., 1])
    >>> estimate, se = simulated_rounds(ao, np.ones((1, 100)))
    >>> round(float(estimate[0]), 3), round(float(se[0]), 4)
    (0.7, 0.0461)
    """
    weights = np.asarray(weights, dtype=np.float64)
    if weights.ndim != 2 or weights.shape[1] != decomposition.n_items:
        raise ValueError(
            f"weights must be rounds × {decomposition.n_items} items; got shape {weights.shape}."
        )
    sizes = weights.sum(axis=1)
    if np.any(sizes < 2):
        raise ValueError("Every simulated round needs at least two items.")
    totals = decomposition.totals(weights)
    with np.errstate(divide="ignore", invalid="ignore"):
        estimates = _finalize(decomposition, totals)
        gradient = _gradient(decomposition, totals)
        influence = np.asarray(decomposition.item_stats @ gradient.T).T  # rounds × items
        mean = (weights * influence).sum(axis=1) / sizes
        spread = (weights * (influence - mean[:, None]) ** 2).sum(axis=1)
        se = np.sqrt(spread * sizes / (sizes - 1.0))
    valid = np.isfinite(estimates) & np.isfinite(se)
    return np.where(valid, estimates, np.nan), np.where(valid, se, np.nan)


def _finalize(decomposition: Decomposition, totals: NDArray[np.float64]) -> NDArray[np.float64]:
    values = np.asarray(decomposition.finalize(totals), dtype=np.float64).reshape(len(totals))
    return np.where(np.isfinite(values), values, np.nan)


def _gradient(decomposition: Decomposition, totals: NDArray[np.float64]) -> NDArray[np.float64]:
    """Central-difference gradient of ``finalize`` at each row of ``totals`` (one column at a
    time: a loop over statistics columns, vectorised over rounds)."""
    step = _STEP * np.maximum(np.abs(totals).max(axis=1), 1.0)
    gradient = np.empty_like(totals)
    for column in range(totals.shape[1]):
        up = totals.copy()
        down = totals.copy()
        up[:, column] += step
        down[:, column] -= step
        gradient[:, column] = (_finalize(decomposition, up) - _finalize(decomposition, down)) / (
            2.0 * step
        )
    return gradient


# -- probability of reaching the target at one size -------------------------------------------


def round_probability(
    decomposition: Decomposition,
    n: int,
    *,
    target: float,
    confidence: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    item_probabilities: NDArray[np.float64] | None = None,
    populations: Populations | None = None,
) -> float:
    """Share of simulated rounds of ``n`` items whose lower bound reaches ``target``.

    Each round's lower bound is the lower end of its two-sided ABC interval at
    ``confidence`` (:func:`metrics.uncertainty.abc.abc_limits`), the report's BCa interval
    in analytic form.

    Parameters
    ----------
    decomposition : Decomposition
        The population of items (a pilot's, or the model's label patterns).
    n : int
        Items per simulated round (≥ 2).
    target : float
        The value the lower bound must reach (``≥``).
    confidence : float, default 0.95
        Confidence level of the two-sided interval whose lower end is compared.
    replicates : int, default 1000
        Simulated rounds.
    seed : int, default 0
        Rounds of size ``n`` draw from ``np.random.default_rng([seed, n])``.
    item_probabilities : ndarray, optional
        Probability of drawing each row of ``decomposition`` (uniform when omitted: a pilot).
    populations : callable, optional
        ``populations(start, stop)`` gives the rows' probabilities for rounds ``start`` to
        ``stop - 1``, one population per round (the pilot's uncertainty, see
        :func:`plan_items`); it replaces ``item_probabilities``.

    Returns
    -------
    float
    """
    _check_common(target=target, power=0.5, confidence=confidence, replicates=replicates, seed=seed)
    if not (_is_int(n) and n >= 2):
        raise ValueError(f"n must be an integer ≥ 2; got {n!r}.")
    probabilities = _item_probabilities(decomposition, item_probabilities)
    level = np.array([(1.0 - confidence) / 2.0])
    rng = np.random.default_rng([seed, int(n)])
    reached = 0
    for start, rows in _blocks(decomposition.n_items, replicates):
        if populations is None:
            weights = _draw_rounds(rng, int(n), probabilities, rows)
        else:
            weights = _draw_rounds_from(
                rng, int(n), populations(start, start + rows), decomposition.n_items
            )
        lower = abc_limits(decomposition, weights, level)[:, 0]
        with np.errstate(invalid="ignore"):
            reached += int(np.count_nonzero(lower >= target))
    return reached / replicates


def _blocks(n_items: int, replicates: int) -> list[tuple[int, int]]:
    """``(start, rows)`` of the blocks of rounds; a function of the sizes only, so that a
    population drawn per block is the same for every round size."""
    block = max(1, min(replicates, _BLOCK_ELEMENTS // max(n_items, 1)))
    return [(start, min(block, replicates - start)) for start in range(0, replicates, block)]


def _draw_rounds(
    rng: np.random.Generator, n: int, probabilities: NDArray[np.float64], rounds: int
) -> NDArray[np.float64]:
    """Resampling counts of ``rounds`` rounds of ``n`` items (rounds × population)."""
    size = probabilities.size
    if n < size:  # drawing n indices per round is cheaper than a multinomial over every item
        drawn = rng.choice(size, size=(rounds, n), p=probabilities)
        flat = (drawn + size * np.arange(rounds)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rounds * size).reshape(rounds, size)
        return counts.astype(np.float64)
    return rng.multinomial(n, probabilities, size=rounds).astype(np.float64)


def _draw_rounds_from(
    rng: np.random.Generator, n: int, populations: NDArray[Any], size: int
) -> NDArray[np.float64]:
    """Resampling counts (rounds × ``size`` rows) of one round of ``n`` items from each row
    of ``populations``: integer rows list the population's rows (a resample: draw ``n`` of
    its entries uniformly), float rows are the rows' probabilities."""
    rounds = len(populations)
    if np.issubdtype(populations.dtype, np.integer):
        picks = rng.integers(0, populations.shape[1], size=(rounds, n))
        drawn = np.take_along_axis(populations, picks, axis=1)
        flat = (drawn + size * np.arange(rounds)[:, None]).ravel()
        counts = np.bincount(flat, minlength=rounds * size).reshape(rounds, size)
        return counts.astype(np.float64)
    rows = populations / populations.sum(axis=1, keepdims=True)
    return rng.multinomial(n, rows).astype(np.float64)


# -- the pilot's uncertainty --------------------------------------------------------------------


def pilot_resamples(n_items: int, seed: int) -> Populations:
    """Populations that are bootstrap resamples of a pilot of ``n_items`` items.

    Rounds ``start`` to ``stop`` of a block draw their resamples from
    ``np.random.default_rng([seed, 1, start])``: every round size sees the same populations
    (common random numbers keep the curve smooth)."""

    def populations(start: int, stop: int) -> NDArray[np.intp]:
        rng = np.random.default_rng([seed, 1, start])
        return rng.integers(0, n_items, size=(stop - start, n_items), dtype=np.intp)

    return populations


def pilot_lower_resamples(
    decomposition: Decomposition, *, seed: int, replicates: int, level: float = PILOT_LEVEL
) -> tuple[Populations, float]:
    """Populations at the pilot's one-sided lower bound, and that bound.

    ``replicates`` bootstrap resamples of the pilot (:func:`pilot_resamples`) are drawn; the
    bound is the ``1 - level`` quantile of their coefficients, and the ``max(10,
    replicates // 20)`` resamples whose coefficients lie nearest to it are the populations,
    round ``r`` drawing from the ``r``-th of them (cyclically)."""
    n_items = decomposition.n_items
    resamples = pilot_resamples(n_items, seed)
    blocks = [resamples(start, start + rows) for start, rows in _blocks(n_items, replicates)]
    values = np.concatenate([_population_values(decomposition, block) for block in blocks])
    defined = np.isfinite(values)
    if np.count_nonzero(defined) < 2:
        raise ValueError(
            f"The {decomposition.name} is undefined on almost every bootstrap resample of the "
            "pilot; there is no lower bound to plan on."
        )
    bound = float(np.quantile(values[defined], 1.0 - level))
    keep = max(10, replicates // 20)
    # Many resamples share one coefficient; their distances to the bound differ only in the
    # last bits, which the CPU's vector kernels decide. Rounded, ties go to the first drawn,
    # so a seed picks the same populations on every machine.
    distance = np.round(np.abs(values - bound), _TIE_DECIMALS)
    nearest = np.argsort(np.where(defined, distance, np.inf), kind="stable")[:keep]
    chosen = np.concatenate(blocks)[nearest]

    def populations(start: int, stop: int) -> NDArray[np.intp]:
        return chosen[np.arange(start, stop) % len(chosen)]

    return populations, bound


def _population_values(decomposition: Decomposition, drawn: NDArray[Any]) -> NDArray[np.float64]:
    """The coefficient of each population (rows of indices or of probabilities) in the limit
    of a very large round."""
    size = decomposition.n_items
    rows = len(drawn)
    if np.issubdtype(drawn.dtype, np.integer):
        flat = (drawn + size * np.arange(rows)[:, None]).ravel()
        drawn = np.bincount(flat, minlength=rows * size).reshape(rows, size).astype(float)
    shares = drawn / drawn.sum(axis=1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _finalize(decomposition, decomposition.totals(shares * 1e9))


def _ceiling(
    decomposition: Decomposition, populations: Populations, replicates: int, target: float
) -> float:
    """Share of the populations whose coefficient exceeds ``target``: the probability of
    reaching it that rounds approach as they grow (each round's bound tends to its
    population's value)."""
    above = 0
    for start, rows in _blocks(decomposition.n_items, replicates):
        values = _population_values(decomposition, populations(start, start + rows))
        above += int(np.count_nonzero(values > target))
    return above / replicates


# -- the search --------------------------------------------------------------------------------


def plan_items(
    decomposition: Decomposition,
    *,
    target: float,
    power: float = 0.8,
    confidence: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    min_items: int = 20,
    max_items: int = 100_000,
    resolution: float = 0.01,
    item_probabilities: NDArray[np.float64] | None = None,
    pilot_uncertainty: str = DEFAULT_PILOT_UNCERTAINTY,
    populations: Populations | None = None,
) -> PlanResult:
    """Smallest number of items for which the lower bound reaches ``target`` with ``power``.

    Starting at ``min_items``, the size doubles until the probability of reaching the target
    (:func:`round_probability`) is at least ``power``; bisection between the last size that
    failed and the first that succeeded then narrows the answer to within ``resolution`` of
    it (relative; at least one item). Each size is simulated with its own seeded stream, so
    the result is reproducible; the probability is a Monte-Carlo estimate with standard
    error about ``sqrt(power (1 - power) / replicates)``.

    Parameters
    ----------
    decomposition : Decomposition
        The pilot round's coefficient, e.g. ``decompose_krippendorff_alpha(pilot)``; its
        items are resampled with replacement (see the module docstring).
    target : float
        The lower bound must be at least this.
    power : float, default 0.8
        Required probability of reaching the target, strictly between 0 and 1.
    confidence : float, default 0.95
        Confidence level of the two-sided interval whose lower end must reach the target
        (a one-sided bound at level ``c`` is ``confidence = 2c - 1``).
    replicates : int, default 1000
        Simulated rounds per evaluated size.
    seed : int, default 0
        Non-negative seed.
    min_items : int, default 20
        Smallest size considered: below about 20 items neither the normal interval nor the
        bootstrap interval of the report can be trusted (a handful of items that all agree
        give an interval of zero width).
    max_items : int, default 100000
        Largest size considered; if it does not reach ``power``, ``ValueError``.
    resolution : float, default 0.01
        Relative precision of the bisection.
    item_probabilities : ndarray, optional
        Probability of each row of ``decomposition`` (a model's label patterns); uniform
        when omitted.
    pilot_uncertainty : {"lower-bound", "bootstrap", "none"}, default "lower-bound"
        From a pilot (no ``item_probabilities``), how its own uncertainty enters:
        ``"lower-bound"`` draws every simulated round from a bootstrap resample of the pilot
        whose coefficient is the pilot's one-sided :data:`PILOT_LEVEL` lower bound (the
        plan then holds for about 80% of the pilots a population gives, Browne 1995);
        ``"bootstrap"`` draws every round from its own bootstrap resample of the pilot, so
        the probability is an average over what the pilot says the population may be (it
        holds on average over pilots, less for a pilot that came out high); ``"none"``
        draws every round from the pilot itself, taking its estimate as the truth.
        Ignored for a model (see ``populations``).
    populations : callable, optional
        Per-round populations (``populations(start, stop)`` → rounds × rows probabilities),
        e.g. a model whose alpha is drawn per round (:func:`plan_without_pilot`); given,
        they are used whatever ``pilot_uncertainty`` says.

    Returns
    -------
    PlanResult

    Raises
    ------
    ValueError
        If the coefficient of the population is undefined or does not exceed ``target`` (no
        number of items makes the target likely), if fewer than ``power`` of the drawn
        populations exceed it (``ceiling``), if ``max_items`` is not enough, or if an
        argument is out of range.

    Examples
    --------
    A pilot of 200 items where two coders agree on 170 (observed agreement 0.85): how many
    items make the 95% lower bound of the agreement at least 0.8, with probability 0.8?

    >>> stats = np.array([[1.0, 1.0]] * 170 + [[0.0, 1.0]] * 30)
    >>> ao = Decomposition("ao", stats, lambda t: t[..., 0] / t[..., 1])
    >>> plan = plan_items(ao, target=0.8, power=0.8, seed=1, pilot_uncertainty="none")
    >>> 400 < plan.n_items < 500  # normal theory ((1.96 + 0.84)·0.357 / 0.05)² ≈ 400; BCa lower
    True

    The BCa bound of a proportion near 0.85 sits below the normal one (skewed to the left), so
    the plan is a little above normal theory (455 items). Carrying the pilot's uncertainty
    (the default: its one-sided 80% lower bound, about 0.82) asks for more.

    >>> carried = plan_items(ao, target=0.8, power=0.8, seed=1)
    >>> carried.n_items > plan.n_items, carried.pilot_uncertainty
    (True, 'lower-bound')
    """
    _check_common(
        target=target, power=power, confidence=confidence, replicates=replicates, seed=seed
    )
    if not isinstance(decomposition, Decomposition) or decomposition.n_items < 1:
        raise ValueError("Expected a Decomposition with at least one item (the pilot).")
    if not (_is_int(min_items) and _is_int(max_items) and 2 <= min_items <= max_items):
        raise ValueError(
            f"Need integers 2 ≤ min_items ≤ max_items; got {min_items!r} and {max_items!r}."
        )
    if not (isinstance(resolution, float | int) and 0.0 <= resolution < 1.0):
        raise ValueError(f"resolution must be in [0, 1); got {resolution!r}.")
    if pilot_uncertainty not in PILOT_UNCERTAINTY:
        raise ValueError(
            f"pilot_uncertainty must be one of {', '.join(PILOT_UNCERTAINTY)}; got "
            f"{pilot_uncertainty!r}."
        )
    probabilities = _item_probabilities(decomposition, item_probabilities)
    source = "pilot" if item_probabilities is None else "model"
    # The pilot's own value; for a model, its population value (a very large round).
    scale = decomposition.n_items if item_probabilities is None else 1e9
    with np.errstate(divide="ignore", invalid="ignore"):
        totals = decomposition.totals(probabilities[None, :] * scale)
        estimate = float(_finalize(decomposition, totals)[0])
    if not np.isfinite(estimate):
        raise ValueError(
            f"The coefficient {decomposition.name!r} is undefined on the {source} (for example "
            "every label is the same), so there is nothing to plan from."
        )
    if estimate <= target:
        raise ValueError(
            f"The target cannot be reached: the {decomposition.name} of the {source} is "
            f"{estimate:.4f}, not above the target {target}; more items only make the lower "
            "bound approach that value. Lower the target or improve agreement first."
        )
    populations, carried, ceiling = _uncertainty(
        decomposition,
        populations,
        pilot_uncertainty if source == "pilot" else "none",
        target=target,
        power=power,
        seed=int(seed),
        replicates=replicates,
        estimate=estimate,
        source=source,
    )
    curve: dict[int, float] = {}

    def probability(n: int) -> float:
        if n not in curve:
            curve[n] = round_probability(
                decomposition,
                n,
                target=target,
                confidence=confidence,
                replicates=replicates,
                seed=seed,
                item_probabilities=probabilities,
                populations=populations,
            )
        return curve[n]

    n_items = _search(probability, min_items, max_items, power, resolution, curve)
    return PlanResult(
        n_items=n_items,
        target=float(target),
        power=float(power),
        confidence=float(confidence),
        probability=curve[n_items],
        curve=tuple(sorted(curve.items())),
        method=METHOD,
        seed=int(seed),
        estimate=estimate,
        replicates=int(replicates),
        source=source,
        pilot_uncertainty=carried,
        ceiling=ceiling,
    )


def _uncertainty(
    decomposition: Decomposition,
    populations: Populations | None,
    option: str,
    *,
    target: float,
    power: float,
    seed: int,
    replicates: int,
    estimate: float,
    source: str,
) -> tuple[Populations | None, str, float]:
    """The populations the rounds are drawn from, the option carried and the ceiling;
    ``ValueError`` when the pilot's uncertainty leaves the target out of reach."""
    carried = "none"
    if populations is not None:
        carried = "bootstrap"
    elif option == "bootstrap":
        populations, carried = pilot_resamples(decomposition.n_items, seed), "bootstrap"
    elif option == "lower-bound":
        populations, bound = pilot_lower_resamples(decomposition, seed=seed, replicates=replicates)
        carried = "lower-bound"
        if bound <= target:
            raise ValueError(
                f"The target cannot be reached: the pilot's {decomposition.name} is "
                f"{estimate:.4f} but its one-sided {PILOT_LEVEL:.0%} lower bound is "
                f"{bound:.4f}, not above the target {target}; a plan on that bound cannot "
                "reach it. Lower the target, start from a larger pilot, or plan with "
                "pilot_uncertainty 'bootstrap' or 'none' (optimistic)."
            )
    ceiling = 1.0
    if populations is not None:
        ceiling = _ceiling(decomposition, populations, replicates, target)
        if ceiling < power:
            raise ValueError(
                f"The target cannot be reached with probability {power}: the {source}'s "
                f"{decomposition.name} is {estimate:.4f}, but only {ceiling:.3f} of the "
                f"populations its uncertainty allows (its bootstrap resamples) have a "
                f"{decomposition.name} above {target}, and no round size does better than that "
                "share. Lower the target or the power, or start from a larger pilot."
            )
    return populations, carried, ceiling


def _search(
    probability: Callable[[int], float],
    min_items: int,
    max_items: int,
    power: float,
    resolution: float,
    curve: Mapping[int, float],
) -> int:
    failed = None
    n = min_items
    while probability(n) < power:
        failed = n
        if n >= max_items:
            raise ValueError(
                f"Even {max_items} items reach the target with probability only "
                f"{curve[max_items]:.3f} < power; raise max_items or lower the target or power."
            )
        n = min(2 * n, max_items)
    if failed is None:
        return n
    succeeded = n
    while succeeded - failed > max(1, int(resolution * succeeded)):
        middle = (failed + succeeded) // 2
        if probability(middle) >= power:
            succeeded = middle
        else:
            failed = middle
    return succeeded


# -- no pilot: the model -------------------------------------------------------------------------


def model_pilot(
    categories: Mapping[Hashable, float],
    *,
    alpha: float | None = None,
    agreement: float | None = None,
    coders: int = 2,
) -> tuple[ReliabilityData, NDArray[np.float64]]:
    """Every label pattern an item can show under the model, with its probability.

    The model (module docstring): an item's true category is drawn from ``categories``; each
    of ``coders`` coders reports it with probability ``p`` and otherwise a draw from
    ``categories``. ``p = sqrt(alpha)``: the population alpha, pi and kappa all equal ``p²``.
    Given ``agreement`` (the probability that two coders agree) instead,
    ``p² = (agreement − Σπ²) / (1 − Σπ²)``.

    Parameters
    ----------
    categories : mapping of label to probability
        The category distribution ``π`` (at least two categories, positive, summing to 1).
    alpha, agreement : float
        Exactly one: the population alpha in [0, 1], or the pairwise agreement rate in
        [Σπ², 1].
    coders : int, default 2
        Coders per item (≥ 2).

    Returns
    -------
    data : ReliabilityData
        ``coders`` × ``V**coders`` items, one per label pattern (``V`` categories).
    probabilities : ndarray of float64, shape (V**coders,)
        Probability of each pattern.

    Examples
    --------
    >>> data, probabilities = model_pilot({"yes": 0.5, "no": 0.5}, alpha=0.64, coders=2)
    >>> data.codes.shape, [round(float(p), 2) for p in probabilities]
    ((2, 4), [0.41, 0.09, 0.09, 0.41])
    """
    labels, prior = _check_categories(categories)
    if not (_is_int(coders) and coders >= 2):
        raise ValueError(f"coders must be an integer ≥ 2; got {coders!r}.")
    chance = float(np.sum(prior**2))
    if (alpha is None) == (agreement is None):
        raise ValueError("Give exactly one of alpha and agreement.")
    if alpha is not None:
        if not (_is_number(alpha) and 0.0 <= alpha <= 1.0):
            raise ValueError(f"alpha must be in [0, 1] for this model; got {alpha!r}.")
        reliability = float(alpha)
    else:
        if not (_is_number(agreement) and chance <= float(agreement) <= 1.0):  # type: ignore[arg-type]
            raise ValueError(
                f"agreement must be in [{chance:.4f}, 1] (chance agreement Σπ² to 1) for "
                f"these categories; got {agreement!r}."
            )
        reliability = (float(agreement) - chance) / (1.0 - chance)  # type: ignore[arg-type]
    n_patterns = len(labels) ** coders
    if n_patterns > MAX_PATTERNS:
        raise ValueError(
            f"{len(labels)} categories and {coders} coders give {n_patterns} label patterns; "
            f"at most {MAX_PATTERNS} are enumerated. Merge rare categories or plan for fewer "
            "coders."
        )
    patterns = np.array(list(itertools.product(range(len(labels)), repeat=coders)), dtype=np.intp)
    probabilities = _pattern_probabilities(prior, patterns, np.array([reliability]))[0]
    data = ReliabilityData(
        patterns.T.copy(),
        tuple(labels),
        tuple(range(n_patterns)),
        tuple(range(coders)),
    )
    return data, probabilities


def _pattern_probabilities(
    prior: NDArray[np.float64], patterns: NDArray[np.intp], alphas: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Probability of each label pattern under the model, one row per alpha in ``alphas``."""
    p = np.sqrt(np.clip(alphas, 0.0, 1.0))[:, None, None]
    # report[a, c, v]: probability that a coder reports v on an item whose true category is c.
    report = p * np.eye(prior.size)[None] + (1.0 - p) * prior[None, None, :]
    coders = patterns.shape[1]
    per_true = np.ones((len(alphas), prior.size, len(patterns)))
    for coder in range(coders):  # a loop over the (few) coders, vectorised over patterns
        per_true *= report[:, :, patterns[:, coder]]
    probabilities = np.einsum("c,acp->ap", prior, per_true)
    return np.asarray(probabilities / probabilities.sum(axis=1, keepdims=True))


def model_draws(
    categories: Mapping[Hashable, float],
    alphas: NDArray[np.float64],
    *,
    coders: int,
    seed: int,
) -> Populations:
    """Populations of the model whose alpha is drawn, per round, from ``alphas`` (e.g. a
    pilot's bootstrap replicates of its nominal alpha; clipped to [0, 1], ``nan`` dropped).

    Rounds ``start`` to ``stop`` of a block draw from ``np.random.default_rng([seed, 2,
    start])``."""
    labels, prior = _check_categories(categories)
    values = np.asarray(alphas, dtype=np.float64).reshape(-1)
    values = values[np.isfinite(values)]
    if values.size < 2:
        raise ValueError("Need at least two defined alpha values to draw the model's alpha from.")
    patterns = np.array(list(itertools.product(range(len(labels)), repeat=coders)), dtype=np.intp)

    def populations(start: int, stop: int) -> NDArray[np.float64]:
        rng = np.random.default_rng([seed, 2, start])
        drawn = values[rng.integers(0, values.size, size=stop - start)]
        return _pattern_probabilities(prior, patterns, drawn)

    return populations


def plan_without_pilot(
    categories: Mapping[Hashable, float],
    *,
    decompose: Callable[[ReliabilityData], Decomposition],
    target: float,
    alpha: float | None = None,
    agreement: float | None = None,
    coders: int = 2,
    power: float = 0.8,
    confidence: float = 0.95,
    replicates: int = 1000,
    seed: int = 0,
    min_items: int = 20,
    max_items: int = 100_000,
    resolution: float = 0.01,
    alpha_draws: NDArray[np.float64] | None = None,
) -> PlanResult:
    """Plan a round of ``coders`` coders per item from an assumed category distribution and
    agreement, without a pilot.

    The label patterns of :func:`model_pilot` are the population; :func:`plan_items` draws
    rounds from them with their exact probabilities. With ``alpha_draws`` (a pilot's
    bootstrap replicates of alpha), each round's model has its own alpha drawn from them
    (:func:`model_draws`): the pilot's uncertainty carried into the model's designs.

    Parameters
    ----------
    categories, alpha, agreement, coders
        The model (see :func:`model_pilot`).
    decompose : callable
        Builds the coefficient's decomposition from reliability data, e.g.
        ``metrics.decompose_krippendorff_alpha`` or ``metrics.decompose_cohen_kappa``.
    target, power, confidence, replicates, seed, min_items, max_items, resolution
        As in :func:`plan_items`.
    alpha_draws : ndarray, optional
        Values to draw each round's alpha from; the assumed ``alpha`` (or ``agreement``)
        still gives the plan's ``estimate``.

    Returns
    -------
    PlanResult
        ``source="model"``; ``pilot_uncertainty="bootstrap"`` with ``alpha_draws``.

    Examples
    --------
    Two coders, two equally common categories, true kappa 0.85: items for the one-sided 95%
    lower bound (``confidence=0.90``) to exceed 0.7 with probability 0.8.

    >>> from metrics import decompose_cohen_kappa
    >>> plan = plan_without_pilot({"+": 0.5, "-": 0.5}, alpha=0.85, decompose=decompose_cohen_kappa,
    ...                           target=0.7, power=0.8, confidence=0.90, seed=0)
    >>> 80 < plan.n_items < 120
    True
    """
    data, probabilities = model_pilot(categories, alpha=alpha, agreement=agreement, coders=coders)
    decomposition = decompose(data)
    populations = None
    if alpha_draws is not None:
        populations = model_draws(categories, alpha_draws, coders=coders, seed=seed)
    return plan_items(
        decomposition,
        target=target,
        power=power,
        confidence=confidence,
        replicates=replicates,
        seed=seed,
        min_items=min_items,
        max_items=max_items,
        resolution=resolution,
        item_probabilities=probabilities,
        populations=populations,
    )


# -- validation -----------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _is_number(value: object) -> bool:
    return (
        isinstance(value, int | float | np.integer | np.floating)
        and not isinstance(value, bool)
        and math.isfinite(float(value))  # type: ignore[arg-type]
    )


def _check_common(
    *, target: object, power: object, confidence: object, replicates: object, seed: object
) -> None:
    if not _is_number(target):
        raise ValueError(f"target must be a finite number; got {target!r}.")
    if not (_is_number(power) and 0.0 < float(power) < 1.0):  # type: ignore[arg-type]
        raise ValueError(f"power must be strictly between 0 and 1; got {power!r}.")
    if not (_is_number(confidence) and 0.0 < float(confidence) < 1.0):  # type: ignore[arg-type]
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence!r}.")
    if not (_is_int(replicates) and int(replicates) >= 10):  # type: ignore[call-overload]
        raise ValueError(f"replicates must be an integer ≥ 10; got {replicates!r}.")
    if not (_is_int(seed) and int(seed) >= 0):  # type: ignore[call-overload]
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}.")


def _item_probabilities(
    decomposition: Decomposition, probabilities: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    n = decomposition.n_items
    if probabilities is None:
        return np.full(n, 1.0 / n)
    array = np.asarray(probabilities, dtype=np.float64)
    if array.shape != (n,) or np.any(~np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"item_probabilities must be {n} non-negative numbers.")
    total = array.sum()
    if not total > 0:
        raise ValueError("item_probabilities must not all be zero.")
    return array / total


def _check_categories(categories: object) -> tuple[list[Hashable], NDArray[np.float64]]:
    if not isinstance(categories, Mapping) or len(categories) < 2:
        raise ValueError("categories must map at least two labels to their probabilities.")
    labels = list(categories)
    values = [categories[label] for label in labels]
    if not all(_is_number(v) and float(v) > 0 for v in values):
        raise ValueError("Every category probability must be a positive number.")
    prior = np.asarray(values, dtype=np.float64)
    if abs(prior.sum() - 1.0) > 1e-6:
        raise ValueError(f"Category probabilities must sum to 1; they sum to {prior.sum():.6g}.")
    return labels, prior / prior.sum()
