"""A CSV header naming a column twice is refused, naming the column (issue 25, finding 10).

Before the fix ``item,item,coder,label`` was accepted and the first ``item`` column won,
in the bulk upload (small, large and partial), the crowd ingest and the span upload.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from annotations.ingest import annotations_ingest_csv
from studies.access import Actor
from studies.models import Annotation, Study
from tests.annotations.span_setup import SpanScheme, build_span_scheme, spans_url
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url

pytestmark = pytest.mark.django_db

TWICE = "item,item,coder,label\ndoc-1,doc-2,alice,pos\n"


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def duplicate(name: str, attr: str = "line 1") -> dict[str, Any]:
    return {
        "type": "validation_error",
        "errors": [
            {
                "code": "duplicate_column",
                "detail": f"The CSV header names the column {name!r} more than once.",
                "attr": attr,
            }
        ],
    }


@pytest.mark.parametrize(
    ("text", "name"),
    [
        (TWICE, "item"),
        ("item,coder,label,Coder \ndoc-1,alice,pos,bob\n", "Coder"),
        ("item,coder,label,note,note\ndoc-1,alice,pos,a,b\n", "note"),
    ],
)
@pytest.mark.parametrize("query", ["", "&partial=true"])
def test_a_bulk_csv_naming_a_column_twice_is_a_400_naming_it(
    annotator_client: APIClient, scheme: Scheme, text: str, name: str, query: str
) -> None:
    response = annotator_client.post(
        f"{bulk_url(scheme.study)}?round=Round%201&question=sentiment{query}",
        data=text.encode(),
        content_type="text/csv",
    )
    assert response.status_code == 400
    assert response.json() == duplicate(name)
    assert not Annotation.objects.exists()


def test_blank_columns_after_the_last_are_no_duplicates(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = annotator_client.post(
        f"{bulk_url(scheme.study)}?round=Round%201&question=sentiment",
        data=b"item,coder,label,,\ndoc-1,alice,pos,,\n",
        content_type="text/csv",
    )
    assert response.status_code == 200, response.json()


def test_the_crowd_ingest_refuses_a_column_named_twice(scheme: Scheme) -> None:
    with pytest.raises(ValidationError) as raised:
        annotations_ingest_csv(
            study=scheme.study,
            round_ref=scheme.round.pk,
            question_key="sentiment",
            lines=TWICE.splitlines(keepends=True),
            actor=Actor(user=None, token=None),
            partial=True,
        )
    assert raised.value.message_dict == {
        "line 1": ["The CSV header names the column 'item' more than once."]
    }


def test_the_import_command_refuses_a_column_named_twice(scheme: Scheme, tmp_path: Any) -> None:
    path = tmp_path / "crowd.csv"
    path.write_text(TWICE, encoding="utf-8")
    with pytest.raises(CommandError) as raised:
        call_command(
            "annotations_import_csv",
            str(scheme.study.pk),
            scheme.round.name,
            "sentiment",
            str(path),
            stdout=io.StringIO(),
        )
    assert str(raised.value) == (
        "Nothing was imported:\n  line 1: The CSV header names the column 'item' more than once."
    )


def test_a_span_csv_naming_a_column_twice_is_a_400_naming_it(
    annotator_client: APIClient, study: Study
) -> None:
    scheme: SpanScheme = build_span_scheme(study)
    response = annotator_client.post(
        f"{spans_url(scheme.study)}?round=Round%201&question=entities",
        data=b"document,coder,begin,end,label,begin\ndoc-1,alice,0,5,PER,7\n",
        content_type="text/csv",
    )
    assert response.status_code == 400
    assert response.json() == duplicate("begin", attr="header")
