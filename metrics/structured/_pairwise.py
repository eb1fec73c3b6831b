"""Krippendorff's alpha over values compared by a vectorised distance (texts, rankings).

The values of a structured kind (a text, a ranking) rarely repeat across items, so the
``V × V`` matrix of :mod:`metrics.coefficients.alpha` is out of reach when ``V``, the number
of distinct values, is large. Alpha needs the distance between two values in two places
only (Artstein & Poesio 2008, §2.6 and §3; Krippendorff 2011):

.. math::

    D_o = \\frac{1}{n}\\sum_u \\frac{1}{m_u - 1}\\sum_{i \\ne j \\in u} d(v_i, v_j), \\qquad
    D_e = \\frac{1}{n(n-1)}\\sum_{a \\ne b} n_a n_b\\, d(a, b)

over the pairable values (items with at least two values; ``n_a`` how often distinct value
``a`` occurs among them, ``n = Σ n_a``). So:

- **D_o** evaluates only the pairs of values that *co-occur in an item*, and each distinct pair
  once: ``Σ_u m_u(m_u-1)/2`` pairs at most (three coders: three per item), fewer where coders
  gave equal values (distance 0, never evaluated) or the same pair recurs.
- **D_e** needs every pair of distinct values: ``V(V-1)/2`` evaluations. There is no exact
  shortcut for an arbitrary distance (the sum runs over all pairs, and a distance such as
  Levenshtein's has no closed form over a set of strings); equal values are merged first
  (``n_a``), which stays exact. The pairs are evaluated in blocks without storing them, so
  memory stays linear in ``V``; time grows as ``V²``. Where that is out of reach, ``D_e`` can
  be *estimated* (``expected="sampled"``, :func:`sampled_expected`): ``D_e`` is the mean
  distance over the ``n(n-1)`` ordered pairs of distinct value occurrences, so the mean over
  a seeded uniform sample of such pairs is unbiased for it, with the standard error of a
  mean; alpha is then an estimate too. A distance that can sum itself exactly without visiting every
  pair (:class:`PairSums`: token Jaccard, where pairs sharing no token are at distance 1)
  does so.

When ``V`` is at most ``matrix_limit`` (:data:`metrics.MAX_MATRIX_VALUES`, 5000) the distances
are kept as a ``V × V`` matrix and the bootstrap recomputes ``D_e`` from each resample's
value counts, exactly. Above it the bootstrap holds ``D_e`` at the full data's value and
resamples ``D_o`` only (the interval then says so): recomputing ``D_e`` would cost a full
``V²`` pass per replicate.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from metrics.coefficients.alpha import MAX_MATRIX_VALUES
from metrics.decomposition import Decomposition, ItemStats

#: Maps two arrays of distinct-value codes (``left[i] != right[i]``) to their distances.
PairDistance = Callable[[NDArray[np.intp], NDArray[np.intp]], NDArray[np.float64]]


@runtime_checkable
class PairSums(Protocol):
    """A distance that sums itself over all pairs faster than pair by pair (exactly).

    ``matrix(codes)`` gives the ``V × V`` distances among ``codes``; ``pair_sum(codes,
    counts)`` gives ``Σ_{a<b} counts_a counts_b d(codes_a, codes_b)``. Token Jaccard does both
    from a sparse product that only visits pairs sharing a token (every other pair is at
    distance 1).
    """

    def __call__(self, left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]: ...

    def matrix(self, codes: NDArray[np.intp]) -> NDArray[np.float64]: ...

    def pair_sum(self, codes: NDArray[np.intp], counts: NDArray[np.float64]) -> float: ...


#: Pairs of distinct values evaluated at once.
BLOCK_PAIRS = 1 << 16
#: How ``D_e`` is found: every pair, a sample of pairs, or exact up to the pair limit.
EXPECTED_METHODS: tuple[str, ...] = ("exact", "sampled", "auto")
#: Pairs of value occurrences drawn for a sampled ``D_e`` unless told otherwise: its relative
#: standard error is the distances' coefficient of variation over 447 (below 0.3% when that is
#: at most 1), and 200,000 Levenshtein pairs of 200-character texts take about 3 s.
DEFAULT_EXPECTED_PAIRS = 200_000
#: ``expected="auto"`` runs exact ``D_e`` up to this many distance evaluations (``V(V-1)/2``)
#: unless given ``max_pairs``; about 6,300 distinct values, a few minutes of Levenshtein.
AUTO_EXACT_PAIRS = 20_000_000
#: The most pairs a sampled D_e may draw (a bound on the work one request may ask for).
MAX_SAMPLED_PAIRS = 20_000_000


@dataclass(frozen=True)
class ExpectedSample:
    """A sampled ``D_e``: how it was drawn and how precise it is.

    Attributes
    ----------
    pairs : int
        Ordered pairs of distinct value occurrences drawn (with replacement).
    seed : int
        The seed of ``numpy.random.default_rng`` that drew them.
    standard_error : float
        Standard error of the estimate: the sample standard deviation of the drawn distances
        over ``sqrt(pairs)``.
    evaluated : int
        Distinct pairs of unequal values among the draws (the distance evaluations made).
    """

    pairs: int
    seed: int
    standard_error: float
    evaluated: int


__all__ = [
    "AUTO_EXACT_PAIRS",
    "BLOCK_PAIRS",
    "DEFAULT_EXPECTED_PAIRS",
    "EXPECTED_METHODS",
    "ExpectedSample",
    "PairDistance",
    "PairSums",
    "PairwiseAlpha",
    "pairwise_alpha",
    "sampled_expected",
    "within_item_pairs",
]


@dataclass(frozen=True)
class PairwiseAlpha:
    """Alpha over values compared by a distance, with what it cost.

    Attributes
    ----------
    value, observed, expected : float
        ``1 - D_o / D_e``, ``D_o`` and ``D_e``.
    n_items : int
        Items with at least two values (pairable).
    n_values : int
        Pairable values ``n``.
    n_distinct : int
        Distinct pairable values ``V``.
    observed_pairs : int
        Distinct pairs of unequal values that co-occur in an item: the distances ``D_o`` needed.
    expected_pairs : int
        ``V(V-1)/2``: the distances ``D_e`` needed.
    decomposition : Decomposition
        One row per item of the data (zeros for unpairable items), for the bootstrap.
    expected_held : bool
        True when the decomposition holds ``D_e`` at the full data's value (``V`` above the
        matrix limit, or ``D_e`` sampled).
    sample : ExpectedSample or None
        How ``D_e`` was sampled; None when it is exact.
    """

    value: float
    observed: float
    expected: float
    n_items: int
    n_values: int
    n_distinct: int
    observed_pairs: int
    expected_pairs: int
    decomposition: Decomposition
    expected_held: bool
    sample: ExpectedSample | None = None


def within_item_pairs(item: NDArray[np.intp]) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Every unordered pair ``(i, j)``, ``i < j``, of entries with the same item.

    ``item`` must be sorted. Returns two index arrays into it.

    Examples
    --------
    >>> within_item_pairs(np.array([0, 0, 0, 2, 2]))
    (array([0, 0, 1, 3]), array([1, 2, 2, 4]))
    """
    n = item.size
    if n == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    starts = np.flatnonzero(np.r_[True, item[1:] != item[:-1]])
    sizes = np.diff(np.r_[starts, n])
    # Entry e of a run of size m at offset k pairs with the m - 1 - k entries after it.
    offset = np.arange(n) - np.repeat(starts, sizes)
    after = np.repeat(sizes, sizes) - 1 - offset
    left = np.repeat(np.arange(n, dtype=np.intp), after)
    first = np.cumsum(after) - after
    right = left + 1 + (np.arange(left.size) - np.repeat(first, after))
    return left, right.astype(np.intp)


def _upper_blocks(size: int, budget: int) -> Iterator[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """All pairs ``a < b`` of ``range(size)``, in blocks of about ``budget`` pairs."""
    a = 0
    while a < size - 1:
        rows = [a]
        count = size - 1 - a
        while rows[-1] + 1 < size - 1 and count + (size - 2 - rows[-1]) <= budget:
            rows.append(rows[-1] + 1)
            count += size - 1 - rows[-1]
        lengths = size - 1 - np.asarray(rows)
        left = np.repeat(np.asarray(rows, dtype=np.intp), lengths)
        first = np.cumsum(lengths) - lengths
        right = left + 1 + (np.arange(left.size) - np.repeat(first, lengths))
        yield left, right.astype(np.intp)
        a = rows[-1] + 1


def sampled_expected(
    code: NDArray[np.intp],
    evaluate: PairDistance,
    pairs: int,
    seed: int,
) -> tuple[float, ExpectedSample]:
    """``D_e`` estimated from ``pairs`` ordered pairs of distinct occurrences of ``code``.

    Each draw takes two different positions ``i != j`` of the ``n`` pairable values uniformly
    (so every one of the ``n(n-1)`` ordered pairs that ``D_e`` averages over is equally likely,
    which is Krippendorff's ``n_a n_b`` weighting); equal values are at distance 0 and are not
    evaluated, and each distinct unequal pair drawn is evaluated once.

    Examples
    --------
    Values 0, 0, 0, 1 at distance 0.5: a draw is unequal with chance 1/2, so ``D_e = 0.25``.

    >>> estimate, sample = sampled_expected(
    ...     np.array([0, 0, 0, 1]), lambda a, b: np.full(a.size, 0.5), 100_000, seed=1)
    >>> abs(estimate - 0.25) < 4 * sample.standard_error, round(sample.standard_error, 4)
    (True, 0.0008)
    """
    if pairs < 2:
        raise ValueError("A sampled expected disagreement needs at least 2 pairs.")
    n = code.size
    rng = np.random.default_rng(seed)
    first = rng.integers(0, n, pairs)
    second = rng.integers(0, n - 1, pairs)
    second += second >= first  # uniform over the other n - 1 positions
    a, b = code[first], code[second]
    low, high = np.minimum(a, b), np.maximum(a, b)
    unequal = low != high
    size = int(code.max()) + 1
    keys, inverse = np.unique(low[unequal].astype(np.int64) * size + high[unequal],
                              return_inverse=True)  # fmt: skip
    found = _keyed_distances(keys, size, evaluate)
    drawn = np.zeros(pairs)
    drawn[unequal] = found[inverse.ravel()]
    sample = ExpectedSample(
        pairs=int(pairs),
        seed=int(seed),
        standard_error=float(drawn.std(ddof=1) / np.sqrt(pairs)),
        evaluated=int(keys.size),
    )
    return float(drawn.mean()), sample


def _keyed_distances(
    keys: NDArray[np.int64], size: int, evaluate: PairDistance
) -> NDArray[np.float64]:
    """Distances of the pairs ``(key // size, key % size)``, in blocks."""
    found = np.empty(keys.size)
    for start in range(0, keys.size, BLOCK_PAIRS):
        chunk = keys[start : start + BLOCK_PAIRS]
        found[start : start + chunk.size] = evaluate(
            (chunk // size).astype(np.intp), (chunk % size).astype(np.intp)
        )
    return found


def _sampling(expected: str, expected_pairs: int, max_pairs: int | None) -> bool:
    """Whether ``D_e`` is sampled: asked for, or ``auto`` above the exact limit."""
    if expected not in EXPECTED_METHODS:
        raise ValueError(
            f"Unknown expected disagreement method {expected!r}; use one of "
            f"{', '.join(EXPECTED_METHODS)}."
        )
    limit = AUTO_EXACT_PAIRS if max_pairs is None else max_pairs
    return expected == "sampled" or (expected == "auto" and expected_pairs > limit)


def pairwise_alpha(
    item: NDArray[np.intp],
    code: NDArray[np.intp],
    n_items: int,
    n_codes: int,
    distance: PairDistance,
    *,
    matrix_limit: int = MAX_MATRIX_VALUES,
    max_pairs: int | None = None,
    name: str = "alpha",
    expected_method: str = "exact",
    sample_pairs: int = DEFAULT_EXPECTED_PAIRS,
    seed: int = 0,
) -> PairwiseAlpha:
    """Alpha of values ``code`` (distinct-value codes) given to items ``item``.

    Parameters
    ----------
    item : ndarray of int, shape (n_annotations,)
        The item of each value (``0 .. n_items-1``), any order.
    code : ndarray of int, shape (n_annotations,)
        Each value's code among the ``n_codes`` distinct values; equal codes are equal values.
    n_items, n_codes : int
    distance : callable
        ``distance(left, right)`` for code arrays with ``left != right`` elementwise, returning
        finite non-negative floats (symmetric: only ``left < right`` is asked).
    matrix_limit : int, default MAX_MATRIX_VALUES
        Largest ``V`` for which the distances are kept as a matrix (exact bootstrap of ``D_e``).
    max_pairs : int, optional
        Refuse (``ValueError``) when exact ``D_e`` needs more than this many distance
        evaluations; with ``expected="auto"``, sample above it instead (above
        :data:`AUTO_EXACT_PAIRS` when not given).
    name : str
        The decomposition's name.
    expected_method : {"exact", "sampled", "auto"}, default "exact"
        Exact ``D_e`` over every pair of distinct values, or estimated from ``sample_pairs``
        pairs drawn with ``seed`` (:func:`sampled_expected`), or exact up to the limit and
        sampled above it. A sampled ``D_e`` is held in the decomposition.
    sample_pairs : int, default DEFAULT_EXPECTED_PAIRS
    seed : int, default 0

    Raises
    ------
    ValueError
        No item with two values; ``D_e`` over ``max_pairs`` evaluations; ``D_e`` zero (every
        pairable value the same, or at distance 0 from each other).
    """
    order = np.argsort(item, kind="stable")
    item, code = item[order], code[order]
    per_item = np.bincount(item, minlength=n_items)
    pairable_items = per_item >= 2
    keep = pairable_items[item]
    item, code = item[keep], code[keep]
    if item.size == 0:
        raise ValueError(
            "Alpha needs at least one item with values from at least two coders; no item has."
        )
    # Renumber the distinct pairable values 0 .. V-1.
    present, code = np.unique(code, return_inverse=True)
    code = code.astype(np.intp)
    size = int(present.size)
    counts = np.bincount(code, minlength=size).astype(np.float64)
    n = float(code.size)
    expected_pairs = size * (size - 1) // 2
    sampling = _sampling(expected_method, expected_pairs, max_pairs)
    if not sampling and max_pairs is not None and expected_pairs > max_pairs:
        raise ValueError(
            f"The expected disagreement needs the distance between every two of the {size} "
            f"distinct values: {expected_pairs:,} evaluations, over the limit of {max_pairs:,}. "
            "Merge equal values, or estimate D_e from a sample of pairs "
            '(option expected "sampled" or "auto"; CLI --expected sampled).'
        )

    def evaluate(left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
        return np.asarray(distance(present[left], present[right]), dtype=np.float64)

    # D_o: each distinct unequal pair that co-occurs in an item, evaluated once.
    left, right = within_item_pairs(item)
    a, b = np.minimum(code[left], code[right]), np.maximum(code[left], code[right])
    unequal = a != b
    keys = a[unequal].astype(np.int64) * size + b[unequal]
    unique_keys, inverse = np.unique(keys, return_inverse=True)
    observed_distance = np.zeros(left.size)
    matrix = None
    sample = None
    if sampling:
        observed_distance[unequal] = _keyed_distances(unique_keys, size, evaluate)[inverse]
        estimate, sample = sampled_expected(code, evaluate, sample_pairs, seed)
        expected_sum = estimate * n * (n - 1.0)
    elif size <= matrix_limit:
        if isinstance(distance, PairSums):
            matrix = np.array(distance.matrix(present), dtype=np.float64)
        else:
            matrix = np.zeros((size, size))
            for rows, cols in _upper_blocks(size, BLOCK_PAIRS):
                matrix[rows, cols] = evaluate(rows, cols)
            matrix += matrix.T
        observed_distance[unequal] = matrix[a[unequal], b[unequal]]
        expected_sum = float(counts @ matrix @ counts)
    else:
        observed_distance[unequal] = _keyed_distances(unique_keys, size, evaluate)[inverse]
        if isinstance(distance, PairSums):
            expected_sum = 2.0 * float(distance.pair_sum(present, counts))
        else:
            expected_sum = 0.0
            for rows, cols in _upper_blocks(size, BLOCK_PAIRS):
                pair_counts = counts[rows] * counts[cols]
                expected_sum += 2.0 * float(np.dot(pair_counts, evaluate(rows, cols)))
    m = np.bincount(item, minlength=n_items).astype(np.float64)
    weight = np.zeros(n_items)
    weight[pairable_items] = 1.0 / (m[pairable_items] - 1.0)
    item_observed = np.asarray(
        np.bincount(
            item[left], weights=2.0 * observed_distance * weight[item[left]], minlength=n_items
        ),
        dtype=np.float64,
    )
    observed = float(item_observed.sum()) / n
    expected = expected_sum / (n * (n - 1.0))
    if not expected > 0:
        raise ValueError(
            "Alpha is undefined: the expected disagreement is 0 because all pairable values are "
            "the same (or at distance 0 from each other). Alpha needs variation in the values."
        )
    if matrix is not None:
        decomposition = _matrix_decomposition(name, item, code, item_observed, matrix, n_items)
    else:
        held_m = np.where(pairable_items, m, 0.0)
        decomposition = _held_decomposition(name, item_observed, held_m, expected)
    return PairwiseAlpha(
        value=1.0 - observed / expected,
        observed=observed,
        expected=expected,
        n_items=int(pairable_items.sum()),
        n_values=int(n),
        n_distinct=size,
        observed_pairs=int(unique_keys.size),
        expected_pairs=expected_pairs,
        decomposition=decomposition,
        expected_held=matrix is None,
        sample=sample,
    )


def _alpha(observed_sum: NDArray, expected_sum: NDArray, n: NDArray) -> NDArray[np.float64]:
    """``1 - D_o / D_e`` elementwise, ``nan`` where ``n < 2`` or ``D_e`` is (numerically) 0."""
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = observed_sum / n
        expected = expected_sum / (n * (n - 1.0))
        value = 1.0 - observed / expected
    undefined = (n < 2) | ~(expected > 1e-12 * np.maximum(np.abs(observed), 1.0))
    return np.asarray(np.where(undefined, np.nan, value), dtype=np.float64)


def _matrix_decomposition(
    name: str,
    item: NDArray[np.intp],
    code: NDArray[np.intp],
    item_observed: NDArray[np.float64],
    matrix: NDArray[np.float64],
    n_items: int,
) -> Decomposition:
    """Rows ``[D_o part, n_u1 .. n_uV]`` (sparse); ``D_e`` recomputed from resampled counts."""
    size = matrix.shape[0]
    counts = sparse.csr_matrix(
        (np.ones(item.size), (item, code)), shape=(n_items, size), dtype=np.float64
    )
    counts.sum_duplicates()
    stats: ItemStats = sparse.hstack(
        [sparse.csr_matrix(item_observed[:, None]), counts], format="csr"
    )

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        marginals = totals[..., 1:]
        expected_sum = ((marginals @ matrix) * marginals).sum(-1)
        return _alpha(totals[..., 0], expected_sum, marginals.sum(-1))

    def leave_one_out(totals: NDArray[np.float64]) -> Callable[[ItemStats], NDArray[np.float64]]:
        totals = np.asarray(totals, dtype=np.float64).ravel()
        marginals = totals[1:]
        through = matrix @ marginals
        full_expected = float(marginals @ through)

        def values(rows: ItemStats) -> NDArray[np.float64]:
            block = sparse.csr_matrix(rows)
            observed = totals[0] - block[:, 0].toarray().ravel()
            part = block[:, 1:]
            own = np.asarray(part.sum(axis=1)).ravel()
            cross = part @ through
            # Σ_kk' n_uk n_uk' d_kk' from each row's few non-zero entries.
            coo = part.tocoo()
            order = np.argsort(coo.row, kind="stable")
            row, column, count = coo.row[order], coo.col[order], coo.data[order]
            first, second = within_item_pairs(row.astype(np.intp))
            inner = np.bincount(
                row[first],
                weights=2.0 * count[first] * count[second] * matrix[column[first], column[second]],
                minlength=block.shape[0],
            )
            expected_sum = full_expected - 2.0 * cross + inner
            return _alpha(observed, expected_sum, marginals.sum() - own)

        return values

    return Decomposition(name, stats, finalize, leave_one_out)


def _held_decomposition(
    name: str, item_observed: NDArray[np.float64], m: NDArray[np.float64], expected: float
) -> Decomposition:
    """Rows ``[D_o part, m_u]`` with ``D_e`` held at the full data's value."""
    stats = np.column_stack([item_observed, m])

    def finalize(totals: NDArray[np.float64]) -> NDArray[np.float64]:
        totals = np.asarray(totals, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            value = 1.0 - (totals[..., 0] / totals[..., 1]) / expected
        return np.asarray(np.where(totals[..., 1] >= 2, value, np.nan), dtype=np.float64)

    return Decomposition(name, stats, finalize)
