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
from studies.models import Annotation, Coder, Item, Membership, Study


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


@transaction.atomic
def coder_create(
    *,
    study: Study,
    key: str,
    name: str = "",
    username: str | None = None,
    is_active: bool = True,
) -> Coder:
    return coders_create_bulk(
        study=study,
        coders=[{"key": key, "name": name, "username": username, "is_active": is_active}],
        prefix_errors=False,
    )[0]


@transaction.atomic
def coders_create_bulk(
    *, study: Study, coders: Sequence[Mapping[str, Any]], prefix_errors: bool = True
) -> list[Coder]:
    """Create coders from ``{"key", "name"?, "username"?, "is_active"?}`` mappings.

    ``username`` links a member of the study (who may do so is the caller's business: the
    API lets managers only).
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
        if username and username not in users:
            errors[attr(index, "username")] = _not_a_member()
        coder = Coder(
            study=study,
            key=key,
            name=spec.get("name") or "",
            user=users.get(username) if username else None,
            is_active=spec.get("is_active", True),
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
    """Change ``key``, ``name``, ``username`` (a member of the study; None unlinks) or
    ``is_active``."""
    unexpected = set(fields) - {"key", "name", "username", "is_active"}
    if unexpected:
        raise TypeError(f"coder_update() got unexpected fields {sorted(unexpected)}")
    if "username" in fields:
        coder.user = _member_by_username(coder.study_id, fields.pop("username"), attr="username")
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


@transaction.atomic
def item_create(
    *,
    study: Study,
    external_id: str,
    text: str = "",
    metadata: dict[str, Any] | None = None,
    extent_begin: float | None = None,
    extent_end: float | None = None,
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
        item = Item(
            study=study,
            external_id=external_id,
            text=spec.get("text") or "",
            metadata=spec.get("metadata") or {},
            extent_begin=extent[0],
            extent_end=extent[1],
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


@transaction.atomic
def item_update(*, item: Item, **fields: Any) -> Item:
    """Change ``external_id``, ``text``, ``metadata`` or the extent.

    A new extent (or, without one, a new text, whose length is then the extent) must still
    hold every span unit stored on the item (400 ``units_outside_extent``).
    """
    unexpected = set(fields) - {"external_id", "text", "metadata", "extent_begin", "extent_end"}
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
    if errors:
        raise ValidationError(errors)
    text = fields.get("text", item.text) or ""
    old_extent = effective_extent(item.extent_begin, item.extent_end, item.text)
    new_extent = effective_extent(begin, end, text)
    if new_extent is not None and new_extent != old_extent:
        stored = Annotation.objects.filter(item=item, units__isnull=False).values_list(
            "units", flat=True
        )
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
