"""Dawid & Skene (1979): each coder's confusion matrix and each item's true label, by EM.

The model: item ``i`` has a true label ``t`` drawn from class priors ``π``; coder ``c``,
labelling it, gives ``l`` with probability ``e_c[t, l]`` (row ``t`` of the coder's confusion
matrix), independently of the other coders given ``t``. EM alternates

- E step: the posterior of each item's true label, ``∝ π_t Π_annotations e_c[t, l]``;
- M step: ``π`` = mean posterior; ``e_c[t, l]`` = expected count of (truth t, label l) for
  coder c, normalised over ``l``,

from a soft majority vote (each item's vote shares, as Dawid & Skene and crowd-kit start)
until the log-likelihood per annotation rises by less than ``tol`` or ``max_iter`` E steps.

Smoothing: every expected count (each cell of each confusion matrix, each class count) gets
``smoothing`` added before it is normalised, so no probability is ever exactly zero (a zero
would veto a label for ever: one unexpected annotation would rule out the truth). The
default, 1e-10, changes nothing else, as crowd-kit's floor of 1e-10 on the same counts; a
larger value (e.g. 1, Laplace's rule) is a Dirichlet prior that pulls the confusion matrices
of coders with few annotations towards uniform.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from metrics.quality import _em
from metrics.quality._annotations import AnnotationsLike, as_annotations, gold_codes, id_array


@dataclass(frozen=True, eq=False)
class DawidSkeneResult:
    """What :func:`dawid_skene` estimated.

    Attributes
    ----------
    items, coders : ndarray
        Identifiers of the rows of ``posterior`` and of ``confusion``.
    domain : tuple
        The labels, in the order of the columns.
    posterior : ndarray, shape (n_items, K)
        Posterior distribution of each item's true label (one-hot on gold items).
    priors : ndarray, shape (K,)
        Class priors π.
    confusion : ndarray, shape (n_coders, K, K)
        ``confusion[c, t, l]``: probability that coder c gives label l to an item whose true
        label is t (each row sums to 1).
    log_likelihood : float
        Log-likelihood of the annotations (and of the gold labels) at the last E step.
    iterations : int
        E steps run.
    converged : bool
        Whether the log-likelihood per annotation rose by less than ``tol`` before
        ``max_iter`` ran out.
    n_annotations : int
    """

    items: NDArray[Any]
    coders: NDArray[Any]
    domain: tuple[Hashable, ...]
    posterior: NDArray[np.float64]
    priors: NDArray[np.float64]
    confusion: NDArray[np.float64]
    log_likelihood: float
    iterations: int
    converged: bool
    n_annotations: int

    @property
    def label_codes(self) -> NDArray[np.intp]:
        """Each item's most probable label, as an index into ``domain`` (first on ties)."""
        return np.argmax(self.posterior, axis=1).astype(np.intp)

    @property
    def labels(self) -> NDArray[Any]:
        """Each item's most probable label (a value of ``domain``)."""
        return id_array(self.domain)[self.label_codes]

    @property
    def coder_accuracy(self) -> NDArray[np.float64]:
        """``(n_coders,)``: chance that a coder's label is the true one, ``Σ_t π_t e_c[t, t]``."""
        diagonal = np.diagonal(self.confusion, axis1=1, axis2=2)
        return np.asarray(diagonal @ self.priors, dtype=np.float64)


def dawid_skene(
    data: AnnotationsLike,
    *,
    domain: Sequence[Hashable] | None = None,
    gold: Mapping[Hashable, Hashable] | None = None,
    tol: float = 1e-6,
    max_iter: int = 100,
    smoothing: float = 1e-10,
) -> DawidSkeneResult:
    """Estimate each coder's confusion matrix and each item's true label (Dawid & Skene 1979).

    Parameters
    ----------
    data : ReliabilityData, (items, coders, labels) or Annotations
        The annotations; three arrays give one annotation per position (long format).
    domain : sequence, optional
        Every label value, in order (default: the labels that occur, sorted).
    gold : mapping, optional
        ``{item: label}`` for items whose true label is known: their posterior stays one-hot
        on it throughout, so they anchor the confusion matrices.
    tol : float, default 1e-6
        Stop when the log-likelihood per annotation rises by less than this.
    max_iter : int, default 100
        At most this many E steps.
    smoothing : float, default 1e-10
        Added to every expected count before normalising (see the module docstring).

    Returns
    -------
    DawidSkeneResult

    Raises
    ------
    ValueError
        For no annotations, a coder labelling an item twice, a label outside ``domain``, a
        gold item without annotations or with a label outside the domain, or bad options.

    Examples
    --------
    >>> result = dawid_skene((["a", "a", "a", "b", "b", "b"], [1, 2, 3, 1, 2, 3],
    ...                       ["x", "x", "y", "y", "y", "y"]))
    >>> result.labels.tolist(), result.converged
    (['x', 'y'], True)
    """
    _em.check_iteration_options(tol, max_iter, smoothing)
    annotations = as_annotations(data, domain=domain)
    model = _em.design(annotations, *gold_codes(annotations, gold))
    posterior = _em.anchor(_em.vote_shares(annotations), model)
    log_likelihood = -np.inf
    converged = False
    iterations = 0
    while iterations < max_iter and not converged:
        priors, confusion = _m_step(model, posterior, smoothing)
        posterior, current = _em.e_step(model, _log_p(confusion), np.log(priors))
        converged = _em.converged(log_likelihood, current, model.n_annotations, tol)
        log_likelihood = current
        iterations += 1
    return DawidSkeneResult(
        items=annotations.items,
        coders=annotations.coders,
        domain=annotations.domain,
        posterior=posterior,
        priors=priors,
        confusion=confusion,
        log_likelihood=log_likelihood,
        iterations=iterations,
        converged=converged,
        n_annotations=annotations.n_annotations,
    )


def _m_step(
    model: _em.Design, posterior: NDArray[np.float64], smoothing: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Class priors and confusion matrices ``[coder, truth, label]`` from the posterior."""
    class_counts = posterior.sum(axis=0) + smoothing
    priors = class_counts / class_counts.sum()
    counts = _em.expected_counts(model, posterior).transpose(0, 2, 1) + smoothing
    confusion = counts / counts.sum(axis=2, keepdims=True)
    return priors, confusion


def _log_p(confusion: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log e_c[t, l]`` at row ``c·K + l``, column ``t`` (the E step's layout)."""
    n_coders, k, _ = confusion.shape
    return np.log(confusion.transpose(0, 2, 1).reshape(n_coders * k, k))
