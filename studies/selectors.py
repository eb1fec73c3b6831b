"""Reads for the API and pages: querysets scoped to a study, with their joins prepared."""

from __future__ import annotations

from typing import Any

from django.db.models import CharField, OuterRef, Prefetch, QuerySet, Subquery, Value

from studies.access import Actor, studies_visible_to
from studies.models import (
    ApiToken,
    Category,
    Coder,
    Item,
    Membership,
    Question,
    Round,
    Study,
)


def study_list(*, actor: Actor) -> QuerySet[Study]:
    """The studies the actor is a member of, by name, each with ``actor_role``: the
    actor's role in it (one subquery, not one query per study)."""
    studies = studies_visible_to(actor).order_by("name", "id").distinct()
    if actor.study_token is not None:
        return studies.annotate(actor_role=Value(actor.study_token.role, CharField()))
    role = Membership.objects.filter(study=OuterRef("pk"), user=actor.user).values("role")[:1]
    return studies.annotate(actor_role=Subquery(role))


def question_list(*, study: Study) -> QuerySet[Question]:
    # Categories are serialized inline with each question: one query for all of them.
    return (
        Question.objects.filter(study=study)
        .order_by("position", "id")
        .prefetch_related(
            Prefetch(
                "categories",
                queryset=Category.objects.select_related("parent").order_by("position", "id"),
            )
        )
    )


def category_list(*, question: Question) -> QuerySet[Category]:
    # The parent's code is part of each category's output.
    return (
        Category.objects.filter(question=question)
        .select_related("parent")
        .order_by("position", "id")
    )


def coder_list(*, study: Study) -> QuerySet[Coder]:
    # Each coder shows its linked user's username.
    return Coder.objects.filter(study=study).select_related("user").order_by("key", "id")


def item_list(*, study: Study) -> QuerySet[Item]:
    return Item.objects.filter(study=study).order_by("id")


def round_list(*, study: Study) -> QuerySet[Round]:
    return Round.objects.filter(study=study).order_by("position", "id")


def membership_list(*, study: Study) -> QuerySet[Membership]:
    # Each membership shows its user's username.
    return (
        Membership.objects.filter(study=study)
        .select_related("user")
        .order_by("user__username", "id")
    )


def study_token_list(*, study: Study) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(study=study).order_by("-created_at", "-id")


def personal_token_list(*, user: Any) -> QuerySet[ApiToken]:
    return ApiToken.objects.filter(user=user, study__isnull=True).order_by("-created_at", "-id")
