"""Prediction-powered inference: many model labels and a few human labels, valid intervals.

A model labelled many items; a human (the *gold* coder) labelled a subset of them too. The
items labelled by both are the **labelled set** (``n`` items: the human's ``Y`` and the
model's ``Ŷ``); the items labelled by the model alone are the **unlabelled set** (``N``
items: ``Ŷ'``). Items the human labelled alone belong to neither set. The PPI++ estimate of a
mean (Angelopoulos, Duchi & Zrnic 2023) is

.. math::

    \\hat\\theta_\\lambda = \\lambda\\,\\overline{\\hat Y'} + \\overline{Y - \\lambda \\hat Y},
    \\qquad
    \\hat\\theta_\\lambda \\pm z_{1-\\alpha/2}\\sqrt{\\frac{\\hat\\sigma^2(\\lambda \\hat Y')}{N}
        + \\frac{\\hat\\sigma^2(Y - \\lambda \\hat Y)}{n}},

valid however wrong the model is (the labelled set corrects its bias), and narrower than the
classical interval from ``Y`` alone when the model is good. ``λ = 1`` is the original PPI
(Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023), ``λ = 0`` the classical estimate; the
power-tuned ``λ`` minimises the estimated variance,

.. math::

    \\hat\\lambda = \\operatorname{clip}_{[0, 1]}\\,
        \\frac{\\widehat{\\mathrm{Cov}}(Y, \\hat Y)}
             {(1 + n/N)\\,\\widehat{\\mathrm{Var}}(\\hat Y \\cup \\hat Y')},

with the covariance over the labelled set (divisor ``n``) and the variance over both sets
(divisor ``n + N - 1``), exactly as ``ppi_py.ppi_mean_ci`` computes it (``ppi-python``; see
``docs/references.md#ppi-python-mean``). When the model's predictions are constant over both
sets that ratio is 0/0 (``ppi_py`` returns ``nan``); here ``λ = 0``: the classical interval.
Standard deviations are the population ones (divisor ``n``/``N``), as in ``ppi_py``.

A category's prevalence is the mean of its indicator: :func:`ppi_prevalence` tunes ``λ``
separately for each category, as ``ppi_mean_ci`` called once per category does, from the
labelled set's confusion matrix and the unlabelled set's label counts (no pass over the items
per category).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import stats

from metrics.data import ReliabilityData, _missing_mask
from metrics.models._data import from_long
from metrics.uncertainty.analytic import cohen_kappa_se

__all__ = [
    "CategoryEstimate",
    "ModelAgreement",
    "PPIMean",
    "PPIResult",
    "model_agreement",
    "ppi_mean",
    "ppi_prevalence",
    "ppi_prevalence_from_labels",
    "wilson_interval",
]


@dataclass(frozen=True)
class PPIMean:
    """A prediction-powered mean next to the classical and the naive ones.

    Attributes
    ----------
    estimate : float
        The PPI++ estimate :math:`\\hat\\theta_{\\hat\\lambda}`.
    ci : tuple of float
        Its interval ``(low, high)`` at ``confidence``.
    lam : float
        The power-tuning parameter used (in [0, 1]).
    classical_estimate : float
        The mean of the human labels ``Y`` (labelled set).
    classical_ci : tuple of float
        The normal (CLT) interval from ``Y`` alone (``ppi_py.classical_mean_ci``).
    naive : float
        The model-only estimate: the mean of the model's predictions over both sets, with no
        correction (biased whenever the model is).
    n_labelled, n_unlabelled : int
    confidence : float
    note : str or None
        Why ``λ`` was set rather than tuned (constant predictions).
    """

    estimate: float
    ci: tuple[float, float]
    lam: float
    classical_estimate: float
    classical_ci: tuple[float, float]
    naive: float
    n_labelled: int
    n_unlabelled: int
    confidence: float
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "estimate": self.estimate,
            "ci": list(self.ci),
            "lambda": self.lam,
            "classical_estimate": self.classical_estimate,
            "classical_ci": list(self.classical_ci),
            "naive": self.naive,
            "n_labelled": self.n_labelled,
            "n_unlabelled": self.n_unlabelled,
            "confidence": self.confidence,
            "note": self.note,
        }


@dataclass(frozen=True)
class CategoryEstimate(PPIMean):
    """:class:`PPIMean` of one category's prevalence; ``label`` is the category."""

    label: Hashable = None


@dataclass(frozen=True)
class ModelAgreement:
    """The model against the human on the labelled set.

    Attributes
    ----------
    n_items : int
    accuracy : float
        Share of items where the model's label equals the human's.
    accuracy_ci : tuple of float
        Wilson (1927) score interval.
    kappa : float or None
        Cohen's kappa (None when undefined: a single category in use).
    kappa_ci : tuple of float or None
        ``kappa ± z·se`` with the Fleiss, Cohen & Everitt (1969) standard error.
    domain : tuple
        The categories, in the order of the confusion matrix.
    confusion : ndarray of int, shape (V, V)
        ``confusion[i, j]``: items the human labelled ``domain[i]`` and the model ``domain[j]``.
    confidence : float
    """

    n_items: int
    accuracy: float
    accuracy_ci: tuple[float, float]
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    domain: tuple[Hashable, ...]
    confusion: NDArray[np.int64]
    confidence: float

    def to_json(self) -> dict[str, Any]:
        return {
            "n_items": self.n_items,
            "accuracy": self.accuracy,
            "accuracy_ci": list(self.accuracy_ci),
            "kappa": self.kappa,
            "kappa_ci": None if self.kappa_ci is None else list(self.kappa_ci),
            "labels": [_json_label(label) for label in self.domain],
            "confusion": self.confusion.tolist(),
            "confidence": self.confidence,
        }


@dataclass(frozen=True)
class PPIResult:
    """Prevalence of every category from a model's labels and a human's.

    Attributes
    ----------
    gold, model : hashable
        The human (gold) and model coders.
    categories : tuple of CategoryEstimate
        One per category of the domain, in its order.
    agreement : ModelAgreement
        The model against the human on the labelled set.
    n_labelled, n_unlabelled : int
        Items labelled by both; by the model alone.
    n_gold_only : int
        Items the human labelled and the model did not: in neither set.
    confidence : float
    """

    gold: Hashable
    model: Hashable
    categories: tuple[CategoryEstimate, ...]
    agreement: ModelAgreement
    n_labelled: int
    n_unlabelled: int
    n_gold_only: int
    confidence: float
    notes: tuple[str, ...] = field(default=())

    def category(self, label: Hashable) -> CategoryEstimate:
        for entry in self.categories:
            if entry.label == label:
                return entry
        raise KeyError(label)

    def to_json(self) -> dict[str, Any]:
        """The JSON contract of ``python -m metrics ppi --json``."""
        return {
            "gold": str(self.gold),
            "model": str(self.model),
            "confidence": self.confidence,
            "n_labelled": self.n_labelled,
            "n_unlabelled": self.n_unlabelled,
            "n_gold_only": self.n_gold_only,
            "categories": {str(entry.label): entry.to_json() for entry in self.categories},
            "agreement": self.agreement.to_json(),
            "notes": list(self.notes),
        }


def ppi_mean(
    y: npt.ArrayLike,
    yhat: npt.ArrayLike,
    yhat_unlabeled: npt.ArrayLike,
    *,
    confidence: float = 0.95,
    lam: float | None = None,
) -> PPIMean:
    """The PPI++ estimate and interval of a mean (``ppi_py.ppi_mean_ci`` for one dimension).

    Parameters
    ----------
    y : array_like, shape (n,)
        Human labels of the labelled set (numbers; 0/1 for a prevalence).
    yhat : array_like, shape (n,)
        The model's predictions on the same items.
    yhat_unlabeled : array_like, shape (N,)
        The model's predictions on the unlabelled set.
    confidence : float, default 0.95
        ``1 - alpha`` of ``ppi_py``.
    lam : float, optional
        Fix ``λ`` (1: PPI, 0: classical); default power-tuned.

    Returns
    -------
    PPIMean

    References
    ----------
    Angelopoulos, A. N., Bates, S., Fannjiang, C., Jordan, M. I. & Zrnic, T. (2023).
    Prediction-powered inference. Science 382(6671), 669–674.
    https://doi.org/10.1126/science.adi6000

    Angelopoulos, A. N., Duchi, J. C. & Zrnic, T. (2023). PPI++: Efficient prediction-powered
    inference. arXiv:2311.01453. https://arxiv.org/abs/2311.01453

    Examples
    --------
    ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, alpha=0.05)`` (ppi-python 0.2.3) gives the
    interval (0.41900121, 1.17474879) with the tuned lambda 0.28125 on these arrays:

    >>> result = ppi_mean([1, 0, 1, 1], [1, 0, 0, 1], [1, 0, 1, 0, 1, 1])
    >>> round(result.lam, 6), [round(v, 6) for v in result.ci]
    (0.28125, [0.419001, 1.174749])
    """
    _check_confidence(confidence)
    y_ = _vector(y, "y")
    yhat_ = _vector(yhat, "yhat")
    unl = _vector(yhat_unlabeled, "yhat_unlabeled")
    n, N = y_.size, unl.size
    if yhat_.size != n:
        raise ValueError(f"y has {n} values but yhat has {yhat_.size}: one prediction per label.")
    _check_sizes(n, N)
    note = None
    if lam is None:
        y_centred = y_ - y_.mean()
        yhat_centred = yhat_ - yhat_.mean()
        covariance_2 = (2.0 / n) * float(np.dot(y_centred, yhat_centred))
        overall = (float(yhat_.sum()) + float(unl.sum())) / (n + N)
        variance = (float(np.sum((yhat_ - overall) ** 2)) + float(np.sum((unl - overall) ** 2))) / (
            n + N - 1
        )
        lam, note = _tuned_lambda(covariance_2, variance, n, N)
    elif not 0 <= lam <= 1:
        raise ValueError(f"lam must be in [0, 1], got {lam!r}.")
    z = _z(confidence)
    estimate = float(np.mean(lam * unl)) + float(np.mean(y_ - lam * yhat_))
    se = math.sqrt(float(np.var(lam * unl)) / N + float(np.var(y_ - lam * yhat_)) / n)
    classical = float(y_.mean())
    classical_se = float(y_.std()) / math.sqrt(n)
    return PPIMean(
        estimate=estimate,
        ci=(estimate - z * se, estimate + z * se),
        lam=float(lam),
        classical_estimate=classical,
        classical_ci=(classical - z * classical_se, classical + z * classical_se),
        naive=(float(yhat_.sum()) + float(unl.sum())) / (n + N),
        n_labelled=n,
        n_unlabelled=N,
        confidence=confidence,
        note=note,
    )


def ppi_prevalence(
    items: npt.ArrayLike | Sequence[Hashable],
    coders: npt.ArrayLike | Sequence[Hashable],
    labels: npt.ArrayLike | Sequence[Hashable],
    *,
    gold: Hashable,
    model: Hashable,
    confidence: float = 0.95,
    domain: Sequence[Hashable] | None = None,
) -> PPIResult:
    """Each category's prevalence from ``model``'s labels, corrected by ``gold``'s.

    Parameters
    ----------
    items, coders, labels : array_like, shape (n_annotations,)
        One annotation per position. Coders other than ``gold`` and ``model`` are ignored.
    gold : hashable
        The human coder whose labels are taken as true.
    model : hashable
        The model coder.
    confidence : float, default 0.95
    domain : sequence, optional
        Every category, in order; default the labels that occur (sorted).

    Returns
    -------
    PPIResult
        Per category: the PPI++ estimate and interval, ``λ``, the classical interval from the
        human labels alone and the naive model share; the model's accuracy, kappa and
        confusion matrix against the human.

    Raises
    ------
    ValueError
        Fewer than two labelled items, no unlabelled item, or an unknown coder.

    Examples
    --------
    A human labelled items 1–4, the model items 1–10; the prevalence of ``y`` is what
    ``ppi_py.ppi_mean_pointestimate`` (ppi-python 0.2.3) gives for its indicator, 0.796875:

    >>> items = [1, 2, 3, 4, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    >>> coders = ["ann"] * 4 + ["llm"] * 10
    >>> labels = list("yyny") + list("yynnyynyyn")
    >>> result = ppi_prevalence(items, coders, labels, gold="ann", model="llm")
    >>> result.n_labelled, result.n_unlabelled, round(result.category("y").estimate, 4)
    (4, 6, 0.7969)
    """
    data = from_long(items, coders, labels, domain=domain)
    return ppi_prevalence_on_data(data, gold=gold, model=model, confidence=confidence)


def ppi_prevalence_on_data(
    data: ReliabilityData, *, gold: Hashable, model: Hashable, confidence: float = 0.95
) -> PPIResult:
    """:func:`ppi_prevalence` on :class:`~metrics.data.ReliabilityData` (the CLI's reader)."""
    _check_confidence(confidence)
    if gold == model:
        raise ValueError("The gold coder and the model must be different coders.")
    position = {coder: index for index, coder in enumerate(data.coders)}
    for role, coder in (("gold", gold), ("model", model)):
        if coder not in position:
            raise ValueError(f"The {role} coder {coder!r} labelled no item.")
    gold_code = _coder_codes(data, position[gold])
    model_code = _coder_codes(data, position[model])
    result = ppi_prevalence_from_labels(
        gold_code, model_code, domain=data.domain, confidence=confidence, coded=True
    )
    return PPIResult(
        gold=gold,
        model=model,
        categories=result.categories,
        agreement=result.agreement,
        n_labelled=result.n_labelled,
        n_unlabelled=result.n_unlabelled,
        n_gold_only=result.n_gold_only,
        confidence=confidence,
        notes=result.notes,
    )


def ppi_prevalence_from_labels(
    gold_labels: npt.ArrayLike,
    model_labels: npt.ArrayLike,
    *,
    domain: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
    coded: bool = False,
) -> PPIResult:
    """:func:`ppi_prevalence` from two aligned label arrays, one entry per item.

    Parameters
    ----------
    gold_labels, model_labels : array_like, shape (n_items,)
        The human's and the model's label of each item; ``None`` (or ``nan``) where the coder
        did not label it. With ``coded=True`` both are integer codes into ``domain``, ``-1``
        for none.
    domain : sequence, optional
        Every category, in order; default the labels that occur (sorted).
    confidence : float, default 0.95
    """
    _check_confidence(confidence)
    if coded:
        if domain is None:
            raise ValueError("coded=True needs the domain the codes index.")
        domain_tuple = tuple(domain)
        gold_code = np.asarray(gold_labels, dtype=np.intp)
        model_code = np.asarray(model_labels, dtype=np.intp)
    else:
        domain_tuple, gold_code, model_code = _code_pair(gold_labels, model_labels, domain)
    if gold_code.shape != model_code.shape or gold_code.ndim != 1:
        raise ValueError("gold_labels and model_labels must be 1-d arrays of the same length.")
    V = len(domain_tuple)
    both = (gold_code >= 0) & (model_code >= 0)
    alone = (gold_code < 0) & (model_code >= 0)
    n = int(np.count_nonzero(both))
    N = int(np.count_nonzero(alone))
    _check_sizes(n, N)
    confusion = np.bincount(gold_code[both] * V + model_code[both], minlength=V * V).reshape(V, V)
    unlabelled = np.bincount(model_code[alone], minlength=V)
    categories = tuple(
        _category(domain_tuple[k], confusion, unlabelled, k, confidence) for k in range(V)
    )
    notes = []
    if n < 30:
        notes.append(
            f"Only {n} labelled items: the normal intervals (PPI++ and classical) rest on a "
            "large-sample approximation."
        )
    return PPIResult(
        gold="gold",
        model="model",
        categories=categories,
        agreement=model_agreement(confusion, domain=domain_tuple, confidence=confidence),
        n_labelled=n,
        n_unlabelled=N,
        n_gold_only=int(np.count_nonzero((gold_code >= 0) & (model_code < 0))),
        confidence=confidence,
        notes=tuple(notes),
    )


def model_agreement(
    confusion: npt.ArrayLike,
    *,
    domain: Sequence[Hashable] | None = None,
    confidence: float = 0.95,
) -> ModelAgreement:
    """Accuracy (Wilson interval) and Cohen's kappa (Fleiss–Cohen–Everitt interval) of a
    confusion matrix (rows: the human, columns: the model)."""
    table = np.asarray(confusion, dtype=np.int64)
    if table.ndim != 2 or table.shape[0] != table.shape[1]:
        raise ValueError("The confusion matrix must be square.")
    labels = tuple(range(table.shape[0])) if domain is None else tuple(domain)
    n = int(table.sum())
    correct = int(np.trace(table))
    kappa: float | None
    kappa_ci: tuple[float, float] | None
    try:
        result = cohen_kappa_se(table.astype(np.float64), confidence=confidence)
    except ValueError:
        kappa, kappa_ci = None, None
    else:
        kappa = float(result.estimate)
        z = _z(confidence)
        kappa_ci = (kappa - z * result.se, kappa + z * result.se)
    return ModelAgreement(
        n_items=n,
        accuracy=correct / n if n else float("nan"),
        accuracy_ci=wilson_interval(correct, n, confidence=confidence),
        kappa=kappa,
        kappa_ci=kappa_ci,
        domain=labels,
        confusion=table,
        confidence=confidence,
    )


def wilson_interval(successes: int, n: int, *, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson (1927) score interval of a proportion ``successes / n``.

    .. math::

        \\frac{\\hat p + \\frac{z^2}{2n} \\pm z\\sqrt{\\frac{\\hat p(1-\\hat p)}{n}
            + \\frac{z^2}{4n^2}}}{1 + \\frac{z^2}{n}}

    Examples
    --------
    >>> [round(v, 4) for v in wilson_interval(7, 10)]
    [0.3968, 0.8922]
    """
    if n <= 0:
        return (float("nan"), float("nan"))
    z = _z(confidence)
    p = successes / n
    centre = p + z * z / (2 * n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return ((centre - half) / scale, (centre + half) / scale)


# -- helpers ---------------------------------------------------------------------------------


def _category(
    label: Hashable,
    confusion: NDArray[np.int64],
    unlabelled: NDArray[np.int64],
    k: int,
    confidence: float,
) -> CategoryEstimate:
    """PPI++ for the indicator of category ``k`` from the 2 × 2 cells of the labelled set
    (human ``Y``, model ``Ŷ``) and the unlabelled count: what ``ppi_mean`` computes on the
    indicator arrays, in O(1)."""
    n = float(confusion.sum())
    N = float(unlabelled.sum())
    a = float(confusion[k, :].sum())  # Y = 1
    b = float(confusion[:, k].sum())  # Ŷ = 1
    c = float(confusion[k, k])  # both
    cells = np.array([n - a - b + c, b - c, a - c, c])  # (Y, Ŷ) = (0,0), (0,1), (1,0), (1,1)
    y_cell = np.array([0.0, 0.0, 1.0, 1.0])
    yhat_cell = np.array([0.0, 1.0, 0.0, 1.0])
    y_mean, yhat_mean = a / n, b / n
    covariance_2 = (2.0 / n) * float(np.sum(cells * (y_cell - y_mean) * (yhat_cell - yhat_mean)))
    u = float(unlabelled[k])
    total = b + u
    overall = total / (n + N)
    variance = (total * (1 - overall) ** 2 + (n + N - total) * overall**2) / (n + N - 1)
    lam, note = _tuned_lambda(covariance_2, variance, int(n), int(N))
    z = _z(confidence)
    p_u = u / N
    rectifier = y_cell - lam * yhat_cell
    rectifier_mean = float(np.sum(cells * rectifier)) / n
    rectifier_var = float(np.sum(cells * (rectifier - rectifier_mean) ** 2)) / n
    imputed_var = ((N - u) * (lam * p_u) ** 2 + u * (lam - lam * p_u) ** 2) / N
    estimate = lam * p_u + rectifier_mean
    se = math.sqrt(imputed_var / N + rectifier_var / n)
    classical_se = math.sqrt(y_mean * (1 - y_mean)) / math.sqrt(n)
    return CategoryEstimate(
        estimate=estimate,
        ci=(estimate - z * se, estimate + z * se),
        lam=lam,
        classical_estimate=y_mean,
        classical_ci=(y_mean - z * classical_se, y_mean + z * classical_se),
        naive=total / (n + N),
        n_labelled=int(n),
        n_unlabelled=int(N),
        confidence=confidence,
        note=note,
        label=label,
    )


def _tuned_lambda(covariance_2: float, variance: float, n: int, N: int) -> tuple[float, str | None]:
    """``ppi_py._calc_lam_glm`` for one dimension, clipped to [0, 1]; 0 with a note when the
    predictions are constant (``variance == 0``, where ``ppi_py`` gives ``nan``)."""
    if variance <= 0:
        return 0.0, (
            "The model's predictions are constant over both sets: lambda = 0 (the classical "
            "estimate)."
        )
    lam = covariance_2 / (2 * (1 + n / N) * variance)
    return float(min(max(lam, 0.0), 1.0)), None


def _coder_codes(data: ReliabilityData, coder: int) -> NDArray[np.intp]:
    codes = np.full(data.n_items, -1, dtype=np.intp)
    mine = data.coder_index == coder
    codes[data.item_index[mine]] = data.value_code[mine]
    return codes


def _code_pair(
    gold_labels: npt.ArrayLike, model_labels: npt.ArrayLike, domain: Sequence[Hashable] | None
) -> tuple[tuple[Hashable, ...], NDArray[np.intp], NDArray[np.intp]]:
    gold = np.asarray(gold_labels, dtype=object).reshape(-1)
    model = np.asarray(model_labels, dtype=object).reshape(-1)
    if gold.size != model.size:
        raise ValueError(
            f"gold_labels has {gold.size} entries but model_labels {model.size}: one per item."
        )
    present = [np.flatnonzero(~_missing_mask(column)) for column in (gold, model)]
    items = np.concatenate(present)
    roles = np.repeat(np.array([0, 1], dtype=np.intp), [present[0].size, present[1].size])
    values = np.concatenate([gold[present[0]], model[present[1]]]).tolist()
    if not values:
        raise ValueError("Neither the human nor the model labelled any item.")
    data = ReliabilityData.from_long(items, roles, values, domain=domain)
    codes = []
    for role in (0, 1):
        full = np.full(gold.size, -1, dtype=np.intp)
        if role in data.coders:
            item_ids = np.asarray(data.items, dtype=np.intp)
            full[item_ids] = _coder_codes(data, list(data.coders).index(role))
        codes.append(full)
    return data.domain, codes[0], codes[1]


def _vector(values: npt.ArrayLike, name: str) -> NDArray[np.float64]:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional.")
    if not np.all(np.isfinite(array)):
        raise ValueError(f"{name} must hold finite numbers.")
    return array


def _check_sizes(n: int, N: int) -> None:
    if n < 2:
        raise ValueError(
            f"Prediction-powered inference needs at least two items labelled by both the human "
            f"and the model; found {n}."
        )
    if N < 1:
        raise ValueError(
            "Prediction-powered inference needs items labelled by the model alone (the "
            "unlabelled set); found none."
        )


def _check_confidence(confidence: object) -> None:
    if not (isinstance(confidence, int | float) and 0 < confidence < 1):
        raise ValueError(f"confidence must be a number in (0, 1), got {confidence!r}.")


def _z(confidence: float) -> float:
    """``norm.ppf(1 - alpha / 2)``, as statsmodels' ``_zconfint_generic`` computes it."""
    return float(stats.norm.ppf(1 - (1 - confidence) / 2.0))


def _json_label(label: Hashable) -> Any:
    return (
        label
        if isinstance(label, str | int | float) and not isinstance(label, bool)
        else str(label)
    )
