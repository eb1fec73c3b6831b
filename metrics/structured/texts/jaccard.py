"""Token Jaccard distance between texts: ``1 - |A ∩ B| / |A ∪ B|`` on their sets of tokens.

A text's tokens are ``text.lower().split()`` (lower case, split on whitespace, punctuation
kept with its word); each text counts as the *set* of its tokens. Two texts without tokens
(empty, or only whitespace) are at distance 0; one without tokens and one with are at
distance 1. Texts with the same token set are at distance 0 whatever their spelling, case or
word order.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

__all__ = ["TokenSets", "token_jaccard"]


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


def token_jaccard(first: str, second: str) -> float:
    """The token Jaccard distance of two texts.

    Examples
    --------
    >>> token_jaccard("A cat sat", "the CAT"), token_jaccard("", ""), token_jaccard("a", "")
    (0.75, 0.0, 1.0)
    """
    return float(TokenSets.encode([first, second]).distances(np.array([0]), np.array([1]))[0])
