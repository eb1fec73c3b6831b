"""Coders and items: one by one or in bulk (all or none), filters, pagination."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import Coder, Item, Role, Study
from tests.factories import (
    AnnotationFactory,
    CoderFactory,
    ItemFactory,
    MembershipFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def url(study: Study, resource: str, *rest: Any) -> str:
    tail = "".join(f"{part}/" for part in rest)
    return f"/api/v1/studies/{study.pk}/{resource}/{tail}"


def errors(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


def test_a_manager_registers_a_coder_linked_to_a_member(
    manager_client: APIClient, study: Study
) -> None:
    MembershipFactory(study=study, user=UserFactory(username="carol"), role=Role.VIEWER)
    response = manager_client.post(
        url(study, "coders"), {"key": "c1", "name": "Carol", "username": "carol"}, format="json"
    )
    assert response.status_code == 201, response.json()
    assert response.json()["username"] == "carol"
    coder = Coder.objects.get(study=study, key="c1")
    assert coder.user is not None
    assert coder.user.username == "carol"
    assert coder.is_active


def test_a_coder_with_an_unknown_username_is_rejected(
    manager_client: APIClient, study: Study
) -> None:
    response = manager_client.post(
        url(study, "coders"), {"key": "c1", "username": "ghost"}, format="json"
    )
    assert response.status_code == 400
    assert errors(response) == [("not_a_member", "username")]
    assert not Coder.objects.exists()


def test_coders_are_registered_in_bulk(annotator_client: APIClient, study: Study) -> None:
    response = annotator_client.post(
        url(study, "coders", "bulk"),
        [{"key": "a"}, {"key": "b", "name": "Bee", "is_active": False}],
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert [c["key"] for c in response.json()] == ["a", "b"]
    assert sorted(Coder.objects.filter(study=study).values_list("key", "is_active")) == [
        ("a", True),
        ("b", False),
    ]


def test_a_bulk_with_a_bad_entry_writes_nothing_and_names_each_bad_one(
    annotator_client: APIClient, study: Study
) -> None:
    CoderFactory(study=study, key="taken")
    response = annotator_client.post(
        url(study, "coders", "bulk"),
        [{"key": "new"}, {"key": "taken"}, {"key": "dup"}, {"key": "dup"}, {"name": "x"}],
        format="json",
    )
    assert response.status_code == 400
    assert "4.key" in [attr for _, attr in errors(response)]
    response = annotator_client.post(
        url(study, "coders", "bulk"),
        [{"key": "new"}, {"key": "taken"}, {"key": "dup"}, {"key": "dup"}],
        format="json",
    )
    assert response.status_code == 400
    assert errors(response) == [("duplicate_key", "1.key"), ("duplicate_key", "3.key")]
    assert list(Coder.objects.filter(study=study).values_list("key", flat=True)) == ["taken"]


def test_coders_are_filtered_by_active_flag(viewer_client: APIClient, study: Study) -> None:
    CoderFactory(study=study, key="on")
    CoderFactory(study=study, key="off", is_active=False)
    body = viewer_client.get(url(study, "coders") + "?is_active=false").json()
    assert [c["key"] for c in body["results"]] == ["off"]
    body = viewer_client.get(url(study, "coders")).json()
    assert [c["key"] for c in body["results"]] == ["off", "on"]


def test_a_coder_is_deactivated_and_one_with_annotations_is_not_deleted(
    annotator_client: APIClient, study: Study
) -> None:
    coder = AnnotationFactory(question__study=study).coder
    response = annotator_client.patch(
        url(study, "coders", coder.pk), {"is_active": False}, format="json"
    )
    assert response.status_code == 200
    response = annotator_client.delete(url(study, "coders", coder.pk))
    assert response.status_code == 409
    assert errors(response) == [("coder_in_use", None)]
    coder.refresh_from_db()
    assert coder.is_active is False


def test_a_viewer_cannot_register_coders(viewer_client: APIClient, study: Study) -> None:
    response = viewer_client.post(url(study, "coders"), {"key": "c"}, format="json")
    assert response.status_code == 403
    assert not Coder.objects.exists()


def test_an_item_is_registered_with_text_and_metadata(
    annotator_client: APIClient, study: Study
) -> None:
    response = annotator_client.post(
        url(study, "items"),
        {"external_id": "doc-1", "text": "Hello", "metadata": {"lang": "en", "n": [1, 2]}},
        format="json",
    )
    assert response.status_code == 201, response.json()
    item = Item.objects.get(study=study, external_id="doc-1")
    assert item.metadata == {"lang": "en", "n": [1, 2]}
    assert response.json()["metadata"] == {"lang": "en", "n": [1, 2]}


def test_items_are_registered_in_bulk_all_or_none(
    annotator_client: APIClient, study: Study
) -> None:
    response = annotator_client.post(
        url(study, "items", "bulk"),
        [{"external_id": f"doc-{i}", "text": f"t{i}"} for i in range(50)],
        format="json",
    )
    assert response.status_code == 201
    assert Item.objects.filter(study=study).count() == 50
    response = annotator_client.post(
        url(study, "items", "bulk"),
        [{"external_id": "fresh"}, {"external_id": "doc-3"}],
        format="json",
    )
    assert response.status_code == 400
    assert errors(response) == [("duplicate_external_id", "1.external_id")]
    assert not Item.objects.filter(external_id="fresh").exists()


def test_items_are_paginated_filtered_and_searched(viewer_client: APIClient, study: Study) -> None:
    for i in range(5):
        ItemFactory(study=study, external_id=f"doc-{i}", text="cats" if i % 2 else "dogs")
    ItemFactory(external_id="doc-9")  # another study
    body = viewer_client.get(url(study, "items") + "?page_size=2&page=2").json()
    assert body["count"] == 5
    assert [i["external_id"] for i in body["results"]] == ["doc-2", "doc-3"]
    body = viewer_client.get(url(study, "items") + "?external_id=doc-4").json()
    assert [i["external_id"] for i in body["results"]] == ["doc-4"]
    body = viewer_client.get(url(study, "items") + "?search=cat").json()
    assert [i["external_id"] for i in body["results"]] == ["doc-1", "doc-3"]
    body = viewer_client.get(url(study, "items") + "?external_id_in=doc-0,doc-9").json()
    assert [i["external_id"] for i in body["results"]] == ["doc-0"]


def test_a_nul_character_in_a_list_filter_is_a_400_naming_the_filter(
    viewer_client: APIClient, study: Study
) -> None:
    # Found by schemathesis on PostgreSQL, whose text columns refuse NUL (was a 500).
    response = viewer_client.get(url(study, "items") + "?external_id_in=doc-0,a%00b")
    assert response.status_code == 400
    assert response.json()["errors"][0]["attr"] == "external_id_in"


def test_an_item_is_updated_and_deleted(annotator_client: APIClient, study: Study) -> None:
    item = ItemFactory(study=study, external_id="a")
    response = annotator_client.patch(
        url(study, "items", item.pk), {"text": "new", "metadata": {"k": 1}}, format="json"
    )
    assert response.status_code == 200
    item.refresh_from_db()
    assert (item.text, item.metadata) == ("new", {"k": 1})
    assert annotator_client.delete(url(study, "items", item.pk)).status_code == 204
    assert not Item.objects.filter(pk=item.pk).exists()


def test_an_item_with_annotations_is_not_deleted(annotator_client: APIClient, study: Study) -> None:
    item = AnnotationFactory(question__study=study).item
    response = annotator_client.delete(url(study, "items", item.pk))
    assert response.status_code == 409
    assert errors(response) == [("item_in_use", None)]


def test_another_studys_item_is_not_found(manager_client: APIClient, study: Study) -> None:
    foreign = ItemFactory(external_id="secret-item")
    response = manager_client.get(url(study, "items", foreign.pk))
    assert response.status_code == 404
    assert "secret-item" not in response.content.decode()
