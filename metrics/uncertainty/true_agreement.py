"""Confidence intervals for the proportion of *true* agreement (Krenn, Evert & Zinsmeister 2004).

The dual model splits the n items of a 2 × 2 table of two coders into C₁, m items on which
the coders truly agree (off-diagonal cells 0, m₊ positive and m − m₊ negative), and C₂, the
other n − m items, on which the coders are independent and agree only by chance. The
interval holds every m/n for which this split explains the table, i.e. the test of
independence in C₂ does not reject at ``1 − confidence``:

    C₂ = [[n₁₁ − m₊, n₁₂], [n₂₁, n₂₂ − (m − m₊)]]

- ``model="conservative"`` (KEZ04 §5.1): m is kept if *some* admissible m₊ in
  ``[max(0, m − n₂₂), min(m, n₁₁)]`` leaves C₂ consistent with chance by Fisher's exact test.
  (The paper prints ``m₊ ≤ n₁₁``; ``m₊ ≤ m`` is implicit.)
- ``model="homogeneity"`` (KEZ04 §5.2): C₁ and C₂ hold the same share of positives, so
  ``m₊ = π·m`` (not rounded) with ``π = (p₁· + p·₁)/2``. Each coder's positive share in C₂ is
  ``pA₂ = (n₁· − π m)/(n − m)``, ``pB₂ = (n·₁ − π m)/(n − m)``; chance agreement in C₂ is
  ``p_c = pA₂ pB₂ + (1 − pA₂)(1 − pB₂)``, and the ``n_o − m`` agreements in C₂ are tested
  against Binomial(n − m, p_c). An m for which a share falls outside [0, 1] is not admissible.

The paper states neither the confidence level, the two-sided rule nor the feasibility check;
the ones that reproduce every printed digit of its Tables 1 and 2 (docs/references.md,
``kez2004-tables``) are the defaults:
``confidence=0.95`` and ``rule="paper"``, the doubled smaller tail
``p = min(1, 2·min(P[X ≤ x], P[X ≥ x]))``. ``rule="minlike"`` is the minimum-likelihood
two-sided p of ``scipy.stats.fisher_exact`` and ``scipy.stats.binomtest`` (and R); it moves
the ends by a few items. Level, test and rule are recorded in the result.

The reported interval runs from the smallest to the largest accepted m, as the paper reports
it. The accepted set is an interval under the "paper" rule in every table checked; under
"minlike" it can have an isolated hole near an end (the minimum-likelihood p is not monotone),
which the interval spans. The homogeneity model tests every m at once; the conservative
model finds the two ends by bisection (then probes a few m beyond each end for holes),
testing for each m only the m₊ where C₂ is closest to independence (the odds ratio
``(n₁₁ − m₊)(n₂₂ − m + m₊) / (n₁₂ n₂₁)`` crosses 1, or is largest when it cannot reach 1),
their neighbours and the ends of the admissible range; on 2,400 random tables this found the
same ends as testing every (m, m₊).

References
----------
Krenn, B., Evert, S. & Zinsmeister, H. (2004). Determining intercoder agreement for a
collocation identification task. *Proceedings of KONVENS 2004*, §5.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import stats

from metrics.data import DataLike, as_reliability_data

Model = Literal["conservative", "homogeneity"]
Rule = Literal["paper", "minlike"]

# Relative tolerances scipy uses when comparing probabilities for the minimum-likelihood rule.
_FISHER_RTOL = 1e-14
_BINOM_RTOL = 1e-7
_COARSE_GRID = 65
_PROBE = 8


@dataclass(frozen=True)
class TrueAgreementInterval:
    """A dual-model confidence interval for the proportion of true agreement m/n.

    Attributes
    ----------
    low, high : float or None
        Ends of the interval, ``m_low / n`` and ``m_high / n``. Both are None when no m is
        accepted (the coders agree significantly *less* than chance even with m = 0).
    confidence : float
        Confidence level, e.g. 0.95 (test size ``1 − confidence``).
    model : {"conservative", "homogeneity"}
    test : {"fisher", "binomial"}
        The test of chance agreement in C₂ (Fisher for conservative, binomial for homogeneity).
    rule : {"paper", "minlike"}
        The two-sided p-value rule.
    n : int
        Number of items in the table.
    m_low, m_high : int or None
        Ends of the interval as numbers of items with true agreement.
    observed_agreement : float
        Surface agreement ``p_o = (n₁₁ + n₂₂) / n``, the largest possible m/n.
    """

    low: float | None
    high: float | None
    confidence: float
    model: str
    test: str
    rule: str
    n: int
    m_low: int | None
    m_high: int | None
    observed_agreement: float

    @property
    def is_empty(self) -> bool:
        """True when no amount of true agreement is consistent with the table."""
        return self.m_low is None

    @property
    def width(self) -> float | None:
        """``high − low`` (KEZ04's "interval size", as a proportion), None if empty."""
        if self.low is None or self.high is None:
            return None
        return self.high - self.low


@dataclass(frozen=True)
class PairTrueAgreement:
    """The true-agreement interval of one coder pair for one category against the rest.

    Attributes
    ----------
    coder_a, coder_b : hashable
        The two coders (rows and columns of the 2 × 2 table).
    positive : hashable
        The category counted as positive; every other category is negative.
    table : tuple of int
        ``(n₁₁, n₁₂, n₂₁, n₂₂)`` over the items both coders labelled.
    interval : TrueAgreementInterval
    """

    coder_a: Hashable
    coder_b: Hashable
    positive: Hashable
    table: tuple[int, int, int, int]
    interval: TrueAgreementInterval


# -- two-sided p-values, vectorised -----------------------------------------------------

_Accepts = Callable[[NDArray[np.int64]], NDArray[np.bool_]]


class _HasLogPmf(Protocol):
    def logpmf(self, k: NDArray[np.int64]) -> NDArray[np.float64]: ...


def _binary_search_first(
    predicate_at: NDArray[np.bool_],
    lo: NDArray[np.int64],
    hi: NDArray[np.int64],
    predicate: _Predicate,
) -> NDArray[np.int64]:
    """Smallest k in (lo, hi] with ``predicate(k)``, given it is False at lo and True at hi.

    ``predicate_at`` marks the entries to search; the others are returned as ``hi``.
    Parameters are int arrays of one shape; ``predicate`` maps k to a bool array.
    """
    bad, good = lo.copy(), hi.copy()
    active = predicate_at & (good - bad > 1)
    while np.any(active):
        mid = (bad + good) // 2
        ok = predicate(mid)
        good = np.where(active & ok, mid, good)
        bad = np.where(active & ~ok, mid, bad)
        active = active & (good - bad > 1)
    return good


class _Predicate:
    """``logpmf(k) <= threshold`` for a frozen discrete distribution with array parameters."""

    def __init__(self, dist: _HasLogPmf, threshold: NDArray[np.float64]) -> None:
        self.dist = dist
        self.threshold = threshold

    def __call__(self, k: NDArray[np.int64]) -> NDArray[np.bool_]:
        return np.asarray(self.dist.logpmf(k) <= self.threshold)


def _two_sided_p(
    dist: stats.rv_discrete,
    x: NDArray[np.int64],
    support_lo: NDArray[np.int64],
    support_hi: NDArray[np.int64],
    mode: NDArray[np.int64],
    rule: str,
    rtol: float,
) -> NDArray[np.float64]:
    """Two-sided p-value of ``x`` under a unimodal discrete distribution.

    Parameters
    ----------
    dist : frozen scipy discrete distribution with array parameters of shape S
    x, support_lo, support_hi, mode : int arrays of shape S
    rule : {"paper", "minlike"}
        "paper": ``min(1, 2·min(P[X ≤ x], P[X ≥ x]))``. "minlike": the total probability of
        the values no more likely than x (within ``rtol``), found by bisection on the far
        side of the mode as scipy does.
    rtol : float
        Relative tolerance of the "minlike" comparison.

    Returns
    -------
    float array of shape S, in [0, 1].
    """
    lower = np.asarray(dist.cdf(x), dtype=np.float64)
    upper = np.asarray(dist.sf(x - 1), dtype=np.float64)
    if rule == "paper":
        return np.minimum(1.0, 2.0 * np.minimum(lower, upper))
    threshold = np.asarray(dist.logpmf(x), dtype=np.float64) + np.log1p(rtol)
    predicate = _Predicate(dist, threshold)
    at_mode = predicate(mode)
    left = (x < mode) & ~at_mode
    right = (x > mode) & ~at_mode
    # x left of the mode: the far tail starts at the first k > mode with pmf(k) <= pmf(x).
    far_left = left & predicate(support_hi)
    first = _binary_search_first(far_left, mode, support_hi, predicate)
    tail_right = np.where(far_left, dist.sf(first - 1), 0.0)
    # x right of the mode: mirror the search by negating k.
    mirrored = _Predicate(_Negated(dist), threshold)
    far_right = right & predicate(support_lo)
    last = -_binary_search_first(far_right, -mode, -support_lo, mirrored)
    tail_left = np.where(far_right, dist.cdf(last), 0.0)
    p = np.where(left, lower + tail_right, np.where(right, upper + tail_left, 1.0))
    return np.minimum(1.0, np.where(at_mode, 1.0, p))


class _Negated:
    """A view of a distribution's logpmf at ``-k`` (to search left of the mode)."""

    def __init__(self, dist: stats.rv_discrete) -> None:
        self.dist = dist

    def logpmf(self, k: NDArray[np.int64]) -> NDArray[np.float64]:
        return np.asarray(self.dist.logpmf(-k), dtype=np.float64)


def fisher_p_values(
    n11: npt.ArrayLike,
    n12: npt.ArrayLike,
    n21: npt.ArrayLike,
    n22: npt.ArrayLike,
    *,
    rule: Rule = "paper",
) -> NDArray[np.float64]:
    """Two-sided Fisher exact test p-values for many 2 × 2 tables at once.

    Parameters
    ----------
    n11, n12, n21, n22 : array_like of int, broadcastable to one shape S
        The cells ``[[n11, n12], [n21, n22]]``.
    rule : {"paper", "minlike"}, default "paper"
        "paper": twice the smaller hypergeometric tail, capped at 1 (reproduces Krenn et al.
        2004). "minlike": ``scipy.stats.fisher_exact``'s minimum-likelihood p.

    Returns
    -------
    ndarray of float, shape S. An empty table has p = 1.

    Examples
    --------
    Krenn et al. (2004), Figure 3, the chance part C₂ of the split m = 40, m₊ = 25:

    >>> round(float(fisher_p_values(15, 15, 20, 10)), 6)
    0.294912
    """
    a, b, c, d = (np.asarray(v, dtype=np.int64) for v in np.broadcast_arrays(n11, n12, n21, n22))
    total = a + b + c + d
    row, col = a + b, a + c
    safe_total = np.maximum(total, 1)
    dist = stats.hypergeom(safe_total, row, col)
    lo = np.maximum(0, col - (safe_total - row))
    hi = np.minimum(row, col)
    mode = np.clip(((col + 1) * (row + 1)) // (safe_total + 2), lo, hi)
    p = _two_sided_p(dist, a, lo, hi, mode, rule, _FISHER_RTOL)
    return np.where(total == 0, 1.0, p)


def binomial_p_values(
    x: npt.ArrayLike,
    trials: npt.ArrayLike,
    p: npt.ArrayLike,
    *,
    rule: Rule = "paper",
) -> NDArray[np.float64]:
    """Two-sided exact binomial test p-values, vectorised.

    Parameters
    ----------
    x, trials : array_like of int, broadcastable to one shape S
        Successes and trials (``0 <= x <= trials``).
    p : array_like of float in [0, 1], broadcastable to S
        Success probability under the null hypothesis.
    rule : {"paper", "minlike"}, default "paper"
        As in :func:`fisher_p_values`; "minlike" is ``scipy.stats.binomtest``'s p.

    Returns
    -------
    ndarray of float, shape S. Zero trials give p = 1.

    Examples
    --------
    Krenn et al. (2004), Figure 2 under homogeneity at m = 40 (derived; docs/references.md,
    ``kez2004-figure2``):
    25 agreements in 60 items, p_c = pA₂ pB₂ + (1 − pA₂)(1 − pB₂) with pA₂ = 32/60,
    pB₂ = 37/60.

    >>> pc = 32 / 60 * 37 / 60 + 28 / 60 * 23 / 60
    >>> round(float(binomial_p_values(25, 60, pc)), 6)
    0.199411
    """
    xs, ns, ps = np.broadcast_arrays(
        np.asarray(x, dtype=np.int64), np.asarray(trials, dtype=np.int64), np.asarray(p)
    )
    ps = ps.astype(np.float64)
    safe_n = np.maximum(ns, 1)
    dist = stats.binom(safe_n, ps)
    mode = np.clip(np.floor((safe_n + 1) * ps).astype(np.int64), 0, safe_n)
    # With two modes (integer (n + 1)p) the upper one is what floor gives; both work.
    result = _two_sided_p(dist, xs, np.zeros_like(ns), safe_n, mode, rule, _BINOM_RTOL)
    return np.where(ns == 0, 1.0, result)


# -- the dual model ----------------------------------------------------------------------


@dataclass(frozen=True)
class _Table:
    n11: int
    n12: int
    n21: int
    n22: int

    @property
    def n(self) -> int:
        return self.n11 + self.n12 + self.n21 + self.n22

    @property
    def agreements(self) -> int:
        return self.n11 + self.n22


def _as_table(table: npt.ArrayLike) -> _Table:
    array = np.asarray(table)
    if array.shape != (2, 2):
        raise ValueError(
            f"A true-agreement interval needs a 2 × 2 table of two coders; got shape "
            f"{array.shape}. Use true_agreement_by_pair for more coders or categories."
        )
    if not np.all(np.isfinite(array.astype(float))) or np.any(array < 0):
        raise ValueError("The 2 × 2 table must hold non-negative counts.")
    if not np.all(np.equal(np.mod(array, 1), 0)):
        raise ValueError("The 2 × 2 table must hold whole counts.")
    counts = [int(v) for v in array.ravel()]
    if sum(counts) == 0:
        raise ValueError("The 2 × 2 table is empty: at least one item is required.")
    return _Table(*counts)


def _conservative_candidates(t: _Table, m: NDArray[np.int64]) -> NDArray[np.int64]:
    """Values of ``a = n₁₁ − m₊`` worth testing for each m, shape (len(m), K).

    For fixed m the diagonal of C₂ sums to ``S = n_o − m`` and its odds ratio is
    ``a (S − a) / (n₁₂ n₂₁)``: it equals 1 at the roots of ``a (S − a) = n₁₂ n₂₁`` and is
    largest at ``S / 2``. The p-value of C₂ is largest near a root (or near ``S / 2`` when
    the ratio stays below 1), or at an end of the admissible range when those lie outside;
    a few neighbours of each are included because the minimum-likelihood p wobbles.
    """
    s = (t.agreements - m).astype(np.float64)
    a_lo = np.maximum(0, t.n11 - m)
    a_hi = np.minimum(t.n11, t.agreements - m)
    root_gap = np.sqrt(np.maximum(s * s / 4 - t.n12 * t.n21, 0.0))
    centres = np.stack([s / 2 - root_gap, s / 2 + root_gap, s / 2], axis=-1)
    offsets = np.arange(-2, 4)
    near = np.floor(centres)[..., None] + offsets
    ends = np.stack([a_lo + step for step in range(3)] + [a_hi - step for step in range(3)])
    candidates = np.concatenate([near.reshape(len(m), -1), ends.T.astype(float)], axis=1)
    candidates = candidates.astype(np.int64)
    return np.clip(candidates, a_lo[:, None], a_hi[:, None])


def _conservative_max_p(t: _Table, m: NDArray[np.int64], rule: Rule) -> NDArray[np.float64]:
    """Largest C₂ Fisher p over the candidate splits, for each m (1-D int array)."""
    a = _conservative_candidates(t, m)
    mm = np.broadcast_to(m[:, None], a.shape)
    p = fisher_p_values(a, t.n12, t.n21, t.agreements - mm - a, rule=rule)
    return np.asarray(p.max(axis=1), dtype=np.float64)


def _conservative_ends(t: _Table, alpha: float, rule: Rule) -> tuple[int | None, int | None]:
    """Smallest and largest accepted m of the conservative model."""
    top = t.agreements

    def accepted(m: NDArray[np.int64]) -> NDArray[np.bool_]:
        return np.asarray(_conservative_max_p(t, m, rule) >= alpha)

    grid = np.unique(np.linspace(0, top, min(_COARSE_GRID, top + 1)).round().astype(np.int64))
    ok = accepted(grid)
    if not ok.any():
        grid = np.arange(top + 1, dtype=np.int64)
        ok = accepted(grid)
        if not ok.any():
            return None, None
    inside_lo = int(grid[ok].min())
    inside_hi = int(grid[ok].max())
    low = _bisect_edge(accepted, inside_lo, -1)
    high = _bisect_edge(accepted, inside_hi, top + 1)
    return _probe_beyond(accepted, low, -1, 0), _probe_beyond(accepted, high, 1, top)


def _probe_beyond(accepted: _Accepts, edge: int, step: int, limit: int) -> int:
    """Move ``edge`` outwards over isolated rejected m (the minimum-likelihood p wobbles),
    so that the result spans the smallest to the largest accepted m, as for homogeneity."""
    while edge != limit:
        beyond = edge + step * np.arange(1, _PROBE + 1, dtype=np.int64)
        beyond = beyond[(beyond >= min(limit, edge)) & (beyond <= max(limit, edge))]
        ok = accepted(beyond)
        if not ok.any():
            break
        edge = int(beyond[ok][-1])
    return edge


def _bisect_edge(
    accepted: _Accepts,
    inside: int,
    outside: int,
) -> int:
    """The accepted m nearest ``outside``, given ``inside`` is accepted and the set is an
    interval; ``outside`` is one step beyond the range of m (never tested)."""
    good, bad = inside, outside
    while abs(good - bad) > 1:
        mid = (good + bad) // 2
        if bool(accepted(np.array([mid], dtype=np.int64))[0]):
            good = mid
        else:
            bad = mid
    return good


def _homogeneity_ends(t: _Table, alpha: float, rule: Rule) -> tuple[int | None, int | None]:
    """Smallest and largest accepted m of the homogeneity model (every m tested at once)."""
    n = t.n
    row1, col1 = t.n11 + t.n12, t.n11 + t.n21
    m = np.arange(t.agreements + 1, dtype=np.int64)
    rest = n - m
    # pA₂ = (row1 − π m)/(n − m) in [0, 1] with π = (row1 + col1)/(2n), in integers:
    # 0 <= 2n·row1 − (row1 + col1)·m <= 2n·(n − m), and the same for col1.
    pooled = row1 + col1
    feasible = np.ones_like(m, dtype=bool)
    for margin in (row1, col1):
        scaled = 2 * n * margin - pooled * m
        feasible &= (scaled >= 0) & (scaled <= 2 * n * rest)
    safe_rest = np.maximum(rest, 1)
    m_plus = pooled * m / (2 * n)
    p_a = (row1 - m_plus) / safe_rest
    p_b = (col1 - m_plus) / safe_rest
    p_c = np.clip(p_a * p_b + (1 - p_a) * (1 - p_b), 0.0, 1.0)
    p = binomial_p_values(t.agreements - m, rest, p_c, rule=rule)
    ok = feasible & (p >= alpha)
    if not ok.any():
        return None, None
    kept = m[ok]
    return int(kept.min()), int(kept.max())


def true_agreement_interval(
    table: npt.ArrayLike,
    *,
    model: Model,
    confidence: float = 0.95,
    rule: Rule = "paper",
) -> TrueAgreementInterval:
    r"""Confidence interval for the proportion of true agreement between two coders.

    Test inversion over the dual model of Krenn, Evert & Zinsmeister (2004): m/n is in the
    interval when splitting off m items of true agreement leaves the other n − m items
    consistent with chance agreement (see the module docstring for both models):

    .. math::

        C_2(m, m_+) = \begin{pmatrix} n_{11} - m_+ & n_{12} \\
                                      n_{21} & n_{22} - (m - m_+) \end{pmatrix},
        \qquad \text{keep } m \iff p(C_2) \ge 1 - \text{confidence}

    Parameters
    ----------
    table : array_like of int, shape (2, 2)
        ``[[n₁₁, n₁₂], [n₂₁, n₂₂]]``: rows coder A, columns coder B, first row/column the
        positive category (TP in the paper), second the negative (FP).
    model : {"conservative", "homogeneity"}
        Conservative: any admissible m₊, Fisher's exact test. Homogeneity: m₊ = π·m,
        binomial test with chance agreement from the coders' positive shares in C₂.
    confidence : float, default 0.95
        Confidence level; m is kept when the two-sided p-value is at least
        ``1 − confidence``.
    rule : {"paper", "minlike"}, default "paper"
        Two-sided p-value: "paper" doubles the smaller tail (what reproduces the paper's
        tables), "minlike" is scipy's / R's minimum-likelihood rule.

    Returns
    -------
    TrueAgreementInterval
        ``low``/``high`` as proportions (None if no m is accepted), with ``m_low``,
        ``m_high``, ``confidence``, ``model``, ``test``, ``rule``, ``n``.

    References
    ----------
    Krenn, B., Evert, S. & Zinsmeister, H. (2004). Determining intercoder agreement for a
    collocation identification task. *KONVENS 2004*, §5, Tables 1 and 2.

    Examples
    --------
    Annotator NN7 against the expert BK (table reconstructed from Krenn et al.
    2004, Tables 1 and 2, which print 13.92%–89.36% and 71.93%–82.22%):

    >>> t = [[123, 23], [33, 676]]
    >>> r = true_agreement_interval(t, model="conservative")
    >>> f"{r.low:.2%}–{r.high:.2%}"
    '13.92%–89.36%'
    >>> r = true_agreement_interval(t, model="homogeneity")
    >>> f"{r.low:.2%}–{r.high:.2%}"
    '71.93%–82.22%'
    """
    t = _as_table(table)
    if model not in ("conservative", "homogeneity"):
        raise ValueError(f"model must be 'conservative' or 'homogeneity'; got {model!r}.")
    if rule not in ("paper", "minlike"):
        raise ValueError(f"rule must be 'paper' or 'minlike'; got {rule!r}.")
    if not (isinstance(confidence, float | int) and 0 < confidence < 1):
        raise ValueError(
            f"confidence must be a probability strictly between 0 and 1; got {confidence!r}."
        )
    alpha = 1.0 - float(confidence)
    if model == "conservative":
        m_low, m_high = _conservative_ends(t, alpha, rule)
        test = "fisher"
    else:
        m_low, m_high = _homogeneity_ends(t, alpha, rule)
        test = "binomial"
    n = t.n
    return TrueAgreementInterval(
        low=None if m_low is None else m_low / n,
        high=None if m_high is None else m_high / n,
        confidence=float(confidence),
        model=model,
        test=test,
        rule=rule,
        n=n,
        m_low=m_low,
        m_high=m_high,
        observed_agreement=t.agreements / n,
    )


def true_agreement_by_pair(
    data: DataLike,
    *,
    model: Model,
    positive: Hashable | None = None,
    confidence: float = 0.95,
    rule: Rule = "paper",
    domain: Sequence[Hashable] | None = None,
) -> tuple[PairTrueAgreement, ...]:
    """True-agreement intervals for every coder pair and category against the rest.

    An extension beyond Krenn et al. (2004), who treat two coders and two categories (their
    footnote 5 points to Green 1997 for more): for each pair of coders (in the order of
    ``data.coders``) the items both labelled form a 2 × 2 table of "``positive``" against
    "any other category", and :func:`true_agreement_interval` is applied to it. Pairs with
    no item in common have no table and are left out of the result.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Coders × items, ``nan`` for missing; coders must be identified (not an agreement
        table's slots).
    model : {"conservative", "homogeneity"}
    positive : hashable, optional
        The category to test against the rest; by default every category of the domain,
        one after the other. With two categories both give the same interval.
    confidence : float, default 0.95
    rule : {"paper", "minlike"}, default "paper"
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    tuple of PairTrueAgreement
        Ordered by coder pair, then by category.

    References
    ----------
    Krenn, Evert & Zinsmeister (2004), §5; Green, A. M. (1997). Kappa statistics for
    multiple raters using categorical classifications. *Proc. 22nd SAS Users Group*.

    Examples
    --------
    >>> from metrics import ReliabilityData
    >>> data = ReliabilityData.from_contingency([[123, 23], [33, 676]], domain=["TP", "FP"])
    >>> (pair,) = true_agreement_by_pair(data, model="homogeneity", positive="TP")
    >>> pair.table, pair.interval.m_low, pair.interval.m_high
    ((123, 23, 33, 676), 615, 703)
    """
    data = as_reliability_data(data, domain=domain)
    if not data.coders_identified:
        raise ValueError(
            "True agreement is defined between two identified coders; this data comes from "
            "an agreement table whose rows are anonymous slots."
        )
    if positive is None:
        categories = list(range(data.n_values))
    else:
        if positive not in data.domain:
            raise ValueError(f"positive={positive!r} is not in the value domain {data.domain}.")
        categories = [data.domain.index(positive)]
    results: list[PairTrueAgreement] = []
    first, second, _ = data.coder_pairs()  # only the pairs that share an item
    for i, j in zip(first.tolist(), second.tolist(), strict=True):
        _, a, b = data.paired_codes(i, j)
        for category in categories:
            pos_a, pos_b = a == category, b == category
            counts = (
                int(np.count_nonzero(pos_a & pos_b)),
                int(np.count_nonzero(pos_a & ~pos_b)),
                int(np.count_nonzero(~pos_a & pos_b)),
                int(np.count_nonzero(~pos_a & ~pos_b)),
            )
            interval = true_agreement_interval(
                np.array(counts).reshape(2, 2), model=model, confidence=confidence, rule=rule
            )
            results.append(
                PairTrueAgreement(
                    coder_a=data.coders[i],
                    coder_b=data.coders[j],
                    positive=data.domain[category],
                    table=counts,
                    interval=interval,
                )
            )
    return tuple(results)
