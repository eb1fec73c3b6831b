"""Free-text annotations: each coder's text for each item.

A value is a text (a Python ``str``): a caption, a summary, a correction. The empty text is a
value like any other (a coder who wrote nothing on purpose); a coder who did not annotate an
item has no row for it. Equal texts are one distinct value, so every measure computes on the
distinct texts (``texts``) and their codes.

Examples
--------
>>> data = TextData.from_long([1, 1, 2, 2], ["ann", "bob", "ann", "bob"],
...                           ["a cat", "a cat", "", "two dogs"])
>>> data.n_items, data.n_coders, data.texts
(2, 2, ('a cat', '', 'two dogs'))
>>> data.text_code.tolist()
[0, 0, 1, 2]
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

from metrics.structured._common import factorize

__all__ = ["TextData"]


@dataclass(frozen=True, eq=False)
class TextData:
    """Texts of several coders on several items, one per (item, coder).

    Attributes
    ----------
    items, coders : tuple
        Identifiers; ``item_index`` and ``coder_index`` index them.
    texts : tuple of str
        The distinct texts, in order of first appearance; ``text_code`` indexes them.
    item_index, coder_index, text_code : ndarray of int, shape (n_annotations,)
        One entry per annotation, sorted by item, then coder.
    """

    items: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    texts: tuple[str, ...]
    item_index: NDArray[np.intp]
    coder_index: NDArray[np.intp]
    text_code: NDArray[np.intp]

    @classmethod
    def from_long(
        cls,
        items: npt.ArrayLike | Sequence[Hashable],
        coders: npt.ArrayLike | Sequence[Hashable],
        texts: Sequence[str],
    ) -> TextData:
        """Build from (item, coder, text) rows given as three parallel sequences.

        Raises
        ------
        ValueError
            Sequences of different lengths, a text that is not a ``str`` (a missing annotation
            is left out, not ``None``), or a coder with two texts for one item.
        """
        item_names, item_index = factorize(items, "items")
        coder_names, coder_index = factorize(coders, "coders")
        text_list = list(texts)
        if not (item_index.size == coder_index.size == len(text_list)):
            raise ValueError("items, coders and texts must have the same length.")
        distinct: dict[str, int] = {}
        codes = np.empty(len(text_list), dtype=np.intp)
        for position, text in enumerate(text_list):
            if not isinstance(text, str):
                raise ValueError(
                    f"text {position} is {text!r}, not a str: leave a missing annotation out "
                    "(an empty text is '')."
                )
            codes[position] = distinct.setdefault(text, len(distinct))
        order = np.lexsort((coder_index, item_index))
        item_index, coder_index, codes = item_index[order], coder_index[order], codes[order]
        repeated = np.flatnonzero(
            (item_index[1:] == item_index[:-1]) & (coder_index[1:] == coder_index[:-1])
        )
        if repeated.size:
            at = int(repeated[0]) + 1
            raise ValueError(
                f"Coder {coder_names[coder_index[at]]!r} gave item "
                f"{item_names[item_index[at]]!r} more than one text."
            )
        return cls(item_names, coder_names, tuple(distinct), item_index, coder_index, codes)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_annotations(self) -> int:
        return int(self.text_code.size)

    @property
    def n_texts(self) -> int:
        return len(self.texts)
