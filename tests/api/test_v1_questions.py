"""/api/v1/studies/{id}/questions/ and their categories: declare a scheme in one request
(a tree by parent codes), validation with named fields, the category sub-resource."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Category, LabelKind, Question, Study
from tests.factories import AnnotationFactory, CategoryFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def url(study: Study, *rest: Any) -> str:
    tail = "".join(f"{part}/" for part in rest)
    return f"/api/v1/studies/{study.pk}/questions/{tail}"


def errors(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


def test_a_manager_declares_a_category_tree_in_one_request(
    manager_client: APIClient, study: Study
) -> None:
    response = manager_client.post(
        url(study),
        {
            "key": "topic",
            "kind": "hierarchy",
            "text": "Which topic?",
            "categories": [
                {"code": "sports", "label": "Sports"},
                {"code": "football", "parent": "sports"},
                {"code": "tennis", "parent": "sports"},
                {"code": "politics"},
                {"code": "elections", "parent": "politics"},
            ],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["key"] == "topic"
    assert [(c["code"], c["parent"], c["position"]) for c in body["categories"]] == [
        ("sports", None, 0),
        ("football", "sports", 1),
        ("tennis", "sports", 2),
        ("politics", None, 3),
        ("elections", "politics", 4),
    ]
    question = Question.objects.get(study=study, key="topic")
    assert question.kind == LabelKind.HIERARCHY
    tennis = Category.objects.get(question=question, code="tennis")
    assert tennis.parent is not None
    assert tennis.parent.code == "sports"


def test_a_child_may_be_declared_before_its_parent(manager_client: APIClient, study: Study) -> None:
    response = manager_client.post(
        url(study),
        {
            "key": "t",
            "kind": "hierarchy",
            "categories": [{"code": "b", "parent": "a"}, {"code": "a"}],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert Category.objects.get(question__key="t", code="b").parent.code == "a"


def test_ordinal_order_is_the_declared_order(manager_client: APIClient, study: Study) -> None:
    codes = ["low", "mid", "high"]
    response = manager_client.post(
        url(study),
        {"key": "level", "kind": "ordinal", "categories": [{"code": c} for c in codes]},
        format="json",
    )
    assert response.status_code == 201
    stored = Category.objects.filter(question__key="level").order_by("position")
    assert [c.code for c in stored] == codes


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        (
            {"kind": "hierarchy", "categories": [{"code": "a", "parent": "nope"}]},
            [("unknown_parent", "categories.0.parent")],
        ),
        (
            {
                "kind": "hierarchy",
                "categories": [{"code": "a", "parent": "b"}, {"code": "b", "parent": "a"}],
            },
            [("cycle", "categories.0.parent"), ("cycle", "categories.1.parent")],
        ),
        (
            {"kind": "nominal", "categories": [{"code": "a"}, {"code": "b"}, {"code": "a"}]},
            [("duplicate_code", "categories.2.code")],
        ),
        (
            {"kind": "nominal", "categories": [{"code": "a"}, {"code": "b", "parent": "a"}]},
            [("parent_not_allowed", "categories.1.parent")],
        ),
        ({"kind": "nominal", "min_value": 0}, [("range_not_allowed", "min_value")]),
        (
            {"kind": "interval", "categories": [{"code": "a"}]},
            [("categories_not_allowed", "categories")],
        ),
        (
            {"kind": "nominal", "categories": [{"code": "a|b"}]},
            [("invalid_code", "categories.0.code")],
        ),
        ({"kind": "colour"}, [("invalid_choice", "kind")]),
    ],
    ids=[
        "unknown-parent",
        "cycle",
        "duplicate-code",
        "parent-on-non-hierarchy",
        "range-on-non-numeric",
        "categories-on-numeric",
        "separator-in-code",
        "unknown-kind",
    ],
)
def test_an_invalid_scheme_is_rejected_naming_each_bad_field(
    manager_client: APIClient, study: Study, body: dict[str, Any], expected: list[Any]
) -> None:
    response = manager_client.post(url(study), {"key": "q", **body}, format="json")
    assert response.status_code == 400
    assert response.json()["type"] == "validation_error"
    assert sorted(errors(response)) == sorted(expected)
    assert not Question.objects.filter(study=study).exists()
    assert not Category.objects.exists()


def test_a_numeric_question_takes_a_range(manager_client: APIClient, study: Study) -> None:
    response = manager_client.post(
        url(study),
        {"key": "score", "kind": "interval", "min_value": 1, "max_value": 7},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["min_value"] == 1
    assert Question.objects.get(key="score").max_value == 7


def test_a_duplicate_question_key_is_rejected(manager_client: APIClient, study: Study) -> None:
    QuestionFactory(study=study, key="q")
    response = manager_client.post(url(study), {"key": "q", "kind": "nominal"}, format="json")
    assert response.status_code == 400
    assert errors(response) == [("duplicate_key", "key")]


def test_questions_are_listed_in_order_with_their_categories(
    viewer_client: APIClient, study: Study
) -> None:
    second = QuestionFactory(study=study, key="b", position=2)
    first = QuestionFactory(study=study, key="a", position=1)
    CategoryFactory(question=first, code="x", position=0)
    CategoryFactory(question=second, code="y", position=0)
    body = viewer_client.get(url(study)).json()
    assert body["count"] == 2
    assert [(q["key"], [c["code"] for c in q["categories"]]) for q in body["results"]] == [
        ("a", ["x"]),
        ("b", ["y"]),
    ]
    assert viewer_client.get(url(study) + "?kind=set").json()["count"] == 0


def test_a_manager_updates_a_question(manager_client: APIClient, study: Study) -> None:
    question = QuestionFactory(study=study, key="q", kind=LabelKind.NOMINAL)
    response = manager_client.patch(
        url(study, question.pk), {"text": "New?", "kind": "ordinal"}, format="json"
    )
    assert response.status_code == 200
    question.refresh_from_db()
    assert (question.text, question.kind) == ("New?", LabelKind.ORDINAL)


def test_the_kind_cannot_change_once_annotated(manager_client: APIClient, study: Study) -> None:
    annotation = AnnotationFactory(question=QuestionFactory(study=study))
    response = manager_client.patch(
        url(study, annotation.question.pk), {"kind": "ordinal"}, format="json"
    )
    assert response.status_code == 400
    assert errors(response) == [("kind_locked", "kind")]


def test_a_question_without_annotations_is_deleted_with_its_tree(
    manager_client: APIClient, study: Study
) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.HIERARCHY)
    root = CategoryFactory(question=question, code="root")
    CategoryFactory(question=question, code="leaf", parent=root)
    assert manager_client.delete(url(study, question.pk)).status_code == 204
    assert not Question.objects.filter(pk=question.pk).exists()
    assert not Category.objects.filter(question_id=question.pk).exists()


def test_a_question_with_annotations_cannot_be_deleted(
    manager_client: APIClient, study: Study
) -> None:
    annotation = AnnotationFactory(question=QuestionFactory(study=study))
    response = manager_client.delete(url(study, annotation.question.pk))
    assert response.status_code == 409
    assert errors(response) == [("question_in_use", None)]
    assert Question.objects.filter(pk=annotation.question.pk).exists()


def test_an_annotator_cannot_change_the_scheme(annotator_client: APIClient, study: Study) -> None:
    response = annotator_client.post(url(study), {"key": "q", "kind": "nominal"}, format="json")
    assert response.status_code == 403
    assert not Question.objects.exists()


# --- categories sub-resource ---------------------------------------------------------------


@pytest.fixture
def ordinal(study: Study) -> Question:
    question = QuestionFactory(study=study, key="level", kind=LabelKind.ORDINAL)
    for position, code in enumerate(["low", "mid", "high"]):
        CategoryFactory(question=question, code=code, position=position)
    return question


def codes_of(question: Question) -> list[str]:
    return list(question.categories.order_by("position").values_list("code", flat=True))


def test_a_category_is_added_at_the_end_or_at_a_position(
    manager_client: APIClient, study: Study, ordinal: Question
) -> None:
    response = manager_client.post(
        url(study, ordinal.pk, "categories"), {"code": "top", "label": "Top"}, format="json"
    )
    assert response.status_code == 201
    assert response.json()["position"] == 3
    response = manager_client.post(
        url(study, ordinal.pk, "categories"), {"code": "zero", "position": 0}, format="json"
    )
    assert response.status_code == 201
    assert codes_of(ordinal) == ["zero", "low", "mid", "high", "top"]
    assert list(ordinal.categories.order_by("position").values_list("position", flat=True)) == [
        0,
        1,
        2,
        3,
        4,
    ]


def test_a_category_is_renamed_and_moved(
    manager_client: APIClient, study: Study, ordinal: Question
) -> None:
    high = ordinal.categories.get(code="high")
    response = manager_client.patch(
        url(study, ordinal.pk, "categories", high.pk),
        {"code": "hi", "label": "High", "position": 0},
        format="json",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["code"] == "hi"
    assert codes_of(ordinal) == ["hi", "low", "mid"]


def test_categories_are_reordered_in_one_request(
    manager_client: APIClient, study: Study, ordinal: Question
) -> None:
    response = manager_client.post(
        url(study, ordinal.pk, "categories", "reorder"),
        {"codes": ["high", "mid", "low"]},
        format="json",
    )
    assert response.status_code == 200
    assert [c["code"] for c in response.json()] == ["high", "mid", "low"]
    assert codes_of(ordinal) == ["high", "mid", "low"]
    response = manager_client.post(
        url(study, ordinal.pk, "categories", "reorder"), {"codes": ["high"]}, format="json"
    )
    assert response.status_code == 400
    assert errors(response) == [("not_a_permutation", "codes")]


def test_a_category_in_use_cannot_be_deleted(
    manager_client: APIClient, study: Study, ordinal: Question
) -> None:
    low = ordinal.categories.get(code="low")
    AnnotationFactory(question=ordinal, category=low)
    response = manager_client.delete(url(study, ordinal.pk, "categories", low.pk))
    assert response.status_code == 409
    assert errors(response) == [("category_in_use", None)]
    assert Category.objects.filter(pk=low.pk).exists()


def test_a_category_in_a_set_label_cannot_be_deleted(
    manager_client: APIClient, study: Study
) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.SET)
    a = CategoryFactory(question=question, code="a")
    b = CategoryFactory(question=question, code="b")
    AnnotationFactory(question=question, category=None, category_set=[a.pk])
    assert manager_client.delete(url(study, question.pk, "categories", a.pk)).status_code == 409
    assert manager_client.delete(url(study, question.pk, "categories", b.pk)).status_code == 204
    assert codes_of(question) == ["a"]


def test_an_unused_category_is_deleted_and_the_order_closes_up(
    manager_client: APIClient, study: Study, ordinal: Question
) -> None:
    mid = ordinal.categories.get(code="mid")
    assert manager_client.delete(url(study, ordinal.pk, "categories", mid.pk)).status_code == 204
    assert list(ordinal.categories.order_by("position").values_list("code", "position")) == [
        ("low", 0),
        ("high", 1),
    ]


def test_a_parent_with_children_cannot_be_deleted(manager_client: APIClient, study: Study) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.HIERARCHY)
    root = CategoryFactory(question=question, code="root")
    CategoryFactory(question=question, code="leaf", parent=root)
    response = manager_client.delete(url(study, question.pk, "categories", root.pk))
    assert response.status_code == 409
    assert errors(response) == [("category_has_children", None)]


def test_moving_a_node_under_its_own_descendant_is_a_cycle(
    manager_client: APIClient, study: Study
) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.HIERARCHY)
    root = CategoryFactory(question=question, code="root")
    CategoryFactory(question=question, code="leaf", parent=root)
    response = manager_client.patch(
        url(study, question.pk, "categories", root.pk), {"parent": "leaf"}, format="json"
    )
    assert response.status_code == 400
    assert errors(response) == [("cycle", "parent")]


def test_categories_of_another_studys_question_are_not_found(
    manager_client: APIClient, study: Study
) -> None:
    foreign = QuestionFactory()
    CategoryFactory(question=foreign, code="secret")
    response = manager_client.get(url(study, foreign.pk, "categories"))
    assert response.status_code == 404
    assert "secret" not in response.content.decode()


def test_listing_questions_does_not_query_once_per_question_or_category(
    viewer_client: APIClient, study: Study, django_assert_max_num_queries: Any
) -> None:
    for i in range(10):
        question = QuestionFactory(study=study, kind=LabelKind.HIERARCHY)
        root = CategoryFactory(question=question, code=f"root{i}")
        CategoryFactory(question=question, code=f"leaf{i}", parent=root)
    with django_assert_max_num_queries(6):
        body = viewer_client.get(url(study)).json()
    assert body["count"] == 10
    assert body["results"][0]["categories"][1]["parent"].startswith("root")
