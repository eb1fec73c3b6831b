"""studies.services.membership, study and tokens."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from studies.access import Actor
from studies.exceptions import ApplicationError, ConflictError
from studies.models import ApiToken, Membership, Role
from studies.services import membership, study, tokens
from tests.factories import (
    AnnotationFactory,
    ApiTokenFactory,
    CategoryFactory,
    MembershipFactory,
    StudyFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def test_study_create_makes_the_user_manager() -> None:
    user = UserFactory()
    created = study.study_create(actor=Actor(user=user, token=None), name="S")
    assert Membership.objects.get(study=created, user=user).role == Role.MANAGER


def test_study_create_refuses_a_study_token() -> None:
    token = ApiTokenFactory(study=StudyFactory(), user=None)
    with pytest.raises(ApplicationError) as caught:
        study.study_create(actor=Actor(user=None, token=token), name="S")
    assert caught.value.code == "study_token_cannot_create"


def test_study_delete_removes_annotations_and_category_trees() -> None:
    annotation = AnnotationFactory()
    CategoryFactory(question=annotation.question, parent=annotation.category)
    study.study_delete(study=annotation.question.study)
    assert not type(annotation).objects.exists()


def test_membership_add_refuses_unknown_users() -> None:
    with pytest.raises(ValidationError):
        membership.membership_add(study=StudyFactory(), username="nobody")


def test_the_last_manager_stays() -> None:
    only = MembershipFactory(role=Role.MANAGER)
    with pytest.raises(ConflictError):
        membership.membership_remove(membership=only)
    MembershipFactory(study=only.study, role=Role.MANAGER)
    membership.membership_update(membership=only, role=Role.VIEWER)
    only.refresh_from_db()
    assert only.role == Role.VIEWER


def test_token_create_stores_only_a_hash_and_revoke_is_final() -> None:
    token, secret = tokens.study_token_create(study=StudyFactory(), name="tool")
    stored = ApiToken.objects.get(pk=token.pk)
    assert stored.key_hash == ApiToken.hash_secret(secret)
    assert secret not in {stored.key_hash, stored.prefix, stored.name}
    tokens.token_revoke(token=stored)
    with pytest.raises(ConflictError):
        tokens.token_revoke(token=stored)
