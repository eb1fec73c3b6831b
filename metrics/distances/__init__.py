"""Distances between labels: a registry by name, and the one way every coefficient reads them.

Every coefficient, diagnostic, standard error and the report turn their ``distance=``
argument into a :class:`~metrics.distances.base.Distance` with :func:`resolve_distance` (a
registry name, a ``Distance``, or a ``V × V`` array over the data's domain), and a Distance
into a checked ``V × V`` matrix with :func:`distance_matrix`.

Conventions, the same for every coefficient:

- A distance is finite, non-negative and zero between a value and itself.
- **An asymmetric matrix counts through its symmetric part.** Alpha's coincidences are
  symmetric, so alpha only ever sees :math:`(d + d^T)/2`; the kappa family (observed
  agreement, S, pi, kappa, weighted kappa, AC2, Brennan–Prediger), the diagnostics and every
  analytic standard error use the agreement weights :math:`w = 1 - d/d_{max}` (``d_max`` the
  largest entry of ``d`` as given) replaced by :math:`(w + w^T)/2`. So a coefficient never
  depends on which coder is listed first, and a contingency table gives the same value
  through the coefficient and through its standard error. This is what irrCAC 0.4.4
  (``irrCAC.raw.CAC``) does on raw ratings, where weights enter only through quadratic forms
  (``Σ_kl n_ik w_kl n_il``, ``π' W π``) and the linearised variances use
  ``(W π + W' π) / 2``; its contingency-table class ``irrCAC.table.CAC`` reads weights as
  directed (rows: rater A), and so does Cohen's (1968) weighted kappa — with asymmetric
  weights those give other numbers than this library.
- The ordinal distance ranks labels in the domain's order, so it needs an order that means
  something: numbers, or a declared ``domain=`` (see
  :attr:`metrics.data.ReliabilityData.ordered_domain`); string labels whose domain was only
  sorted alphabetically raise ``ValueError``. Interval and ratio distances need numbers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.data import ReliabilityData
from metrics.distances.base import Distance
from metrics.distances.hierarchy import HIERARCHY_DISTANCES, CategoryTree
from metrics.distances.scalar import (
    CallableDistance,
    IntervalDistance,
    MatrixDistance,
    NominalDistance,
    OrdinalDistance,
    RatioDistance,
    numeric_domain,
)
from metrics.distances.sets import SET_DISTANCES

#: What every public function accepts as ``distance=``: see :func:`resolve_distance`.
DistanceLike: TypeAlias = str | Distance | npt.ArrayLike

SCALAR_DISTANCES: dict[str, type[Any]] = {
    "nominal": NominalDistance,
    "ordinal": OrdinalDistance,
    "interval": IntervalDistance,
    "ratio": RatioDistance,
}


def distance_names() -> list[str]:
    """Every name :func:`get_distance` knows, in registry order.

    Examples
    --------
    >>> distance_names()[:4]
    ['nominal', 'ordinal', 'interval', 'ratio']
    """
    return [*SCALAR_DISTANCES, *SET_DISTANCES, *HIERARCHY_DISTANCES]


def get_distance(name: str, **options: Any) -> Distance:
    """Look a distance up by name.

    Parameters
    ----------
    name : str
        ``nominal``, ``ordinal``, ``interval``, ``ratio``; the set distances ``jaccard``,
        ``dice``, ``passonneau``, ``masi`` (Passonneau 2006, ``1 - J·M``), ``masi_ap``
        (Artstein & Poesio's ``d_P × d_J``); the hierarchy distances ``tree`` and
        ``melamed_resnik``.
    **options
        Passed to the distance's constructor (for example ``empty="subset"`` for the set
        distances); hierarchy distances need ``tree=``, a ``CategoryTree`` or a
        ``{node: parent or None}`` mapping.

    Returns
    -------
    Distance

    Raises
    ------
    ValueError
        For an unknown name (the message lists the known ones), or options a distance does
        not take.

    Examples
    --------
    >>> get_distance("interval").matrix([1, 3]).tolist()
    [[0.0, 4.0], [4.0, 0.0]]
    """
    key = name.strip().lower()
    if key in SCALAR_DISTANCES:
        if options:
            raise ValueError(f"The {key} distance takes no options; got {sorted(options)}.")
        return SCALAR_DISTANCES[key]()  # type: ignore[no-any-return]
    if key in SET_DISTANCES:
        if not options:
            return SET_DISTANCES[key]
        try:
            return dataclasses.replace(SET_DISTANCES[key], **options)  # type: ignore[type-var]
        except (TypeError, ValueError) as error:
            raise ValueError(f"Bad options for the {key} distance: {error}") from None
    if key in HIERARCHY_DISTANCES:
        if options.get("tree") is None:
            raise ValueError(f"The {key} distance needs a tree: get_distance({key!r}, tree=...).")
        if isinstance(options["tree"], Mapping):
            options = {**options, "tree": CategoryTree(options["tree"])}
        try:
            return HIERARCHY_DISTANCES[key](**options)
        except TypeError as error:
            raise ValueError(f"Bad options for the {key} distance: {error}.") from None
    raise ValueError(f"Unknown distance {name!r}; known distances: {', '.join(distance_names())}.")


def resolve_distance(
    distance: DistanceLike,
    data: ReliabilityData | None = None,
    *,
    tree: Any = None,
) -> Distance:
    """The one way from a ``distance=`` argument to a :class:`Distance`, checked against data.

    Parameters
    ----------
    distance : str, Distance or array_like of shape (V, V)
        A registry name (:func:`distance_names`), a ``Distance``, or a matrix over the
        data's domain in order (wrapped in :class:`MatrixDistance`).
    data : ReliabilityData, optional
        When given, the distance is checked against it: the ordinal distance needs an
        ordered domain, interval and ratio need numeric labels, a matrix without labels
        needs ``V × V``.
    tree : CategoryTree or mapping, optional
        The hierarchy for the ``tree`` and ``melamed_resnik`` names (``{node: parent}``);
        ignored for other names.

    Returns
    -------
    Distance

    Raises
    ------
    ValueError
        For an unknown name, a bad matrix, or a distance the data cannot take (string labels
        without a declared order for ``ordinal``, non-numeric labels for ``interval`` and
        ``ratio``).
    TypeError
        When ``data`` is not ``ReliabilityData`` (a level of measurement passed by mistake:
        that is :func:`metrics.report_distance`'s job).

    Examples
    --------
    >>> from metrics.data import ReliabilityData
    >>> data = ReliabilityData.from_long([1, 1], ["a", "b"], ["low", "high"])
    >>> resolve_distance("ordinal", data)
    Traceback (most recent call last):
    ...
    ValueError: The ordinal distance ranks labels in the order of the value domain, but these \
string labels ('high', 'low') have no declared order (they were only sorted alphabetically). \
Pass domain=[...] listing every label from lowest to highest.
    >>> resolve_distance("ordinal", data.with_domain(["low", "mid", "high"])).name
    'ordinal'
    """
    if data is not None and not isinstance(data, ReliabilityData):
        raise TypeError(
            f"resolve_distance(distance, data): data must be ReliabilityData or None, got "
            f"{type(data).__name__}. For a report's level of measurement use "
            "metrics.report_distance(level, distance, tree=...)."
        )
    resolved = _as_distance(distance, tree)
    if data is not None:
        _check_against(resolved, data)
    return resolved


def _as_distance(distance: DistanceLike, tree: Any) -> Distance:
    if isinstance(distance, str):
        if distance.strip().lower() in HIERARCHY_DISTANCES:
            return get_distance(distance, tree=tree)
        return get_distance(distance)
    if isinstance(distance, Distance):
        return distance
    if distance is None:
        raise ValueError("A distance is required here: a name, a Distance or a V × V matrix.")
    return MatrixDistance(distance)  # type: ignore[return-value]


def _check_against(distance: Distance, data: ReliabilityData) -> None:
    if isinstance(distance, OrdinalDistance) and not data.ordered_domain:
        shown = ", ".join(repr(value) for value in data.domain[:5])
        raise ValueError(
            "The ordinal distance ranks labels in the order of the value domain, but these "
            f"string labels ({shown}{', ...' if data.n_values > 5 else ''}) have no declared "
            "order (they were only sorted alphabetically). Pass domain=[...] listing every "
            "label from lowest to highest."
        )
    if isinstance(distance, IntervalDistance | RatioDistance):
        numeric_domain(data.domain, distance.name)
    if isinstance(distance, MatrixDistance) and distance.labels is None:
        size = np.shape(distance.weights)[0]
        if size != data.n_values:
            raise ValueError(
                f"The distance matrix must be V × V = {data.n_values} × {data.n_values} for "
                f"the data's domain; got {size} × {size}. Give the matrix's labels "
                "(MatrixDistance(weights, labels=...)) to align it with the domain."
            )


def distance_matrix(distance: DistanceLike, data: ReliabilityData) -> NDArray[np.float64]:
    """The ``V × V`` distances between the values of ``data.domain``, checked.

    Data-dependent distances (Krippendorff's ordinal metric) are computed from the value
    counts of the pairable values. The matrix is returned as the distance gives it; how an
    asymmetric one counts is described in the module docstring.

    Parameters
    ----------
    distance : str, Distance or array_like of shape (V, V)
        Anything :func:`resolve_distance` takes.
    data : ReliabilityData

    Returns
    -------
    ndarray of float, shape (V, V)
        Finite, non-negative, zero on the diagonal.

    Raises
    ------
    ValueError
        As :func:`resolve_distance`, or when the distance's matrix has the wrong shape, a
        negative or non-finite entry, or a non-zero diagonal.

    Examples
    --------
    >>> from metrics.data import ReliabilityData
    >>> distance_matrix("interval", ReliabilityData.from_long([1, 1], ["a", "b"], [1, 3]))
    array([[0., 4.],
           [4., 0.]])
    """
    resolved = resolve_distance(distance, data)
    matrix = np.asarray(
        resolved.matrix(data.domain, data.pairable_value_counts()), dtype=np.float64
    )
    check_matrix(matrix, data.n_values, str(resolved.name))
    return matrix


def check_matrix(matrix: NDArray[np.float64], size: int, name: str) -> None:
    """``ValueError`` unless ``matrix`` is a ``size × size`` distance matrix."""
    if matrix.shape != (size, size):
        raise ValueError(f"The {name} distance gave a {matrix.shape} matrix for {size} values.")
    if not np.all(np.isfinite(matrix)) or np.any(matrix < 0):
        raise ValueError(f"The {name} distance gave negative or non-finite distances.")
    if np.any(np.diag(matrix) != 0):
        raise ValueError(f"The {name} distance must be 0 between a value and itself.")


__all__ = [
    "CallableDistance",
    "Distance",
    "DistanceLike",
    "IntervalDistance",
    "MatrixDistance",
    "NominalDistance",
    "OrdinalDistance",
    "RatioDistance",
    "distance_matrix",
    "distance_names",
    "get_distance",
    "resolve_distance",
]
