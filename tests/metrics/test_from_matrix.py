"""ReliabilityData.from_matrix on numeric arrays: the same annotations as from_codes builds.

``from_matrix`` builds the item and coder indices of a numeric array in order and skips
``from_codes``' checks and sort; the reference here is ``from_codes`` itself, given the
coder-major triples of ``np.nonzero`` and the codes of ``np.unique`` (so it sorts them and
checks them).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import pytest

from metrics.data import ReliabilityData


def reference(values: np.ndarray, domain: Sequence[Hashable] | None = None) -> ReliabilityData:
    n_coders, n_items = values.shape
    present = ~np.isnan(values) if values.dtype.kind == "f" else np.ones(values.shape, bool)
    coder, item = np.nonzero(present)  # coder-major: from_codes sorts them
    labels = values[coder, item]
    unique, inverse = np.unique(labels, return_inverse=True)
    if domain is None:
        domain_values: list[Hashable] = unique.tolist()
        codes = inverse
    else:
        domain_values = list(domain)
        codes = np.array([domain_values.index(v) for v in unique.tolist()], dtype=np.intp)
        codes = codes[inverse] if inverse.size else inverse
    return ReliabilityData.from_codes(
        item, coder, codes, domain_values, range(n_items), range(n_coders),
        domain_declared=domain is not None,
    )  # fmt: skip


def assert_same(data: ReliabilityData, expected: ReliabilityData) -> None:
    for name in ("item_index", "coder_index", "value_code"):
        assert np.array_equal(getattr(data, name), getattr(expected, name)), name
        assert getattr(data, name).dtype == np.intp
        assert not getattr(data, name).flags.writeable
    assert data.domain == expected.domain
    assert [type(v) for v in data.domain] == [type(v) for v in expected.domain]
    assert (data.items, data.coders) == (expected.items, expected.coders)
    assert (data.domain_declared, data.coders_identified) == (
        expected.domain_declared,
        expected.coders_identified,
    )
    counts = np.bincount(expected.item_index, minlength=expected.n_items)
    assert np.array_equal(data.values_per_item, counts)
    assert np.array_equal(data.codes, expected.codes)
    floats = data.domain_as_floats
    expected_floats = expected.domain_as_floats
    assert (floats is None) == (expected_floats is None)
    if floats is not None:
        assert np.array_equal(floats, expected_floats)  # type: ignore[arg-type]


def with_missing(values: np.ndarray, seed: int, share: float) -> np.ndarray:
    values = values.astype(float)
    values[np.random.default_rng(seed).random(values.shape) < share] = np.nan
    return values


RNG = np.random.default_rng(3)
CASES = {
    "complete, every value in the range": RNG.integers(0, 5, (6, 40)).astype(float),
    "missing values": with_missing(RNG.integers(0, 5, (6, 40)), 1, 0.3),
    "negative whole numbers with gaps": with_missing(RNG.choice([-7, -2, 0, 3], (4, 30)), 2, 0.2),
    "large gap": with_missing(RNG.choice([0.0, 1e9], (3, 20)), 3, 0.2),
    "fractions": with_missing(RNG.choice([0.5, 1.25, -2.0], (3, 20)), 4, 0.2),
    "single category": with_missing(np.full((3, 10), 4.0), 5, 0.3),
    "items with nothing": np.array([[1.0, np.nan, 2.0], [np.nan, np.nan, 3.0]]),
    "all missing": np.full((2, 3), np.nan),
    "int64": RNG.integers(-3, 3, (5, 30)),
    "uint8 with gaps": RNG.choice(np.array([1, 4, 200], dtype=np.uint8), (3, 25)),
    "float32": with_missing(RNG.integers(0, 4, (3, 25)), 6, 0.2).astype(np.float32),
    "no items": np.zeros((3, 0)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_from_matrix_equals_from_codes(name: str) -> None:
    values = CASES[name]
    assert_same(ReliabilityData.from_matrix(values), reference(values))


def test_from_matrix_with_a_declared_domain_equals_from_codes() -> None:
    values = CASES["missing values"]
    domain = [4.0, 3.0, 2.0, 1.0, 0.0, 9.0]
    assert_same(ReliabilityData.from_matrix(values, domain=domain), reference(values, domain))
    with pytest.raises(ValueError, match="outside the declared domain"):
        ReliabilityData.from_matrix(values, domain=[0.0, 1.0])
