"""Long-format annotations: the one way into the coder quality models.

The models read a list of annotations ``(item, coder, label)`` and never a coders × items
matrix: a crowd of 2,400 coders on a million items would make that matrix 2.4 billion cells
for 6 million annotations. :func:`as_annotations` codes the three columns as integers once;
the models then work on the codes.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.data import ReliabilityData


@dataclass(frozen=True, eq=False)
class Annotations:
    """Annotations as integer codes, one entry per annotation.

    Attributes
    ----------
    item, coder, label : ndarray of int, shape (n_annotations,)
        Codes into ``items``, ``coders`` and ``domain``.
    items, coders : ndarray, shape (n_items,) and (n_coders,)
        Identifiers of the items and coders.
    domain : tuple
        Every label value, in order; ``label`` indexes it.
    """

    item: NDArray[np.intp]
    coder: NDArray[np.intp]
    label: NDArray[np.intp]
    items: NDArray[Any]
    coders: NDArray[Any]
    domain: tuple[Hashable, ...]

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_values(self) -> int:
        return len(self.domain)

    @property
    def n_annotations(self) -> int:
        return len(self.item)


#: What the models accept: :class:`ReliabilityData`, ``(items, coders, labels)`` arrays, or
#: :class:`Annotations`.
AnnotationsLike: TypeAlias = (
    Annotations | ReliabilityData | tuple[npt.ArrayLike, npt.ArrayLike, npt.ArrayLike]
)


def as_annotations(
    data: AnnotationsLike, *, domain: Sequence[Hashable] | None = None
) -> Annotations:
    """Code ``data`` as :class:`Annotations`.

    Parameters
    ----------
    data : ReliabilityData, (items, coders, labels) or Annotations
        ``ReliabilityData`` keeps all its items and coders (also those without an
        annotation); three equally long arrays are one annotation per position.
    domain : sequence, optional
        Every label value, in order. Without it: the labels that occur, sorted (or the
        data's own domain for ``ReliabilityData``). A label outside it raises ``ValueError``.

    Raises
    ------
    ValueError
        For arrays of unequal length, no annotations, a label outside ``domain``, a coder
        who labelled an item twice, or anonymous coders (data from an agreement table).

    Examples
    --------
    >>> codes = as_annotations((["u1", "u1", "u2"], ["ann", "bob", "ann"], ["x", "y", "x"]))
    >>> codes.item.tolist(), codes.coder.tolist(), codes.label.tolist(), codes.domain
    ([0, 0, 1], [0, 1, 0], [0, 1, 0], ('x', 'y'))
    """
    if isinstance(data, Annotations):
        annotations = data if domain is None else _recode(data, tuple(domain))
    elif isinstance(data, ReliabilityData):
        annotations = _from_reliability_data(data if domain is None else data.with_domain(domain))
    elif isinstance(data, tuple) and len(data) == 3:
        annotations = _from_columns(*data, domain=domain)
    else:
        raise ValueError(
            "Annotations are ReliabilityData or a tuple of three arrays (items, coders, labels)."
        )
    if annotations.n_annotations == 0:
        raise ValueError("There are no annotations.")
    return annotations


def gold_codes(
    annotations: Annotations, gold: Mapping[Hashable, Hashable] | None
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Item codes and label codes of the gold items (``{item: label}``), sorted by item.

    Raises ``ValueError`` for a gold item without annotations or a gold label outside the
    domain.
    """
    if not gold:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    keys = list(gold)
    item_codes = _lookup(annotations.items, keys)
    unknown = [key for key, code in zip(keys, item_codes, strict=True) if code < 0]
    if unknown:
        raise ValueError(f"Gold items without any annotation: {unknown[:10]!r}.")
    position = {value: code for code, value in enumerate(annotations.domain)}
    outside = [gold[key] for key in keys if gold[key] not in position]
    if outside:
        raise ValueError(f"Gold labels outside the label domain: {outside[:10]!r}.")
    label_codes = np.array([position[gold[key]] for key in keys], dtype=np.intp)
    order = np.argsort(item_codes, kind="stable")
    return item_codes[order], label_codes[order]


# -- helpers ---------------------------------------------------------------------------------


def _from_reliability_data(data: ReliabilityData) -> Annotations:
    if not data.coders_identified:
        raise ValueError(
            "The coders of data built from an agreement table are anonymous slots: "
            "coder quality models need each annotation's coder."
        )
    return Annotations(
        data.item_index,
        data.coder_index,
        data.value_code,
        id_array(data.items),
        id_array(data.coders),
        data.domain,
    )


def _from_columns(
    items: npt.ArrayLike,
    coders: npt.ArrayLike,
    labels: npt.ArrayLike,
    *,
    domain: Sequence[Hashable] | None,
) -> Annotations:
    item_ids, item = _factorize(items, "items")
    coder_ids, coder = _factorize(coders, "coders")
    label_ids, label = _factorize(labels, "labels")
    if not (len(item) == len(coder) == len(label)):
        raise ValueError("items, coders and labels must have the same length.")
    if domain is None:
        domain_tuple = tuple(label_ids.tolist())
    else:
        domain_tuple = tuple(domain)
        label = _remap(label_ids, label, domain_tuple)
    _refuse_duplicates(item, coder, item_ids, coder_ids)
    return Annotations(item, coder, label, item_ids, coder_ids, domain_tuple)


def _recode(annotations: Annotations, domain: tuple[Hashable, ...]) -> Annotations:
    old = np.empty(len(annotations.domain), dtype=object)
    old[:] = annotations.domain
    label = _remap(old, annotations.label, domain)
    return Annotations(
        annotations.item,
        annotations.coder,
        label,
        annotations.items,
        annotations.coders,
        domain,
    )


def _factorize(values: npt.ArrayLike, what: str) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """Unique values and each element's index among them, in linear time for small integers."""
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"{what} must be one-dimensional.")
    if array.dtype.kind in "iu" and array.size:
        low, high = int(array.min()), int(array.max())
        if high - low <= 4 * array.size + 1024:
            offsets = (array - low).astype(np.intp)
            used = np.bincount(offsets, minlength=high - low + 1) > 0
            lookup = np.cumsum(used) - 1
            return np.flatnonzero(used) + low, lookup[offsets].astype(np.intp)
    if array.dtype.kind == "f" and np.isnan(array).any():
        raise ValueError(f"{what} contain NaN: a missing annotation is absent, not NaN.")
    if array.dtype.kind in "biufUS":
        unique, inverse = np.unique(array, return_inverse=True)
        return unique, inverse.astype(np.intp).reshape(-1)
    # Hashables without an order (tuples, mixed types): first appearance, a Python loop.
    index: dict[Hashable, int] = {}
    codes = np.fromiter(
        (index.setdefault(value, len(index)) for value in array.tolist()),
        dtype=np.intp,
        count=array.size,
    )
    return id_array(tuple(index)), codes


def _remap(
    values: NDArray[Any], codes: NDArray[np.intp], domain: tuple[Hashable, ...]
) -> NDArray[np.intp]:
    position = {value: i for i, value in enumerate(domain)}
    if len(position) != len(domain):
        raise ValueError("The declared domain lists a value more than once.")
    unknown = [value for value in values.tolist() if value not in position]
    if unknown:
        raise ValueError(f"Labels outside the declared domain: {unknown[:10]!r}.")
    lookup = np.array([position[value] for value in values.tolist()], dtype=np.intp)
    return lookup[codes]


def _refuse_duplicates(
    item: NDArray[np.intp],
    coder: NDArray[np.intp],
    item_ids: NDArray[Any],
    coder_ids: NDArray[Any],
) -> None:
    key = item.astype(np.int64) * len(coder_ids) + coder
    key.sort()
    repeated = np.flatnonzero(key[1:] == key[:-1])
    if repeated.size:
        first_item, first_coder = divmod(int(key[repeated[0]]), len(coder_ids))
        raise ValueError(
            f"Coder {coder_ids[first_coder]!r} labelled item {item_ids[first_item]!r} "
            "more than once."
        )


def _lookup(ids: NDArray[Any], keys: list[Hashable]) -> NDArray[np.intp]:
    """Positions of ``keys`` in ``ids`` (``-1`` for absent keys)."""
    if ids.dtype != object:
        try:
            wanted = np.asarray(keys, dtype=ids.dtype)
        except (TypeError, ValueError):
            wanted = None
        if wanted is not None and wanted.ndim == 1 and np.all(ids[:-1] < ids[1:]):
            at = np.clip(np.searchsorted(ids, wanted), 0, len(ids) - 1)
            found = ids[at] == wanted
            # A key whose text changed when cast (e.g. 1.5 to int) is not the same id.
            found &= np.array([a == b for a, b in zip(wanted.tolist(), keys, strict=True)])
            return np.where(found, at, -1).astype(np.intp)
    position = {value: i for i, value in enumerate(ids.tolist())}
    return np.array([position.get(key, -1) for key in keys], dtype=np.intp)


def id_array(ids: Sequence[Hashable]) -> NDArray[Any]:
    """``ids`` as an array: plain numbers or strings as such, anything else as objects."""
    array = np.empty(len(ids), dtype=object)
    array[:] = list(ids)
    plain = np.asarray(list(ids)) if ids and _all_plain(ids) else None
    if plain is not None and plain.ndim == 1 and plain.dtype.kind in "biufU":
        return plain
    return array


def _all_plain(ids: Sequence[Hashable]) -> bool:
    if all(isinstance(value, str) for value in ids):
        return True
    if all(isinstance(value, int | np.integer) and not isinstance(value, bool) for value in ids):
        return True
    return all(isinstance(value, float | np.floating) for value in ids)
