"""ABC intervals: the BCa bootstrap interval without the bootstrap, for many data sets at once.

The report prints a BCa interval (:mod:`metrics.uncertainty.bootstrap`, Efron 1987). A
sample-size plan needs that interval on a thousand simulated rounds per candidate size;
bootstrapping each would multiply the cost by the replicates. The ABC interval ("approximate
bootstrap confidence", DiCiccio & Efron 1992; Efron & Tibshirani 1993, ch. 22) computes the
ideal BCa end points (those of infinitely many replicates) analytically, to second order,
from derivatives of the coefficient in its resampling form. A :class:`~metrics.Decomposition`
is exactly that form: a round whose items are drawn with counts ``w`` has the coefficient
``finalize(T)`` with ``T = Σ_u w_u s_u``, and moving probability mass between items moves
``T`` along ``n s_u − T``.

For a round of ``n`` items (``w`` counts over the rows of ``item_stats``), with ``f =
finalize`` and ``g`` its gradient at ``T``:

- influence ``ṫ_u = g · (n s_u − T)``; ``σ = sqrt(Σ w ṫ²) / n`` (the delta-method SE);
- acceleration ``a = Σ w ṫ³ / (6 n³ σ³)`` (the infinitesimal jackknife's, as BCa's);
- bias ``b = Σ w ẗ / (2 n²)`` with ``ẗ_u`` the second derivative along ``n s_u − T``;
  ``Σ w ẗ = n² tr(H C)`` for the Hessian ``H`` and the scatter ``C = Σ w (s − s̄)(s − s̄)ᵀ``,
  evaluated as second differences along ``C``'s eigenvectors (``k`` of them for ``k``
  statistics columns, instead of one per item);
- direction ``V = Σ w ṫ_u (n s_u − T) / (n² σ)`` and its curvature
  ``c_q = [f(T + εV) − 2 f(T) + f(T − εV)] / (2 σ ε²)``;
- ``z₀ = Φ⁻¹(2 Φ(a) Φ(−(b/σ − c_q)))``, and the end point at level ``α`` is
  ``f(T + z_α V)`` with ``Z = z₀ + Φ⁻¹(α)``, ``z_α = Z / (1 − a Z)²``.

These are the formulas of R's ``bootstrap::abcnon`` (Tibshirani & Leisch), written in totals
instead of item weights and vectorised over rounds. ``tests/metrics/test_planning_interval.py``
checks the end points against the report's BCa bootstrap; ``docs/planning.md`` gives the
figures.

References
----------
DiCiccio, T. J., & Efron, B. (1992). More accurate confidence intervals in exponential
families. Biometrika 79(2), 231–245. https://doi.org/10.1093/biomet/79.2.231

DiCiccio, T. J., & Efron, B. (1996). Bootstrap confidence intervals. Statistical Science
11(3), 189–228 (§4, the ABC method). https://doi.org/10.1214/ss/1032280214

Examples
--------
Observed agreement of 100 items, 70 agreed on: a proportion's ABC interval.

>>> import numpy as np
>>> from metrics import Decomposition
>>> stats = np.array([[1.0, 1.0]] * 70 + [[0.0, 1.0]] * 30)
>>> ao = Decomposition("ao", stats, lambda t: t[..., 0] / t[..., 1])
>>> low, high = abc_interval(ao, confidence=0.95)
>>> round(low, 3), round(high, 3)
(0.604, 0.784)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse, special

from metrics.decomposition import Decomposition

__all__ = ["abc_interval", "abc_limits"]

# Relative step of the central differences behind the gradient (as metrics.planning).
_GRADIENT_STEP = 1e-6
# Second differences move the totals by this share of their largest entry (about the fourth
# root of the float64 epsilon, the usual compromise between truncation and rounding).
_SECOND_STEP = 1e-4
# Eigen-directions are used while k ≤ this; wider statistics take one direction per item.
_MAX_EIGEN_COLUMNS = 48
# Elements of one block of per-item directions (rounds × items × columns).
_BLOCK_ELEMENTS = 1 << 22


def abc_interval(decomposition: Decomposition, *, confidence: float = 0.95) -> tuple[float, float]:
    """The two-sided ABC interval at ``confidence`` of the coefficient on its own items."""
    tail = (1.0 - confidence) / 2.0
    limits = abc_limits(
        decomposition, np.ones((1, decomposition.n_items)), np.array([tail, 1.0 - tail])
    )
    return float(limits[0, 0]), float(limits[0, 1])


def abc_limits(
    decomposition: Decomposition,
    weights: NDArray[np.float64],
    levels: NDArray[np.float64],
) -> NDArray[np.float64]:
    """ABC end points at each of ``levels`` for every round (row) of ``weights``.

    Parameters
    ----------
    decomposition : Decomposition
        The population of items; row ``r`` of ``weights`` counts how often each of its items
        is in round ``r`` (at least two items per round).
    weights : ndarray, shape (rounds, n_items)
    levels : ndarray, shape (L,)
        Lower-tail probabilities, e.g. ``[0.025, 0.975]`` for a two-sided 95% interval.

    Returns
    -------
    ndarray, shape (rounds, L)
        ``nan`` for a round whose coefficient is undefined. A round without spread (every
        item's influence zero) has both end points at its estimate, as a bootstrap whose
        replicates all equal the estimate has.
    """
    weights = np.asarray(weights, dtype=np.float64)
    levels = np.asarray(levels, dtype=np.float64).reshape(-1)
    sizes = weights.sum(axis=1)
    if np.any(sizes < 2):
        raise ValueError("Every round needs at least two items.")
    n = sizes[:, None]
    totals = decomposition.totals(weights)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        t0 = _finalize(decomposition, totals)
        gradient = _gradient(decomposition, totals)
        # ṫ_u = g·(n s_u − T) = n (g·s_u − g·T / n): items × rounds, transposed to rounds × items.
        projected = np.asarray(decomposition.item_stats @ gradient.T).T
        tdot = n * (projected - (gradient * totals).sum(axis=1, keepdims=True) / n)
        weighted = weights * tdot
        squares = weighted * tdot
        sigma = np.sqrt(squares.sum(axis=1)) / sizes
        acceleration = (squares * tdot).sum(axis=1) / (6.0 * sizes**3 * sigma**3)
        # V = Σ w ṫ (n s_u − T) / (n² σ); Σ w ṫ = 0 up to rounding, so the T term is kept.
        direction = (
            np.asarray(weighted @ decomposition.item_stats)
            - totals * weighted.sum(axis=1, keepdims=True) / n
        ) / (sizes * sigma)[:, None]
        bias = _second_derivative_sum(decomposition, weights, totals, t0) / (2.0 * sizes**2)
        step = _relative_step(totals, np.abs(direction).max(axis=1))
        curvature = (
            _finalize(decomposition, totals + step[:, None] * direction)
            - 2.0 * t0
            + _finalize(decomposition, totals - step[:, None] * direction)
        ) / (2.0 * sigma * step**2)
        z0 = special.ndtri(
            2.0 * special.ndtr(acceleration) * special.ndtr(-(bias / sigma - curvature))
        )
        out = np.empty((len(weights), levels.size), dtype=np.float64)
        for column, level in enumerate(levels):
            z = z0 + special.ndtri(level)
            moved = z / (1.0 - acceleration * z) ** 2
            out[:, column] = _finalize(decomposition, totals + moved[:, None] * direction)
    flat = np.isfinite(t0) & (sigma <= 1e-12 * np.maximum(np.abs(t0), 1.0))
    out[flat] = t0[flat, None]
    out[~np.isfinite(t0)] = np.nan
    return np.where(np.isfinite(out), out, np.nan)


def _second_derivative_sum(
    decomposition: Decomposition,
    weights: NDArray[np.float64],
    totals: NDArray[np.float64],
    t0: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``Σ_u w_u ẗ_u`` per round: second derivatives of ``f`` along ``n s_u − T``."""
    stats: Any = decomposition.item_stats
    dense = stats.toarray() if sparse.issparse(stats) else np.asarray(stats)
    k = totals.shape[1]
    sizes = weights.sum(axis=1)
    if k <= _MAX_EIGEN_COLUMNS and decomposition.n_items * k * k <= _BLOCK_ELEMENTS:
        # Σ w (n s − T)ᵀ H (n s − T) = n² tr(H C) = n² Σ_j λ_j v_jᵀ H v_j.
        outer = (dense[:, :, None] * dense[:, None, :]).reshape(len(dense), k * k)
        mean = totals / sizes[:, None]
        scatter = (weights @ outer).reshape(-1, k, k) - sizes[:, None, None] * (
            mean[:, :, None] * mean[:, None, :]
        )
        values, vectors = np.linalg.eigh(scatter)
        factor = vectors * np.sqrt(np.clip(values, 0.0, None))[:, None, :]  # rounds × k × k
        directions = np.swapaxes(factor, 1, 2) * sizes[:, None, None]  # n √λ_j v_j
        return _along(decomposition, totals, t0, directions, np.ones((len(totals), k)))
    total = np.zeros(len(totals))
    rows = max(1, _BLOCK_ELEMENTS // max(decomposition.n_items * k, 1))
    for start in range(0, len(totals), rows):
        part = slice(start, start + rows)
        directions = sizes[part, None, None] * dense[None, :, :] - totals[part, None, :]
        total[part] = _along(decomposition, totals[part], t0[part], directions, weights[part])
    return total


def _along(
    decomposition: Decomposition,
    totals: NDArray[np.float64],
    t0: NDArray[np.float64],
    directions: NDArray[np.float64],
    weights: NDArray[np.float64],
) -> NDArray[np.float64]:
    """``Σ_j weights_j · d²/dε² f(T + ε d_j)`` per round, by second differences."""
    sizes = directions.shape[1]
    step = _relative_step(totals, np.abs(directions).max(axis=(1, 2)))
    shift = step[:, None, None] * directions
    up = _finalize(decomposition, (totals[:, None, :] + shift).reshape(-1, totals.shape[1]))
    down = _finalize(decomposition, (totals[:, None, :] - shift).reshape(-1, totals.shape[1]))
    second = (up.reshape(-1, sizes) - 2.0 * t0[:, None] + down.reshape(-1, sizes)) / (
        step[:, None] ** 2
    )
    return np.asarray((np.where(weights > 0, weights * second, 0.0)).sum(axis=1))


def _relative_step(
    totals: NDArray[np.float64], direction_size: NDArray[np.float64]
) -> NDArray[np.float64]:
    """Per round, the step that moves the totals by ``_SECOND_STEP`` of their largest entry."""
    scale = np.maximum(np.abs(totals).max(axis=1), 1.0)
    return _SECOND_STEP * scale / np.maximum(direction_size, 1e-300)


def _finalize(decomposition: Decomposition, totals: NDArray[np.float64]) -> NDArray[np.float64]:
    values = np.asarray(decomposition.finalize(totals), dtype=np.float64).reshape(len(totals))
    return np.where(np.isfinite(values), values, np.nan)


def _gradient(decomposition: Decomposition, totals: NDArray[np.float64]) -> NDArray[np.float64]:
    step = _GRADIENT_STEP * np.maximum(np.abs(totals).max(axis=1), 1.0)
    gradient = np.empty_like(totals)
    for column in range(totals.shape[1]):
        up = totals.copy()
        down = totals.copy()
        up[:, column] += step
        down[:, column] -= step
        gradient[:, column] = (_finalize(decomposition, up) - _finalize(decomposition, down)) / (
            2.0 * step
        )
    return gradient
