"""Apply a review rule to a round's labels: one vectorised pass, grouped by item with numpy.

The input is one row per annotation (item id, label code); the output names the flagged
items, why, how many coders labelled each, and the share of each item's coder pairs that
agree. Label codes are any integers that are equal exactly when the labels are.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

REASONS = ("disagreement", "few_coders", "low_agreement")


@dataclass(frozen=True)
class FlaggedItems:
    """Flagged items in ascending id order, with per item: the reasons (comma-separated, in
    the order of ``REASONS``), the number of coders and the share of agreeing pairs (nan
    with fewer than two coders)."""

    item_ids: NDArray[np.int64]
    reasons: list[str]
    n_coders: NDArray[np.int64]
    agreement: NDArray[np.float64]


def flag_items(
    item_ids: NDArray[np.int64],
    label_codes: NDArray[np.int64],
    *,
    disagreement: bool = False,
    min_coders: int | None = None,
    max_item_agreement: float | None = None,
) -> FlaggedItems:
    """The items that match any criterion of the rule.

    Parameters
    ----------
    item_ids, label_codes
        One row per annotation (one coder's label of one item).
    disagreement
        Flag items whose coders gave more than one distinct label.
    min_coders
        Flag items labelled by fewer coders than this.
    max_item_agreement
        Flag items whose share of agreeing coder pairs is at most this.

    Examples
    --------
    >>> flagged = flag_items(np.array([1, 1, 2, 2]), np.array([0, 1, 0, 0]), disagreement=True)
    >>> flagged.item_ids.tolist(), flagged.reasons
    ([1], ['disagreement'])
    """
    if len(item_ids) != len(label_codes):
        raise ValueError("item_ids and label_codes must have one row per annotation each.")
    if max_item_agreement is not None and not 0 <= max_item_agreement <= 1:
        raise ValueError("max_item_agreement is a share of coder pairs, from 0 to 1.")
    items, item_index = np.unique(np.asarray(item_ids, dtype=np.int64), return_inverse=True)
    _, label_index = np.unique(np.asarray(label_codes), return_inverse=True)
    n_items = len(items)
    n_labels = int(label_index.max()) + 1 if len(label_index) else 1
    n = np.bincount(item_index, minlength=n_items).astype(np.int64)
    # Each (item, label) pair once, with how many coders gave that label to that item.
    pair_keys, pair_counts = np.unique(
        item_index.astype(np.int64) * n_labels + label_index, return_counts=True
    )
    pair_item = pair_keys // n_labels
    distinct = np.bincount(pair_item, minlength=n_items)
    agreeing = np.bincount(pair_item, weights=pair_counts * (pair_counts - 1.0), minlength=n_items)
    pairs = n * (n - 1.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        agreement = np.where(pairs > 0, agreeing / pairs, np.nan)
    matches = np.zeros((len(REASONS), n_items), dtype=bool)
    if disagreement:
        matches[0] = distinct > 1
    if min_coders is not None:
        matches[1] = n < min_coders
    if max_item_agreement is not None:
        matches[2] = (pairs > 0) & (agreement <= max_item_agreement)
    flagged = matches.any(axis=0)
    reasons = [
        ",".join(name for name, hit in zip(REASONS, column, strict=True) if hit)
        for column in matches[:, flagged].T
    ]
    return FlaggedItems(
        item_ids=items[flagged],
        reasons=reasons,
        n_coders=n[flagged],
        agreement=agreement[flagged],
    )
