"""The kind contract: every registered label kind, through the same checks, as a user
would use it (the API, a computation on a worker, the history, a page, an export, an
import). A new kind is done when it has a case in ``cases.py`` and passes here.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from rest_framework.test import APIClient

from studies.kinds import KINDS, Feature
from studies.models import Annotation, AnnotationChange, LabelKind, Question, Study
from tests.kinds.cases import CASES, KindCase, agreed_rows, upload

pytestmark = pytest.mark.django_db

KEYS = sorted(KINDS)


def test_every_registered_kind_has_a_contract_case_and_a_stored_key() -> None:
    assert sorted(CASES) == KEYS
    assert sorted(LabelKind.values) == KEYS


def test_values_round_trip_with_their_canonical_text(
    kind_study: tuple[str, KindCase], study: Study, manager_client: APIClient
) -> None:
    _, case = kind_study
    response = upload(manager_client, study, case, case.good_rows)
    assert response.status_code == 200, response.json()
    listed = manager_client.get(
        f"/api/v1/studies/{study.pk}/annotations/", {"question": "q"}
    ).json()["results"]
    field = "label" if case.rows_field == "annotations" else "units"
    assert [row[field] for row in sorted(listed, key=lambda row: row["coder"])] == case.read_back
    changes = AnnotationChange.objects.order_by("coder__key").values_list("new_value", flat=True)
    assert list(changes) == case.change_texts


def test_a_bad_value_is_refused_naming_the_row_and_field(
    kind_study: tuple[str, KindCase], study: Study, manager_client: APIClient
) -> None:
    _, case = kind_study
    response = upload(manager_client, study, case, [case.bad_row])
    assert response.status_code == 400
    assert [(e["code"], e["attr"]) for e in response.json()["errors"]] == [case.bad_error]
    assert not Annotation.objects.exists()


def test_a_computation_on_the_worker_reaches_the_history_and_the_page(
    kind_study: tuple[str, KindCase],
    study: Study,
    manager: Any,
    manager_client: APIClient,
    django_capture_on_commit_callbacks: Any,
) -> None:
    _, case = kind_study
    assert upload(manager_client, study, case, agreed_rows(case)).status_code == 200
    question = Question.objects.get(study=study, key="q")
    round_ = study.rounds.get(name="Round 1")
    with django_capture_on_commit_callbacks(execute=True):
        posted = manager_client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": question.pk, "round": round_.pk, "bootstrap": 0},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    computation = manager_client.get(posted.json()["url"]).json()
    assert computation["status"] == "done", computation.get("error")
    assert computation["results"]["coefficients"][case.headline]["value"] == 1.0

    history = manager_client.get(f"/api/v1/studies/{study.pk}/history/").json()
    (entry,) = history["questions"]
    assert entry["question_key"] == "q"
    assert entry["rounds"][0]["coefficients"][case.headline]["value"] == 1.0

    browser = Client()
    browser.force_login(manager)
    page = browser.get(f"/studies/{study.pk}/rounds/{round_.pk}/?question=q")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Round report: Round 1, question q" in text
    assert case.page_text in text


def test_an_export_gives_the_values_back(
    kind_study: tuple[str, KindCase], study: Study, manager_client: APIClient
) -> None:
    _, case = kind_study
    assert upload(manager_client, study, case, case.good_rows).status_code == 200
    response = manager_client.get(
        f"/api/v1/studies/{study.pk}/exports/{case.export}/",
        {"round": "Round 1", "question": "q", "format": "csv"},
    )
    assert response.status_code == 200
    assert response.content.decode().splitlines() == case.export_lines


def test_a_tools_file_imports_into_the_question(
    kind_study: tuple[str, KindCase], study: Study, manager_client: APIClient
) -> None:
    _, case = kind_study
    file_format, name, content = case.import_file
    response = manager_client.post(
        f"/api/v1/studies/{study.pk}/imports/",
        {
            "round": "Round 1",
            "question": "q",
            "format": file_format,
            "create_missing": "true",
            "file": SimpleUploadedFile(name, content),
        },
        format="multipart",
    )
    assert response.status_code == 200, response.json()
    assert Annotation.objects.filter(question__key="q").count() == case.imported


def test_features_a_kind_lacks_are_refused_with_a_400(
    kind_study: tuple[str, KindCase], study: Study, manager_client: APIClient
) -> None:
    key, case = kind_study
    question = Question.objects.get(study=study, key="q")
    response = manager_client.patch(
        f"/api/v1/studies/{study.pk}/review-rules/{question.pk}/",
        {"disagreement": True},
        format="json",
    )
    assert KINDS[key].supports(Feature.REVIEW) is not case.refuses_review
    if case.refuses_review:
        assert response.status_code == 400
        assert response.json()["errors"][0]["attr"] == "question"
    else:
        assert response.status_code == 200, response.json()
