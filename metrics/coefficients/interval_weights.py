"""The interval distance's agreement weights without their ``V × V`` matrix.

With the interval distance :math:`d_{kl} = (x_k - x_l)^2` the kappa family's agreement
weights (:func:`metrics.coefficients.agreement.agreement_weights`) are

.. math:: w_{kl} = 1 - \\frac{(x_k - x_l)^2}{(x_{max} - x_{min})^2}

already symmetric. Gwet's AC2 and the weighted Brennan–Prediger coefficient read them only
through the weights of the pairs of values on each item and their total

.. math:: \\sum_{kl} w_{kl} = V^2 - \\frac{2 (V \\sum_k x_k^2 - (\\sum_k x_k)^2)}
                                     {(x_{max} - x_{min})^2}

so a domain of hundreds of thousands of numbers needs neither the matrix nor its limit
(``MAX_MATRIX_VALUES``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics.data import ReliabilityData
from metrics.distances import DistanceLike, resolve_distance
from metrics.distances.scalar import IntervalDistance, numeric_domain

__all__ = ["IntervalWeights", "interval_weights"]


@dataclass(frozen=True)
class IntervalWeights:
    """The interval agreement weights over a numeric domain, as two operations.

    ``positions`` are the domain's values centred on their mean (the weights depend on
    differences only), ``scale`` the squared range.
    """

    positions: NDArray[np.float64]
    scale: float

    @classmethod
    def of(cls, values: NDArray[np.float64]) -> IntervalWeights:
        values = np.asarray(values, dtype=np.float64)
        scale = float(values.max() - values.min()) ** 2 if values.size else 0.0
        if scale == 0:
            raise ValueError("The distance is zero everywhere: every pair of values would agree.")
        return cls(values - values.mean(), scale)

    def pairs(self, first: NDArray[np.intp], second: NDArray[np.intp]) -> NDArray[np.float64]:
        """``w[first, second]`` elementwise."""
        difference = self.positions[first] - self.positions[second]
        return np.asarray(1.0 - difference * difference / self.scale, dtype=np.float64)

    def sum(self) -> float:
        """:math:`\\sum_{kl} w_{kl}` over the whole domain."""
        size = float(self.positions.size)
        first, second = float(self.positions.sum()), float(self.positions @ self.positions)
        return size * size - 2.0 * (size * second - first * first) / self.scale


def interval_weights(
    data: ReliabilityData, distance: DistanceLike | None
) -> IntervalWeights | None:
    """:class:`IntervalWeights` when ``distance`` is the interval distance, else None."""
    if distance is None or not isinstance(resolve_distance(distance), IntervalDistance):
        return None
    return IntervalWeights.of(numeric_domain(data.domain, "interval"))
