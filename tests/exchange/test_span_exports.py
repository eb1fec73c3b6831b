"""GET /api/v1/studies/{study_pk}/exports/spans/: a span question's units in the CLI's CSV
shape and as the span upload's JSON body."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from annotations.spans import DocumentRecord, SpanRecord, span_units_replace
from studies.access import Actor
from studies.models import AnnotationChange, Study
from tests.annotations.span_setup import SpanScheme, build_span_scheme, spans_url
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> SpanScheme:
    scheme = build_span_scheme(study)
    actor = Actor(user=UserFactory(username="writer"), token=None)
    records = [
        ("doc-1", "alice", 17, 22, "LOC"),
        ("doc-1", "alice", 0, 5, "PER"),
        ("doc-1", "bob", 0, 5, "PER"),
        ("doc-2", "bob", None, None, None),
        ("doc-2", "alice", 40, 52, "ORG"),
    ]
    span_units_replace(
        round=scheme.round,
        question=scheme.entities,
        units=[SpanRecord(*record, where=f"row {i}") for i, record in enumerate(records)],
        actor=actor,
    )
    span_units_replace(
        round=scheme.round,
        question=scheme.turns,
        units=[SpanRecord("rec-1", "alice", 0.5, 2.25, "SPEAKER", "row 0")],
        documents=[DocumentRecord("rec-1", begin=0, end=10.5)],
        actor=actor,
    )
    return scheme


def get(client: APIClient, scheme: SpanScheme, what: str, **query: Any) -> Any:
    query.setdefault("round", "Round 1")
    return client.get(f"/api/v1/studies/{scheme.study.pk}/exports/{what}/", query)


def test_units_export_in_the_cli_csv_shape(viewer_client: APIClient, scheme: SpanScheme) -> None:
    response = get(viewer_client, scheme, "spans", question="entities", format="csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert 'filename="Round-1-entities-spans.csv"' in response["Content-Disposition"]
    assert response.content.decode().splitlines() == [
        "document,coder,begin,end,label",
        "doc-1,alice,0,5,PER",
        "doc-1,alice,17,22,LOC",
        "doc-1,bob,0,5,PER",
        "doc-2,alice,40,52,ORG",
        "doc-2,bob,,,",
    ]
    seconds = get(viewer_client, scheme, "spans", question="turns", format="csv")
    assert seconds.content.decode().splitlines() == [
        "document,coder,begin,end,label",
        "rec-1,alice,0.5,2.25,SPEAKER",
    ]


def test_units_export_as_the_span_upload_body(viewer_client: APIClient, scheme: SpanScheme) -> None:
    response = get(viewer_client, scheme, "spans", question="entities")
    assert response.status_code == 200
    assert response.json() == {
        "round": "Round 1",
        "question": "entities",
        "kind": "span",
        "span_unit": "character",
        "coders": ["alice", "bob"],
        "documents": [{"document": "doc-2", "begin": 0.0, "end": 100.0}],
        "units": [
            {"document": "doc-1", "coder": "alice", "begin": 0, "end": 5, "label": "PER"},
            {"document": "doc-1", "coder": "alice", "begin": 17, "end": 22, "label": "LOC"},
            {"document": "doc-1", "coder": "bob", "begin": 0, "end": 5, "label": "PER"},
            {"document": "doc-2", "coder": "alice", "begin": 40, "end": 52, "label": "ORG"},
        ],
        "empty": [{"document": "doc-2", "coder": "bob"}],
    }
    turns = get(viewer_client, scheme, "spans", question="turns").json()
    assert (turns["span_unit"], turns["documents"], turns["units"][0]["begin"]) == (
        "second",
        [{"document": "rec-1", "begin": 0.0, "end": 10.5}],
        0.5,
    )


def test_the_json_export_uploads_again_unchanged(
    annotator_client: APIClient, scheme: SpanScheme
) -> None:
    body = get(annotator_client, scheme, "spans", question="entities").json()
    logged = AnnotationChange.objects.count()
    response = annotator_client.post(spans_url(scheme.study), body, format="json")
    assert response.status_code == 200, response.json()
    assert (response.json()["unchanged"], response.json()["created"]) == (4, 0)
    assert AnnotationChange.objects.count() == logged


def test_the_csv_export_uploads_again_unchanged(
    annotator_client: APIClient, scheme: SpanScheme
) -> None:
    text = get(annotator_client, scheme, "spans", question="entities", format="csv")
    response = annotator_client.post(
        f"{spans_url(scheme.study)}?round=Round 1&question=entities",
        data=text.content,
        content_type="text/csv",
    )
    assert (response.json()["unchanged"], response.json()["units"]) == (4, 4)


def test_each_export_refuses_the_other_kind_of_question(
    viewer_client: APIClient, scheme: SpanScheme
) -> None:
    labels = get(viewer_client, scheme, "annotations", question="entities")
    assert labels.status_code == 400
    assert [(e["code"], e["attr"]) for e in labels.json()["errors"]] == [
        ("span_question", "question")
    ]
    assert "exports/spans/" in labels.json()["errors"][0]["detail"]
    diagnostics = get(viewer_client, scheme, "diagnostics", question="entities", format="csv")
    assert diagnostics.status_code == 400
    spans = get(viewer_client, scheme, "spans", question="sentiment")
    assert [(e["code"], e["attr"]) for e in spans.json()["errors"]] == [
        ("not_a_span_question", "question")
    ]


def test_an_unannotated_round_exports_a_header_only(
    viewer_client: APIClient, scheme: SpanScheme
) -> None:
    response = get(viewer_client, scheme, "spans", question="entities", round="Pilot", format="csv")
    assert response.content.decode().splitlines() == ["document,coder,begin,end,label"]
