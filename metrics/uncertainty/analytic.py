"""Analytic standard errors, tests and intervals for chance-corrected coefficients.

Three families, each as its literature defines it:

- :func:`cohen_kappa_se`: Cohen's kappa, unweighted or weighted, with the large-sample
  variance of Fleiss, Cohen & Everitt (1969), the variance under :math:`H_0: \\kappa = 0`,
  the z test and a normal interval (what SAS PROC FREQ, R ``irr::kappa2`` and statsmodels
  ``cohens_kappa`` report).
- :func:`fleiss_kappa_se`: Fleiss' multi-pi with the null standard errors of Fleiss, Nee &
  Landis (1979), overall and per category (R ``irr::kappam.fleiss(detail=TRUE)``), and
  Gwet's linearised (non-null) standard error for the interval.
- :func:`linearized_se`: Gwet's (2008, 2014) linearisation variance of AC1/AC2, Fleiss,
  Conger, Brennan–Prediger and Krippendorff's alpha on raw data with missing values, and of
  Cohen, Scott, AC1/AC2, Brennan–Prediger, alpha and percent agreement on a contingency table,
  with irrCAC's conventions: Student t intervals with ``n - 1`` degrees of freedom, the
  optional finite-population correction ``1 - n/N``, the upper bound clipped at 1.

Every function returns an :class:`AnalyticResult`. ``confidence`` is the confidence level of
the interval (0.95 by default). Data goes through :func:`metrics.data.as_reliability_data`
(``domain=`` as everywhere); a plain array is read as a two-coder contingency table. Agreement
weights come from a distance exactly as in the coefficient functions
(:func:`metrics.coefficients.agreement.agreement_weights`: the symmetric part of
:math:`w = 1 - d/d_{max}`), so irrCAC's named weight matrices correspond to ``distance = 1 - w``
and a table gives the same estimate here as through the coefficient functions. With
asymmetric weights this differs from irrCAC 0.4.4's ``irrCAC.table.CAC``, which reads them
as directed (see :mod:`metrics.distances`).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import sparse, special, stats

from metrics.coefficients.agreement import agreement_weights, use_sparse_counts
from metrics.data import ReliabilityData, as_reliability_data
from metrics.distances import DistanceLike

Coefficient = Literal[
    "ac1",
    "fleiss",
    "scott",
    "conger",
    "cohen",
    "brennan_prediger",
    "alpha",
    "percent_agreement",
]


@dataclass(frozen=True)
class CategoryResult:
    """One category's kappa (category vs. the rest) with its null standard error.

    Attributes
    ----------
    category : hashable
        The category (a value of the data's domain).
    kappa : float
        Fleiss' kappa of the category against all others.
    se_null : float
        Standard error under :math:`H_0: \\kappa_j = 0` (Fleiss, Nee & Landis 1979).
    z, p_value : float
        ``kappa / se_null`` and its two-sided normal p-value.
    """

    category: Hashable
    kappa: float
    se_null: float
    z: float
    p_value: float


@dataclass(frozen=True)
class AnalyticResult:
    """A coefficient with its analytic standard error, test and interval.

    Attributes
    ----------
    coefficient : str
        Which coefficient (``"cohen_kappa"``, ``"fleiss_kappa"``, ``"gwet_ac1"``, ...).
    estimate : float
        The coefficient.
    se : float
        Its standard error (non-null: the spread of the estimate around the true value).
    se_null : float or None
        Standard error under :math:`H_0` (coefficient 0), where the method has one.
    z : float
        The test statistic reported by the method: ``estimate / se_null`` where ``se_null``
        exists, else ``estimate / se`` (referred to Student t with ``df`` when ``df`` is set).
    p_value : float
        Two-sided p-value of ``z``.
    low, high : float
        Interval at ``confidence``: ``estimate ± q · se`` with a normal (``df`` None) or
        Student t quantile ``q``; ``high`` is clipped at 1, the coefficients' maximum
        (irrCAC's convention; the lower bound is not clipped).
    confidence : float
        Confidence level of the interval.
    method : str
        The variance formula and the interval, in words, with the reference.
    n_items : int
        Items (subjects) the variance is based on.
    df : float or None
        Degrees of freedom of the t distribution, or None for normal.
    per_category : tuple of CategoryResult
        Per-category kappas (Fleiss' multi-pi only).
    """

    coefficient: str
    estimate: float
    se: float
    se_null: float | None
    z: float
    p_value: float
    low: float
    high: float
    confidence: float
    method: str
    n_items: int
    df: float | None = None
    per_category: tuple[CategoryResult, ...] = ()


# -- Cohen's kappa: Fleiss, Cohen & Everitt (1969) -------------------------------------------


def cohen_kappa_se(
    data: ReliabilityData | npt.ArrayLike,
    *,
    distance: DistanceLike | None = None,
    confidence: float = 0.95,
    domain: Sequence[Hashable] | None = None,
) -> AnalyticResult:
    r"""Cohen's (weighted) kappa with the Fleiss, Cohen & Everitt (1969) standard errors.

    With cell proportions :math:`p_{ij}`, margins :math:`p_{i\cdot}, p_{\cdot j}`, agreement
    weights :math:`w_{ij}` (identity when unweighted), :math:`\bar w_{i\cdot} = \sum_j
    p_{\cdot j} w_{ij}` and :math:`\bar w_{\cdot j} = \sum_i p_{i\cdot} w_{ij}`:

    .. math::

        \widehat{\mathrm{var}}(\hat\kappa) = \frac{\sum_{ij} p_{ij}\,[w_{ij} -
            (\bar w_{i\cdot} + \bar w_{\cdot j})(1-\hat\kappa)]^2
            - [\hat\kappa - p_e(1-\hat\kappa)]^2}{n (1-p_e)^2},
        \qquad
        \widehat{\mathrm{var}}_0(\hat\kappa) = \frac{\sum_{ij} p_{i\cdot} p_{\cdot j}\,
            [w_{ij} - (\bar w_{i\cdot} + \bar w_{\cdot j})]^2 - p_e^2}{n (1-p_e)^2}.

    ``z = kappa / se_null`` with a two-sided normal p-value; the interval is
    ``kappa ± z_{(1+confidence)/2} se``.

    Parameters
    ----------
    data : ReliabilityData or array_like
        Two coders' data (items labelled by both are used) or a ``k × k`` contingency table
        (rows: coder A, columns: coder B; categories ``0 .. k-1``, or ``domain``).
    distance : str, Distance or array_like, optional
        Disagreement weights for weighted kappa (``V × V`` in domain order, or a Distance);
        agreement weights are the symmetric part of ``1 - d / max d``. None: unweighted.
    confidence : float, default 0.95
        Confidence level of the interval.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`); for a table, its categories.

    Returns
    -------
    AnalyticResult
        ``coefficient`` is ``"cohen_kappa"`` or ``"cohen_weighted_kappa"``; ``df`` is None.

    Raises
    ------
    ValueError
        If the data do not have exactly two coders, no item has both values, the table is
        not square, or expected agreement is 1 (a single category in use).

    References
    ----------
    Fleiss, J. L., Cohen, J., & Everitt, B. S. (1969). Large sample standard errors of kappa
    and weighted kappa. Psychological Bulletin 72(5), 323–327.
    https://doi.org/10.1037/h0028106

    Examples
    --------
    The SAS PROC FREQ example that statsmodels tests against (kappa 0.4842, ASE 0.1380,
    ASE under H0 0.1484, Z 3.2626):

    >>> result = cohen_kappa_se([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    >>> round(result.estimate, 4), round(result.se, 4), round(result.se_null, 4)
    (0.4842, 0.138, 0.1484)
    >>> round(result.z, 4), round(result.low, 4), round(result.high, 4)
    (3.2626, 0.2137, 0.7547)
    """
    _check_confidence(confidence)
    table, rd = _two_coder_table(data, domain)
    w = _weights_or_identity(rd, distance)
    n = float(table.sum())
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    observed = float(np.sum(w * p))
    expected = float(np.sum(w * np.outer(rows, cols)))
    if expected >= 1.0 - 1e-12:
        raise ValueError(
            "Expected agreement is 1 (every value in one category), so kappa and its "
            "standard error are undefined."
        )
    kappa = (observed - expected) / (1.0 - expected)
    w_row = w @ cols  # \bar w_{i.}
    w_col = rows @ w  # \bar w_{.j}
    spread = w - (w_row[:, None] + w_col[None, :]) * (1.0 - kappa)
    variance = float(np.sum(p * spread**2)) - (kappa - expected * (1.0 - kappa)) ** 2
    null_spread = w - (w_row[:, None] + w_col[None, :])
    variance_null = float(np.sum(np.outer(rows, cols) * null_spread**2)) - expected**2
    scale = n * (1.0 - expected) ** 2
    se = math.sqrt(max(variance, 0.0) / scale)
    se_null = math.sqrt(max(variance_null, 0.0) / scale)
    weighted = distance is not None
    return _result(
        "cohen_weighted_kappa" if weighted else "cohen_kappa",
        kappa,
        se=se,
        se_null=se_null,
        confidence=confidence,
        df=None,
        n_items=round(n),
        method=(
            "Fleiss, Cohen & Everitt (1969) large-sample variance (and variance under "
            "kappa = 0 for z); normal interval"
        ),
    )


# -- Fleiss' multi-pi: Fleiss, Nee & Landis (1979) --------------------------------------------


def fleiss_kappa_se(
    data: ReliabilityData,
    *,
    confidence: float = 0.95,
    domain: Sequence[Hashable] | None = None,
) -> AnalyticResult:
    r"""Fleiss' kappa (multi-pi) with null standard errors overall and per category.

    For :math:`n` items each labelled by :math:`m` coders, :math:`x_{ij}` of them choosing
    category :math:`j`, :math:`p_j = \sum_i x_{ij}/(nm)` and :math:`q_j = 1 - p_j`
    (Fleiss, Nee & Landis 1979):

    .. math::

        \hat\kappa_j = 1 - \frac{\sum_i x_{ij}(m - x_{ij})}{n m (m-1) p_j q_j},\qquad
        \mathrm{se}_0(\hat\kappa_j) = \sqrt{\frac{2}{n m (m-1)}},

        \mathrm{se}_0(\hat\kappa) = \frac{\sqrt 2}{\sum_j p_j q_j \sqrt{n m (m-1)}}
            \sqrt{\Big(\sum_j p_j q_j\Big)^2 - \sum_j p_j q_j (q_j - p_j)}.

    ``z = kappa / se_null`` with a two-sided normal p-value (as R ``irr::kappam.fleiss``).
    The null standard error only serves the test; the interval uses Gwet's linearised
    standard error (``se``; :func:`linearized_se` with ``coefficient="fleiss"``), with a
    Student t interval on ``n - 1`` degrees of freedom as irrCAC reports it.

    Parameters
    ----------
    data : ReliabilityData
        Every item with any value must have the same number ``m ≥ 2`` of values (use
        ``ReliabilityData.from_agreement_table`` for an items × categories count table).
        Items without values are ignored. For data with missing values use
        :func:`linearized_se`.
    confidence : float, default 0.95
        Confidence level of the interval.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    AnalyticResult
        ``per_category`` holds one :class:`CategoryResult` per category in use (categories
        nobody chose have no kappa and are left out).

    Raises
    ------
    ValueError
        If items have different numbers of values, fewer than two values each, or a single
        category is in use.

    References
    ----------
    Fleiss, J. L., Nee, J. C. M., & Landis, J. R. (1979). Large sample variance of kappa in
    the case of different sets of raters. Psychological Bulletin 86(5), 974–977.
    https://doi.org/10.1037/0033-2909.86.5.974

    Examples
    --------
    Fleiss (1971), 30 patients × 6 psychiatrists (R ``irr::kappam.fleiss(diagnoses)``:
    kappa 0.4302445, z 17.65183):

    >>> counts = [[0,0,0,6,0],[0,3,0,0,3],[0,1,4,0,1],[0,0,0,0,6],[0,3,0,3,0],
    ...           [2,0,4,0,0],[0,0,4,0,2],[2,0,3,1,0],[2,0,0,4,0],[0,0,0,0,6],
    ...           [1,0,0,5,0],[1,1,0,4,0],[0,3,3,0,0],[1,0,0,5,0],[0,2,0,3,1],
    ...           [0,0,5,0,1],[3,0,0,1,2],[5,1,0,0,0],[0,2,0,4,0],[1,0,2,0,3],
    ...           [0,0,0,0,6],[0,1,0,5,0],[0,2,0,1,3],[2,0,0,4,0],[1,0,0,4,1],
    ...           [0,5,0,1,0],[4,0,0,0,2],[0,2,0,4,0],[1,0,5,0,0],[0,0,0,0,6]]
    >>> result = fleiss_kappa_se(ReliabilityData.from_agreement_table(counts))
    >>> round(result.estimate, 7), round(result.z, 5)
    (0.4302445, 17.65183)
    """
    _check_confidence(confidence)
    if not isinstance(data, ReliabilityData):
        raise ValueError(
            "fleiss_kappa_se needs ReliabilityData; build it from an items × categories "
            "count table with ReliabilityData.from_agreement_table."
        )
    data = as_reliability_data(data, domain=domain)
    per_item = data.values_per_item
    rated = per_item > 0
    counts = data.item_value_counts[rated]
    m_values = np.unique(per_item[rated])
    if m_values.size != 1 or m_values[0] < 2:
        raise ValueError(
            "Fleiss, Nee & Landis (1979) need the same number (≥ 2) of values on every "
            f"item; the items have {sorted(m_values.tolist())} values. Use linearized_se("
            "data, coefficient='fleiss') for data with missing values."
        )
    n, m = counts.shape[0], float(m_values[0])
    p = counts.sum(axis=0) / (n * m)
    pq = p * (1.0 - p)
    total_pq = float(pq.sum())
    if total_pq <= 0.0:
        raise ValueError("A single category is in use: Fleiss' kappa is undefined.")
    pairs = n * m * (m - 1.0)
    se_null = (
        math.sqrt(2.0)
        / (total_pq * math.sqrt(pairs))
        * math.sqrt(total_pq**2 - float(np.sum(pq * ((1.0 - p) - p))))
    )
    linearized = linearized_se(data, coefficient="fleiss", confidence=confidence)
    category_se = math.sqrt(2.0 / pairs)
    per_category = []
    for j in np.flatnonzero(pq > 0):
        kappa_j = 1.0 - float(np.sum(counts[:, j] * (m - counts[:, j]))) / (pairs * pq[j])
        z_j = kappa_j / category_se
        per_category.append(
            CategoryResult(data.domain[j], kappa_j, category_se, z_j, _normal_p(z_j))
        )
    z = linearized.estimate / se_null
    return AnalyticResult(
        coefficient="fleiss_kappa",
        estimate=linearized.estimate,
        se=linearized.se,
        se_null=se_null,
        z=z,
        p_value=_normal_p(z),
        low=linearized.low,
        high=linearized.high,
        confidence=float(confidence),
        method=(
            "z and p from the Fleiss, Nee & Landis (1979) variance under kappa = 0 (normal); "
            "interval from Gwet's linearised variance with Student t, n - 1 df (irrCAC)"
        ),
        n_items=int(n),
        df=linearized.df,
        per_category=tuple(per_category),
    )


# -- Gwet's linearisation (irrCAC) ------------------------------------------------------------


def linearized_se(
    data: ReliabilityData | npt.ArrayLike,
    *,
    coefficient: Coefficient,
    distance: DistanceLike | None = None,
    confidence: float = 0.95,
    population_size: float = math.inf,
    domain: Sequence[Hashable] | None = None,
) -> AnalyticResult:
    r"""Gwet's linearised standard error of a chance-corrected coefficient, as irrCAC has it.

    On raw data (``ReliabilityData``, missing values allowed) every coefficient
    :math:`\hat\kappa = (p_a - p_e)/(1 - p_e)` is linearised into per-item terms
    :math:`\kappa^\star_i = \kappa_i - 2(1-\hat\kappa)(p_{e|i} - p_e)/(1-p_e)` with
    :math:`\kappa_i = (n/n_2)(p_{a|i} - p_e\,[r_i \ge 2])/(1-p_e)`, and

    .. math:: \widehat{\mathrm{var}}(\hat\kappa) = \frac{1-f}{n(n-1)}
              \sum_{i=1}^{n} (\kappa^\star_i - \hat\kappa)^2,

    over the :math:`n` items with at least one value (:math:`n_2` of them with two or more;
    Krippendorff's alpha uses only those), :math:`f = n/N`. On a contingency table the
    two-coder forms are used (Gwet 2014, ch. 5): e.g. for Cohen's kappa
    :math:`\{\sum_{kl} p_{kl}[w_{kl} - (1-\hat\kappa)(\bar w_{k\cdot}+\bar w_{\cdot l})]^2
    - [p_a - 2(1-\hat\kappa)p_e]^2\}(1-f)/(n(1-p_e)^2)`. Intervals use Student t with
    :math:`n - 1` degrees of freedom, the upper bound clipped at 1; ``z = estimate / se``
    and its two-sided t p-value.

    Parameters
    ----------
    data : ReliabilityData or array_like
        Raw data (coders × items, missing allowed), or a ``k × k`` contingency table.
    coefficient : {"ac1", "fleiss", "scott", "conger", "cohen", "brennan_prediger", "alpha", \
"percent_agreement"}
        ``"ac1"`` is AC2 when ``distance`` is given. On raw data ``"scott"`` means
        ``"fleiss"`` and ``"cohen"`` means ``"conger"`` (their multi-coder forms);
        ``"percent_agreement"`` is for tables only. On a table ``"fleiss"`` means
        ``"scott"`` and ``"conger"`` means ``"cohen"``.
    distance : str, Distance or array_like, optional
        Disagreement weights; agreement weights are the symmetric part of ``1 - d / max d``
        (irrCAC's weight matrix ``w`` is ``distance = 1 - w``). None: identity weights.
    confidence : float, default 0.95
        Confidence level of the interval.
    population_size : float, default inf
        Size N of the item population for the finite-population correction ``1 - n/N``.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`); for a table, its categories.

    Returns
    -------
    AnalyticResult
        ``se_null`` is None; ``df = n - 1``.

    Raises
    ------
    ValueError
        If no item has two values, chance agreement is 1, or an option is unknown.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence
    of high agreement. Br. J. Math. Stat. Psychol. 61(1), 29–48.
    https://doi.org/10.1348/000711006X126600

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    irrCAC's ``raw_4raters`` (Krippendorff 2004, p. 230; irrCAC 0.4.4 doctest: AC1 0.77544,
    se 0.14295, interval (0.46081, 1)):

    >>> import numpy as np
    >>> nan = np.nan
    >>> units = [[1,1,nan,1],[2,2,3,2],[3,3,3,3],[3,3,3,3],[2,2,2,2],[1,2,3,4],
    ...          [4,4,4,4],[1,1,2,1],[2,2,2,2],[nan,5,5,5],[nan,nan,1,1],[nan,nan,3,nan]]
    >>> data = ReliabilityData.from_matrix(np.array(units).T)
    >>> result = linearized_se(data, coefficient="ac1")
    >>> round(result.estimate, 5), round(result.se, 5), round(result.low, 5), result.high
    (0.77544, 0.14295, 0.46081, 1.0)
    """
    _check_confidence(confidence)
    if not (isinstance(population_size, int | float) and population_size > 0):
        raise ValueError(f"population_size must be positive; got {population_size!r}.")
    if isinstance(data, ReliabilityData):
        raw = as_reliability_data(data, domain=domain)
        return _raw_linearized(raw, coefficient, distance, confidence, population_size)
    table, rd = _two_coder_table(data, domain)
    return _table_linearized(table, rd, coefficient, distance, confidence, population_size)


_RAW_NAMES = {
    "ac1": "ac1",
    "fleiss": "fleiss",
    "scott": "fleiss",
    "conger": "conger",
    "cohen": "conger",
    "brennan_prediger": "brennan_prediger",
    "alpha": "alpha",
}
_TABLE_NAMES = {
    "ac1": "ac1",
    "fleiss": "scott",
    "scott": "scott",
    "conger": "cohen",
    "cohen": "cohen",
    "brennan_prediger": "brennan_prediger",
    "alpha": "alpha",
    "percent_agreement": "percent_agreement",
}
_LINEARIZED = "Gwet's linearised variance (irrCAC {}); Student t interval, n - 1 df"


@dataclass(frozen=True)
class _Raw:
    """irrCAC's raw-data quantities over the n items with at least one value."""

    counts: NDArray[np.float64] | sparse.csr_matrix  # (n, q) r_ik (CSR for many values)
    weights: NDArray[np.float64] | None  # (q, q) agreement weights; None: identity
    per_item: NDArray[np.float64]  # (n,) r_i
    sum_q: NDArray[np.float64]  # (n,) sum_k r_ik (r*_ik - 1)
    pairable: NDArray[np.bool_]  # (n,) r_i >= 2
    f: float  # sampling fraction n / N

    @property
    def n(self) -> int:
        return int(self.counts.shape[0])

    @property
    def n2(self) -> int:
        return int(np.count_nonzero(self.pairable))

    @property
    def pa(self) -> float:
        items = self.pairable
        ratio = self.sum_q[items] / (self.per_item[items] * (self.per_item[items] - 1.0))
        return float(ratio.sum() / self.n2)

    def pa_items(self) -> NDArray[np.float64]:
        den = self.per_item * (self.per_item - 1.0)
        return self.sum_q / (den - (den == 0))

    def pi(self) -> NDArray[np.float64]:
        return _column_sums(_scale_rows(self.counts, 1.0 / self.per_item)) / self.n

    def kappa_items(self, pe: float) -> NDArray[np.float64]:
        return (self.n / self.n2) * (self.pa_items() - pe * self.pairable) / (1.0 - pe)

    def variance(self, terms: NDArray[np.float64], centre: float) -> float:
        return float((1.0 - self.f) / (self.n * (self.n - 1.0)) * np.sum((terms - centre) ** 2))


def _raw_linearized(
    data: ReliabilityData,
    coefficient: str,
    distance: DistanceLike | None,
    confidence: float,
    population_size: float,
    *,
    sparse_counts: bool | None = None,
) -> AnalyticResult:
    """``sparse_counts`` as :func:`~metrics.coefficients.agreement.use_sparse_counts`."""
    if coefficient not in _RAW_NAMES:
        raise ValueError(
            f"Unknown coefficient {coefficient!r} for raw data; choose one of {sorted(_RAW_NAMES)}."
        )
    name = _RAW_NAMES[coefficient]
    w = agreement_weights(data, distance)
    rated = data.values_per_item > 0
    counts: NDArray[np.float64] | sparse.csr_matrix
    if not use_sparse_counts(data, sparse_counts):
        counts = data.item_value_counts[rated]
        w = np.eye(data.n_values) if w is None else w
    elif w is None:
        counts = data.item_value_counts_csr[np.flatnonzero(rated)]
    else:
        raise ValueError(
            "A weighted linearised variance needs the items × values table, here "
            f"{int(np.count_nonzero(rated))} × {data.n_values}: far larger than the data."
        )
    per_item = data.values_per_item[rated].astype(np.float64)
    needed = 2 if name == "alpha" else 1
    if np.count_nonzero(per_item >= 2) < needed or counts.shape[0] < 2:
        raise ValueError(
            "A linearised variance needs at least two items with values, and items with "
            f"values from two coders ({needed} or more for this coefficient)."
        )
    raw = _Raw(
        counts=counts,
        weights=w,
        per_item=per_item,
        sum_q=_agreeing_pairs(counts, w, per_item),
        pairable=per_item >= 2,
        f=float(counts.shape[0] / population_size),
    )
    if name == "alpha":
        return _raw_alpha(raw, confidence, weighted=distance is not None)
    if name == "conger":
        estimate, variance = _raw_conger(raw, data, rated)
    else:
        estimate, variance = _RAW_FORMULAS[name](raw)
    label = {
        "ac1": "gwet_ac2" if distance is not None else "gwet_ac1",
        "fleiss": "fleiss_kappa",
        "conger": "conger_kappa",
        "brennan_prediger": "brennan_prediger",
    }[name]
    return _result(
        label,
        estimate,
        se=math.sqrt(max(variance, 0.0)),
        se_null=None,
        confidence=confidence,
        df=raw.n - 1.0,
        n_items=raw.n,
        method=_LINEARIZED.format("raw " + name),
    )


def _column_sums(counts: NDArray[np.float64] | sparse.csr_matrix) -> NDArray[np.float64]:
    return np.asarray(counts.sum(axis=0), dtype=np.float64).ravel()


def _scale_rows(
    counts: NDArray[np.float64] | sparse.csr_matrix, factors: NDArray[np.float64]
) -> NDArray[np.float64] | sparse.csr_matrix:
    if sparse.issparse(counts):
        return sparse.diags(factors) @ counts
    return counts * factors[:, None]


def _agreeing_pairs(
    counts: NDArray[np.float64] | sparse.csr_matrix,
    w: NDArray[np.float64] | None,
    per_item: NDArray[np.float64],
) -> NDArray[np.float64]:
    r""":math:`\sum_k r_{ik} (r^\star_{ik} - 1)`, :math:`r^\star = w r` (identity: CSR)."""
    if w is None and isinstance(counts, sparse.csr_matrix):
        squares = np.asarray(counts.multiply(counts).sum(axis=1), dtype=np.float64).ravel()
        return squares - per_item
    if w is None:
        return np.asarray(np.einsum("ik,ik->i", counts, counts) - per_item, dtype=np.float64)
    return np.asarray(np.einsum("ik,ik->i", counts, counts @ w.T - 1.0), dtype=np.float64)


def _quadratic_form(p: NDArray[np.float64], w: NDArray[np.float64] | None) -> float:
    return float(p @ p) if w is None else float(p @ w @ p)


def _symmetric_product(
    p: NDArray[np.float64], w: NDArray[np.float64] | None
) -> NDArray[np.float64]:
    return p if w is None else (w @ p + w.T @ p) / 2.0


def _weight_total(w: NDArray[np.float64] | None, size: int) -> float:
    return float(size) if w is None else float(w.sum())


def _chance_one(pe: float) -> None:
    if pe >= 1.0 - 1e-12:
        raise ValueError(
            "Chance agreement is 1 (a single category), so the coefficient is undefined."
        )


def _raw_ac1(raw: _Raw) -> tuple[float, float]:
    q = raw.counts.shape[1]
    if q < 2:
        raise ValueError("AC1 needs at least two categories in the domain.")
    factor = _weight_total(raw.weights, q) / (q * (q - 1.0))
    pi = raw.pi()
    pe = factor * float(np.sum(pi * (1.0 - pi)))
    _chance_one(pe)
    ac1 = (raw.pa - pe) / (1.0 - pe)
    pe_items = factor * np.asarray(raw.counts @ (1.0 - pi)).ravel() / raw.per_item
    terms = raw.kappa_items(pe) - 2.0 * (1.0 - ac1) * (pe_items - pe) / (1.0 - pe)
    return ac1, raw.variance(terms, ac1)


def _raw_fleiss(raw: _Raw) -> tuple[float, float]:
    pi = raw.pi()
    pe = _quadratic_form(pi, raw.weights)
    _chance_one(pe)
    kappa = (raw.pa - pe) / (1.0 - pe)
    pi_w = _symmetric_product(pi, raw.weights)
    pe_items = np.asarray(raw.counts @ pi_w).ravel() / raw.per_item
    terms = raw.kappa_items(pe) - 2.0 * (1.0 - kappa) * (pe_items - pe) / (1.0 - pe)
    return kappa, raw.variance(terms, kappa)


def _raw_bp(raw: _Raw) -> tuple[float, float]:
    q = raw.counts.shape[1]
    pe = _weight_total(raw.weights, q) / q**2
    _chance_one(pe)
    bp = (raw.pa - pe) / (1.0 - pe)
    return bp, raw.variance(raw.kappa_items(pe), bp)


_RAW_FORMULAS = {"ac1": _raw_ac1, "fleiss": _raw_fleiss, "brennan_prediger": _raw_bp}


def _raw_conger(raw: _Raw, data: ReliabilityData, rated: NDArray[np.bool_]) -> tuple[float, float]:
    """Conger's kappa and irrCAC's linearised variance (over the ``rated`` items)."""
    r = data.n_coders
    if r < 2:
        raise ValueError("Conger's kappa needs at least two coders.")
    n_g = np.bincount(data.coder_index, minlength=r).astype(np.float64)
    if np.any(n_g == 0):
        raise ValueError("Conger's kappa needs every coder to have at least one value.")
    coder, code = data.coder_index, data.value_code
    w = raw.weights
    if w is None:  # identity weights, from the (coder, value) pairs that occur
        size = max(data.n_values, 1)
        keys, at_annotation, pair_counts = np.unique(
            coder.astype(np.int64) * size + code, return_inverse=True, return_counts=True
        )
        pair_coder, pair_value = keys // size, keys % size
        p_pair = pair_counts / n_g[pair_coder]
        p_mean = np.bincount(pair_value, weights=p_pair, minlength=data.n_values) / r
        trace_s2 = (float(p_pair @ p_pair) - r * float(p_mean @ p_mean)) / (r - 1.0)
        pe = float(p_mean @ p_mean) - trace_s2 / r
        # B[g, l] = r p_l - p_gl; C_g = sum_l p_gl B[g, l].
        c = np.bincount(pair_coder, weights=p_pair * (r * p_mean[pair_value] - p_pair), minlength=r)
        b_at = r * p_mean[code] - p_pair[at_annotation.ravel()]
    else:
        p_gk = data.coder_value_counts / n_g[:, None]
        p_mean = p_gk.mean(axis=0)
        s2 = (p_gk.T @ p_gk - r * np.outer(p_mean, p_mean)) / (r - 1.0)
        pe = float(np.sum(w * (np.outer(p_mean, p_mean) - s2 / r)))
        # lambda_ig = (n / n_g) [eps_ig B[g, c_ig] - (eps_ig - n_g / n) C_g], with
        # B[g, l] = sum_k w_kl (r p_k - p_gk) and C_g = sum_l p_gl B[g, l].
        spread = r * p_mean[None, :] - p_gk  # (r, q)
        b = spread @ w  # (r, q): sum_k spread[g, k] w[k, l]
        c = np.sum(p_gk * b, axis=1)  # (r,)
        b_at = b[coder, code]
    _chance_one(pe)
    kappa = (raw.pa - pe) / (1.0 - pe)
    n = raw.n
    # A coder without a value on item i contributes lambda_ig = C_g; one with value k
    # contributes (n / n_g) [B[g, k] - (1 - n_g / n) C_g]. Sum over the annotations only.
    item = (np.cumsum(rated) - 1)[data.item_index]
    share = n_g[coder] / n
    present_terms = (b_at - (1.0 - share) * c[coder]) / share - c[coder]
    lam_sum = float(c.sum()) + np.bincount(
        item, weights=present_terms, minlength=int(np.count_nonzero(rated))
    )
    pe_items = lam_sum / (r * (r - 1.0))
    terms = raw.kappa_items(pe) - 2.0 * (1.0 - kappa) * (pe_items - pe) / (1.0 - pe)
    return kappa, raw.variance(terms, kappa)


def _raw_alpha(raw: _Raw, confidence: float, *, weighted: bool) -> AnalyticResult:
    """Krippendorff's alpha in Gwet's form, over items with at least two values (irrCAC)."""
    keep = raw.pairable
    counts, per_item, sum_q = raw.counts[keep], raw.per_item[keep], raw.sum_q[keep]
    n = counts.shape[0]
    mean_r = float(per_item.mean())
    epsilon = 1.0 / float(per_item.sum())
    pa_prime = float(np.sum(sum_q / (mean_r * (per_item - 1.0)))) / n
    pa = (1.0 - epsilon) * pa_prime + epsilon
    pi = _column_sums(counts) / (n * mean_r)
    w = raw.weights
    pe = _quadratic_form(pi, w)
    _chance_one(pe)
    alpha = (pa - pe) / (1.0 - pe)
    alpha_prime = (pa_prime - pe) / (1.0 - pe)
    pa_items = sum_q / (mean_r * (per_item - 1.0)) - pa * (per_item - mean_r) / mean_r
    alpha_items = (pa_items - pe) / (1.0 - pe)
    pi_w = _symmetric_product(pi, w)
    pe_items = np.asarray(counts @ pi_w).ravel() / mean_r - pe * (per_item - mean_r) / mean_r
    terms = alpha_items - 2.0 * (1.0 - alpha_prime) * (pe_items - pe) / (1.0 - pe)
    # irrCAC's sampling fraction counts every item with a value, the sum only pairable ones.
    variance = float((1.0 - raw.f) / (n * (n - 1.0)) * np.sum((terms - alpha_prime) ** 2))
    return _result(
        "krippendorff_alpha",
        alpha,
        se=math.sqrt(max(variance, 0.0)),
        se_null=None,
        confidence=confidence,
        df=n - 1.0,
        n_items=n,
        method=_LINEARIZED.format("raw krippendorff"),
    )


def _table_linearized(
    table: NDArray[np.float64],
    rd: ReliabilityData,
    coefficient: str,
    distance: DistanceLike | None,
    confidence: float,
    population_size: float,
) -> AnalyticResult:
    if coefficient not in _TABLE_NAMES:
        raise ValueError(
            f"Unknown coefficient {coefficient!r} for a contingency table; choose one of "
            f"{sorted(_TABLE_NAMES)}."
        )
    name = _TABLE_NAMES[coefficient]
    w = _weights_or_identity(rd, distance)
    n = float(table.sum())
    q = table.shape[0]
    f = n / population_size
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    pa = float(np.sum(w * p))
    mean_margin = (rows + cols) / 2.0
    if name == "percent_agreement":
        estimate = pa
        variance = (1.0 - f) / n * (float(np.sum(p * w**2)) - pa**2)
    elif name == "brennan_prediger":
        pe = float(w.sum()) / q**2
        _chance_one(pe)
        estimate = (pa - pe) / (1.0 - pe)
        variance = (1.0 - f) / (n * (1.0 - pe) ** 2) * (float(np.sum(p * w**2)) - pa**2)
    elif name == "ac1":
        if q < 2:
            raise ValueError("AC1 needs at least two categories.")
        factor = float(w.sum()) / (q * (q - 1.0))
        pe = factor * float(np.sum(mean_margin * (1.0 - mean_margin)))
        _chance_one(pe)
        estimate = (pa - pe) / (1.0 - pe)
        term = w - 2.0 * (1.0 - estimate) * factor * (
            1.0 - (mean_margin[:, None] + mean_margin[None, :]) / 2.0
        )
        variance = _table_variance(p, term, pa, pe, estimate, n, f)
    else:
        estimate, variance = _table_kappa_like(name, p, w, rows, cols, pa, n, f)
    label = {
        "percent_agreement": "percent_agreement",
        "brennan_prediger": "brennan_prediger",
        "ac1": "gwet_ac2" if distance is not None else "gwet_ac1",
        "cohen": "cohen_weighted_kappa" if distance is not None else "cohen_kappa",
        "scott": "scott_pi",
        "alpha": "krippendorff_alpha",
    }[name]
    return _result(
        label,
        estimate,
        se=math.sqrt(max(variance, 0.0)),
        se_null=None,
        confidence=confidence,
        df=n - 1.0,
        n_items=round(n),
        method=_LINEARIZED.format("table " + name),
    )


def _table_kappa_like(
    name: str,
    p: NDArray[np.float64],
    w: NDArray[np.float64],
    rows: NDArray[np.float64],
    cols: NDArray[np.float64],
    pa: float,
    n: float,
    f: float,
) -> tuple[float, float]:
    """Cohen's kappa, Scott's pi and alpha on a table (irrCAC.table), with their variances."""
    # irrCAC's \bar w terms: column sums of w weighted by the other coder's margins.
    w_by_cols = (w * cols[:, None]).sum(axis=0)
    w_by_rows = (w * rows[:, None]).sum(axis=0)
    if name == "cohen":
        pe = float(rows @ w @ cols)
        _chance_one(pe)
        estimate = (pa - pe) / (1.0 - pe)
        bars = w_by_cols[:, None] + w_by_rows[None, :]
        term = w - (1.0 - estimate) * bars
        return estimate, _table_variance(p, term, pa, pe, estimate, n, f)
    mean_margin = (rows + cols) / 2.0
    pe = float(mean_margin @ w @ mean_margin)
    _chance_one(pe)
    pooled = (w_by_cols + w_by_rows) / 2.0
    bars = pooled[:, None] + pooled[None, :]
    kappa = (pa - pe) / (1.0 - pe)
    variance = _table_variance(p, w - (1.0 - kappa) * bars, pa, pe, kappa, n, f)
    if name == "scott":
        return kappa, variance
    # Krippendorff's alpha: p_a corrected by epsilon = 1/(2n); the variance is pi's.
    epsilon = 1.0 / (2.0 * n)
    alpha = ((1.0 - epsilon) * pa + epsilon - pe) / (1.0 - pe)
    return alpha, variance


def _table_variance(
    p: NDArray[np.float64],
    term: NDArray[np.float64],
    pa: float,
    pe: float,
    estimate: float,
    n: float,
    f: float,
) -> float:
    return (
        (1.0 - f)
        / (n * (1.0 - pe) ** 2)
        * (float(np.sum(p * term**2)) - (pa - 2.0 * (1.0 - estimate) * pe) ** 2)
    )


# -- shared helpers ---------------------------------------------------------------------------


def _check_confidence(confidence: object) -> None:
    if not (isinstance(confidence, float | int) and 0.0 < float(confidence) < 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence!r}.")


def _two_coder_table(
    data: ReliabilityData | npt.ArrayLike, domain: Sequence[Hashable] | None
) -> tuple[NDArray[np.float64], ReliabilityData]:
    """A ``V × V`` table of two coders' values and the ReliabilityData it stands for."""
    if isinstance(data, ReliabilityData):
        data = as_reliability_data(data, domain=domain)
        if data.n_coders != 2 or not data.coders_identified:
            raise ValueError(
                f"This needs exactly two identified coders; the data have {data.n_coders} "
                f"{'coders' if data.coders_identified else 'anonymous slots'}."
            )
        _, a, b = data.paired_codes(0, 1)
        if not a.size:
            raise ValueError("No item was labelled by both coders.")
        v = data.n_values
        table = np.bincount(a * v + b, minlength=v * v).reshape(v, v).astype(np.float64)
        return table, data
    table = np.asarray(data, dtype=np.float64)
    if table.ndim != 2 or table.shape[0] != table.shape[1] or table.shape[0] < 1:
        raise ValueError(
            "A contingency table must be a square k × k array (rows: coder A, columns: "
            f"coder B); got shape {table.shape}."
        )
    if not np.all(np.isfinite(table)) or np.any(table < 0) or table.sum() <= 1:
        raise ValueError("A contingency table holds non-negative counts adding up to at least 2.")
    return table, ReliabilityData.from_contingency(np.rint(table).astype(np.intp), domain=domain)


def _weights_or_identity(
    data: ReliabilityData, distance: DistanceLike | None
) -> NDArray[np.float64]:
    weights = agreement_weights(data, distance)
    return np.eye(data.n_values) if weights is None else weights


def _normal_p(z: float) -> float:
    return float(2.0 * special.ndtr(-abs(z)))


def _result(
    coefficient: str,
    estimate: float,
    *,
    se: float,
    se_null: float | None,
    confidence: float,
    df: float | None,
    n_items: int,
    method: str,
) -> AnalyticResult:
    """Fill z, p and the interval: normal when ``df`` is None, else Student t."""
    reference = se_null if se_null is not None else se
    if reference > 0:
        z = estimate / reference
    else:
        z = math.copysign(math.inf, estimate) if estimate != 0 else 0.0
    tail = (1.0 + float(confidence)) / 2.0
    if df is None:
        p_value = _normal_p(z)
        quantile = float(special.ndtri(tail))
    else:
        p_value = float(2.0 * stats.t.sf(abs(z), df))
        quantile = float(stats.t.ppf(tail, df))
    return AnalyticResult(
        coefficient=coefficient,
        estimate=float(estimate),
        se=float(se),
        se_null=None if se_null is None else float(se_null),
        z=float(z),
        p_value=p_value,
        low=float(estimate - quantile * se),
        high=float(min(1.0, estimate + quantile * se)),
        confidence=float(confidence),
        method=method,
        n_items=int(n_items),
        df=df,
    )


__all__ = [
    "AnalyticResult",
    "CategoryResult",
    "cohen_kappa_se",
    "fleiss_kappa_se",
    "linearized_se",
]
