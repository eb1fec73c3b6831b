"""Diagnostics behind an agreement coefficient: where coders disagree, and who differs.

- :func:`contingency_matrix`: two coders' V × V table (Cohen 1960; Di Eugenio & Glass 2004
  ask for it next to every kappa, since agreement tables hide bias).
- :func:`pairwise_coder_matrix`: a coefficient for every pair of coders.
- :func:`per_category_agreement`: one-vs-rest agreement for each category.
- :func:`item_disagreement`: observed disagreement per item, and the most disputed items.
- :func:`coder_distributions`: each coder's label distribution against the pooled one.

The coincidence matrix lives with alpha (:func:`metrics.coincidence_matrix`). Every function
takes ``data``/``domain=`` through :func:`metrics.data.as_reliability_data` and ``distance=``
through :func:`metrics.coefficients.agreement.agreement_weights` (symmetric weights).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.agreement import (
    _observed_columns,
    agreement_weights,
    bennett_s,
    cohen_kappa,
    observed_agreement,
    scott_pi,
    use_sparse_counts,
)
from metrics.coefficients.gwet import brennan_prediger, gwet_ac1
from metrics.coefficients.result import CoefficientResult
from metrics.coefficients.weighted import weighted_kappa
from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.distances import DistanceLike, MatrixDistance, distance_matrix

__all__ = [
    "CoderDistributions",
    "ContingencyMatrix",
    "ItemDisagreement",
    "PairwiseCoderMatrix",
    "PerCategoryAgreement",
    "coder_distributions",
    "contingency_matrix",
    "item_disagreement",
    "pairwise_coder_matrix",
    "per_category_agreement",
    "per_member_agreement",
]


def _require_coders(rd: ReliabilityData, what: str) -> None:
    if not rd.coders_identified:
        raise ValueError(
            f"{what} needs identified coders; agreement-table data only has anonymous slots."
        )


def _coder_index(rd: ReliabilityData, coder: Hashable) -> int:
    try:
        return rd.coders.index(coder)
    except ValueError:
        raise ValueError(
            f"Unknown coder {coder!r}; the data's coders are {list(rd.coders)[:20]!r}."
        ) from None


# -- contingency matrix -------------------------------------------------------------------


@dataclass(frozen=True)
class ContingencyMatrix:
    """Two coders' contingency table over the items both labelled.

    Attributes
    ----------
    coder_a, coder_b : hashable
        Row coder and column coder.
    categories : tuple
        The data's value domain, indexing rows and columns.
    counts : ndarray of int, shape (V, V)
        ``counts[j, l]``: items ``coder_a`` labelled ``categories[j]`` and ``coder_b``
        labelled ``categories[l]``.
    """

    coder_a: Hashable
    coder_b: Hashable
    categories: tuple[Hashable, ...]
    counts: NDArray[np.int64]

    @property
    def n_items(self) -> int:
        """Items both coders labelled."""
        return int(self.counts.sum())

    @property
    def row_totals(self) -> NDArray[np.int64]:
        """``coder_a``'s marginal counts."""
        return self.counts.sum(axis=1)

    @property
    def column_totals(self) -> NDArray[np.int64]:
        """``coder_b``'s marginal counts."""
        return self.counts.sum(axis=0)


def contingency_matrix(
    data: DataLike,
    coder_a: Hashable,
    coder_b: Hashable,
    *,
    domain: Sequence[Hashable] | None = None,
) -> ContingencyMatrix:
    """Two coders' ``V × V`` contingency table (rows: ``coder_a``), over shared items.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Identified coders' values, ``nan`` for missing (coders of an array are 0, 1, ...).
    coder_a, coder_b : hashable
        Coder identifiers as in ``data.coders``.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    ContingencyMatrix

    Raises
    ------
    ValueError
        For an unknown coder or agreement-table data.

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (coder A: 30 STAT, coder B: 40 STAT):

    >>> from metrics.data import ReliabilityData
    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> table = contingency_matrix(data, "B", "A")
    >>> table.counts.tolist(), table.row_totals.tolist()
    ([[20, 20], [10, 50]], [40, 60])
    """
    rd = as_reliability_data(data, domain=domain)
    _require_coders(rd, "A contingency matrix")
    _, first, second = rd.paired_codes(_coder_index(rd, coder_a), _coder_index(rd, coder_b))
    size = rd.n_values
    flat = first * size + second
    counts = np.bincount(flat, minlength=size * size).reshape(size, size).astype(np.int64)
    return ContingencyMatrix(coder_a, coder_b, rd.domain, counts)


# -- pairwise coder matrix ----------------------------------------------------------------

PairwiseCoefficient = Literal[
    "kappa", "pi", "observed_agreement", "s", "ac1", "brennan_prediger", "weighted_kappa"
]

_PAIRWISE: dict[str, Callable[..., CoefficientResult]] = {
    "kappa": cohen_kappa,
    "pi": scott_pi,
    "observed_agreement": observed_agreement,
    "s": bennett_s,
    "ac1": gwet_ac1,
    "brennan_prediger": brennan_prediger,
    "weighted_kappa": weighted_kappa,
}
_WEIGHTED = {"observed_agreement", "ac1", "brennan_prediger", "weighted_kappa"}


@dataclass(frozen=True)
class PairwiseCoderMatrix:
    """A coefficient for every pair of coders.

    Attributes
    ----------
    coefficient : str
        Which coefficient (``"kappa"``, ``"pi"``, ...).
    coders : tuple
        Row and column labels.
    values : ndarray of float, shape (C, C)
        Symmetric. The diagonal is 1.0 by convention (a coder agrees with themself). Where
        ``defined`` is False (the pair shares no item, or the coefficient is undefined for
        it, e.g. expected agreement 1) the value is ``nan``; read ``defined`` first.
    defined : ndarray of bool, shape (C, C)
    n_shared_items : ndarray of int, shape (C, C)
        Items both coders labelled; the diagonal holds each coder's number of items.
    """

    coefficient: str
    coders: tuple[Hashable, ...]
    values: NDArray[np.float64]
    defined: NDArray[np.bool_]
    n_shared_items: NDArray[np.int64]


def pairwise_coder_matrix(
    data: DataLike,
    *,
    coefficient: PairwiseCoefficient = "kappa",
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> PairwiseCoderMatrix:
    """Compute a two-coder coefficient for each pair of coders (rows × columns).

    Each off-diagonal cell is the coefficient on the two coders' data alone (missing values
    as that coefficient documents). All pairs come from one sparse product giving every pair's
    contingency table (a per-pair loop takes over when C²V² is too large for memory). A
    data-dependent distance is evaluated once on the full data and used for every pair.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Identified coders' values, ``nan`` for missing.
    coefficient : {"kappa", "pi", "observed_agreement", "s", "ac1", "brennan_prediger", \
"weighted_kappa"}, default "kappa"
        Cohen's kappa, Scott's pi, A_o, Bennett's S, Gwet's AC1/AC2, Brennan-Prediger, or
        Cohen's weighted kappa.
    distance : Distance or array_like of shape (V, V), optional
        For the weighted coefficients (required for ``"weighted_kappa"``).
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    PairwiseCoderMatrix
        Diagonal 1.0; undefined pairs are ``nan`` with ``defined`` False.

    Raises
    ------
    ValueError
        For an unknown coefficient, agreement-table data, a distance with an unweighted
        coefficient, or ``"weighted_kappa"`` without a distance.

    Examples
    --------
    >>> from metrics.data import ReliabilityData
    >>> data = ReliabilityData.from_contingency([[20, 10], [20, 50]])
    >>> round(float(pairwise_coder_matrix(data).values[0, 1]), 3)
    0.348
    """
    if coefficient not in _PAIRWISE:
        raise ValueError(f"Unknown coefficient {coefficient!r}; choose from {sorted(_PAIRWISE)}.")
    if distance is not None and coefficient not in _WEIGHTED:
        raise ValueError(f"The {coefficient!r} coefficient takes no distance.")
    if coefficient == "weighted_kappa" and distance is None:
        raise ValueError("The 'weighted_kappa' coefficient needs a distance.")
    rd = as_reliability_data(data, domain=domain)
    _require_coders(rd, "A pairwise coder matrix")
    # A data-dependent distance (ordinal) is fixed once, from the full data.
    fixed = None if distance is None else MatrixDistance(distance_matrix(distance, rd))
    shared = np.rint(rd.shared_items().toarray()).astype(np.int64)
    if rd.n_coders**2 * rd.n_values**2 <= _DENSE_LIMIT:
        values = _pairwise_vectorised(rd, coefficient, agreement_weights(rd, fixed))
    elif np.count_nonzero(np.triu(shared, 1)) * rd.n_values**2 <= _DENSE_LIMIT:
        values = _pairwise_sharing(rd, coefficient, agreement_weights(rd, fixed))
    else:
        values = _pairwise_by_pairs(rd, coefficient, fixed)
    values[shared == 0] = np.nan
    np.fill_diagonal(values, 1.0)
    defined = ~np.isnan(values)
    return PairwiseCoderMatrix(coefficient, rd.coders, values, defined, shared)


_DENSE_LIMIT = 20_000_000  # entries of the all-pairs contingency array C × V × C × V


def _pairwise_sharing(
    rd: ReliabilityData, coefficient: str, weights: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """``(C, C)`` values from the contingency tables of the pairs that share items only.

    The tables (pairs × V × V) come from the pairs of annotations on each item, in
    O(``Σ_u m_u²``); same conventions as :func:`_pairwise_vectorised`.
    """
    size, n_coders = rd.n_values, rd.n_coders
    first, second, _ = rd.coder_pairs()
    left, right = rd.item_pairs()  # coder_index[left] < coder_index[right]
    pair_key = first.astype(np.int64) * n_coders + second
    pair = np.searchsorted(
        pair_key, rd.coder_index[left].astype(np.int64) * n_coders + rd.coder_index[right]
    )
    flat = (pair * size + rd.value_code[left]) * size + rd.value_code[right]
    tables = np.bincount(flat, minlength=len(first) * size * size).astype(np.float64)
    tables = tables.reshape(len(first), size, size)  # [p, k, l]: first said k, second l
    counts = rd.coder_value_counts
    w = np.eye(size) if weights is None else weights
    both = tables.sum(axis=(1, 2))
    agree = np.einsum("pkl,kl->p", tables, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = agree / both
        if coefficient in ("kappa", "weighted_kappa"):
            totals = counts.sum(axis=1, keepdims=True)
            shares = np.where(totals > 0, counts / np.where(totals > 0, totals, 1), 0.0)
            expected = np.einsum("pk,kl,pl->p", shares[first], w, shares[second])
        elif coefficient in ("pi", "ac1"):
            totals = counts.sum(axis=1)
            union = totals[first] + totals[second] - both
            rated_by_second = tables.sum(axis=2)  # [p, k]: first said k, second rated
            rated_by_first = tables.sum(axis=1)  # [p, l]: second said l, first rated
            pooled = counts[first] + counts[second] - (rated_by_second + rated_by_first) / 2
            pooled = pooled / union[:, None]
            if coefficient == "pi":
                expected = np.einsum("pk,kl,pl->p", pooled, w, pooled)
            elif size > 1:
                spread = (pooled * (1 - pooled)).sum(axis=-1)
                expected = w.sum() / (size * (size - 1)) * spread
            else:
                expected = np.ones_like(observed)
        elif coefficient in ("s", "brennan_prediger"):
            expected = np.full_like(observed, w.sum() / size**2 if size > 1 else 1.0)
        else:
            expected = np.zeros_like(observed)
        value = (observed - expected) / (1 - expected)
    if coefficient == "observed_agreement":
        value = np.where(both > 0, observed, np.nan)
    else:
        value = np.where((both > 0) & (np.abs(1 - expected) > 1e-12), value, np.nan)
    values = np.full((n_coders, n_coders), np.nan)
    values[first, second] = value
    values[second, first] = value
    return values


def _pairwise_by_pairs(
    rd: ReliabilityData,
    coefficient: str,
    distance: MatrixDistance | None,
) -> NDArray[np.float64]:
    """``(C, C)`` values by calling the coefficient on each pair's data (nan if undefined).

    Only the pairs that share an item are visited (listed by one sparse product).
    """
    function = _PAIRWISE[coefficient]
    options = {} if distance is None else {"distance": distance}
    size = rd.n_coders
    values = np.full((size, size), np.nan)
    first, second, _ = rd.coder_pairs()
    for g, h in zip(first.tolist(), second.tolist(), strict=True):
        pair = rd.restricted_to_coders([g, h])
        try:
            values[g, h] = values[h, g] = function(pair, **options).value
        except ValueError:
            pass
    return values


def _pairwise_vectorised(
    rd: ReliabilityData, coefficient: str, weights: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    """``(C, C)`` values from all pairs' contingency tables at once (one sparse product).

    Same conventions as the two-coder functions (``weights`` symmetric, as
    :func:`~metrics.coefficients.agreement.agreement_weights` gives them).
    """
    size, n_coders = rd.n_values, rd.n_coders
    one_hot = sparse.csr_matrix(
        (np.ones(rd.n_annotations), (rd.coder_index * size + rd.value_code, rd.item_index)),
        shape=(n_coders * size, rd.n_items),
    )
    tables = (one_hot @ one_hot.T).toarray().reshape(n_coders, size, n_coders, size)
    counts = np.asarray(one_hot.sum(axis=1)).reshape(n_coders, size)
    w = np.eye(size) if weights is None else weights
    both = tables.sum(axis=(1, 3))
    agree = np.einsum("gkhl,kl->gh", tables, w)
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = agree / both
        if coefficient in ("kappa", "weighted_kappa"):
            totals = counts.sum(axis=1, keepdims=True)
            shares = np.where(totals > 0, counts / np.where(totals > 0, totals, 1), 0.0)
            expected = shares @ w @ shares.T
        elif coefficient in ("pi", "ac1"):
            union = counts.sum(axis=1)[:, None] + counts.sum(axis=1)[None, :] - both
            first = tables.sum(axis=3).transpose(0, 2, 1)  # [g, h, k]: g said k, h rated
            second = tables.sum(axis=1)  # [g, h, l]: h said l, g rated
            pooled = counts[:, None, :] + counts[None, :, :] - (first + second) / 2
            pooled = pooled / union[:, :, None]
            if coefficient == "pi":
                expected = np.einsum("ghk,kl,ghl->gh", pooled, w, pooled)
            elif size > 1:
                spread = (pooled * (1 - pooled)).sum(axis=-1)
                expected = w.sum() / (size * (size - 1)) * spread
            else:
                expected = np.ones_like(observed)
        elif coefficient in ("s", "brennan_prediger"):
            expected = np.full_like(observed, w.sum() / size**2 if size > 1 else 1.0)
        else:
            return np.where(both > 0, observed, np.nan)
        value = (observed - expected) / (1 - expected)
    value = np.where((both > 0) & (np.abs(1 - expected) > 1e-12), value, np.nan)
    upper = np.triu(value, 1)  # mirrored, so the matrix is exactly symmetric
    return np.where(np.triu(np.ones_like(value, dtype=bool), 1), value, upper.T)


# -- per-category agreement ---------------------------------------------------------------


@dataclass(frozen=True)
class PerCategoryAgreement:
    """One-vs-rest agreement for each category.

    Attributes
    ----------
    method : {"kappa", "pi"}
        Multi-kappa (Cohen's kappa for two coders) or multi-pi (Scott's pi for two) on the
        data binarised as "this category" vs "any other".
    categories : tuple
        The data's value domain.
    values, observed, expected : tuple of float or None
        Per category; None where the coefficient is undefined (e.g. the category is never,
        or always, used: expected agreement 1).
    """

    method: str
    categories: tuple[Hashable, ...]
    values: tuple[float | None, ...]
    observed: tuple[float | None, ...]
    expected: tuple[float | None, ...]

    def as_dict(self) -> dict[Hashable, float | None]:
        """``{category: value}``."""
        return dict(zip(self.categories, self.values, strict=True))


def per_category_agreement(
    data: DataLike,
    *,
    method: Literal["kappa", "pi"] = "kappa",
    domain: Sequence[Hashable] | None = None,
) -> PerCategoryAgreement:
    """Agreement on each category against all others (the data binarised one-vs-rest).

    For category :math:`k`, every value becomes "k" or "not k" (missing stays missing) and
    the chosen coefficient is computed on that two-value data. ``"pi"`` gives Fleiss'
    (1971) per-category kappa (DKPro's and Agresti's "category agreement"); ``"kappa"`` uses
    each coder's own marginals (Cohen's kappa for two coders, multi-kappa for more).

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing (identified coders for ``"kappa"``).
    method : {"kappa", "pi"}, default "kappa"
        The chance model; the result records it.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    PerCategoryAgreement

    Raises
    ------
    ValueError
        For an unknown method, or ``"kappa"`` on agreement-table data.

    Examples
    --------
    Agresti (1992) via DKPro's Agresti1992Test: category agreement 0.781 for category 1.

    >>> from metrics.data import ReliabilityData
    >>> table = [[22, 2, 2, 0], [5, 7, 14, 0], [0, 2, 36, 0], [0, 1, 17, 10]]
    >>> result = per_category_agreement(ReliabilityData.from_contingency(table), method="pi")
    >>> round(result.values[0], 3)
    0.781
    """
    if method not in ("kappa", "pi"):
        raise ValueError(f"method must be 'kappa' or 'pi'; got {method!r}.")
    rd = as_reliability_data(data, domain=domain)
    if method == "kappa":
        _require_coders(rd, "Per-category kappa")
    if use_sparse_counts(rd):
        observed, expected = _per_category_sparse(rd, method)
    else:
        observed, expected = _per_category_dense(rd, method)
    values: list[float | None] = [None] * rd.n_values
    observed_list: list[float | None] = [None] * rd.n_values
    expected_list: list[float | None] = [None] * rd.n_values
    if observed is not None:
        defined = (np.abs(1 - expected) > 1e-12).tolist()
        with np.errstate(divide="ignore", invalid="ignore"):
            kappas = ((observed - expected) / (1 - expected)).tolist()
        values = [v if ok else None for v, ok in zip(kappas, defined, strict=True)]
        observed_list = [
            v if ok else None for v, ok in zip(observed.tolist(), defined, strict=True)
        ]
        expected_list = [
            v if ok else None for v, ok in zip(expected.tolist(), defined, strict=True)
        ]
    return PerCategoryAgreement(
        method, rd.domain, tuple(values), tuple(observed_list), tuple(expected_list)
    )


def per_member_agreement(
    data: DataLike,
    *,
    method: Literal["kappa", "pi"] = "kappa",
    domain: Sequence[Hashable] | None = None,
) -> PerCategoryAgreement:
    """Agreement on each member of set-valued labels: "contains k" against "does not".

    A set label ("economy|politics") is not one category among the combinations that occur;
    for each category ``k`` that any set holds, every label becomes "contains k" or "does
    not" (missing stays missing) and the chosen coefficient is computed on that two-value
    data, as :func:`per_category_agreement` does for one category against the others. The
    combinations' table would list as many rows as combinations were used, and a category
    shared by two combinations would count as disagreement.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values that are sets (``frozenset``, ``set``, ``tuple`` or ``list`` of members).
    method : {"kappa", "pi"}, default "kappa"
        As :func:`per_category_agreement`.
    domain : sequence, optional
        As :func:`per_category_agreement`.

    Returns
    -------
    PerCategoryAgreement
        ``categories`` are the members, sorted by their text.

    Raises
    ------
    ValueError
        For values that are not sets, or as :func:`per_category_agreement`.

    Examples
    --------
    Two coders, four items: "a" is in both coders' sets on items 1 and 2 and in neither on
    item 4; on item 3 only the first coder's set holds it. Its two-value data is (1, 1, 1, 0)
    against (1, 1, 0, 0): Cohen's kappa (0.75 - 0.5) / (1 - 0.5) = 0.5.

    >>> sets = [[{"a"}, {"a", "b"}, {"a"}, {"b"}], [{"a"}, {"a", "b"}, {"b"}, {"b"}]]
    >>> from metrics.data import ReliabilityData
    >>> data = ReliabilityData.from_matrix(
    ...     [[frozenset(v) for v in row] for row in sets], domain=None)
    >>> result = per_member_agreement(data)
    >>> result.categories, round(result.values[0], 3)
    (('a', 'b'), 0.5)
    """
    rd = as_reliability_data(data, domain=domain)
    if not all(isinstance(value, frozenset | set | tuple | list) for value in rd.domain):
        raise ValueError("Per-member agreement needs set-valued labels.")
    members = sorted({m for value in rd.domain for m in value}, key=str)  # type: ignore[attr-defined]
    values: list[float | None] = []
    observed: list[float | None] = []
    expected: list[float | None] = []
    for member in members:  # a loop over the categories, each vectorised over annotations
        contains = np.array(
            [member in value for value in rd.domain],  # type: ignore[operator]
            dtype=np.bool_,
        )
        binary = rd._derived(
            rd.item_index,
            rd.coder_index,
            contains[rd.value_code].astype(np.intp),
            domain=(False, True),
            domain_declared=True,
        )
        result = per_category_agreement(binary, method=method)
        values.append(result.values[1])
        observed.append(result.observed[1])
        expected.append(result.expected[1])
    return PerCategoryAgreement(
        method, tuple(members), tuple(values), tuple(observed), tuple(expected)
    )


def _per_category_dense(
    rd: ReliabilityData, method: str
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64]]:
    """Per category, observed and expected agreement from the ``items × V`` counts."""
    counts = rd.item_value_counts  # (items, V)
    per_item = rd.values_per_item.astype(np.float64)[:, None]
    pairable = rd.pairable
    rest = per_item - counts
    with np.errstate(divide="ignore", invalid="ignore"):
        item_agreement = (counts * (counts - 1) + rest * (rest - 1)) / (per_item * (per_item - 1))
    n_pairable = pairable.sum()
    observed = item_agreement[pairable].sum(axis=0) / n_pairable if n_pairable else None
    if method == "pi":
        rated = rd.values_per_item > 0
        share = (counts[rated] / per_item[rated]).sum(axis=0) / max(int(rated.sum()), 1)
        return observed, share**2 + (1 - share) ** 2
    shares, n_coders = _coder_shares(rd)
    pairs = n_coders * (n_coders - 1)
    same = shares.sum(axis=0) ** 2 - (shares**2).sum(axis=0)
    other = (1 - shares)[shares.sum(axis=1) > 0] if n_coders else shares
    differ = other.sum(axis=0) ** 2 - (other**2).sum(axis=0)
    return observed, (same + differ) / pairs if pairs else np.ones(rd.n_values)


def _per_category_sparse(
    rd: ReliabilityData, method: str
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64]]:
    """:func:`_per_category_dense` from the (item, value) and (coder, value) pairs that occur.

    An item without value k agrees on "not k" completely (agreement 1), so the observed
    sum over pairable items is their number plus, where k occurs, the item's agreement
    minus 1; the chance terms need each value's share sums only. O(n log n) for any V.
    """
    size = rd.n_values
    per_item = rd.values_per_item.astype(np.float64)
    item, code, count = rd.item_value_pairs
    n_pairable = int(np.count_nonzero(rd.pairable))
    observed = None
    if n_pairable:
        m = per_item[item]
        rest = m - count
        with np.errstate(divide="ignore", invalid="ignore"):
            agreement = (count * (count - 1) + rest * (rest - 1)) / (m * (m - 1))
        keep = rd.pairable[item]
        excess = np.bincount(code[keep], weights=agreement[keep] - 1.0, minlength=size)
        observed = (n_pairable + excess) / n_pairable
    if method == "pi":
        n_rated = max(int(np.count_nonzero(per_item > 0)), 1)
        share = np.bincount(code, weights=count / per_item[item], minlength=size) / n_rated
        return observed, share**2 + (1 - share) ** 2
    per_coder = np.bincount(rd.coder_index, minlength=rd.n_coders).astype(np.float64)
    width = max(size, 1)
    keys, pair_counts = np.unique(
        rd.coder_index.astype(np.int64) * width + rd.value_code, return_counts=True
    )
    coder, value = keys // width, keys % width
    p = pair_counts / per_coder[coder]
    total = np.bincount(value, weights=p, minlength=size)  # Σ_g p_gk
    squares = np.bincount(value, weights=p * p, minlength=size)  # Σ_g p_gk²
    n_coders = int(np.count_nonzero(per_coder))
    pairs = n_coders * (n_coders - 1)
    same = total**2 - squares
    differ = (n_coders - total) ** 2 - (n_coders - 2 * total + squares)
    return observed, (same + differ) / pairs if pairs else np.ones(size)


def _coder_shares(rd: ReliabilityData) -> tuple[NDArray[np.float64], int]:
    """``(C, V)`` each coder's category shares (zero rows for coders without values), and
    the number of coders with values."""
    counts = rd.coder_value_counts
    totals = counts.sum(axis=1)
    shares = np.zeros(counts.shape)
    shares[totals > 0] = counts[totals > 0] / totals[totals > 0, None]
    return shares, int(np.count_nonzero(totals))


# -- item disagreement --------------------------------------------------------------------


@dataclass(frozen=True)
class DisputedItem:
    """One item in :meth:`ItemDisagreement.most_disputed`."""

    item: Hashable
    disagreement: float
    n_values: int


@dataclass(frozen=True)
class ItemDisagreement:
    """Observed disagreement on each item.

    Attributes
    ----------
    items : tuple
        Item identifiers, in data order.
    n_values : ndarray of int, shape (n_items,)
        Values each item received.
    pairable : ndarray of bool, shape (n_items,)
        Items with at least two values.
    disagreement : ndarray of float, shape (n_items,)
        :math:`\\frac{1}{m_i(m_i-1)} \\sum_{k,l} n_{ik} n_{il} d_{kl}/d_{max}`, the share of
        disagreeing pairs of values (weighted by the distance) in [0, 1]; ``nan`` exactly
        where ``pairable`` is False (no pair to compare).
    """

    items: tuple[Hashable, ...]
    n_values: NDArray[np.intp]
    pairable: NDArray[np.bool_]
    disagreement: NDArray[np.float64]

    def most_disputed(self, count: int = 10) -> list[DisputedItem]:
        """The ``count`` pairable items with the highest disagreement, highest first.

        Ties keep data order.
        """
        candidates = np.flatnonzero(self.pairable)
        order = candidates[np.argsort(-self.disagreement[candidates], kind="stable")][:count]
        return [
            DisputedItem(self.items[i], float(self.disagreement[i]), int(self.n_values[i]))
            for i in order
        ]


def item_disagreement(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> ItemDisagreement:
    """Observed disagreement per item, vectorised over items.

    .. math:: D_{o,i} = 1 - \\frac{\\sum_k n_{ik}(n_{ik} - 1)}{m_i (m_i - 1)}

    for nominal data (the share of disagreeing pairs of values on item i); with a distance,
    :math:`\\sum_{k,l} n_{ik} n_{il} d_{kl} / (d_{max}\\, m_i (m_i - 1))`. Its mean over
    pairable items is :math:`1 - A_o`.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing.
    distance : Distance or array_like of shape (V, V), optional
        Nominal when omitted.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    ItemDisagreement
        ``most_disputed(n)`` lists the most disputed items.

    Examples
    --------
    Artstein & Poesio (2008), Table 3 (agr_1 = 1/3 for 2 STAT + 1 IREQ; agr_2 = 1):

    >>> from metrics.data import ReliabilityData
    >>> result = item_disagreement(ReliabilityData.from_agreement_table([[2, 1], [0, 3]]))
    >>> [round(float(d), 4) for d in result.disagreement]
    [0.6667, 0.0]
    """
    rd = as_reliability_data(data, domain=domain)
    weights = agreement_weights(rd, distance)
    columns = _observed_columns(rd, weights)
    pairable = rd.pairable
    disagreement = np.where(pairable, 1.0 - columns[:, 0], np.nan)
    return ItemDisagreement(rd.items, rd.values_per_item.copy(), pairable.copy(), disagreement)


# -- coder distributions ------------------------------------------------------------------


@dataclass(frozen=True)
class CoderDistributions:
    """Each coder's label distribution against the pooled distribution.

    Attributes
    ----------
    coders, categories : tuple
    counts : ndarray of int, shape (C, V)
        Values each coder gave to each category.
    proportions : ndarray of float, shape (C, V)
        Rows of ``counts`` normalised; a coder without any value has a row of zeros.
    pooled : ndarray of float, shape (V,)
        The distribution of all values together.
    divergence : tuple of float or None
        Jensen–Shannon divergence (base 2, in [0, 1]) between each coder's distribution and
        the pooled one; None for a coder without values.
    """

    coders: tuple[Hashable, ...]
    categories: tuple[Hashable, ...]
    counts: NDArray[np.int64]
    proportions: NDArray[np.float64]
    pooled: NDArray[np.float64]
    divergence: tuple[float | None, ...]

    @property
    def most_divergent(self) -> Hashable | None:
        """The coder whose distribution is farthest from the pooled one."""
        scored = [
            (d, c) for d, c in zip(self.divergence, self.coders, strict=True) if d is not None
        ]
        return max(scored, key=lambda pair: pair[0])[1] if scored else None


def _entropy_terms(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """:math:`\\sum p \\log_2 (p/q)` along the last axis, with 0 log 0 = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log2(np.where(p > 0, p, 1) / np.where(q > 0, q, 1)), 0.0)
    return terms.sum(axis=-1)


def coder_distributions(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> CoderDistributions:
    """Each coder's label distribution, the pooled one, and how far each coder is from it.

    The divergence is the Jensen–Shannon divergence

    .. math:: JS(P_c, P) = \\tfrac12 KL(P_c \\| M) + \\tfrac12 KL(P \\| M), \\quad
              M = \\tfrac12 (P_c + P)

    in bits, 0 for a coder who uses categories exactly as the team does and at most 1.
    Differences between coders' distributions are what separates kappa from pi (annotator
    bias, Artstein & Poesio 2008 §3.1).

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Identified coders' values, ``nan`` for missing.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoderDistributions

    Raises
    ------
    ValueError
        For agreement-table data or data without any value.

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (A: 30/70, B: 40/60; pooled 35/65):

    >>> from metrics.data import ReliabilityData
    >>> result = coder_distributions(ReliabilityData.from_contingency([[20, 10], [20, 50]]))
    >>> result.proportions.tolist(), result.pooled.tolist()
    ([[0.3, 0.7], [0.4, 0.6]], [0.35, 0.65])
    """
    rd = as_reliability_data(data, domain=domain)
    _require_coders(rd, "Coder distributions")
    if rd.n_annotations == 0:
        raise ValueError("The data holds no value.")
    counts = rd.coder_value_counts.astype(np.int64)
    totals = counts.sum(axis=1)
    proportions = np.zeros(counts.shape)
    proportions[totals > 0] = counts[totals > 0] / totals[totals > 0, None]
    pooled = counts.sum(axis=0) / counts.sum()
    middle = (proportions + pooled) / 2
    js = 0.5 * _entropy_terms(proportions, middle) + 0.5 * _entropy_terms(pooled[None, :], middle)
    divergence = tuple(
        float(max(value, 0.0)) if total > 0 else None
        for value, total in zip(js, totals, strict=True)
    )
    return CoderDistributions(
        rd.coders, rd.domain, counts.astype(np.int64), proportions, pooled, divergence
    )
