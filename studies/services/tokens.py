"""API tokens: a study token for a labeling tool, or a user's personal token.

The plain secret exists only in the return value of a create: it is stored hashed. A token
may expire (``expires_at``); ``not_after`` caps that expiry, so that a request made with an
expiring token cannot create one that outlives it (``studies.access.token_expiry_ceiling``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from studies.exceptions import ConflictError
from studies.models import ApiToken, Role, Study


class TokenErrorCode:
    ALREADY_REVOKED = "already_revoked"
    EXPIRY_IN_PAST = "expiry_in_past"
    EXPIRY_BEYOND_OWN = "expiry_beyond_own"


def token_expiry(*, expires_at: datetime | None, not_after: datetime | None) -> datetime | None:
    """The expiry a new token gets: ``expires_at``, in the future and not after ``not_after``.

    With no ``expires_at``, the token expires at ``not_after`` (None: never).
    """
    if expires_at is not None and expires_at <= timezone.now():
        raise ValidationError(
            {
                "expires_at": ValidationError(
                    "expires_at must be in the future.", code=TokenErrorCode.EXPIRY_IN_PAST
                )
            }
        )
    if not_after is None:
        return expires_at
    if expires_at is None:
        return not_after
    if expires_at > not_after:
        raise ValidationError(
            {
                "expires_at": ValidationError(
                    "A token cannot outlive the token that creates it: expires_at must be at "
                    f"or before {not_after.isoformat(timespec='seconds')}.",
                    code=TokenErrorCode.EXPIRY_BEYOND_OWN,
                )
            }
        )
    return expires_at


def _token_create(
    *,
    name: str,
    user: Any | None,
    study: Study | None,
    role: str,
    created_by: Any | None,
    expires_at: datetime | None,
    not_after: datetime | None,
) -> tuple[ApiToken, str]:
    secret = ApiToken.generate_secret()
    token = ApiToken(
        name=name,
        user=user,
        study=study,
        role=role,
        created_by=created_by,
        expires_at=token_expiry(expires_at=expires_at, not_after=not_after),
        prefix=secret[: ApiToken.PREFIX_LENGTH],
        key_hash=ApiToken.hash_secret(secret),
    )
    token.full_clean(exclude=["created_by"])
    token.save()
    return token, secret


@transaction.atomic
def study_token_create(
    *,
    study: Study,
    name: str,
    role: str = Role.ANNOTATOR,
    created_by: Any | None = None,
    expires_at: datetime | None = None,
    not_after: datetime | None = None,
) -> tuple[ApiToken, str]:
    """A token acting in ``study`` with ``role``; returns it with its plain secret.

    Who may grant ``role`` is the caller's business (``studies.access.grant_refusal``).
    """
    return _token_create(
        name=name,
        user=None,
        study=study,
        role=role,
        created_by=created_by,
        expires_at=expires_at,
        not_after=not_after,
    )


@transaction.atomic
def personal_token_create(
    *,
    user: Any,
    name: str,
    expires_at: datetime | None = None,
    not_after: datetime | None = None,
) -> tuple[ApiToken, str]:
    """A token acting as ``user``; returns it with its plain secret."""
    # A personal token acts as its user: the role field does not apply to it.
    return _token_create(
        name=name,
        user=user,
        study=None,
        role=Role.ANNOTATOR,
        created_by=user,
        expires_at=expires_at,
        not_after=not_after,
    )


@transaction.atomic
def token_revoke(*, token: ApiToken) -> ApiToken:
    """Revoke for good: the secret stops authenticating at once."""
    if token.revoked_at is not None:
        raise ConflictError("This token is already revoked.", code=TokenErrorCode.ALREADY_REVOKED)
    token.revoked_at = timezone.now()
    token.save(update_fields=["revoked_at"])
    return token
