"""MACE (Hovy et al. 2013, "Learning Whom to Trust with MACE"): competence and spamming, by EM.

The model: item ``i`` has a true label ``T_i``, uniform over the K labels. Coder ``c``
labelling it is spamming with probability ``1 − θ_c``; a coder who is not spamming gives
the true label, a spammer draws a label from their own spamming distribution ``ξ_c``. So

    P(coder c gives l | T = t) = (1 − θ_c) ξ_c[l] + θ_c [l = t],

a Dawid–Skene confusion matrix with ``K`` free parameters per coder instead of ``K²``; the
competence ``θ_c`` is the probability that the coder is not spamming. A coder who always
gives the same label gets a low ``θ`` and a ``ξ`` peaked on that label.

Training follows the paper's EM: random starts (``n_restarts``, each from a seeded draw),
each run until the log-likelihood per annotation rises by less than ``tol`` or for
``max_iter`` M steps, keeping the run with the best log-likelihood. The M step adds
``smoothing`` to the expected counts before normalising (MACE's ``--smoothing``, default
``0.01 / K``). The paper's variational Bayes training (Beta and Dirichlet priors) is not
implemented.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.quality import _em
from metrics.quality._annotations import AnnotationsLike, as_annotations, gold_codes, id_array


@dataclass(frozen=True, eq=False)
class MaceResult:
    """What :func:`mace` estimated (from the best of its random starts).

    Attributes
    ----------
    items, coders : ndarray
        Identifiers of the rows of ``posterior`` and of ``competence``.
    domain : tuple
        The labels, in the order of the columns.
    posterior : ndarray, shape (n_items, K)
        Posterior distribution of each item's true label (one-hot on gold items).
    competence : ndarray, shape (n_coders,)
        θ_c: probability that the coder is not spamming.
    spamming : ndarray, shape (n_coders, K)
        ξ_c: the distribution a coder draws labels from when spamming.
    log_likelihood : float
        Log-likelihood of the annotations (and gold labels) at the returned parameters.
    iterations : int
        M steps run in the best start.
    converged : bool
        Whether the best start stopped on ``tol`` rather than on ``max_iter``.
    restart_log_likelihoods : tuple of float
        Final log-likelihood of every start, in the order they ran.
    n_annotations : int
    """

    items: NDArray[Any]
    coders: NDArray[Any]
    domain: tuple[Hashable, ...]
    posterior: NDArray[np.float64]
    competence: NDArray[np.float64]
    spamming: NDArray[np.float64]
    log_likelihood: float
    iterations: int
    converged: bool
    restart_log_likelihoods: tuple[float, ...]
    n_annotations: int

    @property
    def label_codes(self) -> NDArray[np.intp]:
        """Each item's most probable label, as an index into ``domain`` (first on ties)."""
        return np.argmax(self.posterior, axis=1).astype(np.intp)

    @property
    def labels(self) -> NDArray[Any]:
        """Each item's most probable label (a value of ``domain``)."""
        return id_array(self.domain)[self.label_codes]


@dataclass(frozen=True)
class _Run:
    competence: NDArray[np.float64]
    spamming: NDArray[np.float64]
    posterior: NDArray[np.float64]
    log_likelihood: float
    iterations: int
    converged: bool


def mace(
    data: AnnotationsLike,
    *,
    domain: Sequence[Hashable] | None = None,
    gold: Mapping[Hashable, Hashable] | None = None,
    n_restarts: int = 10,
    seed: int | None = 0,
    tol: float = 1e-6,
    max_iter: int = 50,
    smoothing: float | None = None,
    noise: float = 0.5,
    init: tuple[npt.ArrayLike, npt.ArrayLike] | None = None,
) -> MaceResult:
    """Estimate each coder's competence and spamming distribution (Hovy et al. 2013).

    Parameters
    ----------
    data : ReliabilityData, (items, coders, labels) or Annotations
        The annotations; three arrays give one annotation per position (long format).
    domain : sequence, optional
        Every label value, in order (default: the labels that occur, sorted).
    gold : mapping, optional
        ``{item: label}`` for items whose true label is known: their posterior stays one-hot
        on it, so a coder who contradicts gold loses competence.
    n_restarts : int, default 10
        Random starts (MACE's ``--restarts``); the best log-likelihood wins.
    seed : int or None, default 0
        Seed of the starts (``numpy.random.default_rng``); the same seed, the same result.
    tol : float, default 1e-6
        A start stops when its log-likelihood per annotation rises by less than this.
    max_iter : int, default 50
        At most this many M steps per start (MACE's ``--iterations``).
    smoothing : float, optional
        Added to every expected count before normalising; default ``0.01 / K``.
    noise : float, default 0.5
        Starting values are ``U(1, 1 + noise)`` draws, normalised.
    init : (competence, spamming), optional
        One start from these values (shapes ``(n_coders,)`` and ``(n_coders, K)``) instead
        of ``n_restarts`` random ones: to continue from an earlier estimate.

    Returns
    -------
    MaceResult

    Raises
    ------
    ValueError
        For no annotations, a coder labelling an item twice, a label outside ``domain``, bad
        gold labels, bad options or an ``init`` of the wrong shape.

    Examples
    --------
    >>> items = [1, 1, 1, 2, 2, 2, 3, 3, 3]
    >>> coders = ["ann", "bob", "spam"] * 3
    >>> labels = ["x", "x", "y", "y", "y", "y", "x", "x", "y"]
    >>> result = mace((items, coders, labels))
    >>> result.labels.tolist(), int(np.argmin(result.competence))
    (['x', 'y', 'x'], 2)
    """
    annotations = as_annotations(data, domain=domain)
    k = annotations.n_values
    smoothing = 0.01 / k if smoothing is None else smoothing
    _em.check_iteration_options(tol, max_iter, smoothing)
    if int(n_restarts) != n_restarts or n_restarts < 1:
        raise ValueError(f"n_restarts must be a whole number of at least 1, not {n_restarts!r}.")
    if not np.isfinite(noise) or noise < 0:
        raise ValueError(f"noise must be a non-negative number, not {noise!r}.")
    model = _em.design(annotations, *gold_codes(annotations, gold))
    if init is not None:
        starts = [_checked_init(init, annotations.n_coders, k)]
    else:
        rng = np.random.default_rng(seed)
        starts = [_random_start(rng, annotations.n_coders, k, noise) for _ in range(n_restarts)]
    # Keep only the best start's posterior: one items × K array at a time, not one per start.
    best = _run(model, *starts[0], tol=tol, max_iter=max_iter, smoothing=smoothing)
    restart_log_likelihoods = [best.log_likelihood]
    for start in starts[1:]:
        run = _run(model, *start, tol=tol, max_iter=max_iter, smoothing=smoothing)
        restart_log_likelihoods.append(run.log_likelihood)
        if run.log_likelihood > best.log_likelihood:
            best = run
    return MaceResult(
        items=annotations.items,
        coders=annotations.coders,
        domain=annotations.domain,
        posterior=best.posterior,
        competence=best.competence,
        spamming=best.spamming,
        log_likelihood=best.log_likelihood,
        iterations=best.iterations,
        converged=best.converged,
        restart_log_likelihoods=tuple(restart_log_likelihoods),
        n_annotations=annotations.n_annotations,
    )


def _run(
    model: _em.Design,
    competence: NDArray[np.float64],
    spamming: NDArray[np.float64],
    *,
    tol: float,
    max_iter: int,
    smoothing: float,
) -> _Run:
    """EM from one start: E step, then (M step, E step) until converged or ``max_iter``."""
    log_prior = np.full(model.n_values, -np.log(model.n_values))
    posterior, log_likelihood = _em.e_step(model, _log_p(competence, spamming), log_prior)
    converged = False
    iterations = 0
    while iterations < max_iter and not converged:
        competence, spamming = _m_step(model, posterior, competence, spamming, smoothing)
        posterior, current = _em.e_step(model, _log_p(competence, spamming), log_prior)
        converged = _em.converged(log_likelihood, current, model.n_annotations, tol)
        log_likelihood = current
        iterations += 1
    return _Run(competence, spamming, posterior, log_likelihood, iterations, converged)


def _log_p(competence: NDArray[np.float64], spamming: NDArray[np.float64]) -> NDArray[np.float64]:
    """``log((1 − θ_c) ξ_c[l] + θ_c [l = t])`` at row ``c·K + l``, column ``t``."""
    n_coders, k = spamming.shape
    spam = (1.0 - competence)[:, None] * spamming
    table = np.repeat(spam[:, :, None], k, axis=2)
    table[:, np.arange(k), np.arange(k)] += competence[:, None]
    return np.log(table.reshape(n_coders * k, k))


def _m_step(
    model: _em.Design,
    posterior: NDArray[np.float64],
    competence: NDArray[np.float64],
    spamming: NDArray[np.float64],
    smoothing: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """New competence and spamming distributions from the E step's posterior.

    An annotation ``l`` by coder c on item i was knowing (not spamming) with probability
    ``P(T_i = l) · θ_c / ((1 − θ_c) ξ_c[l] + θ_c)`` under the parameters of that E step; the
    rest of it counts towards the coder's spamming on ``l``.
    """
    counts = _em.expected_counts(model, posterior)
    given = counts.sum(axis=2)
    agreeing = np.diagonal(counts, axis1=1, axis2=2)
    spam = (1.0 - competence)[:, None] * spamming
    knowing = agreeing * (competence[:, None] / (spam + competence[:, None]))
    spammed = given - knowing
    knowing_total = knowing.sum(axis=1)
    new_competence = (knowing_total + smoothing) / (given.sum(axis=1) + 2 * smoothing)
    new_spamming = (spammed + smoothing) / (
        spammed.sum(axis=1, keepdims=True) + model.n_values * smoothing
    )
    return new_competence, new_spamming


def _random_start(
    rng: np.random.Generator, n_coders: int, k: int, noise: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    knowing_spamming = rng.uniform(1.0, 1.0 + noise, size=(n_coders, 2))
    spamming = rng.uniform(1.0, 1.0 + noise, size=(n_coders, k))
    competence = knowing_spamming[:, 0] / knowing_spamming.sum(axis=1)
    return competence, spamming / spamming.sum(axis=1, keepdims=True)


def _checked_init(
    init: tuple[npt.ArrayLike, npt.ArrayLike], n_coders: int, k: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    competence = np.asarray(init[0], dtype=np.float64)
    spamming = np.asarray(init[1], dtype=np.float64)
    if competence.shape != (n_coders,) or spamming.shape != (n_coders, k):
        raise ValueError(
            f"init needs competence of shape ({n_coders},) and spamming of shape "
            f"({n_coders}, {k}); got {competence.shape} and {spamming.shape}."
        )
    if np.any((competence <= 0) | (competence >= 1)) or np.any(spamming <= 0):
        raise ValueError("init: competence must lie strictly between 0 and 1, spamming above 0.")
    return competence, spamming / spamming.sum(axis=1, keepdims=True)
