"""Bootstrap intervals for any coefficient written as a :class:`~metrics.Decomposition`.

``confidence`` is the confidence level of every interval (0.95 by default).

Items are the resampling unit: a replicate draws ``n`` items with replacement, each with all
of its annotations, and recomputes the coefficient from the drawn items' statistics. A whole
block of replicates is one matrix product: ``finalize(W @ item_stats)``, where row ``r`` of
``W`` counts how often each item was drawn in replicate ``r``.

Replicate ``r`` draws its items from ``np.random.default_rng([seed, r])``, and replicates are
multiplied in blocks aligned to absolute replicate indices, so a replicate's value does not
depend on which worker computed it: :func:`bootstrap` equals :func:`bootstrap_combine` of any
chunking by :func:`bootstrap_chunk`, bit for bit.

Replicates where ``finalize`` returns ``nan`` (the coefficient is undefined on that resample,
for example expected disagreement zero because every drawn item has one value) are
*degenerate*: they are excluded from the interval and counted in ``n_degenerate``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy import sparse, special

from metrics.decomposition import Decomposition

Method = Literal["bca", "percentile"]

#: Quantiles of the bootstrap distribution reported with every result.
QUANTILES: tuple[float, ...] = (0.005, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.95, 0.975, 0.995)

DEGENERATE_POLICY = (
    "Replicates where the coefficient is undefined (finalize returned nan, e.g. expected "
    "disagreement zero) are excluded from the interval, the quantiles and prob_below, and "
    "counted in n_degenerate."
)

# Elements of one replicate block W (rows × items); bounds the memory of a block to ~64 MB.
_BLOCK_ELEMENTS = 1 << 23
#: Totals computed at once from wide sparse statistics (see :func:`_finalize_rows`).
_SUB_BLOCK_ELEMENTS = 1 << 21
#: Rows per block when a decomposition leaves items out itself (cost by non-zero entries).
_LEAVE_ONE_OUT_ROWS = 1 << 16
_MAX_BLOCK_ROWS = 64


@dataclass(frozen=True)
class BootstrapResult:
    """A bootstrap interval with the distribution summaries Hayes & Krippendorff (2007) report.

    Attributes
    ----------
    estimate : float
        The coefficient on the full data (or the difference of two coefficients).
    low, high : float
        Interval bounds at ``confidence``.
    confidence : float
        Confidence level, e.g. 0.95.
    method : str
        ``"bca"`` or ``"percentile"``: the method actually used (see ``fallback``).
    replicates : int
        Replicates drawn, degenerate ones included.
    n_degenerate : int
        Replicates where the coefficient was undefined; they are left out of everything below.
    degenerate_policy : str
        How degenerate replicates were treated, in words.
    quantiles : dict of float to float
        Quantiles of the valid replicates (``QUANTILES``; linear interpolation).
    prob_below : dict of float to float
        For each minimum, the share of valid replicates below it: the probability ``q`` of
        failing to reach that minimum (Hayes & Krippendorff 2007, p. 86).
    se : float
        Standard deviation of the valid replicates (ddof 1).
    seed : int
        Seed of the replicate streams.
    fallback : str or None
        Why BCa fell back to the percentile interval, when it did.
    """

    estimate: float
    low: float
    high: float
    confidence: float
    method: str
    replicates: int
    n_degenerate: int
    degenerate_policy: str
    quantiles: dict[float, float]
    prob_below: dict[float, float]
    se: float
    seed: int
    fallback: str | None = field(default=None)


# -- public API ------------------------------------------------------------------------------


def bootstrap(
    decomposition: Decomposition,
    *,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Method = "bca",
    minimums: Sequence[float] = (0.667, 0.8),
) -> BootstrapResult:
    r"""Bootstrap interval for a coefficient by resampling items.

    Replicate :math:`r` draws :math:`n` items with replacement; with :math:`w_{ru}` the number
    of times item :math:`u` was drawn, its value is

    .. math:: \hat\theta^*_r = \mathrm{finalize}\Big(\sum_u w_{ru}\, s_u\Big)

    for the per-item statistics :math:`s_u`. The percentile interval takes the
    :math:`(1\pm\text{confidence})/2` quantiles of the valid replicates; BCa (Efron 1987) shifts
    them by the bias correction :math:`z_0 = \Phi^{-1}(\#\{\hat\theta^* < \hat\theta\} / B)`
    (ties count one half) and the acceleration from the leave-one-item-out jackknife
    :math:`\hat\theta_{(u)} = \mathrm{finalize}(\sum_v s_v - s_u)`:

    .. math:: a = \frac{\sum_u (\bar\theta_{(\cdot)} - \hat\theta_{(u)})^3}
                       {6\,[\sum_u (\bar\theta_{(\cdot)} - \hat\theta_{(u)})^2]^{3/2}}.

    Parameters
    ----------
    decomposition : Decomposition
        The coefficient as per-item statistics (``n_items ≥ 2``) and ``finalize``.
    replicates : int, default 1000
        Number of bootstrap replicates B (≥ 2).
    seed : int, default 0
        Non-negative seed; replicate ``r`` uses ``np.random.default_rng([seed, r])``.
    confidence : float, default 0.95
        Confidence level, strictly between 0 and 1.
    method : {"bca", "percentile"}, default "bca"
        Interval method. BCa falls back to the percentile interval (and says so in
        ``fallback``) when its bias correction is infinite (every valid replicate on one side
        of the estimate).
    minimums : sequence of float, default (0.667, 0.8)
        Values for ``prob_below`` (Krippendorff's tentative and firm minimums for alpha).

    Returns
    -------
    BootstrapResult

    Raises
    ------
    ValueError
        If the coefficient is undefined on the full data, if fewer than two replicates are
        valid, or if an argument is out of range.

    References
    ----------
    Efron, B. (1987). Better bootstrap confidence intervals. JASA 82(397), 171–185.
    https://doi.org/10.1080/01621459.1987.10478410

    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability
    measure for coding data. Communication Methods and Measures 1(1), 77–89.
    https://doi.org/10.1080/19312450709336664

    Examples
    --------
    Observed agreement of 100 items, 70 with both coders agreeing (Artstein & Poesio 2008,
    example 1: A_o = 0.7):

    >>> import numpy as np
    >>> from metrics import Decomposition
    >>> stats = np.array([[1.0, 1.0]] * 70 + [[0.0, 1.0]] * 30)
    >>> ao = Decomposition("ao", stats, lambda t: t[..., 0] / t[..., 1])
    >>> result = bootstrap(ao, replicates=2000, seed=1)
    >>> round(result.estimate, 2)
    0.7
    >>> bool(0.58 < result.low < 0.63 and 0.77 < result.high < 0.81)
    True
    """
    _check_decomposition(decomposition)
    _check_options(replicates=replicates, seed=seed, confidence=confidence, method=method)
    values = bootstrap_chunk(decomposition, seed=seed, start=0, stop=replicates)
    return bootstrap_combine(
        decomposition,
        [values],
        seed=seed,
        replicates=replicates,
        confidence=confidence,
        method=method,
        minimums=minimums,
    )


def bootstrap_chunk(
    decomposition: Decomposition, *, seed: int, start: int, stop: int
) -> NDArray[np.float64]:
    """Values of replicates ``start`` to ``stop - 1`` (``nan`` where degenerate).

    A worker's share of a bootstrap: the values depend only on the data, ``seed`` and the
    replicate indices, so chunks computed anywhere combine into exactly the result of
    :func:`bootstrap` (see :func:`bootstrap_combine`).

    Parameters
    ----------
    decomposition : Decomposition
        The coefficient to resample.
    seed : int
        Non-negative seed shared by all chunks of one bootstrap.
    start, stop : int
        Replicate index range ``[start, stop)``, ``0 ≤ start ≤ stop``.

    Returns
    -------
    ndarray of float64, shape (stop - start,)

    Examples
    --------
    >>> import numpy as np
    >>> from metrics import Decomposition
    >>> stats = np.array([[1.0, 1.0]] * 7 + [[0.0, 1.0]] * 3)
    >>> ao = Decomposition("ao", stats, lambda t: t[..., 0] / t[..., 1])
    >>> whole = bootstrap_chunk(ao, seed=3, start=0, stop=10)
    >>> parts = [bootstrap_chunk(ao, seed=3, start=a, stop=b) for a, b in [(0, 4), (4, 10)]]
    >>> bool(np.array_equal(whole, np.concatenate(parts)))
    True
    """
    _check_decomposition(decomposition)
    _check_seed(seed)
    if not (_is_int(start) and _is_int(stop) and 0 <= start <= stop):
        raise ValueError(f"Replicate range must satisfy 0 ≤ start ≤ stop; got [{start}, {stop}).")
    out = np.empty(stop - start, dtype=np.float64)
    for block_start, rows, weights in _weight_blocks(decomposition.n_items, seed, start, stop):
        values = _finalize_rows(decomposition, weights, rows)
        out[block_start + rows[0] - start : block_start + rows[-1] + 1 - start] = values
    return out


def bootstrap_combine(
    decomposition: Decomposition,
    chunks: Sequence[NDArray[np.float64]],
    *,
    seed: int,
    replicates: int,
    confidence: float = 0.95,
    method: Method = "bca",
    minimums: Sequence[float] = (0.667, 0.8),
    jackknife: NDArray[np.float64] | None = None,
) -> BootstrapResult:
    """Combine replicate values from :func:`bootstrap_chunk` into an interval.

    Parameters
    ----------
    decomposition : Decomposition
        The decomposition the chunks were computed from (for the estimate and the jackknife).
    chunks : sequence of 1-D arrays
        Replicate values covering replicate indices ``0 .. replicates - 1`` once each, in any
        order.
    seed : int
        The seed the chunks were computed with (recorded in the result).
    replicates : int
        Total number of replicates; the chunks' lengths must add up to it.
    confidence, method, minimums
        As in :func:`bootstrap`.
    jackknife : 1-D array, optional
        The leave-one-item-out values behind the BCa acceleration, one per item, if they were
        computed elsewhere (by :func:`jackknife_values` on slices of the items, for example
        beside the chunks); computed here when omitted.

    Returns
    -------
    BootstrapResult
        Identical, bit for bit, to ``bootstrap(decomposition, ...)`` with the same arguments.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics import Decomposition
    >>> stats = np.array([[1.0, 1.0]] * 7 + [[0.0, 1.0]] * 3)
    >>> ao = Decomposition("ao", stats, lambda t: t[..., 0] / t[..., 1])
    >>> chunks = [bootstrap_chunk(ao, seed=0, start=a, stop=a + 250) for a in range(0, 1000, 250)]
    >>> bootstrap_combine(ao, chunks, seed=0, replicates=1000) == bootstrap(ao, seed=0)
    True
    """
    _check_decomposition(decomposition)
    _check_options(replicates=replicates, seed=seed, confidence=confidence, method=method)
    values = _concatenate_chunks(chunks, replicates)
    estimate = _full_estimate(decomposition)
    if jackknife is not None:
        given = np.asarray(jackknife, dtype=np.float64).reshape(-1)
        if given.size != decomposition.n_items:
            raise ValueError(
                f"{given.size} jackknife values for a decomposition of {decomposition.n_items} "
                "items."
            )

    def leave_one_out() -> tuple[NDArray[np.float64], ...]:
        if jackknife is not None:
            return (np.where(np.isfinite(given), given, np.nan),)
        return (_jackknife(decomposition),)

    return _summarise(
        values,
        estimate=estimate,
        jackknife=leave_one_out,
        seed=seed,
        confidence=confidence,
        method=method,
        minimums=minimums,
    )


def bootstrap_difference(
    first: Decomposition,
    second: Decomposition,
    *,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Method = "bca",
    minimums: Sequence[float] = (),
) -> BootstrapResult:
    r"""Bootstrap interval for :math:`\theta_1 - \theta_2` on paired items.

    The two decompositions describe the *same* items in the same order (two rounds of the same
    items, or two questions asked about each item). Each replicate draws item indices once and
    applies them to both, so the interval accounts for the correlation between the two
    coefficients. Replicates where either coefficient is undefined are degenerate.

    Parameters
    ----------
    first, second : Decomposition
        Coefficients on the same ``n`` items, row ``u`` of both being item ``u``.
    replicates, seed, confidence, method
        As in :func:`bootstrap`.
    minimums : sequence of float, default ()
        Values for ``prob_below`` of the difference (e.g. ``(0.0,)``: the probability that the
        first coefficient is below the second).

    Returns
    -------
    BootstrapResult
        ``estimate`` is :math:`\hat\theta_1 - \hat\theta_2`.

    Raises
    ------
    ValueError
        If the item counts differ, or as :func:`bootstrap`.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics import Decomposition
    >>> ratio = lambda t: t[..., 0] / t[..., 1]
    >>> before = Decomposition("ao", np.array([[1.0, 1.0]] * 60 + [[0.0, 1.0]] * 40), ratio)
    >>> after = Decomposition("ao", np.array([[1.0, 1.0]] * 80 + [[0.0, 1.0]] * 20), ratio)
    >>> result = bootstrap_difference(after, before, seed=0)
    >>> round(result.estimate, 2)
    0.2
    """
    for decomposition in (first, second):
        _check_decomposition(decomposition)
    if first.n_items != second.n_items:
        raise ValueError(
            f"A paired difference needs the same items in both: the first has "
            f"{first.n_items} items, the second {second.n_items}. Use "
            "bootstrap_difference_unpaired for independent samples."
        )
    _check_options(replicates=replicates, seed=seed, confidence=confidence, method=method)
    values = np.empty(replicates, dtype=np.float64)
    for block_start, rows, weights in _weight_blocks(first.n_items, seed, 0, replicates):
        span = slice(block_start + rows[0], block_start + rows[-1] + 1)
        values[span] = _finalize_rows(first, weights, rows) - _finalize_rows(second, weights, rows)
    estimate = _full_estimate(first) - _full_estimate(second)

    def jackknife() -> tuple[NDArray[np.float64], ...]:
        return (_jackknife(first) - _jackknife(second),)

    return _summarise(
        values,
        estimate=estimate,
        jackknife=jackknife,
        seed=seed,
        confidence=confidence,
        method=method,
        minimums=minimums,
    )


def bootstrap_difference_unpaired(
    first: Decomposition,
    second: Decomposition,
    *,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    method: Method = "bca",
    minimums: Sequence[float] = (),
) -> BootstrapResult:
    r"""Bootstrap interval for :math:`\theta_1 - \theta_2` on two independent samples of items.

    Each replicate resamples the items of ``first`` (stream ``[seed, r]``, as
    :func:`bootstrap`) and, independently, those of ``second`` (stream ``[seed, r, 1]``). The
    BCa acceleration combines both jackknifes (Efron & Tibshirani 1993, eq. 14.15):
    :math:`a = \sum_j \sum_u U_{ju}^3 / n_j^3 \,/\, 6(\sum_j \sum_u U_{ju}^2/n_j^2)^{3/2}` with
    :math:`U_{ju} = (n_j - 1)(\bar\theta_{j(\cdot)} - \hat\theta_{j(u)})`.

    Parameters
    ----------
    first, second : Decomposition
        Coefficients on unrelated item sets (the sizes may differ).
    replicates, seed, confidence, method, minimums
        As in :func:`bootstrap_difference`.

    Returns
    -------
    BootstrapResult

    Examples
    --------
    >>> import numpy as np
    >>> from metrics import Decomposition
    >>> ratio = lambda t: t[..., 0] / t[..., 1]
    >>> a = Decomposition("ao", np.array([[1.0, 1.0]] * 60 + [[0.0, 1.0]] * 40), ratio)
    >>> b = Decomposition("ao", np.array([[1.0, 1.0]] * 40 + [[0.0, 1.0]] * 10), ratio)
    >>> round(bootstrap_difference_unpaired(b, a, seed=0).estimate, 2)
    0.2
    """
    for decomposition in (first, second):
        _check_decomposition(decomposition)
    _check_options(replicates=replicates, seed=seed, confidence=confidence, method=method)
    values = bootstrap_chunk(first, seed=seed, start=0, stop=replicates)
    values -= _unpaired_second(second, seed, replicates)
    estimate = _full_estimate(first) - _full_estimate(second)

    def jackknife() -> tuple[NDArray[np.float64], ...]:
        return (_jackknife(first), -_jackknife(second))

    return _summarise(
        values,
        estimate=estimate,
        jackknife=jackknife,
        seed=seed,
        confidence=confidence,
        method=method,
        minimums=minimums,
    )


# -- replicate generation --------------------------------------------------------------------


def _block_rows(n_items: int) -> int:
    """Rows per replicate block; a function of ``n_items`` only, so blocks align everywhere."""
    return max(1, min(_MAX_BLOCK_ROWS, _BLOCK_ELEMENTS // max(n_items, 1)))


def _weight_blocks(
    n_items: int, seed: int, start: int, stop: int, stream: tuple[int, ...] = ()
) -> Iterator[tuple[int, NDArray[np.intp], NDArray[np.float64]]]:
    """Resampling-count blocks covering replicates ``[start, stop)``.

    Yields ``(block_start, rows, W)`` where ``W`` has the full block shape
    ``(block_rows, n_items)`` and only ``rows`` (positions within the block) hold replicates.
    Keeping every replicate at the same position of a same-shaped product makes its value
    independent of how the replicate range was chunked (a row of a matrix product depends
    only on that row). ``W`` is one buffer reused from block to block: use it before asking
    for the next block.
    """
    size = _block_rows(n_items)
    weights = np.zeros((size, n_items), dtype=np.float64)
    for block_start in range(start - start % size, stop, size):
        first = max(start, block_start)
        last = min(stop, block_start + size)
        if first >= last:
            continue
        if last - first < size:
            weights.fill(0.0)
        for replicate in range(first, last):
            rng = np.random.default_rng([seed, replicate, *stream])
            drawn = rng.integers(0, n_items, size=n_items)
            weights[replicate - block_start] = np.bincount(drawn, minlength=n_items)
        yield block_start, np.arange(first - block_start, last - block_start), weights


def _finalize_rows(
    decomposition: Decomposition, weights: NDArray[np.float64], rows: NDArray[np.intp]
) -> NDArray[np.float64]:
    """The values of the block's ``rows`` (consecutive positions).

    Wide sparse statistics (the kappa family on many distinct values: ``V`` or ``C·V``
    columns) are multiplied and finalised a few block rows at a time, so that the totals
    never hold more than about ``_SUB_BLOCK_ELEMENTS`` numbers. The sub-blocks are a fixed
    partition of the block's positions, and a row of ``W @ S`` with sparse ``S`` depends on
    that row only, so the values do not depend on the replicate range asked for.
    """
    stats = decomposition.item_stats
    size = len(weights)
    step = size
    if sparse.issparse(stats):
        step = max(1, _SUB_BLOCK_ELEMENTS // max(int(stats.shape[1]), 1))
    first, last = int(rows[0]), int(rows[-1]) + 1
    values = np.empty(last - first, dtype=np.float64)
    for begin in range(first - first % step, last, step):
        end = min(begin + step, size)
        low, high = max(begin, first), min(end, last)
        totals = decomposition.totals(weights[begin:end])[low - begin : high - begin]
        with np.errstate(divide="ignore", invalid="ignore"):
            part = np.asarray(decomposition.finalize(totals), dtype=np.float64)
        values[low - first : high - first] = part.reshape(high - low)
    return np.where(np.isfinite(values), values, np.nan)


def _unpaired_second(second: Decomposition, seed: int, replicates: int) -> NDArray[np.float64]:
    values = np.empty(replicates, dtype=np.float64)
    for block_start, rows, weights in _weight_blocks(
        second.n_items, seed, 0, replicates, stream=(1,)
    ):
        values[block_start + rows[0] : block_start + rows[-1] + 1] = _finalize_rows(
            second, weights, rows
        )
    return values


def _full_estimate(decomposition: Decomposition) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        value = float(np.asarray(decomposition.evaluate()).reshape(()))
    if not np.isfinite(value):
        raise ValueError(
            f"The coefficient {decomposition.name!r} is undefined on the full data (for example "
            "expected disagreement zero), so there is nothing to bootstrap."
        )
    return value


def _jackknife(decomposition: Decomposition) -> NDArray[np.float64]:
    """``finalize(total - s_u)`` for every item ``u``, in row blocks (nan where undefined)."""
    return jackknife_values(decomposition)


def jackknife_values(
    decomposition: Decomposition, *, start: int = 0, stop: int | None = None
) -> NDArray[np.float64]:
    """The leave-one-item-out values ``finalize(total - s_u)`` of items ``start`` to
    ``stop - 1`` (all items by default), ``nan`` where undefined.

    They give the BCa acceleration (:func:`bootstrap_combine`); on many items they cost as
    much as a bootstrap chunk, so a caller that fans the bootstrap out can compute them in
    slices beside the chunks and pass them to :func:`bootstrap_combine` concatenated. Each
    value depends on its item's row and the totals only, so slices give the values of the
    whole, bit for bit.

    A decomposition with ``leave_one_out`` (the kappa family with coder chance: multi-kappa,
    Cohen's and weighted kappa; pi and AC1/AC2 on sparse counts; Light's kappa: rows with
    one column per coder and category, per value, or per coder pair) gives them by an update
    of the totals read from each row's non-zero entries, in blocks of
    ``_LEAVE_ONE_OUT_ROWS`` rows, instead of items × columns.

    Examples
    --------
    >>> import numpy as np
    >>> from metrics import Decomposition
    >>> stats = np.array([[1.0, 1.0]] * 3 + [[0.0, 1.0]])
    >>> ao = Decomposition("ao", stats, lambda t: t[..., 0] / t[..., 1])
    >>> [round(float(v), 4) for v in jackknife_values(ao)]
    [0.6667, 0.6667, 0.6667, 1.0]
    >>> jackknife_values(ao, start=2, stop=4).tolist() == jackknife_values(ao)[2:].tolist()
    True
    """
    stats: Any = decomposition.item_stats  # ndarray or csr_matrix; both slice by rows
    total = decomposition.totals()
    n = decomposition.n_items
    stop = n if stop is None else min(int(stop), n)
    start = max(0, int(start))
    out = np.empty(max(stop - start, 0), dtype=np.float64)
    if decomposition.leave_one_out is not None:
        values_without = decomposition.leave_one_out(total)
        for begin in range(start, stop, _LEAVE_ONE_OUT_ROWS):
            end = min(begin + _LEAVE_ONE_OUT_ROWS, stop)
            with np.errstate(divide="ignore", invalid="ignore"):
                out[begin - start : end - start] = values_without(stats[begin:end])
        return np.where(np.isfinite(out), out, np.nan)
    step = max(1, _BLOCK_ELEMENTS // max(total.size, 1))
    for begin in range(start, stop, step):
        end = min(begin + step, stop)
        block = stats[begin:end]
        dense = block.toarray() if sparse.issparse(block) else np.asarray(block)
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.asarray(decomposition.finalize(total - dense), dtype=np.float64)
        out[begin - start : end - start] = values.reshape(-1)
    return np.where(np.isfinite(out), out, np.nan)


# -- intervals --------------------------------------------------------------------------------


def _summarise(
    values: NDArray[np.float64],
    *,
    estimate: float,
    jackknife: Callable[[], tuple[NDArray[np.float64], ...]],
    seed: int,
    confidence: float,
    method: Method,
    minimums: Sequence[float],
) -> BootstrapResult:
    valid = np.sort(values[~np.isnan(values)])
    n_degenerate = int(values.size - valid.size)
    if valid.size < 2:
        raise ValueError(
            f"Only {valid.size} of {values.size} bootstrap replicates gave a defined "
            "coefficient; at least two are required. The data have too little variation to "
            "bootstrap (see n_degenerate policy)."
        )
    tail = (1.0 - confidence) / 2.0
    probabilities = np.array([tail, 1.0 - tail])
    used_method: str = method
    fallback = None
    if method == "bca":
        adjusted, fallback = _bca_probabilities(valid, estimate, jackknife(), probabilities)
        if fallback is None:
            probabilities = adjusted
        else:
            used_method = "percentile"
    low, high = np.quantile(valid, probabilities)
    quantiles = np.quantile(valid, QUANTILES)
    prob_below = {
        float(m): float(np.searchsorted(valid, float(m), side="left") / valid.size)
        for m in minimums
    }
    return BootstrapResult(
        estimate=float(estimate),
        low=float(low),
        high=float(high),
        confidence=float(confidence),
        method=used_method,
        replicates=int(values.size),
        n_degenerate=n_degenerate,
        degenerate_policy=DEGENERATE_POLICY,
        quantiles={float(q): float(v) for q, v in zip(QUANTILES, quantiles, strict=True)},
        prob_below=prob_below,
        se=float(np.std(valid, ddof=1)),
        seed=int(seed),
        fallback=fallback,
    )


def _bca_probabilities(
    valid: NDArray[np.float64],
    estimate: float,
    jackknifes: tuple[NDArray[np.float64], ...],
    probabilities: NDArray[np.float64],
) -> tuple[NDArray[np.float64], str | None]:
    below = np.count_nonzero(valid < estimate) + 0.5 * np.count_nonzero(valid == estimate)
    share = below / valid.size
    if share <= 0.0 or share >= 1.0:
        return probabilities, (
            "BCa undefined: every valid replicate lies on one side of the estimate (infinite "
            "bias correction); the percentile interval is reported."
        )
    z0 = special.ndtri(share)
    acceleration = _acceleration(jackknifes)
    if acceleration is None:
        return probabilities, (
            "BCa undefined: fewer than two leave-one-item-out values are defined; the "
            "percentile interval is reported."
        )
    z = special.ndtri(probabilities)
    shifted = z0 + (z0 + z) / (1.0 - acceleration * (z0 + z))
    return special.ndtr(shifted), None


def _acceleration(jackknifes: tuple[NDArray[np.float64], ...]) -> float | None:
    """Efron's acceleration from one jackknife per independent sample (nan values dropped)."""
    numerator = 0.0
    denominator = 0.0
    for values in jackknifes:
        defined = values[~np.isnan(values)]
        if defined.size < 2:
            return None
        n = defined.size
        influence = (n - 1) * (defined.mean() - defined)
        numerator += float(np.sum(influence**3)) / n**3
        denominator += float(np.sum(influence**2)) / n**2
    if denominator == 0.0:
        return 0.0
    return numerator / (6.0 * denominator**1.5)


# -- validation -------------------------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int | np.integer) and not isinstance(value, bool)


def _check_seed(seed: object) -> None:
    if not (_is_int(seed) and int(seed) >= 0):  # type: ignore[call-overload]
        raise ValueError(f"seed must be a non-negative integer; got {seed!r}.")


def _check_decomposition(decomposition: object) -> None:
    if not isinstance(decomposition, Decomposition):
        raise ValueError(
            "Expected a Decomposition (per-item statistics and finalize); got "
            f"{type(decomposition).__name__}."
        )
    if decomposition.n_items < 2:
        raise ValueError(
            f"Bootstrapping items needs at least two items; got {decomposition.n_items}."
        )


def _check_options(*, replicates: object, seed: object, confidence: object, method: object) -> None:
    if not (_is_int(replicates) and int(replicates) >= 2):  # type: ignore[call-overload]
        raise ValueError(f"replicates must be an integer ≥ 2; got {replicates!r}.")
    _check_seed(seed)
    if not (isinstance(confidence, float | int) and 0.0 < float(confidence) < 1.0):
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence!r}.")
    if method not in ("bca", "percentile"):
        raise ValueError(f"method must be 'bca' or 'percentile'; got {method!r}.")


def _concatenate_chunks(
    chunks: Sequence[NDArray[np.float64]], replicates: int
) -> NDArray[np.float64]:
    arrays = [np.asarray(chunk, dtype=np.float64) for chunk in chunks]
    if any(array.ndim != 1 for array in arrays):
        raise ValueError("Every chunk must be a 1-D array of replicate values.")
    values = np.concatenate(arrays) if arrays else np.empty(0)
    if values.size != replicates:
        raise ValueError(
            f"The chunks hold {values.size} replicate values but replicates={replicates}; "
            "they must cover every replicate index exactly once."
        )
    return values


__all__ = [
    "QUANTILES",
    "BootstrapResult",
    "bootstrap",
    "bootstrap_chunk",
    "bootstrap_combine",
    "bootstrap_difference",
    "bootstrap_difference_unpaired",
]
