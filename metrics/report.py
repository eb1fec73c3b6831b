"""One call for every coefficient on a data set: the public JSON contract of the library.

:func:`report` computes observed agreement, S, pi, kappa, alpha, weighted kappa, Light's
kappa, AC1/AC2 and Brennan–Prediger, optionally with bootstrap intervals and analytic
standard errors, and the true-agreement interval for two coders and two categories. The
dictionary it returns is what ``python -m metrics report --json`` prints; ``docs/metrics.md``
documents it field by field.

Two words, one meaning each: ``level`` is the **level of measurement** (``nominal``,
``ordinal``, ``interval``, ``ratio``, ``set``, ``hierarchy``; :data:`LEVELS`), which picks the
default distance; ``confidence`` is the **confidence level** of the intervals (0.95), as
everywhere in :mod:`metrics.uncertainty`.

A coefficient that is undefined on the data (for example pi when every value is the same) is
left out of ``coefficients`` and listed under ``skipped`` with the reason, so one undefined
number never hides the others.

The building blocks are public for callers that run the bootstrap elsewhere (the server fans
it out over workers): :func:`report_distance` (the distance a report at a level uses),
:func:`coefficient_specs` (each entry's coefficient, decomposition and analytic standard
error) and :func:`analytic_se`.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from metrics.coefficients import agreement, alpha, gwet, weighted
from metrics.coefficients.icc import icc_table
from metrics.coefficients.result import CoefficientResult
from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.distances import DistanceLike, NominalDistance, resolve_distance
from metrics.distances.base import Distance
from metrics.uncertainty import analytic
from metrics.uncertainty.benchmarks import (
    BenchmarkResult,
    benchmark_probabilities,
    benchmark_replicates,
)
from metrics.uncertainty.bootstrap import bootstrap_chunk, bootstrap_combine
from metrics.uncertainty.true_agreement import true_agreement_interval

Level = Literal["nominal", "ordinal", "interval", "ratio", "set", "hierarchy"]
Method = Literal["bca", "percentile"]
Model = Literal["conservative", "homogeneity"]
BenchmarkMethod = Literal["replicates", "normal"]
#: The levels of measurement a report knows (``level=``), in order.
LEVELS: tuple[str, ...] = ("nominal", "ordinal", "interval", "ratio", "set", "hierarchy")
#: Distance used at each level when none is given (None: the nominal distance).
DEFAULT_DISTANCE: dict[str, str | None] = {
    "nominal": None,
    "ordinal": "ordinal",
    "interval": "interval",
    "ratio": "ratio",
    "set": "masi",
    "hierarchy": "tree",
}
#: Every key of a report's ``coefficients``, in the order they are reported.
COEFFICIENT_KEYS: tuple[str, ...] = (
    "observed_agreement",
    "s",
    "pi",
    "kappa",
    "alpha",
    "kappa_w",
    "light_kappa",
    "ac1",
    "brennan_prediger",
)

#: The benchmark scales a report reads each interval on (Gwet 2014, ch. 6), in order.
REPORT_BENCHMARK_SCALES: tuple[str, ...] = ("landis_koch", "fleiss", "altman", "krippendorff")
#: How each of those scales is named in text.
BENCHMARK_SCALE_TITLES: dict[str, str] = {
    "landis_koch": "Landis & Koch",
    "fleiss": "Fleiss",
    "altman": "Altman",
    "krippendorff": "Krippendorff",
}
#: The ICC's levels of measurement: the report adds the ICC table only at these.
ICC_LEVELS: tuple[str, ...] = ("interval", "ratio")
#: The cumulative probability a band must reach to be attained (Gwet's 95% rule).
BENCHMARK_THRESHOLD = 0.95
# The library's way out of an incomplete design, and the report's instead (it takes no
# ``missing`` argument: leaving items out would silently change the ICC's sample).
_ICC_DROP_HINT = "Pass missing='drop' to leave those items out."
_ICC_REPORT_HINT = "The report gives the ICC for complete designs only."

Function = Callable[..., Any]


@dataclass(frozen=True)
class CoefficientSpec:
    """How to compute, decompose and give the analytic SE of one report entry."""

    key: str
    compute: Function
    decompose: Function
    weighted: bool = False
    se: tuple[Function, str, bool] | None = None  # (function, coefficient argument, weighted)


def coefficient_specs(n_coders: int, weighted_report: bool) -> list[CoefficientSpec]:
    """The report's entries for data with ``n_coders`` coders, in ``COEFFICIENT_KEYS`` order;
    ``kappa_w`` only for two coders with a distance (``weighted_report``)."""
    two = n_coders == 2
    linearized = analytic.linearized_se
    specs = [
        CoefficientSpec("observed_agreement", agreement.observed_agreement,
                        agreement.decompose_observed_agreement),
        CoefficientSpec("s", agreement.bennett_s, agreement.decompose_bennett_s,
                        se=(linearized, "brennan_prediger", False)),
        CoefficientSpec("pi", agreement.scott_pi if two else agreement.fleiss_pi,
                        agreement.decompose_scott_pi if two else agreement.decompose_fleiss_pi,
                        se=(linearized, "fleiss", False)),
        CoefficientSpec("kappa", agreement.cohen_kappa if two else agreement.conger_kappa,
                        agreement.decompose_cohen_kappa if two
                        else agreement.decompose_conger_kappa,
                        se=(analytic.cohen_kappa_se, "", False) if two
                        else (linearized, "conger", False)),
        CoefficientSpec("alpha", alpha.krippendorff_alpha, alpha.decompose_krippendorff_alpha,
                        weighted=True, se=(linearized, "alpha", True)),
    ]  # fmt: skip
    if two and weighted_report:
        specs.append(
            CoefficientSpec("kappa_w", weighted.weighted_kappa, weighted.decompose_weighted_kappa,
                            weighted=True, se=(analytic.cohen_kappa_se, "", True))
        )  # fmt: skip
    specs += [
        CoefficientSpec("light_kappa", agreement.light_kappa, agreement.decompose_light_kappa),
        CoefficientSpec("ac1", gwet.gwet_ac1, gwet.decompose_gwet_ac1, weighted=True,
                        se=(linearized, "ac1", True)),
        CoefficientSpec("brennan_prediger", gwet.brennan_prediger,
                        gwet.decompose_brennan_prediger, weighted=True,
                        se=(linearized, "brennan_prediger", True)),
    ]  # fmt: skip
    return specs


def report_distance(
    level: str, distance: DistanceLike | None = None, *, tree: Any = None
) -> Distance | None:
    """The distance a report at ``level`` uses: ``distance`` if given, else the level's default.

    Parameters
    ----------
    level : {"nominal", "ordinal", "interval", "ratio", "set", "hierarchy"}
        Level of measurement; its default distance is :data:`DEFAULT_DISTANCE`.
    distance : str, Distance, array_like (V, V) or None
        Overrides the level's default; resolved by :func:`metrics.distances.resolve_distance`.
    tree : optional
        The hierarchy for ``tree``/``melamed_resnik`` distances (a ``{node: parent}`` mapping).

    Returns
    -------
    Distance or None
        None means the nominal distance (unweighted coefficients, no ``kappa_w``).

    Raises
    ------
    ValueError
        For an unknown level or distance, or a hierarchy distance without a tree.

    Examples
    --------
    >>> report_distance("set").name, report_distance("nominal", "nominal")
    ('masi', None)
    """
    if level not in LEVELS:
        raise ValueError(f"Unknown level {level!r}; choose one of {', '.join(LEVELS)}.")
    chosen = DEFAULT_DISTANCE[level] if distance is None else distance
    if chosen is None:
        return None
    resolved = resolve_distance(chosen, tree=tree)
    return None if isinstance(resolved, NominalDistance) else resolved


def _entry(result: CoefficientResult) -> dict[str, Any]:
    return {
        "value": float(result.value),
        "observed": float(result.observed),
        "expected": float(result.expected),
        "kind": result.kind,
    }


def analytic_se(
    spec: CoefficientSpec,
    data: ReliabilityData,
    distance: Distance | None,
    value: float,
    confidence: float,
) -> float | None:
    """The analytic standard error of a report entry, or None.

    Parameters
    ----------
    spec : CoefficientSpec
        The entry, from :func:`coefficient_specs`.
    data : ReliabilityData
    distance : Distance or None
        The report's distance (:func:`report_distance`); used for weighted entries.
    value : float
        The entry's value; the SE is returned only when the analytic function estimates this
        same number (to 1e-9).
    confidence : float
        Confidence level passed to the analytic function (does not change the SE).

    Returns
    -------
    float or None
        None when the entry has no analytic SE, it fails on these data, or it estimates
        another number.
    """
    if spec.se is None:
        return None
    function, coefficient, weighted_se = spec.se
    options: dict[str, Any] = {"confidence": confidence}
    if coefficient:
        options["coefficient"] = coefficient
    if weighted_se and distance is not None:
        options["distance"] = distance
    try:
        result = function(data, **options)
    except (ValueError, ZeroDivisionError, FloatingPointError):
        return None
    se = float(result.se)
    if not np.isfinite(se) or abs(float(result.estimate) - value) > 1e-9:
        return None
    return se


def _interval(
    decompose: Function,
    options: Mapping[str, Any],
    data: ReliabilityData,
    *,
    settings: _Settings,
    analytic: float | None,
    key: str,
    skipped: dict[str, str],
) -> dict[str, Any]:
    """The entry's ``ci``, with ``benchmarks`` read from the same bootstrap."""
    decomposition = decompose(data, **options)
    values = bootstrap_chunk(decomposition, seed=settings.seed, start=0, stop=settings.replicates)
    result = bootstrap_combine(
        decomposition,
        [values],
        seed=settings.seed,
        replicates=settings.replicates,
        confidence=settings.confidence,
        method=settings.method,
    )
    ci: dict[str, Any] = {
        "low": float(result.low),
        "high": float(result.high),
        "confidence": float(result.confidence),
        "method": str(result.method),
        "replicates": int(result.replicates),
    }
    try:
        if settings.benchmark_method == "replicates":
            ci["benchmarks"] = benchmarks_json(replicates=values)
        else:
            se, source = (
                (analytic, "analytic") if analytic is not None else (result.se, "bootstrap")
            )
            ci["benchmarks"] = benchmarks_json(estimate=float(result.estimate), se=float(se))
            ci["benchmarks"]["se_source"] = source
    except ValueError as error:  # e.g. a bootstrap SE of 0: the interval stands without
        skipped[f"{key}.benchmarks"] = str(error)
    return ci


def benchmarks_json(
    *,
    replicates: Any = None,
    estimate: float | None = None,
    se: float | None = None,
    threshold: float = BENCHMARK_THRESHOLD,
) -> dict[str, Any]:
    """Membership probabilities of one coefficient in the bands of every report scale.

    Gwet's (2014, ch. 6) benchmarking, JSON-ready: from bootstrap ``replicates`` (the share
    of replicates in each band; undefined replicates left out) or, when none are given,
    from ``estimate`` and ``se`` (a normal distribution truncated to [-1, 1], as irrCAC's
    ``landis.koch.bf``).

    Parameters
    ----------
    replicates : array_like of float, optional
        Bootstrap replicates of the coefficient (``nan`` or None where undefined).
    estimate, se : float, optional
        The coefficient and its standard error, used when ``replicates`` is None.
    threshold : float, default 0.95
        The cumulative probability a band must reach to be attained.

    Returns
    -------
    dict
        ``method`` (``"replicates"`` or ``"normal"``), ``threshold``, ``n_replicates``,
        ``n_omitted``, ``se`` (normal method, else None) and ``scales``: for each of
        :data:`REPORT_BENCHMARK_SCALES`, ``labels`` (highest band first), ``probabilities``,
        ``cumulative``, ``attained`` (the highest band whose cumulative probability reaches
        ``threshold``), ``attained_probability`` (that cumulative probability), ``leading``
        (the most probable band) and ``leading_probability``.

    Raises
    ------
    ValueError
        As :func:`~metrics.uncertainty.benchmarks.benchmark_replicates` (every replicate
        undefined, a replicate above 1) or
        :func:`~metrics.uncertainty.benchmarks.benchmark_probabilities` (an SE not positive).

    Examples
    --------
    irrCAC's example, a kappa of 0.67 with standard error 0.15:

    >>> bands = benchmarks_json(estimate=0.67, se=0.15)["scales"]["landis_koch"]
    >>> bands["attained"], round(bands["attained_probability"], 5), bands["leading"]
    ('moderate', 0.96356, 'substantial')
    """
    results: dict[str, BenchmarkResult] = {}
    for scale in REPORT_BENCHMARK_SCALES:  # a loop over four scales
        if replicates is not None:
            values = np.asarray(
                [np.nan if v is None else v for v in replicates]
                if isinstance(replicates, list)
                else replicates,
                dtype=np.float64,
            )
            results[scale] = benchmark_replicates(
                values,
                scale=scale,  # type: ignore[arg-type]
                threshold=threshold,
                nan_policy="omit",
            )
        else:
            if estimate is None or se is None:
                raise ValueError("benchmarks_json needs replicates, or an estimate and its se.")
            results[scale] = benchmark_probabilities(
                estimate,
                se,
                scale=scale,  # type: ignore[arg-type]
                threshold=threshold,
            )
    first = next(iter(results.values()))
    return {
        "method": first.method,
        "threshold": float(threshold),
        "n_replicates": first.n_replicates,
        "n_omitted": first.n_omitted,
        "se": None if first.se is None else float(first.se),
        "scales": {scale: _bands_json(result) for scale, result in results.items()},
    }


def _bands_json(result: BenchmarkResult) -> dict[str, Any]:
    attained = result.labels.index(result.attained)
    leading = int(np.argmax(result.probabilities))  # the first (higher) band on a tie
    return {
        "labels": list(result.labels),
        "probabilities": [float(p) for p in result.probabilities],
        "cumulative": [float(c) for c in result.cumulative],
        "attained": result.attained,
        "attained_probability": float(result.cumulative[attained]),
        "leading": result.labels[leading],
        "leading_probability": float(result.probabilities[leading]),
    }


def _icc_json(data: ReliabilityData, confidence: float) -> dict[str, Any]:
    """The ten ICC forms of a complete design (McGraw & Wong 1996) with their F tests."""
    table = icc_table(data, confidence=confidence, missing="raise")
    anova = table.anova
    return {
        "confidence": float(confidence),
        "n_items": anova.n_items,
        "n_coders": anova.n_coders,
        "anova": {
            name: float(getattr(anova, name))
            for name in (
                "ss_items",
                "ss_coders",
                "ss_error",
                "ms_items",
                "ms_coders",
                "ms_error",
                "ms_within",
            )
        },
        "forms": [
            {
                "form": r.form,
                "shrout_fleiss": r.shrout_fleiss,
                "model": r.model,
                "type": r.type,
                "unit": r.unit,
                "value": float(r.value),
                "low": float(r.low),
                "high": float(r.high),
                # An error mean square of 0 gives an infinite F, which JSON cannot hold.
                "f": float(r.f) if np.isfinite(r.f) else None,
                "df1": float(r.df1),
                "df2": float(r.df2),
                "p_value": float(r.p_value),
            }
            for r in table.results
        ],
    }


def _true_agreement(
    data: ReliabilityData, confidence: float, model: Model
) -> tuple[dict[str, Any] | None, str | None]:
    if data.n_coders != 2:
        return None, None
    if data.n_values != 2:
        return None, "the true-agreement interval needs two categories (a 2 × 2 table)"
    _, first, second = data.paired_codes(0, 1)
    table = np.bincount(first * 2 + second, minlength=4).reshape(2, 2)
    try:
        interval = true_agreement_interval(table, model=model, confidence=confidence)
    except ValueError as error:
        return None, str(error)
    return {
        "low": interval.low,
        "high": interval.high,
        "confidence": float(interval.confidence),
        "model": str(interval.model),
    }, None


@dataclass(frozen=True)
class _Settings:
    replicates: int
    seed: int
    confidence: float
    method: Method
    benchmark_method: BenchmarkMethod = "replicates"


def _compute(
    spec: CoefficientSpec,
    data: ReliabilityData,
    distance: Distance | None,
    settings: _Settings,
    skipped: dict[str, str],
) -> dict[str, Any] | None:
    """One coefficient's entry, or None (and the reason in ``skipped``)."""
    options: dict[str, Any] = {}
    if spec.weighted and distance is not None:
        options["distance"] = distance
    try:
        result = spec.compute(data, **options)
    except ValueError as error:
        skipped[spec.key] = str(error)
        return None
    entry = _entry(result)
    if not settings.replicates:
        return entry
    se = analytic_se(spec, data, distance, entry["value"], settings.confidence)
    try:
        entry["ci"] = _interval(
            spec.decompose, options, data,
            settings=settings, analytic=se, key=spec.key, skipped=skipped,
        )  # fmt: skip
    except ValueError as error:
        skipped[f"{spec.key}.ci"] = str(error)
    if se is not None:
        entry["se"] = se
    return entry


def report(
    data: DataLike,
    *,
    level: Level | str = "nominal",
    distance: DistanceLike | None = None,
    tree: Any = None,
    domain: Sequence[Hashable] | None = None,
    bootstrap: int = 0,
    seed: int = 0,
    confidence: float = 0.95,
    method: Method = "bca",
    true_agreement_model: Model = "conservative",
    benchmark_method: BenchmarkMethod = "replicates",
) -> dict[str, Any]:
    """Every applicable coefficient of ``data`` as a JSON-ready dictionary.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values with ``nan``/None for missing.
    level : {"nominal", "ordinal", "interval", "ratio", "set", "hierarchy"}, default "nominal"
        Level of measurement. Sets the default distance: none (nominal), ordinal
        (Krippendorff's), interval, ratio, ``masi`` for sets, ``tree`` for hierarchies.
    distance : str, Distance or array_like (V, V), optional
        Overrides the level's distance. It weights alpha, kappa_w, AC1 (then AC2) and
        Brennan–Prediger; observed agreement, S, pi, kappa and Light's kappa stay unweighted.
    tree : optional
        ``{node: parent}`` for the hierarchy distances.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`); needed for ordinal string labels.
    bootstrap : int, default 0
        Number of bootstrap replicates (items resampled); 0 for none. With replicates, each
        coefficient gets ``ci`` and, where an analytic formula exists, ``se``.
    seed : int, default 0
        Bootstrap seed; every coefficient resamples the same items.
    confidence : float, default 0.95
        Confidence level of the bootstrap and true-agreement intervals.
    method : {"bca", "percentile"}, default "bca"
    true_agreement_model : {"conservative", "homogeneity"}, default "conservative"
    benchmark_method : {"replicates", "normal"}, default "replicates"
        How each interval's ``benchmarks`` are read: the share of bootstrap replicates in
        each band, or Gwet's (2014) truncated normal from the estimate and its standard
        error (the analytic SE where the entry has one, as irrCAC does; else the bootstrap
        SE). See :func:`benchmarks_json`.

    Returns
    -------
    dict
        ``n_items``, ``n_coders``, ``n_annotations``, ``n_pairable_items``, ``level``,
        ``distance``, ``coefficients`` (key → ``{"value", "observed", "expected", "kind"}``
        plus ``ci`` ``{"low", "high", "confidence", "method", "replicates", "benchmarks"}``
        and ``se``), ``true_agreement`` (two coders, two categories: ``{"low", "high",
        "confidence", "model"}``), ``icc`` (interval and ratio levels, complete designs: the
        ten McGraw & Wong forms, see :func:`_icc_json`) and ``skipped`` (key → reason). See
        ``docs/metrics.md``.

    Raises
    ------
    ValueError
        For an unknown level or distance, a distance the data cannot take (ordinal on string
        labels without ``domain``, interval or ratio on text), a bad ``confidence`` or
        ``bootstrap``.

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (A_o 0.7, S 0.4, π ≈ 0.341, κ ≈ 0.348):

    >>> pairs = [("S", "S")] * 20 + [("I", "S")] * 20 + [("S", "I")] * 10 + [("I", "I")] * 50
    >>> result = report(np.array(pairs, dtype=object).T)
    >>> [round(result["coefficients"][key]["value"], 3) for key in ("observed_agreement", "s")]
    [0.7, 0.4]
    >>> [round(result["coefficients"][key]["value"], 3) for key in ("pi", "kappa")]
    [0.341, 0.348]
    """
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence}.")
    if bootstrap < 0 or int(bootstrap) != bootstrap:
        raise ValueError(f"bootstrap must be a whole number of replicates ≥ 0; got {bootstrap}.")
    if benchmark_method not in ("replicates", "normal"):
        raise ValueError(
            f"benchmark_method must be 'replicates' or 'normal'; got {benchmark_method!r}."
        )
    rd = as_reliability_data(data, domain=domain)
    coefficients: dict[str, dict[str, Any]] = {}
    skipped: dict[str, str] = {}
    resolved = report_distance(level, distance, tree=tree)
    if resolved is not None:
        resolve_distance(resolved, rd)  # a distance the data cannot take is an error, not a skip
    settings = _Settings(int(bootstrap), seed, confidence, method, benchmark_method)
    for spec in coefficient_specs(rd.n_coders, resolved is not None):
        entry = _compute(spec, rd, resolved, settings, skipped)
        if entry is not None:
            coefficients[spec.key] = entry
    output: dict[str, Any] = {
        "n_items": rd.n_items,
        "n_coders": rd.n_coders,
        "n_annotations": rd.n_annotations,
        "n_pairable_items": rd.n_pairable_items,
        "level": level,
        "distance": _distance_name(resolved),
        "coefficients": coefficients,
    }
    true_agreement, reason = _true_agreement(rd, confidence, true_agreement_model)
    if true_agreement is not None:
        output["true_agreement"] = true_agreement
    if reason is not None:
        skipped["true_agreement"] = reason
    if level in ICC_LEVELS:
        try:
            output["icc"] = _icc_json(rd, confidence)
        except ValueError as error:  # an incomplete design, one coder, no item variance
            skipped["icc"] = str(error).replace(_ICC_DROP_HINT, _ICC_REPORT_HINT)
    output["skipped"] = skipped
    return output


def _distance_name(distance: Distance | None) -> str:
    return "nominal" if distance is None else str(distance.name)


__all__ = [
    "BENCHMARK_SCALE_TITLES",
    "BENCHMARK_THRESHOLD",
    "COEFFICIENT_KEYS",
    "DEFAULT_DISTANCE",
    "ICC_LEVELS",
    "LEVELS",
    "REPORT_BENCHMARK_SCALES",
    "CoefficientSpec",
    "analytic_se",
    "benchmarks_json",
    "coefficient_specs",
    "report",
    "report_distance",
]
