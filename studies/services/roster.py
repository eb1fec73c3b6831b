"""Who labels (coders) and what is labelled (items), one at a time or in bulk.

Bulk creates are all-or-nothing: every bad entry is reported (``3.key``) and nothing is
written unless all entries are good.

An item's extent (``extent_begin``, ``extent_end``) is the continuum span questions' units
lie on: both or neither, finite, begin not after end. Whether offsets must be integers is
the question's business (its ``span_unit``), checked when units are uploaded.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction

from studies.exceptions import ConflictError
from studies.kinds import ValueForm, kinds_of_form
from studies.models import (
    MODEL_FIELDS,
    Annotation,
    Coder,
    CoderKind,
    Item,
    Membership,
    ModelCoderRound,
    Round,
    Study,
)


class RosterErrorCode:
    NOT_A_MEMBER = "not_a_member"
    DUPLICATE_KEY = "duplicate_key"
    DUPLICATE_EXTERNAL_ID = "duplicate_external_id"
    CODER_IN_USE = "coder_in_use"
    ITEM_IN_USE = "item_in_use"
    EXTENT_INCOMPLETE = "extent_incomplete"
    EXTENT_NOT_FINITE = "extent_not_finite"
    EXTENT_REVERSED = "extent_reversed"
    UNITS_OUTSIDE_EXTENT = "units_outside_extent"
    INCOMPLETE_SIZE = "incomplete_size"
    SIZE_LOCKED = "size_locked"
    MODEL_LINKED = "model_linked"
    NOT_A_MODEL = "not_a_model"


def extent_errors(begin: Any, end: Any) -> dict[str, ValidationError]:
    """The problems of an extent, keyed ``extent_begin`` / ``extent_end`` (empty when fine).

    >>> sorted(extent_errors(5.0, 2.0))
    ['extent_end']
    >>> extent_errors(None, None)
    {}
    """
    if begin is None and end is None:
        return {}
    if begin is None or end is None:
        missing = "extent_begin" if begin is None else "extent_end"
        return {
            missing: ValidationError(
                "Give both extent_begin and extent_end, or neither.",
                code=RosterErrorCode.EXTENT_INCOMPLETE,
            )
        }
    errors = {
        name: ValidationError(
            f"{name} must be a finite number.", code=RosterErrorCode.EXTENT_NOT_FINITE
        )
        for name, value in (("extent_begin", begin), ("extent_end", end))
        if not math.isfinite(value)
    }
    if not errors and end < begin:
        errors["extent_end"] = ValidationError(
            f"extent_end ({end:g}) is before extent_begin ({begin:g}).",
            code=RosterErrorCode.EXTENT_REVERSED,
        )
    return errors


def effective_extent(
    extent_begin: float | None, extent_end: float | None, text: str
) -> tuple[float, float] | None:
    """Where an item's units may lie: its extent, else 0 to the length of its text, else
    None (unknown: measures take 0 to the largest end of its units)."""
    if extent_begin is not None and extent_end is not None:
        return float(extent_begin), float(extent_end)
    if text:
        return 0.0, float(len(text))
    return None


def units_outside(units: Iterable[Sequence[float]], extent: tuple[float, float]) -> int:
    """How many stored units ``[begin, end, category]`` leave ``extent``."""
    low, high = extent
    return sum(1 for begin, end, *_ in units if begin < low or end > high)


def _not_a_member() -> ValidationError:
    # One answer for a name nobody has and for a user outside the study: linking reveals
    # nothing about accounts beyond the study's member list, which its managers see anyway.
    return ValidationError(
        "No member of this study has this username; a coder can be linked to members only.",
        code=RosterErrorCode.NOT_A_MEMBER,
    )


def _members_by_username(study: Study | int, usernames: Iterable[str]) -> dict[str, Any]:
    """The study's members among ``usernames``, by username."""
    memberships = Membership.objects.filter(
        study=study, user__username__in=set(usernames)
    ).select_related("user")
    return {m.user.username: m.user for m in memberships}


def _member_by_username(study: Study | int, username: str | None, *, attr: str) -> Any | None:
    if not username:
        return None
    user = _members_by_username(study, [username]).get(username)
    if user is None:
        raise ValidationError({attr: _not_a_member()})
    return user


def _duplicates(
    *, study: Study, model: type[Coder] | type[Item], field: str, values: Sequence[str]
) -> set[str]:
    """Values that already exist in the study, or that occur twice in ``values``."""
    seen: set[str] = set()
    twice = set()
    for value in values:
        if value in seen:
            twice.add(value)
        seen.add(value)
    existing = model.objects.filter(study=study, **{f"{field}__in": seen}).values_list(
        field, flat=True
    )
    return twice | set(existing)


def _model_linked() -> ValidationError:
    return ValidationError(
        "A model coder cannot be linked to a user account: only people are.",
        code=RosterErrorCode.MODEL_LINKED,
    )


@transaction.atomic
def coder_create(
    *,
    study: Study,
    key: str,
    name: str = "",
    username: str | None = None,
    is_active: bool = True,
    kind: str = CoderKind.PERSON,
    model_name: str = "",
    model_version: str = "",
    prompt_version: str = "",
) -> Coder:
    spec = {
        "key": key,
        "name": name,
        "username": username,
        "is_active": is_active,
        "kind": kind,
        "model_name": model_name,
        "model_version": model_version,
        "prompt_version": prompt_version,
    }
    return coders_create_bulk(study=study, coders=[spec], prefix_errors=False)[0]


@transaction.atomic
def coders_create_bulk(
    *, study: Study, coders: Sequence[Mapping[str, Any]], prefix_errors: bool = True
) -> list[Coder]:
    """Create coders from ``{"key", "name"?, "username"?, "is_active"?, "kind"?,
    "model_name"?, "model_version"?, "prompt_version"?}`` mappings.

    ``username`` links a member of the study (who may do so is the caller's business: the
    API lets managers only); a model coder (``kind`` model) names its model and is linked
    to no one; a person has no model fields.
    """
    errors: dict[str, ValidationError] = {}

    def attr(index: int, field: str) -> str:
        return f"{index}.{field}" if prefix_errors else field

    clashes = _duplicates(study=study, model=Coder, field="key", values=[c["key"] for c in coders])
    usernames = {c["username"] for c in coders if c.get("username")}
    users = _members_by_username(study, usernames) if usernames else {}
    reported: set[str] = set()
    objects = []
    for index, spec in enumerate(coders):
        key = spec["key"]
        if key in clashes and (key in reported or _exists(Coder, study, "key", key)):
            errors[attr(index, "key")] = ValidationError(
                f"A coder with key {key!r} already exists.", code=RosterErrorCode.DUPLICATE_KEY
            )
        reported.add(key)
        username = spec.get("username")
        kind = spec.get("kind") or CoderKind.PERSON
        if username and kind == CoderKind.MODEL:
            errors[attr(index, "username")] = _model_linked()
        elif username and username not in users:
            errors[attr(index, "username")] = _not_a_member()
        coder = Coder(
            study=study,
            key=key,
            name=spec.get("name") or "",
            user=users.get(username) if username else None,
            is_active=spec.get("is_active", True),
            kind=kind,
            **{field: spec.get(field) or "" for field in MODEL_FIELDS},
        )
        try:
            coder.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                errors.setdefault(attr(index, field), ValidationError(messages))
        objects.append(coder)
    if errors:
        raise ValidationError(errors)
    return Coder.objects.bulk_create(objects)


def _exists(model: type[Coder] | type[Item], study: Study, field: str, value: str) -> bool:
    return model.objects.filter(study=study, **{field: value}).exists()


@transaction.atomic
def coder_update(*, coder: Coder, **fields: Any) -> Coder:
    """Change ``key``, ``name``, ``username`` (a member of the study; None unlinks),
    ``is_active``, ``kind`` or a model's ``model_name``, ``model_version`` and
    ``prompt_version`` (the current ones: the rounds already computed keep theirs,
    ``ModelCoderRound``)."""
    unexpected = set(fields) - {"key", "name", "username", "is_active", "kind", *MODEL_FIELDS}
    if unexpected:
        raise TypeError(f"coder_update() got unexpected fields {sorted(unexpected)}")
    kind = fields.get("kind", coder.kind)
    if "username" in fields:
        if fields["username"] and kind == CoderKind.MODEL:
            raise ValidationError({"username": _model_linked()})
        coder.user = _member_by_username(coder.study_id, fields.pop("username"), attr="username")
    elif kind == CoderKind.MODEL and coder.user_id is not None:
        raise ValidationError({"kind": _model_linked()})
    if "key" in fields and (
        Coder.objects.filter(study_id=coder.study_id, key=fields["key"])
        .exclude(pk=coder.pk)
        .exists()
    ):
        raise ValidationError(
            {
                "key": ValidationError(
                    "A coder with this key already exists.", code=RosterErrorCode.DUPLICATE_KEY
                )
            }
        )
    for name, value in fields.items():
        setattr(coder, name, value)
    coder.full_clean()
    coder.save()
    return coder


@transaction.atomic
def coder_delete(*, coder: Coder) -> None:
    """Delete a coder without annotations; one with annotations is deactivated instead."""
    # By the study's rounds (the coder has no index of its own on the annotations).
    if Annotation.objects.filter(round__study_id=coder.study_id, coder=coder).exists():
        raise ConflictError(
            "This coder has annotations; deactivate the coder instead (is_active=false).",
            code=RosterErrorCode.CODER_IN_USE,
        )
    coder.delete()


def _model_coder(coder: Coder) -> None:
    if not coder.is_model:
        raise ValidationError(
            {
                "coder": ValidationError(
                    "Only model coders (kind model) have a model and prompt version per round.",
                    code=RosterErrorCode.NOT_A_MODEL,
                )
            }
        )


@transaction.atomic
def model_round_versions_set(
    *,
    coder: Coder,
    round: Round,
    model_version: str | None = None,
    prompt_version: str | None = None,
) -> ModelCoderRound:
    """Set the versions a model coder labelled ``round`` with (a field not given keeps the
    recorded one, else the coder's current one)."""
    _model_coder(coder)
    if round.study_id != coder.study_id:
        raise ValidationError({"round": "The round belongs to another study."})
    entry = ModelCoderRound.objects.filter(coder=coder, round=round).first()
    if entry is None:
        entry = ModelCoderRound(
            coder=coder,
            round=round,
            model_version=coder.model_version,
            prompt_version=coder.prompt_version,
        )
    if model_version is not None:
        entry.model_version = model_version
    if prompt_version is not None:
        entry.prompt_version = prompt_version
    entry.full_clean(validate_unique=False, validate_constraints=False)
    entry.save()
    return entry


def model_round_versions_record(
    *, round_ids: Sequence[int], coder_ids: Sequence[int]
) -> dict[tuple[int, int], ModelCoderRound]:
    """The versions of every model coder among ``coder_ids`` in each round: those recorded,
    and for a (coder, round) not yet recorded the coder's current ones, recorded now (a
    round's first computation fixes them). Keyed ``(coder id, round id)``; people are left
    out."""
    models = list(Coder.objects.filter(pk__in=list(coder_ids), kind=CoderKind.MODEL))
    if not models:
        return {}
    found = {
        (entry.coder_id, entry.round_id): entry
        for entry in ModelCoderRound.objects.filter(coder__in=models, round_id__in=round_ids)
    }
    missing = [
        ModelCoderRound(
            coder=coder,
            round_id=round_id,
            model_version=coder.model_version,
            prompt_version=coder.prompt_version,
        )
        for coder in models
        for round_id in round_ids
        if (coder.pk, round_id) not in found
    ]
    if missing:
        # A concurrent first computation of the same round may record them too: theirs or
        # ours, they are the coder's current versions either way.
        ModelCoderRound.objects.bulk_create(missing, ignore_conflicts=True)
        found = {
            (entry.coder_id, entry.round_id): entry
            for entry in ModelCoderRound.objects.filter(coder__in=models, round_id__in=round_ids)
        }
    return found


@transaction.atomic
def item_create(
    *,
    study: Study,
    external_id: str,
    text: str = "",
    metadata: dict[str, Any] | None = None,
    extent_begin: float | None = None,
    extent_end: float | None = None,
    image_width: float | None = None,
    image_height: float | None = None,
    image_url: str = "",
) -> Item:
    return items_create_bulk(
        study=study,
        items=[
            {
                "external_id": external_id,
                "text": text,
                "metadata": metadata,
                "extent_begin": extent_begin,
                "extent_end": extent_end,
                "image_width": image_width,
                "image_height": image_height,
                "image_url": image_url,
            }
        ],
        prefix_errors=False,
    )[0]


@transaction.atomic
def items_create_bulk(
    *, study: Study, items: Sequence[Mapping[str, Any]], prefix_errors: bool = True
) -> list[Item]:
    """Create items from ``{"external_id", "text"?, "metadata"?, "extent_begin"?,
    "extent_end"?}`` mappings."""
    errors: dict[str, ValidationError] = {}
    clashes = _duplicates(
        study=study, model=Item, field="external_id", values=[i["external_id"] for i in items]
    )
    reported: set[str] = set()
    objects = []
    for index, spec in enumerate(items):
        prefix = f"{index}." if prefix_errors else ""
        external_id = spec["external_id"]
        if external_id in clashes and (
            external_id in reported or _exists(Item, study, "external_id", external_id)
        ):
            errors[f"{prefix}external_id"] = ValidationError(
                f"An item with external id {external_id!r} already exists.",
                code=RosterErrorCode.DUPLICATE_EXTERNAL_ID,
            )
        reported.add(external_id)
        extent = (spec.get("extent_begin"), spec.get("extent_end"))
        for field, error in extent_errors(*extent).items():
            errors[f"{prefix}{field}"] = error
        size = (spec.get("image_width"), spec.get("image_height"))
        for field, error in image_size_errors(*size).items():
            errors[f"{prefix}{field}"] = error
        item = Item(
            study=study,
            external_id=external_id,
            text=spec.get("text") or "",
            metadata=spec.get("metadata") or {},
            extent_begin=extent[0],
            extent_end=extent[1],
            image_width=size[0],
            image_height=size[1],
            image_url=spec.get("image_url") or "",
        )
        try:
            item.full_clean(validate_unique=False, validate_constraints=False)
        except ValidationError as error:
            for field, messages in error.message_dict.items():
                errors.setdefault(f"{prefix}{field}", ValidationError(messages))
        objects.append(item)
    if errors:
        raise ValidationError(errors)
    return Item.objects.bulk_create(objects)


def image_size_errors(width: float | None, height: float | None) -> dict[str, ValidationError]:
    """An image size is both a width and a height, or neither."""
    if (width is None) != (height is None):
        missing = "image_height" if height is None else "image_width"
        return {
            missing: ValidationError(
                "Give the image's width and height together (or neither).",
                code=RosterErrorCode.INCOMPLETE_SIZE,
            )
        }
    return {}


def _has_regions(item: Item) -> bool:
    return Annotation.objects.filter(
        item=item, question__kind__in=kinds_of_form(ValueForm.STRUCTURED)
    ).exists()


@transaction.atomic
def item_update(*, item: Item, **fields: Any) -> Item:
    """Change ``external_id``, ``text``, ``metadata`` or the extent.

    A new extent (or, without one, a new text, whose length is then the extent) must still
    hold every span unit stored on the item (400 ``units_outside_extent``).
    """
    unexpected = set(fields) - {
        "external_id",
        "text",
        "metadata",
        "extent_begin",
        "extent_end",
        "image_width",
        "image_height",
        "image_url",
    }
    if unexpected:
        raise TypeError(f"item_update() got unexpected fields {sorted(unexpected)}")
    if "external_id" in fields and (
        Item.objects.filter(study_id=item.study_id, external_id=fields["external_id"])
        .exclude(pk=item.pk)
        .exists()
    ):
        raise ValidationError(
            {
                "external_id": ValidationError(
                    "An item with this external id already exists.",
                    code=RosterErrorCode.DUPLICATE_EXTERNAL_ID,
                )
            }
        )
    begin = fields.get("extent_begin", item.extent_begin)
    end = fields.get("extent_end", item.extent_end)
    errors = extent_errors(begin, end)
    size = (
        fields.get("image_width", item.image_width),
        fields.get("image_height", item.image_height),
    )
    errors.update(image_size_errors(*size))
    if not errors and size != (item.image_width, item.image_height) and _has_regions(item):
        errors["image_width"] = ValidationError(
            "The image's size cannot change once regions are drawn on it.",
            code=RosterErrorCode.SIZE_LOCKED,
        )
    if errors:
        raise ValidationError(errors)
    text = fields.get("text", item.text) or ""
    old_extent = effective_extent(item.extent_begin, item.extent_end, item.text)
    new_extent = effective_extent(begin, end, text)
    if new_extent is not None and new_extent != old_extent:
        stored = Annotation.objects.filter(
            item=item, units__isnull=False, question__kind__in=kinds_of_form(ValueForm.UNITS)
        ).values_list("units", flat=True)
        outside = 0
        for units in stored:
            outside += units_outside(units or (), new_extent)
        if outside:
            attr = "extent_end" if begin is not None else "text"
            raise ValidationError(
                {
                    attr: ValidationError(
                        f"{outside} stored span unit(s) lie outside the new extent "
                        f"[{new_extent[0]:g}, {new_extent[1]:g}).",
                        code=RosterErrorCode.UNITS_OUTSIDE_EXTENT,
                    )
                }
            )
    for name, value in fields.items():
        setattr(item, name, value if name != "metadata" or value is not None else {})
    item.full_clean()
    item.save()
    return item


@transaction.atomic
def item_delete(*, item: Item) -> None:
    """Delete an item no annotation is about."""
    if Annotation.objects.filter(item=item).exists():
        raise ConflictError(
            "This item has annotations; delete them first.", code=RosterErrorCode.ITEM_IN_USE
        )
    item.delete()
