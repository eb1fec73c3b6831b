"""Levenshtein distances of many pairs of texts at once: Myers' bit-vector algorithm in numpy.

The distance is the least number of single-character insertions, deletions and
substitutions turning one text into the other, on Unicode code points (Python ``str``
characters), case-sensitive, with no normalisation. The normalised distance divides it by
the longer text's length (0 for two empty texts), so it lies in ``[0, 1]``.

Myers (1999) computes one column of the dynamic-programming table per text character with a
few word operations on bit vectors of the pattern (the shorter text): a pattern of ``m``
characters takes ``ceil(m / 64)`` 64-bit words, and a pair costs ``O(ceil(m/64) · n)`` word
operations instead of the table's ``m · n`` cells. Here every operation runs on a batch of a
few thousand pairs at once (numpy arrays of ``uint64``), and the words of one pattern are
processed as a wavefront (word ``w`` handles text character ``j - w`` while word 0 handles
``j``), so each step is one array operation over all words of all pairs. The blocks follow
Hyyrö's formulation as edlib implements it (the horizontal delta ``hin`` carried between
words).

Exact shortcuts come first: a common prefix and a common suffix are removed (they never
change the distance), and a pair whose shorter text is then empty costs nothing more (the
distance is the other's length).

References
----------
Myers, G. (1999). A fast bit-vector algorithm for approximate string matching based on
dynamic programming. *J. ACM* 46(3), 395–415. https://doi.org/10.1145/316542.316550

Hyyrö, H. (2003). A bit-vector algorithm for computing Levenshtein and Damerau edit distances.
*Nordic Journal of Computing* 10, 29–39.

Šošić, M. & Šikić, M. (2017). Edlib: a C/C++ library for fast, exact sequence alignment using
edit distance. *Bioinformatics* 33(9), 1394–1395. (``calculateBlock``.)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "TextCodes",
    "levenshtein",
    "levenshtein_pairs",
    "normalized_levenshtein",
    "normalized_levenshtein_pairs",
]

_ONE = np.uint64(1)
_TOP = np.uint64(63)
_ALL = ~np.uint64(0)
#: Elements of the largest temporary array (characters or words × pairs).
_BUDGET = 1 << 22
#: Pairs per batch of the bit-vector loop (small enough to stay in cache).
_BATCH = 2048
#: Code points span at most 0x110000: a lookup table maps them to the data's alphabet.
_CODE_POINTS = 0x110000


@dataclass(frozen=True, eq=False)
class TextCodes:
    """Texts as one array of alphabet indices.

    Attributes
    ----------
    flat : ndarray of int32
        Every text's characters, concatenated, as indices ``0 .. alphabet-1`` of the data's
        distinct code points (``alphabet`` itself pads).
    offsets, lengths : ndarray of int
        Text ``t`` is ``flat[offsets[t] : offsets[t] + lengths[t]]``.
    alphabet : int
        Number of distinct code points.
    """

    flat: NDArray[np.int32]
    offsets: NDArray[np.intp]
    lengths: NDArray[np.intp]
    alphabet: int

    @classmethod
    def encode(cls, texts: Sequence[str]) -> TextCodes:
        """Encode texts (code points, as Python counts characters; lone surrogates kept)."""
        lengths = np.fromiter((len(text) for text in texts), dtype=np.intp, count=len(texts))
        joined = "".join(texts)
        points = np.frombuffer(joined.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        used = np.bincount(points, minlength=_CODE_POINTS) > 0 if points.size else None
        if used is None:
            flat = np.zeros(0, dtype=np.int32)
            alphabet = 0
        else:
            lookup = (np.cumsum(used) - 1).astype(np.int32)
            flat = lookup[points]
            alphabet = int(used.sum())
        offsets = (np.cumsum(lengths) - lengths).astype(np.intp)
        return cls(flat, offsets, lengths, alphabet)

    def windows(
        self, start: NDArray[np.intp], length: NDArray[np.intp], width: int
    ) -> NDArray[np.int32]:
        """``(k, width)``: characters ``start[i] .. start[i] + length[i]`` of ``flat``, padded
        with ``alphabet``."""
        position = np.arange(width)
        valid = position < length[:, None]
        index = np.where(valid, start[:, None] + position, 0)
        out = self.flat[index] if self.flat.size else np.zeros(index.shape, np.int32)
        out[~valid] = self.alphabet
        return out


def _affixes(
    codes: TextCodes, a: NDArray[np.intp], b: NDArray[np.intp]
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:
    """Common prefix and suffix lengths of texts ``a[i]`` and ``b[i]`` (``len a <= len b``);
    they do not overlap (their sum is at most ``len a``)."""
    m, n = codes.lengths[a], codes.lengths[b]
    prefix = np.zeros(a.size, dtype=np.intp)
    suffix = np.zeros(a.size, dtype=np.intp)
    width = int(m.max()) if a.size else 0
    if width == 0:
        return prefix, suffix
    step = max(1, _BUDGET // width)
    position = np.arange(width)
    for start in range(0, a.size, step):
        part = slice(start, start + step)
        mm = m[part]
        inside = position < mm[:, None]
        first = codes.windows(codes.offsets[a[part]], mm, width)
        second = codes.windows(codes.offsets[b[part]], mm, width)
        same = (first == second) & inside
        head = np.where(same.all(axis=1), mm, np.argmin(same, axis=1))
        # The suffix, read backwards from each text's end, within what the prefix left.
        last_a = codes.offsets[a[part]] + mm - 1
        last_b = codes.offsets[b[part]] + n[part] - 1
        back_a = codes.flat[np.where(inside, last_a[:, None] - position, 0)]
        back_b = codes.flat[np.where(inside, last_b[:, None] - position, 0)]
        same = (back_a == back_b) & (position < (mm - head)[:, None])
        tail = np.where(same.all(axis=1), mm - head, np.argmin(same, axis=1))
        prefix[part], suffix[part] = head, tail
    return prefix, suffix


def _myers(
    codes: TextCodes,
    pattern_start: NDArray[np.intp],
    m: NDArray[np.intp],
    text_start: NDArray[np.intp],
    n: NDArray[np.intp],
    words: int,
) -> NDArray[np.int64]:
    """Distances of a batch whose patterns all take ``words`` 64-bit words (``1 <= m``);
    ``n`` sorted in decreasing order."""
    k = m.size
    letters = codes.alphabet + 1
    stride = k * letters
    # Peq: for each pair, word and letter, the pattern positions holding that letter.
    row = np.repeat(np.arange(k), m)
    within = np.arange(row.size) - np.repeat(np.cumsum(m) - m, m)
    letter = codes.flat[pattern_start[row] + within]
    table = np.zeros(words * stride, dtype=np.uint64)
    np.bitwise_or.at(
        table,
        (within // 64) * stride + row * letters + letter,
        np.left_shift(_ONE, (within % 64).astype(np.uint64)),
    )
    longest = int(n[0])
    text = np.full((longest + 2 * words, k), codes.alphabet, dtype=np.int32)
    if longest:
        text[words : words + longest] = codes.windows(text_start, n, longest).T
    base = (np.arange(words) * stride)[:, None] + (np.arange(k) * letters)[None, :]
    shape = (words, k)
    pv = np.full(shape, _ALL, dtype=np.uint64)
    mv = np.zeros(shape, dtype=np.uint64)
    h_plus = np.zeros(shape, dtype=np.uint64)
    h_plus[0] = _ONE  # the top row grows by one per text character
    h_minus = np.zeros(shape, dtype=np.uint64)
    xv, xh, ph, mh = (np.empty(shape, dtype=np.uint64) for _ in range(4))
    out_plus, out_minus = np.empty(shape, dtype=np.uint64), np.empty(shape, dtype=np.uint64)
    score = m.astype(np.int64)
    bit = ((m - 1) % 64).astype(np.uint64)
    active = np.searchsorted(-n, -np.arange(longest + 1), side="left")  # pairs with n > j
    last = words - 1
    for step in range(longest + words - 1):
        # Word w reads text character step - w (padding, a no-op, outside the text).
        eq = table[base + text[step + 1 : step + words + 1][::-1]]
        np.bitwise_or(eq, mv, out=xv)
        eq |= h_minus
        np.bitwise_and(eq, pv, out=xh)
        xh += pv
        xh ^= pv
        xh |= eq
        np.bitwise_or(xh, pv, out=ph)
        np.invert(ph, out=ph)
        ph |= mv
        np.bitwise_and(pv, xh, out=mh)
        j = step - last
        if 0 <= j < longest:  # the last row's score, for the pairs whose text reaches j
            count = active[j]
            score[:count] += ((ph[last, :count] >> bit[:count]) & _ONE).view(np.int64)
            score[:count] -= ((mh[last, :count] >> bit[:count]) & _ONE).view(np.int64)
        np.right_shift(ph, _TOP, out=out_plus)
        np.right_shift(mh, _TOP, out=out_minus)
        ph <<= _ONE
        ph |= h_plus
        mh <<= _ONE
        mh |= h_minus
        np.bitwise_or(xv, ph, out=pv)
        np.invert(pv, out=pv)
        pv |= mh
        np.bitwise_and(ph, xv, out=mv)
        h_plus[1:] = out_plus[:-1]
        h_minus[1:] = out_minus[:-1]
    return score


def levenshtein_pairs(
    codes: TextCodes, left: NDArray[np.intp], right: NDArray[np.intp]
) -> NDArray[np.int64]:
    """Levenshtein distances of texts ``left[i]`` and ``right[i]`` of ``codes``.

    Examples
    --------
    >>> codes = TextCodes.encode(["kitten", "sitting", "", "Saturday", "Sunday"])
    >>> levenshtein_pairs(codes, np.array([0, 2, 3, 0]), np.array([1, 1, 4, 0])).tolist()
    [3, 7, 3, 0]
    """
    left = np.asarray(left, dtype=np.intp).ravel()
    right = np.asarray(right, dtype=np.intp).ravel()
    swap = codes.lengths[left] > codes.lengths[right]
    a, b = np.where(swap, right, left), np.where(swap, left, right)
    prefix, suffix = _affixes(codes, a, b)
    m = codes.lengths[a] - prefix - suffix
    n = codes.lengths[b] - prefix - suffix
    out = n.astype(np.int64)
    todo = np.flatnonzero(m > 0)
    if not todo.size:
        return out
    words = (m[todo] + 63) // 64
    order = todo[np.lexsort((-n[todo], words))]
    words = words[np.lexsort((-n[todo], words))]
    group_starts = np.flatnonzero(np.r_[True, words[1:] != words[:-1]])
    for g, begin in enumerate(group_starts):
        stop = group_starts[g + 1] if g + 1 < group_starts.size else order.size
        group = order[begin:stop]
        width = int(words[begin])
        longest = int(n[group].max())
        # Bounded by the text window (steps × pairs) and the Peq table (words × pairs × letters).
        size = min(
            _BATCH,
            _BUDGET // ((longest + 2 * width) * 4),
            _BUDGET // (width * (codes.alphabet + 1)),
        )
        size = max(1, size)
        for start in range(0, group.size, size):
            batch = group[start : start + size]  # already in decreasing n
            out[batch] = _myers(
                codes,
                codes.offsets[a[batch]] + prefix[batch],
                m[batch],
                codes.offsets[b[batch]] + prefix[batch],
                n[batch],
                width,
            )
    return out


def normalized_levenshtein_pairs(
    codes: TextCodes, left: NDArray[np.intp], right: NDArray[np.intp]
) -> NDArray[np.float64]:
    """Levenshtein distance over the longer text's length (0 for two empty texts).

    Examples
    --------
    >>> codes = TextCodes.encode(["kitten", "sitting", ""])
    >>> normalized_levenshtein_pairs(codes, np.array([0, 2]), np.array([1, 2])).tolist()
    [0.42857142857142855, 0.0]
    """
    left = np.asarray(left, dtype=np.intp).ravel()
    right = np.asarray(right, dtype=np.intp).ravel()
    longer = np.maximum(codes.lengths[left], codes.lengths[right])
    distance = levenshtein_pairs(codes, left, right).astype(np.float64)
    return np.divide(distance, longer, out=np.zeros_like(distance), where=longer > 0)


def levenshtein(first: str, second: str) -> int:
    """The Levenshtein distance of two texts.

    Examples
    --------
    >>> levenshtein("kitten", "sitting"), levenshtein("", "abc"), levenshtein("Ab", "ab")
    (3, 3, 1)
    """
    codes = TextCodes.encode([first, second])
    return int(levenshtein_pairs(codes, np.array([0]), np.array([1]))[0])


def normalized_levenshtein(first: str, second: str) -> float:
    """The Levenshtein distance over the longer text's length; 0 for two empty texts.

    Examples
    --------
    >>> normalized_levenshtein("kitten", "sitting"), normalized_levenshtein("", "")
    (0.42857142857142855, 0.0)
    """
    codes = TextCodes.encode([first, second])
    return float(normalized_levenshtein_pairs(codes, np.array([0]), np.array([1]))[0])
