"""Who may do what in which study.

An *actor* is what made a request: a user (session or personal token) or a labeling
tool's study token. Every study is private: an actor that is not a member sees nothing
of it (the API answers 404, as if it did not exist). Rights grow with the role:

- viewer: read everything in the study;
- annotator: also write items, coders and annotations;
- manager: also change the study, its label scheme, rounds, members and tokens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

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
