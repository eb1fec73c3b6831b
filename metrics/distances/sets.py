"""Distances between set-valued labels: Jaccard, Dice, Passonneau's d_P, MASI.

A set-valued label is a ``frozenset`` of categories: a coreference chain, the equivalence
class of a pyramid SCU, the senses a coder picked for a word. Every distance here is a ratio
of integers (set sizes), computed with one division so that pairwise values and matrix
entries are the correctly rounded floats of the exact fractions (MASI uses *exact* thirds).

Two conventions the papers leave open are fixed here:

- **Two empty sets** are identical: every distance is 0.
- **An empty set against a non-empty one** is a total disagreement: every distance is 1
  (``empty="disjoint"``, the default). The empty set is also, formally, a subset of every
  set; ``empty="subset"`` follows that reading for d_P and ``masi_ap`` (DKPro Agreement's
  convention, giving ``d_P(∅, {A}) = 1/3``). Jaccard, Dice and MASI have Jaccard similarity
  0 there, so they are 1 under both readings.

References
----------
Passonneau, R. (2006). Measuring agreement on set-valued items (MASI) for semantic and
pragmatic annotation. *LREC 2006*, §3.3.
Artstein, R. & Poesio, M. (2008). Inter-coder agreement for computational linguistics.
*Computational Linguistics* 34(4), §4.4.1, §4.5. https://doi.org/10.1162/coli.07-034-R2
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

from metrics.distances.base import Distance

EmptyRule = Literal["disjoint", "subset"]

_KINDS: tuple[str, ...] = ("jaccard", "dice", "passonneau", "masi", "masi_ap")


def _check_set(value: object, what: str) -> AbstractSet[Hashable]:
    if not isinstance(value, AbstractSet):
        raise ValueError(
            f"{what} must be a set or frozenset of categories; got {type(value).__name__} "
            f"{value!r}."
        )
    return value


def _check_empty_rule(empty: str) -> None:
    if empty not in ("disjoint", "subset"):
        raise ValueError(f"empty must be 'disjoint' or 'subset'; got {empty!r}.")


def _monotonicity_thirds(
    size_a: NDArray[np.int64],
    size_b: NDArray[np.int64],
    inter: NDArray[np.int64],
    empty: str,
) -> NDArray[np.int64]:
    """Passonneau's monotonicity M in thirds: 3 identical, 2 subset, 1 overlap, 0 disjoint.

    Parameters
    ----------
    size_a, size_b, inter : int arrays of one shape
        ``|A|``, ``|B|`` and ``|A ∩ B|``.
    empty : {"disjoint", "subset"}
        How an empty set compares with a non-empty one.

    Returns
    -------
    int array of the same shape, values in {0, 1, 2, 3}.
    """
    identical = (inter == size_a) & (inter == size_b)
    subset = (inter == np.minimum(size_a, size_b)) & ~identical
    if empty == "disjoint":
        subset &= inter > 0
    overlap = (inter > 0) & ~identical & ~subset
    return np.where(identical, 3, np.where(subset, 2, np.where(overlap, 1, 0)))


def _set_distance_from_sizes(
    kind: str,
    size_a: NDArray[np.int64],
    size_b: NDArray[np.int64],
    inter: NDArray[np.int64],
    empty: str,
) -> NDArray[np.float64]:
    """Distance of each pair from ``|A|``, ``|B|``, ``|A ∩ B|`` as one exact ratio each.

    Parameters
    ----------
    kind : one of "jaccard", "dice", "passonneau", "masi", "masi_ap"
    size_a, size_b, inter : int arrays of one shape
    empty : {"disjoint", "subset"}

    Returns
    -------
    float array of the same shape. Pairs of two empty sets get 0.
    """
    union = size_a + size_b - inter
    if kind == "jaccard":
        numerator, denominator = union - inter, union
    elif kind == "dice":
        numerator, denominator = size_a + size_b - 2 * inter, size_a + size_b
    else:
        thirds = _monotonicity_thirds(size_a, size_b, inter, empty)
        if kind == "passonneau":
            numerator, denominator = 3 - thirds, np.full_like(thirds, 3)
        elif kind == "masi":
            numerator, denominator = 3 * union - thirds * inter, 3 * union
        else:  # masi_ap: d_P × d_J = (3 - M3)/3 × (union - inter)/union
            numerator, denominator = (3 - thirds) * (union - inter), 3 * union
    both_empty = union == 0
    safe = np.where(both_empty, 1, denominator)
    return np.where(both_empty, 0.0, numerator / safe).astype(np.float64)


def _pair(kind: str, a: object, b: object, empty: str) -> float:
    _check_empty_rule(empty)
    set_a = _check_set(a, "The first label")
    set_b = _check_set(b, "The second label")
    size_a, size_b = np.array(len(set_a)), np.array(len(set_b))
    inter = np.array(len(set_a & set_b))
    return float(_set_distance_from_sizes(kind, size_a, size_b, inter, empty))


def jaccard_distance(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> float:
    r"""Jaccard distance between two sets.

    .. math:: d_J(A, B) = 1 - \frac{|A \cap B|}{|A \cup B|}

    Two empty sets are at distance 0.

    Parameters
    ----------
    a, b : set or frozenset
        The two labels.

    Returns
    -------
    float in [0, 1].

    References
    ----------
    Artstein & Poesio (2008), §4.4.1; Passonneau (2006), §3.3.

    Examples
    --------
    Passonneau (2006), Figure 2, column x: J = 2/3.

    >>> round(jaccard_distance(frozenset("xy"), frozenset("xyz")), 4)
    0.3333
    """
    return _pair("jaccard", a, b, "disjoint")


def dice_distance(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> float:
    r"""Dice distance between two sets.

    .. math:: d_D(A, B) = 1 - \frac{2 |A \cap B|}{|A| + |B|}

    Two empty sets are at distance 0.

    Parameters
    ----------
    a, b : set or frozenset
        The two labels.

    Returns
    -------
    float in [0, 1].

    References
    ----------
    Artstein & Poesio (2008), §4.4.1.

    Examples
    --------
    Artstein & Poesio (2008), §4.5: {WN1, LABEL} against {WN3, LABEL}.

    >>> dice_distance(frozenset({"WN1", "LABEL"}), frozenset({"WN3", "LABEL"}))
    0.5
    """
    return _pair("dice", a, b, "disjoint")


def passonneau_distance(
    a: AbstractSet[Hashable], b: AbstractSet[Hashable], *, empty: EmptyRule = "disjoint"
) -> float:
    r"""Passonneau's (2004) set distance d_P.

    .. math::

        d_P(A, B) = \begin{cases}
            0 & A = B \\
            1/3 & A \subset B \text{ or } B \subset A \\
            2/3 & A \cap B \neq \emptyset,\ A \not\subset B,\ B \not\subset A \\
            1 & A \cap B = \emptyset
        \end{cases}

    d_P = 1 − M, with M Passonneau's (2006) monotonicity.

    Parameters
    ----------
    a, b : set or frozenset
        The two labels.
    empty : {"disjoint", "subset"}, default "disjoint"
        An empty set against a non-empty one: 1 ("disjoint") or 1/3 ("subset", DKPro
        Agreement's convention). Two empty sets are always at distance 0.

    Returns
    -------
    float, one of 0, 1/3, 2/3, 1.

    References
    ----------
    Artstein & Poesio (2008), §4.4.1 and §4.5.

    Examples
    --------
    Artstein & Poesio (2008), §4.5: extended senses {WN1, LABEL} and {WN3, LABEL}.

    >>> round(passonneau_distance(frozenset({"WN1", "LABEL"}), frozenset({"WN3", "LABEL"})), 4)
    0.6667
    """
    return _pair("passonneau", a, b, empty)


def masi_distance(a: AbstractSet[Hashable], b: AbstractSet[Hashable]) -> float:
    r"""MASI distance exactly as Passonneau (2006) defines it: ``1 − J·M``.

    .. math:: d_{MASI}(A, B) = 1 - J(A, B)\, M(A, B)

    with J the Jaccard similarity and M = 1 (identical), 2/3 (one a proper subset of the
    other), 1/3 (overlapping, neither a subset), 0 (disjoint) — exact thirds, not NLTK's
    0.67 and 0.33 (nltk#3361). Two empty sets are at distance 0.

    Parameters
    ----------
    a, b : set or frozenset
        The two labels.

    Returns
    -------
    float in [0, 1].

    References
    ----------
    Passonneau, R. (2006). Measuring agreement on set-valued items (MASI) for semantic and
    pragmatic annotation. *LREC 2006*, §3.3.

    Examples
    --------
    NLTK's doctest pair; the exact value is 2/3, NLTK printed 0.665 before nltk#3695.

    >>> round(masi_distance(frozenset({1, 2}), frozenset({1, 2, 3, 4})), 4)
    0.6667
    """
    return _pair("masi", a, b, "disjoint")


def masi_ap_distance(
    a: AbstractSet[Hashable], b: AbstractSet[Hashable], *, empty: EmptyRule = "disjoint"
) -> float:
    r"""The product of distances ``d_P × d_J`` that Artstein & Poesio (2008) print as MASI.

    .. math:: d_{M}^{A\&P}(A, B) = d_P(A, B)\, d_J(A, B) = (1 - M)(1 - J)

    This is *not* Passonneau's MASI (:func:`masi_distance`, ``1 − J·M``); it is DKPro
    Agreement's "MASI". It is offered under its own name so that results can be compared.

    Parameters
    ----------
    a, b : set or frozenset
        The two labels.
    empty : {"disjoint", "subset"}, default "disjoint"
        See :func:`passonneau_distance`.

    Returns
    -------
    float in [0, 1].

    References
    ----------
    Artstein & Poesio (2008), §4.4.1.

    Examples
    --------
    Artstein & Poesio (2008), §4.5: {WN1, LABEL} against {LABEL} gives 1/3 × 1/2.

    >>> round(masi_ap_distance(frozenset({"WN1", "LABEL"}), frozenset({"LABEL"})), 4)
    0.1667
    """
    return _pair("masi_ap", a, b, empty)


def membership_matrix(
    domain: Sequence[Hashable],
) -> tuple[NDArray[np.bool_], tuple[Hashable, ...]]:
    """Boolean membership of each category in each set of the domain.

    Parameters
    ----------
    domain : sequence of sets, length V

    Returns
    -------
    membership : bool array, shape (V, K)
        ``membership[v, k]`` is True when category ``k`` is in ``domain[v]``.
    categories : tuple, length K
        The category universe, in order of first appearance.
    """
    index: dict[Hashable, int] = {}
    rows: list[int] = []
    cols: list[int] = []
    for v, value in enumerate(domain):
        for category in _check_set(value, f"Label {v} of the domain"):
            rows.append(v)
            cols.append(index.setdefault(category, len(index)))
    membership = np.zeros((len(domain), len(index)), dtype=bool)
    membership[np.asarray(rows, dtype=np.intp), np.asarray(cols, dtype=np.intp)] = True
    return membership, tuple(index)


@dataclass(frozen=True)
class SetDistance:
    """A set distance as a :class:`~metrics.distances.base.Distance` over set-valued labels.

    ``matrix(domain)`` turns the V distinct sets into a V × K boolean membership matrix over
    the category universe; intersections are one matrix product and unions follow from the
    sizes, so no Python loop runs over pairs.

    Parameters
    ----------
    name : {"jaccard", "dice", "passonneau", "masi", "masi_ap"}
        Which distance (checked on construction).
    empty : {"disjoint", "subset"}, default "disjoint"
        See the module docstring; only d_P and ``masi_ap`` depend on it.

    Examples
    --------
    Passonneau (2006), Figure 2, column z: {x} against {x, y, z}, MASI = 1/3 × 2/3.

    >>> d = SET_DISTANCES["masi"].matrix([frozenset("x"), frozenset("xyz")])
    >>> round(float(d[0, 1]), 4)
    0.7778
    """

    name: str
    empty: EmptyRule = "disjoint"

    def __post_init__(self) -> None:
        if self.name not in _KINDS:
            raise ValueError(f"Unknown set distance {self.name!r}; choose one of {_KINDS}.")
        _check_empty_rule(self.empty)

    def matrix(
        self, domain: Sequence[Hashable], counts: NDArray[np.float64] | None = None
    ) -> NDArray[np.float64]:
        """The V × V matrix of distances between the sets of ``domain``.

        Parameters
        ----------
        domain : sequence of sets, length V
        counts : ignored
            Set distances do not depend on the data.

        Returns
        -------
        ndarray of float, shape (V, V)
        """
        membership, _ = membership_matrix(domain)
        as_float = membership.astype(np.float64)  # BLAS; counts stay exact in float64
        inter = np.rint(as_float @ as_float.T).astype(np.int64)
        sizes = membership.sum(axis=1).astype(np.int64)
        return _set_distance_from_sizes(
            self.name, sizes[:, None], sizes[None, :], inter, self.empty
        )


SET_DISTANCES: dict[str, Distance] = {kind: SetDistance(kind) for kind in _KINDS}  # type: ignore[misc]
"""The five set distances with the default empty-set rule, by name."""
