"""What a distance between labels is, for alpha and the weighted coefficients."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray


@runtime_checkable
class Distance(Protocol):
    """A distance over a value domain, given as a ``V × V`` matrix.

    ``matrix(domain, counts)`` returns a finite, non-negative array with a zero diagonal,
    ``d[i, j]`` being the distance between ``domain[i]`` and ``domain[j]``; it should be
    symmetric, and if it is not, every coefficient uses its symmetric part (see
    :mod:`metrics.distances`). ``counts`` holds
    how often each value was used among pairable values (``n_v``); only distances that depend
    on the data (Krippendorff's ordinal metric) read it, and it may have leading axes
    ``(..., V)`` for a vectorised bootstrap, in which case the result is ``(..., V, V)``.
    """

    @property
    def name(self) -> str:
        """The distance's name, as reported (``"ordinal"``, ``"masi"``, ``"matrix"``, ...)."""
        ...

    def matrix(
        self,
        domain: Sequence[Hashable],
        counts: NDArray[np.float64] | None = None,
    ) -> NDArray[np.float64]: ...
