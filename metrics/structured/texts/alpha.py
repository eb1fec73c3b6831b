"""Krippendorff's alpha on free text: a text distance, exact ``D_o`` and ``D_e``.

.. math::

    \\alpha = 1 - \\frac{D_o}{D_e}

with the distances of :mod:`metrics.structured._pairwise` (Artstein & Poesio 2008, §2.6:
alpha for any distance). The distance is one of

- ``"levenshtein"``: the Levenshtein distance over the longer text's length (Unicode code
  points, case-sensitive, no normalisation; 0 for two empty texts), see
  :mod:`~metrics.structured.texts.levenshtein`;
- ``"token_jaccard"``: ``1 - |A ∩ B| / |A ∪ B|`` on the sets of ``text.lower().split()``, see
  :mod:`~metrics.structured.texts.jaccard`;
- a user-supplied distance, for distances computed elsewhere (embeddings): a
  :class:`metrics.MatrixDistance` whose ``labels`` are the texts, a mapping
  ``{(text_a, text_b): distance}`` (either order; both orders given means their mean, the
  symmetric part as everywhere in the library), or a callable ``f(text_a, text_b)``.

Cost (``V`` distinct texts among the pairable values): ``D_o`` evaluates each distinct pair
of unequal texts that share an item once (at most three per item with three coders); ``D_e``
needs all ``V(V-1)/2`` pairs, and there is no exact way around that for these distances, so
``max_pairs`` lets a caller refuse data where that is too many instead of waiting. Or
``expected="sampled"`` estimates ``D_e`` from ``expected_pairs`` random pairs of value
occurrences drawn with ``seed`` (weighted as exact ``D_e`` weighs them), with its standard
error: alpha is then an estimate; ``expected="auto"`` is exact up to ``max_pairs``
(:data:`~metrics.structured._pairwise.AUTO_EXACT_PAIRS` when not given) and sampled above.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from metrics.decomposition import Decomposition
from metrics.distances.scalar import MatrixDistance
from metrics.structured._pairwise import (
    DEFAULT_EXPECTED_PAIRS,
    ExpectedSample,
    PairDistance,
    PairwiseAlpha,
    pairwise_alpha,
)
from metrics.structured.texts.data import TextData
from metrics.structured.texts.jaccard import JaccardDistance, TokenSets
from metrics.structured.texts.levenshtein import TextCodes, normalized_levenshtein_pairs

#: Text distances known by name.
TEXT_DISTANCES: tuple[str, ...] = ("levenshtein", "token_jaccard")

TextDistanceLike = (
    str | MatrixDistance | Mapping[tuple[str, str], float] | Callable[[str, str], float]
)

__all__ = [
    "TEXT_DISTANCES",
    "ExpectedOptions",
    "TextAlpha",
    "TextDistanceLike",
    "decompose_text_alpha",
    "text_alpha",
    "text_distance",
]


@dataclass(frozen=True)
class TextAlpha:
    """Alpha on texts.

    Attributes
    ----------
    value, observed, expected : float
        ``1 - D_o / D_e``, ``D_o`` and ``D_e``.
    distance : str
        ``"levenshtein"``, ``"token_jaccard"``, ``"matrix"``, ``"mapping"`` or ``"callable"``.
    n_items : int
        Pairable items (two texts or more).
    n_values : int
        Pairable texts ``n``.
    n_distinct : int
        Distinct pairable texts ``V``.
    observed_pairs, expected_pairs : int
        Distance evaluations for ``D_o`` (distinct unequal pairs sharing an item) and exact
        ``D_e`` (``V(V-1)/2``, whether or not it ran).
    sample : ExpectedSample or None
        How ``D_e`` was sampled (pairs, seed, standard error); None when it is exact.
    """

    value: float
    observed: float
    expected: float
    distance: str
    n_items: int
    n_values: int
    n_distinct: int
    observed_pairs: int
    expected_pairs: int
    sample: ExpectedSample | None = None


def text_distance(distance: TextDistanceLike, texts: tuple[str, ...]) -> tuple[str, PairDistance]:
    """The distance's name and its vectorised form over ``texts`` (codes → distances).

    Raises
    ------
    ValueError
        An unknown name, or a matrix or mapping without a text of ``texts`` (named).
    """
    if isinstance(distance, str):
        if distance == "levenshtein":
            codes = TextCodes.encode(texts)
            return distance, lambda left, right: normalized_levenshtein_pairs(codes, left, right)
        if distance == "token_jaccard":
            return distance, JaccardDistance(TokenSets.encode(texts))
        raise ValueError(
            f"Unknown text distance {distance!r}; use one of {', '.join(TEXT_DISTANCES)}, a "
            "MatrixDistance over the texts, a mapping of text pairs or a callable."
        )
    if isinstance(distance, MatrixDistance):
        return "matrix", _matrix_distance(distance, texts)
    if isinstance(distance, Mapping):
        return "mapping", _mapping_distance(distance, texts)
    if callable(distance):
        function = distance

        def call(left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
            values = [float(function(texts[a], texts[b])) for a, b in zip(left, right, strict=True)]
            return _checked(np.asarray(values, dtype=np.float64), "the callable")

        return "callable", call
    raise ValueError(f"A text distance cannot be a {type(distance).__name__}.")


def _checked(values: NDArray[np.float64], source: str) -> NDArray[np.float64]:
    if values.size and (not np.all(np.isfinite(values)) or values.min() < 0):
        raise ValueError(f"Distances from {source} must be finite and non-negative.")
    return values


def _matrix_distance(distance: MatrixDistance, texts: tuple[str, ...]) -> PairDistance:
    if distance.labels is None:
        raise ValueError("A text distance matrix needs labels: the text of each row and column.")
    position = {label: i for i, label in enumerate(distance.labels)}
    missing = [text for text in texts if text not in position]
    if missing:
        raise ValueError(f"The distance matrix has no row for the texts {missing[:5]!r}.")
    index = np.array([position[text] for text in texts], dtype=np.intp)
    weights = np.asarray(distance.weights, dtype=np.float64)

    def lookup(left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
        x, y = index[left], index[right]
        return 0.5 * (weights[x, y] + weights[y, x])

    return lookup


def _mapping_distance(
    mapping: Mapping[tuple[str, str], float], texts: tuple[str, ...]
) -> PairDistance:
    def lookup(left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
        out = np.empty(left.size)
        for position, (a, b) in enumerate(zip(left.tolist(), right.tolist(), strict=True)):
            first, second = texts[a], texts[b]
            found = [mapping[key] for key in ((first, second), (second, first)) if key in mapping]
            if not found:
                raise ValueError(
                    f"The distance mapping has no entry for the texts {first!r} and {second!r}."
                )
            out[position] = float(np.mean(found))
        return _checked(out, "the mapping")

    return lookup


@dataclass(frozen=True)
class ExpectedOptions:
    """How ``D_e`` is found: ``method`` "exact", "sampled" or "auto", and for a sample its
    ``pairs`` and ``seed``."""

    method: str = "exact"
    pairs: int = DEFAULT_EXPECTED_PAIRS
    seed: int = 0


def _pairwise(
    data: TextData,
    distance: TextDistanceLike,
    max_pairs: int | None,
    options: ExpectedOptions = ExpectedOptions(),
) -> tuple[str, PairwiseAlpha]:
    name, pair_distance = text_distance(distance, data.texts)
    result = pairwise_alpha(
        data.item_index,
        data.text_code,
        data.n_items,
        data.n_texts,
        pair_distance,
        max_pairs=max_pairs,
        name="alpha",
        expected_method=options.method,
        sample_pairs=options.pairs,
        seed=options.seed,
    )
    return name, result


def text_alpha(
    data: TextData,
    *,
    distance: TextDistanceLike = "levenshtein",
    max_pairs: int | None = None,
    expected: str = "exact",
    expected_pairs: int = DEFAULT_EXPECTED_PAIRS,
    seed: int = 0,
) -> TextAlpha:
    """Krippendorff's alpha on texts with a text distance.

    Parameters
    ----------
    data : TextData
    distance : str, MatrixDistance, mapping or callable, default "levenshtein"
        See the module docstring.
    max_pairs : int, optional
        Refuse when exact ``D_e`` needs more than this many distance evaluations
        (``V(V-1)/2``); with ``expected="auto"`` sample above it instead.
    expected : {"exact", "sampled", "auto"}, default "exact"
        Exact ``D_e``; ``D_e`` estimated from ``expected_pairs`` pairs drawn with ``seed``
        (``sample`` then gives its standard error); or exact up to the limit, sampled above.
    expected_pairs : int, default 200,000
    seed : int, default 0

    Returns
    -------
    TextAlpha

    Raises
    ------
    ValueError
        No item with two texts; every text the same (``D_e = 0``); more than ``max_pairs``
        evaluations; a bad distance.

    Examples
    --------
    Two items, two coders: ("ab", "ab") and ("ab", "abcd"). Hand-worked, for D_o and
    D_e: only "ab" and "abcd" differ (normalised distance 2/4); ``n_ab = 3``, ``n_abcd = 1``,
    so D_o = (1/4)·2·0.5 = 1/4, D_e = 2·3·1·0.5/(4·3) = 1/4 and alpha = 0.

    >>> data = TextData.from_long([1, 1, 2, 2], ["a", "b", "a", "b"], ["ab", "ab", "ab", "abcd"])
    >>> result = text_alpha(data)
    >>> result.value, result.observed, result.expected
    (0.0, 0.25, 0.25)
    """
    options = ExpectedOptions(expected, expected_pairs, seed)
    return alpha_with_decomposition(data, distance, max_pairs, options)[0]


def decompose_text_alpha(
    data: TextData, *, distance: TextDistanceLike = "levenshtein", max_pairs: int | None = None
) -> Decomposition:
    """Text alpha as ``finalize(sum of per-item rows)``, one row per item, for the bootstrap.

    With at most ``MAX_MATRIX_VALUES`` distinct texts the rows are ``[D_o part, n_u1 ..
    n_uV]`` and ``finalize`` recomputes ``D_e`` from the resampled counts (exact); above it
    the rows are ``[D_o part, m_u]`` and ``D_e`` is held at the full data's value.

    Examples
    --------
    >>> data = TextData.from_long([1, 1, 2, 2, 3, 3], list("ababab"),
    ...                           ["x", "x", "x", "xy", "yy", "yy"])
    >>> round(float(decompose_text_alpha(data).evaluate()), 6) == round(text_alpha(data).value, 6)
    True
    """
    return _pairwise(data, distance, max_pairs)[1].decomposition


def alpha_with_decomposition(
    data: TextData,
    distance: TextDistanceLike,
    max_pairs: int | None,
    options: ExpectedOptions = ExpectedOptions(),
) -> tuple[TextAlpha, PairwiseAlpha]:
    """:func:`text_alpha` and the engine's result (with its decomposition), computed once."""
    name, result = _pairwise(data, distance, max_pairs, options)
    alpha = TextAlpha(
        value=result.value,
        observed=result.observed,
        expected=result.expected,
        distance=name,
        n_items=result.n_items,
        n_values=result.n_values,
        n_distinct=result.n_distinct,
        observed_pairs=result.observed_pairs,
        expected_pairs=result.expected_pairs,
        sample=result.sample,
    )
    return alpha, result
