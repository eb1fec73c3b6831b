"""POST /api/v1/studies/{study_pk}/annotations/spans/ (JSON, CSV, multipart) and span
annotations read back through the annotation list, detail and change log."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from studies.models import Annotation, ApiToken, Role, Study
from tests.annotations.span_setup import SpanScheme, build_span_scheme, spans_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> SpanScheme:
    return build_span_scheme(study)


def post_json(client: APIClient, scheme: SpanScheme, **body: Any) -> Any:
    return client.post(spans_url(scheme.study), body, format="json")


def post_csv(client: APIClient, scheme: SpanScheme, text: str, **query: str) -> Any:
    params = "&".join(f"{key}={value}" for key, value in query.items())
    return client.post(
        f"{spans_url(scheme.study)}?{params}", data=text.encode(), content_type="text/csv"
    )


def errors(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


def stored(scheme: SpanScheme) -> dict[tuple[str, str], Any]:
    codes = {c.pk: code for code, c in scheme.categories.items()}
    return {
        (item, coder): [(b, e, codes[c]) for b, e, c in units]
        for item, coder, units in Annotation.objects.filter(
            round=scheme.round, question=scheme.entities
        ).values_list("item__external_id", "coder__key", "units")
    }


CSV = (
    "document,coder,begin,end,label\n"
    "doc-1,alice,17,22,LOC\n"
    "doc-1,alice,0,5,PER\n"
    "doc-1,bob,0,5,PER\n"
    "doc-1,carol,,,\n"
)


def test_a_json_upload_replaces_units_and_answers_with_counts(
    annotator_client: APIClient, scheme: SpanScheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        round="Round 1",
        question="entities",
        documents=[{"document": "doc-3", "text": "Hello Paris"}],
        units=[
            {"document": "doc-1", "coder": "alice", "begin": 0, "end": 5, "label": "PER"},
            {"document": "doc-3", "coder": "alice", "begin": 6, "end": 11, "label": "LOC"},
        ],
        empty=[{"document": "doc-1", "coder": "bob"}],
    )
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "documents": 2,
        "coders": 2,
        "units": 2,
        "annotations": 3,
        "created": 3,
        "replaced": 0,
        "unchanged": 0,
        "items_created": 1,
        "items_updated": 0,
        "coders_created": 0,
    }
    assert stored(scheme) == {
        ("doc-1", "alice"): [(0, 5, "PER")],
        ("doc-1", "bob"): [],
        ("doc-3", "alice"): [(6, 11, "LOC")],
    }


def test_a_csv_upload_takes_the_cli_shape(annotator_client: APIClient, scheme: SpanScheme) -> None:
    response = post_csv(annotator_client, scheme, CSV, round="Round 1", question="entities")
    assert response.status_code == 200, response.json()
    assert (response.json()["units"], response.json()["coders_created"]) == (3, 1)
    assert stored(scheme) == {
        ("doc-1", "alice"): [(0, 5, "PER"), (17, 22, "LOC")],
        ("doc-1", "bob"): [(0, 5, "PER")],
        ("doc-1", "carol"): [],
    }


def test_a_multipart_upload_takes_the_csv_as_a_file(
    annotator_client: APIClient, scheme: SpanScheme
) -> None:
    response = annotator_client.post(
        spans_url(scheme.study),
        {
            "round": scheme.round.pk,
            "question": scheme.entities.pk,
            "file": SimpleUploadedFile("spans.csv", CSV.encode(), content_type="text/csv"),
        },
        format="multipart",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["annotations"] == 3


def test_errors_name_the_record_and_the_field(
    annotator_client: APIClient, scheme: SpanScheme
) -> None:
    response = post_csv(
        annotator_client,
        scheme,
        "document,coder,begin,end,label\n"
        "doc-1,alice,0,5,PER\n"
        "doc-1,alice,0,5.5,PER\n"
        "doc-1,alice,x,5,PER\n"
        "doc-1,bob,7,3,ORG\n"
        "doc-1,bob,0,5,\n"
        "doc-1,bob,0,5,CITY\n",
        round="Round 1",
        question="entities",
    )
    assert response.status_code == 400
    assert errors(response) == [
        ("not_an_integer", "line 3.end"),
        ("not_a_number", "line 4.begin"),
        ("end_before_begin", "line 5.end"),
        ("required", "line 6.label"),
        ("unknown_category", "line 7.label"),
    ]
    assert response.json()["errors"][0]["detail"] == (
        "line 3: The end 5.5 is not an integer: this question counts characters."
    )
    json_response = post_json(
        annotator_client,
        scheme,
        round="Round 1",
        question="entities",
        units=[{"document": "doc-1", "coder": "alice", "begin": 0, "end": 99, "label": "PER"}, 7],
        empty=[{"document": "doc-1"}],
    )
    assert json_response.status_code == 400
    assert errors(json_response) == [("invalid_type", "units.1.row")]
    json_response = post_json(
        annotator_client,
        scheme,
        round="Round 1",
        question="entities",
        units=[{"document": "doc-1", "coder": "alice", "begin": 0, "end": 99, "label": "PER"}],
        empty=[{"document": "doc-1"}],
    )
    assert errors(json_response) == [
        ("outside_extent", "units.0.begin"),
        ("required", "empty.0.coder"),
    ]
    assert not Annotation.objects.exists()


def test_the_request_is_checked_before_the_records(
    annotator_client: APIClient, scheme: SpanScheme
) -> None:
    no_target = post_csv(annotator_client, scheme, CSV)
    assert errors(no_target) == [("required", "round"), ("required", "question")]
    not_span = post_json(annotator_client, scheme, round="Round 1", question="sentiment")
    assert errors(not_span) == [("not_a_span_question", "question")]
    closed = post_json(annotator_client, scheme, round="Pilot", question="entities")
    assert closed.status_code == 409
    assert errors(closed) == [("round_closed", None)]
    header = post_csv(annotator_client, scheme, "doc,coder\n", round="Round 1", question="entities")
    assert errors(header) == [("missing_columns", "header")]
    empty_body = post_csv(annotator_client, scheme, "", round="Round 1", question="entities")
    assert empty_body.status_code == 400
    json_with_query = annotator_client.post(
        f"{spans_url(scheme.study)}?round=1",
        {"round": "Round 1", "question": "entities"},
        format="json",
    )
    assert errors(json_with_query) == [("csv_only_parameter", "round")]


def test_the_single_label_upload_points_a_span_question_to_the_span_upload(
    annotator_client: APIClient, scheme: SpanScheme
) -> None:
    response = annotator_client.post(
        f"/api/v1/studies/{scheme.study.pk}/annotations/bulk/",
        {
            "round": "Round 1",
            "question": "entities",
            "annotations": [{"item": "doc-1", "coder": "alice", "label": "PER"}],
        },
        format="json",
    )
    assert response.status_code == 400
    assert errors(response) == [("span_question", "question")]
    assert "annotations/spans/" in response.json()["errors"][0]["detail"]


def test_annotator_tokens_upload_and_viewers_do_not(
    client_for: Callable[..., APIClient],
    study_token: Callable[[Role], tuple[ApiToken, str]],
    viewer_client: APIClient,
    scheme: SpanScheme,
) -> None:
    _token, secret = study_token(Role.ANNOTATOR)
    body = {
        "round": "Round 1",
        "question": "entities",
        "empty": [{"document": "doc-1", "coder": "x"}],
    }
    assert post_json(client_for(token_secret=secret), scheme, **body).status_code == 200
    assert post_json(viewer_client, scheme, **body).status_code == 403


def test_span_annotations_read_back_with_their_units_and_history(
    annotator_client: APIClient, viewer_client: APIClient, scheme: SpanScheme
) -> None:
    post_csv(annotator_client, scheme, CSV, round="Round 1", question="entities")
    post_csv(
        annotator_client,
        scheme,
        "document,coder,begin,end,label\ndoc-1,bob,0,3,ORG\n",
        round="Round 1",
        question="entities",
    )
    listed = viewer_client.get(
        f"/api/v1/studies/{scheme.study.pk}/annotations/?question=entities"
    ).json()["results"]
    assert [(a["item"], a["coder"], a["label"], a["units"]) for a in listed] == [
        (
            "doc-1",
            "alice",
            None,
            [
                {"begin": 0, "end": 5, "label": "PER"},
                {"begin": 17, "end": 22, "label": "LOC"},
            ],
        ),
        ("doc-1", "bob", None, [{"begin": 0, "end": 3, "label": "ORG"}]),
        ("doc-1", "carol", None, []),
    ]
    detail = viewer_client.get(
        f"/api/v1/studies/{scheme.study.pk}/annotations/{listed[1]['id']}/"
    ).json()
    assert detail["units"] == [{"begin": 0, "end": 3, "label": "ORG"}]
    changes = viewer_client.get(
        f"/api/v1/studies/{scheme.study.pk}/annotation-changes/?coder=bob"
    ).json()["results"]
    assert [(c["action"], c["old_value"], c["new_value"]) for c in changes] == [
        ("updated", "0-5 PER", "0-3 ORG"),
        ("created", None, "0-5 PER"),
    ]
    deleted = annotator_client.delete(
        f"/api/v1/studies/{scheme.study.pk}/annotations/{listed[0]['id']}/"
    )
    assert deleted.status_code == 204
    last = viewer_client.get(
        f"/api/v1/studies/{scheme.study.pk}/annotation-changes/?action=deleted"
    ).json()["results"]
    assert [(c["old_value"], c["new_value"]) for c in last] == [("0-5 PER; 17-22 LOC", None)]


def test_other_questions_show_no_units(annotator_client: APIClient, scheme: SpanScheme) -> None:
    annotator_client.post(
        f"/api/v1/studies/{scheme.study.pk}/annotations/bulk/",
        {
            "round": "Round 1",
            "question": "sentiment",
            "annotations": [{"item": "doc-1", "coder": "alice", "label": "pos"}],
        },
        format="json",
    )
    listed = annotator_client.get(f"/api/v1/studies/{scheme.study.pk}/annotations/").json()
    assert [(a["label"], a["units"]) for a in listed["results"]] == [("pos", None)]


def test_the_openapi_schema_documents_the_span_upload(viewer_client: APIClient) -> None:
    schema = viewer_client.get("/api/schema/?format=json").json()
    operation = schema["paths"]["/api/v1/studies/{study_pk}/annotations/spans/"]["post"]
    assert set(operation["requestBody"]["content"]) == {
        "application/json",
        "text/csv",
        "multipart/form-data",
    }
    assert set(operation["responses"]) >= {"200", "400", "403", "409", "413"}
