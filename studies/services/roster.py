"""Who labels (coders) and what is labelled (items), one at a time or in bulk.

Bulk creates are all-or-nothing: every bad entry is reported (``3.key``) and nothing is
written unless all entries are good.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import transaction

from studies.exceptions import ConflictError
from studies.models import Annotation, Coder, Item, Study


class RosterErrorCode:
    UNKNOWN_USER = "unknown_user"
    DUPLICATE_KEY = "duplicate_key"
    DUPLICATE_EXTERNAL_ID = "duplicate_external_id"
    CODER_IN_USE = "coder_in_use"
    ITEM_IN_USE = "item_in_use"


def _user_by_username(username: str | None, *, attr: str) -> Any | None:
    if not username:
        return None
    user = get_user_model().objects.filter(username=username).first()
    if user is None:
        raise ValidationError(
            {attr: ValidationError("No user has this username.", code=RosterErrorCode.UNKNOWN_USER)}
        )
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
    """Create coders from ``{"key", "name"?, "username"?, "is_active"?}`` mappings."""
    errors: dict[str, ValidationError] = {}

    def attr(index: int, field: str) -> str:
        return f"{index}.{field}" if prefix_errors else field

    clashes = _duplicates(study=study, model=Coder, field="key", values=[c["key"] for c in coders])
    users = {}
    usernames = {c["username"] for c in coders if c.get("username")}
    if usernames:
        users = {u.username: u for u in get_user_model().objects.filter(username__in=usernames)}
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
            errors[attr(index, "username")] = ValidationError(
                "No user has this username.", code=RosterErrorCode.UNKNOWN_USER
            )
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
    """Change ``key``, ``name``, ``username`` (None unlinks the user) or ``is_active``."""
    unexpected = set(fields) - {"key", "name", "username", "is_active"}
    if unexpected:
        raise TypeError(f"coder_update() got unexpected fields {sorted(unexpected)}")
    if "username" in fields:
        coder.user = _user_by_username(fields.pop("username"), attr="username")
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
    if Annotation.objects.filter(coder=coder).exists():
        raise ConflictError(
            "This coder has annotations; deactivate the coder instead (is_active=false).",
            code=RosterErrorCode.CODER_IN_USE,
        )
    coder.delete()


@transaction.atomic
def item_create(
    *, study: Study, external_id: str, text: str = "", metadata: dict[str, Any] | None = None
) -> Item:
    return items_create_bulk(
        study=study,
        items=[{"external_id": external_id, "text": text, "metadata": metadata}],
        prefix_errors=False,
    )[0]


@transaction.atomic
def items_create_bulk(
    *, study: Study, items: Sequence[Mapping[str, Any]], prefix_errors: bool = True
) -> list[Item]:
    """Create items from ``{"external_id", "text"?, "metadata"?}`` mappings."""
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
        item = Item(
            study=study,
            external_id=external_id,
            text=spec.get("text") or "",
            metadata=spec.get("metadata") or {},
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
    """Change ``external_id``, ``text`` or ``metadata``."""
    unexpected = set(fields) - {"external_id", "text", "metadata"}
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
