"""Helpers the structured kinds share: factorising identifiers, JSON-ready names and numbers,
and the report's bootstrap entries.

Every report of :mod:`metrics.structured` writes a measure as ``{"value": ..., ...}``; a
measure undefined on the data has ``"value": null`` and a ``"reason"``. With ``bootstrap``
replicates, each defined measure with a decomposition gets ``"ci"`` (``low``, ``high``,
``confidence``, ``method``, ``replicates``) or ``"ci": null`` with a ``"ci_reason"``, exactly
as the span report does (:mod:`metrics.spans.report`). All intervals of one report resample
the same units (items or documents): replicate ``r`` draws from
``np.random.default_rng([seed, r])`` (:mod:`metrics.uncertainty.bootstrap`).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.decomposition import Decomposition
from metrics.uncertainty.bootstrap import bootstrap as bootstrap_interval

Entry = dict[str, Any]

__all__ = [
    "Entry",
    "add_intervals",
    "check_report_options",
    "factorize",
    "json_name",
    "json_number",
    "run_measure",
    "undefined",
]


def factorize(
    values: npt.ArrayLike | Sequence[Hashable], what: str
) -> tuple[tuple[Hashable, ...], NDArray[np.intp]]:
    """Distinct values (sorted where they sort) and each element's index among them.

    Numbers and strings in an array go through ``np.unique``; other hashables are numbered in
    order of first appearance. ``None`` is refused: a missing identifier is an error.

    Examples
    --------
    >>> factorize(["b", "a", "b"], "coders")
    (('a', 'b'), array([1, 0, 1]))
    """
    sequence = values if isinstance(values, np.ndarray) else list(values)  # type: ignore[arg-type]
    if len(sequence) == 0:
        return (), np.zeros(0, dtype=np.intp)
    array = np.asarray(sequence) if _plain(sequence) else None
    if array is not None and array.ndim == 1 and array.dtype.kind in "iuUS":
        unique, inverse = np.unique(array, return_inverse=True)
        return tuple(unique.tolist()), inverse.astype(np.intp).reshape(-1)
    index: dict[Hashable, int] = {}
    codes = np.empty(len(sequence), dtype=np.intp)
    for position, value in enumerate(sequence):  # type: ignore[arg-type]
        if value is None or (isinstance(value, float) and value != value):
            raise ValueError(f"{what} must not be missing (None or NaN); entry {position} is.")
        codes[position] = index.setdefault(value, len(index))
    names = list(index)
    try:
        order = sorted(range(len(names)), key=lambda i: names[i])  # type: ignore[arg-type,return-value]
    except TypeError:
        return tuple(names), codes
    renumber = np.empty(len(names), dtype=np.intp)
    renumber[order] = np.arange(len(names))
    return tuple(names[i] for i in order), renumber[codes]


def _plain(sequence: object) -> bool:
    if isinstance(sequence, np.ndarray):
        return sequence.dtype != object
    first = sequence[0]  # type: ignore[index]
    return isinstance(first, str | int | np.integer) and not isinstance(first, bool)


def json_name(value: Hashable) -> Any:
    """A JSON-ready identifier: strings and numbers as they are, anything else as text."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return value
    return str(value)


def json_number(value: Any) -> float | None:
    """A float, or None for None, nan and infinities (JSON has none of them)."""
    if value is None:
        return None
    number = float(value)
    return number if np.isfinite(number) else None


def undefined(error: ValueError) -> Entry:
    """A measure's entry where the data leave it undefined."""
    return {"value": None, "reason": str(error)}


def check_report_options(bootstrap: int, confidence: float) -> None:
    """Refuse a bootstrap count that is not a whole number ≥ 0 or a confidence outside (0, 1)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence}.")
    if isinstance(bootstrap, bool) or int(bootstrap) != bootstrap or bootstrap < 0:
        raise ValueError(f"bootstrap must be a whole number of replicates ≥ 0; got {bootstrap}.")


def run_measure(
    coefficients: dict[str, Entry],
    decompositions: dict[str, Decomposition | None],
    key: str,
    compute: Callable[[], tuple[Entry, Decomposition | None]],
) -> None:
    """Store ``compute()``'s entry and decomposition under ``key``; a ``ValueError`` (the data
    leave the measure undefined) becomes ``{"value": null, "reason": ...}``."""
    try:
        coefficients[key], decompositions[key] = compute()
    except ValueError as error:
        coefficients[key], decompositions[key] = undefined(error), None


def add_intervals(
    coefficients: dict[str, Entry],
    decompositions: dict[str, Decomposition | None],
    *,
    replicates: int,
    seed: int,
    confidence: float,
    unit: str,
) -> None:
    """A ``ci`` for every defined measure; the same seed draws the same ``unit``s for all.

    A measure without a decomposition, or with fewer than two units, gets ``"ci": null`` and
    a ``"ci_reason"``.
    """
    for key, entry in coefficients.items():
        if entry.get("value") is None:
            continue
        decomposition = decompositions.get(key)
        if decomposition is None:
            entry["ci"] = None
            entry["ci_reason"] = f"this measure does not decompose over {unit}s."
            continue
        if decomposition.n_items < 2:
            entry["ci"] = None
            entry["ci_reason"] = (
                f"an interval resamples {unit}s and needs at least two; "
                f"got {decomposition.n_items}."
            )
            continue
        try:
            result = bootstrap_interval(
                decomposition, replicates=replicates, seed=seed, confidence=confidence
            )
        except ValueError as error:
            entry["ci"] = None
            entry["ci_reason"] = str(error)
            continue
        entry["ci"] = {
            "low": float(result.low),
            "high": float(result.high),
            "confidence": float(result.confidence),
            "method": str(result.method),
            "replicates": int(result.replicates),
        }
