"""Images of image items: uploaded over the API, read back by the study's members only,
recognised by their first bytes, sized from their headers, refused when too large or of
another size than the item's."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings
from rest_framework.test import APIClient

from studies.images import image_size, image_type
from studies.models import Item, Study
from tests.factories import CategoryFactory, ItemFactory, QuestionFactory, RoundFactory
from tests.image_files import GIF_7X5, JPEG_640X480, png

pytestmark = pytest.mark.django_db


def url(study: Study, item: Item) -> str:
    return f"/api/v1/studies/{study.pk}/items/{item.pk}/image/"


def test_types_and_sizes_are_read_from_the_first_bytes() -> None:
    assert image_type(png(3, 2)) == "image/png"
    assert image_size(png(3, 2), "image/png") == (3, 2)
    assert image_type(GIF_7X5) == "image/gif"
    assert image_size(GIF_7X5, "image/gif") == (7, 5)
    assert image_type(JPEG_640X480) == "image/jpeg"
    assert image_size(JPEG_640X480, "image/jpeg") == (640, 480)
    assert image_type(b"<svg xmlns='http://www.w3.org/2000/svg'/>") is None


def test_an_uploaded_image_sizes_its_item_and_reads_back_to_members_only(
    study: Study,
    annotator_client: APIClient,
    viewer_client: APIClient,
    outsider_client: APIClient,
) -> None:
    item = ItemFactory(study=study, external_id="img-1")
    body = png(3, 2)
    posted = annotator_client.post(url(study, item), data=body, content_type="image/png")
    assert posted.status_code == 201, posted.json()
    assert (posted.json()["image_width"], posted.json()["image_height"]) == (3, 2)
    assert posted.json()["has_image"] is True
    read = viewer_client.get(url(study, item))
    assert read.status_code == 200
    assert read.content == body
    assert read["Content-Type"] == "image/png"
    assert read["X-Content-Type-Options"] == "nosniff"
    assert read["Content-Security-Policy"] == "sandbox; default-src 'none'"
    assert outsider_client.get(url(study, item)).status_code == 404
    assert (
        viewer_client.post(url(study, item), data=body, content_type="image/png").status_code == 403
    )
    listed = viewer_client.get(f"/api/v1/studies/{study.pk}/items/").json()["results"]
    assert [(i["external_id"], i["has_image"]) for i in listed] == [("img-1", True)]
    assert annotator_client.delete(url(study, item)).status_code == 204
    assert viewer_client.get(url(study, item)).status_code == 404


def test_a_multipart_file_uploads_too(study: Study, annotator_client: APIClient) -> None:
    item = ItemFactory(study=study, external_id="img-2")
    response = annotator_client.post(
        url(study, item), {"file": SimpleUploadedFile("a.gif", GIF_7X5)}, format="multipart"
    )
    assert response.status_code == 201, response.json()
    assert Item.objects.get(pk=item.pk).image_width == 7


def test_what_is_no_image_or_of_another_size_is_refused_naming_the_file(
    study: Study, annotator_client: APIClient
) -> None:
    item = ItemFactory(study=study, external_id="img-3", image_width=10, image_height=10)
    html = annotator_client.post(url(study, item), data=b"<html>", content_type="image/png")
    assert html.status_code == 400
    assert [(e["code"], e["attr"]) for e in html.json()["errors"]] == [
        ("unsupported_image", "file")
    ]
    other = annotator_client.post(url(study, item), data=png(3, 2), content_type="image/png")
    assert other.status_code == 400
    assert [(e["code"], e["attr"]) for e in other.json()["errors"]] == [("size_conflict", "file")]


@override_settings(AGREEMENT_IMAGE_MAX_BYTES=1024)
def test_an_image_over_the_bound_is_a_413(study: Study, annotator_client: APIClient) -> None:
    item = ItemFactory(study=study, external_id="img-4")
    body = png(3, 2) + b"\x00" * 2000  # a PNG, then more bytes than the bound
    response = annotator_client.post(url(study, item), data=body, content_type="image/png")
    assert response.status_code == 413
    assert response.json()["errors"][0]["code"] == "image_too_large"


def test_sizes_come_in_pairs_and_stay_once_regions_are_drawn(
    study: Study, annotator_client: APIClient
) -> None:
    base = f"/api/v1/studies/{study.pk}/items/"
    half = annotator_client.post(base, {"external_id": "x", "image_width": 10}, format="json")
    assert half.status_code == 400
    assert [(e["code"], e["attr"]) for e in half.json()["errors"]] == [
        ("incomplete_size", "image_height")
    ]
    created = annotator_client.post(
        base, {"external_id": "y", "image_width": 100, "image_height": 50}, format="json"
    )
    assert created.status_code == 201
    question = QuestionFactory(study=study, key="boxes", kind="box")
    CategoryFactory(question=question, code="car")
    RoundFactory(study=study, name="Round 1")
    drawn = annotator_client.post(
        f"/api/v1/studies/{study.pk}/annotations/structured/",
        {
            "round": "Round 1",
            "question": "boxes",
            "rows": [
                {
                    "image": "y",
                    "coder": "ann",
                    "x": 1,
                    "y": 1,
                    "width": 5,
                    "height": 5,
                    "label": "car",
                }
            ],
        },
        format="json",
    )
    assert drawn.status_code == 200, drawn.json()
    changed = annotator_client.patch(
        f"{base}{created.json()['id']}/", {"image_width": 200, "image_height": 50}, format="json"
    )
    assert changed.status_code == 400
    assert [(e["code"], e["attr"]) for e in changed.json()["errors"]] == [
        ("size_locked", "image_width")
    ]


def test_the_image_view_draws_over_the_uploaded_image(
    study: Study, manager: Any, annotator_client: APIClient
) -> None:
    item = ItemFactory(study=study, external_id="img-5")
    assert (
        annotator_client.post(
            url(study, item), data=png(4, 4), content_type="image/png"
        ).status_code
        == 201
    )
    question = QuestionFactory(study=study, key="boxes", kind="box")
    round_ = RoundFactory(study=study, name="Round 1")
    browser = Client()
    browser.force_login(manager)
    page = browser.get(
        f"/studies/{study.pk}/rounds/{round_.pk}/questions/{question.pk}/images/{item.pk}/"
    )
    image_path = f"/studies/{study.pk}/items/{item.pk}/image"
    assert f'<image href="{image_path}"' in page.content.decode()
    served = browser.get(image_path)
    assert served.status_code == 200
    assert served.content == png(4, 4)
    stranger = Client()
    assert stranger.get(image_path).status_code == 302  # to the sign-in page
