"""Rules of thumb for reading agreement values: Landis & Koch bands, Krippendorff's cutoffs.

These labels are conventions, not findings, and the literature warns against them:

- Deciding what level of agreement is adequate is "still little more than a black art"
  (Artstein & Poesio 2008, §4.1.3). Krippendorff's 0.667 boundary was "highly tentative and
  cautious", and he later calls 0.8 "a pretty low standard"; Artstein & Poesio (§5.3) would
  set 0.8 if a threshold must be set, while noting useful discourse corpora at about 0.7.
- The rules were made for unweighted, kappa-like coefficients on categorical labels. **They
  do not carry over to weighted coefficients** (alpha with an interval, set or tree
  distance; weighted kappa): the same experiment gave alpha from 0.122 to 0.998 depending on
  the distance (Artstein & Poesio 2008, §4.4.3). Interpretation there must be task- and
  distance-specific.
- A point estimate should not be compared with a cutoff without its uncertainty (Krenn,
  Evert & Zinsmeister 2004, §4): label the interval (:func:`interpret_interval`) or the
  bootstrap distribution (:func:`interpret_replicates`) rather than the value alone.

Scales
------
``"krippendorff"`` (Krippendorff 1980, p. 147, via Carletta 1996 and Artstein & Poesio §4.1.3):
``[0.8, 1]`` "good", ``[0.667, 0.8)`` "tentative" (tentative conclusions only), below 0.667
"discard". A value on a cut belongs to the band above it.

``"landis_koch"`` (Landis & Koch 1977): below 0 "poor", ``[0, 0.20]`` "slight",
``(0.20, 0.40]`` "fair", ``(0.40, 0.60]`` "moderate", ``(0.60, 0.80]`` "substantial",
``(0.80, 1]`` "almost perfect". Their table reads 0.00–0.20, 0.21–0.40, …: a value on a cut
belongs to the band below it.

References
----------
Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
*Computational Linguistics* 34(4), §4.1.3, §4.4.3, §5.3. https://doi.org/10.1162/coli.07-034-R2
Landis, J. R. & Koch, G. G. (1977). The measurement of observer agreement for categorical
data. *Biometrics* 33(1), 159–174. https://doi.org/10.2307/2529310
Krippendorff, K. (2004). *Content Analysis*, 2nd ed., §11.4.4 (p. 241–242).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

Scale = Literal["krippendorff", "landis_koch"]

_TOLERANCE = 1e-12


@dataclass(frozen=True)
class Band:
    """One band of a scale: ``label`` for values between ``lower`` and ``upper``.

    ``upper_closed`` says which band a value on a cut belongs to: True for Landis & Koch
    (``(0.2, 0.4]`` is "fair"), False for Krippendorff (``[0.667, 0.8)`` is "tentative").
    """

    label: str
    lower: float
    upper: float
    upper_closed: bool

    def contains(self, value: float) -> bool:
        if self.upper_closed:
            above = value > self.lower or (self.lower == 0.0 and value == 0.0)
            return above and value <= self.upper
        return self.lower <= value < self.upper or (self.upper == 1.0 and value == 1.0)


SCALES: dict[str, tuple[Band, ...]] = {
    "krippendorff": (
        Band("discard", -math.inf, 0.667, False),
        Band("tentative", 0.667, 0.8, False),
        Band("good", 0.8, 1.0, False),
    ),
    "landis_koch": (
        Band("poor", -math.inf, 0.0, False),
        Band("slight", 0.0, 0.2, True),
        Band("fair", 0.2, 0.4, True),
        Band("moderate", 0.4, 0.6, True),
        Band("substantial", 0.6, 0.8, True),
        Band("almost perfect", 0.8, 1.0, True),
    ),
}
"""The bands of each scale, lowest first."""


@dataclass(frozen=True)
class Interpretation:
    """A value with the band it falls in.

    Attributes
    ----------
    value : float
    scale : str
    label : str
    band : Band
    summary : str
        e.g. ``"0.72: tentative (krippendorff scale, 0.667 to 0.8)"``.
    """

    value: float
    scale: str
    label: str
    band: Band
    summary: str


@dataclass(frozen=True)
class IntervalInterpretation:
    """An interval with every band it reaches.

    Attributes
    ----------
    low, high : float
    scale : str
    labels : tuple of str
        The bands the interval touches, lowest first; one label when it sits in one band.
    cuts_inside : tuple of float
        The scale's cut points that lie inside the interval (the thresholds it straddles).
    summary : str
        e.g. ``"tentative to good: the interval straddles 0.8"``.
    """

    low: float
    high: float
    scale: str
    labels: tuple[str, ...]
    cuts_inside: tuple[float, ...]
    summary: str

    @property
    def straddles(self) -> bool:
        """True when the interval reaches more than one band."""
        return len(self.labels) > 1


@dataclass(frozen=True)
class ReplicateInterpretation:
    """How often bootstrap replicates reach each threshold.

    Attributes
    ----------
    thresholds : tuple of float
        Increasing.
    probabilities_above : tuple of float
        Share of replicates ``>= threshold``, one per threshold. ``1 − p`` is Krippendorff's
        q, the probability of failing to reach the threshold.
    n_replicates : int
        Replicates used.
    n_omitted : int
        NaN replicates left out (only with ``nan_policy="omit"``).
    statements : tuple of str
        One per threshold, e.g. ``"above 0.8 with 97% bootstrap probability"``.
    """

    thresholds: tuple[float, ...]
    probabilities_above: tuple[float, ...]
    n_replicates: int
    n_omitted: int
    statements: tuple[str, ...]

    @property
    def summary(self) -> str:
        """The statements joined with "; ", highest threshold first."""
        return "; ".join(reversed(self.statements))


def _check_scale(scale: str) -> tuple[Band, ...]:
    try:
        return SCALES[scale]
    except KeyError:
        raise ValueError(f"Unknown scale {scale!r}; choose one of {sorted(SCALES)}.") from None


def _check_value(value: float, what: str) -> float:
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be a number; got {value!r}.") from None
    if not math.isfinite(number):
        raise ValueError(
            f"{what} must be finite; got {number!r}. An undefined coefficient has no band."
        )
    if number > 1 + _TOLERANCE:
        raise ValueError(f"{what} is {number!r}, but agreement coefficients are at most 1.")
    return min(number, 1.0)


def _band_of(bands: tuple[Band, ...], value: float) -> Band:
    return next(band for band in bands if band.contains(value))


def _format(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".")


def interpret_value(value: float, *, scale: Scale = "krippendorff") -> Interpretation:
    """The band of a rule-of-thumb scale that an agreement value falls in.

    Only meaningful for unweighted, kappa-like coefficients on categorical labels; the rules
    do not carry over to weighted coefficients (Artstein & Poesio 2008, §4.4.3). See the
    module docstring for the bands and their closed ends.

    Parameters
    ----------
    value : float
        A coefficient, at most 1.
    scale : {"krippendorff", "landis_koch"}, default "krippendorff"

    Returns
    -------
    Interpretation

    References
    ----------
    Artstein & Poesio (2008), §4.1.3 and §5.3; Landis & Koch (1977).

    Examples
    --------
    Di Eugenio & Glass (2004), Example 1: kappa_Co = 0.6724 and kappa_S&C = 0.6632 fall on
    either side of Krippendorff's 0.67 (here 0.667) threshold.

    >>> interpret_value(0.6724).label, interpret_value(0.6632).label
    ('tentative', 'discard')
    >>> interpret_value(0.6724, scale="landis_koch").label
    'substantial'
    """
    bands = _check_scale(scale)
    number = _check_value(value, "The value")
    band = _band_of(bands, number)
    lower = "below" if math.isinf(band.lower) else f"{_format(band.lower)} to"
    summary = f"{_format(number)}: {band.label} ({scale} scale, {lower} {_format(band.upper)})"
    return Interpretation(number, scale, band.label, band, summary)


def interpret_interval(
    low: float, high: float, *, scale: Scale = "krippendorff"
) -> IntervalInterpretation:
    """Every band of a rule-of-thumb scale that a confidence interval reaches.

    Krenn, Evert & Zinsmeister (2004, §4) show that reading the lower or the upper end of
    kappa's interval can turn "mediocre" into "high" agreement; this names both ends and
    the thresholds in between. Weighted coefficients: see :func:`interpret_value`.

    Parameters
    ----------
    low, high : float
        The interval's ends, ``low <= high <= 1``.
    scale : {"krippendorff", "landis_koch"}, default "krippendorff"

    Returns
    -------
    IntervalInterpretation

    Examples
    --------
    Krenn et al. (2004): annotator NN7's kappa 0.775 has the 95% interval
    [0.719, 0.831] (derived from Fleiss et al.'s standard error; docs/references.md,
    ``kez2004-tables``).

    >>> interpret_interval(0.719, 0.831).summary
    'tentative to good: the interval straddles 0.8'
    """
    bands = _check_scale(scale)
    lo = _check_value(low, "The lower end")
    hi = _check_value(high, "The upper end")
    if lo > hi:
        raise ValueError(f"The lower end {lo!r} is above the upper end {hi!r}.")
    first, last = _band_of(bands, lo), _band_of(bands, hi)
    reached = bands[bands.index(first) : bands.index(last) + 1]
    labels = tuple(band.label for band in reached)
    cuts = tuple(band.lower for band in reached[1:])
    if len(labels) == 1:
        summary = f"{labels[0]}: the whole interval lies in one band"
    else:
        straddled = ", ".join(_format(cut) for cut in cuts)
        summary = f"{labels[0]} to {labels[-1]}: the interval straddles {straddled}"
    return IntervalInterpretation(lo, hi, scale, labels, cuts, summary)


def _percent(probability: float) -> str:
    if 0 < probability < 0.01:
        return "< 1%"
    if 0.99 < probability < 1:
        return "> 99%"
    return f"{100 * probability:.0f}%"


def interpret_replicates(
    replicates: npt.ArrayLike,
    *,
    thresholds: tuple[float, ...] = (0.667, 0.8),
    nan_policy: Literal["raise", "omit"] = "raise",
) -> ReplicateInterpretation:
    r"""Bootstrap probability that the coefficient reaches each threshold.

    .. math:: P(\text{above } t) = \frac{1}{R} \sum_{r=1}^{R} [\hat\theta^*_r \ge t]

    as in Hayes & Krippendorff's (2007) KALPHA, which reports ``q = 1 − P`` for a chosen
    minimum alpha. The cutoffs are rules of thumb for unweighted coefficients; they do not
    carry over to weighted ones (Artstein & Poesio 2008, §4.4.3).

    Parameters
    ----------
    replicates : array_like of float, shape (R,)
        Bootstrap replicates of one coefficient.
    thresholds : tuple of float, default (0.667, 0.8)
        Krippendorff's cutoffs by default.
    nan_policy : {"raise", "omit"}, default "raise"
        Replicates on which the coefficient is undefined are NaN; "omit" leaves them out and
        counts them in ``n_omitted``.

    Returns
    -------
    ReplicateInterpretation

    References
    ----------
    Hayes, A. F. & Krippendorff, K. (2007). Answering the call for a standard reliability
    measure for coding data. *Communication Methods and Measures* 1(1), 77–89.
    https://doi.org/10.1080/19312450709336664

    Examples
    --------
    >>> r = interpret_replicates([0.79] * 3 + [0.82] * 97)
    >>> r.summary
    'above 0.8 with 97% bootstrap probability; above 0.667 with 100% bootstrap probability'
    """
    values = np.asarray(replicates, dtype=np.float64)
    if values.ndim != 1 or values.size == 0:
        raise ValueError("replicates must be a non-empty 1-D array of bootstrap values.")
    if nan_policy not in ("raise", "omit"):
        raise ValueError(f"nan_policy must be 'raise' or 'omit'; got {nan_policy!r}.")
    missing = np.isnan(values)
    if missing.any():
        if nan_policy == "raise":
            raise ValueError(
                f"{int(missing.sum())} of {values.size} replicates are NaN (the coefficient "
                "is undefined on them); pass nan_policy='omit' to leave them out."
            )
        values = values[~missing]
        if values.size == 0:
            raise ValueError("Every replicate is NaN: there is nothing to interpret.")
    cuts = tuple(float(t) for t in thresholds)
    if not cuts or not all(math.isfinite(t) for t in cuts) or list(cuts) != sorted(set(cuts)):
        raise ValueError("thresholds must be finite, distinct and increasing.")
    probabilities = tuple(float(np.mean(values >= t)) for t in cuts)
    statements = tuple(
        f"above {_format(t)} with {_percent(p)} bootstrap probability"
        for t, p in zip(cuts, probabilities, strict=True)
    )
    return ReplicateInterpretation(
        thresholds=cuts,
        probabilities_above=probabilities,
        n_replicates=int(values.size),
        n_omitted=int(missing.sum()),
        statements=statements,
    )
