"""API tokens: a study token for a labeling tool, or a user's personal token.

The plain secret exists only in the return value of a create: it is stored hashed.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from studies.exceptions import ConflictError
from studies.models import ApiToken, Role, Study


class TokenErrorCode:
    ALREADY_REVOKED = "already_revoked"


def _token_create(
    *, name: str, user: Any | None, study: Study | None, role: str, created_by: Any | None
) -> tuple[ApiToken, str]:
    secret = ApiToken.generate_secret()
    token = ApiToken(
        name=name,
        user=user,
        study=study,
        role=role,
        created_by=created_by,
        prefix=secret[: ApiToken.PREFIX_LENGTH],
        key_hash=ApiToken.hash_secret(secret),
    )
    token.full_clean(exclude=["created_by"])
    token.save()
    return token, secret


@transaction.atomic
def study_token_create(
    *, study: Study, name: str, role: str = Role.ANNOTATOR, created_by: Any | None = None
) -> tuple[ApiToken, str]:
    """A token acting in ``study`` with ``role``; returns it with its plain secret."""
    return _token_create(name=name, user=None, study=study, role=role, created_by=created_by)


@transaction.atomic
def personal_token_create(*, user: Any, name: str) -> tuple[ApiToken, str]:
    """A token acting as ``user``; returns it with its plain secret."""
    # A personal token acts as its user: the role field does not apply to it.
    return _token_create(name=name, user=user, study=None, role=Role.ANNOTATOR, created_by=user)


@transaction.atomic
def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke for good: the secret stops authenticating at once."""
    if token.revoked_at is not None:
        raise ConflictError("This token is already revoked.", code=TokenErrorCode.ALREADY_REVOKED)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    return token
