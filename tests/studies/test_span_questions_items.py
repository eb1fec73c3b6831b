"""Span questions (span_unit, categories = unit labels) and item extents over the API."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import LabelKind, Question, SpanUnit, Study
from tests.factories import AnnotationFactory, ItemFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def questions_url(study: Study, *rest: Any) -> str:
    return f"/api/v1/studies/{study.pk}/questions/{''.join(f'{p}/' for p in rest)}"


def items_url(study: Study, *rest: Any) -> str:
    return f"/api/v1/studies/{study.pk}/items/{''.join(f'{p}/' for p in rest)}"


def errors(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


def test_a_span_question_is_declared_with_its_unit_and_labels(
    manager_client: APIClient, study: Study
) -> None:
    response = manager_client.post(
        questions_url(study),
        {
            "key": "entities",
            "kind": "span",
            "span_unit": "token",
            "categories": [{"code": "PER"}, {"code": "ORG"}],
        },
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert (body["kind"], body["span_unit"]) == ("span", "token")
    assert [c["code"] for c in body["categories"]] == ["PER", "ORG"]
    assert Question.objects.get(key="entities").span_unit == SpanUnit.TOKEN


def test_a_span_question_counts_characters_by_default_and_others_have_no_unit(
    manager_client: APIClient, study: Study
) -> None:
    span = manager_client.post(
        questions_url(study), {"key": "spans", "kind": "span"}, format="json"
    )
    nominal = manager_client.post(
        questions_url(study), {"key": "tone", "kind": "nominal"}, format="json"
    )
    assert (span.json()["span_unit"], nominal.json()["span_unit"]) == ("character", None)


def test_span_unit_on_another_kind_is_a_400_naming_the_field(
    manager_client: APIClient, study: Study
) -> None:
    response = manager_client.post(
        questions_url(study),
        {"key": "tone", "kind": "nominal", "span_unit": "character"},
        format="json",
    )
    assert response.status_code == 400
    assert errors(response) == [("span_unit_not_allowed", "span_unit")]
    unknown = manager_client.post(
        questions_url(study), {"key": "s", "kind": "span", "span_unit": "minute"}, format="json"
    )
    assert errors(unknown) == [("invalid_choice", "span_unit")]
    span_parent = manager_client.post(
        questions_url(study),
        {"key": "s", "kind": "span", "categories": [{"code": "A"}, {"code": "B", "parent": "A"}]},
        format="json",
    )
    assert errors(span_parent) == [("parent_not_allowed", "categories.1.parent")]
    assert not Question.objects.exists()


def test_the_span_unit_changes_until_units_are_stored(
    manager_client: APIClient, study: Study
) -> None:
    question = QuestionFactory(study=study, key="turns", kind=LabelKind.SPAN, span_unit="")
    changed = manager_client.patch(
        questions_url(study, question.pk), {"span_unit": "second"}, format="json"
    )
    assert changed.json()["span_unit"] == "second"
    AnnotationFactory(question=question, category=None, units=[])
    locked = manager_client.patch(
        questions_url(study, question.pk), {"span_unit": "token"}, format="json"
    )
    assert errors(locked) == [("span_unit_locked", "span_unit")]
    same = manager_client.patch(
        questions_url(study, question.pk), {"span_unit": "second", "text": "Turns"}, format="json"
    )
    assert same.status_code == 200


def test_a_kind_change_sets_or_drops_the_span_unit(manager_client: APIClient, study: Study) -> None:
    question = QuestionFactory(study=study, key="q", kind=LabelKind.NOMINAL)
    to_span = manager_client.patch(
        questions_url(study, question.pk), {"kind": "span"}, format="json"
    )
    assert to_span.json()["span_unit"] == "character"
    back = manager_client.patch(questions_url(study, question.pk), {"kind": "set"}, format="json")
    assert back.json()["span_unit"] is None
    question.refresh_from_db()
    assert question.span_unit == ""
    refused = manager_client.patch(
        questions_url(study, question.pk), {"span_unit": "token"}, format="json"
    )
    assert errors(refused) == [("span_unit_not_allowed", "span_unit")]


def test_items_take_an_extent_of_both_ends_or_none(
    annotator_client: APIClient, study: Study
) -> None:
    created = annotator_client.post(
        items_url(study),
        {"external_id": "rec-1", "extent_begin": 0, "extent_end": 12.5},
        format="json",
    )
    assert created.status_code == 201, created.json()
    assert (created.json()["extent_begin"], created.json()["extent_end"]) == (0.0, 12.5)
    plain = annotator_client.post(items_url(study), {"external_id": "doc-1"}, format="json")
    assert (plain.json()["extent_begin"], plain.json()["extent_end"]) == (None, None)
    half = annotator_client.post(
        items_url(study), {"external_id": "x", "extent_begin": 3}, format="json"
    )
    assert errors(half) == [("extent_incomplete", "extent_end")]
    reversed_ = annotator_client.post(
        items_url(study), {"external_id": "x", "extent_begin": 9, "extent_end": 3}, format="json"
    )
    assert errors(reversed_) == [("extent_reversed", "extent_end")]
    infinite = annotator_client.post(
        items_url(study),
        {"external_id": "x", "extent_begin": 0, "extent_end": "inf"},
        format="json",
    )
    assert errors(infinite) == [("invalid", "extent_end")]
    bulk = annotator_client.post(
        items_url(study, "bulk"),
        [
            {"external_id": "a", "extent_begin": 0, "extent_end": 5},
            {"external_id": "b", "extent_end": 5},
        ],
        format="json",
    )
    assert errors(bulk) == [("extent_incomplete", "1.extent_begin")]


def test_a_new_extent_must_hold_the_stored_units(annotator_client: APIClient, study: Study) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN)
    item = ItemFactory(study=study, external_id="rec", text="", extent_begin=0, extent_end=100)
    annotation = AnnotationFactory(question=question, item=item)
    annotation.category = None
    annotation.units = [[10, 60, 1]]
    annotation.save()
    too_small = annotator_client.patch(items_url(study, item.pk), {"extent_end": 50}, format="json")
    assert errors(too_small) == [("units_outside_extent", "extent_end")]
    half = annotator_client.patch(items_url(study, item.pk), {"extent_begin": None}, format="json")
    assert errors(half) == [("extent_incomplete", "extent_begin")]
    short_text = annotator_client.patch(
        items_url(study, item.pk),
        {"extent_begin": None, "extent_end": None, "text": "too short"},
        format="json",
    )
    assert errors(short_text) == [("units_outside_extent", "text")]
    fits = annotator_client.patch(
        items_url(study, item.pk), {"extent_begin": 5, "extent_end": 60}, format="json"
    )
    assert fits.status_code == 200, fits.json()
    assert (fits.json()["extent_begin"], fits.json()["extent_end"]) == (5.0, 60.0)


def test_a_label_that_units_use_cannot_be_deleted(manager_client: APIClient, study: Study) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN)
    used = manager_client.post(
        questions_url(study, question.pk, "categories"), {"code": "PER"}, format="json"
    ).json()
    unused = manager_client.post(
        questions_url(study, question.pk, "categories"), {"code": "ORG"}, format="json"
    ).json()
    AnnotationFactory(question=question, category=None, units=[[0, 5, used["id"]]])
    refused = manager_client.delete(questions_url(study, question.pk, "categories", used["id"]))
    assert errors(refused) == [("category_in_use", None)]
    deleted = manager_client.delete(questions_url(study, question.pk, "categories", unused["id"]))
    assert deleted.status_code == 204
