"""Benchmarking with membership probabilities (Gwet 2014, ch. 6), and "is the later round higher?".

A band label printed next to a point estimate ignores its uncertainty: 0.67 is
"substantial" on Landis & Koch's scale, but with a standard error of 0.15 the true value
is below 0.6 with probability 0.32. Gwet (2014, ch. 6) reports instead, for each band, the
probability that the true coefficient lies in it, and the **cumulative** probability that
it lies in that band or a higher one; the coefficient is qualified by the highest band
whose cumulative probability reaches 95%.

:func:`benchmark_probabilities` does this from an estimate and its standard error, as
Gwet's R package irrCAC (``landis.koch.bf``, ``altman.bf``, ``fleiss.bf``) and its Python
port (``irrCAC.benchmark.Benchmark``) do: the coefficient is taken as normal with that mean
and standard deviation, truncated to [-1, 1],

.. math::

    P(a \\le \\kappa \\le b) = \\frac{\\Phi\\big((\\hat\\kappa - a)/se\\big)
        - \\Phi\\big((\\hat\\kappa - b)/se\\big)}
        {\\Phi\\big((\\hat\\kappa + 1)/se\\big) - \\Phi\\big((\\hat\\kappa - 1)/se\\big)}.

:func:`benchmark_replicates` does the same from a bootstrap distribution: the share of
replicates in each band, without the normal approximation.

:func:`probability_later_higher` reads a paired bootstrap distribution of
``later − earlier`` (two rounds on the same items; :func:`paired_difference_replicates`
draws it as :func:`~metrics.uncertainty.bootstrap.bootstrap_difference` does) as the
probability that the later round's coefficient is the higher.

Scales
------
Bands are listed highest first, as Gwet prints them; the lowest band starts at -1 (the
truncation point; replicates below -1 count in it).

- ``"landis_koch"`` (Landis & Koch 1977, p. 165): almost perfect 0.8–1, substantial
  0.6–0.8, moderate 0.4–0.6, fair 0.2–0.4, slight 0–0.2, poor -1–0.
- ``"fleiss"`` (Fleiss 1981): excellent 0.75–1, intermediate to good 0.4–0.75, poor -1–0.4.
- ``"altman"`` (Altman 1991): very good 0.8–1, good 0.6–0.8, moderate 0.4–0.6, fair
  0.2–0.4, poor -1–0.2.
- ``"krippendorff"`` (Krippendorff 2004, §11.4.4): good 0.8–1, tentative 0.667–0.8,
  discard -1–0.667.
- ``"koo_li"`` (Koo & Li 2016), for ICCs: excellent 0.9–1, good 0.75–0.9, moderate
  0.5–0.75, poor -1–0.5.

The first three are irrCAC's tables (R data ``landis.koch``, ``fleiss``, ``altman``; Python
``Benchmark.landis_koch()``, ``fleiss()``, ``altman()``), labels in lower case. Which band
owns a value on a cut matters only for replicates: the band below for Landis & Koch ("0.21
to 0.40" is fair), Altman and Fleiss's upper cut; the band above for Krippendorff (0.8 is
good), Fleiss's 0.4, Landis & Koch's 0 (0 is slight) and Koo & Li's 0.5 and 0.75 (0.9
is good), as in
:mod:`metrics.uncertainty.interpretation`. The caveats there apply: these scales were made
for unweighted kappa-like coefficients.

References
----------
Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability*, 4th ed., ch. 6 (benchmarking).
Advanced Analytics. irrCAC: https://github.com/kgwet/irrCAC (R, ``R/benchmarking.r``) and
https://github.com/afergadis/irrCAC (Python 0.4.4, ``irrCAC/benchmark.py``).

Landis, J. R. & Koch, G. G. (1977). The measurement of observer agreement for categorical
data. *Biometrics* 33(1), 159–174. https://doi.org/10.2307/2529310

Fleiss, J. L. (1981). *Statistical Methods for Rates and Proportions*, 2nd ed. Wiley.

Altman, D. G. (1991). *Practical Statistics for Medical Research*. Chapman & Hall.

Krippendorff, K. (2004). *Content Analysis*, 2nd ed., §11.4.4. Sage.

Koo, T. K. & Li, M. Y. (2016). A guideline of selecting and reporting intraclass correlation
coefficients for reliability research. *Journal of Chiropractic Medicine* 15(2), 155–163.
https://doi.org/10.1016/j.jcm.2016.02.012
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import special

from metrics.decomposition import Decomposition
from metrics.uncertainty.bootstrap import bootstrap_chunk

BenchmarkScale = Literal["landis_koch", "fleiss", "altman", "krippendorff", "koo_li"]
NanPolicy = Literal["raise", "omit"]

_TOLERANCE = 1e-12

__all__ = [
    "BENCHMARK_SCALES",
    "BenchmarkBand",
    "BenchmarkResult",
    "LaterHigherResult",
    "benchmark_probabilities",
    "benchmark_replicates",
    "paired_difference_replicates",
    "probability_later_higher",
]


@dataclass(frozen=True)
class BenchmarkBand:
    """One band of a benchmark scale.

    Attributes
    ----------
    label : str
    lower, upper : float
        The band's ends; the lowest band starts at -1, the highest ends at 1.
    owns_lower_cut : bool
        Whether a replicate equal to ``lower`` belongs to this band (else to the band
        below). Irrelevant for the normal method, where a cut has probability 0.
    """

    label: str
    lower: float
    upper: float
    owns_lower_cut: bool


#: The scales, highest band first (see the module docstring for the sources).
BENCHMARK_SCALES: dict[str, tuple[BenchmarkBand, ...]] = {
    "landis_koch": (
        BenchmarkBand("almost perfect", 0.8, 1.0, False),
        BenchmarkBand("substantial", 0.6, 0.8, False),
        BenchmarkBand("moderate", 0.4, 0.6, False),
        BenchmarkBand("fair", 0.2, 0.4, False),
        BenchmarkBand("slight", 0.0, 0.2, True),
        BenchmarkBand("poor", -1.0, 0.0, True),
    ),
    "fleiss": (
        BenchmarkBand("excellent", 0.75, 1.0, False),
        BenchmarkBand("intermediate to good", 0.4, 0.75, True),
        BenchmarkBand("poor", -1.0, 0.4, True),
    ),
    "altman": (
        BenchmarkBand("very good", 0.8, 1.0, False),
        BenchmarkBand("good", 0.6, 0.8, False),
        BenchmarkBand("moderate", 0.4, 0.6, False),
        BenchmarkBand("fair", 0.2, 0.4, False),
        BenchmarkBand("poor", -1.0, 0.2, True),
    ),
    "krippendorff": (
        BenchmarkBand("good", 0.8, 1.0, True),
        BenchmarkBand("tentative", 0.667, 0.8, True),
        BenchmarkBand("discard", -1.0, 0.667, True),
    ),
    "koo_li": (
        BenchmarkBand("excellent", 0.9, 1.0, False),
        BenchmarkBand("good", 0.75, 0.9, True),
        BenchmarkBand("moderate", 0.5, 0.75, True),
        BenchmarkBand("poor", -1.0, 0.5, True),
    ),
}


@dataclass(frozen=True)
class BenchmarkResult:
    """Membership probabilities of a coefficient in the bands of one scale.

    Attributes
    ----------
    scale : str
    labels : tuple of str
        The bands, highest first.
    bounds : tuple of (float, float)
        Each band's (lower, upper), in the order of ``labels``.
    probabilities : tuple of float
        Probability that the true coefficient lies in each band (they add up to 1).
    cumulative : tuple of float
        Probability that it lies in the band or a higher one (irrCAC's ``CumProb``).
    threshold : float
        The cumulative probability a band must reach to be attained (0.95: Gwet's rule).
    attained : str
        The highest band whose cumulative probability reaches ``threshold``.
    method : {"normal", "replicates"}
        Truncated normal from an estimate and standard error, or bootstrap replicates.
    estimate, se : float or None
        The inputs of the normal method (None for replicates).
    n_replicates, n_omitted : int
        Replicates used and NaN replicates left out (0 for the normal method).
    summary : str
        e.g. ``"moderate (landis_koch scale): moderate or better with probability 0.964;
        substantial or better 0.675"``.
    """

    scale: str
    labels: tuple[str, ...]
    bounds: tuple[tuple[float, float], ...]
    probabilities: tuple[float, ...]
    cumulative: tuple[float, ...]
    threshold: float
    attained: str
    method: Literal["normal", "replicates"]
    estimate: float | None
    se: float | None
    n_replicates: int
    n_omitted: int
    summary: str


@dataclass(frozen=True)
class LaterHigherResult:
    """How often the later round's coefficient beats the earlier one's across replicates.

    Attributes
    ----------
    probability : float
        :math:`P(\\text{later} > \\text{earlier})`, ties counted one half:
        ``share_higher + share_tied / 2``.
    share_higher, share_tied, share_lower : float
        Shares of replicates with ``later − earlier`` above, at and below 0.
    n_replicates : int
        Replicates used.
    n_omitted : int
        NaN replicates left out (``nan_policy="omit"``).
    summary : str
        e.g. ``"the later round is higher with probability 0.97 (1000 paired bootstrap
        replicates)"``.
    """

    probability: float
    share_higher: float
    share_tied: float
    share_lower: float
    n_replicates: int
    n_omitted: int
    summary: str


# -- public API ------------------------------------------------------------------------------


def benchmark_probabilities(
    estimate: float,
    se: float,
    *,
    scale: BenchmarkScale = "landis_koch",
    threshold: float = 0.95,
) -> BenchmarkResult:
    """Gwet's (2014) membership probabilities from an estimate and its standard error.

    The true coefficient is taken as normal (mean ``estimate``, standard deviation ``se``)
    truncated to [-1, 1], as irrCAC's ``landis.koch.bf``, ``fleiss.bf`` and ``altman.bf``.
    Use the standard error of an :class:`~metrics.uncertainty.analytic.AnalyticResult` or a
    :class:`~metrics.uncertainty.bootstrap.BootstrapResult` (its ``se``).

    Parameters
    ----------
    estimate : float
        The coefficient, at most 1.
    se : float
        Its standard error, positive.
    scale : {"landis_koch", "fleiss", "altman", "krippendorff", "koo_li"}, default "landis_koch"
    threshold : float, default 0.95
        Cumulative probability a band must reach to be attained.

    Returns
    -------
    BenchmarkResult

    Examples
    --------
    irrCAC 0.4.4's example (``Benchmark(coeff=0.67, se=0.15).landis_koch()``):

    >>> r = benchmark_probabilities(0.67, 0.15)
    >>> [round(p, 5) for p in r.cumulative]
    [0.18168, 0.67511, 0.96356, 0.99912, 1.0, 1.0]
    >>> r.attained
    'moderate'
    """
    bands = _check_scale(scale)
    value = _check_estimate(estimate)
    spread = _check_se(se)
    cut = _check_threshold(threshold)
    lower = np.array([band.lower for band in bands])
    upper = np.array([band.upper for band in bands])
    mass = special.ndtr((value - lower) / spread) - special.ndtr((value - upper) / spread)
    truncation = special.ndtr((value + 1.0) / spread) - special.ndtr((value - 1.0) / spread)
    if truncation <= 0.0:
        raise ValueError(
            f"The normal distribution with mean {value!r} and standard deviation {spread!r} "
            "puts no probability on [-1, 1]; the estimate is far outside the scale."
        )
    return _result(
        scale,
        bands,
        mass / truncation,
        cut,
        method="normal",
        estimate=value,
        se=spread,
        n_replicates=0,
        n_omitted=0,
    )


def benchmark_replicates(
    replicates: npt.ArrayLike,
    *,
    scale: BenchmarkScale = "landis_koch",
    threshold: float = 0.95,
    nan_policy: NanPolicy = "raise",
) -> BenchmarkResult:
    """Membership probabilities as the shares of bootstrap replicates in each band.

    The bootstrap analogue of :func:`benchmark_probabilities`, free of the normal
    approximation (which can put probability above a coefficient's attainable maximum).
    A replicate on a cut counts in the band that owns it (see the module docstring);
    replicates below -1 count in the lowest band.

    Parameters
    ----------
    replicates : array_like of float, shape (R,)
        Bootstrap replicates of one coefficient (e.g. from
        :func:`~metrics.uncertainty.bootstrap.bootstrap_chunk`).
    scale, threshold
        As in :func:`benchmark_probabilities`.
    nan_policy : {"raise", "omit"}, default "raise"
        Replicates where the coefficient is undefined are NaN: refuse them, or leave them
        out (counted in ``n_omitted``).

    Returns
    -------
    BenchmarkResult

    Examples
    --------
    >>> r = benchmark_replicates([0.55] * 3 + [0.65] * 30 + [0.85] * 67)
    >>> [round(p, 2) for p in r.cumulative], r.attained
    ([0.67, 0.97, 1.0, 1.0, 1.0, 1.0], 'substantial')
    """
    bands = _check_scale(scale)
    cut = _check_threshold(threshold)
    values, n_omitted = _finite_replicates(replicates, nan_policy)
    if values.max() > 1.0 + _TOLERANCE:
        raise ValueError(
            f"A replicate is {float(values.max())!r}, but agreement coefficients are at most 1."
        )
    ascending = bands[::-1]
    index = np.zeros(values.size, dtype=np.intp)
    for band in ascending[1:]:  # a loop over the scale's cuts, not the replicates
        above = values >= band.lower if band.owns_lower_cut else values > band.lower
        index += above
    counts = np.bincount(index, minlength=len(bands))[::-1]
    return _result(
        scale,
        bands,
        counts / values.size,
        cut,
        method="replicates",
        estimate=None,
        se=None,
        n_replicates=int(values.size),
        n_omitted=n_omitted,
    )


def probability_later_higher(
    differences: npt.ArrayLike, *, nan_policy: NanPolicy = "raise"
) -> LaterHigherResult:
    """Probability that the later round's coefficient is the higher, from paired replicates.

    Parameters
    ----------
    differences : array_like of float, shape (R,)
        Bootstrap replicates of ``later − earlier`` on the same items, each replicate
        drawing one resample of items for both rounds (see
        :func:`paired_difference_replicates`).
    nan_policy : {"raise", "omit"}, default "raise"
        Replicates where either coefficient is undefined are NaN: refuse or leave out.

    Returns
    -------
    LaterHigherResult
        ``probability`` counts ties (a difference of exactly 0) one half, as the bias
        correction of BCa intervals does.

    Examples
    --------
    >>> r = probability_later_higher([0.02] * 90 + [0.0] * 4 + [-0.01] * 6)
    >>> r.probability, r.share_tied
    (0.92, 0.04)
    """
    values, n_omitted = _finite_replicates(differences, nan_policy)
    higher = float(np.count_nonzero(values > 0.0) / values.size)
    tied = float(np.count_nonzero(values == 0.0) / values.size)
    lower = float(np.count_nonzero(values < 0.0) / values.size)
    probability = higher + tied / 2.0
    summary = (
        f"the later round is higher with probability {probability:.2f} "
        f"({values.size} paired bootstrap replicates)"
    )
    return LaterHigherResult(
        probability=probability,
        share_higher=higher,
        share_tied=tied,
        share_lower=lower,
        n_replicates=int(values.size),
        n_omitted=n_omitted,
        summary=summary,
    )


def paired_difference_replicates(
    later: Decomposition,
    earlier: Decomposition,
    *,
    replicates: int = 1000,
    seed: int = 0,
) -> NDArray[np.float64]:
    """Paired bootstrap replicates of ``later − earlier`` (``nan`` where either is undefined).

    Replicate ``r`` resamples the same items for both rounds, so these are the replicates
    behind ``bootstrap_difference(later, earlier, replicates=..., seed=...)``, value for
    value.

    Parameters
    ----------
    later, earlier : Decomposition
        The two rounds' coefficients on the same items, row ``u`` of both being item ``u``.
    replicates : int, default 1000
    seed : int, default 0
        As in :func:`~metrics.uncertainty.bootstrap.bootstrap`.

    Returns
    -------
    ndarray of float64, shape (replicates,)

    Raises
    ------
    ValueError
        If the two rounds do not have the same number of items, or as
        :func:`~metrics.uncertainty.bootstrap.bootstrap_chunk`.
    """
    if not (isinstance(later, Decomposition) and isinstance(earlier, Decomposition)):
        raise ValueError("later and earlier must be Decompositions of the two rounds.")
    if later.n_items != earlier.n_items:
        raise ValueError(
            f"A paired difference needs the same items in both rounds: the later has "
            f"{later.n_items} items, the earlier {earlier.n_items}."
        )
    if not (isinstance(replicates, int) and replicates >= 2):
        raise ValueError(f"replicates must be an integer ≥ 2; got {replicates!r}.")
    values = bootstrap_chunk(later, seed=seed, start=0, stop=replicates)
    return values - bootstrap_chunk(earlier, seed=seed, start=0, stop=replicates)


# -- helpers ----------------------------------------------------------------------------------


def _result(
    scale: str,
    bands: tuple[BenchmarkBand, ...],
    probabilities: NDArray[np.float64],
    threshold: float,
    *,
    method: Literal["normal", "replicates"],
    estimate: float | None,
    se: float | None,
    n_replicates: int,
    n_omitted: int,
) -> BenchmarkResult:
    cumulative = np.minimum(np.cumsum(probabilities), 1.0)
    reached = np.flatnonzero(cumulative >= threshold - _TOLERANCE)
    position = int(reached[0]) if reached.size else len(bands) - 1
    attained = bands[position].label
    if position == len(bands) - 1:
        summary = f"{attained} ({scale} scale): no higher band reaches probability {threshold:g}"
    else:
        summary = (
            f"{attained} ({scale} scale): {attained} or better with probability "
            f"{cumulative[position]:.3f}"
        )
    if position > 0:
        summary += f"; {bands[position - 1].label} or better {cumulative[position - 1]:.3f}"
    return BenchmarkResult(
        scale=scale,
        labels=tuple(band.label for band in bands),
        bounds=tuple((band.lower, band.upper) for band in bands),
        probabilities=tuple(float(p) for p in probabilities),
        cumulative=tuple(float(c) for c in cumulative),
        threshold=threshold,
        attained=attained,
        method=method,
        estimate=estimate,
        se=se,
        n_replicates=n_replicates,
        n_omitted=n_omitted,
        summary=summary,
    )


def _check_scale(scale: str) -> tuple[BenchmarkBand, ...]:
    try:
        return BENCHMARK_SCALES[scale]
    except (KeyError, TypeError):
        raise ValueError(
            f"Unknown scale {scale!r}; choose one of {sorted(BENCHMARK_SCALES)}."
        ) from None


def _check_number(value: object, what: str) -> float:
    if isinstance(value, bool):
        raise ValueError(f"{what} must be a number; got {value!r}.")
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number; got {value!r}.") from None
    if not math.isfinite(number):
        raise ValueError(f"{what} must be finite; got {number!r}.")
    return number


def _check_estimate(estimate: object) -> float:
    value = _check_number(estimate, "The estimate")
    if value > 1.0 + _TOLERANCE:
        raise ValueError(f"The estimate is {value!r}, but agreement coefficients are at most 1.")
    return min(value, 1.0)


def _check_se(se: object) -> float:
    value = _check_number(se, "The standard error")
    if value <= 0.0:
        raise ValueError(
            f"The standard error must be positive; got {value!r}. With no uncertainty, read "
            "the band of the estimate (metrics.interpret_value)."
        )
    return value


def _check_threshold(threshold: object) -> float:
    value = _check_number(threshold, "threshold")
    if not 0.0 < value <= 1.0:
        raise ValueError(f"threshold must be in (0, 1]; got {value!r}.")
    return value


def _finite_replicates(
    replicates: npt.ArrayLike, nan_policy: NanPolicy
) -> tuple[NDArray[np.float64], int]:
    if nan_policy not in ("raise", "omit"):
        raise ValueError(f"nan_policy must be 'raise' or 'omit'; got {nan_policy!r}.")
    try:
        values = np.asarray(replicates, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("replicates must be numbers.") from None
    if values.ndim != 1 or values.size == 0:
        raise ValueError("replicates must be a non-empty 1-D array of bootstrap values.")
    if np.isinf(values).any():
        raise ValueError("replicates must be finite (nan marks an undefined replicate).")
    missing = np.isnan(values)
    n_missing = int(np.count_nonzero(missing))
    if n_missing:
        if nan_policy == "raise":
            raise ValueError(
                f"{n_missing} of {values.size} replicates are NaN (the coefficient is "
                "undefined on them); pass nan_policy='omit' to leave them out."
            )
        values = values[~missing]
        if values.size == 0:
            raise ValueError("Every replicate is NaN: there is nothing to benchmark.")
    return values, n_missing
