"""Independent references for the structured-kind tests: plain Python, one pair at a time."""

from __future__ import annotations

from collections.abc import Callable

import krippendorff
import numpy as np


def levenshtein_reference(first: str, second: str) -> int:
    """The textbook dynamic programme (Wagner & Fischer 1974), row by row."""
    previous = list(range(len(second) + 1))
    for i, a in enumerate(first, start=1):
        current = [i]
        for j, b in enumerate(second, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a != b)))
        previous = current
    return previous[-1]


def normalized_levenshtein_reference(first: str, second: str) -> float:
    longer = max(len(first), len(second))
    return 0.0 if longer == 0 else levenshtein_reference(first, second) / longer


def jaccard_reference(first: str, second: str) -> float:
    a, b = set(first.lower().split()), set(second.lower().split())
    if not a and not b:
        return 0.0
    return 1.0 - len(a & b) / len(a | b)


def krippendorff_alpha_with(
    rows: list[tuple[object, object, object]], distance: Callable[[object, object], float]
) -> float:
    """``krippendorff.alpha`` (the peer package) on value counts, the distance as a callable.

    ``rows`` are (item, coder, value); values may be any hashable (texts, tuples).
    """
    items = sorted({item for item, _, _ in rows}, key=str)
    values: list[object] = []
    for _, _, value in rows:
        if value not in values:
            values.append(value)
    counts = np.zeros((len(items), len(values)), dtype=int)
    for item, _, value in rows:
        counts[items.index(item), values.index(value)] += 1

    def metric(v1: object, v2: object, i1: np.ndarray, i2: np.ndarray, **_: object) -> np.ndarray:
        table = np.array([[distance(a, b) for b in values] for a in values], dtype=float)
        return table[i1, i2]

    return float(
        krippendorff.alpha(
            value_counts=counts, value_domain=np.arange(len(values)), level_of_measurement=metric
        )
    )
