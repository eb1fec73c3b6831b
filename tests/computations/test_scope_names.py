"""Coder keys and item ids are looked up in IN lists of bounded length (SQLite refuses more
than 32,766 parameters in one statement; a crowd scope has thousands of coders)."""

from __future__ import annotations

import pytest

from computations import scope
from computations.item_table import sorted_coder_keys
from studies.models import Study
from tests.factories import CoderFactory, ItemFactory

pytestmark = pytest.mark.django_db


def test_names_are_read_in_batches_and_all_come_back(
    study: Study, monkeypatch: pytest.MonkeyPatch, django_assert_num_queries: object
) -> None:
    coders = [CoderFactory(study=study, key=f"w{i}") for i in range(5)]
    items = [ItemFactory(study=study, external_id=f"t{i}") for i in range(3)]
    monkeypatch.setattr(scope, "IN_LIST_MAX", 2)
    with django_assert_num_queries(3):  # type: ignore[operator]
        keys = scope.coder_keys([c.pk for c in reversed(coders)])
    assert keys == {c.pk: f"w{i}" for i, c in enumerate(coders)}
    assert scope.item_external_ids([i.pk for i in items]) == {
        item.pk: f"t{i}" for i, item in enumerate(items)
    }
    assert sorted_coder_keys([c.pk for c in coders]) == ["w0", "w1", "w2", "w3", "w4"]
