"""Each coder against a reference labelling (a gold coder, or adjudicated labels).

Agreement among coders says whether they can be trusted together; a reference says whether
each of them is right. For every coder, on the items both the coder and the reference
labelled:

- accuracy: the share of items where the coder's label equals the reference's;
- Cohen's kappa of the pair (coder, reference): chance from each one's own distribution;
- Krippendorff's alpha of the pair, with the question's distance;
- macro-averaged F1 over the categories the coder or the reference used;
- the confusion matrix (rows: the reference, columns: the coder, as scikit-learn's
  ``confusion_matrix(y_true=reference, y_pred=coder)``) and, per category, precision
  (of the coder's uses of it), recall (of the reference's) and F1;

with bootstrap intervals over items (:func:`metrics.bootstrap`; every measure of a coder
resamples the same items, since a replicate's draw depends only on the seed, the replicate
and the number of items).

Undefined values are ``nan``: precision of a category the coder never used, recall of one the
reference never used, F1 when both are zero or undefined, kappa when chance agreement is 1,
alpha when the pair's values are all the same. Macro F1 averages the defined per-category F1
of the categories either side used (a category both used, with no true positive, counts
as 0). A coder with no item in common with the reference has ``n_items == 0`` and ``nan``
everywhere; intervals need at least two items and a measure defined on all of them, and say
why they are missing otherwise (``notes``).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.agreement import decompose_cohen_kappa
from metrics.coefficients.alpha import decompose_krippendorff_alpha
from metrics.data import MISSING, DataLike, ReliabilityData, as_reliability_data
from metrics.decomposition import Decomposition
from metrics.distances import DistanceLike
from metrics.uncertainty.bootstrap import (
    BootstrapResult,
    _check_options,
    _finalize_rows,
    _weight_blocks,
    bootstrap_combine,
)

__all__ = [
    "REFERENCE_MEASURES",
    "CoderAgainstReference",
    "ReferenceAgreement",
    "reference_agreement",
]

#: The measures with an interval, in the order they are reported.
REFERENCE_MEASURES: tuple[str, ...] = ("accuracy", "kappa", "alpha", "macro_f1")


@dataclass(frozen=True)
class CoderAgainstReference:
    """One coder against the reference.

    Attributes
    ----------
    coder : hashable
        The coder's identifier (``data.coders``).
    n_items : int
        Items both the coder and the reference labelled: everything below is computed on them.
    accuracy, kappa, alpha, macro_f1 : float
        The measures (``nan`` when undefined, see the module docstring).
    confusion : ndarray of int, shape (V, V)
        ``confusion[i, j]``: items the reference labelled ``domain[i]`` and the coder
        ``domain[j]``.
    precision, recall, f1 : ndarray of float, shape (V,)
        Per category of the domain; ``nan`` where undefined.
    support : ndarray of int, shape (V,)
        Items the reference labelled with each category.
    intervals : dict of str to BootstrapResult
        Bootstrap intervals of the measures that have one (keys of ``REFERENCE_MEASURES``).
    notes : dict of str to str
        Why a measure or its interval is missing.
    """

    coder: Hashable
    n_items: int
    accuracy: float
    kappa: float
    alpha: float
    macro_f1: float
    confusion: NDArray[np.int64]
    precision: NDArray[np.float64]
    recall: NDArray[np.float64]
    f1: NDArray[np.float64]
    support: NDArray[np.int64]
    intervals: dict[str, BootstrapResult] = field(default_factory=dict)
    notes: dict[str, str] = field(default_factory=dict)

    def value(self, measure: str) -> float:
        """The value of one of ``REFERENCE_MEASURES``."""
        if measure not in REFERENCE_MEASURES:
            raise ValueError(f"Unknown measure {measure!r}; one of {REFERENCE_MEASURES}.")
        return float(getattr(self, measure))


@dataclass(frozen=True)
class ReferenceAgreement:
    """Every coder against the reference: ``coders`` in the order of ``data.coders``.

    ``domain`` orders the rows and columns of each confusion matrix and the per-category
    arrays; ``n_reference_items`` counts the items the reference labelled.
    """

    domain: tuple[Hashable, ...]
    coders: tuple[CoderAgainstReference, ...]
    n_reference_items: int
    confidence: float
    replicates: int


def reference_agreement(
    data: DataLike,
    reference: npt.ArrayLike | Sequence[Any],
    *,
    distance: DistanceLike = "nominal",
    domain: Sequence[Hashable] | None = None,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Literal["bca", "percentile"] = "bca",
) -> ReferenceAgreement:
    r"""Each coder of ``data`` against a reference labelling of the same items.

    With :math:`C` the confusion matrix of a coder (rows: reference, columns: coder) over its
    :math:`n` items in common with the reference,

    .. math::

        \mathrm{accuracy} = \frac{\operatorname{tr} C}{n}, \quad
        P_k = \frac{C_{kk}}{\sum_i C_{ik}}, \quad
        R_k = \frac{C_{kk}}{\sum_j C_{kj}}, \quad
        F_k = \frac{2 P_k R_k}{P_k + R_k},

    kappa is Cohen's (1960) on the pair and alpha Krippendorff's on the pair with
    ``distance`` (:func:`metrics.krippendorff_alpha`).

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        The coders' labels, ``nan``/``None`` for missing.
    reference : array_like, shape (n_items,)
        The reference label of each item (same order as ``data``'s items), ``nan``/``None``
        where the item has none.
    distance : str, Distance or array_like, default "nominal"
        Alpha's distance (:func:`metrics.distances.get_distance` names).
    domain : sequence, optional
        Every value a label may take, in order; without it, the values that occur in ``data``
        and ``reference`` (see :mod:`metrics.data`).
    replicates : int, default 1000
        Bootstrap replicates; 0 for no intervals.
    seed : int, default 0
        Seed of the replicate streams (the same for every coder and measure).
    confidence : float, default 0.95
    method : {"bca", "percentile"}, default "bca"

    Returns
    -------
    ReferenceAgreement

    Raises
    ------
    ValueError
        If ``reference`` does not have one entry per item, or a label is outside ``domain``.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20(1), 37–46. https://doi.org/10.1177/001316446002000104

    Examples
    --------
    Two coders and a gold standard on six items:

    >>> result = reference_agreement(
    ...     [["a", "a", "b", "b", "a", "b"], ["a", "b", "b", "b", "a", "a"]],
    ...     ["a", "a", "b", "b", "b", "a"], replicates=0)
    >>> [round(c.accuracy, 4) for c in result.coders]
    [0.6667, 0.6667]
    >>> result.coders[0].confusion.tolist()
    [[2, 1], [1, 2]]
    """
    if replicates:
        _check_options(replicates=replicates, seed=seed, confidence=confidence, method=method)
    combined = _with_reference(data, reference, domain)
    codes = combined.codes
    coder_codes, reference_codes = codes[:-1], codes[-1]
    n_values = len(combined.domain)
    coders = tuple(
        _one_coder(
            name,
            coder_codes[index],
            reference_codes,
            combined.domain,
            n_values,
            distance=distance,
            replicates=replicates,
            seed=seed,
            confidence=confidence,
            method=method,
        )
        for index, name in enumerate(combined.coders[:-1])
    )
    return ReferenceAgreement(
        domain=combined.domain,
        coders=coders,
        n_reference_items=int(np.count_nonzero(reference_codes != MISSING)),
        confidence=confidence,
        replicates=replicates,
    )


# -- helpers -------------------------------------------------------------------------------


_REFERENCE = "__reference__"


def _with_reference(
    data: DataLike, reference: npt.ArrayLike | Sequence[Any], domain: Sequence[Hashable] | None
) -> ReliabilityData:
    """The coders' data with the reference as one more (last) coder, on one domain."""
    if isinstance(data, ReliabilityData):
        values = np.empty(data.codes.shape, dtype=object)
        present = data.codes != MISSING
        domain_values = np.empty(len(data.domain), dtype=object)
        domain_values[:] = list(data.domain)
        values[present] = domain_values[data.codes[present]]
        coders: tuple[Hashable, ...] = data.coders
        items: tuple[Hashable, ...] = data.items
        if domain is None and data.domain_declared:
            domain = data.domain
    else:
        values = np.asarray(data, dtype=object)
        if values.ndim != 2:
            raise ValueError("data must be a coders × items matrix (2 dimensions).")
        coders = tuple(range(values.shape[0]))
        items = tuple(range(values.shape[1]))
    listed = list(reference)  # type: ignore[arg-type]
    gold = np.empty(len(listed), dtype=object)
    gold[:] = listed
    if gold.shape[0] != values.shape[1]:
        raise ValueError(
            f"The reference has {gold.shape[0]} labels but the data has {values.shape[1]} "
            "items: give one reference label (or nan) per item."
        )
    stacked = np.vstack([values, gold[None, :]])
    numeric = _as_floats(data, gold) if not isinstance(data, ReliabilityData) else None
    combined = as_reliability_data(stacked if numeric is None else numeric, domain=domain)
    return ReliabilityData(
        combined.codes,
        combined.domain,
        items,
        (*coders, _REFERENCE),
        domain_declared=combined.domain_declared,
    )


def _as_floats(data: Any, gold: NDArray[np.object_]) -> NDArray[np.float64] | None:
    """Numbers stay a float matrix (the library's fast path), else None."""
    matrix = np.asarray(data)
    if matrix.dtype.kind not in "biuf":
        return None
    try:
        reference = np.array([np.nan if v is None else v for v in gold], dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return np.vstack([matrix.astype(np.float64), reference[None, :]])


def _confusion(coder: NDArray[np.intp], gold: NDArray[np.intp], n_values: int) -> NDArray[np.int64]:
    flat = np.bincount(gold * n_values + coder, minlength=n_values * n_values)
    return flat.reshape(n_values, n_values).astype(np.int64)


def _per_category(
    confusion: NDArray[Any],
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], float]:
    """Precision, recall and F1 per category and their macro average, along the last two
    axes (so a stack of confusion matrices gives a stack of results)."""
    confusion = np.asarray(confusion, dtype=np.float64)
    true_positive = np.diagonal(confusion, axis1=-2, axis2=-1)
    predicted = confusion.sum(-2)
    actual = confusion.sum(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        precision = np.where(predicted > 0, true_positive / predicted, np.nan)
        recall = np.where(actual > 0, true_positive / actual, np.nan)
        both = np.nan_to_num(precision) + np.nan_to_num(recall)
        f1 = np.where(both > 0, 2 * np.nan_to_num(precision) * np.nan_to_num(recall) / both, 0.0)
    used = (predicted > 0) | (actual > 0)
    f1 = np.where(used, f1, np.nan)
    with np.errstate(invalid="ignore"):
        macro = np.nansum(f1, axis=-1) / used.sum(-1)
    return precision, recall, f1, macro


def _accuracy_decomposition(agree: NDArray[np.bool_]) -> Decomposition:
    stats = np.column_stack([agree.astype(np.float64), np.ones(agree.size)])

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(totals[..., 1] > 0, totals[..., 0] / totals[..., 1], np.nan)

    return Decomposition("accuracy", stats, finalize)


def _macro_f1_decomposition(
    coder: NDArray[np.intp], gold: NDArray[np.intp], n_values: int
) -> Decomposition:
    """One-hot confusion cell per item (sparse, V² columns); finalize: macro F1."""
    cells = gold * n_values + coder
    stats = sparse.csr_matrix(
        (np.ones(cells.size), (np.arange(cells.size), cells)),
        shape=(cells.size, n_values * n_values),
    )

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        matrices = totals.reshape(*totals.shape[:-1], n_values, n_values)
        return np.asarray(_per_category(matrices)[3], dtype=np.float64)

    return Decomposition("macro_f1", stats, finalize)


def _replicates_together(
    decompositions: dict[str, Decomposition], replicates: int, seed: int
) -> dict[str, NDArray[np.float64]]:
    """Every measure's bootstrap replicates from one draw of resampling weights: the values
    :func:`metrics.bootstrap` gives each of them (same seed, same items), drawn once."""
    n_items = next(iter(decompositions.values())).n_items
    out = {measure: np.empty(replicates, dtype=np.float64) for measure in decompositions}
    for block_start, rows, weights in _weight_blocks(n_items, seed, 0, replicates):
        span = slice(block_start + rows[0], block_start + rows[-1] + 1)
        for measure, decomposition in decompositions.items():
            out[measure][span] = _finalize_rows(decomposition, weights, rows)
    return out


def _one_coder(
    name: Hashable,
    coder_codes: NDArray[np.intp],
    reference_codes: NDArray[np.intp],
    domain: tuple[Hashable, ...],
    n_values: int,
    *,
    distance: DistanceLike,
    replicates: int,
    seed: int,
    confidence: float,
    method: Literal["bca", "percentile"],
) -> CoderAgainstReference:
    both = (coder_codes != MISSING) & (reference_codes != MISSING)
    coder, gold = coder_codes[both], reference_codes[both]
    n_items = int(coder.size)
    confusion = _confusion(coder, gold, n_values)
    precision, recall, f1, _ = _per_category(confusion)
    notes: dict[str, str] = {}
    decompositions: dict[str, Decomposition] = {}
    values = dict.fromkeys(REFERENCE_MEASURES, float("nan"))
    if n_items == 0:
        notes["all"] = "The coder labelled no item the reference labelled."
    else:
        decompositions["accuracy"] = _accuracy_decomposition(coder == gold)
        decompositions["macro_f1"] = _macro_f1_decomposition(coder, gold, n_values)
        pair = ReliabilityData(
            np.vstack([coder, gold]),
            domain,
            tuple(range(n_items)),
            (name, _REFERENCE),
            domain_declared=True,
        )
        for measure, decompose in (
            ("kappa", lambda: decompose_cohen_kappa(pair)),
            ("alpha", lambda: decompose_krippendorff_alpha(pair, distance=distance)),
        ):
            try:
                decompositions[measure] = decompose()
            except ValueError as error:
                notes[measure] = str(error)
        for measure, decomposition in decompositions.items():
            values[measure] = float(decomposition.evaluate())
            if np.isnan(values[measure]):
                notes.setdefault(measure, _UNDEFINED[measure])
    intervals: dict[str, BootstrapResult] = {}
    defined = {m: d for m, d in decompositions.items() if not np.isnan(values[m])}
    if replicates and defined and n_items < 2:
        for measure in defined:
            notes[f"{measure}_interval"] = "An interval needs at least two items."
    elif replicates and defined:
        for measure, replicate_values in _replicates_together(defined, replicates, seed).items():
            try:
                intervals[measure] = bootstrap_combine(
                    defined[measure],
                    [replicate_values],
                    seed=seed,
                    replicates=replicates,
                    confidence=confidence,
                    method=method,
                )
            except ValueError as error:
                notes[f"{measure}_interval"] = str(error)
    return CoderAgainstReference(
        coder=name,
        n_items=n_items,
        accuracy=values["accuracy"],
        kappa=values["kappa"],
        alpha=values["alpha"],
        macro_f1=values["macro_f1"] if n_items else float("nan"),
        confusion=confusion,
        precision=precision,
        recall=recall,
        f1=f1,
        support=confusion.sum(1).astype(np.int64),
        intervals=intervals,
        notes=notes,
    )


_UNDEFINED = {
    "accuracy": "No item in common with the reference.",
    "kappa": "Kappa is undefined: chance agreement is 1 (coder and reference used one "
    "category only).",
    "alpha": "Alpha is undefined: every value of the coder and the reference is the same.",
    "macro_f1": "No category was used.",
}
