"""Agreement among people, among models, and between the two groups, each with its interval.

A study with model coders asks whether the models sit inside the human spread. Three numbers
answer it, on the same items and the same distance:

- **among people** and **among models**: Krippendorff's alpha of each group's coders alone
  (:func:`metrics.krippendorff_alpha` on the group's annotations);
- **between the groups**: Vanbelle & Albert's (2009) agreement between two independent
  groups of raters, written with a distance. With :math:`p^A_{ik}` and :math:`p^B_{ik}` the
  shares of group A's and group B's labels of item ``i`` that are value ``k`` (items labelled
  by both groups, ``n`` of them), :math:`\\bar p^G_k = \\frac1n \\sum_i p^G_{ik}` and
  :math:`d` the distance,

  .. math::

      \\kappa_{AB} = 1 - \\frac{D_o}{D_e},\\qquad
      D_o = \\frac1n \\sum_i \\sum_{k,l} p^A_{ik}\\, d_{kl}\\, p^B_{il},\\qquad
      D_e = \\sum_{k,l} \\bar p^A_k\\, d_{kl}\\, \\bar p^B_l .

  :math:`D_o` is the mean distance between a label of a random person of group A and one of
  a random member of group B on the same item; :math:`D_e` the same for labels of different
  items drawn from each group's own distribution. With the nominal distance it is Vanbelle &
  Albert's κ, :math:`(p_o - p_e)/(1 - p_e)`; with one coder in each group it is Cohen's
  kappa of the pair (weighted kappa with weights ``1 - d/d_max`` for another distance).

Each value comes with a bootstrap interval over items (:func:`metrics.bootstrap`, BCa by
default). The distance of the between-group value is fixed from the pooled data of both
groups (Krippendorff's ordinal metric from their value counts), and is not recomputed per
replicate; alpha's ordinal metric within a group is, as in :func:`metrics.bootstrap` of
alpha.

A value the data leaves undefined (a group of fewer than two coders, no item labelled by
both groups, no variation) is ``None`` with the reason, never ``nan``.

References
----------
Vanbelle, S. & Albert, A. (2009). Agreement between two independent groups of raters.
Psychometrika 74(3), 477–491. https://doi.org/10.1007/s11336-009-9116-1
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.alpha import decompose_krippendorff_alpha, krippendorff_alpha
from metrics.data import ReliabilityData
from metrics.decomposition import Decomposition
from metrics.distances import DistanceLike, distance_matrix, resolve_distance
from metrics.distances.scalar import IntervalDistance
from metrics.uncertainty.bootstrap import bootstrap

__all__ = [
    "MAX_GROUP_VALUES",
    "GroupAgreement",
    "GroupCoefficient",
    "between_groups_agreement",
    "decompose_between_groups",
    "group_agreement",
]

#: Distinct values up to which the between-group value uses the V × V distance matrix (its
#: bootstrap costs replicates × V²); above it only the interval distance (a closed form).
MAX_GROUP_VALUES = 500


@dataclass(frozen=True)
class GroupCoefficient:
    """One of the three values: within a group (alpha) or between the groups.

    Attributes
    ----------
    group : str
        ``"first"``, ``"second"`` or ``"between"``.
    coefficient : str
        ``"alpha"`` (within a group) or ``"between_groups_kappa"``.
    value : float or None
        ``None`` when undefined (``reason`` says why).
    ci : tuple of float or None
        The bootstrap interval ``(low, high)`` at ``confidence`` (``None`` without replicates
        or when undefined; ``note`` says why).
    observed, expected : float or None
        :math:`D_o` and :math:`D_e` (disagreements).
    n_items : int
        Items the value is computed on: pairable within the group, labelled by both groups.
    n_coders : int
        Coders of the group (of both groups for ``between``).
    """

    group: str
    coefficient: str
    value: float | None
    ci: tuple[float, float] | None
    confidence: float
    method: str | None
    observed: float | None
    expected: float | None
    n_items: int
    n_coders: int
    reason: str | None = None
    note: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "coefficient": self.coefficient,
            "value": self.value,
            "ci": None if self.ci is None else list(self.ci),
            "confidence": self.confidence,
            "method": self.method,
            "observed": self.observed,
            "expected": self.expected,
            "n_items": self.n_items,
            "n_coders": self.n_coders,
            "reason": self.reason,
            "note": self.note,
        }


@dataclass(frozen=True)
class GroupAgreement:
    """Agreement within each of two groups of coders and between them."""

    first: GroupCoefficient
    second: GroupCoefficient
    between: GroupCoefficient
    first_coders: tuple[Hashable, ...]
    second_coders: tuple[Hashable, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "first": {**self.first.to_json(), "coders": [str(c) for c in self.first_coders]},
            "second": {**self.second.to_json(), "coders": [str(c) for c in self.second_coders]},
            "between": self.between.to_json(),
        }


def group_agreement(
    data: ReliabilityData,
    *,
    first: Sequence[Hashable],
    second: Sequence[Hashable],
    distance: DistanceLike = "nominal",
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Literal["bca", "percentile"] = "bca",
) -> GroupAgreement:
    """Alpha within each group and Vanbelle & Albert's agreement between them, with intervals.

    Parameters
    ----------
    data : ReliabilityData
        Every coder's annotations; coders in neither group are ignored.
    first, second : sequence of hashable
        The coders of each group (``data.coders`` identifiers), e.g. people and models.
    distance : str, Distance or array_like, default "nominal"
        The distance of every value (alpha's and the between-group one).
    replicates : int, default 1000
        Bootstrap replicates per value; 0 for no interval.
    seed, confidence, method
        As :func:`metrics.bootstrap`.

    Returns
    -------
    GroupAgreement

    Examples
    --------
    Two people and one model on four items: the model agrees with p1 on every item and with
    p2 on three; ``D_o = 0.125`` (half a disagreement on item 2), ``D_e = 0.5``:

    >>> data = ReliabilityData.from_long(
    ...     [1, 2, 3, 4] * 3, ["p1"] * 4 + ["p2"] * 4 + ["m"] * 4, list("aabb" "abbb" "aabb"))
    >>> result = group_agreement(data, first=["p1", "p2"], second=["m"], replicates=0)
    >>> round(result.between.value, 4), result.second.reason
    (0.75, 'Agreement among a group needs at least two coders; there is 1.')
    """
    overlap = set(first) & set(second)
    if overlap:
        raise ValueError(f"Coder {sorted(map(str, overlap))[0]!r} is in both groups.")
    position = {coder: index for index, coder in enumerate(data.coders)}
    first_ids = tuple(c for c in dict.fromkeys(first) if c in position)
    second_ids = tuple(c for c in dict.fromkeys(second) if c in position)
    options = {"replicates": replicates, "seed": seed, "confidence": confidence, "method": method}
    return GroupAgreement(
        first=_within("first", data, [position[c] for c in first_ids], distance, options),
        second=_within("second", data, [position[c] for c in second_ids], distance, options),
        between=_between(
            data,
            [position[c] for c in first_ids],
            [position[c] for c in second_ids],
            distance,
            options,
        ),
        first_coders=first_ids,
        second_coders=second_ids,
    )


def between_groups_agreement(
    data: ReliabilityData,
    *,
    first: Sequence[Hashable],
    second: Sequence[Hashable],
    distance: DistanceLike = "nominal",
) -> float:
    """Vanbelle & Albert's agreement between two groups of coders (see the module docstring).

    Raises
    ------
    ValueError
        When no item was labelled by both groups, or the expected disagreement is 0.

    Examples
    --------
    One coder per group: Cohen's kappa of the pair (here 0.5).

    >>> data = ReliabilityData.from_long([1, 2, 3, 4] * 2, ["a"] * 4 + ["b"] * 4, list("aabbabbb"))
    >>> between_groups_agreement(data, first=["a"], second=["b"])
    0.5
    """
    decomposition = decompose_between_groups(data, first=first, second=second, distance=distance)
    value = float(decomposition.evaluate())
    if not np.isfinite(value):
        raise ValueError(_no_variation())
    return value


def decompose_between_groups(
    data: ReliabilityData,
    *,
    first: Sequence[Hashable],
    second: Sequence[Hashable],
    distance: DistanceLike = "nominal",
) -> Decomposition:
    """The between-group value as per-item statistics, for the bootstrap.

    One row per item labelled by both groups: ``[D_o contribution, p^A (V), p^B (V), 1]``
    (sparse when V is large), or for the interval distance above :data:`MAX_GROUP_VALUES`
    values ``[D_o contribution, mean_A x, mean_A x², mean_B x, mean_B x², 1]`` (values
    centred). ``finalize`` gives ``1 - D_o / D_e``, ``nan`` where ``D_e`` is 0.

    Raises
    ------
    ValueError
        When no item was labelled by both groups, or the distance needs a V × V matrix and
        there are more than :data:`MAX_GROUP_VALUES` values.
    """
    position = {coder: index for index, coder in enumerate(data.coders)}
    a = [position[c] for c in first if c in position]
    b = [position[c] for c in second if c in position]
    return _between_decomposition(data, a, b, distance).decomposition


# -- helpers ---------------------------------------------------------------------------------


def _within(
    group: str,
    data: ReliabilityData,
    coders: list[int],
    distance: DistanceLike,
    options: dict[str, Any],
) -> GroupCoefficient:
    confidence = float(options["confidence"])
    empty = GroupCoefficient(
        group=group,
        coefficient="alpha",
        value=None,
        ci=None,
        confidence=confidence,
        method=None,
        observed=None,
        expected=None,
        n_items=0,
        n_coders=len(coders),
    )
    if len(coders) < 2:
        return replace(
            empty,
            reason=(f"Agreement among a group needs at least two coders; there is {len(coders)}."),
        )
    subset = data.restricted_to_coders(coders)
    try:
        result = krippendorff_alpha(subset, distance=distance)
    except ValueError as error:
        return replace(empty, reason=str(error))
    decomposition = decompose_krippendorff_alpha(subset, distance=distance)
    ci, method, note = _interval(decomposition, options)
    return GroupCoefficient(
        group=group,
        coefficient="alpha",
        value=float(result.value),
        ci=ci,
        confidence=confidence,
        method=method,
        observed=float(result.observed),
        expected=float(result.expected),
        n_items=int(result.n_pairable_items),
        n_coders=len(coders),
        note=note,
    )


def _between(
    data: ReliabilityData,
    first: list[int],
    second: list[int],
    distance: DistanceLike,
    options: dict[str, Any],
) -> GroupCoefficient:
    confidence = float(options["confidence"])
    empty = GroupCoefficient(
        group="between",
        coefficient="between_groups_kappa",
        value=None,
        ci=None,
        confidence=confidence,
        method=None,
        observed=None,
        expected=None,
        n_items=0,
        n_coders=len(first) + len(second),
    )
    if not first or not second:
        return replace(empty, reason="Agreement between the groups needs a coder in each.")
    try:
        between = _between_decomposition(data, first, second, distance)
    except ValueError as error:
        return replace(empty, reason=str(error))
    decomposition = between.decomposition
    totals = decomposition.totals()
    observed, expected = (float(term) for term in between.terms(totals))
    value = float(decomposition.evaluate())
    if not np.isfinite(value):
        return replace(
            empty,
            n_items=decomposition.n_items,
            observed=observed,
            expected=expected,
            reason=_no_variation(),
        )
    ci, method, note = _interval(decomposition, options)
    return GroupCoefficient(
        group="between",
        coefficient="between_groups_kappa",
        value=value,
        ci=ci,
        confidence=confidence,
        method=method,
        observed=observed,
        expected=expected,
        n_items=decomposition.n_items,
        n_coders=len(first) + len(second),
        note=note,
    )


class _Between:
    """The between-group statistics and their ``(D_o, D_e)`` from column totals."""

    def __init__(
        self,
        terms: Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]],
        stats: Any,
    ) -> None:
        self.terms = terms
        self.decomposition = Decomposition("between_groups_kappa", stats, self.finalize)

    def finalize(self, totals: NDArray[np.float64]) -> NDArray[np.float64]:
        observed, expected = self.terms(np.asarray(totals, dtype=np.float64))
        with np.errstate(divide="ignore", invalid="ignore"):
            value = 1.0 - observed / expected
        return np.where(expected > 0, value, np.nan)


def _between_decomposition(
    data: ReliabilityData, first: list[int], second: list[int], distance: DistanceLike
) -> _Between:
    if not first or not second:
        raise ValueError("Agreement between the groups needs a coder in each.")
    V = data.n_values
    in_first = np.isin(data.coder_index, first)
    in_second = np.isin(data.coder_index, second)
    count_a = np.bincount(data.item_index[in_first], minlength=data.n_items)
    count_b = np.bincount(data.item_index[in_second], minlength=data.n_items)
    both = (count_a > 0) & (count_b > 0)
    if not both.any():
        raise ValueError("No item was labelled by both groups.")
    resolved = resolve_distance(distance, data)
    pooled = data.restricted_to_coders(sorted(set(first) | set(second)))
    if isinstance(resolved, IntervalDistance) and V > MAX_GROUP_VALUES:
        return _interval_closed_form(data, in_first, in_second, count_a, count_b, both)
    if V > MAX_GROUP_VALUES:
        raise ValueError(
            f"{V} distinct labels, more than {MAX_GROUP_VALUES}: the agreement between the "
            f"groups with the {resolved.name} distance needs a {V} × {V} matrix per replicate."
        )
    d = distance_matrix(resolved, pooled)
    d = (d + d.T) / 2.0
    rows = np.flatnonzero(both)
    row_of = np.full(data.n_items, -1, dtype=np.intp)
    row_of[rows] = np.arange(rows.size)
    n_rows = rows.size
    share_a = _shares(data, in_first, count_a, row_of, n_rows, V)
    share_b = _shares(data, in_second, count_b, row_of, n_rows, V)
    cross = np.asarray(share_b.multiply(np.asarray(share_a @ d)).sum(axis=1)).ravel()
    stats = sparse.hstack(
        [
            sparse.csr_matrix(cross[:, None]),
            share_a,
            share_b,
            sparse.csr_matrix(np.ones((n_rows, 1))),
        ],
        format="csr",
    )
    if V <= 16:
        stats = stats.toarray()

    def terms(totals: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        n = totals[..., -1]
        with np.errstate(divide="ignore", invalid="ignore"):
            p_a = totals[..., 1 : V + 1] / n[..., None]
            p_b = totals[..., V + 1 : 2 * V + 1] / n[..., None]
            return totals[..., 0] / n, np.einsum("...k,kl,...l->...", p_a, d, p_b)

    return _Between(terms, stats)


def _shares(
    data: ReliabilityData,
    mask: NDArray[np.bool_],
    count: NDArray[np.intp],
    row_of: NDArray[np.intp],
    n_rows: int,
    V: int,
) -> sparse.csr_matrix:
    """``(n_rows, V)``: each kept item's share of the group's labels per value."""
    item = data.item_index[mask]
    row = row_of[item]
    kept = row >= 0
    weight = 1.0 / count[item[kept]]
    return sparse.csr_matrix((weight, (row[kept], data.value_code[mask][kept])), shape=(n_rows, V))


def _interval_closed_form(
    data: ReliabilityData,
    in_first: NDArray[np.bool_],
    in_second: NDArray[np.bool_],
    count_a: NDArray[np.intp],
    count_b: NDArray[np.intp],
    both: NDArray[np.bool_],
) -> _Between:
    """The interval distance ``(x - y)²`` from each group's mean and mean square per item."""
    floats = data.domain_as_floats
    if floats is None:
        raise ValueError("The interval distance needs numeric labels.")
    centre = float(np.mean(floats[data.value_code]))
    values = floats[data.value_code] - centre
    n_items = data.n_items

    def moments(mask: NDArray[np.bool_], count: NDArray[np.intp]) -> tuple[Any, Any]:
        item = data.item_index[mask]
        first = np.bincount(item, weights=values[mask], minlength=n_items)
        second = np.bincount(item, weights=values[mask] ** 2, minlength=n_items)
        with np.errstate(divide="ignore", invalid="ignore"):
            return first / count, second / count

    a1, a2 = moments(in_first, count_a)
    b1, b2 = moments(in_second, count_b)
    a1, a2, b1, b2 = a1[both], a2[both], b1[both], b2[both]
    cross = a2 + b2 - 2.0 * a1 * b1
    stats = np.column_stack([cross, a1, a2, b1, b2, np.ones_like(cross)])

    def terms(totals: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        n = totals[..., 5]
        with np.errstate(divide="ignore", invalid="ignore"):
            mean_a, square_a = totals[..., 1] / n, totals[..., 2] / n
            mean_b, square_b = totals[..., 3] / n, totals[..., 4] / n
            return totals[..., 0] / n, square_a + square_b - 2.0 * mean_a * mean_b

    return _Between(terms, stats)


def _no_variation() -> str:
    return (
        "The expected disagreement between the groups is 0 (every label of both groups is "
        "the same value): their agreement is undefined."
    )


def _interval(
    decomposition: Decomposition, options: dict[str, Any]
) -> tuple[tuple[float, float] | None, str | None, str | None]:
    replicates = int(options["replicates"])
    if replicates == 0:
        return None, None, "No interval: the computation asked for no bootstrap replicates."
    if decomposition.n_items < 2:
        return None, None, "No interval: fewer than two items."
    try:
        result = bootstrap(
            decomposition,
            replicates=replicates,
            seed=int(options["seed"]),
            confidence=float(options["confidence"]),
            method=options["method"],
        )
    except ValueError as error:
        return None, None, f"No interval: {error}"
    if not (np.isfinite(result.low) and np.isfinite(result.high)):
        return None, result.method, "No interval: too few valid replicates."
    return (float(result.low), float(result.high)), str(result.method), result.fallback
