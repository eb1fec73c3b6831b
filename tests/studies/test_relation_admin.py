"""The admin's question page declares a relation question's undirected labels, one box per
category as the API's ``undirected``; other kinds refuse it, and it is fixed once the
question has annotations (the scheme service's rules)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from studies.models import Category, LabelKind, Question
from tests.factories import AnnotationFactory, CategoryFactory, QuestionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(db: None) -> Client:
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def question_form(
    question: Question, categories: list[dict[str, Any]], **fields: Any
) -> dict[str, Any]:
    """The question change form with its category rows (``id`` for a stored one)."""
    data: dict[str, Any] = {
        "study": question.study_id,
        "key": question.key,
        "text": "",
        "kind": question.kind,
        "span_unit": "",
        "position": 0,
        "categories-TOTAL_FORMS": len(categories),
        "categories-INITIAL_FORMS": sum(1 for row in categories if "id" in row),
        "categories-MIN_NUM_FORMS": 0,
        "categories-MAX_NUM_FORMS": 1000,
        **fields,
    }
    for index, row in enumerate(categories):
        data[f"categories-{index}-question"] = question.pk
        data[f"categories-{index}-position"] = index
        for name, value in row.items():
            data[f"categories-{index}-{name}"] = value
    return data


def test_a_relation_question_declares_its_undirected_labels(admin_client: Client) -> None:
    question = QuestionFactory(key="rel", kind=LabelKind.RELATION)
    url = reverse("admin:studies_question_change", args=[question.pk])
    page = admin_client.get(url).content.decode()
    assert 'name="categories-__prefix__-undirected"' in page
    rows = [{"code": "works_for", "label": ""}, {"code": "knows", "label": "", "undirected": "on"}]
    saved = admin_client.post(url, question_form(question, rows))
    assert saved.status_code == 302, saved.content.decode()[:2000]
    stored = Category.objects.filter(question=question).order_by("position")
    assert [(c.code, c.undirected) for c in stored] == [("works_for", False), ("knows", True)]


def test_other_kinds_refuse_an_undirected_label(admin_client: Client) -> None:
    question = QuestionFactory(kind=LabelKind.NOMINAL)
    url = reverse("admin:studies_question_change", args=[question.pk])
    refused = admin_client.post(
        url, question_form(question, [{"code": "pos", "label": "", "undirected": "on"}])
    )
    assert refused.status_code == 200
    assert "Only relation questions declare a label undirected." in refused.content.decode()
    assert not Category.objects.filter(question=question).exists()


def test_undirected_is_fixed_once_the_question_has_annotations(admin_client: Client) -> None:
    question = QuestionFactory(kind=LabelKind.RELATION)
    knows = CategoryFactory(question=question, code="knows", position=0)
    AnnotationFactory(question=question, category=None, units=[])
    url = reverse("admin:studies_question_change", args=[question.pk])
    locked = admin_client.post(
        url,
        question_form(
            question, [{"id": knows.pk, "code": "knows", "label": "", "undirected": "on"}]
        ),
    )
    assert locked.status_code == 200
    assert (
        "Whether a label is undirected cannot change once the question has annotations (its "
        "relations are stored in the order it gives)."
    ) in locked.content.decode()
    knows.refresh_from_db()
    assert knows.undirected is False


def test_a_question_with_undirected_labels_keeps_the_relation_kind(admin_client: Client) -> None:
    question = QuestionFactory(kind=LabelKind.RELATION)
    CategoryFactory(question=question, code="knows", undirected=True)
    url = reverse("admin:studies_question_change", args=[question.pk])
    # The category rows left out of the form: the question's own form refuses the kind.
    refused = admin_client.post(url, question_form(question, [], kind=LabelKind.NOMINAL))
    assert refused.status_code == 200
    assert (
        "Some categories are undirected. Only relation questions declare a label undirected."
    ) in refused.content.decode()
    question.refresh_from_db()
    assert question.kind == LabelKind.RELATION
