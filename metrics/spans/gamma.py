"""γ (Mathet, Widlöcher & Métivier 2015) and γ-cat, as pygamma-agreement 0.5.9 computes them.

γ aligns the units of all annotators (:mod:`metrics.spans._gamma_alignment`), charges each
alignment with a combined positional and categorical dissimilarity
(:mod:`metrics.spans._gamma_dissimilarity`), and compares the disorder of the best alignment
with that of random continua drawn from the data's own statistics
(:mod:`metrics.spans._gamma_sampler`): ``γ = 1 - D_o / D_e``.

- **Observed disorder** ``D_o``: the summed disorder of the best alignment's unitary
  alignments, divided by the mean number of units per annotator. Each document is its own
  continuum with the coders who annotated it; with several documents the sums run over all of
  them: ``D_o = Σ_d cost_d / Σ_d (units_d / coders_d)``. That is exactly what pygamma gives
  for the documents laid side by side on one axis, far enough apart that no unit of one is
  aligned with a unit of another (when every coder annotated every document).
- **Expected disorder** ``D_e``: the mean disorder of the best alignments of ``samples``
  random continua (seeded, so the same seed gives the same value), optionally more until the
  precision asked for is reached (pygamma's ``precision_level``).
- **γ-cat**: the categorical disagreement between aligned units, each pair weighted by how
  well the two are placed (pygamma's ``gamma_cat``; see :func:`_cat_parts`).

Documents annotated by fewer than two coders are left out; a coder who annotated a document
and marked nothing counts there, with no units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.decomposition import Decomposition
from metrics.spans._gamma_alignment import Alignment, Continua, best_alignment
from metrics.spans._gamma_dissimilarity import Dissimilarity
from metrics.spans._gamma_sampler import sample_continua, sampling_statistics
from metrics.spans.data import SpanData

__all__ = ["PRECISION_LEVELS", "Gamma", "decompose_gamma", "gamma_agreement", "gamma_cat"]

#: pygamma's named precision levels (relative error of the expected disorder).
PRECISION_LEVELS = {"high": 0.01, "medium": 0.02, "low": 0.1}
# Normal quantile behind the precision level: 95% confidence, as pygamma (and Mathet §5.3).
_CONFIDENCE_Z = 1.96

PrecisionLevel = float | Literal["high", "medium", "low"]


@dataclass(frozen=True)
class Gamma:
    """γ or γ-cat of span data.

    Attributes
    ----------
    value : float
        ``1 - observed / expected`` (1 when ``observed`` is 0).
    observed, expected : float
        Observed and expected disorder.
    samples : int
        Random continua behind ``expected``.
    seed : int
        Seed of the random continua.
    measure : str
        ``"gamma"`` or ``"gamma_cat"``.
    n_documents, n_units : int
        Documents (annotated by two coders or more) and units the value is computed from.
    sample_disorders : tuple of float
        Disorder of each random continuum; ``expected`` is their mean.
    gamma_cat : Gamma or None
        γ-cat from the same alignments, when asked for.
    """

    value: float
    observed: float
    expected: float
    samples: int
    seed: int
    measure: str = "gamma"
    n_documents: int = 0
    n_units: int = 0
    sample_disorders: tuple[float, ...] = ()
    gamma_cat: Gamma | None = None


@dataclass(frozen=True, eq=False)
class _Prepared:
    continua: Continua
    documents: NDArray[np.intp]  # data document index of each continuum
    origin: NDArray[np.float64]
    dissimilarity: Dissimilarity


def _prepare(
    data: SpanData,
    *,
    alpha: float,
    beta: float,
    categorical: Literal["nominal"] | npt.ArrayLike,
    delta_empty: float,
) -> _Prepared:
    if data.n_coders < 2:
        raise ValueError(f"gamma needs at least two annotators; the data has {data.n_coders}")
    usable = data.annotated.sum(axis=1) >= 2
    if not usable.any():
        raise ValueError("gamma needs a document annotated by two coders or more; there is none")
    keep = usable[data.document] & data.annotated[data.document, data.coder]
    if not keep.any():
        raise ValueError(
            "gamma needs units: no unit was marked in the documents annotated by two coders"
        )
    short = keep & (data.end <= data.begin)
    if short.any():
        i = int(np.flatnonzero(short)[0])
        raise ValueError(
            f"gamma needs units of positive length: unit ({data.documents[data.document[i]]!r}, "
            f"{data.coders[data.coder[i]]!r}, {data.begin[i]:g}, {data.end[i]:g}) has none"
        )
    dissimilarity = Dissimilarity.build(
        data.n_categories,
        alpha=alpha,
        beta=beta,
        delta_empty=delta_empty,
        categorical=categorical,
    )
    slot = np.cumsum(data.annotated, axis=1) - 1
    group = np.cumsum(usable) - 1
    continua = Continua.build(
        group[data.document[keep]],
        slot[data.document[keep], data.coder[keep]],
        data.begin[keep],
        data.end[keep],
        data.category[keep],
        data.annotated[usable].sum(axis=1),
    )
    documents = np.flatnonzero(usable).astype(np.intp)
    return _Prepared(continua, documents, data.extents[usable, 0], dissimilarity)


def _check_sampling(samples: object, precision_level: object, seed: object) -> float | None:
    if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or samples < 1:
        raise ValueError(f"samples must be an integer >= 1, not {samples!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, not {seed!r}")
    if precision_level is None:
        return None
    if isinstance(precision_level, str):
        if precision_level not in PRECISION_LEVELS:
            raise ValueError(
                f"precision_level must be one of {sorted(PRECISION_LEVELS)} or a number in "
                f"(0, 1), not {precision_level!r}"
            )
        return PRECISION_LEVELS[precision_level]
    if not isinstance(precision_level, float | int) or not 0 < precision_level < 1:
        raise ValueError(f"precision_level must be in (0, 1), not {precision_level!r}")
    return float(precision_level)


def _disorders(alignment: Alignment, continua: Continua) -> tuple[NDArray, NDArray]:
    """Per continuum: summed disorder and mean units per annotator."""
    cost = alignment.group_disorder(continua.n_groups)
    return cost, continua.units_per_group / continua.n_coders


def _cat_parts(
    alignment: Alignment, continua: Continua, dissimilarity: Dissimilarity
) -> NDArray[np.float64]:
    """γ-cat's sums per continuum: columns (disagreement, weight, aligned pairs).

    As pygamma-agreement 0.5.9 (``Alignment.gamma_k_disorder``, itself after Mathet 2018): in
    each unitary alignment with ``m`` units, each pair of two units adds its categorical
    dissimilarity with weight ``max(0, 1 - alpha · positional) / (m - 1)``; each pair of a
    unit and an empty unit adds ``Δ∅²`` with weight ``Δ∅`` (pygamma's "experimental" treatment
    of unaligned units); a pair of two empty units adds nothing.
    """
    members, group = alignment.members, alignment.group
    n_groups = continua.n_groups
    k = continua.n_coders[group]
    filled = (members >= 0).sum(axis=1)
    base = np.where(filled >= 2, 1.0 / np.maximum(filled - 1, 1), 0.0)
    delta = dissimilarity.delta_empty
    parts = np.zeros((n_groups, 3))
    for second in range(members.shape[1]):
        for first in range(second):
            a, b = members[:, first], members[:, second]
            exists = k > second
            both = exists & (a >= 0) & (b >= 0)
            one = exists & ((a >= 0) != (b >= 0))
            closeness = 1.0 - dissimilarity.alpha * dissimilarity.positional(
                continua.begin, continua.end, a[both], b[both]
            )
            weight = base[both] * np.maximum(closeness, 0.0)
            cat = dissimilarity.categorical(continua.category, a[both], b[both])
            parts[:, 0] += np.bincount(group[both], cat * weight, minlength=n_groups)
            parts[:, 1] += np.bincount(group[both], weight, minlength=n_groups)
            parts[:, 2] += np.bincount(group[both], minlength=n_groups)
            lone = np.bincount(group[one], minlength=n_groups)
            parts[:, 0] += lone * delta * delta
            parts[:, 1] += lone * delta
    return parts


def _cat_disorder(parts: NDArray[np.float64]) -> NDArray[np.float64]:
    """γ-cat disorder from summed parts (..., 3): 0 without any aligned pair of units."""
    disagreement, weight, pairs = parts[..., 0], parts[..., 1], parts[..., 2]
    defined = (pairs > 0) & (disagreement != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(defined, disagreement / np.where(defined, weight, 1.0), 0.0)


@dataclass(frozen=True)
class _Expected:
    disorders: NDArray[np.float64]
    cat_disorders: NDArray[np.float64]


def _expected(
    prepared: _Prepared,
    n_categories: int,
    *,
    samples: int,
    precision: float | None,
    seed: int,
    with_cat: bool,
) -> _Expected:
    statistics = sampling_statistics(prepared.continua, prepared.origin, n_categories)
    rng = np.random.default_rng(seed)

    def draw(n: int) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        sampled = sample_continua(statistics, n, rng)
        alignment = best_alignment(sampled, prepared.dissimilarity)
        cost, weight = _disorders(alignment, sampled)
        cat = np.zeros(n)
        if with_cat:
            cat = _cat_disorder(_cat_parts(alignment, sampled, prepared.dissimilarity))
        return cost / weight, cat

    disorders, cat = draw(samples)
    if precision is not None:
        variation = float(np.std(disorders) / np.mean(disorders))
        required = math.ceil((variation * _CONFIDENCE_Z / precision) ** 2)
        if required > samples:
            more, more_cat = draw(required - samples)
            disorders = np.concatenate([disorders, more])
            cat = np.concatenate([cat, more_cat])
    return _Expected(disorders, cat)


def _gamma_value(observed: float, expected: float) -> float:
    if observed == 0:
        return 1.0
    if expected == 0:
        raise ValueError("gamma is undefined: the random continua have no disorder")
    return 1.0 - observed / expected


def _cat_value(observed: float, expected: float) -> float:
    # pygamma's gamma_cat: 1 without observed disorder, 0 without expected disorder.
    if observed == 0:
        return 1.0
    return 0.0 if expected == 0 else 1.0 - observed / expected


def gamma_agreement(
    data: SpanData,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    categorical: Literal["nominal"] | npt.ArrayLike = "nominal",
    delta_empty: float = 1.0,
    samples: int = 30,
    precision_level: PrecisionLevel | None = None,
    seed: int = 0,
    gamma_cat: bool = False,
) -> Gamma:
    """γ agreement of span data (Mathet, Widlöcher & Métivier 2015), as pygamma-agreement.

    Parameters
    ----------
    data : SpanData
        Units of two coders or more; each document is its own continuum.
    alpha, beta : float, default 1
        Weights of the positional and the categorical dissimilarity.
    categorical : "nominal" or array_like, default "nominal"
        Category × category dissimilarity, in the order of ``data.categories``: nominal (0
        for the same category, 1 otherwise) or a symmetric matrix with a zero diagonal.
    delta_empty : float, default 1
        Cost of a unit aligned with nobody (Δ∅).
    samples : int, default 30
        Random continua for the expected disorder.
    precision_level : float or {"high", "medium", "low"}, optional
        Wanted relative error of the expected disorder at 95% confidence (0.01, 0.02, 0.1
        for the names); more random continua are drawn when the first ``samples`` do not
        reach it.
    seed : int, default 0
        Seed of the random continua: the same seed gives the same value.
    gamma_cat : bool, default False
        Also compute γ-cat from the same alignments (``result.gamma_cat``).

    Returns
    -------
    Gamma

    Raises
    ------
    ValueError
        Fewer than two coders, no document annotated by two coders, no unit, a unit of zero
        length, or a bad parameter.

    Examples
    --------
    >>> data = SpanData.from_units([
    ...     ("d", "ann", 1, 5, "a"), ("d", "ann", 6, 10, "b"), ("d", "ann", 11, 15, "a"),
    ...     ("d", "bob", 2, 6, "a"), ("d", "bob", 7, 11, "b"), ("d", "bob", 12, 16, "a"),
    ... ])
    >>> result = gamma_agreement(data, seed=1)
    >>> result.observed  # three pairs shifted by 1 on length-4 units: ((1 + 1) / 8)² each
    0.0625
    >>> round(result.value, 2)
    0.88
    """
    precision = _check_sampling(samples, precision_level, seed)
    prepared = _prepare(
        data, alpha=alpha, beta=beta, categorical=categorical, delta_empty=delta_empty
    )
    alignment = best_alignment(prepared.continua, prepared.dissimilarity)
    cost, weight = _disorders(alignment, prepared.continua)
    observed = float(cost.sum() / weight.sum())
    expected = _expected(
        prepared,
        data.n_categories,
        samples=samples,
        precision=precision,
        seed=int(seed),
        with_cat=gamma_cat,
    )
    n_samples = len(expected.disorders)
    n_documents, n_units = len(prepared.documents), prepared.continua.n_units
    cat_result = None
    if gamma_cat:
        parts = _cat_parts(alignment, prepared.continua, prepared.dissimilarity)
        cat_observed = float(_cat_disorder(parts.sum(axis=0)))
        cat_expected = float(np.mean(expected.cat_disorders))
        cat_result = Gamma(
            value=_cat_value(cat_observed, cat_expected),
            observed=cat_observed,
            expected=cat_expected,
            samples=n_samples,
            seed=int(seed),
            measure="gamma_cat",
            n_documents=n_documents,
            n_units=n_units,
            sample_disorders=tuple(expected.cat_disorders.tolist()),
        )
    mean_expected = float(np.mean(expected.disorders))
    return Gamma(
        value=_gamma_value(observed, mean_expected),
        observed=observed,
        expected=mean_expected,
        samples=n_samples,
        seed=int(seed),
        n_documents=n_documents,
        n_units=n_units,
        sample_disorders=tuple(expected.disorders.tolist()),
        gamma_cat=cat_result,
    )


def gamma_cat(
    data: SpanData,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    categorical: Literal["nominal"] | npt.ArrayLike = "nominal",
    delta_empty: float = 1.0,
    samples: int = 30,
    precision_level: PrecisionLevel | None = None,
    seed: int = 0,
) -> Gamma:
    """γ-cat (Mathet 2018, as pygamma-agreement's ``gamma_cat``): agreement on the categories
    of aligned units, each pair weighted by how well the two units are placed.

    The alignments are γ's (same parameters, see :func:`gamma_agreement`); the expected value
    is the mean γ-cat disorder of the same random continua. 1 when the observed disorder is
    0, 0 when the expected one is.
    """
    result = gamma_agreement(
        data,
        alpha=alpha,
        beta=beta,
        categorical=categorical,
        delta_empty=delta_empty,
        samples=samples,
        precision_level=precision_level,
        seed=seed,
        gamma_cat=True,
    )
    assert result.gamma_cat is not None
    return result.gamma_cat


def decompose_gamma(
    data: SpanData,
    *,
    alpha: float = 1.0,
    beta: float = 1.0,
    categorical: Literal["nominal"] | npt.ArrayLike = "nominal",
    delta_empty: float = 1.0,
    expected: float | None = None,
    samples: int = 30,
    precision_level: PrecisionLevel | None = None,
    seed: int = 0,
    gamma_cat: bool = False,
) -> Decomposition:
    """γ (or γ-cat) as a :class:`~metrics.Decomposition` over documents, for the bootstrap.

    The observed disorder is a ratio of sums over documents; the expected disorder is held at
    ``expected`` (by default computed once from the full data with ``samples`` / ``seed``), so
    a bootstrap interval reflects the sampling of documents through the observed disorder
    only, not the Monte-Carlo error nor the resampling of the expected disorder.

    Rows, one per document of ``data`` (zero for documents fewer than two coders annotated):
    γ: ``(summed disorder of the best alignment, units / coders)``, finalize
    ``1 - (t0 / t1) / expected``; γ-cat: ``(disagreement, weight, aligned pairs)``. ``nan``
    where a resample has no unit.
    """
    prepared = _prepare(
        data, alpha=alpha, beta=beta, categorical=categorical, delta_empty=delta_empty
    )
    alignment = best_alignment(prepared.continua, prepared.dissimilarity)
    if expected is None:
        precision = _check_sampling(samples, precision_level, seed)
        drawn = _expected(
            prepared,
            data.n_categories,
            samples=samples,
            precision=precision,
            seed=int(seed),
            with_cat=gamma_cat,
        )
        expected = float(np.mean(drawn.cat_disorders if gamma_cat else drawn.disorders))
    elif not np.isfinite(expected) or expected < 0:
        raise ValueError(f"expected must be a finite disorder >= 0, not {expected!r}")
    held = float(expected)

    if gamma_cat:
        parts = _cat_parts(alignment, prepared.continua, prepared.dissimilarity)
        rows = np.zeros((data.n_documents, 3))
        rows[prepared.documents] = parts

        def finalize_cat(totals: NDArray[np.float64]) -> NDArray[np.float64]:
            observed = _cat_disorder(totals)
            if held == 0:
                value = np.where(observed == 0, 1.0, 0.0)
            else:
                value = np.where(observed == 0, 1.0, 1.0 - observed / held)
            return np.asarray(value, dtype=np.float64)

        return Decomposition("gamma_cat", rows, finalize_cat)

    cost, weight = _disorders(alignment, prepared.continua)
    rows = np.zeros((data.n_documents, 2))
    rows[prepared.documents, 0] = cost
    rows[prepared.documents, 1] = weight

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        total_cost, total_weight = totals[..., 0], totals[..., 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            observed = total_cost / total_weight
            value = np.where(total_cost == 0, 1.0, 1.0 - observed / held)
        return np.asarray(np.where(total_weight > 0, value, np.nan), dtype=np.float64)

    return Decomposition("gamma", rows, finalize)
