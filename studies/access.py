"""Who may do what in which study.

An *actor* is what made a request: a user (session or personal token) or a labeling
tool's study token. Every study is private: an actor that is not a member sees nothing
of it (the API answers 404, as if it did not exist). Rights grow with the role:

- viewer: read everything in the study;
- annotator: also write items, coders and annotations;
- manager: also change the study, its label scheme, rounds, members and tokens.

Granting rights follows three rules (docs/security.md):

- nobody grants a role above their own (:func:`grant_refusal`);
- members and tokens are managed by people: a study token, whatever its role, cannot
  create tokens or add, change or remove members (:func:`person_refusal`);
- a token never mints a token that outlives it (:func:`token_expiry_ceiling`).

A token past its ``expires_at`` authenticates nothing (:func:`ensure_token_usable`).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from rest_framework import exceptions

from studies.models import ApiToken, Membership, Role, Study

_RANK = {Role.VIEWER: 0, Role.ANNOTATOR: 1, Role.MANAGER: 2}


@dataclass(frozen=True)
class Actor:
    """A user, a study token, or both (a personal token is a user acting through a token)."""

    user: Any | None
    token: ApiToken | None

    @property
    def study_token(self) -> ApiToken | None:
        return self.token if self.token is not None and self.token.study_id else None

    @property
    def audit_user(self) -> Any | None:
        """The user to record in change logs (None for a study token)."""
        return self.user if self.study_token is None else None


def actor_from_request(request: Any) -> Actor:
    token = request.auth if isinstance(getattr(request, "auth", None), ApiToken) else None
    if token is not None and token.study_id:
        return Actor(user=None, token=token)
    user = request.user if getattr(request.user, "is_authenticated", False) else None
    return Actor(user=user, token=token)


def study_role(actor: Actor, study: Study | int) -> Role | None:
    """The actor's role in the study, or None when it is not a member."""
    study_id = study if isinstance(study, int) else study.pk
    if actor.study_token is not None:
        token = actor.study_token
        return Role(token.role) if token.study_id == study_id else None
    if actor.user is None:
        return None
    role = (
        Membership.objects.filter(study_id=study_id, user=actor.user)
        .values_list("role", flat=True)
        .first()
    )
    return Role(role) if role is not None else None


def role_allows(role: Role | None, needed: Role) -> bool:
    return role is not None and _RANK[role] >= _RANK[needed]


def studies_visible_to(actor: Actor) -> QuerySet[Study]:
    """Studies the actor is a member of (a study token: its one study)."""
    if actor.study_token is not None:
        return Study.objects.filter(api_tokens=actor.study_token)
    if actor.user is None:
        return Study.objects.none()
    return Study.objects.filter(memberships__user=actor.user)


def grant_refusal(own: Role | None, granted: Role | str) -> str | None:
    """Why an actor with role ``own`` may not grant ``granted`` (None: it may).

    Equal is the ceiling: a manager may make managers, an annotator could at most
    grant annotator or viewer (the API lets only managers grant at all).

    >>> grant_refusal(Role.ANNOTATOR, Role.MANAGER)
    'Your role (annotator) cannot grant the role manager: nobody grants a role above their own.'
    >>> grant_refusal(Role.MANAGER, Role.MANAGER) is None
    True
    """
    granted = Role(granted)
    if own is None:
        return "Only members of the study can grant roles in it."
    if _RANK[granted] > _RANK[own]:
        return (
            f"Your role ({own.value}) cannot grant the role {granted.value}: "
            "nobody grants a role above their own."
        )
    return None


def person_refusal(actor: Actor) -> str | None:
    """Why the actor may not manage members or tokens (None: it may).

    A study token is a labeling tool's key; whatever its role, it cannot create tokens or
    add, change or remove members, so a leaked token cannot make itself permanent.
    """
    if actor.study_token is not None:
        return (
            "A study token cannot manage members or tokens, whatever its role; "
            "a manager signed in (or with a personal token) must do it."
        )
    return None


def token_expiry_ceiling(actor: Actor) -> datetime | None:
    """The latest expiry a token created by this actor may have (None: no limit).

    A request authenticated by a token that expires cannot create a token that outlives it.
    """
    return actor.token.expires_at if actor.token is not None else None


def ensure_token_usable(token: ApiToken, *, now: datetime | None = None) -> None:
    """Refuse an expired token with a 401 that says so (``token_expired``).

    Called by ``ApiTokenAuthentication`` once the token is found and not revoked.
    """
    expires_at = token.expires_at
    if expires_at is not None and expires_at <= (now or timezone.now()):
        raise exceptions.AuthenticationFailed(
            f"This token expired at {expires_at.isoformat(timespec='seconds')}; "
            "ask a manager of the study (or create yourself) a new one.",
            code="token_expired",
        )
