"""Reliability data: what every coefficient reads, and the one way in.

Values are stored once, as integer codes into a value *domain*; the data itself is a
coders × items matrix of codes with ``-1`` for a missing value. A missing annotation is
absent, never a label.

Every coefficient, decomposition, diagnostic, standard error and the report take their data
through :func:`as_reliability_data` (``data, *, domain=None``): ``ReliabilityData`` as is (or
re-coded onto a declared ``domain``), or a coders × items array with ``nan``/``None`` for a
missing value. Four constructors, as the literature presents data:

- ``ReliabilityData.from_long(items, coders, labels)``: (item, coder, label) triples;
- ``ReliabilityData.from_matrix(matrix)``: a coders × items array with ``nan`` for missing;
- ``ReliabilityData.from_contingency(table)``: two coders' k × k contingency table;
- ``ReliabilityData.from_agreement_table(counts)``: items × categories counts (anonymous
  coders, as in Fleiss 1971); coefficients that need coder identities refuse such data.

The value domain
----------------
``domain=`` (the same keyword everywhere) declares every value a label may take, **in
order**. Without it the domain is inferred from the labels that occur, sorted: numbers
numerically, strings that all spell numbers (``"2"``, ``"10"``) by their numeric value, other
strings alphabetically, other hashables (frozensets, tuples) in order of first appearance.
Only the first two give an order that means something; :attr:`ReliabilityData.ordered_domain`
says whether the order can be used, and the ordinal distance refuses data whose order is
alphabetical (``domain=["low", "mid", "high"]`` gives it). Labels outside a declared domain
raise ``ValueError``; declared values nobody used stay in the domain (they count for S and
AC1, for instance).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from functools import cached_property
from numbers import Real
from typing import Any, TypeAlias

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
        Identifiers of the columns and rows.
    coders_identified : bool, default True
        False for data built from an agreement table, whose rows are anonymous slots rather
        than coders.
    domain_declared : bool, default True
        False when the domain was inferred from the labels that occur (``from_long`` and
        ``from_matrix`` without ``domain=``); True when the caller gave it (a domain passed to
        the constructor, or a table's rows and columns).
    """

    codes: NDArray[np.intp]
    domain: tuple[Hashable, ...]
    items: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    coders_identified: bool = True
    domain_declared: bool = True

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
        sorted (see the module docstring). A label outside a declared domain, or two labels
        by one coder on one item, raise ``ValueError``.

        Examples
        --------
        >>> data = ReliabilityData.from_long([1, 1, 2], ["a", "b", "a"], ["high", "low", "mid"],
        ...                                  domain=["low", "mid", "high"])
        >>> data.codes.tolist(), data.ordered_domain
        ([[2, 1], [0, -1]], True)
        """
        item_ids, item_index = _factorize(items, "items")
        coder_ids, coder_index = _factorize(coders, "coders")
        label_values, label_index = _factorize(labels, "labels")
        if not (len(item_index) == len(coder_index) == len(label_index)):
            raise ValueError("items, coders and labels must have the same length.")
        if domain is not None:
            domain_tuple = tuple(domain)
            label_index = _remap(label_values, label_index, domain_tuple)
        else:
            label_values, label_index = _numeric_strings_in_order(label_values, label_index)
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
        return cls(
            codes,
            domain_tuple,
            tuple(item_ids),
            tuple(coder_ids),
            domain_declared=domain is not None,
        )

    @classmethod
    def from_matrix(
        cls,
        matrix: npt.ArrayLike,
        *,
        domain: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build from a coders × items array of values, ``nan`` (or None) marking missing.

        A numeric array is factorised without a Python loop over its values (in linear time
        for small whole numbers); an object array (strings, sets) is checked for
        ``None``/``nan`` element-wise. Coders and items are numbered ``0, 1, ...``.
        """
        numeric = np.asarray(matrix) if not isinstance(matrix, np.ndarray) else matrix
        if numeric.ndim == 2 and numeric.dtype.kind in "biuf":
            present = (
                ~np.isnan(numeric) if numeric.dtype.kind == "f" else np.ones(numeric.shape, bool)
            )
            values, inverse = _factorize_numbers(numeric[present])
            if domain is None:
                domain_tuple = tuple(values.tolist())
            else:
                domain_tuple = tuple(domain)
                inverse = _remap(values.tolist(), inverse, domain_tuple)
            codes = np.full(numeric.shape, MISSING, dtype=np.intp)
            codes[present] = inverse
            n_coders, n_items = numeric.shape
            return cls(
                codes,
                domain_tuple,
                tuple(range(n_items)),
                tuple(range(n_coders)),
                domain_declared=domain is not None,
            )
        array = np.asarray(matrix, dtype=object)
        if array.ndim != 2:
            raise ValueError("matrix must be 2-dimensional: coders × items.")
        present = ~_missing_mask(array)
        coder_index, item_index = np.nonzero(present)
        n_coders, n_items = array.shape
        data = cls.from_long(item_index, coder_index, list(array[present]), domain=domain)
        # from_long drops coders and items without any value; put them back in place.
        codes = np.full((n_coders, n_items), MISSING, dtype=np.intp)
        rows = np.asarray(data.coders, dtype=np.intp)
        cols = np.asarray(data.items, dtype=np.intp)
        codes[np.ix_(rows, cols)] = data.codes
        return cls(
            codes,
            data.domain,
            tuple(range(n_items)),
            tuple(range(n_coders)),
            domain_declared=data.domain_declared,
        )

    @classmethod
    def from_contingency(
        cls,
        table: npt.ArrayLike,
        *,
        domain: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build two coders' data from a k × k table (rows: coder A, columns: coder B).

        ``domain`` names the k categories of the rows and columns, in order (default
        ``0 .. k-1``); either way the table's order is the domain's declared order.
        """
        counts = np.asarray(table)
        if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
            raise ValueError("A contingency table must be square: k × k.")
        if np.any(counts < 0) or not np.all(np.equal(np.mod(counts, 1), 0)):
            raise ValueError("A contingency table holds non-negative whole counts.")
        k = counts.shape[0]
        domain_tuple = tuple(domain) if domain is not None else tuple(range(k))
        if len(domain_tuple) != k:
            raise ValueError(f"{len(domain_tuple)} domain values given for a {k} × {k} table.")
        flat_counts = counts.astype(np.intp).ravel()
        pair = np.repeat(np.arange(k * k), flat_counts)
        codes = np.vstack([pair // k, pair % k])
        return cls(codes, domain_tuple, tuple(range(codes.shape[1])), ("A", "B"))

    @classmethod
    def from_agreement_table(
        cls,
        counts: npt.ArrayLike,
        *,
        domain: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build from items × categories counts (how many coders chose each category).

        ``domain`` names the columns' categories in order (default ``0 .. k-1``). Coders are
        anonymous here: the rows of ``codes`` are slots, not people, so only coefficients with
        a pooled chance model (S, pi, multi-pi, alpha, AC1) apply.
        """
        table = np.asarray(counts)
        if table.ndim != 2:
            raise ValueError("An agreement table is items × categories (2 dimensions).")
        if np.any(table < 0) or not np.all(np.equal(np.mod(table, 1), 0)):
            raise ValueError("An agreement table holds non-negative whole counts.")
        table = table.astype(np.intp)
        n_items, k = table.shape
        domain_tuple = tuple(domain) if domain is not None else tuple(range(k))
        if len(domain_tuple) != k:
            raise ValueError(f"{len(domain_tuple)} domain values given for {k} columns.")
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
            domain_tuple,
            tuple(range(n_items)),
            tuple(f"slot {i + 1}" for i in range(slots)),
            coders_identified=False,
        )

    def with_domain(self, domain: Sequence[Hashable]) -> ReliabilityData:
        """The same annotations coded against a declared ``domain`` (in order).

        Every value of the current domain that occurs must be in ``domain``; values nobody
        used may be dropped or added. Raises ``ValueError`` for a label outside ``domain``.

        Examples
        --------
        >>> data = ReliabilityData.from_long([1, 2], ["a", "a"], ["mid", "low"])
        >>> data.domain, data.ordered_domain
        (('low', 'mid'), False)
        >>> declared = data.with_domain(["low", "mid", "high"])
        >>> declared.domain, declared.codes.tolist(), declared.ordered_domain
        (('low', 'mid', 'high'), [[1, 0]], True)
        """
        domain_tuple = tuple(domain)
        if domain_tuple == self.domain and self.domain_declared:
            return self
        used = np.zeros(self.n_values, dtype=bool)
        present = self.codes != MISSING
        used[np.unique(self.codes[present])] = True
        values = [value for value, is_used in zip(self.domain, used, strict=True) if is_used]
        old_codes = np.flatnonzero(used)
        new_codes = _remap(values, np.arange(len(values), dtype=np.intp), domain_tuple)
        lookup = np.full(max(self.n_values, 1), MISSING, dtype=np.intp)
        lookup[old_codes] = new_codes
        codes = np.where(present, lookup[np.where(present, self.codes, 0)], MISSING)
        return ReliabilityData(
            codes, domain_tuple, self.items, self.coders, self.coders_identified, True
        )

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

    @property
    def ordered_domain(self) -> bool:
        """True when the domain's order means something.

        That is when it was declared (``domain=``, or a table's rows), or inferred from
        numbers or from strings that all spell numbers (both sorted numerically). An inferred
        domain of other strings is only sorted alphabetically: the ordinal distance refuses it.
        """
        return self.domain_declared or all(_is_number(value) for value in self.domain)

    @cached_property
    def item_value_counts(self) -> NDArray[np.float64]:
        """``(n_items, V)``: how many coders gave item u the value v (``n_uv``)."""
        present = self.codes != MISSING
        item_index = np.nonzero(present)[1]
        flat = item_index * self.n_values + self.codes[present]
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

    def pairable_value_counts(self) -> NDArray[np.float64]:
        """``(V,)``: how often each value occurs among pairable values (``n_k``)."""
        codes = self.codes[:, self.pairable]
        return np.bincount(codes[codes != MISSING], minlength=self.n_values).astype(np.float64)

    def restricted_to_items(self, mask: NDArray[np.bool_]) -> ReliabilityData:
        """The same data with only the items where ``mask`` is True."""
        kept = tuple(item for item, keep in zip(self.items, mask, strict=True) if keep)
        return ReliabilityData(
            self.codes[:, mask],
            self.domain,
            kept,
            self.coders,
            self.coders_identified,
            self.domain_declared,
        )


#: What every public function accepts as data: see :func:`as_reliability_data`.
DataLike: TypeAlias = ReliabilityData | npt.ArrayLike


def as_reliability_data(
    data: DataLike, *, domain: Sequence[Hashable] | None = None
) -> ReliabilityData:
    """The one entry point from what a caller passes as data to :class:`ReliabilityData`.

    Parameters
    ----------
    data : ReliabilityData or array_like, shape (n_coders, n_items)
        ``ReliabilityData`` as is, or a coders × items array of values with ``nan`` (or
        ``None``) for a missing value (see :meth:`ReliabilityData.from_matrix`).
    domain : sequence, optional
        Every value a label may take, in order. With ``ReliabilityData`` the annotations are
        re-coded onto it (:meth:`ReliabilityData.with_domain`). Required to order string
        labels for the ordinal distance.

    Returns
    -------
    ReliabilityData

    Raises
    ------
    ValueError
        For a label outside ``domain``, or an array that is not 2-dimensional.

    Examples
    --------
    >>> data = as_reliability_data([["low", "high"], ["mid", "high"]],
    ...                            domain=["low", "mid", "high"])
    >>> data.domain, data.codes.tolist()
    (('low', 'mid', 'high'), [[0, 2], [1, 2]])
    """
    if isinstance(data, ReliabilityData):
        return data if domain is None else data.with_domain(domain)
    return ReliabilityData.from_matrix(data, domain=domain)


# -- helpers ---------------------------------------------------------------------------------


def _is_number(value: object) -> bool:
    if isinstance(value, Real | np.number):
        return True
    return isinstance(value, str) and _as_number(value) is not None


def _as_number(text: str) -> float | None:
    try:
        number = float(text)
    except ValueError:
        return None
    return number if math.isfinite(number) else None


def _numeric_strings_in_order(
    values: list[Hashable], index: NDArray[np.intp]
) -> tuple[list[Hashable], NDArray[np.intp]]:
    """Inferred string labels that all spell numbers, ordered by value (``"2"`` < ``"10"``)."""
    if not values or not all(isinstance(value, str) for value in values):
        return values, index
    numbers = [_as_number(value) for value in values]  # type: ignore[arg-type]
    if any(number is None for number in numbers):
        return values, index
    order = sorted(range(len(values)), key=lambda i: (numbers[i], values[i]))
    if order == list(range(len(values))):
        return values, index
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    return [values[i] for i in order], rank[index] if len(index) else index


def _remap(
    values: Sequence[Hashable], index: NDArray[np.intp], domain: tuple[Hashable, ...]
) -> NDArray[np.intp]:
    """``index`` into ``values`` turned into positions in ``domain`` (labels must be in it)."""
    position = {value: i for i, value in enumerate(domain)}
    if len(position) != len(domain):
        raise ValueError("The declared domain lists a value more than once.")
    unknown = [value for value in values if value not in position]
    if unknown:
        raise ValueError(f"Labels outside the declared domain: {unknown[:10]!r}.")
    remap = np.array([position[value] for value in values], dtype=np.intp)
    return remap[index] if len(index) else np.asarray(index, dtype=np.intp)


def _missing_mask(array: NDArray[np.object_]) -> NDArray[np.bool_]:
    """Element-wise ``None`` or ``nan`` in an object array (``nan != nan``)."""
    is_none = np.equal(array, np.full((), None, dtype=object))
    with np.errstate(invalid="ignore"):
        is_nan = np.not_equal(array, array)
    return np.asarray(is_none | is_nan, dtype=bool)


def _factorize_numbers(values: NDArray[Any]) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """``np.unique(values, return_inverse=True)``, in linear time for small whole numbers.

    Category codes are usually small integers; counting them avoids ``np.unique``'s sort.
    """
    if values.size and values.dtype.kind in "iuf":
        low, high = values.min(), values.max()
        span = float(high) - float(low)
        if span <= 4 * values.size + 1024 and np.all(np.floor(values) == values):
            offsets = (values - low).astype(np.intp)
            used = np.bincount(offsets, minlength=int(span) + 1) > 0
            lookup = np.cumsum(used) - 1
            unique = (np.flatnonzero(used) + low).astype(values.dtype)
            return unique, lookup[offsets].astype(np.intp)
    unique, inverse = np.unique(values, return_inverse=True)
    return unique, inverse.astype(np.intp).reshape(-1)


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
        return unique.tolist(), inverse.astype(np.intp).reshape(-1)
    index: dict[Hashable, int] = {}
    inverse_list = [index.setdefault(value, len(index)) for value in sequence]  # type: ignore[arg-type]
    return list(index), np.asarray(inverse_list, dtype=np.intp)


def _is_plain(sequence: object) -> bool:
    if isinstance(sequence, np.ndarray):
        return sequence.dtype != object
    first = sequence[0]  # type: ignore[index]
    return isinstance(first, str | int | float | np.generic) and not isinstance(first, bool)
