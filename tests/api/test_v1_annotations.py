"""GET/DELETE /api/v1/studies/{study_pk}/annotations/: reading back, one by one, deletion."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from studies.models import Annotation, AnnotationChange, Study
from tests.api.annotation_setup import Scheme, annotations_url, build_scheme, bulk_url
from tests.factories import AnnotationFactory, CoderFactory, ItemFactory, RoundFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


@pytest.fixture
def uploaded(annotator_client: APIClient, scheme: Scheme) -> Scheme:
    """One annotation of each kind by alice on doc-1, and a sentiment by bob on doc-2."""
    uploads = [
        ("sentiment", "doc-1", "alice", "pos"),
        ("sentiment", "doc-2", "bob", "neg"),
        ("topics", "doc-1", "alice", "culture|sports"),
        ("taxon", "doc-1", "alice", "dog"),
        ("age", "doc-1", "alice", 42),
        ("score", "doc-1", "alice", -2.5),
    ]
    for question, item, coder, label in uploads:
        response = annotator_client.post(
            bulk_url(scheme.study),
            {
                "round": scheme.round.pk,
                "question": question,
                "annotations": [{"item": item, "coder": coder, "label": label}],
            },
            format="json",
        )
        assert response.status_code == 200, response.json()
    return scheme


def labels_of(body: dict[str, Any]) -> dict[tuple[str, str, str], Any]:
    return {
        (row["question"], row["item"], row["coder"]): (row["label"], row["label_path"])
        for row in body["results"]
    }


def test_the_list_gives_keys_and_labels_of_every_kind(
    viewer_client: APIClient, uploaded: Scheme
) -> None:
    response = viewer_client.get(annotations_url(uploaded.study))

    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 6
    assert labels_of(body) == {
        ("sentiment", "doc-1", "alice"): ("pos", None),
        ("sentiment", "doc-2", "bob"): ("neg", None),
        ("topics", "doc-1", "alice"): (["sports", "culture"], None),
        ("taxon", "doc-1", "alice"): ("dog", "animal/dog"),
        ("age", "doc-1", "alice"): (42.0, None),
        ("score", "doc-1", "alice"): (-2.5, None),
    }
    first = body["results"][0]
    assert set(first) == {
        "id",
        "round",
        "round_name",
        "question",
        "question_id",
        "item",
        "coder",
        "label",
        "label_path",
        "units",
        "updated_at",
    }
    assert (first["round"], first["round_name"]) == (uploaded.round.pk, "Round 1")


def test_the_list_is_paginated(viewer_client: APIClient, uploaded: Scheme) -> None:
    response = viewer_client.get(annotations_url(uploaded.study), {"page_size": 4, "page": 2})

    body = response.json()
    assert body["count"] == 6
    assert len(body["results"]) == 2
    assert body["previous"] is not None
    assert body["next"] is None


@pytest.mark.parametrize(
    ("filters", "expected"),
    [
        (
            {"question": "sentiment"},
            {("sentiment", "doc-1", "alice"), ("sentiment", "doc-2", "bob")},
        ),
        ({"item": "doc-2"}, {("sentiment", "doc-2", "bob")}),
        ({"coder": "bob"}, {("sentiment", "doc-2", "bob")}),
        ({"question": "taxon", "coder": "alice"}, {("taxon", "doc-1", "alice")}),
    ],
)
def test_the_list_filters_by_question_item_and_coder(
    viewer_client: APIClient, uploaded: Scheme, filters: dict[str, str], expected: set[Any]
) -> None:
    response = viewer_client.get(annotations_url(uploaded.study), filters)

    assert set(labels_of(response.json())) == expected


def test_the_list_filters_by_round(viewer_client: APIClient, uploaded: Scheme) -> None:
    other = RoundFactory(study=uploaded.study, name="Round 2", position=2)
    AnnotationFactory(
        round=other,
        question=uploaded.sentiment,
        item=uploaded.items["doc-2"],
        coder=uploaded.coders["alice"],
        category=uploaded.categories["neutral"],
    )

    in_round_2 = viewer_client.get(annotations_url(uploaded.study), {"round": other.pk}).json()
    in_round_1 = viewer_client.get(
        annotations_url(uploaded.study), {"round": uploaded.round.pk}
    ).json()

    assert labels_of(in_round_2) == {("sentiment", "doc-2", "alice"): ("neutral", None)}
    assert in_round_1["count"] == 6


def test_the_list_filters_by_update_time(viewer_client: APIClient, uploaded: Scheme) -> None:
    Annotation.objects.exclude(question=uploaded.age).update(
        updated_at=timezone.now() - timedelta(days=2)
    )
    since = (timezone.now() - timedelta(days=1)).isoformat()

    response = viewer_client.get(annotations_url(uploaded.study), {"updated_since": since})

    assert set(labels_of(response.json())) == {("age", "doc-1", "alice")}


def test_a_bad_filter_value_is_a_validation_error(
    viewer_client: APIClient, uploaded: Scheme
) -> None:
    response = viewer_client.get(annotations_url(uploaded.study), {"round": "first"})

    assert response.status_code == 400
    assert response.json()["errors"][0]["attr"] == "round"


def test_one_annotation_can_be_read(viewer_client: APIClient, uploaded: Scheme) -> None:
    annotation = Annotation.objects.get(question=uploaded.taxon)

    response = viewer_client.get(f"{annotations_url(uploaded.study)}{annotation.pk}/")

    assert response.status_code == 200
    body = response.json()
    assert (body["item"], body["coder"], body["label"], body["label_path"]) == (
        "doc-1",
        "alice",
        "dog",
        "animal/dog",
    )


def test_deleting_an_annotation_logs_its_old_value(
    annotator_client: APIClient, annotator: Any, uploaded: Scheme
) -> None:
    annotation = Annotation.objects.get(question=uploaded.topics)

    response = annotator_client.delete(f"{annotations_url(uploaded.study)}{annotation.pk}/")

    assert response.status_code == 204
    assert not Annotation.objects.filter(pk=annotation.pk).exists()
    change = AnnotationChange.objects.get(action=AnnotationChange.Action.DELETED)
    assert (change.old_value, change.new_value) == ("sports|culture", None)
    assert (change.item.external_id, change.coder.key, change.question) == (
        "doc-1",
        "alice",
        uploaded.topics,
    )
    assert change.changed_by == annotator


def test_an_annotation_of_a_closed_round_cannot_be_deleted(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    annotation = AnnotationFactory(
        round=scheme.closed_round,
        question=scheme.sentiment,
        item=scheme.items["doc-1"],
        coder=scheme.coders["alice"],
        category=scheme.categories["pos"],
    )

    response = annotator_client.delete(f"{annotations_url(scheme.study)}{annotation.pk}/")

    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "round_closed"
    assert Annotation.objects.filter(pk=annotation.pk).exists()
    assert not AnnotationChange.objects.exists()


def test_a_viewer_cannot_delete(viewer_client: APIClient, uploaded: Scheme) -> None:
    annotation = Annotation.objects.first()
    assert annotation is not None

    response = viewer_client.delete(f"{annotations_url(uploaded.study)}{annotation.pk}/")

    assert response.status_code == 403
    assert Annotation.objects.filter(pk=annotation.pk).exists()


def test_non_members_get_404_for_the_list_and_each_annotation(
    outsider_client: APIClient, uploaded: Scheme
) -> None:
    annotation = Annotation.objects.first()
    assert annotation is not None
    url = annotations_url(uploaded.study)

    assert outsider_client.get(url).status_code == 404
    assert outsider_client.get(f"{url}{annotation.pk}/").status_code == 404
    assert outsider_client.delete(f"{url}{annotation.pk}/").status_code == 404
    assert Annotation.objects.filter(pk=annotation.pk).exists()


def test_an_annotation_of_another_study_is_not_found_through_this_one(
    manager_client: APIClient, scheme: Scheme, outsider: Any
) -> None:
    other_study = Study.objects.get(name="Study B")
    foreign = AnnotationFactory(
        question__study=other_study,
        item=ItemFactory(study=other_study),
        coder=CoderFactory(study=other_study),
    )

    response = manager_client.get(f"{annotations_url(scheme.study)}{foreign.pk}/")
    deleted = manager_client.delete(f"{annotations_url(scheme.study)}{foreign.pk}/")

    assert response.status_code == 404
    assert deleted.status_code == 404
    assert Annotation.objects.filter(pk=foreign.pk).exists()


def test_anonymous_clients_are_refused(api_client: APIClient, uploaded: Scheme) -> None:
    response = api_client.get(annotations_url(uploaded.study))

    assert response.status_code == 401
    assert "results" not in response.json()
