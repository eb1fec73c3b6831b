"""Reliability data: what every coefficient reads.

Values are stored once, as integer codes into a value *domain*; the data itself is a
coders × items matrix of codes with ``-1`` for a missing value. A missing annotation is
absent, never a label.

Three ways in, as the literature presents data:

- ``ReliabilityData.from_long(items, coders, labels)``: (item, coder, label) triples;
- ``ReliabilityData.from_matrix(matrix)``: a coders × items array with ``nan`` for missing;
- ``ReliabilityData.from_contingency(table)``: two coders' k × k contingency table;
- ``ReliabilityData.from_agreement_table(counts)``: items × categories counts (anonymous
  coders, as in Fleiss 1971); coefficients that need coder identities refuse such data.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

MISSING = -1


@dataclass(frozen=True, eq=False)
class ReliabilityData:
    """Coders × items matrix of value codes, with the value domain and the labels of both axes.

    Attributes
    ----------
    codes : ndarray of int, shape (n_coders, n_items)
        ``codes[c, u]`` indexes ``domain``; ``-1`` where coder ``c`` left item ``u`` unlabelled.
    domain : tuple
        Every value a label may take, in order (the order matters for ordinal data). Declared
        values nobody used stay in the domain.
    items, coders : tuple
        Identifiers of the columns and rows. ``coders_identified`` is False for data built from
        an agreement table, whose rows are anonymous slots rather than coders.
    """

    codes: NDArray[np.intp]
    domain: tuple[Hashable, ...]
    items: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    coders_identified: bool = True
    _cache: dict[str, object] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        codes = np.asarray(self.codes)
        if codes.ndim != 2:
            raise ValueError("Reliability data must be a coders × items matrix (2 dimensions).")
        if codes.shape != (len(self.coders), len(self.items)):
            raise ValueError(
                f"The code matrix has shape {codes.shape} but there are {len(self.coders)} coders "
                f"and {len(self.items)} items."
            )
        if codes.size and (codes.min() < MISSING or codes.max() >= len(self.domain)):
            raise ValueError("Every code must index the value domain, or be -1 for missing.")
        codes = codes.astype(np.intp, copy=False)
        codes.setflags(write=False)
        object.__setattr__(self, "codes", codes)

    # -- constructors --------------------------------------------------------------------

    @classmethod
    def from_long(
        cls,
        items: npt.ArrayLike | Sequence[Hashable],
        coders: npt.ArrayLike | Sequence[Hashable],
        labels: npt.ArrayLike | Sequence[Hashable],
        *,
        domain: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build from (item, coder, label) triples, one per annotation.

        ``domain`` declares the value domain in order; without it, the observed values are
        sorted. A label outside a declared domain, or two labels by one coder on one item,
        raise ``ValueError``.
        """
        item_ids, item_index = _factorize(items, "items")
        coder_ids, coder_index = _factorize(coders, "coders")
        label_values, label_index = _factorize(labels, "labels")
        if not (len(item_index) == len(coder_index) == len(label_index)):
            raise ValueError("items, coders and labels must have the same length.")
        if domain is not None:
            domain_tuple = tuple(domain)
            position = {value: i for i, value in enumerate(domain_tuple)}
            unknown = [value for value in label_values if value not in position]
            if unknown:
                raise ValueError(f"Labels outside the declared domain: {unknown[:10]!r}.")
            remap = np.array([position[value] for value in label_values], dtype=np.intp)
            label_index = remap[label_index] if len(label_index) else label_index
        else:
            domain_tuple = tuple(label_values)
        codes = np.full((len(coder_ids), len(item_ids)), MISSING, dtype=np.intp)
        flat = coder_index * len(item_ids) + item_index
        if len(np.unique(flat)) != len(flat):
            duplicated = np.flatnonzero(np.bincount(flat) > 1)[0]
            coder, item = divmod(int(duplicated), len(item_ids))
            raise ValueError(
                f"Coder {coder_ids[coder]!r} labelled item {item_ids[item]!r} more than once."
            )
        codes.ravel()[flat] = label_index
        return cls(codes, domain_tuple, tuple(item_ids), tuple(coder_ids))

    @classmethod
    def from_matrix(
        cls,
        matrix: npt.ArrayLike,
        *,
        domain: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build from a coders × items array of values, ``nan`` (or None) marking missing.

        A numeric array is converted without a Python loop over its values; an object array
        (strings, sets) is checked value by value for ``None``/``nan``.
        """
        numeric = np.asarray(matrix)
        if numeric.ndim == 2 and numeric.dtype.kind in "biuf" and domain is None:
            present_numeric = (
                ~np.isnan(numeric) if numeric.dtype.kind == "f" else np.ones(numeric.shape, bool)
            )
            values, inverse = np.unique(numeric[present_numeric], return_inverse=True)
            codes = np.full(numeric.shape, MISSING, dtype=np.intp)
            codes[present_numeric] = inverse
            return cls(
                codes,
                tuple(values.tolist()),
                tuple(range(numeric.shape[1])),
                tuple(range(numeric.shape[0])),
            )
        array = np.asarray(matrix, dtype=object)
        if array.ndim != 2:
            raise ValueError("matrix must be 2-dimensional: coders × items.")
        present = np.array(
            [[not _is_missing(value) for value in row] for row in array], dtype=bool
        ).reshape(array.shape)
        coder_index, item_index = np.nonzero(present)
        return cls._from_positions(
            array[present], coder_index, item_index, array.shape, domain=domain
        )

    @classmethod
    def from_contingency(
        cls,
        table: npt.ArrayLike,
        *,
        categories: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build two coders' data from a k × k table (rows: coder A, columns: coder B)."""
        counts = np.asarray(table)
        if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
            raise ValueError("A contingency table must be square: k × k.")
        if np.any(counts < 0) or not np.all(np.equal(np.mod(counts, 1), 0)):
            raise ValueError("A contingency table holds non-negative whole counts.")
        k = counts.shape[0]
        domain = tuple(categories) if categories is not None else tuple(range(k))
        if len(domain) != k:
            raise ValueError(f"{len(domain)} categories given for a {k} × {k} table.")
        flat_counts = counts.astype(np.intp).ravel()
        pair = np.repeat(np.arange(k * k), flat_counts)
        codes = np.vstack([pair // k, pair % k])
        return cls(codes, domain, tuple(range(codes.shape[1])), ("A", "B"))

    @classmethod
    def from_agreement_table(
        cls,
        counts: npt.ArrayLike,
        *,
        categories: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build from items × categories counts (how many coders chose each category).

        Coders are anonymous here: the rows of ``codes`` are slots, not people, so only
        coefficients with a pooled chance model (S, pi, multi-pi, alpha, AC1) apply.
        """
        table = np.asarray(counts)
        if table.ndim != 2:
            raise ValueError("An agreement table is items × categories (2 dimensions).")
        if np.any(table < 0) or not np.all(np.equal(np.mod(table, 1), 0)):
            raise ValueError("An agreement table holds non-negative whole counts.")
        table = table.astype(np.intp)
        n_items, k = table.shape
        domain = tuple(categories) if categories is not None else tuple(range(k))
        if len(domain) != k:
            raise ValueError(f"{len(domain)} categories given for {k} columns.")
        per_item = table.sum(axis=1)
        slots = int(per_item.max()) if n_items else 0
        values = np.repeat(np.tile(np.arange(k), n_items), table.ravel())
        item_of_value = np.repeat(np.arange(n_items), per_item)
        starts = np.concatenate([[0], np.cumsum(per_item)[:-1]])
        slot_of_value = np.arange(len(values)) - np.repeat(starts, per_item)
        codes = np.full((slots, n_items), MISSING, dtype=np.intp)
        codes[slot_of_value, item_of_value] = values
        return cls(
            codes,
            domain,
            tuple(range(n_items)),
            tuple(f"slot {i + 1}" for i in range(slots)),
            coders_identified=False,
        )

    @classmethod
    def _from_positions(
        cls,
        values: NDArray[np.object_],
        coder_index: NDArray[np.intp],
        item_index: NDArray[np.intp],
        shape: tuple[int, ...],
        *,
        domain: Sequence[Hashable] | None,
    ) -> ReliabilityData:
        n_coders, n_items = shape
        data = cls.from_long(item_index, coder_index, list(values), domain=domain)
        # from_long drops coders and items without any value; put them back in place.
        codes = np.full((n_coders, n_items), MISSING, dtype=np.intp)
        rows = np.asarray(data.coders, dtype=np.intp)
        cols = np.asarray(data.items, dtype=np.intp)
        codes[np.ix_(rows, cols)] = data.codes
        return cls(codes, data.domain, tuple(range(n_items)), tuple(range(n_coders)))

    # -- derived views ------------------------------------------------------------------

    @property
    def n_coders(self) -> int:
        return self.codes.shape[0]

    @property
    def n_items(self) -> int:
        return self.codes.shape[1]

    @property
    def n_values(self) -> int:
        """Size of the value domain (V)."""
        return len(self.domain)

    @property
    def n_annotations(self) -> int:
        return int(np.count_nonzero(self.codes != MISSING))

    @cached_property
    def item_value_counts(self) -> NDArray[np.float64]:
        """``(n_items, V)``: how many coders gave item u the value v (``n_uv``)."""
        coder_index, item_index = np.nonzero(self.codes != MISSING)
        del coder_index
        flat = item_index * self.n_values + self.codes[self.codes != MISSING]
        counts = np.bincount(flat, minlength=self.n_items * self.n_values)
        return counts.reshape(self.n_items, self.n_values).astype(np.float64)

    @cached_property
    def values_per_item(self) -> NDArray[np.intp]:
        """``(n_items,)``: how many values each item received (``m_u``)."""
        return np.count_nonzero(self.codes != MISSING, axis=0)

    @cached_property
    def pairable(self) -> NDArray[np.bool_]:
        """``(n_items,)``: items with at least two values; the others are unpairable."""
        return self.values_per_item >= 2

    @property
    def n_pairable_items(self) -> int:
        return int(np.count_nonzero(self.pairable))

    def restricted_to_items(self, mask: NDArray[np.bool_]) -> ReliabilityData:
        """The same data with only the items where ``mask`` is True."""
        kept = tuple(item for item, keep in zip(self.items, mask, strict=True) if keep)
        return ReliabilityData(
            self.codes[:, mask], self.domain, kept, self.coders, self.coders_identified
        )


def _is_missing(value: object) -> bool:
    if value is None:
        return True
    try:
        return bool(np.isnan(value))  # type: ignore[call-overload]
    except TypeError:
        return False


def _factorize(
    values: npt.ArrayLike | Sequence[Hashable], what: str
) -> tuple[list[Hashable], NDArray[np.intp]]:
    """Unique values (sorted where they can be) and each element's index among them.

    Strings and numbers go through ``np.unique``; other hashables (frozensets, tuples) are
    factorised in order of first appearance, since they have no total order.
    """
    sequence = values if isinstance(values, np.ndarray) else list(values)  # type: ignore[arg-type]
    if len(sequence) == 0:
        return [], np.zeros(0, dtype=np.intp)
    array = np.asarray(sequence) if _is_plain(sequence) else None
    if array is not None and array.ndim == 1 and array.dtype.kind in "biufUS":
        if array.dtype.kind == "f" and np.isnan(array).any():
            raise ValueError(f"{what} contain NaN: a missing annotation is absent, not NaN.")
        unique, inverse = np.unique(array, return_inverse=True)
        return unique.tolist(), inverse.astype(np.intp)
    index: dict[Hashable, int] = {}
    inverse_list = [index.setdefault(value, len(index)) for value in sequence]  # type: ignore[arg-type]
    return list(index), np.asarray(inverse_list, dtype=np.intp)


def _is_plain(sequence: object) -> bool:
    if isinstance(sequence, np.ndarray):
        return sequence.dtype != object
    first = sequence[0]  # type: ignore[index]
    return isinstance(first, str | int | float | np.generic) and not isinstance(first, bool)


def as_reliability_data(
    data: ReliabilityData | npt.ArrayLike, *, domain: Sequence[Hashable] | None = None
) -> ReliabilityData:
    """Accept ``ReliabilityData`` as is, or a coders × items array with ``nan`` for missing."""
    if isinstance(data, ReliabilityData):
        if domain is not None and tuple(domain) != data.domain:
            raise ValueError("domain was given, but the ReliabilityData already has one.")
        return data
    return ReliabilityData.from_matrix(data, domain=domain)
