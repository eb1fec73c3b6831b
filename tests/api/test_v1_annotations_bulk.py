"""POST /api/v1/studies/{study_pk}/annotations/bulk/: JSON and CSV uploads, all or none."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from annotations import services as annotation_services
from annotations.api import parsers as csv_parsers
from studies.models import Annotation, AnnotationChange, Coder, Item, Role, Study
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def post_json(client: APIClient, scheme: Scheme, **body: Any) -> Any:
    return client.post(bulk_url(scheme.study), body, format="json")


def post_csv(client: APIClient, scheme: Scheme, text: str, **query: str) -> Any:
    params = "&".join(f"{key}={value}" for key, value in query.items())
    return client.post(
        f"{bulk_url(scheme.study)}?{params}", data=text.encode(), content_type="text/csv"
    )


def stored(scheme: Scheme, question_key: str) -> dict[tuple[str, str], Any]:
    """{(item, coder): value} of the open round's annotations of one question."""
    values: dict[tuple[str, str], Any] = {}
    for annotation in Annotation.objects.filter(
        round=scheme.round, question__key=question_key
    ).select_related("item", "coder", "category"):
        key = (annotation.item.external_id, annotation.coder.key)
        if annotation.category is not None:
            values[key] = annotation.category.code
        elif annotation.number is not None:
            values[key] = annotation.number
        else:
            values[key] = annotation.category_set
    return values


def test_a_json_upload_creates_annotations_and_reports_counts(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        annotations=[
            {"item": "doc-1", "coder": "alice", "label": "pos"},
            {"item": "doc-1", "coder": "bob", "label": "neg"},
            {"item": "doc-2", "coder": "alice", "label": "neutral"},
        ],
    )

    assert response.status_code == 200, response.json()
    assert response.json() == {
        "created": 3,
        "updated": 0,
        "unchanged": 0,
        "items_created": 0,
        "coders_created": 0,
        "categories_created": [],
    }
    assert stored(scheme, "sentiment") == {
        ("doc-1", "alice"): "pos",
        ("doc-1", "bob"): "neg",
        ("doc-2", "alice"): "neutral",
    }


def test_the_round_can_be_named_instead_of_given_by_id(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        round="Round 1",
        question="sentiment",
        annotations=[{"item": "doc-1", "coder": "alice", "label": "pos"}],
    )

    assert response.status_code == 200
    assert stored(scheme, "sentiment") == {("doc-1", "alice"): "pos"}


def test_a_rejection_names_every_bad_row_and_field(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        annotations=[
            {"item": "doc-1", "coder": "alice", "label": "pos"},
            {"item": "doc-1", "coder": "bob", "label": "nope"},
            {"item": "doc-2", "coder": "alice", "label": ["pos", "neg"]},
            {"item": "doc-2", "coder": "bob", "label": "pos|neg"},
            {"item": "doc-1", "coder": "alice", "label": "neg"},
            {"item": "ghost", "coder": "alice", "label": "pos"},
            {"item": "doc-2", "coder": "carol", "label": "pos"},
            {"item": "doc-2", "coder": "bob"},
            {"coder": "bob", "label": "pos"},
            "not an object",
        ],
    )

    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "validation_error"
    assert [(error["attr"], error["code"]) for error in body["errors"]] == [
        ("annotations.1.label", "unknown_category"),
        ("annotations.2.label", "set_for_single_label"),
        ("annotations.3.label", "set_for_single_label"),
        ("annotations.4", "duplicate_row"),
        ("annotations.5.item", "unknown_item"),
        ("annotations.6.coder", "unknown_coder"),
        ("annotations.7.label", "required"),
        ("annotations.8.item", "required"),
        ("annotations.9", "invalid_type"),
    ]
    assert "row 0" in body["errors"][3]["detail"]
    assert Annotation.objects.count() == 0
    assert AnnotationChange.objects.count() == 0


def test_numbers_are_checked_against_the_question_range(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="age",
        annotations=[
            {"item": "doc-1", "coder": "alice", "label": 42},
            {"item": "doc-1", "coder": "bob", "label": "abc"},
            {"item": "doc-2", "coder": "alice", "label": 130},
            {"item": "doc-2", "coder": "bob", "label": -1},
        ],
    )

    assert response.status_code == 400
    assert [(e["attr"], e["code"]) for e in response.json()["errors"]] == [
        ("annotations.1.label", "not_a_number"),
        ("annotations.2.label", "number_out_of_range"),
        ("annotations.3.label", "number_out_of_range"),
    ]


def test_a_batch_with_one_bad_row_writes_nothing(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    rows = [{"item": f"new-{n}", "coder": "alice", "label": "pos"} for n in range(50)]
    rows.append({"item": "doc-1", "coder": "alice", "label": "unknown"})

    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        create_missing=True,
        annotations=rows,
    )

    assert response.status_code == 400
    assert [e["attr"] for e in response.json()["errors"]] == ["annotations.50.label"]
    assert Annotation.objects.count() == 0
    assert not Item.objects.filter(external_id__startswith="new-").exists()
    assert AnnotationChange.objects.count() == 0


def test_the_same_upload_sent_twice_changes_nothing_the_second_time(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    body = {
        "round": scheme.round.pk,
        "question": "topics",
        "annotations": [
            {"item": "doc-1", "coder": "alice", "label": ["politics", "sports"]},
            {"item": "doc-1", "coder": "bob", "label": "culture"},
        ],
    }
    first = post_json(annotator_client, scheme, **body)
    annotation_times = sorted(Annotation.objects.values_list("id", "updated_at"))
    changes_after_first = AnnotationChange.objects.count()

    second = post_json(annotator_client, scheme, **body)

    assert first.json()["created"] == 2
    assert second.status_code == 200
    assert second.json() == {
        "created": 0,
        "updated": 0,
        "unchanged": 2,
        "items_created": 0,
        "coders_created": 0,
        "categories_created": [],
    }
    assert sorted(Annotation.objects.values_list("id", "updated_at")) == annotation_times
    assert AnnotationChange.objects.count() == changes_after_first == 2


def test_a_set_written_in_another_order_is_unchanged(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    row = {"item": "doc-1", "coder": "alice"}
    post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="topics",
        annotations=[{**row, "label": "sports|politics"}],
    )

    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="topics",
        annotations=[{**row, "label": ["politics", "sports", "politics"]}],
    )

    assert response.json()["unchanged"] == 1
    ids = sorted([scheme.categories["sports"].pk, scheme.categories["politics"].pk])
    assert stored(scheme, "topics") == {("doc-1", "alice"): ids}


def test_an_update_is_logged_with_old_and_new_value_and_the_token(
    client_for: Callable[..., APIClient],
    study_token: Callable[[Role], Any],
    scheme: Scheme,
) -> None:
    token, secret = study_token(Role.ANNOTATOR)
    client = client_for(token_secret=secret)
    row = {"item": "doc-1", "coder": "alice"}
    post_json(
        client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        annotations=[{**row, "label": "pos"}, {"item": "doc-2", "coder": "bob", "label": "neg"}],
    )

    response = post_json(
        client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        annotations=[
            {**row, "label": "neutral"},
            {"item": "doc-2", "coder": "bob", "label": "neg"},
        ],
    )

    assert response.json() == {
        "created": 0,
        "updated": 1,
        "unchanged": 1,
        "items_created": 0,
        "coders_created": 0,
        "categories_created": [],
    }
    update = AnnotationChange.objects.get(action=AnnotationChange.Action.UPDATED)
    assert (update.item.external_id, update.coder.key) == ("doc-1", "alice")
    assert (update.old_value, update.new_value) == ("pos", "neutral")
    assert update.token == token
    assert update.changed_by is None
    assert update.study == scheme.study
    assert stored(scheme, "sentiment")[("doc-1", "alice")] == "neutral"


def test_a_user_upload_logs_the_user(
    annotator_client: APIClient, annotator: Any, scheme: Scheme
) -> None:
    post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="score",
        annotations=[{"item": "doc-1", "coder": "alice", "label": "2.5"}],
    )

    change = AnnotationChange.objects.get()
    assert change.action == AnnotationChange.Action.CREATED
    assert (change.old_value, change.new_value) == (None, "2.5")
    assert change.changed_by == annotator
    assert change.token is None


def test_a_csv_upload_takes_sets_and_hierarchy_paths(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    topics = post_csv(
        annotator_client,
        scheme,
        "item,coder,label\r\ndoc-1,alice,sports|culture\r\ndoc-1,bob,politics\r\n",
        round=str(scheme.round.pk),
        question="topics",
    )
    taxon = post_csv(
        annotator_client,
        scheme,
        "\ufeffitem,coder,label\ndoc-1,alice,animal/dog\ndoc-1,bob,cat\ndoc-2,alice,/plant/tree/\n",
        round="Round 1",
        question="taxon",
    )

    assert topics.status_code == 200, topics.json()
    assert topics.json()["created"] == 2
    c = scheme.categories
    assert stored(scheme, "topics") == {
        ("doc-1", "alice"): sorted([c["sports"].pk, c["culture"].pk]),
        ("doc-1", "bob"): [c["politics"].pk],
    }
    assert taxon.status_code == 200, taxon.json()
    assert stored(scheme, "taxon") == {
        ("doc-1", "alice"): "dog",
        ("doc-1", "bob"): "cat",
        ("doc-2", "alice"): "tree",
    }


def test_a_csv_rejection_names_rows_and_fields(annotator_client: APIClient, scheme: Scheme) -> None:
    response = post_csv(
        annotator_client,
        scheme,
        "label,item,coder\nanimal/tree,doc-1,alice\ndog|cat,doc-1,bob\n,doc-2,alice\n",
        round="Round 1",
        question="taxon",
    )

    assert response.status_code == 400
    assert [(e["attr"], e["code"]) for e in response.json()["errors"]] == [
        ("annotations.0.label", "unknown_node"),
        ("annotations.1.label", "set_for_single_label"),
        ("annotations.2.label", "required"),
    ]


def test_a_csv_upload_without_its_columns_is_a_parse_error(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_csv(
        annotator_client, scheme, "item,label\ndoc-1,pos\n", round="Round 1", question="sentiment"
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "parse_error"
    assert "coder" in response.json()["errors"][0]["detail"]


def test_a_csv_upload_needs_round_and_question_in_the_query(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_csv(annotator_client, scheme, "item,coder,label\ndoc-1,alice,pos\n")

    assert response.status_code == 400
    assert [(e["attr"], e["code"]) for e in response.json()["errors"]] == [
        ("round", "required"),
        ("question", "required"),
    ]


def test_unknown_round_and_question_are_named(annotator_client: APIClient, scheme: Scheme) -> None:
    response = post_json(annotator_client, scheme, round="Round 9", question="mood", annotations=[])

    assert response.status_code == 400
    assert [(e["attr"], e["code"]) for e in response.json()["errors"]] == [
        ("round", "unknown_round"),
        ("question", "unknown_question"),
    ]


def test_create_missing_creates_unknown_items_and_coders(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        create_missing=True,
        annotations=[
            {"item": "doc-1", "coder": "alice", "label": "pos"},
            {"item": "doc-3", "coder": "carol", "label": "neg"},
            {"item": "doc-3", "coder": "dave", "label": "neg"},
            {"item": "doc-4", "coder": "carol", "label": "pos"},
        ],
    )

    assert response.status_code == 200
    assert response.json() == {
        "created": 4,
        "updated": 0,
        "unchanged": 0,
        "items_created": 2,
        "coders_created": 2,
        "categories_created": [],
    }
    study = scheme.study
    assert set(Item.objects.filter(study=study).values_list("external_id", flat=True)) == {
        "doc-1",
        "doc-2",
        "doc-3",
        "doc-4",
    }
    assert set(Coder.objects.filter(study=study).values_list("key", flat=True)) == {
        "alice",
        "bob",
        "carol",
        "dave",
    }
    assert stored(scheme, "sentiment")[("doc-3", "dave")] == "neg"


def test_items_of_another_study_are_unknown_here(
    annotator_client: APIClient, scheme: Scheme, outsider: Any
) -> None:
    other = Study.objects.get(name="Study B")
    Item.objects.create(study=other, external_id="foreign")

    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        annotations=[{"item": "foreign", "coder": "alice", "label": "pos"}],
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "unknown_item"


def test_a_closed_round_refuses_uploads(annotator_client: APIClient, scheme: Scheme) -> None:
    response = post_json(
        annotator_client,
        scheme,
        round="Pilot",
        question="sentiment",
        annotations=[{"item": "doc-1", "coder": "alice", "label": "pos"}],
    )

    assert response.status_code == 409
    assert response.json()["type"] == "client_error"
    assert response.json()["errors"][0]["code"] == "round_closed"
    assert Annotation.objects.count() == 0


def test_more_rows_than_allowed_are_refused_as_too_large(
    annotator_client: APIClient, scheme: Scheme, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(annotation_services, "MAX_BULK_ROWS", 3)
    rows = [{"item": f"d{n}", "coder": "alice", "label": "pos"} for n in range(4)]

    response = post_json(
        annotator_client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        create_missing=True,
        annotations=rows,
    )

    assert response.status_code == 413
    assert response.json()["errors"][0]["code"] == "too_many_rows"
    assert Annotation.objects.count() == 0


def test_the_error_list_is_capped_with_a_total(
    annotator_client: APIClient, scheme: Scheme, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(annotation_services, "MAX_REPORTED_ERRORS", 5)
    rows = [{"item": "doc-1", "coder": "alice", "label": f"bad{n}"} for n in range(8)]

    response = post_json(
        annotator_client, scheme, round=scheme.round.pk, question="sentiment", annotations=rows
    )

    errors = response.json()["errors"]
    assert len(errors) == 6
    assert errors[-1]["code"] == "too_many_errors"
    assert errors[-1]["attr"] == "annotations"
    assert "8 errors" in errors[-1]["detail"]


def test_annotations_must_be_a_list(annotator_client: APIClient, scheme: Scheme) -> None:
    response = post_json(
        annotator_client, scheme, round=scheme.round.pk, question="sentiment", annotations={}
    )

    assert response.status_code == 400
    assert [(e["attr"], e["code"]) for e in response.json()["errors"]] == [
        ("annotations", "not_a_list")
    ]


@pytest.mark.parametrize(
    ("client_name", "expected"),
    [
        ("manager_client", 200),
        ("annotator_client", 200),
        ("viewer_client", 403),
        ("outsider_client", 404),
        ("api_client", 401),
    ],
)
def test_only_annotators_and_managers_upload(
    request: pytest.FixtureRequest, scheme: Scheme, client_name: str, expected: int
) -> None:
    client = request.getfixturevalue(client_name)

    response = post_json(
        client,
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        annotations=[{"item": "doc-1", "coder": "alice", "label": "pos"}],
    )

    assert response.status_code == expected
    assert Annotation.objects.count() == (1 if expected == 200 else 0)


@pytest.mark.parametrize(("role", "expected"), [(Role.ANNOTATOR, 200), (Role.VIEWER, 403)])
def test_study_tokens_upload_by_their_role(
    client_for: Callable[..., APIClient],
    study_token: Callable[[Role], Any],
    scheme: Scheme,
    role: Role,
    expected: int,
) -> None:
    _, secret = study_token(role)

    response = post_json(
        client_for(token_secret=secret),
        scheme,
        round=scheme.round.pk,
        question="sentiment",
        annotations=[{"item": "doc-1", "coder": "alice", "label": "pos"}],
    )

    assert response.status_code == expected


def test_a_csv_body_that_is_not_utf8_is_a_parse_error(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = annotator_client.post(
        f"{bulk_url(scheme.study)}?round=Round%201&question=sentiment",
        data="item,coder,label\ndoc-1,alice,pos\u00e9\n".encode("latin-1"),
        content_type="text/csv",
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "parse_error"


def test_an_empty_csv_body_is_a_parse_error(annotator_client: APIClient, scheme: Scheme) -> None:
    response = post_csv(annotator_client, scheme, "", round="Round 1", question="sentiment")

    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "parse_error"


def test_a_csv_upload_with_more_rows_than_a_bulk_upload_streams_through_the_ingest(
    annotator_client: APIClient, scheme: Scheme, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(annotation_services, "MAX_BULK_ROWS", 2)
    monkeypatch.setattr(csv_parsers, "MAX_BULK_ROWS", 2)
    text = "item,coder,label\n" + "".join(f"row-{n},alice,pos\n" for n in range(5))

    response = post_csv(
        annotator_client,
        scheme,
        text,
        round="Round 1",
        question="sentiment",
        create_missing="true",
    )

    # Issue 12: a crowd-sized CSV is streamed in batches (annotations.ingest), not refused.
    assert response.status_code == 200, response.json()
    assert (response.json()["rows"], response.json()["created"]) == (5, 5)
    assert Item.objects.filter(external_id__startswith="row-").count() == 5


def test_a_csv_upload_can_create_missing_items_and_coders(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_csv(
        annotator_client,
        scheme,
        "item,coder,label,comment\ndoc-9,zoe,neg,ignored\n",
        round="Round 1",
        question="sentiment",
        create_missing="true",
    )

    assert response.status_code == 200, response.json()
    assert response.json()["items_created"] == 1
    assert response.json()["coders_created"] == 1
    assert stored(scheme, "sentiment") == {("doc-9", "zoe"): "neg"}
