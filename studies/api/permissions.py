"""Study-scoped views: resolve the study from the URL, hide it from non-members (404),
and require the role each action needs."""

from __future__ import annotations

from typing import Any, ClassVar

from django.http import Http404
from django.utils.functional import cached_property
from rest_framework import exceptions
from rest_framework.request import Request

from studies.access import Actor, actor_from_request, person_refusal, role_allows, study_role
from studies.api.query import QueryParametersMixin
from studies.models import Role, Study

READ_ACTIONS = frozenset({"list", "retrieve", "metadata"})


class StudyScopedMixin(QueryParametersMixin):
    """For views under ``/studies/{study_pk}/``.

    ``write_role`` is the role needed for any action that is not a read; override
    ``action_roles`` to ask more (or less) for particular actions. ``person_actions`` are
    those a study token may never do, whatever its role (managing members and tokens).
    Query parameters are those each action declares (``QueryParametersMixin``).
    """

    write_role: ClassVar[Role] = Role.MANAGER
    action_roles: ClassVar[dict[str, Role]] = {}
    person_actions: ClassVar[frozenset[str]] = frozenset()

    request: Request
    kwargs: dict[str, Any]
    action: str | None

    @cached_property
    def actor(self) -> Actor:
        return actor_from_request(self.request)

    @cached_property
    def study(self) -> Study:
        study_pk = self.kwargs.get("study_pk")
        try:
            study = Study.objects.get(pk=int(study_pk))  # type: ignore[arg-type]
        except (Study.DoesNotExist, TypeError, ValueError):
            raise Http404("No such study.") from None
        if self.study_role_of_actor(study) is None:
            raise Http404("No such study.")
        return study

    def study_role_of_actor(self, study: Study) -> Role | None:
        return study_role(self.actor, study)

    def required_role(self) -> Role:
        action = self.action or ""
        if action in self.action_roles:
            return self.action_roles[action]
        if action in READ_ACTIONS or self.request.method in ("GET", "HEAD", "OPTIONS"):
            return Role.VIEWER
        return self.write_role

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)  # type: ignore[misc]
        if getattr(self, "swagger_fake_view", False):
            return
        role = self.study_role_of_actor(self.study)
        if not role_allows(role, self.required_role()):
            raise exceptions.PermissionDenied(
                f"Your role in this study ({role}) cannot do this; it needs "
                f"{self.required_role().value} or above."
            )
        if self.action in self.person_actions:
            refusal = person_refusal(self.actor)
            if refusal is not None:
                raise exceptions.PermissionDenied(refusal)

    def query_serializer_context(self) -> dict[str, Any]:
        return {**super().query_serializer_context(), "study": self.study}
