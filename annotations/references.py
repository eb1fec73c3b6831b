"""Annotations whose references the database does not check.

``Annotation``'s round, question, item, coder and category are not foreign-key constraints in
the database (``studies.models.Annotation`` says why). Every write goes through the services,
and every delete made through Django cascades (or is refused, for a category in use), so
these checks find nothing unless rows were deleted some other way (SQL by hand, a restore of
some tables only). ``manage.py annotations_check_references`` runs them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

from django.db.models import Exists, Model, OuterRef, Q, QuerySet

from studies.models import Annotation

#: An annotation's references, read off the model: (field, the model it points to).
REFERENCES: tuple[tuple[str, type[Model]], ...] = tuple(
    (field.name, cast("type[Model]", field.related_model))
    for field in Annotation._meta.concrete_fields
    if field.is_relation
)


@dataclass(frozen=True)
class BrokenReferences:
    field: str
    count: int
    annotation_ids: list[int]  # the first few, for a closer look

    def describe(self) -> str:
        shown = ", ".join(str(pk) for pk in self.annotation_ids)
        more = ", …" if self.count > len(self.annotation_ids) else ""
        return f"{self.count} annotation(s) point to a missing {self.field} (ids {shown}{more})."


def _dangling(field: str, model: type[Model]) -> QuerySet[Annotation]:
    parent = model._default_manager.filter(pk=OuterRef(f"{field}_id"))
    return Annotation.objects.filter(Q(**{f"{field}_id__isnull": False}), ~Exists(parent))


def annotation_reference_problems(*, sample: int = 10) -> list[BrokenReferences]:
    """Every kind of broken reference among the annotations, with a count and a sample."""
    problems = []
    for field, model in REFERENCES:
        dangling = _dangling(field, model).order_by("pk")
        count = dangling.count()
        if count:
            ids = list(dangling.values_list("pk", flat=True)[:sample])
            problems.append(BrokenReferences(field, count, ids))
    return problems
