"""Finding 3 of the bounded-work probe: a set label of a thousand ``[`` once answered 500
(RecursionError) on every path that reads set labels. A set is flat: each path answers 400
naming the row and field, and writes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from studies.models import Annotation, Study
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url

pytestmark = pytest.mark.django_db

DEEP = "[" * 1000


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def codes(response: Any) -> list[tuple[str, str | None]]:
    return [(e["code"], e["attr"]) for e in response.json()["errors"]]


def test_a_bulk_csv_upload_refuses_it(annotator_client: APIClient, scheme: Scheme) -> None:
    response = annotator_client.post(
        f"{bulk_url(scheme.study)}?round=Round%201&question=topics",
        data=f'item,coder,label\ndoc-1,alice,"{DEEP}"\n'.encode(),
        content_type="text/csv",
    )
    assert response.status_code == 400
    assert codes(response) == [("invalid_type", "annotations.0.label")]
    assert not Annotation.objects.exists()


def test_a_long_csv_import_refuses_it(manager_client: APIClient, scheme: Scheme) -> None:
    response = manager_client.post(
        f"/api/v1/studies/{scheme.study.pk}/imports/",
        {
            "round": "Round 1",
            "question": "topics",
            "format": "long_csv",
            "file": SimpleUploadedFile(
                "deep.csv", f"item,coder,label\ndoc-1,alice,{DEEP}\n".encode()
            ),
        },
        format="multipart",
    )
    assert response.status_code == 400, response.json()
    assert ("invalid_type", "line 2.label") in codes(response)
    assert not Annotation.objects.exists()


def test_an_adjudication_refuses_it(manager_client: APIClient, scheme: Scheme) -> None:
    response = manager_client.post(
        f"/api/v1/studies/{scheme.study.pk}/adjudications/",
        {"round": "Round 1", "question": "topics", "item": "doc-1", "label": DEEP},
        format="json",
    )
    assert response.status_code == 400
    assert codes(response) == [("invalid_type", "label")]
