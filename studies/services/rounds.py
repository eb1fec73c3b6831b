"""Annotation rounds: create (open), rename or move, close, reopen, delete."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from studies.exceptions import ConflictError
from studies.models import Annotation, Round, RoundStatus, Study
from studies.signals import round_closed


class RoundErrorCode:
    ALREADY_CLOSED = "already_closed"
    ALREADY_OPEN = "already_open"
    DUPLICATE_NAME = "duplicate_name"
    DUPLICATE_POSITION = "duplicate_position"
    ROUND_IN_USE = "round_in_use"
    CLOSED_BEFORE_OPENED = "closed_before_opened"


def _check_unique(*, study_id: int, name: str, position: int, exclude_pk: int | None) -> None:
    others = Round.objects.filter(study_id=study_id)
    if exclude_pk is not None:
        others = others.exclude(pk=exclude_pk)
    errors = {}
    if others.filter(name=name).exists():
        errors["name"] = ValidationError(
            "This study already has a round with this name.", code=RoundErrorCode.DUPLICATE_NAME
        )
    if others.filter(position=position).exists():
        errors["position"] = ValidationError(
            "This study already has a round at this position.",
            code=RoundErrorCode.DUPLICATE_POSITION,
        )
    if errors:
        raise ValidationError(errors)


@transaction.atomic
def round_create(
    *, study: Study, name: str, position: int | None = None, opened_at: datetime | None = None
) -> Round:
    """An open round; ``position`` defaults to after the study's last round."""
    if position is None:
        # Lock the study's rounds so two concurrent creates do not pick the same position.
        list(Round.objects.select_for_update().filter(study=study).values_list("pk", flat=True))
        highest = Round.objects.filter(study=study).aggregate(m=Max("position"))["m"]
        position = 1 if highest is None else highest + 1
    _check_unique(study_id=study.pk, name=name, position=position, exclude_pk=None)
    round_ = Round(
        study=study,
        name=name,
        position=position,
        status=RoundStatus.OPEN,
        opened_at=opened_at or timezone.now(),
    )
    round_.full_clean()
    round_.save()
    return round_


@transaction.atomic
def round_update(*, round: Round, **fields: Any) -> Round:
    """Change ``name``, ``position``, ``opened_at`` or (of a closed round) ``closed_at``."""
    unexpected = set(fields) - {"name", "position", "opened_at", "closed_at"}
    if unexpected:
        raise TypeError(f"round_update() got unexpected fields {sorted(unexpected)}")
    if fields.get("closed_at") is not None and round.is_open:
        raise ValidationError(
            {
                "closed_at": ValidationError(
                    "An open round has no closing date; close it instead.",
                    code=RoundErrorCode.ALREADY_OPEN,
                )
            }
        )
    if "closed_at" in fields and fields["closed_at"] is None and not round.is_open:
        fields.pop("closed_at")
    for name, value in fields.items():
        setattr(round, name, value)
    _check_dates(round)
    _check_unique(
        study_id=round.study_id, name=round.name, position=round.position, exclude_pk=round.pk
    )
    round.full_clean()
    round.save()
    return round


def _check_dates(round: Round) -> None:
    if round.closed_at is not None and round.closed_at < round.opened_at:
        raise ValidationError(
            {
                "closed_at": ValidationError(
                    "A round cannot close before it opened.",
                    code=RoundErrorCode.CLOSED_BEFORE_OPENED,
                )
            }
        )


@transaction.atomic
def round_close(*, round: Round, closed_at: datetime | None = None) -> Round:
    if not round.is_open:
        raise ConflictError("This round is already closed.", code=RoundErrorCode.ALREADY_CLOSED)
    round.status = RoundStatus.CLOSED
    round.closed_at = closed_at or timezone.now()
    _check_dates(round)
    round.full_clean()
    round.save(update_fields=["status", "closed_at"])
    round_closed.send(sender=Round, round=round)
    return round


@transaction.atomic
def round_reopen(*, round: Round) -> Round:
    if round.is_open:
        raise ConflictError("This round is already open.", code=RoundErrorCode.ALREADY_OPEN)
    round.status = RoundStatus.OPEN
    round.closed_at = None
    round.full_clean()
    round.save(update_fields=["status", "closed_at"])
    return round


@transaction.atomic
def round_delete(*, round: Round) -> None:
    """Delete a round without annotations."""
    if Annotation.objects.filter(round=round).exists():
        raise ConflictError(
            "This round has annotations; delete them first.", code=RoundErrorCode.ROUND_IN_USE
        )
    round.delete()
