"""Studies: create (the creator becomes manager), update, delete."""

from __future__ import annotations

from typing import Any

from django.db import transaction

from studies.access import Actor
from studies.exceptions import ApplicationError
from studies.models import GRRAS_STUDY_FIELDS, Annotation, Category, Membership, Role, Study

#: The fields a study's create and update take besides its name: its description and what
#: it records for the reliability report (``GRRAS_STUDY_FIELDS``).
STUDY_TEXT_FIELDS: tuple[str, ...] = ("description", *GRRAS_STUDY_FIELDS, "benchmark_scale")


class StudyErrorCode:
    STUDY_TOKEN_CANNOT_CREATE = "study_token_cannot_create"


class StudyTokenCannotCreateError(ApplicationError):
    status_code = 403
    code = StudyErrorCode.STUDY_TOKEN_CANNOT_CREATE


@transaction.atomic
def study_create(*, actor: Actor, name: str, description: str = "", **texts: str) -> Study:
    """A new study with the acting user as its manager. A study token belongs to one study
    and cannot create others. ``texts``: what the study records for its reliability report
    (``GRRAS_STUDY_FIELDS``) and its ``benchmark_scale``, each optional."""
    if actor.study_token is not None or actor.user is None:
        raise StudyTokenCannotCreateError(
            "A study token cannot create studies; use a personal token or log in."
        )
    unknown = sorted(set(texts) - set(STUDY_TEXT_FIELDS))
    if unknown:
        raise TypeError(f"study_create() got unexpected fields {unknown}")
    study = Study(name=name, description=description, **texts)
    study.full_clean()
    study.save()
    membership = Membership(study=study, user=actor.user, role=Role.MANAGER)
    membership.full_clean()
    membership.save()
    return study


@transaction.atomic
def study_update(*, study: Study, **fields: Any) -> Study:
    """Change ``name``, ``description``, what the study records for its reliability report
    (``GRRAS_STUDY_FIELDS``) and its ``benchmark_scale``."""
    for name in ("name", *STUDY_TEXT_FIELDS):
        if name in fields:
            setattr(study, name, fields.pop(name))
    if fields:
        raise TypeError(f"study_update() got unexpected fields {sorted(fields)}")
    study.full_clean()
    study.save()
    return study


@transaction.atomic
def study_delete(*, study: Study) -> None:
    """Delete the study and everything in it (questions, items, rounds, annotations)."""
    # Annotations and child categories point to categories with PROTECT (so a category in
    # use is never deleted by accident): remove them first, then let the cascade run.
    Annotation.objects.filter(round__study=study).delete()
    Category.objects.filter(question__study=study).update(parent=None)
    study.delete()
