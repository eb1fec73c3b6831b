"""The sparse E and M steps that Dawid–Skene and MACE share.

Both models say how likely coder ``c`` is to give label ``l`` when the true label is ``t``:
a ``(n_coders · K) × K`` table ``log_p[c·K + l, t]`` (a free confusion matrix for
Dawid–Skene; ``(1 − θ_c) ξ_c[l] + θ_c [l = t]`` for MACE). With the annotations as a sparse
items × (coder, label) incidence matrix ``A`` (one 1 per annotation):

- E step: ``A @ log_p`` sums, for every item and every candidate truth, the log-probabilities
  of the labels it received; plus the log prior and a softmax over the K candidates this is
  the posterior of the true label, and the log-sum-exp is the item's log-likelihood.
- M step: ``Aᵀ @ posterior`` is, for every (coder, given label) and every truth ``t``, the
  expected number of times the coder gave that label to an item whose truth is ``t``: the
  sufficient statistics of both models.

Both are sparse–dense products over the annotation list: time and memory linear in the
number of annotations, no coders × items matrix, no Python loop over items.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from metrics.quality._annotations import Annotations


@dataclass(frozen=True, eq=False)
class Design:
    """The incidence matrix of the annotations, with the gold anchors.

    ``by_item`` is items × (coder · K + label), row-major. ``gold_item``/``gold_label`` are
    item and label codes of the items whose label is known.
    """

    by_item: sp.csr_matrix
    n_coders: int
    n_values: int
    n_annotations: int
    gold_item: NDArray[np.intp]
    gold_label: NDArray[np.intp]


def design(
    annotations: Annotations, gold_item: NDArray[np.intp], gold_label: NDArray[np.intp]
) -> Design:
    """Build the incidence matrix of ``annotations`` (one pass over the list)."""
    k = annotations.n_values
    column = annotations.coder * k + annotations.label
    ones = np.ones(annotations.n_annotations, dtype=np.float64)
    shape = (annotations.n_items, annotations.n_coders * k)
    by_item = sp.csr_matrix((ones, (annotations.item, column)), shape=shape)
    return Design(
        by_item=by_item,
        n_coders=annotations.n_coders,
        n_values=k,
        n_annotations=annotations.n_annotations,
        gold_item=gold_item,
        gold_label=gold_label,
    )


def vote_shares(annotations: Annotations) -> NDArray[np.float64]:
    """``(n_items, K)``: the share of each item's labels that are ``k`` (a soft majority vote)."""
    k = annotations.n_values
    counts = np.bincount(
        annotations.item * k + annotations.label, minlength=annotations.n_items * k
    ).reshape(annotations.n_items, k)
    totals = counts.sum(axis=1, keepdims=True)
    shares = np.divide(counts, totals, out=np.full(counts.shape, 1.0 / k), where=totals > 0)
    return shares


def anchor(posterior: NDArray[np.float64], model: Design) -> NDArray[np.float64]:
    """Set the gold items' rows to their known label, in place."""
    if model.gold_item.size:
        posterior[model.gold_item] = 0.0
        posterior[model.gold_item, model.gold_label] = 1.0
    return posterior


def e_step(
    model: Design, log_p: NDArray[np.float64], log_prior: NDArray[np.float64]
) -> tuple[NDArray[np.float64], float]:
    """Posterior of every item's true label, and the log-likelihood of the data.

    Parameters
    ----------
    log_p : ndarray, shape (n_coders · K, K)
        ``log P(coder c gives l | truth t)`` at row ``c·K + l``, column ``t``.
    log_prior : ndarray, shape (K,)
        Log prior of the true label.

    Returns
    -------
    posterior : ndarray, shape (n_items, K)
        Rows sum to 1; gold items are one-hot on their known label.
    log_likelihood : float
        ``Σ_items log Σ_t P(t) Π P(label | t)``; a gold item contributes the joint
        probability of its known label and its annotations instead.
    """
    joint = np.asarray(model.by_item @ log_p)
    joint += log_prior
    gold_joint = joint[model.gold_item, model.gold_label]
    # Reductions over K columns one column at a time: numpy reduces a short inner axis of a
    # long array several times slower than it combines K long columns.
    columns = range(joint.shape[1])
    peak = joint[:, 0].copy()
    for k in columns[1:]:
        np.maximum(peak, joint[:, k], out=peak)
    joint -= peak[:, None]
    np.exp(joint, out=joint)
    total = joint[:, 0].copy()
    for k in columns[1:]:
        total += joint[:, k]
    joint /= total[:, None]
    item_log_likelihood = np.log(total) + peak
    log_likelihood = float(item_log_likelihood.sum())
    if model.gold_item.size:
        log_likelihood += float(gold_joint.sum() - item_log_likelihood[model.gold_item].sum())
    return anchor(joint, model), log_likelihood


def expected_counts(model: Design, posterior: NDArray[np.float64]) -> NDArray[np.float64]:
    """``(n_coders, K given, K true)``: expected times coder c gave l to an item of truth t."""
    # Aᵀ is a column-major view of A: the product streams the posterior row by row and adds
    # into a small (coders · K) × K table, several times faster than a row-major copy of Aᵀ.
    counts = np.asarray(model.by_item.T @ posterior)
    return counts.reshape(model.n_coders, model.n_values, model.n_values)


def converged(previous: float, current: float, n_annotations: int, tol: float) -> bool:
    """True when the log-likelihood per annotation rose by less than ``tol``."""
    return bool(current - previous < tol * n_annotations)


def check_iteration_options(tol: float, max_iter: int, smoothing: float) -> None:
    """Refuse a negative tolerance, an iteration cap below 1, a smoothing that is not positive."""
    if not np.isfinite(tol) or tol < 0:
        raise ValueError(f"tol must be a non-negative number, not {tol!r}.")
    if int(max_iter) != max_iter or max_iter < 1:
        raise ValueError(f"max_iter must be a whole number of at least 1, not {max_iter!r}.")
    if not np.isfinite(smoothing) or smoothing <= 0:
        raise ValueError(
            f"smoothing must be positive (it keeps probabilities above zero), not {smoothing!r}."
        )
