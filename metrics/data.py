"""Reliability data: what every coefficient reads, and the one way in.

Values are stored once, as integer codes into a value *domain*; the data itself is in long
format, one (item, coder, value code) triple per annotation, so memory is linear in the number
of annotations (a dense coders × items matrix is only built on request, ``.codes``). A missing
annotation is absent, never a label.

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
from functools import cached_property
from numbers import Real
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray
from scipy import sparse

MISSING = -1


class ReliabilityData:
    """Annotations in long format: one (item, coder, value code) triple per annotation.

    This is the one internal representation: memory and time are linear in the number of
    annotations, whatever the numbers of coders and items (2,000 coders who each label a few
    of 200,000 items cost what 10 coders labelling 100,000 items cost).

    ``ReliabilityData(codes, domain, items, coders)`` still accepts a dense coders × items
    code matrix (``-1`` for missing) and converts it; the constructors below build the long
    arrays directly.

    Attributes
    ----------
    item_index, coder_index, value_code : ndarray of intp, shape (n_annotations,)
        Per annotation: the item (indexes ``items``), the coder (indexes ``coders``) and the
        value (indexes ``domain``). Sorted item-major, then by coder; read-only; a coder
        labels an item at most once.
    domain : tuple
        Every value a label may take, in order (the order matters for ordinal data). Declared
        values nobody used stay in the domain.
    items, coders : tuple
        Identifiers of the items and coders.
    coders_identified : bool, default True
        False for data built from an agreement table, whose "coders" are anonymous slots.
    domain_declared : bool, default True
        False when the domain was inferred from the labels that occur (``from_long`` and
        ``from_matrix`` without ``domain=``); True when the caller gave it (a domain passed to
        the constructor, or a table's rows and columns).
    codes : ndarray of intp, shape (n_coders, n_items)
        The dense code matrix (``-1`` for missing), materialised on first access: for small
        data and for callers; internal code never uses it.
    """

    item_index: NDArray[np.intp]
    coder_index: NDArray[np.intp]
    value_code: NDArray[np.intp]
    domain: tuple[Hashable, ...]
    items: tuple[Hashable, ...]
    coders: tuple[Hashable, ...]
    coders_identified: bool
    domain_declared: bool

    def __init__(
        self,
        codes: npt.ArrayLike,
        domain: Sequence[Hashable],
        items: Sequence[Hashable],
        coders: Sequence[Hashable],
        coders_identified: bool = True,
        domain_declared: bool = True,
    ) -> None:
        matrix = np.asarray(codes)
        if matrix.ndim != 2:
            raise ValueError("Reliability data must be a coders × items matrix (2 dimensions).")
        if matrix.shape != (len(coders), len(items)):
            raise ValueError(
                f"The code matrix has shape {matrix.shape} but there are {len(coders)} coders "
                f"and {len(items)} items."
            )
        if matrix.size and (matrix.min() < MISSING or matrix.max() >= len(domain)):
            raise ValueError("Every code must index the value domain, or be -1 for missing.")
        by_item = matrix.T
        item, coder = np.nonzero(by_item != MISSING)  # item-major, then coder
        self._assign(
            item.astype(np.intp),
            coder.astype(np.intp),
            by_item[item, coder].astype(np.intp),
            domain,  # type: ignore[arg-type]  # stored as given, as before
            items,  # type: ignore[arg-type]
            coders,  # type: ignore[arg-type]
            coders_identified,
            domain_declared,
        )

    def _assign(
        self,
        item: NDArray[np.intp],
        coder: NDArray[np.intp],
        value: NDArray[np.intp],
        domain: tuple[Hashable, ...],
        items: tuple[Hashable, ...],
        coders: tuple[Hashable, ...],
        coders_identified: bool,
        domain_declared: bool,
    ) -> None:
        for array in (item, coder, value):
            array.setflags(write=False)
        fields = {
            "item_index": item,
            "coder_index": coder,
            "value_code": value,
            "domain": domain,
            "items": items,
            "coders": coders,
            "coders_identified": bool(coders_identified),
            "domain_declared": bool(domain_declared),
        }
        for name, field in fields.items():
            object.__setattr__(self, name, field)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ReliabilityData is immutable; cannot set {name!r}.")

    def __repr__(self) -> str:
        return (
            f"ReliabilityData(n_coders={self.n_coders}, n_items={self.n_items}, "
            f"n_annotations={self.n_annotations}, domain={self.domain!r})"
        )

    @classmethod
    def from_codes(
        cls,
        item_index: npt.ArrayLike,
        coder_index: npt.ArrayLike,
        value_code: npt.ArrayLike,
        domain: Sequence[Hashable],
        items: Sequence[Hashable],
        coders: Sequence[Hashable],
        *,
        coders_identified: bool = True,
        domain_declared: bool = True,
    ) -> ReliabilityData:
        """Build from integer triples: positions in ``items``, ``coders`` and ``domain``.

        The triples may come in any order (they are sorted item-major, then by coder, in
        O(n log n), or O(n) when already sorted; see :func:`_sorted_triples`). Raises
        ``ValueError`` for a position out of range or for a coder who labelled an item twice.
        """
        item = np.asarray(item_index, dtype=np.intp).reshape(-1)
        coder = np.asarray(coder_index, dtype=np.intp).reshape(-1)
        value = np.asarray(value_code, dtype=np.intp).reshape(-1)
        domain_tuple, items_tuple, coders_tuple = tuple(domain), tuple(items), tuple(coders)
        if not (item.size == coder.size == value.size):
            raise ValueError("items, coders and labels must have the same length.")
        for array, size, what in (
            (item, len(items_tuple), "item"),
            (coder, len(coders_tuple), "coder"),
            (value, len(domain_tuple), "value"),
        ):
            if array.size and (array.min() < 0 or array.max() >= size):
                raise ValueError(f"Every {what} code must index the {what}s.")
        return cls._from_valid_codes(
            item,
            coder,
            value,
            domain_tuple,
            items_tuple,
            coders_tuple,
            coders_identified=coders_identified,
            domain_declared=domain_declared,
        )

    @classmethod
    def _from_valid_codes(
        cls,
        item: NDArray[np.intp],
        coder: NDArray[np.intp],
        value: NDArray[np.intp],
        domain: tuple[Hashable, ...],
        items: tuple[Hashable, ...],
        coders: tuple[Hashable, ...],
        *,
        coders_identified: bool = True,
        domain_declared: bool = True,
        copy: bool = False,
    ) -> ReliabilityData:
        """:meth:`from_codes` for codes known to be in range (made by a factorisation).

        ``copy``: the codes may be the caller's own arrays, which must not become read-only.
        """
        ordered = _sorted_triples(item, coder, value, len(items), len(coders), len(domain))
        if copy and ordered[0] is item:  # already in order: the caller's own arrays came back
            ordered = (item.copy(), coder.copy(), value.copy(), ordered[3])
        item, coder, value, repeated = ordered
        if repeated is not None:
            raise ValueError(
                f"Coder {coders[repeated[1]]!r} labelled item {items[repeated[0]]!r} "
                "more than once."
            )
        data = cls.__new__(cls)
        data._assign(item, coder, value, domain, items, coders, coders_identified, domain_declared)
        return data

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
        by one coder on one item, raise ``ValueError``. Memory is linear in the number of
        triples (no coders × items array is built).

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
        return cls._from_valid_codes(
            item_index,
            coder_index,
            label_index,
            domain_tuple,
            tuple(item_ids),
            tuple(coder_ids),
            domain_declared=domain is not None,
            copy=True,
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
            return cls._from_numeric_matrix(numeric, domain)
        array = np.asarray(matrix, dtype=object)
        if array.ndim != 2:
            raise ValueError("matrix must be 2-dimensional: coders × items.")
        by_item = array.T
        item, coder = np.nonzero(~_missing_mask(by_item))
        data = cls.from_long(item, coder, list(by_item[item, coder]), domain=domain)
        # from_long numbers only the coders and items with a value; put them back in place.
        n_coders, n_items = array.shape
        item_position = np.asarray(data.items, dtype=np.intp)
        coder_position = np.asarray(data.coders, dtype=np.intp)
        return cls.from_codes(
            item_position[data.item_index] if data.n_annotations else data.item_index,
            coder_position[data.coder_index] if data.n_annotations else data.coder_index,
            data.value_code,
            data.domain,
            range(n_items),
            range(n_coders),
            domain_declared=data.domain_declared,
        )

    @classmethod
    def _from_numeric_matrix(
        cls, numeric: NDArray[Any], domain: Sequence[Hashable] | None
    ) -> ReliabilityData:
        """:meth:`from_matrix` for a 2-D array of numbers, in a few passes over it.

        The (item, coder) pairs are built in order and unique, so the checks and the sort of
        :meth:`from_codes` are skipped; ``values_per_item`` and ``domain_as_floats`` come
        with them.
        """
        n_coders, n_items = numeric.shape
        by_item = np.ascontiguousarray(numeric.T).reshape(-1)  # item-major, then coder
        item = np.repeat(np.arange(n_items, dtype=np.intp), n_coders)
        coder = np.tile(np.arange(n_coders, dtype=np.intp), n_items)
        missing = np.isnan(by_item) if numeric.dtype.kind == "f" else None
        if missing is not None and missing.any():
            present_mask = ~missing
            item, coder, present = item[present_mask], coder[present_mask], by_item[present_mask]
            absent = np.add.reduce(missing.reshape(n_items, n_coders), axis=1, dtype=np.intp)
            per_item = n_coders - absent
        else:
            present = by_item
            per_item = np.full(n_items, n_coders, dtype=np.intp)
        values, inverse = _factorize_numbers(present)
        if domain is None:
            domain_tuple = tuple(values.tolist())
        else:
            domain_tuple = tuple(domain)
            inverse = _remap(values.tolist(), inverse, domain_tuple)
        data = cls.__new__(cls)
        data._assign(
            item,
            coder,
            np.asarray(inverse, dtype=np.intp),
            domain_tuple,
            tuple(range(n_items)),
            tuple(range(n_coders)),
            True,
            domain is not None,
        )
        per_item.setflags(write=False)
        data.__dict__["values_per_item"] = per_item  # the cached property, filled
        floats = values.astype(np.float64)
        if domain is None and np.all(np.isfinite(floats)):
            floats.setflags(write=False)
            data.__dict__["domain_as_floats"] = floats
        return data

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
        pair = np.repeat(np.arange(k * k, dtype=np.intp), flat_counts)
        n_items = pair.size
        item = np.repeat(np.arange(n_items, dtype=np.intp), 2)
        coder = np.tile(np.array([0, 1], dtype=np.intp), n_items)
        value = np.column_stack([pair // k, pair % k]).reshape(-1)
        return cls.from_codes(item, coder, value, domain_tuple, range(n_items), ("A", "B"))

    @classmethod
    def from_agreement_table(
        cls,
        counts: npt.ArrayLike,
        *,
        domain: Sequence[Hashable] | None = None,
    ) -> ReliabilityData:
        """Build from items × categories counts (how many coders chose each category).

        ``domain`` names the columns' categories in order (default ``0 .. k-1``). Coders are
        anonymous here: the "coders" are slots, not people, so only coefficients with a pooled
        chance model (S, pi, multi-pi, alpha, AC1) apply.
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
        values = np.repeat(np.tile(np.arange(k, dtype=np.intp), n_items), table.ravel())
        item_of_value = np.repeat(np.arange(n_items, dtype=np.intp), per_item)
        starts = np.concatenate([[0], np.cumsum(per_item)[:-1]]).astype(np.intp)
        slot_of_value = np.arange(len(values), dtype=np.intp) - np.repeat(starts, per_item)
        return cls.from_codes(
            item_of_value,
            slot_of_value,
            values,
            domain_tuple,
            range(n_items),
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
        used = np.bincount(self.value_code, minlength=self.n_values) > 0
        values = [value for value, is_used in zip(self.domain, used, strict=True) if is_used]
        old_codes = np.flatnonzero(used)
        new_codes = _remap(values, np.arange(len(values), dtype=np.intp), domain_tuple)
        lookup = np.full(max(self.n_values, 1), MISSING, dtype=np.intp)
        lookup[old_codes] = new_codes
        return self._derived(
            self.item_index,
            self.coder_index,
            lookup[self.value_code],
            domain=domain_tuple,
            domain_declared=True,
        )

    def restricted_to_items(self, mask: NDArray[np.bool_]) -> ReliabilityData:
        """The same data with only the items where ``mask`` is True."""
        mask = np.asarray(mask, dtype=bool)
        kept = tuple(item for item, keep in zip(self.items, mask, strict=True) if keep)
        entries = mask[self.item_index]
        renumber = np.cumsum(mask, dtype=np.intp) - 1
        return self._derived(
            renumber[self.item_index[entries]],
            self.coder_index[entries],
            self.value_code[entries],
            items=kept,
        )

    def restricted_to_coders(self, positions: Sequence[int]) -> ReliabilityData:
        """The annotations of the coders at ``positions`` (in that order), every item kept.

        Costs O(their annotations) after a one-off O(n) grouping by coder.
        """
        chosen = [int(position) for position in positions]
        start, stop = self._coder_starts
        order = self._coder_order
        entries = np.concatenate(
            [order[start[g] : stop[g]] for g in chosen] or [np.zeros(0, dtype=np.intp)]
        )
        new_coder = np.repeat(
            np.arange(len(chosen), dtype=np.intp),
            [int(stop[g] - start[g]) for g in chosen],
        )
        return ReliabilityData.from_codes(
            self.item_index[entries],
            new_coder,
            self.value_code[entries],
            self.domain,
            self.items,
            tuple(self.coders[g] for g in chosen),
            coders_identified=self.coders_identified,
            domain_declared=self.domain_declared,
        )

    def _derived(
        self,
        item: NDArray[np.intp],
        coder: NDArray[np.intp],
        value: NDArray[np.intp],
        *,
        domain: tuple[Hashable, ...] | None = None,
        items: tuple[Hashable, ...] | None = None,
        domain_declared: bool | None = None,
    ) -> ReliabilityData:
        """A copy with new arrays (already sorted item-major) and the other fields kept."""
        data = ReliabilityData.__new__(ReliabilityData)
        data._assign(
            np.ascontiguousarray(item, dtype=np.intp),
            np.ascontiguousarray(coder, dtype=np.intp),
            np.ascontiguousarray(value, dtype=np.intp),
            self.domain if domain is None else domain,
            self.items if items is None else items,
            self.coders,
            self.coders_identified,
            self.domain_declared if domain_declared is None else domain_declared,
        )
        return data

    # -- derived views ------------------------------------------------------------------

    @property
    def n_coders(self) -> int:
        return len(self.coders)

    @property
    def n_items(self) -> int:
        return len(self.items)

    @property
    def n_values(self) -> int:
        """Size of the value domain (V)."""
        return len(self.domain)

    @property
    def n_annotations(self) -> int:
        return int(self.value_code.size)

    @property
    def ordered_domain(self) -> bool:
        """True when the domain's order means something.

        That is when it was declared (``domain=``, or a table's rows), or inferred from
        numbers or from strings that all spell numbers (both sorted numerically). An inferred
        domain of other strings is only sorted alphabetically: the ordinal distance refuses it.
        """
        return self.domain_declared or all(_is_number(value) for value in self.domain)

    @cached_property
    def domain_as_floats(self) -> NDArray[np.float64] | None:
        """``(V,)``: the domain read as floats (cached), ``None`` unless all finite numbers.

        Read as :func:`metrics.distances.scalar.numeric_domain` reads it; kept from the
        array when built by :meth:`from_matrix` from numbers (no pass over Python floats).
        """
        try:
            values = np.fromiter(self.domain, dtype=np.float64, count=len(self.domain))
        except (TypeError, ValueError):
            return None
        if not np.all(np.isfinite(values)):
            return None
        values.setflags(write=False)
        return values

    @cached_property
    def codes(self) -> NDArray[np.intp]:
        """``(n_coders, n_items)`` dense code matrix, ``-1`` where a coder left an item.

        Materialised on first access (``n_coders × n_items`` integers): for small data and
        for callers; internal code never uses it.
        """
        matrix = np.full((self.n_coders, self.n_items), MISSING, dtype=np.intp)
        matrix[self.coder_index, self.item_index] = self.value_code
        matrix.setflags(write=False)
        return matrix

    @cached_property
    def item_value_counts(self) -> NDArray[np.float64]:
        """``(n_items, V)`` dense: how many coders gave item u the value v (``n_uv``).

        Linear in the data only while V is small; see :attr:`item_value_counts_csr` and
        :attr:`dense_counts_are_linear`.
        """
        flat = self.item_index * self.n_values + self.value_code
        counts = np.bincount(flat, minlength=self.n_items * self.n_values)
        return counts.reshape(self.n_items, self.n_values).astype(np.float64)

    @cached_property
    def item_value_counts_csr(self) -> sparse.csr_matrix:
        """``(n_items, V)`` sparse (CSR) ``n_uv``: memory linear in annotations for any V."""
        matrix = sparse.csr_matrix(
            (np.ones(self.n_annotations), (self.item_index, self.value_code)),
            shape=(self.n_items, self.n_values),
        )
        matrix.sum_duplicates()
        return matrix

    @cached_property
    def item_value_pairs(self) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.float64]]:
        """The non-zero entries of :attr:`item_value_counts` without the ``n_items × V`` array.

        ``(item, value_code, n_uv)`` for every (item, value) pair that occurs, sorted by item
        then value: one sort of the annotations, O(n log n) time and O(n) memory for any V.
        """
        width = max(self.n_values, 1)
        keys, counts = np.unique(
            self.item_index.astype(np.int64) * width + self.value_code, return_counts=True
        )
        return (
            (keys // width).astype(np.intp),
            (keys % width).astype(np.intp),
            counts.astype(np.float64),
        )

    @property
    def dense_counts_are_linear(self) -> bool:
        """Whether an ``n_items × V`` array is no larger than a few times the data."""
        return self.n_items * self.n_values <= max(4 * self.n_annotations, 1 << 16)

    @cached_property
    def coder_value_counts(self) -> NDArray[np.float64]:
        """``(n_coders, V)``: how often each coder gave each value (per-coder marginals)."""
        flat = self.coder_index * self.n_values + self.value_code
        counts = np.bincount(flat, minlength=self.n_coders * self.n_values)
        return counts.reshape(self.n_coders, self.n_values).astype(np.float64)

    @cached_property
    def values_per_item(self) -> NDArray[np.intp]:
        """``(n_items,)``: how many values each item received (``m_u``)."""
        counts = np.bincount(self.item_index, minlength=self.n_items).astype(np.intp)
        counts.setflags(write=False)
        return counts

    @cached_property
    def item_starts(self) -> NDArray[np.intp]:
        """``(n_items + 1,)``: item u's annotations are ``item_starts[u]:item_starts[u+1]``."""
        starts = np.zeros(self.n_items + 1, dtype=np.intp)
        np.cumsum(self.values_per_item, out=starts[1:])
        return starts

    @cached_property
    def pairable(self) -> NDArray[np.bool_]:
        """``(n_items,)``: items with at least two values; the others are unpairable."""
        return self.values_per_item >= 2

    @property
    def n_pairable_items(self) -> int:
        return int(np.count_nonzero(self.pairable))

    def pairable_value_counts(self) -> NDArray[np.float64]:
        """``(V,)``: how often each value occurs among pairable values (``n_k``)."""
        kept = self.value_code[self.pairable[self.item_index]]
        return np.bincount(kept, minlength=self.n_values).astype(np.float64)

    # -- coders and coder pairs --------------------------------------------------------------

    @cached_property
    def _coder_order(self) -> NDArray[np.intp]:
        """Annotation positions grouped by coder (items ascending within a coder)."""
        return np.argsort(self.coder_index, kind="stable").astype(np.intp)

    @cached_property
    def _coder_starts(self) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        per_coder = np.bincount(self.coder_index, minlength=self.n_coders)
        stop = np.cumsum(per_coder).astype(np.intp)
        return stop - per_coder, stop

    def coder_annotations(self, coder: int) -> NDArray[np.intp]:
        """Positions of coder ``coder``'s annotations (position in ``coders``), by item."""
        start, stop = self._coder_starts
        return self._coder_order[start[coder] : stop[coder]]

    def paired_codes(
        self, first: int, second: int
    ) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp]]:
        """Items both coders labelled (ascending) and the two coders' value codes on them.

        ``first`` and ``second`` are positions in ``coders``.
        """
        a = self.coder_annotations(first)
        b = self.coder_annotations(second)
        items, in_a, in_b = np.intersect1d(
            self.item_index[a], self.item_index[b], assume_unique=True, return_indices=True
        )
        return items.astype(np.intp), self.value_code[a[in_a]], self.value_code[b[in_b]]

    def shared_items(self) -> sparse.csr_matrix:
        """``(C, C)`` sparse: how many items each pair of coders both labelled.

        One sparse product of the coder × item incidence matrix with its transpose: cost
        ``Σ_u m_u²``, never ``C² × items``. The diagonal holds each coder's item count.
        """
        incidence = sparse.csr_matrix(
            (np.ones(self.n_annotations), (self.coder_index, self.item_index)),
            shape=(self.n_coders, self.n_items),
        )
        product = (incidence @ incidence.T).tocsr()
        product.sum_duplicates()
        return product

    def coder_pairs(self) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.int64]]:
        """The coder pairs ``g < h`` that share at least one item, and how many they share.

        Sorted by ``g`` then ``h``; only pairs that share items are listed.
        """
        shared = self.shared_items().tocoo()
        upper = (shared.row < shared.col) & (shared.data > 0)
        first, second = shared.row[upper].astype(np.intp), shared.col[upper].astype(np.intp)
        counts = np.rint(shared.data[upper]).astype(np.int64)
        order = np.lexsort((second, first))
        return first[order], second[order], counts[order]

    def item_pairs(self) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
        """Every unordered pair of annotations on the same item, as positions ``(a, b)``.

        ``a < b``, so ``coder_index[a] < coder_index[b]``; ``Σ_u m_u (m_u - 1) / 2`` pairs.
        """
        n = self.n_annotations
        rank = np.arange(n, dtype=np.intp) - self.item_starts[self.item_index]
        after = self.values_per_item[self.item_index] - rank - 1
        left = np.repeat(np.arange(n, dtype=np.intp), after)
        block_start = np.cumsum(after) - after
        right = left + 1 + (np.arange(left.size, dtype=np.intp) - np.repeat(block_start, after))
        return left, right


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
    values: Sequence[Hashable], index: NDArray[np.intp]
) -> tuple[Sequence[Hashable], NDArray[np.intp]]:
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


def _sorted_triples(
    item: NDArray[np.intp],
    coder: NDArray[np.intp],
    value: NDArray[np.intp],
    n_items: int,
    n_coders: int,
    n_values: int,
) -> tuple[NDArray[np.intp], NDArray[np.intp], NDArray[np.intp], tuple[int, int] | None]:
    """The triples sorted item-major, then by coder, and the first (item, coder) repeated.

    Triples already in order come back as they are (the same arrays).

    The three codes are packed side by side in the bits of one unsigned integer (32 bits when
    they fit, as for 200,000 items, 2,000 coders and 5 values), sorted in place and unpacked
    with shifts: one sort of a narrow array, no gathers and no integer division.
    """
    if item.size < 2:
        return item, coder, value, None
    value_bits = max(n_values - 1, 0).bit_length()
    coder_bits = max(n_coders - 1, 0).bit_length()
    item_bits = max(n_items - 1, 0).bit_length()
    width = value_bits + coder_bits + item_bits
    if width > 64:  # beyond any packing: sort on the (item, coder) key with its values
        key = item.astype(np.int64) * n_coders + coder
        order = np.argsort(key)  # a gather: always new arrays
        item, coder, value, key = item[order], coder[order], value[order], key[order]
        repeated = np.flatnonzero(key[1:] == key[:-1])
        if repeated.size:
            return item, coder, value, (int(item[repeated[0]]), int(coder[repeated[0]]))
        return item, coder, value, None
    unsigned = np.uint32 if width <= 32 else np.uint64
    # In place, with ``out=``: each step writes into ``packed`` (or the result) directly, so
    # no full-size temporary is allocated (fresh pages cost as much as the arithmetic here).
    packed = np.left_shift(item, coder_bits, dtype=unsigned, casting="unsafe")
    np.bitwise_or(packed, coder, out=packed, dtype=unsigned, casting="unsafe")
    np.left_shift(packed, unsigned(value_bits), out=packed)
    np.bitwise_or(packed, value, out=packed, dtype=unsigned, casting="unsafe")
    already_sorted = bool(np.all(packed[1:] >= packed[:-1]))
    if not already_sorted:
        packed.sort()
    value_mask = unsigned((1 << value_bits) - 1)
    sorted_value = np.bitwise_and(packed, value_mask, dtype=np.intp, casting="unsafe")
    np.right_shift(packed, unsigned(value_bits), out=packed)  # now the (item, coder) key
    repeated = np.flatnonzero(packed[1:] == packed[:-1])
    if repeated.size:
        first = int(packed[repeated[0]])
        return item, coder, value, (first >> coder_bits, first & ((1 << coder_bits) - 1))
    if already_sorted:
        return item, coder, value, None
    coder_mask = unsigned((1 << coder_bits) - 1)
    sorted_coder = np.bitwise_and(packed, coder_mask, dtype=np.intp, casting="unsafe")
    np.right_shift(packed, unsigned(coder_bits), out=packed)
    return packed.astype(np.intp), sorted_coder, sorted_value, None


def _factorize_numbers(
    values: NDArray[Any], *, may_alias: bool = False
) -> tuple[NDArray[Any], NDArray[np.intp]]:
    """``np.unique(values, return_inverse=True)``, in linear time for small whole numbers.

    Category codes are usually small integers; counting them avoids ``np.unique``'s sort.
    With ``may_alias``, codes that are already ``0 .. k-1`` come back as ``values`` itself
    (the caller copies them before keeping them).
    """
    if values.size and values.dtype.kind in "iuf":
        low, high = values.min(), values.max()
        span = float(high) - float(low)
        whole = values.dtype.kind in "iu" or bool(np.all(np.floor(values) == values))
        if span <= 4 * values.size + 1024 and whole:
            own_codes = may_alias and low == 0 and values.dtype == np.intp
            offsets = values if own_codes else values - low
            offsets = offsets.astype(np.intp, copy=False)
            used = np.bincount(offsets, minlength=int(span) + 1) > 0
            unique = (np.flatnonzero(used) + low).astype(values.dtype)
            if unique.size == used.size:  # every number in the range occurs: codes = offsets
                return unique, offsets
            lookup = np.cumsum(used) - 1
            return unique, lookup[offsets].astype(np.intp)
    unique, inverse = np.unique(values, return_inverse=True)
    return unique, inverse.astype(np.intp).reshape(-1)


def _factorize(
    values: npt.ArrayLike | Sequence[Hashable], what: str
) -> tuple[Sequence[Hashable], NDArray[np.intp]]:
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
        if array.dtype.kind in "iuf":
            # from_long, the only caller, copies the codes it keeps (``copy=True``).
            numbers, inverse = _factorize_numbers(array, may_alias=True)
            if array.dtype.kind in "iu":
                low, high = int(numbers[0]), int(numbers[-1])  # Python ints: no wrap-around
                if high - low == numbers.size - 1:  # every whole number from low to high
                    return range(low, high + 1), inverse
            return numbers.tolist(), inverse
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
