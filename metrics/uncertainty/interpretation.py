"""Rules of thumb for reading agreement values: Landis & Koch bands, Krippendorff's cutoffs,
and the one rule that says which benchmark scale reads which coefficient
(:func:`benchmark_scale_for`, :func:`read_coefficient`; see the section "one reading" below
and docs/benchmarks.md).

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
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from metrics.uncertainty.benchmarks import BENCHMARK_SCALES

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


# -- one reading: which scale applies to which coefficient ------------------------------------
#
# A report holds many coefficients and :func:`metrics.report.benchmarks_json` reads each
# interval on four scales. Printing all of them side by side contradicts itself: the same
# alpha is "discard" on Krippendorff's scale and "substantial" on Landis & Koch's. This section
# is the one rule that picks **at most one scale per coefficient**, used alike by the CLI
# (``python -m metrics report``), the server's API (a computation's ``readings``) and its pages:
#
# 1. **No scale for a coefficient that is not chance-corrected**: observed agreement, span F1,
#    P_k and WindowDiff (an agreement share or an error rate has no chance baseline, and the
#    scales were calibrated on chance-corrected values). A choice does not change this.
# 2. **No scale, unless the user chooses one, for a weighted or distance-based coefficient**:
#    alpha, AC2 and Brennan–Prediger with any distance but the nominal one (ordinal,
#    interval, ratio, MASI, Jaccard, tree, IoU, …), weighted kappa, unitizing alpha (α_U) and
#    gamma. The scales were proposed for unweighted coefficients on categories; the same data
#    give alpha from 0.122 to 0.998 depending on the distance (Artstein & Poesio 2008,
#    §4.4.3), so a band there is a convention the user must choose, never a default.
# 3. **Krippendorff's scale (Krippendorff 2004, §11.4.4) for alpha with the nominal distance**
#    and for token-level alpha: the cut-offs 0.667 and 0.8 were proposed for alpha.
# 4. **Landis & Koch's scale (Landis & Koch 1977) for the unweighted kappa family**: Cohen's
#    and multi-kappa, Scott's and Fleiss' pi, Bennett's S, Light's kappa, Gwet's AC1,
#    Brennan–Prediger, token-level kappa.
# 5. **A chosen scale** (``chosen``) replaces the default of rules 2–4 for every coefficient it
#    may apply to; it never applies under rule 1.
#
# The reading then gives, on that one scale, the band of the point value and, from the stored
# bootstrap benchmarking (Gwet 2014, ch. 6), the band attained at the 95% rule and the most
# probable band. Nothing is computed but comparisons of stored numbers.

#: How each scale is named in text ("on Krippendorff's scale").
BENCHMARK_SCALE_NAMES: dict[str, str] = {
    "landis_koch": "Landis & Koch",
    "fleiss": "Fleiss",
    "altman": "Altman",
    "krippendorff": "Krippendorff",
    "koo_li": "Koo & Li",
}
#: Rule 1: agreement shares and error rates, without a chance baseline.
NOT_CHANCE_CORRECTED = frozenset(
    {"observed_agreement", "span_f1", "span_f1_overlap", "pk", "window_diff", "detection_f1"}
)
#: Rule 2: always weighted or distance-based, whatever the report's distance (the region
#: alphas, ``region_alpha_<distance>``, too).
ALWAYS_DISTANCE_BASED = frozenset(
    {"kappa_w", "alpha_u", "gamma", "alpha_matched", "alpha_matched_pooled"}
)
_DISTANCE_BASED_PREFIX = "region_alpha_"
#: Rule 2: weighted when the report's distance is not the nominal one.
TAKES_THE_DISTANCE = frozenset({"alpha", "ac1", "brennan_prediger"})
#: Rules 3 and 4: the default scale of each unweighted coefficient.
DEFAULT_SCALE: dict[str, str] = {
    "alpha": "krippendorff",
    "token_alpha": "krippendorff",
    "s": "landis_koch",
    "pi": "landis_koch",
    "kappa": "landis_koch",
    "light_kappa": "landis_koch",
    "ac1": "landis_koch",
    "brennan_prediger": "landis_koch",
    "token_kappa": "landis_koch",
}
#: Distances that leave a coefficient unweighted.
NOMINAL_DISTANCES = frozenset({"", "nominal"})


@dataclass(frozen=True)
class ScaleRule:
    """The scale a coefficient is read on (None: none) and why, in one sentence."""

    coefficient: str
    scale: str | None
    reason: str

    @property
    def scale_name(self) -> str | None:
        return None if self.scale is None else BENCHMARK_SCALE_NAMES.get(self.scale, self.scale)


def benchmark_scale_for(
    coefficient: str, *, distance: str | None = None, chosen: str | None = None
) -> ScaleRule:
    """The one benchmark scale a coefficient is read on, by the rule of this module.

    Parameters
    ----------
    coefficient : str
        A report key (``"alpha"``, ``"kappa"``, ``"observed_agreement"``, ``"alpha_u"``, …).
    distance : str or None
        The distance the report used (``results["distance"]``); None or ``"nominal"``:
        unweighted.
    chosen : str or None
        A scale the user chose (a key of ``BENCHMARK_SCALES``); it replaces the default
        for every chance-corrected coefficient.

    Returns
    -------
    ScaleRule

    Raises
    ------
    ValueError
        For a ``chosen`` scale that does not exist.

    Examples
    --------
    >>> benchmark_scale_for("alpha").scale, benchmark_scale_for("kappa").scale
    ('krippendorff', 'landis_koch')
    >>> benchmark_scale_for("alpha", distance="masi").scale is None
    True
    >>> benchmark_scale_for("alpha", distance="masi", chosen="fleiss").scale
    'fleiss'
    >>> benchmark_scale_for("observed_agreement", chosen="fleiss").scale is None
    True
    """
    if chosen is not None and chosen != "" and chosen not in BENCHMARK_SCALES:
        raise ValueError(
            f"Unknown benchmark scale {chosen!r}; choose one of {', '.join(BENCHMARK_SCALES)}."
        )
    if coefficient in NOT_CHANCE_CORRECTED:
        return ScaleRule(coefficient, None, "not chance-corrected")
    weighted = (
        coefficient in ALWAYS_DISTANCE_BASED
        or coefficient.startswith(_DISTANCE_BASED_PREFIX)
        or (coefficient in TAKES_THE_DISTANCE and (distance or "") not in NOMINAL_DISTANCES)
    )
    if chosen:
        return ScaleRule(coefficient, chosen, "the scale chosen for this study")
    if weighted:
        what = (
            f"the {distance} distance"
            if distance and coefficient in TAKES_THE_DISTANCE
            else "a distance"
        )
        return ScaleRule(
            coefficient,
            None,
            f"weighted by {what}, and the scales were proposed for unweighted coefficients "
            "(choose one to read it on)",
        )
    default = DEFAULT_SCALE.get(coefficient)
    if default is None:
        return ScaleRule(coefficient, None, "none is defined for this coefficient")
    why = (
        "Krippendorff's cut-offs 0.667 and 0.8 were proposed for alpha"
        if default == "krippendorff"
        else "Landis & Koch's bands were proposed for unweighted kappa-like coefficients"
    )
    return ScaleRule(coefficient, default, why)


@dataclass(frozen=True)
class Reading:
    """A coefficient read on its one scale (or on none, with the reason).

    Attributes
    ----------
    rule : ScaleRule
    band : str or None
        The band of the point value on the scale.
    attained, attained_probability : str, float or None
        The highest band whose cumulative probability reaches the threshold (95%), from the
        stored bootstrap benchmarking of that scale.
    leading, leading_probability : str, float or None
        The most probable band.
    lowest : bool
        Whether ``attained`` is the scale's lowest band (then no band above it is shown
        with enough probability).
    """

    rule: ScaleRule
    band: str | None = None
    attained: str | None = None
    attained_probability: float | None = None
    leading: str | None = None
    leading_probability: float | None = None
    lowest: bool = False

    @property
    def scale(self) -> str | None:
        return self.rule.scale

    @property
    def probabilities(self) -> str | None:
        """ "tentative or better with probability 0.97; most probable band: good (0.42)",
        or "no band above discard reaches probability 0.95; most probable band: good (0.42)";
        None without stored benchmarks."""
        if self.attained is None or self.attained_probability is None:
            return None
        if self.lowest:
            first = f"no band above {self.attained} reaches probability 0.95"
        else:
            first = f"{self.attained} or better with probability {self.attained_probability:.2f}"
        if self.leading is None or self.leading_probability is None:
            return first
        return f"{first}; most probable band: {self.leading} ({self.leading_probability:.2f})"

    @property
    def text(self) -> str:
        """One line: "tentative on Krippendorff's scale; no band above discard …", or
        "no benchmark scale: not chance-corrected …"."""
        if self.rule.scale is None:
            return f"no benchmark scale: {self.rule.reason}"
        head = (
            f"{self.band} on {self.rule.scale_name}'s scale"
            if self.band
            else f"on {self.rule.scale_name}'s scale"
        )
        return f"{head}; {self.probabilities}" if self.probabilities else head

    def as_json(self) -> dict[str, Any]:
        return {
            "scale": self.rule.scale,
            "scale_name": self.rule.scale_name,
            "reason": self.rule.reason,
            "band": self.band,
            "attained": self.attained,
            "attained_probability": self.attained_probability,
            "leading": self.leading,
            "leading_probability": self.leading_probability,
            "text": self.text,
        }


def _benchmark_band_of(scale: str, value: float) -> str | None:
    """The band of ``value`` on ``scale`` (the cut rules of ``BENCHMARK_SCALES``)."""
    if math.isnan(value) or value > 1 + 1e-12:
        return None
    for band in BENCHMARK_SCALES[scale]:  # highest first
        if value > band.lower or (band.owns_lower_cut and value == band.lower):
            return band.label
    return BENCHMARK_SCALES[scale][-1].label


def read_coefficient(
    coefficient: str,
    value: float | None,
    benchmarks: Mapping[str, Any] | None = None,
    *,
    distance: str | None = None,
    chosen: str | None = None,
) -> Reading:
    """Read one stored coefficient on the scale :func:`benchmark_scale_for` gives.

    Parameters
    ----------
    coefficient : str
        The report key.
    value : float or None
        The point value.
    benchmarks : mapping or None
        The stored ``ci["benchmarks"]`` (:func:`metrics.report.benchmarks_json`); its entry
        for the scale gives the attained and most probable bands.
    distance, chosen :
        As :func:`benchmark_scale_for`.

    Returns
    -------
    Reading

    Examples
    --------
    >>> r = read_coefficient("alpha", 0.743)
    >>> r.band, r.text
    ('tentative', "tentative on Krippendorff's scale")
    >>> read_coefficient("observed_agreement", 0.8).text
    'no benchmark scale: not chance-corrected'
    """
    rule = benchmark_scale_for(coefficient, distance=distance, chosen=chosen)
    if rule.scale is None:
        return Reading(rule)
    band = None if value is None else _benchmark_band_of(rule.scale, float(value))
    stored = ((benchmarks or {}).get("scales") or {}).get(rule.scale)
    if not stored:
        return Reading(rule, band)
    labels = list(stored.get("labels") or [label.label for label in BENCHMARK_SCALES[rule.scale]])
    attained = stored.get("attained")
    return Reading(
        rule,
        band,
        attained=attained,
        attained_probability=_float(stored.get("attained_probability")),
        leading=stored.get("leading"),
        leading_probability=_float(stored.get("leading_probability")),
        lowest=bool(labels) and attained == labels[-1],
    )


def _float(value: Any) -> float | None:
    return None if value is None else float(value)
