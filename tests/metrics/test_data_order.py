"""How ReliabilityData puts triples in order: item-major, then by coder, a coder once per item.

``from_codes`` and ``from_long`` pack each (item, coder, value) into one unsigned integer of
32 or 64 bits and sort that; codes too wide for 64 bits are sorted on a key instead. Each
width is checked against a literal table of the expected order and of the repeated pair
that is refused.
"""

from __future__ import annotations

import numpy as np
import pytest

from metrics.data import ReliabilityData, _sorted_triples

# (item, coder, value) in input order, and the same triples item-major, then by coder.
SHUFFLED = [(2, 0, 1), (0, 1, 2), (1, 0, 0), (0, 0, 1), (2, 1, 1), (1, 2, 2)]
IN_ORDER = [(0, 0, 1), (0, 1, 2), (1, 0, 0), (1, 2, 2), (2, 0, 1), (2, 1, 1)]


def columns(triples: list[tuple[int, int, int]]) -> tuple[np.ndarray, ...]:
    return tuple(np.array(column, dtype=np.intp) for column in zip(*triples, strict=True))


def rows(item: np.ndarray, coder: np.ndarray, value: np.ndarray) -> list[tuple[int, ...]]:
    return list(zip(item.tolist(), coder.tolist(), value.tolist(), strict=True))


# Sizes (items, coders, values) for each packing: the codes' bits add up to at most 32, at
# most 64, and more than 64.
WIDTHS = {
    "32 bits": (3, 3, 3),
    "64 bits": (2**20, 2**12, 2**8),
    "beyond 64 bits": (2**30, 2**30, 2**10),
}


@pytest.mark.parametrize("width", WIDTHS)
def test_triples_come_out_item_major_then_by_coder(width: str) -> None:
    item, coder, value, repeated = _sorted_triples(*columns(SHUFFLED), *WIDTHS[width])
    assert rows(item, coder, value) == IN_ORDER
    assert repeated is None
    assert all(array.dtype == np.intp for array in (item, coder, value))


@pytest.mark.parametrize("width", WIDTHS)
def test_the_first_repeated_item_and_coder_is_named(width: str) -> None:
    twice = [*SHUFFLED, (1, 2, 0), (2, 0, 0)]  # (1, 2) and (2, 0) labelled twice
    *_, repeated = _sorted_triples(*columns(twice), *WIDTHS[width])
    assert repeated == (1, 2)


def test_from_codes_sorts_large_codes_in_64_bits() -> None:
    n_items, n_coders = 2**20, 2**12
    item = np.array([n_items - 1, 5, n_items - 1, 5])
    coder = np.array([n_coders - 1, 7, 0, 0])
    data = ReliabilityData.from_codes(
        item, coder, [1, 0, 1, 0], ["a", "b"], range(n_items), range(n_coders)
    )
    assert rows(data.item_index, data.coder_index, data.value_code) == [
        (5, 0, 0),
        (5, 7, 0),
        (n_items - 1, 0, 1),
        (n_items - 1, n_coders - 1, 1),
    ]


def test_from_long_names_the_coder_and_item_labelled_twice() -> None:
    with pytest.raises(ValueError, match="Coder 'ann' labelled item 'doc-2' more than once"):
        ReliabilityData.from_long(
            ["doc-2", "doc-1", "doc-2"], ["ann", "bob", "ann"], ["x", "y", "z"]
        )


@pytest.mark.parametrize("order", ["shuffled", "in order"])
def test_from_long_leaves_the_callers_arrays_writable(order: str) -> None:
    item, coder, value = columns(SHUFFLED if order == "shuffled" else IN_ORDER)
    data = ReliabilityData.from_long(item, coder, value)
    assert rows(data.item_index, data.coder_index, data.value_code) == IN_ORDER
    assert all(array.flags.writeable for array in (item, coder, value))
    assert not any(
        array.flags.writeable for array in (data.item_index, data.coder_index, data.value_code)
    )
    item[0] = 9  # the caller's array is the caller's: the data does not change
    assert data.item_index.tolist() == [0, 0, 1, 1, 2, 2]


@pytest.mark.parametrize("shape", [(1, 4), (4, 1)])
def test_from_matrix_keeps_its_own_copy_of_whole_number_labels(shape: tuple[int, int]) -> None:
    matrix = np.arange(4, dtype=np.intp).reshape(shape)  # codes 0..3 already: no missing
    data = ReliabilityData.from_matrix(matrix)
    matrix[...] = 0
    assert data.value_code.tolist() == [0, 1, 2, 3]
    assert data.domain == (0, 1, 2, 3)


def test_from_long_names_items_and_coders_as_given() -> None:
    # Whole numbers from 3 to 5, all used; the extremes of int64; infinite labels.
    data = ReliabilityData.from_long(np.array([5, 3, 4]), np.array([0, 0, 0]), [1, 2, 3])
    assert (data.items, data.coders) == ((3, 4, 5), (0,))
    extremes = np.array([-(2**63), 2**63 - 1])
    assert ReliabilityData.from_long(extremes, [0, 1], [1, 2]).items == (-(2**63), 2**63 - 1)
    infinite = ReliabilityData.from_long([0, 0], [0, 1], [1.0, np.inf])
    assert infinite.domain == (1.0, np.inf)
