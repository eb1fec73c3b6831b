"""The label scheme: questions and their categories (ordered; a tree for hierarchies).

A question is declared with its categories in one call; parents are named by code, so a
whole tree fits in one request, and list order is the ordinal order. Categories that no
annotation uses are kept: they belong to the value domain. A category in use cannot be
deleted (annotations point to it).

Errors name the offending field the way the API reports it: ``categories.3.parent``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Max

from studies.exceptions import ConflictError
from studies.kinds import kind_of
from studies.models import Annotation, Category, Question, SpanUnit, Study

CategorySpec = Mapping[str, Any]
"""``{"code": str, "label": str (optional), "parent": parent code or None (optional)}``"""


class SchemeErrorCode:
    RANGE_NOT_ALLOWED = "range_not_allowed"
    CATEGORIES_NOT_ALLOWED = "categories_not_allowed"
    INVALID_CODE = "invalid_code"
    DUPLICATE_CODE = "duplicate_code"
    UNKNOWN_PARENT = "unknown_parent"
    PARENT_NOT_ALLOWED = "parent_not_allowed"
    CYCLE = "cycle"
    DUPLICATE_KEY = "duplicate_key"
    KIND_LOCKED = "kind_locked"
    QUESTION_IN_USE = "question_in_use"
    CATEGORY_IN_USE = "category_in_use"
    CATEGORY_HAS_CHILDREN = "category_has_children"
    NOT_A_PERMUTATION = "not_a_permutation"
    SPAN_UNIT_NOT_ALLOWED = "span_unit_not_allowed"
    CATEGORIES_NOT_FROM_LABELS = "categories_not_from_labels"
    SPAN_UNIT_LOCKED = "span_unit_locked"
    UNDIRECTED_NOT_ALLOWED = "undirected_not_allowed"
    UNDIRECTED_LOCKED = "undirected_locked"


UNDIRECTED_ONLY = "Only relation questions declare a label undirected."
UNDIRECTED_FIXED = (
    "Whether a label is undirected cannot change once the question has annotations (its "
    "relations are stored in the order it gives)."
)


def _error(message: str, code: str) -> ValidationError:
    return ValidationError(message, code=code)


def _code_problem(code: str) -> str | None:
    if not code:
        return "A category code cannot be empty."
    if "|" in code or "/" in code:
        return "A category code cannot contain '|' or '/' (they separate sets and tree paths)."
    return None


def _check_range(kind: str, min_value: float | None, max_value: float | None) -> None:
    if kind_of(kind).takes_range:
        return
    errors = {
        name: _error("Only numeric questions (interval, ratio) take a range.", "range_not_allowed")
        for name, value in (("min_value", min_value), ("max_value", max_value))
        if value is not None
    }
    if errors:
        raise ValidationError(errors)


def _span_unit_for(kind: str, span_unit: str | None) -> str:
    """The ``span_unit`` a question of ``kind`` stores: a span question's unit (characters
    when not given), blank for any other kind, which refuses one (400 on ``span_unit``)."""
    if kind_of(kind).takes_span_unit:
        return SpanUnit(span_unit or SpanUnit.CHARACTER).value
    if span_unit:
        raise ValidationError(
            {
                "span_unit": _error(
                    "Only span questions take a span_unit (character, token or second).",
                    SchemeErrorCode.SPAN_UNIT_NOT_ALLOWED,
                )
            }
        )
    return ""


def _check_key_free(*, study: Study, key: str, exclude_pk: int | None = None) -> None:
    taken = Question.objects.filter(study=study, key=key)
    if exclude_pk is not None:
        taken = taken.exclude(pk=exclude_pk)
    if taken.exists():
        raise ValidationError(
            {"key": _error("This study already has a question with this key.", "duplicate_key")}
        )


def _validate_category_specs(
    *, kind: str, specs: Sequence[CategorySpec], existing_codes: frozenset[str] = frozenset()
) -> None:
    """Every problem of a declared category list at once, keyed ``categories.<i>.<field>``."""
    errors: dict[str, ValidationError] = {}
    if specs and not kind_of(kind).has_categories:
        raise ValidationError(
            {
                "categories": _error(
                    "Numeric questions (interval, ratio) have no categories.",
                    SchemeErrorCode.CATEGORIES_NOT_ALLOWED,
                )
            }
        )
    first_index: dict[str, int] = {}
    for index, spec in enumerate(specs):
        code = spec["code"]
        problem = _code_problem(code)
        if problem:
            errors[f"categories.{index}.code"] = _error(problem, SchemeErrorCode.INVALID_CODE)
        elif code in first_index or code in existing_codes:
            errors[f"categories.{index}.code"] = _error(
                f"The code {code!r} is declared twice.", SchemeErrorCode.DUPLICATE_CODE
            )
        else:
            first_index[code] = index
    errors.update(_undirected_errors(kind, specs))
    parents: dict[str, str | None] = {}
    for spec in specs:  # the first declaration of a code counts; later ones are duplicates
        parents.setdefault(spec["code"], spec.get("parent"))
    for index, spec in enumerate(specs):
        parent = spec.get("parent")
        if parent in (None, ""):
            continue
        attr = f"categories.{index}.parent"
        if not kind_of(kind).category_tree:
            errors[attr] = _error(
                "Only hierarchy questions have parents.", SchemeErrorCode.PARENT_NOT_ALLOWED
            )
        elif parent not in first_index and parent not in existing_codes:
            errors[attr] = _error(
                f"No category {parent!r} is declared.", SchemeErrorCode.UNKNOWN_PARENT
            )
        elif _has_cycle(spec["code"], parents):
            errors[attr] = _error(
                f"Category {spec['code']!r} would be its own ancestor.", SchemeErrorCode.CYCLE
            )
    if errors:
        raise ValidationError(errors)


def _undirected_errors(kind: str, specs: Sequence[CategorySpec]) -> dict[str, ValidationError]:
    """``undirected`` declared on a kind whose labels have no direction to drop."""
    if kind_of(kind).undirected_categories:
        return {}
    return {
        f"categories.{index}.undirected": _error(
            UNDIRECTED_ONLY, SchemeErrorCode.UNDIRECTED_NOT_ALLOWED
        )
        for index, spec in enumerate(specs)
        if spec.get("undirected")
    }


def _has_cycle(code: str, parents: Mapping[str, str | None]) -> bool:
    seen = {code}
    current = parents.get(code)
    while current:
        if current in seen:
            return True
        seen.add(current)
        current = parents.get(current)
    return False


def _renumber(question: Question, ordered: list[Category]) -> None:
    changed = []
    for position, category in enumerate(ordered):
        if category.position != position:
            category.position = position
            changed.append(category)
    if changed:
        Category.objects.bulk_update(changed, ["position"])


def _question_has_annotations(question: Question) -> bool:
    # By the study's rounds: the annotations' unique index starts with (round, question);
    # the question has no index of its own (docs/crowd-scale.md).
    return Annotation.objects.filter(round__study_id=question.study_id, question=question).exists()


@transaction.atomic
def question_create(
    *,
    study: Study,
    key: str,
    kind: str,
    text: str = "",
    min_value: float | None = None,
    max_value: float | None = None,
    position: int | None = None,
    categories: Sequence[CategorySpec] = (),
    span_unit: str | None = None,
) -> Question:
    """A question with its categories in list order (``position`` 0, 1, …).

    A span question's categories are the labels of its units; ``span_unit`` says what its
    offsets count (``character``, the default, ``token`` or ``second``) and is refused for
    other kinds.
    """
    _check_range(kind, min_value, max_value)
    stored_span_unit = _span_unit_for(kind, span_unit)
    _check_key_free(study=study, key=key)
    if position is None:
        highest = Question.objects.filter(study=study).aggregate(m=Max("position"))["m"]
        position = 0 if highest is None else highest + 1
    question = Question(
        study=study,
        key=key,
        kind=kind,
        text=text,
        min_value=min_value,
        max_value=max_value,
        span_unit=stored_span_unit,
        position=position,
    )
    question.full_clean()
    _validate_category_specs(kind=kind, specs=categories)
    question.save()
    created = Category.objects.bulk_create(
        [
            Category(
                question=question,
                code=spec["code"],
                label=spec.get("label") or "",
                position=i,
                undirected=bool(spec.get("undirected")),
            )
            for i, spec in enumerate(categories)
        ]
    )
    by_code = {category.code: category for category in created}
    with_parent = []
    for category, spec in zip(created, categories, strict=True):
        if spec.get("parent"):
            category.parent = by_code[spec["parent"]]
            with_parent.append(category)
    if with_parent:
        Category.objects.bulk_update(with_parent, ["parent"])
    return question


@transaction.atomic
def question_update(*, question: Question, **fields: Any) -> Question:
    """Change ``key``, ``text``, ``kind``, ``min_value``, ``max_value``, ``span_unit`` or
    ``position``.

    The kind can change only while no annotation answers the question, and only to a kind
    its declared categories fit (no categories for numbers, parents only in a hierarchy).
    ``span_unit`` belongs to span questions only and, like the kind, is fixed once units
    are stored (their offsets count it); a question that stops being a span question drops
    its unit.
    """
    allowed = {"key", "text", "kind", "min_value", "max_value", "span_unit", "position"}
    unexpected = set(fields) - allowed
    if unexpected:
        raise TypeError(f"question_update() got unexpected fields {sorted(unexpected)}")
    kind = fields.get("kind", question.kind)
    if kind != question.kind:
        if _question_has_annotations(question):
            raise ValidationError(
                {
                    "kind": _error(
                        "The kind cannot change once the question has annotations.",
                        SchemeErrorCode.KIND_LOCKED,
                    )
                }
            )
        categories = list(question.categories.select_related("parent"))
        if categories and not kind_of(kind).has_categories:
            raise ValidationError(
                {
                    "kind": _error(
                        "Delete the categories before making this a numeric question.",
                        SchemeErrorCode.CATEGORIES_NOT_ALLOWED,
                    )
                }
            )
        if not kind_of(kind).undirected_categories and any(c.undirected for c in categories):
            raise ValidationError(
                {"kind": _error(UNDIRECTED_ONLY, SchemeErrorCode.UNDIRECTED_NOT_ALLOWED)}
            )
        if not kind_of(kind).category_tree and any(c.parent_id for c in categories):
            raise ValidationError(
                {
                    "kind": _error(
                        "Some categories have parents; only hierarchy questions have them.",
                        SchemeErrorCode.PARENT_NOT_ALLOWED,
                    )
                }
            )
    _check_range(
        kind,
        fields.get("min_value", question.min_value),
        fields.get("max_value", question.max_value),
    )
    if "span_unit" in fields or kind != question.kind:
        # A kind change without a span_unit takes the new kind's default.
        span_unit = _span_unit_for(kind, fields.get("span_unit"))
        if (
            kind == question.kind
            and kind_of(kind).takes_span_unit
            and span_unit != (question.span_unit or SpanUnit.CHARACTER)
            and _question_has_annotations(question)
        ):
            raise ValidationError(
                {
                    "span_unit": _error(
                        "The span_unit cannot change once the question has annotations.",
                        SchemeErrorCode.SPAN_UNIT_LOCKED,
                    )
                }
            )
        fields["span_unit"] = span_unit
    if "key" in fields:
        _check_key_free(study=question.study, key=fields["key"], exclude_pk=question.pk)
    for name, value in fields.items():
        setattr(question, name, value)
    question.full_clean()
    question.save()
    return question


@transaction.atomic
def question_delete(*, question: Question) -> None:
    """Delete a question and its categories; refused while annotations answer it."""
    if _question_has_annotations(question):
        raise ConflictError(
            "This question has annotations; delete them first.",
            code=SchemeErrorCode.QUESTION_IN_USE,
        )
    # Children point to parents with PROTECT: clear the tree before the cascade.
    question.categories.update(parent=None)
    question.delete()


def _parent_by_code(
    question: Question, code: str | None, *, attr: str = "parent"
) -> Category | None:
    if code in (None, ""):
        return None
    if not question.label_kind.category_tree:
        raise ValidationError(
            {
                attr: _error(
                    "Only hierarchy questions have parents.", SchemeErrorCode.PARENT_NOT_ALLOWED
                )
            }
        )
    parent = question.categories.filter(code=code).first()
    if parent is None:
        raise ValidationError(
            {attr: _error(f"No category {code!r} is declared.", SchemeErrorCode.UNKNOWN_PARENT)}
        )
    return parent


def _check_code(question: Question, code: str, *, exclude_pk: int | None = None) -> None:
    problem = _code_problem(code)
    if problem:
        raise ValidationError({"code": _error(problem, SchemeErrorCode.INVALID_CODE)})
    same = question.categories.filter(code=code)
    if exclude_pk is not None:
        same = same.exclude(pk=exclude_pk)
    if same.exists():
        raise ValidationError(
            {
                "code": _error(
                    f"The code {code!r} is already declared.", SchemeErrorCode.DUPLICATE_CODE
                )
            }
        )


def undirected_problem(question: Question, *, undirected: bool, changed: bool) -> str | None:
    """Why a category of ``question`` cannot be (or become) ``undirected``, else None: only
    relation questions declare a label undirected, and not once annotations are stored."""
    if undirected and not question.label_kind.undirected_categories:
        return UNDIRECTED_ONLY
    if changed and question.pk is not None and _question_has_annotations(question):
        return UNDIRECTED_FIXED
    return None


def _check_undirected(question: Question, undirected: bool) -> None:
    if undirected and not question.label_kind.undirected_categories:
        raise ValidationError(
            {"undirected": _error(UNDIRECTED_ONLY, SchemeErrorCode.UNDIRECTED_NOT_ALLOWED)}
        )


def _check_categorical(question: Question) -> None:
    if not question.label_kind.has_categories:
        raise ValidationError(
            {
                "question": _error(
                    "Numeric questions (interval, ratio) have no categories.",
                    SchemeErrorCode.CATEGORIES_NOT_ALLOWED,
                )
            }
        )


def categories_from_labels_check(question: Question) -> None:
    """400 ``categories_not_from_labels`` (on ``create_categories``) unless the question's
    kind may take new categories from labels (nominal and set questions)."""
    if not question.label_kind.categories_from_labels:
        raise ValidationError(
            {
                "create_categories": _error(
                    f"Question {question.key!r} is {question.kind}: its categories cannot be "
                    "declared from labels (an ordinal scale's order or a tree's parents "
                    "would be guessed). Declare them in the label scheme first.",
                    SchemeErrorCode.CATEGORIES_NOT_FROM_LABELS,
                )
            }
        )


@transaction.atomic
def categories_declare(*, question: Question, codes: Sequence[str]) -> list[str]:
    """Declare ``codes`` as new categories at the end of ``question``'s order (label = code);
    returns the codes declared. Codes already declared, or that no category may have
    (empty, with ``|`` or ``/``, longer than a code may be), are left out: their labels stay
    unknown. Only kinds with ``categories_from_labels`` take them."""
    categories_from_labels_check(question)
    limit = Category._meta.get_field("code").max_length or 0
    ordered = list(question.categories.select_for_update().order_by("position", "id"))
    known = {category.code for category in ordered}
    new = [
        code
        for code in dict.fromkeys(codes)
        if code not in known
        and _code_problem(code) is None
        and len(code) <= limit
        and "\x00" not in code
    ]
    Category.objects.bulk_create(
        Category(question=question, code=code, label=code, position=len(ordered) + offset)
        for offset, code in enumerate(new)
    )
    return new


@transaction.atomic
def category_create(
    *,
    question: Question,
    code: str,
    label: str = "",
    parent: str | None = None,
    position: int | None = None,
    undirected: bool = False,
) -> Category:
    """Add a category, at the end or at ``position`` (the ones from there move down);
    ``undirected`` declares a relation question's label symmetric."""
    _check_categorical(question)
    _check_code(question, code)
    _check_undirected(question, undirected)
    parent_category = _parent_by_code(question, parent)
    ordered = list(question.categories.select_for_update().order_by("position", "id"))
    category = Category(
        question=question, code=code, label=label, parent=parent_category, undirected=undirected
    )
    category.position = len(ordered)
    category.full_clean()
    category.save()
    if position is not None and position < len(ordered):
        ordered.insert(max(position, 0), category)
        _renumber(question, ordered)
    return category


@transaction.atomic
def category_update(*, category: Category, **fields: Any) -> Category:
    """Rename (``code``, ``label``), move in the tree (``parent`` by code, or None) or in
    the order (``position``: its new index); ``undirected`` (relation questions) only while
    no annotation answers the question (stored relations are in the order it gives)."""
    unexpected = set(fields) - {"code", "label", "parent", "position", "undirected"}
    if unexpected:
        raise TypeError(f"category_update() got unexpected fields {sorted(unexpected)}")
    question = category.question
    if "code" in fields:
        _check_code(question, fields["code"], exclude_pk=category.pk)
        category.code = fields["code"]
    if "label" in fields:
        category.label = fields["label"]
    if "undirected" in fields and bool(fields["undirected"]) != category.undirected:
        _check_undirected(question, bool(fields["undirected"]))
        if _question_has_annotations(question):
            raise ValidationError(
                {"undirected": _error(UNDIRECTED_FIXED, SchemeErrorCode.UNDIRECTED_LOCKED)}
            )
        category.undirected = bool(fields["undirected"])
    if "parent" in fields:
        category.parent = _parent_by_code(question, fields["parent"])
        if category.parent is not None and _is_ancestor(category, category.parent):
            raise ValidationError(
                {"parent": _error("A category cannot be its own ancestor.", SchemeErrorCode.CYCLE)}
            )
    category.full_clean()
    category.save()
    if fields.get("position") is not None:
        ordered = [
            c
            for c in question.categories.select_for_update().order_by("position", "id")
            if c.pk != category.pk
        ]
        ordered.insert(max(int(fields["position"]), 0), category)
        _renumber(question, ordered)
    return category


def _is_ancestor(category: Category, node: Category | None) -> bool:
    """Is ``category`` ``node`` or one of its ancestors?"""
    seen: set[int] = set()
    while node is not None and node.pk not in seen:
        if node.pk == category.pk:
            return True
        seen.add(node.pk)
        node = node.parent
    return False


def category_in_use(category: Category) -> bool:
    if Annotation.objects.filter(
        round__study_id=category.question.study_id,
        question_id=category.question_id,
        category=category,
    ).exists():
        return True
    # Set-valued labels keep category ids in a JSON list, span units in their third place,
    # structured values where their kind says; a portable scan (SQLite has no JSON
    # containment lookup) over just that question's.
    kind = category.question.label_kind
    if kind.units or kind.structured is not None:
        units = Annotation.objects.filter(
            question_id=category.question_id, units__isnull=False
        ).values_list("units", flat=True)
        if kind.structured is not None:
            used = kind.structured.category_ids
            return any(category.pk in used(stored or []) for stored in units.iterator())
        return any(
            any(int(unit[2]) == category.pk for unit in stored or ()) for stored in units.iterator()
        )
    sets = Annotation.objects.filter(
        question_id=category.question_id, category_set__isnull=False
    ).values_list("category_set", flat=True)
    return any(category.pk in (ids or ()) for ids in sets.iterator())


@transaction.atomic
def category_delete(*, category: Category) -> None:
    """Delete a category no annotation uses and that has no children."""
    if category.children.exists():
        raise ConflictError(
            "This category has child categories; move or delete them first.",
            code=SchemeErrorCode.CATEGORY_HAS_CHILDREN,
        )
    if category_in_use(category):
        raise ConflictError(
            "Annotations use this category; it cannot be deleted (rename it instead).",
            code=SchemeErrorCode.CATEGORY_IN_USE,
        )
    question = category.question
    category.delete()
    _renumber(question, list(question.categories.order_by("position", "id")))


@transaction.atomic
def categories_reorder(*, question: Question, codes: Sequence[str]) -> list[Category]:
    """Put the categories in the order of ``codes``, which must name each exactly once."""
    ordered = list(question.categories.select_for_update().order_by("position", "id"))
    by_code = {c.code: c for c in ordered}
    if sorted(codes) != sorted(by_code):
        raise ValidationError(
            {
                "codes": _error(
                    "List every category code of the question exactly once.",
                    SchemeErrorCode.NOT_A_PERMUTATION,
                )
            }
        )
    new_order = [by_code[code] for code in codes]
    _renumber(question, new_order)
    return new_order
