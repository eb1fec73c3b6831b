"""Prevalence and bias: Di Eugenio & Glass (2004), Byrt et al. (1993), Artstein & Poesio (2008).

Two-coder indices are computed from the coders' contingency table over the items both coders
labelled (items with one value are left out: complete-case, as a contingency table is),
rows being the first coder. Categories are the data's declared domain.

- :func:`kappa_comparison`: Di Eugenio & Glass's report, :math:`\\kappa_{Co}` (Cohen) and
  :math:`\\kappa_{S\\&C}` (Siegel & Castellan, i.e. Scott's pi) side by side, with PABAK,
  the prevalence and bias indices and Cohen's maximum kappa.
- :func:`pabak`, :func:`prevalence_index`, :func:`bias_index`, :func:`kappa_max`.
- :func:`annotator_bias`: Artstein & Poesio's (2008, §3.1) annotator bias
  :math:`B = A_e^\\pi - A_e^\\kappa` for any number of coders, and the
  :math:`\\kappa - \\pi` relation.
- :func:`prevalence_closed_form`: A&P's Table 7 closed form.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics.coefficients.agreement import (
    build_decomposition,
    conger_kappa,
    evaluate,
    fleiss_pi,
    require_categories,
    require_identified,
    require_two_coders,
)
from metrics.coefficients.coder_chance import coder_distributions
from metrics.coefficients.result import CoefficientResult
from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.decomposition import Decomposition

__all__ = [
    "AnnotatorBias",
    "KappaComparison",
    "annotator_bias",
    "bias_index",
    "contingency_table",
    "decompose_kappa_max",
    "decompose_pabak",
    "kappa_comparison",
    "kappa_max",
    "pabak",
    "prevalence_closed_form",
    "prevalence_index",
]


def _labelled_by_both(data: ReliabilityData) -> NDArray[np.bool_]:
    return np.asarray(data.values_per_item == data.n_coders)


def _complete_pairs(
    data: DataLike, what: str, domain: Sequence[Hashable] | None
) -> ReliabilityData:
    """Two identified coders' data restricted to the items both labelled."""
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, what)
    require_two_coders(rd, what)
    require_categories(rd, what)
    both = _labelled_by_both(rd)
    if not both.any():
        raise ValueError(f"{what} needs at least one item labelled by both coders.")
    return rd if both.all() else rd.restricted_to_items(both)


def contingency_table(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> NDArray[np.float64]:
    """``(V, V)`` counts of items by (first coder's value, second coder's value).

    Only items both coders labelled are counted. Rows follow the first coder, as in
    Di Eugenio & Glass (2004) and Cohen (1960).
    """
    rd = _complete_pairs(data, "A contingency table", domain)
    _, first, second = rd.paired_codes(0, 1)
    size = rd.n_values
    return (
        np.bincount(first * size + second, minlength=size * size)
        .reshape(size, size)
        .astype(np.float64)
    )


def _require_binary(rd: ReliabilityData, what: str) -> None:
    if rd.n_values != 2:
        raise ValueError(
            f"The {what} is defined for a 2 × 2 table (Byrt et al. 1993); the domain has "
            f"{rd.n_values} values."
        )


def prevalence_index(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> float:
    """Byrt, Bishop & Carlin's (1993) prevalence index :math:`PI = (n_{11} - n_{22}) / N`.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (2, n_items)
        Two coders' values over a two-value domain; category 1 is ``domain[0]``.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    float
        In :math:`[-1, 1]`; 0 when both categories are equally prevalent among agreements.

    Raises
    ------
    ValueError
        Unless there are two identified coders, a two-value domain and a shared item.

    References
    ----------
    Byrt, T., Bishop, J. & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of
    Clinical Epidemiology 46(5), 423–429. https://doi.org/10.1016/0895-4356(93)90018-V

    Examples
    --------
    Di Eugenio & Glass (2004) example 1 (derived PI 0.10; docs/references.md,
    ``deg2004-examples``):

    >>> from metrics.data import ReliabilityData
    >>> round(prevalence_index(ReliabilityData.from_contingency([[70, 25], [0, 55]])), 4)
    0.1
    """
    rd = _complete_pairs(data, "The prevalence index", domain)
    _require_binary(rd, "prevalence index")
    table = contingency_table(rd)
    return float((table[0, 0] - table[1, 1]) / table.sum())


def bias_index(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> float:
    """Byrt, Bishop & Carlin's (1993) bias index :math:`BI = (n_{12} - n_{21}) / N`.

    Equals :math:`p_{1\\cdot} - p_{\\cdot 1}`: how much more often the first coder (rows)
    chose category 1 (``domain[0]``) than the second coder did.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (2, n_items)
        Two coders' values over a two-value domain.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    float
        In :math:`[-1, 1]`; 0 when the coders' marginals are equal.

    Raises
    ------
    ValueError
        Unless there are two identified coders, a two-value domain and a shared item.

    References
    ----------
    Byrt, T., Bishop, J. & Carlin, J. B. (1993). Bias, prevalence and kappa. Journal of
    Clinical Epidemiology 46(5), 423–429. https://doi.org/10.1016/0895-4356(93)90018-V

    Examples
    --------
    Di Eugenio & Glass (2004) example 1 (derived BI 1/6; docs/references.md,
    ``deg2004-examples``):

    >>> from metrics.data import ReliabilityData
    >>> round(bias_index(ReliabilityData.from_contingency([[70, 25], [0, 55]])), 4)
    0.1667
    """
    rd = _complete_pairs(data, "The bias index", domain)
    _require_binary(rd, "bias index")
    table = contingency_table(rd)
    return float((table[0, 1] - table[1, 0]) / table.sum())


def decompose_pabak(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> Decomposition:
    """Per-item decomposition of :func:`pabak` (over items both coders labelled)."""
    complete = _complete_pairs(data, "PABAK", domain)
    return build_decomposition(complete, "pabak", "uniform")[0].on_items(
        _labelled_by_both(as_reliability_data(data, domain=domain))
    )


def pabak(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> CoefficientResult:
    """Prevalence- and bias-adjusted kappa (Byrt, Bishop & Carlin 1993).

    .. math:: PABAK = \\frac{m\\,P(A) - 1}{m - 1}

    for :math:`m` categories (the declared domain); :math:`2P(A) - 1` for two, Di Eugenio &
    Glass's (2004, §3) "kappa adjusted for prevalence". It is Bennett's S on the items both
    coders labelled.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (2, n_items)
        Two identified coders' values.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult
        ``expected`` is :math:`1/m`.

    Raises
    ------
    ValueError
        Unless there are two identified coders, at least two categories and a shared item.

    References
    ----------
    Di Eugenio, B. & Glass, M. (2004). The kappa statistic: a second look. Computational
    Linguistics 30(1), 95–101. https://doi.org/10.1162/089120104773633402

    Examples
    --------
    Di Eugenio & Glass (2004) examples 3 and 4 (2P(A) − 1 = 0.8):

    >>> from metrics.data import ReliabilityData
    >>> round(pabak(ReliabilityData.from_contingency([[90, 5], [5, 0]])).value, 4)
    0.8
    """
    rd = _complete_pairs(data, "PABAK", domain)
    decomposition, model = build_decomposition(rd, "pabak", "uniform")
    return evaluate(rd, decomposition, model, "PABAK")


def _kappa_max_parts(
    totals: NDArray[np.float64], size: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    shares, _ = coder_distributions(totals, 2, size)
    largest = np.minimum(shares[..., 0, :], shares[..., 1, :]).sum(axis=-1)
    expected = (shares[..., 0, :] * shares[..., 1, :]).sum(axis=-1)
    return largest, expected


def _kappa_max_decomposition(rd: ReliabilityData) -> Decomposition:
    base, _ = build_decomposition(rd, "kappa_max", "coder")
    size = rd.n_values

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        largest, expected = _kappa_max_parts(np.asarray(totals, dtype=np.float64), size)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = (largest - expected) / (1 - expected)
        return np.where(np.abs(1 - expected) > 1e-12, value, np.nan)

    return Decomposition("kappa_max", base.item_stats, finalize)


def decompose_kappa_max(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> Decomposition:
    """Per-item decomposition of :func:`kappa_max`."""
    complete = _complete_pairs(data, "Maximum kappa", domain)
    return _kappa_max_decomposition(complete).on_items(
        _labelled_by_both(as_reliability_data(data, domain=domain))
    )


def kappa_max(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> CoefficientResult:
    """Cohen's (1960) maximum kappa attainable with the coders' marginals.

    .. math::

        \\kappa_{max} = \\frac{A_{max} - A_e}{1 - A_e}, \\qquad
        A_{max} = \\sum_k \\min(p_{1k}, p_{2k}), \\quad A_e = \\sum_k p_{1k} p_{2k}

    The result's ``observed`` is :math:`A_{max}`, the largest observed agreement the
    marginals allow. Defined for any number of categories.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (2, n_items)
        Two identified coders' values.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        Unless there are two identified coders, two categories and a shared item, or when
        :math:`A_e = 1`.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement 20(1), 37–46. https://doi.org/10.1177/001316446002000104

    Examples
    --------
    Cohen (1960) example 1, as in DKPro's Cohen1960Test (max agreement 0.90, max kappa
    0.85; recomputed 0.84615):

    >>> from metrics.data import ReliabilityData
    >>> table = [[25, 12, 3], [13, 2, 15], [12, 16, 2]]
    >>> round(kappa_max(ReliabilityData.from_contingency(table)).value, 5)
    0.84615
    """
    rd = _complete_pairs(data, "Maximum kappa", domain)
    decomposition = _kappa_max_decomposition(rd)
    largest, expected = _kappa_max_parts(decomposition.totals(), rd.n_values)
    value = float(decomposition.evaluate())
    if np.isnan(value):
        raise ValueError("Maximum kappa is undefined: the expected agreement is 1.")
    return CoefficientResult(
        name="kappa_max",
        value=value,
        observed=float(largest),
        expected=float(expected),
        kind="agreement",
        n_items=rd.n_items,
        n_pairable_items=rd.n_pairable_items,
        n_coders=2,
    )


@dataclass(frozen=True)
class KappaComparison:
    """Di Eugenio & Glass's (2004) side-by-side report for two coders.

    Attributes
    ----------
    observed : float
        :math:`P(A)`.
    expected_cohen, expected_siegel_castellan : float
        :math:`P(E)_{Co}` (each coder's marginals) and :math:`P(E)_{S\\&C}` (pooled).
    kappa_cohen, kappa_siegel_castellan : float
        :math:`\\kappa_{Co}` (Cohen's kappa) and :math:`\\kappa_{S\\&C}` (Scott's pi, Byrt's
        BAK).
    pabak : float
        :math:`(m P(A) - 1)/(m - 1)`; :math:`2P(A) - 1` for two categories.
    prevalence_index, bias_index : float or None
        Byrt et al.'s PI and BI; None unless the domain has exactly two values.
    kappa_max : float or None
        Cohen's maximum kappa; None when undefined (:math:`P(E)_{Co} = 1`).
    n_items, n_categories : int
        Items both coders labelled, and the size of the declared domain.
    """

    observed: float
    expected_cohen: float
    expected_siegel_castellan: float
    kappa_cohen: float
    kappa_siegel_castellan: float
    pabak: float
    prevalence_index: float | None
    bias_index: float | None
    kappa_max: float | None
    n_items: int
    n_categories: int

    @property
    def difference(self) -> float:
        """:math:`\\kappa_{Co} - \\kappa_{S\\&C}`, never negative (bias only raises kappa)."""
        return self.kappa_cohen - self.kappa_siegel_castellan


def kappa_comparison(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> KappaComparison:
    """Di Eugenio & Glass's (2004) report: both kappas, PABAK, prevalence and bias.

    .. math::

        \\kappa = \\frac{P(A) - P(E)}{1 - P(E)}, \\quad
        P(E)_{Co} = \\sum_j p_{j,1} p_{j,2}, \\quad
        P(E)_{S\\&C} = \\sum_j \\Big(\\frac{p_{j,1} + p_{j,2}}{2}\\Big)^2

    DEG04 recommend reporting :math:`\\kappa_{Co}` together with :math:`\\kappa_{S\\&C}` (kappa
    adjusted for bias) and :math:`2P(A) - 1` (adjusted for prevalence). For a 2 × 2 table
    Byrt et al.'s identity :math:`\\kappa_{Co} = (PABAK - PI^2 + BI^2)/(1 - PI^2 + BI^2)`
    holds. Computed from the items both coders labelled.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (2, n_items)
        Two identified coders' values; ``ReliabilityData.from_contingency(table)`` turns a
        DEG04-style table (rows: coder 1) into data.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    KappaComparison

    Raises
    ------
    ValueError
        Unless there are two identified coders, two categories and a shared item, or when an
        expected agreement is 1.

    References
    ----------
    Di Eugenio, B. & Glass, M. (2004). The kappa statistic: a second look. Computational
    Linguistics 30(1), 95–101. https://doi.org/10.1162/089120104773633402

    Examples
    --------
    Di Eugenio & Glass (2004) example 1: printed 0.6724 / 0.6632 / 0.6666 come from
    4-decimal intermediates; the exact values are 0.6725 / 0.6633 / 0.6667 (docs/references.md,
    ``deg2004-examples``):

    >>> from metrics.data import ReliabilityData
    >>> report = kappa_comparison(ReliabilityData.from_contingency([[70, 25], [0, 55]]))
    >>> kappas = report.kappa_cohen, report.kappa_siegel_castellan, report.pabak
    >>> tuple(round(value, 4) for value in kappas)
    (0.6725, 0.6633, 0.6667)
    """
    rd = _complete_pairs(data, "The kappa comparison", domain)
    table = contingency_table(rd)
    total = table.sum()
    first, second = table.sum(axis=1) / total, table.sum(axis=0) / total
    observed = float(np.trace(table) / total)
    expected_cohen = float(first @ second)
    expected_pooled = float(((first + second) / 2) @ ((first + second) / 2))
    if expected_cohen >= 1 - 1e-12 or expected_pooled >= 1 - 1e-12:
        raise ValueError(
            "Both kappas are undefined: the expected agreement is 1 (a single category in use)."
        )
    size = rd.n_values
    largest = float(np.minimum(first, second).sum())
    binary = size == 2
    return KappaComparison(
        observed=observed,
        expected_cohen=expected_cohen,
        expected_siegel_castellan=expected_pooled,
        kappa_cohen=(observed - expected_cohen) / (1 - expected_cohen),
        kappa_siegel_castellan=(observed - expected_pooled) / (1 - expected_pooled),
        pabak=(size * observed - 1) / (size - 1),
        prevalence_index=float((table[0, 0] - table[1, 1]) / total) if binary else None,
        bias_index=float((table[0, 1] - table[1, 0]) / total) if binary else None,
        kappa_max=(largest - expected_cohen) / (1 - expected_cohen),
        n_items=rd.n_items,
        n_categories=size,
    )


@dataclass(frozen=True)
class AnnotatorBias:
    """Artstein & Poesio's (2008, §3.1) annotator bias and the kappa − pi relation.

    Attributes
    ----------
    bias : float
        :math:`B = A_e^\\pi - A_e^\\kappa` (multi-pi and multi-kappa expected agreements).
    variance_form : float
        :math:`\\frac{1}{c-1} \\sum_k \\sigma^2_{P(k|c)}` with the population variance over
        coders of their category proportions; equals ``bias`` with complete data.
    kappa, pi : float
        Multi-kappa and multi-pi.
    observed, expected_kappa, expected_pi : float
        :math:`A_o`, :math:`A_e^\\kappa`, :math:`A_e^\\pi`.
    n_coders : int
    """

    bias: float
    variance_form: float
    kappa: float
    pi: float
    observed: float
    expected_kappa: float
    expected_pi: float
    n_coders: int

    @property
    def kappa_minus_pi(self) -> float:
        """:math:`\\kappa - \\pi`, as computed."""
        return self.kappa - self.pi

    @property
    def kappa_minus_pi_from_bias(self) -> float:
        """:math:`B (1 - A_o) / ((1 - A_e^\\kappa)(1 - A_e^\\pi))` (A&P 2008, §3.1)."""
        return (
            self.bias * (1 - self.observed) / ((1 - self.expected_kappa) * (1 - self.expected_pi))
        )


def annotator_bias(data: DataLike, *, domain: Sequence[Hashable] | None = None) -> AnnotatorBias:
    """Annotator bias :math:`B = A_e^\\pi - A_e^\\kappa` (Artstein & Poesio 2008, §3.1).

    .. math::

        B = \\frac{1}{c - 1} \\sum_k \\sigma^2_{P(k|c)}, \\qquad
        \\kappa - \\pi = \\frac{B (1 - A_o)}{(1 - A_e^\\kappa)(1 - A_e^\\pi)}

    B grows with the spread of the coders' category distributions and shrinks as coders are
    added, so kappa and pi converge with more coders. ``bias`` is computed from
    :func:`~metrics.coefficients.agreement.fleiss_pi` and
    :func:`~metrics.coefficients.agreement.conger_kappa` (Gwet's missing-data convention);
    ``variance_form`` from the coders' own distributions. The two agree with complete data.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Identified coders' values, ``nan`` for missing.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    AnnotatorBias

    Raises
    ------
    ValueError
        As :func:`~metrics.coefficients.agreement.conger_kappa` and ``fleiss_pi`` do.

    References
    ----------
    Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
    Computational Linguistics 34(4), 555–596. https://doi.org/10.1162/coli.07-034-R2

    Examples
    --------
    Artstein & Poesio (2008), Table 1 (derived B = 0.005 (docs/references.md#ap2008-table1)):

    >>> from metrics.data import ReliabilityData
    >>> round(annotator_bias(ReliabilityData.from_contingency([[20, 10], [20, 50]])).bias, 6)
    0.005
    """
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Annotator bias")
    kappa = conger_kappa(rd)
    pi = fleiss_pi(rd)
    counts = rd.coder_value_counts
    totals = counts.sum(axis=1)
    shares = counts[totals > 0] / totals[totals > 0, None]
    variance_form = float(shares.var(axis=0).sum() / (len(shares) - 1))
    return AnnotatorBias(
        bias=pi.expected - kappa.expected,
        variance_form=variance_form,
        kappa=kappa.value,
        pi=pi.value,
        observed=kappa.observed,
        expected_kappa=kappa.expected,
        expected_pi=pi.expected,
        n_coders=rd.n_coders,
    )


def prevalence_closed_form(delta: float, epsilon: float) -> float:
    """Artstein & Poesio's (2008, §3.2, Table 7) closed form of pi = kappa under prevalence.

    Two coders, categories COMMON and RARE, identical marginals; :math:`\\delta` is the
    proportion of agreement on RARE and :math:`\\varepsilon` half the proportion of
    disagreements:

    .. math:: \\pi = \\kappa = \\frac{\\delta}{\\delta + \\varepsilon}
              - \\frac{\\varepsilon}{1 - (\\delta + \\varepsilon)}

    Parameters
    ----------
    delta, epsilon : float
        Non-negative, with :math:`0 < \\delta + \\varepsilon < 1` and
        :math:`\\delta + 2\\varepsilon \\le 1`.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        Outside that range.

    References
    ----------
    Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
    Computational Linguistics 34(4), 555–596. https://doi.org/10.1162/coli.07-034-R2

    Examples
    --------
    A derived sample (docs/references.md, ``ap2008-table7``): delta = 0.03, epsilon = 0.01
    gives 0.739583.

    >>> round(prevalence_closed_form(0.03, 0.01), 6)
    0.739583
    """
    if delta < 0 or epsilon < 0 or not 0 < delta + epsilon < 1 or delta + 2 * epsilon > 1:
        raise ValueError(
            "delta and epsilon must be non-negative with 0 < delta + epsilon < 1 and "
            f"delta + 2·epsilon ≤ 1; got delta={delta}, epsilon={epsilon}."
        )
    rare = delta + epsilon
    return float(delta / rare - epsilon / (1 - rare))
