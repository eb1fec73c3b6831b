"""The models' fast reader builds exactly what ``ReliabilityData.from_long`` builds."""

from __future__ import annotations

import numpy as np
import pytest

from metrics.data import ReliabilityData
from metrics.models._data import FEW, from_long


@pytest.mark.parametrize(
    "values",
    [
        ["b", "a", "10", "2"],  # strings: alphabetical
        ["10", "2", "3"],  # strings that spell numbers: numeric order
        [f"x{i}" for i in range(FEW + 5)],  # too many distinct values: numpy.unique
        [b"no", b"yes"],
    ],
)
def test_same_as_from_long(values: list[object]) -> None:
    rng = np.random.default_rng(len(values))
    labels = np.array(values)[rng.integers(0, len(values), 900)]
    items = np.arange(900) % 300
    coders = np.array(["c1", "c2", "c3"])[np.arange(900) // 300]
    expected = ReliabilityData.from_long(items, coders, labels)
    got = from_long(items, coders, labels)
    assert got.domain == expected.domain
    assert got.coders == expected.coders
    assert got.items == expected.items
    assert got.value_code.tolist() == expected.value_code.tolist()
    assert got.coder_index.tolist() == expected.coder_index.tolist()
    assert got.item_index.tolist() == expected.item_index.tolist()


def test_checks_as_from_long() -> None:
    with pytest.raises(ValueError, match="more than once"):
        from_long(np.array([1, 1]), np.array(["a", "a"]), np.array(["x", "y"]))
    with pytest.raises(ValueError, match="outside the declared domain"):
        from_long(np.array([1]), np.array(["a"]), np.array(["z"]), domain=["x"])
