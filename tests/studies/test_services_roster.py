"""studies.services.roster: coders and items, bulk all-or-none."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from studies.exceptions import ConflictError
from studies.models import Coder, Item
from studies.services import roster
from tests.factories import (
    AnnotationFactory,
    CoderFactory,
    MembershipFactory,
    StudyFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def test_coders_create_bulk_links_members_by_username() -> None:
    study = StudyFactory()
    user = UserFactory(username="ann")
    MembershipFactory(study=study, user=user)
    coders = roster.coders_create_bulk(
        study=study, coders=[{"key": "a", "username": "ann"}, {"key": "b"}]
    )
    assert [(c.key, c.user) for c in coders] == [("a", user), ("b", None)]


def test_coders_create_bulk_writes_nothing_when_one_entry_is_bad() -> None:
    study = StudyFactory()
    CoderFactory(study=study, key="old")
    with pytest.raises(ValidationError) as caught:
        roster.coders_create_bulk(
            study=study, coders=[{"key": "new"}, {"key": "old"}, {"key": "x", "username": "nobody"}]
        )
    assert set(caught.value.error_dict) == {"1.key", "2.username"}
    assert list(Coder.objects.filter(study=study).values_list("key", flat=True)) == ["old"]


def test_items_create_bulk_reports_duplicates_within_the_request() -> None:
    study = StudyFactory()
    with pytest.raises(ValidationError) as caught:
        roster.items_create_bulk(study=study, items=[{"external_id": "a"}, {"external_id": "a"}])
    assert list(caught.value.error_dict) == ["1.external_id"]
    assert not Item.objects.exists()


def test_coder_delete_refuses_a_coder_with_annotations() -> None:
    coder = AnnotationFactory().coder
    with pytest.raises(ConflictError):
        roster.coder_delete(coder=coder)


def test_coder_update_unlinks_the_user_with_none() -> None:
    coder = CoderFactory(user=UserFactory())
    assert roster.coder_update(coder=coder, username=None).user is None
