"""Long arrays into :class:`~metrics.data.ReliabilityData`, quickly for string columns.

``ReliabilityData.from_long`` factorises each column with ``numpy.unique``, a sort: on a
million string labels that is most of the time PPI takes. Coder ids and labels usually take a
handful of distinct values; :func:`few_values` finds them by comparing the column with one
value at a time (``K`` linear passes for ``K`` values) and falls back to the sort beyond
:data:`FEW`. The result is the same data ``from_long`` builds (same domain order, same
checks).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.data import ReliabilityData, _factorize, _numeric_strings_in_order, _remap

#: Distinct values up to which :func:`few_values` compares instead of sorting.
FEW = 32


def few_values(values: Any, what: str) -> tuple[Sequence[Hashable], NDArray[np.intp]]:
    """``_factorize(values, what)`` (sorted unique values, each element's index), in K passes
    for a string array of at most :data:`FEW` distinct values."""
    array = values if isinstance(values, np.ndarray) else None
    if array is None or array.ndim != 1 or array.dtype.kind not in "US" or array.size == 0:
        return _factorize(values, what)
    codes = np.full(array.size, -1, dtype=np.intp)
    found: list[Any] = []
    pending = np.arange(array.size)
    while pending.size:
        if len(found) == FEW:
            return _factorize(values, what)
        value = array[pending[0]]
        same = array[pending] == value
        codes[pending[same]] = len(found)
        found.append(value)
        pending = pending[~same]
    order = np.argsort(np.array(found, dtype=array.dtype), kind="stable")
    rank = np.empty(len(found), dtype=np.intp)
    rank[order] = np.arange(len(found))
    return [found[k].item() for k in order], rank[codes]


def from_long(
    items: npt.ArrayLike | Sequence[Hashable],
    coders: npt.ArrayLike | Sequence[Hashable],
    labels: npt.ArrayLike | Sequence[Hashable],
    *,
    domain: Sequence[Hashable] | None = None,
) -> ReliabilityData:
    """``ReliabilityData.from_long(items, coders, labels, domain=domain)``, faster on string
    columns with few distinct values."""
    item_ids, item_index = _factorize(items, "items")
    coder_ids, coder_index = few_values(coders, "coders")
    label_values, label_index = few_values(labels, "labels")
    if not (len(item_index) == len(coder_index) == len(label_index)):
        raise ValueError("items, coders and labels must have the same length.")
    if domain is not None:
        domain_tuple = tuple(domain)
        label_index = _remap(label_values, label_index, domain_tuple)
    else:
        label_values, label_index = _numeric_strings_in_order(label_values, label_index)
        domain_tuple = tuple(label_values)
    return ReliabilityData._from_valid_codes(
        item_index,
        coder_index,
        label_index,
        domain_tuple,
        tuple(item_ids),
        tuple(coder_ids),
        domain_declared=domain is not None,
        copy=True,
    )
