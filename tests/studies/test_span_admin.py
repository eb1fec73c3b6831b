"""The admin's span pages: span questions with their unit, units shown readably, extents."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from studies.models import Item, LabelKind, Question
from tests.factories import (
    AnnotationFactory,
    CategoryFactory,
    ItemFactory,
    QuestionFactory,
    StudyFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(db: None) -> Client:
    client = Client()
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    return client


def question_form(question: Question, **fields: Any) -> dict[str, Any]:
    return {
        "study": question.study_id,
        "key": question.key,
        "text": "",
        "kind": question.kind,
        "span_unit": question.span_unit,
        "position": 0,
        "categories-TOTAL_FORMS": 0,
        "categories-INITIAL_FORMS": 0,
        "categories-MIN_NUM_FORMS": 0,
        "categories-MAX_NUM_FORMS": 1000,
        **fields,
    }


def test_a_span_question_is_edited_with_its_unit(admin_client: Client) -> None:
    question = QuestionFactory(kind=LabelKind.SPAN, span_unit="")
    url = reverse("admin:studies_question_change", args=[question.pk])
    assert 'name="span_unit"' in admin_client.get(url).content.decode()
    saved = admin_client.post(url, question_form(question, span_unit="second"))
    assert saved.status_code == 302
    question.refresh_from_db()
    assert question.span_unit == "second"
    blank = admin_client.post(url, question_form(question, span_unit=""))
    assert blank.status_code == 302
    question.refresh_from_db()
    assert question.span_unit == "character"


def test_the_span_unit_is_refused_for_other_kinds_and_fixed_once_units_exist(
    admin_client: Client,
) -> None:
    nominal = QuestionFactory(kind=LabelKind.NOMINAL)
    url = reverse("admin:studies_question_change", args=[nominal.pk])
    refused = admin_client.post(url, question_form(nominal, span_unit="token"))
    assert refused.status_code == 200
    assert "Only span questions take a span unit." in refused.content.decode()
    span = QuestionFactory(kind=LabelKind.SPAN, span_unit="character")
    AnnotationFactory(question=span, category=None, units=[])
    url = reverse("admin:studies_question_change", args=[span.pk])
    locked = admin_client.post(url, question_form(span, span_unit="token"))
    assert "cannot change once units are stored" in locked.content.decode()
    span.refresh_from_db()
    assert span.span_unit == "character"


def test_span_annotations_show_their_units_as_text(admin_client: Client) -> None:
    question = QuestionFactory(kind=LabelKind.SPAN)
    per = CategoryFactory(question=question, code="PER")
    loc = CategoryFactory(question=question, code="LOC")
    AnnotationFactory(question=question, category=None, units=[[0, 5, per.pk], [17, 22, loc.pk]])
    AnnotationFactory(question=question, category=None, units=[])
    content = admin_client.get(reverse("admin:studies_annotation_changelist")).content.decode()
    assert "0-5 PER; 17-22 LOC" in content
    assert "nothing found" in content


def test_items_show_and_check_their_extent(admin_client: Client) -> None:
    study = StudyFactory()
    ItemFactory(study=study, external_id="rec", text="", extent_begin=0, extent_end=12.5)
    ItemFactory(study=study, external_id="doc", text="Hello")
    content = admin_client.get(reverse("admin:studies_item_changelist")).content.decode()
    assert "[0, 12.5)" in content
    assert "(0 – 5, the text)" in content
    url = reverse("admin:studies_item_add")
    half = admin_client.post(
        url,
        {"study": study.pk, "external_id": "x", "text": "", "metadata": "{}", "extent_end": "4"},
    )
    assert half.status_code == 200
    assert "Give both extent_begin and extent_end, or neither." in half.content.decode()
    assert not Item.objects.filter(external_id="x").exists()
