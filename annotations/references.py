"""Rows whose references the database does not check.

``Annotation``'s round, question, item, coder and category, and ``Item``'s study, are not
foreign-key constraints in the database (``studies.models`` says why: crowd imports write
millions of them). Every write goes through the services, and every delete made through
Django cascades (or is refused, for a category in use), so these checks find nothing unless
rows were deleted some other way (SQL by hand, a restore of some tables only).
``manage.py annotations_check_references`` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from django.db.models import Exists, Model, OuterRef, Q, QuerySet

from studies.models import Annotation, Item

#: Per model, the references the database leaves unchecked (all of an annotation's).
UNCHECKED: tuple[tuple[type[Model], tuple[str, ...]], ...] = (
    (Annotation, tuple(f.name for f in Annotation._meta.concrete_fields if f.is_relation)),
    (Item, ("study",)),
)


@dataclass(frozen=True)
class BrokenReferences:
    model: str  # "annotation", "item"
    field: str
    count: int
    ids: list[int]  # the first few, for a closer look

    def describe(self) -> str:
        shown = ", ".join(str(pk) for pk in self.ids)
        more = ", …" if self.count > len(self.ids) else ""
        return f"{self.count} {self.model}(s) point to a missing {self.field} (ids {shown}{more})."


def _dangling(model: type[Model], field: str) -> QuerySet[Model]:
    target = cast("type[Model]", model._meta.get_field(field).related_model)
    parent = target._default_manager.filter(pk=OuterRef(f"{field}_id"))
    rows = model._default_manager.filter(Q(**{f"{field}_id__isnull": False}), ~Exists(parent))
    return cast("QuerySet[Model]", rows)


def reference_problems(*, sample: int = 10) -> list[BrokenReferences]:
    """Every kind of broken reference among annotations and items, with a count and a sample."""
    problems = []
    for model, fields in UNCHECKED:
        for field in fields:
            dangling = _dangling(model, field).order_by("pk")
            count = dangling.count()
            if count:
                ids = list(dangling.values_list("pk", flat=True)[:sample])
                problems.append(BrokenReferences(model._meta.model_name or "", field, count, ids))
    return problems
