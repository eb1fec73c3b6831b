"""Distances between single values: nominal, ordinal, interval, ratio, and user-given ones.

Each class implements the :class:`~metrics.distances.base.Distance` protocol: ``matrix(domain,
counts)`` returns the ``V × V`` matrix of distances between the domain's values. Krippendorff's
alpha reads the nominal, ordinal, interval and ratio distances through closed forms when the
domain is large (see :mod:`metrics.coefficients.alpha`), so these matrices are only built for
small domains.

References
----------
Krippendorff, K. (2004). *Content Analysis: An Introduction to Its Methodology*, 2nd ed.,
§11.4 (the four metrics). Artstein, R. & Poesio, M. (2008). Inter-coder agreement for
computational linguistics. *Computational Linguistics* 34(4), §2.6.1.
https://doi.org/10.1162/coli.07-034-R2
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from numpy.typing import NDArray


def numeric_domain(domain: Sequence[Hashable], what: str) -> NDArray[np.float64]:
    """The domain as floats, or ``ValueError`` naming the distance that needed numbers.

    Parameters
    ----------
    domain : sequence, length V
    what : str
        The distance's name, for the message.

    Returns
    -------
    ndarray of float, shape (V,)
    """
    try:
        if isinstance(domain, np.ndarray):
            values = np.asarray(domain, dtype=np.float64)
        else:  # fromiter: no intermediate list, a third faster on large real-valued domains
            values = np.fromiter(domain, dtype=np.float64, count=len(domain))
    except (TypeError, ValueError):
        raise ValueError(
            f"The {what} distance measures differences between numbers, so it needs numeric "
            f"labels; got labels such as {list(domain)[:3]!r}. For ordered categories use the "
            "ordinal distance with domain=[...] giving their order."
        ) from None
    if values.ndim != 1 or not np.all(np.isfinite(values)):
        raise ValueError(f"The {what} distance needs finite numeric labels.")
    return values


@dataclass(frozen=True)
class NominalDistance:
    """``d(a, b) = 0`` if ``a == b``, else 1 (Artstein & Poesio 2008, §2.6.1).

    Examples
    --------
    >>> NominalDistance().matrix(["a", "b"]).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """

    name: str = "nominal"

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        size = len(domain)
        return np.ones((size, size)) - np.eye(size)


@dataclass(frozen=True)
class IntervalDistance:
    """``d(a, b) = (a - b)²`` on numeric labels (Artstein & Poesio 2008, §2.6.1).

    Examples
    --------
    >>> IntervalDistance().matrix([1, 10]).tolist()
    [[0.0, 81.0], [81.0, 0.0]]
    """

    name: str = "interval"

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        values = numeric_domain(domain, self.name)
        return np.asarray(np.subtract.outer(values, values) ** 2, dtype=np.float64)


@dataclass(frozen=True)
class RatioDistance:
    """``d(a, b) = ((a - b) / (a + b))²`` on non-negative numeric labels (Krippendorff 2004).

    ``d(0, 0) = 0``; a pair with ``a + b = 0`` and ``a != b`` cannot occur since labels are
    non-negative.

    Examples
    --------
    >>> RatioDistance().matrix([1, 3]).tolist()
    [[0.0, 0.25], [0.25, 0.0]]
    """

    name: str = "ratio"

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        values = numeric_domain(domain, self.name)
        return ratio_pairs(values[:, None], values[None, :])


def ratio_pairs(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """Element-wise ratio distance ``((a - b) / (a + b))²`` with ``0`` where ``a + b == 0``."""
    if np.any(a < 0) or np.any(b < 0):
        raise ValueError("The ratio distance needs non-negative labels.")
    total = a + b
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(total > 0, (a - b) / np.where(total > 0, total, 1.0), 0.0)
    return np.asarray(ratio**2, dtype=np.float64)


@dataclass(frozen=True)
class OrdinalDistance:
    """Krippendorff's rank-frequency ordinal metric over the domain order.

    .. math:: d_{ck} = \\Big(\\sum_{g=c}^{k} n_g - \\frac{n_c + n_k}{2}\\Big)^2

    where ``n_g`` are the pairable-value marginals (``counts``) in domain order. Equivalently
    ``d_ck = (r_k - r_c)²`` with mid-ranks ``r_k = Σ_{g<k} n_g + n_k / 2``, which is how it is
    computed. It depends on the data, so ``counts`` is required; with leading axes ``(..., V)``
    the result is ``(..., V, V)`` (one matrix per bootstrap replicate). This is not Gwet's
    rank-based ordinal weight.

    Examples
    --------
    Krippendorff (1980) via DKPro ``testOrdinalMetric``: values 1, 2, 3, 4, 5, 10 used
    2, 2, 4, 8, 2, 2 times give unsquared differences 2 (1–2) and 18 (1–10):

    >>> d = OrdinalDistance().matrix([1, 2, 3, 4, 5, 10], counts=np.array([2, 2, 4, 8, 2, 2.0]))
    >>> float(np.sqrt(d[0, 1])), float(np.sqrt(d[0, 5]))
    (2.0, 18.0)
    """

    name: str = "ordinal"

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        if counts is None:
            raise ValueError(
                "The ordinal distance depends on how often each value was used: pass counts "
                "(the pairable-value marginals in domain order)."
            )
        counts = np.asarray(counts, dtype=np.float64)
        if counts.shape[-1] != len(domain):
            raise ValueError(
                f"counts has {counts.shape[-1]} values but the domain has {len(domain)}."
            )
        ranks = midranks(counts)
        return np.asarray((ranks[..., None, :] - ranks[..., :, None]) ** 2, dtype=np.float64)


def midranks(counts: NDArray[np.float64]) -> NDArray[np.float64]:
    """Mid-ranks ``Σ_{g<k} n_g + n_k / 2`` along the last axis of ``counts`` (``(..., V)``)."""
    counts = np.asarray(counts, dtype=np.float64)
    return np.asarray(np.cumsum(counts, axis=-1) - counts / 2.0, dtype=np.float64)


@dataclass(frozen=True)
class MatrixDistance:
    """Any ``V × V`` matrix over the domain, such as Cohen's κ_w weights.

    Parameters
    ----------
    weights : array_like, shape (V, V)
        Non-negative, zero on the diagonal. Need not be symmetric: every coefficient uses its
        symmetric part (see :mod:`metrics.distances`).
    labels : sequence, length V, optional
        The labels the rows and columns stand for. With labels, ``matrix(domain)`` picks the rows
        of the data's domain in its order; without, the matrix must already follow it.
    name : str, default "matrix"

    Examples
    --------
    Artstein & Poesio (2008), §2.6.2 weights for the integrated example:

    >>> d = MatrixDistance([[0, 1, .5], [1, 0, .5], [.5, .5, 0]], labels=["STAT", "IREQ", "CHCK"])
    >>> d.matrix(["CHCK", "STAT"]).tolist()
    [[0.0, 0.5], [0.5, 0.0]]
    """

    weights: npt.ArrayLike
    labels: Sequence[Hashable] | None = None
    name: str = "matrix"
    _array: NDArray[np.float64] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        array = np.array(self.weights, dtype=np.float64)
        if array.ndim != 2 or array.shape[0] != array.shape[1]:
            raise ValueError("A distance matrix must be square: V × V.")
        if not np.all(np.isfinite(array)) or np.any(array < 0):
            raise ValueError("A distance matrix must hold finite, non-negative distances.")
        if np.any(np.diag(array) != 0):
            raise ValueError("A distance matrix must be zero on its diagonal (d(a, a) = 0).")
        if self.labels is not None and len(self.labels) != array.shape[0]:
            raise ValueError(
                f"{len(self.labels)} labels given for a {array.shape[0]}-value matrix."
            )
        array.setflags(write=False)
        object.__setattr__(self, "_array", array)

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        if self.labels is None:
            if len(domain) != self._array.shape[0]:
                raise ValueError(
                    f"The distance matrix is {self._array.shape[0]} × {self._array.shape[0]} but "
                    f"the data have {len(domain)} values; give the matrix's labels to align them."
                )
            return self._array.copy()
        position = {label: i for i, label in enumerate(self.labels)}
        missing = [value for value in domain if value not in position]
        if missing:
            raise ValueError(f"The distance matrix has no row for labels {missing[:10]!r}.")
        index = np.array([position[value] for value in domain], dtype=np.intp)
        return self._array[np.ix_(index, index)].copy()


@dataclass(frozen=True)
class CallableDistance:
    """A distance from any function ``f(a, b) -> float`` of two labels.

    ``f`` is called once per ordered pair of *domain* values (``V²`` calls), never per
    annotation. ``f(a, a)`` must be 0 and every value finite and non-negative.

    Examples
    --------
    >>> d = CallableDistance(lambda a, b: abs(a - b), name="absolute")
    >>> d.matrix([1, 2, 4]).tolist()
    [[0.0, 1.0, 3.0], [1.0, 0.0, 2.0], [3.0, 2.0, 0.0]]
    """

    function: Callable[[Hashable, Hashable], float]
    name: str = "callable"

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        values = list(domain)
        array = np.array([[float(self.function(a, b)) for b in values] for a in values])
        array = array.reshape(len(values), len(values))
        if not np.all(np.isfinite(array)) or np.any(array < 0):
            raise ValueError(f"The {self.name} distance returned a negative or non-finite value.")
        if np.any(np.diag(array) != 0):
            raise ValueError(f"The {self.name} distance must give d(a, a) = 0.")
        return array
