"""Chance-corrected agreement coefficients of the kappa family (Artstein & Poesio 2008, §2).

Every coefficient here has the common form

.. math:: \\text{value} = \\frac{A_o - A_e}{1 - A_e}

and differs only in the chance model behind :math:`A_e`: none (``observed_agreement``),
uniform over the declared domain (``bennett_s``), one pooled distribution (``scott_pi``,
``fleiss_pi``) or one distribution per coder (``cohen_kappa``, ``conger_kappa``,
``light_kappa``).

Missing values follow Gwet's (2014) generalisation, as the irrCAC package implements it:

- observed agreement :math:`p_a` is the mean, over items with at least two values (*pairable*
  items), of the proportion of agreeing ordered pairs of values on the item;
- chance agreement is estimated from *all* values, including those on items with a single
  value: the pooled distribution is :math:`\\pi_k = \\frac{1}{n}\\sum_i n_{ik}/r_i` over the
  :math:`n` items with at least one value, and coder :math:`g`'s distribution is
  :math:`p_{gk} = n_{gk}/n_g` over all of that coder's values.

With complete data these reduce to the textbook formulas (Fleiss 1971, Davies & Fleiss 1982,
Cohen 1960, Scott 1955). Each public function has a ``decompose_<name>`` twin returning a
:class:`~metrics.decomposition.Decomposition`; the public value is ``decomposition.evaluate()``
on the full data, so a bootstrap over items reuses the same code. (A plain numeric array
without ``domain=`` takes the closed forms of :mod:`metrics.coefficients.closed_forms` for
Cohen's kappa, two-coder weighted kappa and unweighted multi-pi: the same value to 1e-12.)

Every function takes ``data`` and ``domain=`` through
:func:`metrics.data.as_reliability_data`, and ``distance=`` through
:func:`agreement_weights` (:func:`metrics.distances.distance_matrix`; asymmetric weights
count through their symmetric part, see :mod:`metrics.distances`).

Undefined cases raise ``ValueError``: no pairable item, fewer than two coders with values
(coder-specific chance), or expected agreement equal to 1 (a single category in use).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.agreement_jackknife import jackknife_factory
from metrics.coefficients.alpha import MAX_MATRIX_VALUES
from metrics.coefficients.closed_forms import (
    fleiss_pi_from_array,
    two_coder_kappa_from_array,
    two_coder_kappa_from_data,
)
from metrics.coefficients.coder_chance import (
    LightLeaveOneOut,
    chance_corrected,
    coder_distributions,
    divide,
)
from metrics.coefficients.interval_weights import IntervalWeights, interval_weights
from metrics.coefficients.result import CoefficientResult
from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.decomposition import Decomposition, ItemStats
from metrics.distances import DistanceLike, distance_matrix

Chance = Literal["none", "uniform", "pooled", "gwet", "coder"]
#: Agreement weights: a symmetric ``V × V`` matrix, or the interval weights as operations.
Weights: TypeAlias = NDArray[np.float64] | IntervalWeights


# -- weights -----------------------------------------------------------------------------


def agreement_weights(
    data: ReliabilityData, distance: DistanceLike | None
) -> NDArray[np.float64] | None:
    """Symmetric ``V × V`` agreement weights for a distance, or None without one.

    .. math:: w = \\tfrac12 (u + u^T), \\qquad u = 1 - d / d_{max}

    ``distance`` is anything :func:`metrics.distances.resolve_distance` takes (a registry
    name, a :class:`~metrics.distances.base.Distance`, or a ``V × V`` matrix in the order of
    ``data.domain``); its matrix comes from :func:`metrics.distances.distance_matrix`, so
    data-dependent distances such as Krippendorff's ordinal metric are fixed from the full
    data, also in a bootstrap; a domain of more than ``MAX_MATRIX_VALUES`` values
    (:mod:`metrics.coefficients.alpha`) raises ``ValueError``. Dividing by the largest
    distance is Artstein & Poesio's (2008, §2.6.2) normalisation and gives irrCAC's
    agreement weights for its named schemes; taking the symmetric part afterwards leaves
    every raw-data quantity of irrCAC 0.4.4 unchanged (it only reads weights through
    quadratic forms) and makes two-coder values independent of which coder is listed first.

    Examples
    --------
    >>> data = ReliabilityData.from_long([1, 1], ["a", "b"], [1, 3])
    >>> agreement_weights(data, [[0, 2], [0, 0]]).tolist()  # d(1, 3) = 2, d(3, 1) = 0
    [[1.0, 0.5], [0.5, 1.0]]
    """
    if distance is None:
        return None
    if data.n_values > MAX_MATRIX_VALUES:
        raise ValueError(
            f"Agreement weights over {data.n_values} values need a {data.n_values} × "
            f"{data.n_values} matrix, larger than the limit of {MAX_MATRIX_VALUES} values; "
            "the unweighted coefficients, and alpha with the nominal, ordinal, interval and "
            "ratio distances, have no such limit."
        )
    matrix = distance_matrix(distance, data)
    largest = float(matrix.max()) if data.n_values else 0.0
    if largest == 0:
        raise ValueError("The distance is zero everywhere: every pair of values would agree.")
    weights = 1.0 - matrix / largest
    return (weights + weights.T) / 2.0


def uniform_chance_weights(data: ReliabilityData, distance: DistanceLike | None) -> Weights | None:
    """:func:`agreement_weights`, or for the interval distance on a domain above
    ``MAX_MATRIX_VALUES`` values :class:`~metrics.coefficients.interval_weights.IntervalWeights`
    (no matrix): for the coefficients that read weights only through the pairs on each item
    and their total (Gwet's AC2, weighted Brennan–Prediger)."""
    if distance is not None and data.n_values > MAX_MATRIX_VALUES:
        weights = interval_weights(data, distance)
        if weights is not None:
            return weights
    return agreement_weights(data, distance)


# -- per-item statistics ------------------------------------------------------------------


def _pair_agreement(
    counts: NDArray[np.float64], per_item: NDArray[np.float64], weights: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """``(n_items,)``: weighted agreeing ordered pairs of values on each item.

    :math:`\\sum_{k,l} n_{ik} w_{kl} n_{il} - \\sum_k w_{kk} n_{ik}` (identity weights:
    :math:`\\sum_k n_{ik}(n_{ik}-1)`), i.e. pairs of values by two different coders.
    """
    if weights is None:
        return np.einsum("ik,ik->i", counts, counts) - per_item
    return np.einsum("ik,ik->i", counts @ weights.T, counts) - counts @ np.diag(weights)


def _observed_columns(
    data: ReliabilityData,
    weights: Weights | None,
    sparse_counts: bool | None = None,
) -> NDArray[np.float64]:
    """``(n_items, 2)``: per-item agreement :math:`p_{a,i}` (0 if unpairable) and pairability.

    From the dense ``n_items × V`` counts while they stay a few times the size of the data
    (``sparse_counts`` None: :attr:`~metrics.data.ReliabilityData.dense_counts_are_linear`),
    else from the (item, value) pairs that occur (unweighted) or the pairs of annotations on
    each item (weighted): the same sums of integers, O(n log n) for any number of values.
    """
    per_item = data.values_per_item.astype(np.float64)
    pairable = data.pairable
    if use_sparse_counts(data, sparse_counts) or isinstance(weights, IntervalWeights):
        agreeing = _sparse_pair_agreement(data, weights)[pairable]
    else:
        counts = data.item_value_counts
        agreeing = _pair_agreement(counts[pairable], per_item[pairable], weights)
    agree = np.zeros(data.n_items)
    agree[pairable] = agreeing / (per_item[pairable] * (per_item[pairable] - 1))
    return np.column_stack([agree, pairable.astype(np.float64)])


def use_sparse_counts(data: ReliabilityData, sparse_counts: bool | None = None) -> bool:
    """Whether per-item counts are taken sparse: as asked, else when a dense
    ``n_items × V`` array would be more than a few times the size of the data."""
    return (not data.dense_counts_are_linear) if sparse_counts is None else bool(sparse_counts)


def _sparse_pair_agreement(data: ReliabilityData, weights: Weights | None) -> NDArray[np.float64]:
    """:func:`_pair_agreement` for every item without the ``n_items × V`` counts.

    Unweighted, :math:`\\sum_k n_{ik}^2 - r_i` from the (item, value) pairs that occur;
    weighted, :math:`\\sum_{a \\ne b} w_{c_a c_b}` over the ordered pairs of annotations on
    the item (``w`` is symmetric), :math:`O(\\sum_i r_i^2)`.
    """
    per_item = data.values_per_item.astype(np.float64)
    if weights is None:
        item, _, count = data.item_value_pairs
        squares = np.bincount(item, weights=count * count, minlength=data.n_items)
        return np.asarray(squares - per_item, dtype=np.float64)
    left, right = data.item_pairs()
    first, second = data.value_code[left], data.value_code[right]
    if isinstance(weights, IntervalWeights):
        pair_weights = weights.pairs(first, second)
    else:
        pair_weights = weights[first, second]
    pairs = np.bincount(data.item_index[left], weights=pair_weights, minlength=data.n_items)
    return np.asarray(2.0 * pairs, dtype=np.float64)


def _pooled_columns(data: ReliabilityData) -> NDArray[np.float64]:
    """``(n_items, V + 1)``: :math:`n_{ik}/r_i` and whether item i has a value at all."""
    per_item = data.values_per_item.astype(np.float64)
    rated = per_item > 0
    shares = np.zeros_like(data.item_value_counts)
    shares[rated] = data.item_value_counts[rated] / per_item[rated, None]
    return np.column_stack([shares, rated.astype(np.float64)])


def _pooled_columns_sparse(data: ReliabilityData) -> sparse.csr_matrix:
    """:func:`_pooled_columns` as CSR, from the (item, value) pairs that occur."""
    item, code, count = data.item_value_pairs
    per_item = data.values_per_item.astype(np.float64)
    rated = np.flatnonzero(per_item > 0)
    rows = np.concatenate([item, rated])
    columns = np.concatenate([code, np.full(rated.size, data.n_values, dtype=np.intp)])
    values = np.concatenate([count / per_item[item], np.ones(rated.size)])
    return sparse.csr_matrix((values, (rows, columns)), shape=(data.n_items, data.n_values + 1))


def _coder_columns(data: ReliabilityData) -> sparse.csr_matrix:
    """``(n_items, C·V)`` sparse: column ``g·V + k`` is 1 where coder g gave the item value k."""
    column = data.coder_index * data.n_values + data.value_code
    shape = (data.n_items, data.n_coders * data.n_values)
    return sparse.csr_matrix((np.ones(data.n_annotations), (data.item_index, column)), shape=shape)


# -- chance models on totals (vectorised over leading axes) --------------------------------


def _pooled_distribution(totals: NDArray[np.float64], n_values: int) -> NDArray[np.float64]:
    """:math:`\\pi_k`, shape ``(..., V)``, from the totals of :func:`_pooled_columns`."""
    shares = totals[..., 2 : 2 + n_values]
    rated = totals[..., 2 + n_values]
    return divide(shares, rated[..., None])


@dataclass(frozen=True)
class _Model:
    """A coefficient as ``(p_a, p_e)`` of column totals; ``finalize`` combines them."""

    name: str
    n_values: int
    n_coders: int
    chance: Chance
    weights: Weights | None

    def parts(self, totals: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        totals = np.asarray(totals, dtype=np.float64)
        observed = divide(totals[..., 0], totals[..., 1])
        w = self.weights  # None: identity weights, summed directly (no V × V array)
        size = self.n_values
        matrix = None if isinstance(w, IntervalWeights) else w
        if matrix is None and w is not None and self.chance in ("pooled", "coder"):
            raise ValueError("Pooled and coder chance need the weights as a V × V matrix.")
        if self.chance == "none":
            expected = np.zeros_like(observed)
        elif self.chance == "uniform":
            expected = np.full_like(observed, weight_sum(w, size) / size**2)
        elif self.chance == "pooled":
            pooled = _pooled_distribution(totals, size)
            expected = _quadratic(pooled, matrix)
        elif self.chance == "gwet":
            pooled = _pooled_distribution(totals, size)
            spread = (pooled * (1 - pooled)).sum(axis=-1)
            factor = weight_sum(w, size) / (size * (size - 1)) if size > 1 else 0.0
            expected = factor * spread if size > 1 else spread + 1.0
        else:
            shares, n_rated = coder_distributions(totals, self.n_coders, size)
            all_pairs = _quadratic(shares.sum(axis=-2), matrix)
            same = _quadratic(shares, matrix).sum(axis=-1)
            expected = divide(all_pairs - same, n_rated * (n_rated - 1))
        return observed, expected

    def finalize(self, totals: NDArray[np.float64]) -> NDArray[np.float64]:
        observed, expected = self.parts(totals)
        if self.chance == "none":
            return observed
        return chance_corrected(observed, expected)


def weight_sum(weights: Weights | None, size: int) -> float:
    """:math:`\\sum_{kl} w_{kl}`; ``size`` (the identity's) without weights."""
    return float(size) if weights is None else float(weights.sum())


def _quadratic(p: NDArray[np.float64], weights: NDArray[np.float64] | None) -> NDArray[np.float64]:
    """:math:`p^T w p` along the last axis; :math:`\\sum_k p_k^2` without weights."""
    if weights is None:
        return np.asarray(np.einsum("...k,...k->...", p, p), dtype=np.float64)
    return np.asarray(np.einsum("...k,kl,...l->...", p, weights, p), dtype=np.float64)


def build_decomposition(
    data: ReliabilityData,
    name: str,
    chance: Chance,
    weights: Weights | None = None,
    *,
    sparse_counts: bool | None = None,
) -> tuple[Decomposition, _Model]:
    """Per-item statistics for a coefficient with the given chance model.

    Columns: ``[p_a,i, pairable_i]``, then for pooled chance ``[n_ik/r_i (V), rated_i]``, or
    for coder chance the sparse coder × value indicators ``(C·V)``. With ``sparse_counts``
    (by default when a dense ``n_items × V`` array would outgrow the data) the same columns
    are built as CSR from the (item, value) pairs that occur. Unweighted models with wide
    rows (coder chance, or pooled chance on sparse counts) get an O(nnz) leave-one-item-out
    for the jackknife (:mod:`metrics.coefficients.agreement_jackknife`).
    """
    model = _Model(name, data.n_values, data.n_coders, chance, weights)
    use_sparse = use_sparse_counts(data, sparse_counts) or isinstance(weights, IntervalWeights)
    observed = _observed_columns(data, weights, use_sparse)
    stats: NDArray[np.float64] | sparse.csr_matrix
    if chance in ("pooled", "gwet") and use_sparse:
        stats = sparse.hstack(
            [sparse.csr_matrix(observed), _pooled_columns_sparse(data)], format="csr"
        )
    elif chance in ("pooled", "gwet"):
        stats = np.column_stack([observed, _pooled_columns(data)])
    elif chance == "coder":
        stats = sparse.hstack([sparse.csr_matrix(observed), _coder_columns(data)], format="csr")
    else:
        stats = observed
    leave_one_out = None
    wide = chance == "coder" or (use_sparse and chance in ("pooled", "gwet"))
    # Pooled chance unweighted only; AC2 reads its weights through their sum; coder chance
    # through the V × V matrix.
    matrix = None if chance != "coder" or isinstance(weights, IntervalWeights) else weights
    if wide and (weights is None or chance == "gwet" or matrix is not None):
        leave_one_out = jackknife_factory(
            chance, data.n_values, data.n_coders, weight_sum(weights, data.n_values), matrix
        )
    return Decomposition(name, stats, model.finalize, leave_one_out), model


def evaluate(
    data: ReliabilityData, decomposition: Decomposition, model: _Model, what: str
) -> CoefficientResult:
    """The public result: ``decomposition.evaluate()`` with its parts, or a ``ValueError``."""
    totals = decomposition.totals()
    observed, expected = model.parts(totals)
    value = float(decomposition.evaluate())
    if data.n_pairable_items == 0:
        raise ValueError(
            f"{what} needs at least one item with values from at least two coders; "
            "no item is pairable."
        )
    if np.isnan(value):
        if model.chance == "coder":
            raise ValueError(
                f"{what} is undefined here: it needs at least two coders with values and an "
                "expected agreement below 1 (more than one category in use)."
            )
        raise ValueError(
            f"{what} is undefined: the expected agreement is 1 (every value falls in one "
            "category), so agreement cannot be corrected for chance."
        )
    return CoefficientResult(
        name=decomposition.name,
        value=value,
        observed=float(observed),
        expected=float(expected),
        kind="agreement",
        n_items=data.n_items,
        n_pairable_items=data.n_pairable_items,
        n_coders=data.n_coders,
    )


def require_identified(data: ReliabilityData, what: str) -> None:
    if not data.coders_identified:
        raise ValueError(
            f"{what} needs to know which coder gave which value (a per-coder chance model); "
            "agreement-table data has anonymous coders. Use S, pi / multi-pi, AC1 or "
            "Brennan-Prediger instead."
        )


def require_two_coders(data: ReliabilityData, what: str) -> None:
    if data.n_coders != 2:
        raise ValueError(
            f"{what} is defined for exactly two coders; got {data.n_coders}. "
            "Use the multi-coder generalisation instead."
        )


def require_categories(data: ReliabilityData, what: str) -> None:
    if data.n_values < 2:
        raise ValueError(
            f"{what} needs a value domain of at least two categories; got {data.n_values}."
        )


def _run(
    data: DataLike,
    name: str,
    chance: Chance,
    *,
    domain: Sequence[Hashable] | None,
    distance: DistanceLike | None = None,
) -> tuple[ReliabilityData, Decomposition, _Model]:
    rd = as_reliability_data(data, domain=domain)
    weights = agreement_weights(rd, distance)
    decomposition, model = build_decomposition(rd, name, chance, weights)
    return rd, decomposition, model


# -- public coefficients ------------------------------------------------------------------


def decompose_observed_agreement(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """Per-item decomposition of :func:`observed_agreement` (columns ``[p_a,i, pairable_i]``)."""
    return _run(data, "observed_agreement", "none", domain=domain, distance=distance)[1]


def observed_agreement(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> CoefficientResult:
    """Observed agreement :math:`A_o` (percent agreement), pairwise for any number of coders.

    .. math::

        A_o = \\frac{1}{|I_2|} \\sum_{i \\in I_2}
              \\frac{\\sum_k n_{ik}(n_{ik} - 1)}{r_i (r_i - 1)}

    the mean, over the pairable items :math:`I_2` (at least two values), of the proportion of
    agreeing pairs of values (Artstein & Poesio 2008, §2.5.1; Fleiss 1971). With two coders
    this is the proportion of items they label alike. With a ``distance`` it is the weighted
    agreement with weights :math:`1 - d/d_{max}`.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing. Items with fewer than two values are excluded and counted.
    distance : Distance or array_like of shape (V, V), optional
        Disagreement weights over ``data.domain``; nominal when omitted.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult
        ``value == observed``; ``expected`` is 0 (no chance correction).

    Raises
    ------
    ValueError
        If no item is pairable.

    References
    ----------
    Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
    Computational Linguistics 34(4), 555–596. https://doi.org/10.1162/coli.07-034-R2

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (coder A: 30 STAT / 70 IREQ; B: 40 / 60):

    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> round(observed_agreement(data).value, 3)
    0.7
    """
    rd, decomposition, model = _run(
        data, "observed_agreement", "none", domain=domain, distance=distance
    )
    return evaluate(rd, decomposition, model, "Observed agreement")


def decompose_bennett_s(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> Decomposition:
    """Per-item decomposition of :func:`bennett_s`."""
    rd = as_reliability_data(data, domain=domain)
    require_categories(rd, "Bennett's S")
    return build_decomposition(rd, "bennett_s", "uniform")[0]


def bennett_s(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> CoefficientResult:
    """Bennett, Alpert & Goldstein's (1954) S: chance is uniform over the declared domain.

    .. math:: S = \\frac{A_o - 1/V}{1 - 1/V}

    with :math:`A_o` as in :func:`observed_agreement` and :math:`V` the size of the declared
    value domain: categories nobody used still count (Artstein & Poesio 2008, §2.4.1). Also
    known as C, :math:`\\kappa_n`, G, RE, Randolph's free-marginal kappa and (unweighted)
    Brennan & Prediger's coefficient; for two categories it is PABAK, :math:`2A_o - 1`.
    Missing values: Gwet's convention (observed agreement over pairable items).

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing. Agreement-table data is accepted.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult
        ``expected`` is :math:`1/V`.

    Raises
    ------
    ValueError
        If the domain has fewer than two values or no item is pairable.

    References
    ----------
    Bennett, E. M., Alpert, R. & Goldstein, A. C. (1954). Communications through limited
    response questioning. Public Opinion Quarterly 18(3), 303–308.
    https://doi.org/10.1086/266520

    Examples
    --------
    Artstein & Poesio (2008), Table 1 and §2.4.1 (A_o = 0.7, A_e = 0.5):

    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> round(bennett_s(data).value, 3)
    0.4
    """
    rd = as_reliability_data(data, domain=domain)
    require_categories(rd, "Bennett's S")
    decomposition, model = build_decomposition(rd, "bennett_s", "uniform")
    return evaluate(rd, decomposition, model, "Bennett's S")


def decompose_fleiss_pi(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """Per-item decomposition of :func:`fleiss_pi`."""
    return _run(data, "fleiss_pi", "pooled", domain=domain, distance=distance)[1]


def fleiss_pi(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> CoefficientResult:
    """Multi-pi: Fleiss' (1971) kappa, Siegel & Castellan's K, Scott's pi for many coders.

    .. math::

        A_e = \\sum_{k,l} w_{kl} \\pi_k \\pi_l, \\qquad
        \\pi_k = \\frac{1}{n} \\sum_{i} \\frac{n_{ik}}{r_i}

    over the :math:`n` items with at least one value; :math:`A_o` as in
    :func:`observed_agreement`. With complete data :math:`\\pi_k = n_k / (i c)`, Artstein &
    Poesio's (2008, §2.5.1) multi-pi. Missing values: Gwet's (2014) generalisation as in
    irrCAC's ``CAC.fleiss()`` (observed agreement over pairable items, the distribution from
    every value). With a ``distance`` this is irrCAC's weighted Fleiss kappa
    (:math:`w = 1 - d/d_{max}`). Coders may be anonymous (agreement-table data).

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing.
    distance : Distance or array_like of shape (V, V), optional
        Disagreement weights; nominal when omitted.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        If no item is pairable or the expected agreement is 1 (one category in use).

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin 76(5), 378–382. https://doi.org/10.1037/h0031619

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability, 4th ed. Advanced Analytics.

    Examples
    --------
    Artstein & Poesio (2008), Table 4 (recomputed pi 0.7995 (docs/references.md#ap2008-table4)):

    >>> table = [[46, 0, 0], [6, 32, 6], [0, 0, 10]]
    >>> round(fleiss_pi(ReliabilityData.from_contingency(table)).value, 4)
    0.7995
    """
    direct = fleiss_pi_from_array(data, distance, domain)
    if direct is not None:
        return direct
    rd, decomposition, model = _run(data, "fleiss_pi", "pooled", domain=domain, distance=distance)
    return evaluate(rd, decomposition, model, "Multi-pi")


def decompose_scott_pi(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> Decomposition:
    """Per-item decomposition of :func:`scott_pi`."""
    rd = as_reliability_data(data, domain=domain)
    require_two_coders(rd, "Scott's pi")
    return build_decomposition(rd, "scott_pi", "pooled")[0]


def scott_pi(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> CoefficientResult:
    """Scott's (1955) pi for two coders: chance from one pooled distribution.

    .. math:: A_e = \\sum_k \\hat P(k)^2, \\qquad \\hat P(k) = \\frac{n_k}{2i}

    (Artstein & Poesio 2008, §2.4.2). This is :func:`fleiss_pi` restricted to two coders
    (multi-pi with :math:`c = 2` is pi); the two differ only in that ``scott_pi`` refuses data
    with more than two coders (rows). Missing values: Gwet's convention, as in
    :func:`fleiss_pi`. Also Di Eugenio & Glass's (2004) :math:`\\kappa_{S\\&C}` and Byrt et
    al.'s (1993) bias-adjusted kappa (BAK).

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (2, n_items)
        Two coders' values (or a two-slot agreement table), ``nan`` for missing.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        If the data does not have exactly two coders, no item is pairable, or the expected
        agreement is 1.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding.
    Public Opinion Quarterly 19(3), 321–325. https://doi.org/10.1086/266577

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (A_e = 0.545, pi ≈ 0.341):

    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> round(scott_pi(data).value, 3)
    0.341
    """
    rd = as_reliability_data(data, domain=domain)
    require_two_coders(rd, "Scott's pi")
    decomposition, model = build_decomposition(rd, "scott_pi", "pooled")
    return evaluate(rd, decomposition, model, "Scott's pi")


def decompose_conger_kappa(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """Per-item decomposition of :func:`conger_kappa`."""
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Multi-kappa")
    return build_decomposition(rd, "conger_kappa", "coder", agreement_weights(rd, distance))[0]


def conger_kappa(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> CoefficientResult:
    """Multi-kappa (Davies & Fleiss 1982; Conger 1980): kappa with per-coder chance.

    .. math::

        A_e = \\frac{1}{c(c-1)} \\sum_{g \\ne h} \\sum_{k,l} w_{kl}\\, p_{gk}\\, p_{hl},
        \\qquad p_{gk} = \\frac{n_{gk}}{n_g}

    the mean over (ordered) coder pairs of Cohen's expected agreement; :math:`A_o` as in
    :func:`observed_agreement` (Artstein & Poesio 2008, §2.5.2). Missing values: Gwet's
    (2014) generalisation as in irrCAC's ``CAC.conger()`` (each coder's distribution from all
    of that coder's values, observed agreement over pairable items). Coders without any
    value are left out of the chance model. With a ``distance`` this is Gwet's weighted
    multi-kappa; asymmetric weights are averaged over both orders of each pair.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing; coders must be identified.
    distance : Distance or array_like of shape (V, V), optional
        Disagreement weights; nominal when omitted.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        For agreement-table data, fewer than two coders with values, no pairable item, or an
        expected agreement of 1.

    References
    ----------
    Conger, A. J. (1980). Integration and generalization of kappas for multiple raters.
    Psychological Bulletin 88(2), 322–328. https://doi.org/10.1037/0033-2909.88.2.322

    Davies, M. & Fleiss, J. L. (1982). Measuring agreement for multinomial data.
    Biometrics 38(4), 1047–1051. https://doi.org/10.2307/2529886

    Examples
    --------
    Artstein & Poesio (2008), Table 4 (A_e = 0.396; recomputed kappa 0.8013; docs/references.md,
    ``ap2008-table4``):

    >>> table = [[46, 0, 0], [6, 32, 6], [0, 0, 10]]
    >>> round(conger_kappa(ReliabilityData.from_contingency(table)).value, 4)
    0.8013
    """
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Multi-kappa")
    decomposition, model = build_decomposition(
        rd, "conger_kappa", "coder", agreement_weights(rd, distance)
    )
    return evaluate(rd, decomposition, model, "Multi-kappa")


def decompose_cohen_kappa(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> Decomposition:
    """Per-item decomposition of :func:`cohen_kappa`."""
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Cohen's kappa")
    require_two_coders(rd, "Cohen's kappa")
    return build_decomposition(rd, "cohen_kappa", "coder")[0]


def cohen_kappa(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> CoefficientResult:
    """Cohen's (1960) kappa for two coders: chance from each coder's own distribution.

    .. math:: A_e = \\sum_k \\hat P(k|c_1)\\, \\hat P(k|c_2), \\qquad
              \\hat P(k|c) = \\frac{n_{ck}}{n_c}

    (Artstein & Poesio 2008, §2.4.3); Di Eugenio & Glass's (2004) :math:`\\kappa_{Co}`.
    Missing values: Gwet's (2014) generalisation, as irrCAC's ``conger()`` on two coders:
    observed agreement over items both coders labelled, each coder's distribution from all
    of that coder's values. With complete data this is the textbook kappa (and scikit-learn's
    ``cohen_kappa_score``).

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (2, n_items)
        Two identified coders' values, ``nan`` for missing.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        For agreement-table data, a number of coders other than two, no item labelled by
        both, or an expected agreement of 1.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20(1), 37–46. https://doi.org/10.1177/001316446002000104

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (A_e = 0.54, kappa ≈ 0.348):

    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> round(cohen_kappa(data).value, 3)
    0.348
    """
    direct = two_coder_kappa_from_array(data, None, domain, "cohen_kappa")
    if direct is not None:
        return direct
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Cohen's kappa")
    require_two_coders(rd, "Cohen's kappa")
    direct = two_coder_kappa_from_data(rd, None, "cohen_kappa")
    if direct is not None:
        return direct
    decomposition, model = build_decomposition(rd, "cohen_kappa", "coder")
    return evaluate(rd, decomposition, model, "Cohen's kappa")


# -- Light's kappa --------------------------------------------------------------------------


@dataclass(frozen=True)
class LightKappaResult(CoefficientResult):
    """Light's kappa, with the coder pairs it averaged and each pair's Cohen kappa.

    ``observed`` and ``expected`` are the means of the pairs' observed and expected
    agreements; ``value`` is the mean of the pairs' kappas (not computed from those means).
    """

    pairs: tuple[tuple[Hashable, Hashable], ...]
    pair_values: tuple[float, ...]
    skipped_pairs: tuple[tuple[Hashable, Hashable], ...]


def _skipped_pairs(
    rd: ReliabilityData, used: Sequence[tuple[int, int]]
) -> tuple[tuple[Hashable, Hashable], ...]:
    """Every coder pair not in ``used``, as coder ids, in order (no per-pair Python test)."""
    skip = np.triu(np.ones((rd.n_coders, rd.n_coders), dtype=bool), 1)
    if used:
        kept = np.asarray(used, dtype=np.intp)
        skip[kept[:, 0], kept[:, 1]] = False
    first, second = np.nonzero(skip)
    labels = np.empty(rd.n_coders, dtype=object)
    for position, coder in enumerate(rd.coders):
        labels[position] = coder
    return tuple(zip(labels[first].tolist(), labels[second].tolist(), strict=True))


def _csr_with_coder_columns(
    block_rows: NDArray[np.intp],
    block_cols: NDArray[np.intp],
    width: int,
    rd: ReliabilityData,
) -> sparse.csr_matrix:
    """``[block | coder columns]`` as CSR, built in O(nnz) without sorting.

    The block is an ``(n_items, width)`` indicator given by its ones (``block_rows`` sorted);
    the coder columns are those of :func:`_coder_columns`, shifted by ``width``.
    """
    n_items = rd.n_items
    coder_rows = rd.item_index  # item-major, like the block
    coder_cols = width + rd.coder_index * rd.n_values + rd.value_code
    per_row_block = np.bincount(block_rows, minlength=n_items)
    per_row = per_row_block + np.bincount(coder_rows, minlength=n_items)
    indptr = np.concatenate([[0], np.cumsum(per_row)])
    index_type = np.int32 if indptr[-1] < np.iinfo(np.int32).max else np.int64
    indptr = indptr.astype(index_type)
    indices = np.empty(indptr[-1], dtype=index_type)
    block_start = np.concatenate([[0], np.cumsum(per_row_block)])[:-1]
    rank = np.arange(len(block_rows)) - block_start[block_rows]
    indices[indptr[block_rows] + rank] = block_cols
    coder_start = np.concatenate([[0], np.cumsum(per_row - per_row_block)])[:-1]
    rank = np.arange(len(coder_rows)) - coder_start[coder_rows]
    indices[indptr[coder_rows] + per_row_block[coder_rows] + rank] = coder_cols
    shape = (n_items, width + rd.n_coders * rd.n_values)
    return sparse.csr_matrix((np.ones(len(indices)), indices, indptr), shape=shape)


def _light_decomposition(
    rd: ReliabilityData, first: NDArray[np.intp], second: NDArray[np.intp]
) -> tuple[Decomposition, Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], ...]]]:
    """Light's kappa over the coder pairs ``(first[p], second[p])``, and its per-pair
    ``parts`` of totals."""
    first = np.asarray(first, dtype=np.intp)
    second = np.asarray(second, dtype=np.intp)
    stats = _light_stats(rd, first, second)
    parts = _light_parts(first, second, rd.n_coders, rd.n_values)
    leave_one_out = LightLeaveOneOut(first, second, rd.n_coders, rd.n_values)
    return Decomposition("light_kappa", stats, _mean_defined(parts), leave_one_out), parts


def light_kappa_on_rows(
    item_stats: ItemStats,
    first: NDArray[np.intp],
    second: NDArray[np.intp],
    *,
    n_coders: int,
    n_values: int,
) -> Decomposition:
    """Light's kappa on rows laid out as :func:`decompose_light_kappa` lays them out for the
    coder pairs ``(first[p], second[p])`` (positions among ``n_coders`` coders, sorted by
    first then second): rows built elsewhere, e.g. stacked from several ranges of items
    after their pair columns were put on one list of pairs."""
    first = np.asarray(first, dtype=np.intp)
    second = np.asarray(second, dtype=np.intp)
    width = 2 * first.size + n_coders * n_values
    if item_stats.shape[1] != width:
        raise ValueError(f"Rows of {item_stats.shape[1]} columns for a layout of {width}.")
    parts = _light_parts(first, second, n_coders, n_values)
    leave_one_out = LightLeaveOneOut(first, second, n_coders, n_values)
    return Decomposition("light_kappa", item_stats, _mean_defined(parts), leave_one_out)


def _light_parts(
    first: NDArray[np.intp], second: NDArray[np.intp], n_coders: int, n_values: int
) -> Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], ...]]:
    """Each pair's observed and expected agreement and kappa, from totals."""
    n_pairs = first.size

    def parts(totals: NDArray[np.float64]) -> tuple[NDArray[np.float64], ...]:
        totals = np.asarray(totals, dtype=np.float64)
        agree = totals[..., 0 : 2 * n_pairs : 2]
        both = totals[..., 1 : 2 * n_pairs : 2]
        shares, _ = coder_distributions(totals, n_coders, n_values)
        observed = divide(agree, both)
        expected = (shares[..., first, :] * shares[..., second, :]).sum(axis=-1)
        return observed, expected, chance_corrected(observed, expected)

    return parts


def _light_stats(
    rd: ReliabilityData, first: NDArray[np.intp], second: NDArray[np.intp]
) -> sparse.csr_matrix:
    n_pairs = first.size
    # Column 2p: pair p agrees on the item; column 2p + 1: both coders of pair p labelled it.
    left, right = rd.item_pairs()  # every pair of annotations sharing an item, by item
    pair_key = first.astype(np.int64) * rd.n_coders + second
    key = rd.coder_index[left].astype(np.int64) * rd.n_coders + rd.coder_index[right]
    position = np.minimum(np.searchsorted(pair_key, key), max(n_pairs - 1, 0))
    listed = pair_key[position] == key if n_pairs else np.zeros(key.size, dtype=bool)
    left, right, position = left[listed], right[listed], position[listed]
    agree = rd.value_code[left] == rd.value_code[right]
    rows = np.repeat(rd.item_index[left], 2)
    cols = np.column_stack([2 * position, 2 * position + 1]).reshape(-1)
    ones = np.column_stack([agree, np.ones(agree.size, dtype=bool)]).reshape(-1)
    return _csr_with_coder_columns(rows[ones], cols[ones], 2 * n_pairs, rd)


def _mean_defined(
    parts: Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], ...]],
) -> Callable[[NDArray[np.float64]], NDArray[np.float64]]:
    """``finalize`` for Light's kappa: mean of the defined pairwise kappas (nan if none)."""

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        kappas = parts(totals)[2]
        defined = ~np.isnan(kappas)
        count = defined.sum(axis=-1)
        total = np.where(defined, kappas, 0.0).sum(axis=-1)
        return divide(total, count.astype(np.float64))

    return finalize


def decompose_light_kappa(
    data: DataLike,
    *,
    domain: Sequence[Hashable] | None = None,
    pairs: tuple[NDArray[np.intp], NDArray[np.intp]] | None = None,
) -> Decomposition:
    """Per-item decomposition of :func:`light_kappa` (pairs fixed from the full data).

    Its rows are ``[agree_p, both_p for each pair p, coder × value counts]``. ``pairs``:
    the coder pairs to list, as ``(first, second)`` coder positions sorted by first then
    second (default: the pairs that share an item, ``data.coder_pairs()``).
    """
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Light's kappa")
    first, second = rd.coder_pairs()[:2] if pairs is None else pairs
    return _light_decomposition(rd, first, second)[0]


def light_kappa(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> LightKappaResult:
    """Light's (1971) kappa: the mean of Cohen's kappa over all pairs of coders.

    .. math:: \\kappa_{Light} = \\binom{c}{2}^{-1} \\sum_{g < h} \\kappa_{gh}

    Each pair's :math:`\\kappa_{gh}` is :func:`cohen_kappa` on coders g and h (missing
    values: Gwet's convention). Pairs of coders who share no item, or whose kappa is
    undefined (expected agreement 1), are skipped and listed in ``skipped_pairs``.
    Artstein & Poesio (2008, §2.5) prefer the generalised coefficients
    (:func:`conger_kappa`) to such averages.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Identified coders' values, ``nan`` for missing.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    LightKappaResult
        With ``pairs`` (coder ids), ``pair_values`` and ``skipped_pairs``.

    Raises
    ------
    ValueError
        For agreement-table data, or when no pair of coders has a defined kappa.

    References
    ----------
    Light, R. J. (1971). Measures of response agreement for qualitative data: some
    generalizations and alternatives. Psychological Bulletin 76(5), 365–377.
    https://doi.org/10.1037/h0031643

    Examples
    --------
    With two coders it is Cohen's kappa (Artstein & Poesio 2008, Table 1):

    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> round(light_kappa(data).value, 3)
    0.348
    """
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Light's kappa")
    first, second, _ = rd.coder_pairs()
    if not first.size:
        raise ValueError("Light's kappa needs at least one pair of coders sharing an item.")
    pairs = list(zip(first.tolist(), second.tolist(), strict=True))
    decomposition, parts = _light_decomposition(rd, first, second)
    observed, expected, kappas = parts(decomposition.totals())
    defined = ~np.isnan(kappas)
    if not defined.any():
        raise ValueError(
            "Light's kappa is undefined: Cohen's kappa is undefined for every pair of coders "
            "(expected agreement 1)."
        )
    used = [pair for pair, ok in zip(pairs, defined, strict=True) if ok]

    def ids(pair_list: list[tuple[int, int]]) -> tuple[tuple[Hashable, Hashable], ...]:
        return tuple((rd.coders[g], rd.coders[h]) for g, h in pair_list)

    return LightKappaResult(
        name="light_kappa",
        value=float(decomposition.evaluate()),
        observed=float(observed[defined].mean()),
        expected=float(expected[defined].mean()),
        kind="agreement",
        n_items=rd.n_items,
        n_pairable_items=rd.n_pairable_items,
        n_coders=rd.n_coders,
        pairs=ids(used),
        pair_values=tuple(float(k) for k in kappas[defined]),
        skipped_pairs=_skipped_pairs(rd, used),
    )
