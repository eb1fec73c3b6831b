"""Judge diagnostics: a model's self-consistency, its calibration, and everything at once.

- :func:`self_consistency`: the same model labelled the same items twice (two runs, or two
  prompt versions): Krippendorff's alpha between the runs (intra-coder reliability), with a
  bootstrap interval over items.
- :func:`calibration`: the model gave a confidence with each label; on the items whose
  correct label is known, the expected calibration error with **equal-mass** bins and the
  data of a reliability diagram (per bin: mean confidence, accuracy, count).
- :func:`judge_report`: the alternative annotator test, the model against each human
  (accuracy and Cohen's kappa with intervals), prediction-powered prevalences against a gold
  coder, self-consistency and calibration, as one JSON-able dict.

Equal-mass bins
---------------
The edges are the confidences' quantiles at ``0, 1/B, ..., 1`` (``numpy.percentile``, linear
interpolation) and a confidence ``c`` falls into bin ``j`` when ``edge_j < c <= edge_{j+1}``
(the first bin also takes the minimum): scikit-learn's ``calibration_curve(...,
strategy="quantile")`` binning. Bins are (nearly) equally full; tied confidences stay
together, so with many ties some bins are empty and are left out. Then

.. math::

    \\mathrm{ECE} = \\sum_{b} \\frac{n_b}{n}\\,\\bigl|\\mathrm{acc}_b - \\mathrm{conf}_b\\bigr|,

as the equal-mass ECE of Nixon et al. (2019) and Roelofs et al. (2022).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.coefficients.alpha import decompose_krippendorff_alpha, krippendorff_alpha
from metrics.data import ReliabilityData
from metrics.distances import DistanceLike
from metrics.models.alt_test import (
    AltTestRefusedError,
    Scoring,
    _check_options,
    alt_tests_on_data,
)
from metrics.models.ppi import model_agreement, ppi_prevalence_on_data
from metrics.uncertainty.bootstrap import bootstrap

__all__ = [
    "CalibrationBin",
    "CalibrationResult",
    "SelfConsistency",
    "calibration",
    "judge_report",
    "self_consistency",
    "self_consistency_on_data",
]


@dataclass(frozen=True)
class CalibrationBin:
    """One bin of the reliability diagram."""

    low: float
    high: float
    mean_confidence: float
    accuracy: float
    count: int

    def to_json(self) -> dict[str, Any]:
        return {
            "low": self.low,
            "high": self.high,
            "mean_confidence": self.mean_confidence,
            "accuracy": self.accuracy,
            "count": self.count,
        }


@dataclass(frozen=True)
class CalibrationResult:
    """Expected calibration error with equal-mass bins, and the reliability diagram.

    Attributes
    ----------
    ece : float
        Expected calibration error.
    bins : tuple of CalibrationBin
        The non-empty bins, by confidence.
    n : int
        Labels with a confidence and a known correct answer.
    n_bins : int
        Bins asked for (empty ones are not listed).
    accuracy, mean_confidence : float
        Over all ``n`` labels: over- (``mean_confidence > accuracy``) or under-confidence.
    """

    ece: float
    bins: tuple[CalibrationBin, ...]
    n: int
    n_bins: int
    accuracy: float
    mean_confidence: float

    def to_json(self) -> dict[str, Any]:
        return {
            "ece": self.ece,
            "n": self.n,
            "n_bins": self.n_bins,
            "accuracy": self.accuracy,
            "mean_confidence": self.mean_confidence,
            "binning": "equal-mass",
            "bins": [b.to_json() for b in self.bins],
        }


@dataclass(frozen=True)
class SelfConsistency:
    """Intra-coder reliability: Krippendorff's alpha between two (or more) runs of a model.

    Attributes
    ----------
    alpha : float or None
        None when undefined (every label the same), with ``note``.
    ci : tuple of float or None
        Bootstrap (BCa) interval over items.
    n_items : int
        Items labelled by at least two runs.
    identical : float
        Share of those items whose runs all gave the same label.
    runs : tuple
        The runs (coder identifiers).
    distance : str
    confidence : float
    note : str or None
    """

    alpha: float | None
    ci: tuple[float, float] | None
    n_items: int
    identical: float
    runs: tuple[Hashable, ...]
    distance: str
    confidence: float
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "alpha": self.alpha,
            "ci": None if self.ci is None else list(self.ci),
            "n_items": self.n_items,
            "identical": self.identical,
            "runs": [str(run) for run in self.runs],
            "distance": self.distance,
            "confidence": self.confidence,
            "note": self.note,
        }


def calibration(
    confidences: npt.ArrayLike, correct: npt.ArrayLike, *, bins: int = 10
) -> CalibrationResult:
    """Expected calibration error with equal-mass bins, and the reliability diagram's data.

    Parameters
    ----------
    confidences : array_like of float, shape (n,)
        The model's confidence in each of its labels, in [0, 1].
    correct : array_like of bool, shape (n,)
        Whether each label is correct.
    bins : int, default 10
        Number of equal-mass bins.

    Returns
    -------
    CalibrationResult

    References
    ----------
    Nixon, J., Dusenberry, M., Zhang, L., Jerfel, G. & Tran, D. (2019). Measuring calibration
    in deep learning. CVPR Workshops. https://arxiv.org/abs/1904.01685

    Roelofs, R., Cain, N., Shlens, J. & Mozer, M. C. (2022). Mitigating bias in calibration
    error estimation. AISTATS 2022. https://arxiv.org/abs/2012.08668

    Examples
    --------
    Four labels, two bins: {0.6, 0.7} with one correct, {0.8, 0.9} with both correct:
    ECE = ½·|0.5 − 0.65| + ½·|1 − 0.85| = 0.15.

    >>> result = calibration([0.6, 0.7, 0.8, 0.9], [True, False, True, True], bins=2)
    >>> round(result.ece, 10), [b.count for b in result.bins]
    (0.15, [2, 2])
    """
    conf = np.asarray(confidences, dtype=np.float64).reshape(-1)
    hit = np.asarray(correct).reshape(-1)
    if conf.size != hit.size:
        raise ValueError(
            f"{conf.size} confidences but {hit.size} correctness flags: one per label."
        )
    if conf.size == 0:
        raise ValueError("Calibration needs at least one label with a confidence.")
    if not np.all(np.isfinite(conf)) or conf.min() < 0 or conf.max() > 1:
        raise ValueError("Confidences must be numbers in [0, 1].")
    if hit.dtype != bool and not np.all(np.isin(hit, (0, 1))):
        raise ValueError("correct must hold booleans (or 0/1).")
    if not (isinstance(bins, int) and bins >= 1):
        raise ValueError(f"bins must be a positive integer, got {bins!r}.")
    hit_f = hit.astype(np.float64)
    edges = np.percentile(conf, np.linspace(0, 1, bins + 1) * 100)
    index = np.searchsorted(edges[1:-1], conf)
    count = np.bincount(index, minlength=bins)
    conf_sum = np.bincount(index, weights=conf, minlength=bins)
    hit_sum = np.bincount(index, weights=hit_f, minlength=bins)
    filled = np.flatnonzero(count)
    mean_conf = conf_sum[filled] / count[filled]
    accuracy = hit_sum[filled] / count[filled]
    weights = count[filled] / conf.size
    return CalibrationResult(
        ece=float(np.sum(weights * np.abs(accuracy - mean_conf))),
        bins=tuple(
            CalibrationBin(
                low=float(edges[b]),
                high=float(edges[b + 1]),
                mean_confidence=float(mc),
                accuracy=float(acc),
                count=int(count[b]),
            )
            for b, mc, acc in zip(filled, mean_conf, accuracy, strict=True)
        ),
        n=int(conf.size),
        n_bins=bins,
        accuracy=float(hit_f.mean()),
        mean_confidence=float(conf.mean()),
    )


def self_consistency(
    items: npt.ArrayLike | Sequence[Hashable],
    runs: npt.ArrayLike | Sequence[Hashable],
    labels: npt.ArrayLike | Sequence[Hashable],
    *,
    distance: DistanceLike = "nominal",
    domain: Sequence[Hashable] | None = None,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> SelfConsistency:
    """Intra-coder alpha of a model that labelled the same items in several runs.

    Parameters
    ----------
    items, runs, labels : array_like, shape (n_annotations,)
        One label per (item, run): a run is a repetition of the model, or a prompt version.
    distance : str, Distance or array_like, default "nominal"
        Alpha's distance (:func:`metrics.krippendorff_alpha`).
    replicates : int, default 1000
        Bootstrap replicates of the interval; 0 for none.

    Examples
    --------
    Two runs agree on 9 of 10 items; alpha 0.80808 as ``krippendorff.alpha`` (0.9.0) gives
    for the same reliability data:

    >>> first = list("aabbabbaab")
    >>> second = list("aabbabbabb")
    >>> result = self_consistency(list(range(10)) * 2, ["r1"] * 10 + ["r2"] * 10,
    ...                           first + second, replicates=0)
    >>> round(result.alpha, 4), result.identical
    (0.8081, 0.9)
    """
    data = ReliabilityData.from_long(items, runs, labels, domain=domain)
    return _self_consistency(data, distance, replicates, seed, confidence)


def self_consistency_on_data(
    data: ReliabilityData,
    *,
    runs: Sequence[Hashable],
    distance: DistanceLike = "nominal",
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> SelfConsistency:
    """:func:`self_consistency` of the coders ``runs`` of ``data`` (the runs of one model
    among other coders, whose labels are left out), on ``data``'s domain."""
    positions = [data.coders.index(run) for run in dict.fromkeys(runs) if run in data.coders]
    return _self_consistency(
        data.restricted_to_coders(positions), distance, replicates, seed, confidence
    )


def _self_consistency(
    data: ReliabilityData,
    distance: DistanceLike,
    replicates: int,
    seed: int,
    confidence: float,
) -> SelfConsistency:
    if data.n_coders < 2:
        raise ValueError("Self-consistency needs at least two runs of the model.")
    pairable = data.pairable
    n_items = int(np.count_nonzero(pairable))
    if n_items == 0:
        raise ValueError("No item was labelled by two runs of the model.")
    starts = data.item_starts
    codes = data.value_code
    first = codes[starts[:-1][pairable]]
    low = np.minimum.reduceat(codes, starts[:-1])[pairable] if codes.size else first
    high = np.maximum.reduceat(codes, starts[:-1])[pairable] if codes.size else first
    identical = float(np.mean(low == high))
    name = distance if isinstance(distance, str) else type(distance).__name__
    try:
        value = krippendorff_alpha(data, distance=distance).value
    except ValueError as error:
        return SelfConsistency(
            alpha=None,
            ci=None,
            n_items=n_items,
            identical=identical,
            runs=data.coders,
            distance=name,
            confidence=confidence,
            note=str(error),
        )
    ci = None
    note = None
    if replicates:
        try:
            boot = bootstrap(
                decompose_krippendorff_alpha(data, distance=distance),
                replicates=replicates,
                seed=seed,
                confidence=confidence,
            )
            ci = (boot.low, boot.high)
        except ValueError as error:
            note = f"No interval: {error}"
    return SelfConsistency(
        alpha=float(value),
        ci=ci,
        n_items=n_items,
        identical=identical,
        runs=data.coders,
        distance=name,
        confidence=confidence,
        note=note,
    )


def judge_report(
    items: npt.ArrayLike | Sequence[Hashable],
    coders: npt.ArrayLike | Sequence[Hashable],
    labels: npt.ArrayLike | Sequence[Hashable],
    *,
    model: Hashable,
    humans: Sequence[Hashable] | None = None,
    gold: Hashable | None = None,
    repeat: Hashable | None = None,
    confidences: npt.ArrayLike | None = None,
    epsilon: float = 0.2,
    alpha: float = 0.05,
    scoring: Scoring = "accuracy",
    min_items_per_human: int = 30,
    confidence: float = 0.95,
    bins: int = 10,
    replicates: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Everything about one model coder, as one JSON-able dict.

    Parameters
    ----------
    items, coders, labels : array_like, shape (n_annotations,)
        The round's annotations, the model's among them.
    model : hashable
        The model coder.
    humans : sequence, optional
        The human coders (``gold`` among them, if given); default every coder but ``model``
        and ``repeat``.
    gold : hashable, optional
        A human coder whose labels are taken as true: prediction-powered prevalences and the
        reference of calibration.
    repeat : hashable, optional
        The coder id of the same model's second run (or other prompt version) on the same
        items: self-consistency.
    confidences : array_like of float, shape (n_annotations,), optional
        The model's confidence in each of its labels (``nan`` on the other rows).
    epsilon, alpha, scoring, min_items_per_human
        Options of :func:`metrics.models.alt_test`.
    confidence : float, default 0.95
        Confidence level of the intervals.
    bins : int, default 10
        Equal-mass bins of the calibration.
    replicates, seed
        Bootstrap of the self-consistency interval.

    Returns
    -------
    dict
        ``model``; ``alt_test`` (:meth:`AltTestResult.to_json`, or ``{"refused": reason}``);
        ``against_humans`` (``{human: {n_items, accuracy, accuracy_ci, kappa, kappa_ci}}``);
        ``ppi`` (with ``gold``); ``self_consistency`` (with ``repeat``); ``calibration``
        (with ``confidences``; correctness against ``gold``, else against the humans'
        majority label where it is unique).
    """
    _check_options(epsilon, alpha, scoring, 2, min_items_per_human)
    items_list = _as_list(items)
    coders_list = _as_list(coders)
    labels_list = _as_list(labels)
    data = ReliabilityData.from_long(items_list, coders_list, labels_list)
    if model not in data.coders:
        raise ValueError(f"The model coder {model!r} labelled no item.")
    not_human = {model} | ({repeat} if repeat is not None else set())
    human_ids = [c for c in data.coders if c not in not_human] if humans is None else list(humans)
    report: dict[str, Any] = {"model": str(model), "humans": [str(h) for h in human_ids]}
    try:
        result = alt_tests_on_data(
            data,
            models=[model],
            humans=human_ids,
            epsilon=epsilon,
            alpha=alpha,
            scoring=scoring,
            min_items_per_human=min_items_per_human,
        )[model]
        report["alt_test"] = result.to_json()
    except AltTestRefusedError as refusal:
        report["alt_test"] = {"refused": str(refusal)}
    report["against_humans"] = _against_humans(data, model, human_ids, confidence)
    if gold is not None:
        try:
            report["ppi"] = ppi_prevalence_on_data(
                data, gold=gold, model=model, confidence=confidence
            ).to_json()
        except ValueError as error:
            report["ppi"] = {"refused": str(error)}
    if repeat is not None:
        pair = _restricted(data, [model, repeat])
        try:
            report["self_consistency"] = _self_consistency(
                pair, "nominal", replicates, seed, confidence
            ).to_json()
        except ValueError as error:
            report["self_consistency"] = {"refused": str(error)}
    if confidences is not None:
        report["calibration"] = _calibration_against(
            data, items_list, coders_list, confidences, model, gold, human_ids, bins
        )
    return report


# -- helpers ---------------------------------------------------------------------------------


def _as_list(values: Any) -> Any:
    return values if isinstance(values, np.ndarray) else list(values)


def _restricted(data: ReliabilityData, coders: list[Hashable]) -> ReliabilityData:
    positions = [data.coders.index(c) for c in coders if c in data.coders]
    return data.restricted_to_coders(positions)


def _codes_of(data: ReliabilityData, coder: Hashable) -> NDArray[np.intp]:
    codes = np.full(data.n_items, -1, dtype=np.intp)
    mine = data.coder_index == data.coders.index(coder)
    codes[data.item_index[mine]] = data.value_code[mine]
    return codes


def _against_humans(
    data: ReliabilityData, model: Hashable, humans: list[Hashable], confidence: float
) -> dict[str, Any]:
    model_codes = _codes_of(data, model)
    V = data.n_values
    out: dict[str, Any] = {}
    for human in humans:
        if human not in data.coders:
            continue
        human_codes = _codes_of(data, human)
        both = (model_codes >= 0) & (human_codes >= 0)
        if not both.any():
            out[str(human)] = {"n_items": 0}
            continue
        table = np.bincount(human_codes[both] * V + model_codes[both], minlength=V * V).reshape(
            V, V
        )
        agreement = model_agreement(table, domain=data.domain, confidence=confidence).to_json()
        out[str(human)] = {
            key: agreement[key]
            for key in ("n_items", "accuracy", "accuracy_ci", "kappa", "kappa_ci")
        }
    return out


def _calibration_against(
    data: ReliabilityData,
    items: Any,
    coders: Any,
    confidences: npt.ArrayLike,
    model: Hashable,
    gold: Hashable | None,
    humans: list[Hashable],
    bins: int,
) -> dict[str, Any]:
    conf = np.asarray(confidences, dtype=np.float64).reshape(-1)
    if conf.size != data.n_annotations:
        raise ValueError(
            f"{conf.size} confidences for {data.n_annotations} annotations: give one per "
            "annotation (nan where the coder is not the model)."
        )
    is_model = _positions(data.coders, coders) == data.coders.index(model)
    rows = np.flatnonzero(is_model & np.isfinite(conf))
    model_codes = _codes_of(data, model)
    if gold is not None:
        reference = _codes_of(data, gold)
        source = f"the gold coder {gold!s}"
    else:
        reference = _majority(data, humans)
        source = "the humans' majority label (items with a unique majority)"
    item_index = _positions(data.items, items)[rows]
    known = reference[item_index] >= 0
    if not known.any():
        return {"refused": f"No item with a model confidence has a label from {source}."}
    result = calibration(
        conf[rows][known],
        model_codes[item_index[known]] == reference[item_index[known]],
        bins=bins,
    ).to_json()
    result["reference"] = source
    return result


def _positions(ids: tuple[Hashable, ...], values: Any) -> NDArray[np.intp]:
    """Each of ``values``' position in ``ids`` (the sorted identifiers ``from_long`` made)."""
    array = np.asarray(values) if not isinstance(values, np.ndarray) else values
    if array.dtype != object and array.ndim == 1:
        keys = np.asarray(ids)
        same_kind = keys.dtype.kind == array.dtype.kind or (
            keys.dtype.kind in "iuf" and array.dtype.kind in "iuf"
        )
        if same_kind and keys.dtype.kind in "iufUS":
            return np.searchsorted(keys, array).astype(np.intp)
    lookup = {value: k for k, value in enumerate(ids)}
    return np.array([lookup[value] for value in values], dtype=np.intp)


def _majority(data: ReliabilityData, humans: list[Hashable]) -> NDArray[np.intp]:
    """Per item, the humans' most frequent label when it is unique, else -1."""
    positions = [data.coders.index(h) for h in humans if h in data.coders]
    mask = np.isin(data.coder_index, positions)
    V = data.n_values
    counts = np.bincount(
        data.item_index[mask] * V + data.value_code[mask], minlength=data.n_items * V
    ).reshape(data.n_items, V)
    best = counts.argmax(axis=1)
    top = counts.max(axis=1)
    unique = (counts == top[:, None]).sum(axis=1) == 1
    return np.where(unique & (top > 0), best, -1).astype(np.intp)
