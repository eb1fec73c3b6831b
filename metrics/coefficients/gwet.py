"""Gwet's AC1/AC2 and Brennan & Prediger's coefficient, for any number of coders.

Both use the pairwise observed agreement of the kappa family and a chance model that does
not depend on coder identities, so agreement-table data (anonymous coders) is accepted.
Missing values follow Gwet's (2014) generalisation as irrCAC implements it: observed
agreement over items with at least two values, category shares
:math:`\\pi_k = \\frac{1}{n}\\sum_i n_{ik}/r_i` over the items with at least one value.
Weights are agreement weights :math:`w = 1 - d / d_{max}` from a distance, through their
symmetric part (:func:`~metrics.coefficients.agreement.agreement_weights`), as for every
coefficient and standard error of the library.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from metrics.coefficients.agreement import (
    build_decomposition,
    evaluate,
    require_categories,
    uniform_chance_weights,
)
from metrics.coefficients.result import CoefficientResult
from metrics.data import DataLike, as_reliability_data
from metrics.decomposition import Decomposition
from metrics.distances import DistanceLike

__all__ = ["brennan_prediger", "decompose_brennan_prediger", "decompose_gwet_ac1", "gwet_ac1"]


def decompose_gwet_ac1(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """Per-item decomposition of :func:`gwet_ac1`."""
    rd = as_reliability_data(data, domain=domain)
    require_categories(rd, "Gwet's AC1")
    name = "gwet_ac1" if distance is None else "gwet_ac2"
    return build_decomposition(rd, name, "gwet", uniform_chance_weights(rd, distance))[0]


def gwet_ac1(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> CoefficientResult:
    """Gwet's (2008) AC1, or AC2 when a distance is given.

    .. math::

        A_e = \\frac{T_w}{V (V - 1)} \\sum_k \\pi_k (1 - \\pi_k), \\qquad
        \\pi_k = \\frac{1}{n} \\sum_i \\frac{n_{ik}}{r_i}

    with :math:`T_w = \\sum_{k,l} w_{kl}` (:math:`= V` unweighted), :math:`V` the size of the
    declared domain, and :math:`A_o` the (weighted) pairwise observed agreement over the
    pairable items. Missing values: Gwet's (2014) convention, as irrCAC's ``CAC.gwet()``.
    The result's ``name`` is ``"gwet_ac1"`` or ``"gwet_ac2"``.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing; agreement-table data is accepted.
    distance : Distance or array_like of shape (V, V), optional
        Disagreement weights over ``data.domain`` (AC2); nominal (AC1) when omitted.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        If the domain has a single value, no item is pairable, or the expected agreement is 1.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of
    high agreement. British Journal of Mathematical and Statistical Psychology 61(1), 29–48.
    https://doi.org/10.1348/000711006X126600

    Examples
    --------
    Gwet (2008) paradox table, as in DKPro's R irrCAC 1.4 fixture 01 (AC1 0.808):

    >>> from metrics.data import ReliabilityData
    >>> data = ReliabilityData.from_contingency([[80, 7], [8, 5]])
    >>> round(gwet_ac1(data).value, 3)
    0.808
    """
    rd = as_reliability_data(data, domain=domain)
    require_categories(rd, "Gwet's AC1")
    name = "gwet_ac1" if distance is None else "gwet_ac2"
    decomposition, model = build_decomposition(
        rd, name, "gwet", uniform_chance_weights(rd, distance)
    )
    return evaluate(rd, decomposition, model, "Gwet's AC1/AC2")


def decompose_brennan_prediger(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> Decomposition:
    """Per-item decomposition of :func:`brennan_prediger`."""
    rd = as_reliability_data(data, domain=domain)
    require_categories(rd, "Brennan-Prediger")
    return build_decomposition(
        rd, "brennan_prediger", "uniform", uniform_chance_weights(rd, distance)
    )[0]


def brennan_prediger(
    data: DataLike,
    *,
    distance: DistanceLike | None = None,
    domain: Sequence[Hashable] | None = None,
) -> CoefficientResult:
    """Brennan & Prediger's (1981) coefficient: uniform chance over the declared domain.

    .. math:: A_e = \\frac{1}{V^2} \\sum_{k,l} w_{kl}

    (:math:`= 1/V` unweighted, when it equals :func:`~metrics.coefficients.agreement.bennett_s`),
    with :math:`A_o` the (weighted) pairwise observed agreement over the pairable items.
    Missing values: Gwet's (2014) convention, as irrCAC's ``CAC.bp()``.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Values, ``nan`` for missing; agreement-table data is accepted.
    distance : Distance or array_like of shape (V, V), optional
        Disagreement weights over ``data.domain``; nominal when omitted.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        If the domain has a single value, no item is pairable, or the expected agreement is 1.

    References
    ----------
    Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and
    alternatives. Educational and Psychological Measurement 41(3), 687–699.
    https://doi.org/10.1177/001316448104100307

    Examples
    --------
    Brennan & Prediger (1981) example 1, as in DKPro's test (S = 0.40):

    >>> from metrics.data import ReliabilityData
    >>> table = [[50, 0, 0], [10, 10, 10], [20, 0, 0]]
    >>> round(brennan_prediger(ReliabilityData.from_contingency(table)).value, 2)
    0.4
    """
    rd = as_reliability_data(data, domain=domain)
    require_categories(rd, "Brennan-Prediger")
    decomposition, model = build_decomposition(
        rd, "brennan_prediger", "uniform", uniform_chance_weights(rd, distance)
    )
    return evaluate(rd, decomposition, model, "Brennan-Prediger")
