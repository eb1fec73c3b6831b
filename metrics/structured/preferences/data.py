"""Pairwise preferences: which of two options each coder prefers, and which was shown first.

An *item* is a comparison of two options, A and B. A coder's value is ``"A"``, ``"B"`` or
``"tie"``; ``shown_first`` says which option the coder saw first (``"A"``, ``"B"`` or
unknown). Optionally each item names its two options (``option_a``, ``option_b``: the same
responses recurring across comparisons), which lets the consistency of each coder's
judgements be checked (:mod:`~metrics.structured.preferences.triads`).

Choices are coded on the ordinal scale ``A < tie < B`` (codes 0, 1, 2), so that alpha can read
them as nominal or with the tie in the middle.

Examples
--------
>>> data = PreferenceData.from_long([1, 1, 2], ["ann", "bob", "ann"], ["A", "tie", "B"],
...                                 shown_first=["A", "B", None])
>>> data.choice.tolist(), data.shown_first.tolist()
([0, 1, 2], [0, 2, -1])
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.structured._common import factorize

#: The choices in scale order: codes 0, 1, 2.
CHOICES: tuple[str, str, str] = ("A", "tie", "B")
#: Code of an unknown ``shown_first``.
UNKNOWN = -1

__all__ = ["CHOICES", "UNKNOWN", "PreferenceData"]


def _codes(
    values: Sequence[Any] | NDArray[Any],
    what: str,
    allowed: dict[str, int],
    missing: int | None,
) -> NDArray[np.intp]:
    """Codes of string values; ``None``, NaN and ``""`` are ``missing`` (refused if None)."""
    array: NDArray[Any] = (
        np.asarray(values)
        if isinstance(values, np.ndarray)
        else np.array(list(values), dtype=object)
    )
    array = array.reshape(-1)
    if array.dtype.kind in "US":
        text = array
    else:
        absent = _ABSENT(array).astype(bool)
        text = np.where(absent, "", array).astype(str)
    out = np.full(array.size, -2, dtype=np.intp)
    for spelling, code in allowed.items():
        out[text == spelling] = code
    if missing is not None:
        out[text == ""] = missing
    bad = np.flatnonzero(out == -2)
    if bad.size:
        expected = ", ".join(repr(k) for k in allowed) + (" or None" if missing is not None else "")
        raise ValueError(f"{what} {int(bad[0])} is {array[bad[0]]!r}; expected one of {expected}.")
    return out


#: None or NaN, elementwise over an object array.
_ABSENT = np.frompyfunc(lambda value: value is None or value != value, 1, 1)


@dataclass(frozen=True, eq=False)
class PreferenceData:
    """Choices of several coders on several two-option comparisons.

    Attributes
    ----------
    items, coders : tuple
        Identifiers.
    item_index, coder_index : ndarray of int, shape (n_annotations,)
        Sorted by item, then coder.
    choice : ndarray of int
        0 for A, 1 for tie, 2 for B.
    shown_first : ndarray of int
        0 for A, 2 for B, -1 unknown.
    options : tuple or None
        The option identifiers, when the items name their options.
    item_option_a, item_option_b : ndarray of int or None, shape (n_items,)
        Each item's two options (indices into ``options``).
    """

    items: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    item_index: NDArray[np.intp]
    coder_index: NDArray[np.intp]
    choice: NDArray[np.intp]
    shown_first: NDArray[np.intp]
    options: tuple[Hashable, ...] | None = None
    item_option_a: NDArray[np.intp] | None = None
    item_option_b: NDArray[np.intp] | None = None

    @classmethod
    def from_long(
        cls,
        items: npt.ArrayLike | Sequence[Hashable],
        coders: npt.ArrayLike | Sequence[Hashable],
        choices: Sequence[Any] | NDArray[Any],
        shown_first: Sequence[Any] | NDArray[Any] | None = None,
        *,
        option_a: Sequence[Hashable] | NDArray[Any] | None = None,
        option_b: Sequence[Hashable] | NDArray[Any] | None = None,
    ) -> PreferenceData:
        """Build from one row per (item, coder): the choice ``"A"``, ``"B"`` or ``"tie"``,
        ``shown_first`` ``"A"``, ``"B"`` or ``None`` (all unknown when omitted), and
        optionally each row's item's two options (equal on every row of an item).

        Raises
        ------
        ValueError
            Sequences of different lengths, an unknown choice, a coder with two choices on one
            item, only one of ``option_a`` and ``option_b``, an item whose rows name
            different options, or an item comparing an option with itself.
        """
        item_names, item = factorize(items, "items")
        coder_names, coder = factorize(coders, "coders")
        choice = _codes(choices, "choice", {"A": 0, "tie": 1, "B": 2}, None)
        if shown_first is None:
            shown = np.full(choice.size, UNKNOWN, dtype=np.intp)
        else:
            shown = _codes(shown_first, "shown_first", {"A": 0, "B": 2}, UNKNOWN)
        if not (item.size == coder.size == choice.size == shown.size):
            raise ValueError("items, coders, choices and shown_first must have the same length.")
        order = np.lexsort((coder, item))
        item, coder, choice, shown = item[order], coder[order], choice[order], shown[order]
        repeated = np.flatnonzero((item[1:] == item[:-1]) & (coder[1:] == coder[:-1]))
        if repeated.size:
            at = int(repeated[0]) + 1
            raise ValueError(
                f"Coder {coder_names[coder[at]]!r} chose on item {item_names[item[at]]!r} "
                "more than once."
            )
        options, first, second = _item_options(
            option_a, option_b, item_names, item, order, choice.size
        )
        return cls(item_names, coder_names, item, coder, choice, shown, options, first, second)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_annotations(self) -> int:
        return int(self.choice.size)


def _item_options(
    option_a: Sequence[Hashable] | NDArray[Any] | None,
    option_b: Sequence[Hashable] | NDArray[Any] | None,
    item_names: tuple[Hashable, ...],
    item: NDArray[np.intp],
    order: NDArray[np.intp],
    size: int,
) -> tuple[tuple[Hashable, ...] | None, NDArray[np.intp] | None, NDArray[np.intp] | None]:
    if option_a is None and option_b is None:
        return None, None, None
    if option_a is None or option_b is None:
        raise ValueError("Give both option_a and option_b, or neither.")
    first_list = list(option_a if not isinstance(option_a, np.ndarray) else option_a.tolist())
    second_list = list(option_b if not isinstance(option_b, np.ndarray) else option_b.tolist())
    if not (len(first_list) == len(second_list) == size):
        raise ValueError("option_a and option_b must have one entry per row.")
    names, codes = factorize(first_list + second_list, "options")
    first, second = codes[:size][order], codes[size:][order]
    n_items = len(item_names)
    item_a = np.full(n_items, -1, dtype=np.intp)
    item_b = np.full(n_items, -1, dtype=np.intp)
    item_a[item], item_b[item] = first, second
    differs = (item_a[item] != first) | (item_b[item] != second)
    if differs.any():
        at = int(item[np.flatnonzero(differs)[0]])
        raise ValueError(f"The rows of item {item_names[at]!r} name different options.")
    same = np.flatnonzero(item_a == item_b)
    if same.size:
        raise ValueError(f"Item {item_names[int(same[0])]!r} compares an option with itself.")
    return names, item_a, item_b
