"""Krippendorff's alpha on relations: does each coder relate the same unit pairs, the same way?

The *items* are the candidate pairs: every ordered pair of aligned units (head, tail) that
any coder related in a document (an undirected label's pair in document order), the units
aligned across coders as the span kind matches them
(:mod:`~metrics.structured.relations._alignment`). Every coder who annotated the document
gives each of its candidate pairs a value: the label of its relation between those units,
or **no relation** (also when the coder did not mark one of the units; a coder who relates
one pair with two labels gives the set of both). Alpha is nominal alpha on those values
(Artstein & Poesio 2008, §2.6), so a candidate pair that one coder relates and another
does not is a disagreement, and agreeing on "no relation" between units nobody related is
not counted (those pairs are not candidates).

Unlike relation F1 it is corrected for chance: the expected disagreement comes from how
often coders use each label and "no relation" over all candidate pairs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from metrics.coefficients.alpha import decompose_krippendorff_alpha, krippendorff_alpha
from metrics.data import ReliabilityData
from metrics.decomposition import Decomposition
from metrics.structured.relations._alignment import Match, aligned_units
from metrics.structured.relations.data import RelationData

#: The value of a candidate pair a coder did not relate.
NO_RELATION = "no relation"

__all__ = [
    "NO_RELATION",
    "RelationAlpha",
    "decompose_relation_alpha",
    "relation_alpha",
    "relation_reliability_data",
]


@dataclass(frozen=True)
class RelationAlpha:
    """Alpha on relations: ``value = 1 - observed / expected``; ``candidate_pairs`` items, of
    which ``pairable`` have two coders or more; the alignment's ``match`` and
    ``min_overlap``."""

    value: float
    observed: float
    expected: float
    candidate_pairs: int
    pairable: int
    match: str
    min_overlap: float


def relation_reliability_data(
    data: RelationData, *, match: Match = "overlap", min_overlap: float = 0.5
) -> tuple[ReliabilityData, np.ndarray]:
    """The candidate pairs as reliability data (values: ``NO_RELATION``, a label, or a tuple
    of labels), and each candidate pair's document.

    Examples
    --------
    >>> data = RelationData.from_long(["d", "d", "d"], ["a", "a", "b"], [0, 0, 0], [2, 2, 2],
    ...                               [5, 9, 5], [7, 11, 7], ["r", "s", "r"])
    >>> reliability, document = relation_reliability_data(data)
    >>> reliability.codes.tolist(), reliability.domain
    ([[1, 2], [1, 0]], ('no relation', 'r', 's'))
    """
    if match not in ("exact", "overlap"):
        raise ValueError(f"match must be 'exact' or 'overlap'; got {match!r}.")
    if not 0.0 <= float(min_overlap) <= 1.0:
        raise ValueError(f"min_overlap must be between 0 and 1; got {min_overlap!r}.")
    component = aligned_units(data, match, min_overlap)
    head, tail = component[data.head], component[data.tail]
    symmetric = data.undirected[data.label]
    head, tail = (
        np.where(symmetric, np.minimum(head, tail), head),
        np.where(symmetric, np.maximum(head, tail), tail),
    )
    n_units = np.int64(max(data.n_units, 1))
    pairs, item = np.unique(head.astype(np.int64) * n_units + tail, return_inverse=True)
    item = item.astype(np.intp).ravel()
    n_items = pairs.size
    item_document = np.zeros(n_items, dtype=np.intp)
    item_document[item] = data.document
    # Each coder annotating an item's document gives it a value; "no relation" by default.
    value_item, value_coder = np.nonzero(data.annotated[item_document])
    n_coders = max(data.n_coders, 1)
    value_keys = value_item.astype(np.int64) * n_coders + value_coder
    relation_keys = item.astype(np.int64) * n_coders + data.coder
    groups, group = np.unique(relation_keys, return_inverse=True)
    group = group.ravel()
    size = np.bincount(group, minlength=groups.size)
    labels = data.labels
    domain: list[object] = [NO_RELATION, *labels]
    group_value = np.zeros(groups.size, dtype=np.intp)
    single = size == 1
    first = np.zeros(groups.size, dtype=np.intp)
    first[group[::-1]] = np.arange(group.size)[::-1]  # any relation of the group
    group_value[single] = data.label[first[single]] + 1
    if (~single).any():  # a coder relating one pair with several labels: the set of them
        combined: dict[tuple[object, ...], int] = {}
        order = np.argsort(group, kind="stable")
        starts = np.concatenate([[0], np.cumsum(size)])
        for g in np.flatnonzero(~single).tolist():
            members = order[starts[g] : starts[g + 1]]
            names = tuple(sorted(labels[k] for k in data.label[members].tolist()))  # type: ignore[type-var]
            if names not in combined:
                combined[names] = len(domain)
                domain.append(names)
            group_value[g] = combined[names]
    value = np.zeros(value_keys.size, dtype=np.intp)
    value[np.searchsorted(value_keys, groups)] = group_value
    reliability = ReliabilityData.from_codes(
        value_item, value_coder, value, domain, range(n_items), data.coders
    )
    return reliability, item_document


def relation_alpha(
    data: RelationData, *, match: Match = "overlap", min_overlap: float = 0.5
) -> RelationAlpha:
    """Nominal alpha on the candidate pairs' values (see the module docstring).

    Parameters
    ----------
    data : RelationData
    match : {"exact", "overlap"}, default "overlap"
        How units are aligned across coders: identical spans, or span F1's maximum matching
        by overlap.
    min_overlap : float, default 0.5
        IoU two units need to be aligned (``match="overlap"``).

    Raises
    ------
    ValueError
        No candidate pair annotated by two coders; every value the same (``D_e = 0``).

    Examples
    --------
    Two coders, one document; both relate unit 1 to unit 2 (r); only ``a`` relates unit 1 to
    unit 3 (s). Candidate pairs (1, 2): (r, r) and (1, 3): (s, no relation). Values r ×2,
    s ×1, none ×1 (n = 4): D_o = 2/4, D_e = (16 - 4 - 1 - 1)/12 = 10/12, alpha = 1 - 0.6 = 0.4.

    >>> data = RelationData.from_long(["d", "d", "d"], ["a", "a", "b"], [0, 0, 0], [2, 2, 2],
    ...                               [5, 9, 5], [7, 11, 7], ["r", "s", "r"])
    >>> round(relation_alpha(data).value, 12)
    0.4
    """
    reliability, _ = relation_reliability_data(data, match=match, min_overlap=min_overlap)
    result = krippendorff_alpha(reliability)
    return RelationAlpha(
        value=result.value,
        observed=result.observed,
        expected=result.expected,
        candidate_pairs=reliability.n_items,
        pairable=result.n_pairable_items,
        match=match,
        min_overlap=float(min_overlap) if match == "overlap" else 0.0,
    )


def decompose_relation_alpha(
    data: RelationData, *, match: Match = "overlap", min_overlap: float = 0.5
) -> Decomposition:
    """Relation alpha as ``finalize(sum of per-document rows)``, for the bootstrap over
    documents: the candidate pairs' rows of :func:`metrics.decompose_krippendorff_alpha`,
    summed per document (a document is resampled with all its candidate pairs)."""
    reliability, item_document = relation_reliability_data(
        data, match=match, min_overlap=min_overlap
    )
    by_item = decompose_krippendorff_alpha(reliability)
    grouping = sparse.csr_matrix(
        (np.ones(item_document.size), (item_document, np.arange(item_document.size))),
        shape=(data.n_documents, item_document.size),
    )
    rows = grouping @ by_item.item_stats
    return by_item.with_rows(sparse.csr_matrix(rows) if sparse.issparse(rows) else np.asarray(rows))
