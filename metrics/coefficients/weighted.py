"""Cohen's (1968) weighted kappa, and Gwet's generalisation to more than two coders."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from metrics.coefficients.agreement import _Model as Model
from metrics.coefficients.agreement import (
    agreement_weights,
    build_decomposition,
    evaluate,
    require_identified,
)
from metrics.coefficients.closed_forms import (
    two_coder_kappa_from_array,
    two_coder_kappa_from_data,
)
from metrics.coefficients.result import CoefficientResult
from metrics.data import DataLike, ReliabilityData, as_reliability_data
from metrics.decomposition import Decomposition
from metrics.distances import DistanceLike

__all__ = ["decompose_weighted_kappa", "weighted_kappa"]


def _prepare(
    data: DataLike, distance: DistanceLike, domain: Sequence[Hashable] | None
) -> tuple[ReliabilityData, Decomposition, Model]:
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Weighted kappa")
    if rd.n_coders < 2:
        raise ValueError(f"Weighted kappa needs at least two coders; got {rd.n_coders}.")
    weights = agreement_weights(rd, distance)
    if weights is None:
        raise ValueError("Weighted kappa needs a distance.")
    return rd, *build_decomposition(rd, "weighted_kappa", "coder", weights)


def decompose_weighted_kappa(
    data: DataLike, *, distance: DistanceLike, domain: Sequence[Hashable] | None = None
) -> Decomposition:
    """Per-item decomposition of :func:`weighted_kappa`."""
    return _prepare(data, distance, domain)[1]


def weighted_kappa(
    data: DataLike, *, distance: DistanceLike, domain: Sequence[Hashable] | None = None
) -> CoefficientResult:
    """Cohen's (1968) weighted kappa :math:`\\kappa_w`, normalised by the largest distance.

    .. math::

        \\kappa_w = 1 - \\frac{D_o}{D_e}, \\quad
        D_o = \\frac{1}{d_{max}} \\frac{1}{i} \\sum_i d_{k(c_1,i)\\,k(c_2,i)}, \\quad
        D_e = \\frac{1}{d_{max}} \\sum_{j,l} \\hat P(k_j|c_1) \\hat P(k_l|c_2)\\, d_{k_j k_l}

    (Artstein & Poesio 2008, §2.6.2). The result reports agreements
    :math:`A_o = 1 - D_o` and :math:`A_e = 1 - D_e`, so ``value = (A_o - A_e)/(1 - A_e)``.
    With more than two coders this is Gwet's (2014) weighted multi-kappa (irrCAC's weighted
    ``conger()``): observed and expected agreement averaged over ordered coder pairs.

    Asymmetric weights count through their symmetric part, as in every coefficient of the
    library (:mod:`metrics.distances`): the value does not depend on which coder is listed
    first. Cohen (1968) also allowed directed weights (first coder indexing rows), which give
    another number when the table and the weights are both asymmetric; they are not offered.

    Missing values: Gwet's (2014) convention, as in
    :func:`~metrics.coefficients.agreement.conger_kappa`: :math:`D_o` over items labelled by
    at least two coders, each coder's distribution from all of that coder's values.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        Identified coders' values, ``nan`` for missing.
    distance : str, Distance or array_like of shape (V, V)
        A registry name, a :class:`~metrics.distances.base.Distance` or a ``V × V`` matrix of
        disagreement weights over ``data.domain`` (Cohen's :math:`v`, zero on the diagonal).
        With nominal weights :math:`\\kappa_w = \\kappa`.
    domain : sequence, optional
        Every value a label may take, in order (see
        :func:`metrics.data.as_reliability_data`).

    Returns
    -------
    CoefficientResult

    Raises
    ------
    ValueError
        For agreement-table data, fewer than two coders, a distance of the wrong shape or
        zero everywhere, no pairable item, or :math:`D_e = 0`.

    References
    ----------
    Cohen, J. (1968). Weighted kappa: nominal scale agreement with provision for scaled
    disagreement or partial credit. Psychological Bulletin 70(4), 213–220.
    https://doi.org/10.1037/h0026256

    Examples
    --------
    Artstein & Poesio (2008), Table 4 with the §2.7.2 weights (0.5 to or from CHCK;
    D_o = 0.09, D_e = 0.49, kappa_w ≈ 0.8163):

    >>> from metrics.data import ReliabilityData
    >>> table = [[46, 0, 0], [6, 32, 6], [0, 0, 10]]  # rows coder A: STAT, IREQ, CHCK
    >>> d = [[0, 1, 0.5], [1, 0, 0.5], [0.5, 0.5, 0]]
    >>> round(weighted_kappa(ReliabilityData.from_contingency(table), distance=d).value, 4)
    0.8163
    """
    direct = two_coder_kappa_from_array(data, distance, domain, "weighted_kappa")
    if direct is not None:
        return direct
    rd = as_reliability_data(data, domain=domain)
    require_identified(rd, "Weighted kappa")
    if rd.n_coders == 2:
        weights = agreement_weights(rd, distance)
        if weights is None:
            raise ValueError("Weighted kappa needs a distance.")
        direct = two_coder_kappa_from_data(rd, weights, "weighted_kappa")
        if direct is not None:
            return direct
    rd, decomposition, model = _prepare(rd, distance, domain)
    return evaluate(rd, decomposition, model, "Weighted kappa")
