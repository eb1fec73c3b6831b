"""Token Jaccard distance between texts: ``1 - |A ∩ B| / |A ∪ B|`` on their sets of tokens.

A text's tokens are ``text.lower().split()`` (lower case, split on whitespace, punctuation
kept with its word); each text counts as the *set* of its tokens. Two texts without tokens
(empty, or only whitespace) are at distance 0; one without tokens and one with are at
distance 1. Texts with the same token set are at distance 0 whatever their spelling, case or
word order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

#: Entries of the sparse intersection products computed at once (an upper bound).
_PRODUCT_BUDGET = 1 << 23

__all__ = ["JaccardDistance", "TokenSets", "token_jaccard"]


@dataclass(frozen=True, eq=False)
class TokenSets:
    """Texts as a binary texts × tokens matrix.

    Attributes
    ----------
    matrix : scipy.sparse.csr_matrix, shape (n_texts, n_tokens)
        1 where the text holds the token.
    sizes : ndarray of float, shape (n_texts,)
        Tokens per text (set sizes).
    """

    matrix: sparse.csr_matrix
    sizes: NDArray[np.float64]

    @classmethod
    def encode(cls, texts: Sequence[str]) -> TokenSets:
        vocabulary: dict[str, int] = {}
        columns: list[int] = []
        lengths = np.empty(len(texts), dtype=np.intp)
        for position, text in enumerate(texts):
            tokens = {
                vocabulary.setdefault(token, len(vocabulary)) for token in text.lower().split()
            }
            columns.extend(tokens)
            lengths[position] = len(tokens)
        indptr = np.concatenate([[0], np.cumsum(lengths)])
        matrix = sparse.csr_matrix(
            (np.ones(len(columns)), np.asarray(columns, dtype=np.intp), indptr),
            shape=(len(texts), len(vocabulary)),
        )
        return cls(matrix, lengths.astype(np.float64))

    def distances(self, left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
        """Jaccard distances of texts ``left[i]`` and ``right[i]``.

        Examples
        --------
        >>> sets = TokenSets.encode(["A cat sat", "the cat", "", "  "])
        >>> sets.distances(np.array([0, 0, 2]), np.array([1, 2, 3])).tolist()
        [0.75, 1.0, 0.0]
        """
        shared = np.asarray(self.matrix[left].multiply(self.matrix[right]).sum(axis=1)).ravel()
        union = self.sizes[left] + self.sizes[right] - shared
        similarity = np.divide(shared, union, out=np.ones_like(union), where=union > 0)
        return 1.0 - similarity


class JaccardDistance:
    """Token Jaccard over the texts of a :class:`TokenSets`, with exact sums over all pairs.

    Called with two code arrays it gives their distances. ``pair_sum`` and ``matrix`` read the
    shared tokens from the sparse product ``X Xᵀ`` (``X`` texts × tokens): a pair that shares
    no token is at distance 1 (0 when neither text has a token), so only pairs sharing one are
    visited, and ``Σ_{a<b} n_a n_b d`` is ``Σ_{a<b} n_a n_b`` minus their similarities. The
    cost is ``Σ_t df_t²`` over the tokens' document frequencies: far below ``V²`` when
    vocabularies differ, close to it when every text shares a common word.
    """

    def __init__(self, sets: TokenSets) -> None:
        self.sets = sets

    def __call__(self, left: NDArray[np.intp], right: NDArray[np.intp]) -> NDArray[np.float64]:
        return self.sets.distances(left, right)

    def _blocks(self, codes: NDArray[np.intp]) -> Iterator[tuple[int, sparse.coo_matrix]]:
        """``(start, X[codes][start:stop] @ X[codes]ᵀ)`` in row blocks of bounded size."""
        x = self.sets.matrix[codes]
        frequency = np.asarray(x.sum(axis=0)).ravel()
        cost = np.asarray(x @ frequency).ravel() + 1.0  # a bound on each row's product entries
        cumulative = np.cumsum(cost)
        start = 0
        transposed = x.T.tocsr()
        while start < codes.size:
            done = cumulative[start - 1] if start else 0.0
            stop = int(np.searchsorted(cumulative, done + _PRODUCT_BUDGET, side="right"))
            stop = max(stop, start + 1)
            yield start, (x[start:stop] @ transposed).tocoo()
            start = stop

    def matrix(self, codes: NDArray[np.intp]) -> NDArray[np.float64]:
        """The ``V × V`` distances among ``codes``."""
        sizes = self.sets.sizes[codes]
        size = codes.size
        shared = np.zeros((size, size))
        for start, product in self._blocks(codes):
            shared[product.row + start, product.col] = product.data
        union = sizes[:, None] + sizes[None, :] - shared
        similarity = np.divide(shared, union, out=np.ones_like(shared), where=union > 0)
        distance = 1.0 - similarity
        np.fill_diagonal(distance, 0.0)
        return distance

    def pair_sum(self, codes: NDArray[np.intp], counts: NDArray[np.float64]) -> float:
        """``Σ_{a<b} counts_a counts_b d(codes_a, codes_b)``, exactly, from the shared tokens."""
        sizes = self.sets.sizes[codes]
        total = (counts.sum() ** 2 - (counts**2).sum()) / 2.0
        empty = counts[sizes == 0]
        total -= (empty.sum() ** 2 - (empty**2).sum()) / 2.0  # two token-less texts: 0
        for start, product in self._blocks(codes):
            row = product.row + start
            upper = product.col > row
            a, b, shared = row[upper], product.col[upper], product.data[upper]
            similarity = shared / (sizes[a] + sizes[b] - shared)
            total -= float(np.dot(counts[a] * counts[b], similarity))
        return float(total)


def token_jaccard(first: str, second: str) -> float:
    """The token Jaccard distance of two texts.

    Examples
    --------
    >>> token_jaccard("A cat sat", "the CAT"), token_jaccard("", ""), token_jaccard("a", "")
    (0.75, 0.0, 1.0)
    """
    return float(TokenSets.encode([first, second]).distances(np.array([0]), np.array([1]))[0])
