"""The review rule on a literal small table; expected flags and shares written out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from review.rule import flag_items

# Item 10: coders a, a, b -> disagree; pairs agreeing 1 of 3 -> 1/3.
# Item 11: a, a, a -> agree; 3 of 3 -> 1.
# Item 12: b (one coder) -> no pairs.
# Item 13: a, b -> disagree; 0 of 1 -> 0.
ITEMS = np.array([10, 10, 10, 11, 11, 11, 12, 13, 13])
LABELS = np.array([0, 0, 1, 0, 0, 0, 1, 0, 1])


def test_disagreement_flags_items_with_more_than_one_label() -> None:
    flagged = flag_items(ITEMS, LABELS, disagreement=True)
    assert flagged.item_ids.tolist() == [10, 13]
    assert flagged.reasons == ["disagreement", "disagreement"]
    assert flagged.n_coders.tolist() == [3, 2]
    assert flagged.agreement.tolist() == pytest.approx([1 / 3, 0.0])


def test_min_coders_flags_items_with_fewer_coders() -> None:
    flagged = flag_items(ITEMS, LABELS, min_coders=3)
    assert flagged.item_ids.tolist() == [12, 13]
    assert flagged.reasons == ["few_coders", "few_coders"]
    assert np.isnan(flagged.agreement[0])


def test_max_item_agreement_flags_items_at_or_below_the_share() -> None:
    flagged = flag_items(ITEMS, LABELS, max_item_agreement=1 / 3)
    assert flagged.item_ids.tolist() == [10, 13]
    assert flagged.reasons == ["low_agreement", "low_agreement"]


def test_an_item_lists_every_criterion_it_matches() -> None:
    flagged = flag_items(ITEMS, LABELS, disagreement=True, min_coders=3, max_item_agreement=0.0)
    assert flagged.item_ids.tolist() == [10, 12, 13]
    assert flagged.reasons == [
        "disagreement",
        "few_coders",
        "disagreement,few_coders,low_agreement",
    ]


def test_text_labels_and_no_criterion() -> None:
    labels = np.array(["yes", "yes", "no", "yes", "yes", "yes", "no", "yes", "no"])
    assert flag_items(ITEMS, labels, disagreement=True).item_ids.tolist() == [10, 13]
    assert flag_items(ITEMS, labels).item_ids.tolist() == []
    assert flag_items(np.array([], dtype=np.int64), np.array([]), disagreement=True).reasons == []


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError, match="one row per annotation"):
        flag_items(ITEMS, LABELS[:-1])
    with pytest.raises(ValueError, match="from 0 to 1"):
        flag_items(ITEMS, LABELS, max_item_agreement=1.5)
