"""Reads for the API and pages: querysets scoped to a study, with their joins prepared."""

from __future__ import annotations

from typing import Any

from django.db.models import CharField, Exists, OuterRef, Prefetch, QuerySet, Subquery, Value

from studies.access import Actor, studies_visible_to
from studies.models import (
    ApiToken,
    Category,
    Coder,
    Item,
    ItemImage,
    Membership,
    ModelCoderRound,
    Question,
    Round,
    Study,
    StudyItemCount,
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
    """The study's items, each knowing whether it has an uploaded image (one subquery)."""
    uploaded = ItemImage.objects.filter(item=OuterRef("pk"))
    return Item.objects.filter(study=study).annotate(has_image=Exists(uploaded)).order_by("id")


def item_counts(*, study_ids: list[int]) -> dict[int, int]:
    """How many items each study has, as the database keeps it (a study without any: absent).

    Read from :class:`~studies.models.StudyItemCount`: no count over the item table.
    """
    return dict(
        StudyItemCount.objects.filter(study_id__in=study_ids).values_list("study_id", "items")
    )


def round_list(*, study: Study) -> QuerySet[Round]:
    return Round.objects.filter(study=study).order_by("position", "id")


# Addressing a question or a round -------------------------------------------------------
#
# Every endpoint names a question and a round the same way: by id, or by the question's
# key / the round's name. A JSON integer, or text of digits only, is an id first; when no
# question (round) of the study has that id, the text is a key (name), so a round named
# "2024" is still found by its name. Anything else is a key (name). Surrounding spaces are
# ignored; keys and names are compared exactly (case included).

MAX_ID = 2**63 - 1  # the largest id the database stores
_MAX_ID_DIGITS = 18  # every number of at most 18 digits is below MAX_ID
#: A question in a URL path (the API's and the site's): its id or its key (a slug of at
#: most 100 characters); ``question_resolve`` finds it.
QUESTION_REF_REGEX = r"[-a-zA-Z0-9_]{1,100}"


def _as_id(ref: int | str) -> int | None:
    """The id ``ref`` spells, if it is an integer or text of ASCII digits only."""
    if isinstance(ref, bool):
        return None
    if isinstance(ref, int):
        return ref if 1 <= ref <= MAX_ID else None
    text = ref.strip()
    if text.isascii() and text.isdigit() and len(text) <= _MAX_ID_DIGITS:
        return int(text)
    return None


def _as_text(ref: int | str) -> str | None:
    """``ref`` as a key or name; None if no key or name could be it (empty, or with NUL
    characters, which PostgreSQL text cannot hold)."""
    text = str(ref).strip()
    return text if text and "\x00" not in text else None


def question_resolve(*, study: Study, ref: int | str) -> Question | None:
    """The study's question with this id or key (see the rule above), or None."""
    questions = Question.objects.filter(study=study)
    pk = _as_id(ref)
    if pk is not None:
        found = questions.filter(pk=pk).first()
        if found is not None:
            return found
    key = _as_text(ref)
    return questions.filter(key=key).first() if key is not None else None


def coder_resolve(*, study: Study, ref: int | str) -> Coder | None:
    """The study's coder with this id or key (see the rule above), or None."""
    coders = Coder.objects.filter(study=study)
    pk = _as_id(ref)
    if pk is not None:
        found = coders.filter(pk=pk).first()
        if found is not None:
            return found
    key = _as_text(ref)
    return coders.filter(key=key).first() if key is not None else None


def model_round_versions(*, coder: Coder) -> QuerySet[ModelCoderRound]:
    """A model coder's recorded versions, round by round (with each round: its name and
    position are shown)."""
    return (
        ModelCoderRound.objects.filter(coder=coder)
        .select_related("round")
        .order_by("round__position")
    )


def round_resolve(*, study: Study, ref: int | str, lock: bool = False) -> Round | None:
    """The study's round with this id or name (see the rule above), or None; ``lock``
    takes the round's row lock (inside a transaction).

    The lock is the round's row only (``of``: the model's ordering joins the study, whose row
    FOR UPDATE would lock too) and leaves its key free (``no_key``): uploads to the round and
    its closing wait for each other, while a computation request naming the round does not
    wait for an upload to end."""
    rounds = Round.objects.filter(study=study)
    if lock:
        rounds = rounds.select_for_update(no_key=True, of=("self",))
    pk = _as_id(ref)
    if pk is not None:
        found = rounds.filter(pk=pk).first()
        if found is not None:
            return found
    name = _as_text(ref)
    return rounds.filter(name=name).first() if name is not None else None


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
