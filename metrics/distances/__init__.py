"""Distances between labels, and a registry to look them up by name.

``get_distance("ordinal")`` returns a :class:`~metrics.distances.base.Distance`; the set
distances (``jaccard``, ``dice``, ``passonneau``, ``masi``, ``masi_ap``) and the hierarchy
distances (``tree``, ``melamed_resnik``, which need ``tree=``) come from their own modules,
imported only when asked for.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from metrics.distances.base import Distance
from metrics.distances.scalar import (
    CallableDistance,
    IntervalDistance,
    MatrixDistance,
    NominalDistance,
    OrdinalDistance,
    RatioDistance,
)

SCALAR_DISTANCES: dict[str, type[Any]] = {
    "nominal": NominalDistance,
    "ordinal": OrdinalDistance,
    "interval": IntervalDistance,
    "ratio": RatioDistance,
}


def _set_distances() -> dict[str, Distance]:
    try:
        from metrics.distances.sets import SET_DISTANCES
    except ImportError:
        return {}
    return dict(SET_DISTANCES)


def _hierarchy_distances() -> dict[str, type[Any]]:
    try:
        from metrics.distances.hierarchy import HIERARCHY_DISTANCES
    except ImportError:
        return {}
    return dict(HIERARCHY_DISTANCES)


def distance_names() -> list[str]:
    """Every name :func:`get_distance` knows, in registry order."""
    return [*SCALAR_DISTANCES, *_set_distances(), *_hierarchy_distances()]


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
    sets = _set_distances()
    if key in sets:
        if not options:
            return sets[key]
        try:
            return dataclasses.replace(sets[key], **options)  # type: ignore[type-var]
        except (TypeError, ValueError) as error:
            raise ValueError(f"Bad options for the {key} distance: {error}") from None
    hierarchy = _hierarchy_distances()
    if key in hierarchy:
        if "tree" not in options:
            raise ValueError(f"The {key} distance needs a tree: get_distance({key!r}, tree=...).")
        if isinstance(options["tree"], Mapping):
            from metrics.distances.hierarchy import CategoryTree

            options = {**options, "tree": CategoryTree(options["tree"])}
        try:
            return hierarchy[key](**options)  # type: ignore[no-any-return]
        except TypeError as error:
            raise ValueError(f"Bad options for the {key} distance: {error}.") from None
    raise ValueError(f"Unknown distance {name!r}; known distances: {', '.join(distance_names())}.")


__all__ = [
    "CallableDistance",
    "Distance",
    "IntervalDistance",
    "MatrixDistance",
    "NominalDistance",
    "OrdinalDistance",
    "RatioDistance",
    "distance_names",
    "get_distance",
]
