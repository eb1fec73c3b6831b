"""Regions from three tools: the same two images boxed by alice and bob, exported by Label
Studio (percent coordinates), COCO (an annotator field per annotation) and CVAT (one file
per annotator), import into box questions, compute on the worker and give the same matched
alpha. Bob misses alice's person on img1, which lowers the agreement.

The expected alpha is worked by hand (docs/references.md, "Regions, hand-worked"): img1's
matched units are (car, car) and (person, empty): 4 values, D_o = 2/4, D_e = (4² − (2² +
1 + 1))/(4·3) = 10/12, alpha = 1 − 0.5/(10/12) = 0.4; img2's one unit (car, car) has one
value only, alpha 1 (kalphacv's rule); the mean over images is 0.7.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from studies.models import Annotation, Item, Question, Study
from tests.exchange.conftest import sample
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

EXPECTED_ALPHA = 0.7


def _question(client: APIClient, study: Study, key: str) -> Question:
    body = {"key": key, "kind": "box", "categories": [{"code": "car"}, {"code": "person"}]}
    response = client.post(f"/api/v1/studies/{study.pk}/questions/", body, format="json")
    assert response.status_code == 201, response.json()
    return Question.objects.get(study=study, key=key)


def _import(client: APIClient, study: Study, name: str, **fields: Any) -> dict[str, Any]:
    response = client.post(
        f"/api/v1/studies/{study.pk}/imports/",
        {
            "round": "Round 1",
            "create_missing": "true",
            "file": SimpleUploadedFile(name, sample(name)),
            **fields,
        },
        format="multipart",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["committed"] is True, body["rejected"]
    return body


def _alpha(client: APIClient, study: Study, question: Question, capture: Any) -> dict[str, Any]:
    round_ = study.rounds.get(name="Round 1")
    with capture(execute=True):
        posted = client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 200, "seed": 1},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    computation = client.get(posted.json()["url"]).json()
    assert computation["status"] == "done", computation["error"]
    return computation["results"]


@pytest.fixture
def imported(study: Study, manager_client: APIClient) -> dict[str, Question]:
    RoundFactory(study=study, name="Round 1", position=1)
    questions = {key: _question(manager_client, study, key) for key in ("ls", "coco", "cvat")}
    _import(
        manager_client,
        study,
        "regions_label_studio.json",
        format="label_studio",
        question="ls",
        question_map='{"objects": "ls"}',
        document_key="image",
    )
    _import(manager_client, study, "regions_coco.json", format="coco", question="coco")
    for coder in ("alice", "bob"):
        _import(
            manager_client,
            study,
            f"regions_cvat_{coder}.xml",
            format="cvat",
            question="cvat",
            coder=coder,
        )
    return questions


def test_three_tools_give_the_same_boxes_and_the_same_alpha(
    study: Study,
    manager_client: APIClient,
    imported: dict[str, Question],
    django_capture_on_commit_callbacks: Any,
) -> None:
    stored = {
        key: sorted(
            Annotation.objects.filter(question=question).values_list(
                "item__external_id", "coder__key", "units"
            )
        )
        for key, question in imported.items()
    }
    car, person = (
        imported["ls"].categories.get(code="car").pk,
        imported["ls"].categories.get(code="person").pk,
    )
    assert [(i, c, [r[:5] for r in v]) for i, c, v in stored["ls"]] == [
        ("img1.png", "alice", [[10, 10, 50, 40, 0], [100, 20, 30, 60, 0]]),
        ("img1.png", "bob", [[12, 10, 50, 40, 0]]),
        ("img2.png", "alice", [[0, 0, 40, 40, 0]]),
        ("img2.png", "bob", [[0, 0, 40, 40, 0]]),
    ]
    assert [r[5] for r in stored["ls"][0][2]] == [car, person]
    for key in ("coco", "cvat"):
        assert [(i, c, [r[:5] for r in v]) for i, c, v in stored[key]] == [
            (i, c, [r[:5] for r in v]) for i, c, v in stored["ls"]
        ]
    assert Item.objects.get(study=study, external_id="img1.png").image_width == 200
    for question in imported.values():
        results = _alpha(manager_client, study, question, django_capture_on_commit_callbacks)
        alpha = results["coefficients"]["alpha_matched"]
        assert alpha["value"] == pytest.approx(EXPECTED_ALPHA, abs=1e-12)
        assert alpha["ci"]["low"] <= alpha["value"] <= alpha["ci"]["high"]
        assert results["most_disputed"][0]["image"] == "img1.png"


def test_a_coder_who_misses_a_box_lowers_the_agreement(
    study: Study,
    manager_client: APIClient,
    imported: dict[str, Question],
    django_capture_on_commit_callbacks: Any,
) -> None:
    question = imported["coco"]
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/annotations/structured/",
        {
            "round": "Round 1",
            "question": "coco",
            "rows": [
                {
                    "image": "img1.png",
                    "coder": "bob",
                    "x": 12,
                    "y": 10,
                    "width": 50,
                    "height": 40,
                    "label": "car",
                },
                {
                    "image": "img1.png",
                    "coder": "bob",
                    "x": 100,
                    "y": 20,
                    "width": 30,
                    "height": 60,
                    "label": "person",
                },
            ],
        },
        format="json",
    )
    assert response.status_code == 200, response.json()
    results = _alpha(manager_client, study, question, django_capture_on_commit_callbacks)
    assert results["coefficients"]["alpha_matched"]["value"] == 1.0 > EXPECTED_ALPHA


def test_the_image_view_draws_each_coders_boxes(
    study: Study,
    manager: Any,
    manager_client: APIClient,
    imported: dict[str, Question],
    django_capture_on_commit_callbacks: Any,
) -> None:
    question = imported["cvat"]
    round_ = study.rounds.get(name="Round 1")
    item = Item.objects.get(study=study, external_id="img1.png")
    Item.objects.filter(pk=item.pk).update(image_url="https://example.org/img1.png")
    browser = Client()
    browser.force_login(manager)
    page = browser.get(
        f"/studies/{study.pk}/rounds/{round_.pk}/questions/{question.pk}/images/{item.pk}/"
    ).content.decode()
    assert 'viewBox="0 0 200 100"' in page
    assert '<image href="https://example.org/img1.png"' in page
    assert '<polygon points="10,10 60,10 60,50 10,50 ">' in page
    assert '<polygon points="12,10 62,10 62,50 12,50 ">' in page
    assert "<strong>alice</strong>: 10,10 50x40 car; 100,20 30x60 person" in page
    assert "<strong>bob</strong>: 12,10 50x40 car" in page
    assert "this image is not among them" in page
    _alpha(manager_client, study, question, django_capture_on_commit_callbacks)
    page = browser.get(
        f"/studies/{study.pk}/rounds/{round_.pk}/questions/{question.pk}/images/{item.pk}/"
    ).content.decode()
    assert "<title>alice: car, unit 1</title>" in page
    assert "<title>bob: car, unit 1</title>" in page
    assert 'class="unmatched"><title>alice: person, unmatched</title>' in page
    Item.objects.filter(pk=item.pk).update(image_url="javascript:alert(1)")
    page = browser.get(
        f"/studies/{study.pk}/rounds/{round_.pk}/questions/{question.pk}/images/{item.pk}/"
    ).content.decode()
    assert "javascript:" not in page


def test_a_coco_export_imports_again_unchanged(
    study: Study,
    manager_client: APIClient,
    imported: dict[str, Question],
) -> None:
    exported = manager_client.get(
        f"/api/v1/studies/{study.pk}/exports/structured/",
        {"round": "Round 1", "question": "ls", "shape": "coco"},
    )
    assert exported.status_code == 200
    document = exported.json()
    assert [(a["image_id"], a["annotator"], a["bbox"]) for a in document["annotations"]] == [
        (1, "alice", [10, 10, 50, 40]),
        (1, "alice", [100, 20, 30, 60]),
        (1, "bob", [12, 10, 50, 40]),
        (2, "alice", [0, 0, 40, 40]),
        (2, "bob", [0, 0, 40, 40]),
    ]
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/imports/",
        {
            "round": "Round 1",
            "question": "ls",
            "format": "coco",
            "file": SimpleUploadedFile("again.json", exported.content),
        },
        format="multipart",
    )
    assert response.status_code == 200, response.json()
    assert (response.json()["created"], response.json()["updated"]) == (0, 0)
    assert response.json()["unchanged"] == 4
