"""Members of a study: add by username, change roles, remove. A study keeps a manager."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from studies.exceptions import ConflictError
from studies.models import Membership, Role, Study


class MembershipErrorCode:
    UNKNOWN_USER = "unknown_user"
    ALREADY_MEMBER = "already_member"
    LAST_MANAGER = "last_manager"


def _other_managers(membership: Membership) -> bool:
    return (
        Membership.objects.select_for_update()
        .filter(study_id=membership.study_id, role=Role.MANAGER)
        .exclude(pk=membership.pk)
        .exists()
    )


@transaction.atomic
def membership_add(*, study: Study, username: str, role: str = Role.VIEWER) -> Membership:
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ValidationError(
            {"username": ValidationError("No user has this username.", code="unknown_user")}
        )
    if Membership.objects.filter(study=study, user=user).exists():
        raise ValidationError(
            {
                "username": ValidationError(
                    "This user is already a member; change the role instead.",
                    code=MembershipErrorCode.ALREADY_MEMBER,
                )
            }
        )
    membership = Membership(study=study, user=user, role=role)
    membership.full_clean()
    membership.save()
    return membership


@transaction.atomic
def membership_update(*, membership: Membership, role: str) -> Membership:
    if membership.role == Role.MANAGER and role != Role.MANAGER and not _other_managers(membership):
        raise ConflictError(
            "The study's last manager cannot give up the role; make someone else manager first.",
            code=MembershipErrorCode.LAST_MANAGER,
        )
    membership.role = role
    membership.full_clean()
    membership.save()
    return membership


@transaction.atomic
def membership_remove(*, membership: Membership) -> None:
    if membership.role == Role.MANAGER and not _other_managers(membership):
        raise ConflictError(
            "The study's last manager cannot be removed; make someone else manager first.",
            code=MembershipErrorCode.LAST_MANAGER,
        )
    membership.delete()
