"""The combined dissimilarity of γ (Mathet, Widlöcher & Métivier 2015), as pygamma-agreement 0.5.9
defines it by default.

For two units ``u = [b1, e1)`` and ``v = [b2, e2)`` with categories ``k1``, ``k2``:

- positional (pygamma's ``PositionalSporadicDissimilarity``):
  ``d_pos = ((|b1 - b2| + |e1 - e2|) / ((e1 - b1) + (e2 - b2)))² · Δ∅``;
- categorical: ``d_cat = matrix[k1, k2] · Δ∅`` (nominal: 0 for equal categories, 1 otherwise);
- combined: ``d = alpha · d_pos + beta · d_cat``;

and ``Δ∅`` (``delta_empty``) is what pairing a unit with nobody costs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray

Categorical = Literal["nominal"] | npt.ArrayLike


@dataclass(frozen=True, eq=False)
class Dissimilarity:
    """Weights of the combined dissimilarity and the category × category dissimilarities.

    Attributes
    ----------
    alpha, beta : float
        Weights of the positional and the categorical dissimilarity.
    delta_empty : float
        Cost of a unit paired with an empty unit (Δ∅); both parts are scaled by it too.
    matrix : ndarray of float, shape (n_categories, n_categories)
        Categorical dissimilarity before scaling by ``delta_empty``.
    """

    alpha: float
    beta: float
    delta_empty: float
    matrix: NDArray[np.float64]

    @classmethod
    def build(
        cls,
        n_categories: int,
        *,
        alpha: float,
        beta: float,
        delta_empty: float,
        categorical: Categorical,
    ) -> Dissimilarity:
        """Check the parameters and build the category matrix (``"nominal"`` or given).

        Raises
        ------
        ValueError
            A weight that is negative or not finite, ``delta_empty`` not positive, or a
            category matrix that is not square over the data's categories, symmetric, finite,
            non-negative and zero on its diagonal.
        """
        for name, value in (("alpha", alpha), ("beta", beta)):
            if not (np.isfinite(value) and value >= 0):
                raise ValueError(f"{name} must be a finite number >= 0, not {value!r}")
        if not (np.isfinite(delta_empty) and delta_empty > 0):
            raise ValueError(f"delta_empty must be a finite number > 0, not {delta_empty!r}")
        if isinstance(categorical, str):
            if categorical != "nominal":
                raise ValueError(
                    f"categorical must be 'nominal' or a category matrix, not {categorical!r}"
                )
            matrix = 1.0 - np.eye(n_categories)
        else:
            matrix = np.array(categorical, dtype=np.float64)
            if matrix.shape != (n_categories, n_categories):
                raise ValueError(
                    f"the category matrix has shape {matrix.shape}; the data has "
                    f"{n_categories} categories, so it must be ({n_categories}, {n_categories})"
                )
            if not np.isfinite(matrix).all() or (matrix < 0).any():
                raise ValueError("the category matrix must be finite and non-negative")
            if not np.array_equal(matrix, matrix.T):
                raise ValueError("the category matrix must be symmetric")
            if np.diagonal(matrix).any():
                raise ValueError("the category matrix must be zero on its diagonal")
        return cls(float(alpha), float(beta), float(delta_empty), matrix)

    def positional(
        self,
        begin: NDArray[np.float64],
        end: NDArray[np.float64],
        i: NDArray[np.intp],
        j: NDArray[np.intp],
    ) -> NDArray[np.float64]:
        """Positional dissimilarity of units ``i`` and ``j`` (index arrays, broadcast)."""
        shift = np.abs(begin[i] - begin[j]) + np.abs(end[i] - end[j])
        ratio = shift / ((end[i] - begin[i]) + (end[j] - begin[j]))
        return np.asarray(ratio * ratio * self.delta_empty)

    def categorical(
        self, category: NDArray[np.intp], i: NDArray[np.intp], j: NDArray[np.intp]
    ) -> NDArray[np.float64]:
        """Categorical dissimilarity of units ``i`` and ``j``."""
        return np.asarray(self.matrix[category[i], category[j]] * self.delta_empty)

    def combined(
        self,
        begin: NDArray[np.float64],
        end: NDArray[np.float64],
        category: NDArray[np.intp],
        i: NDArray[np.intp],
        j: NDArray[np.intp],
    ) -> NDArray[np.float64]:
        """``alpha · positional + beta · categorical`` of units ``i`` and ``j``."""
        value = self.alpha * self.positional(begin, end, i, j)
        if self.beta:
            value = value + self.beta * self.categorical(category, i, j)
        return np.asarray(value)

    def positional_reach(self, pair_bound: NDArray[np.float64]) -> NDArray[np.float64]:
        """Largest ``(|Δbegin| + |Δend|) / (length sum)`` a pair may have with a combined
        dissimilarity at most ``pair_bound`` (``inf`` when position costs nothing)."""
        if self.alpha == 0:
            return np.full(np.shape(pair_bound), np.inf)
        return np.sqrt(pair_bound / (self.alpha * self.delta_empty))
