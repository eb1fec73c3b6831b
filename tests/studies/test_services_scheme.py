"""studies.services.scheme: questions with inline categories, category edits."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from studies.exceptions import ConflictError
from studies.models import Category, LabelKind
from studies.services import scheme
from tests.factories import AnnotationFactory, CategoryFactory, QuestionFactory, StudyFactory

pytestmark = pytest.mark.django_db


def codes(error: ValidationError) -> dict[str, list[str]]:
    return {field: [e.code for e in errs] for field, errs in error.error_dict.items()}


def test_question_create_builds_the_tree_in_declared_order() -> None:
    question = scheme.question_create(
        study=StudyFactory(),
        key="topic",
        kind=LabelKind.HIERARCHY,
        categories=[{"code": "leaf", "parent": "root"}, {"code": "root"}],
    )
    stored = {c.code: c for c in Category.objects.filter(question=question)}
    assert stored["leaf"].parent == stored["root"]
    assert (stored["leaf"].position, stored["root"].position) == (0, 1)


def test_question_create_reports_every_problem_at_once() -> None:
    with pytest.raises(ValidationError) as caught:
        scheme.question_create(
            study=StudyFactory(),
            key="q",
            kind=LabelKind.HIERARCHY,
            categories=[
                {"code": "a", "parent": "b"},
                {"code": "b", "parent": "a"},
                {"code": "c", "parent": "missing"},
                {"code": "a"},
            ],
        )
    assert codes(caught.value) == {
        "categories.0.parent": ["cycle"],
        "categories.1.parent": ["cycle"],
        "categories.2.parent": ["unknown_parent"],
        "categories.3.code": ["duplicate_code"],
    }


def test_question_create_places_questions_after_the_last_one() -> None:
    study = StudyFactory()
    first = scheme.question_create(study=study, key="a", kind=LabelKind.NOMINAL)
    second = scheme.question_create(study=study, key="b", kind=LabelKind.NOMINAL)
    assert second.position == first.position + 1


def test_question_update_refuses_a_numeric_kind_while_categories_exist() -> None:
    question = QuestionFactory(kind=LabelKind.NOMINAL)
    CategoryFactory(question=question)
    with pytest.raises(ValidationError) as caught:
        scheme.question_update(question=question, kind=LabelKind.RATIO)
    assert codes(caught.value) == {"kind": ["categories_not_allowed"]}


def test_category_create_refuses_a_numeric_question() -> None:
    with pytest.raises(ValidationError):
        scheme.category_create(question=QuestionFactory(kind=LabelKind.INTERVAL), code="a")


def test_category_update_refuses_a_cycle() -> None:
    question = QuestionFactory(kind=LabelKind.HIERARCHY)
    a = CategoryFactory(question=question, code="a")
    b = CategoryFactory(question=question, code="b", parent=a)
    CategoryFactory(question=question, code="c", parent=b)
    with pytest.raises(ValidationError) as caught:
        scheme.category_update(category=a, parent="c")
    assert codes(caught.value) == {"parent": ["cycle"]}


def test_category_delete_refuses_a_category_in_use() -> None:
    annotation = AnnotationFactory()
    assert annotation.category is not None
    with pytest.raises(ConflictError) as caught:
        scheme.category_delete(category=annotation.category)
    assert caught.value.code == "category_in_use"


def test_categories_reorder_needs_every_code_once() -> None:
    question = QuestionFactory(kind=LabelKind.ORDINAL)
    for code in "abc":
        CategoryFactory(question=question, code=code)
    ordered = scheme.categories_reorder(question=question, codes=["c", "a", "b"])
    assert [(c.code, c.position) for c in ordered] == [("c", 0), ("a", 1), ("b", 2)]
    with pytest.raises(ValidationError):
        scheme.categories_reorder(question=question, codes=["a", "a", "b"])
