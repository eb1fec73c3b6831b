"""The study admin's upload page (StudyImportAdminMixin), driven through its view."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.messages.storage.fallback import FallbackStorage
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory

from exchange.admin import StudyImportAdminMixin
from studies.models import Question, Study
from tests.exchange.conftest import ImportStudy, db_state, sample, stored, stored_units
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


class _StudyAdmin(StudyImportAdminMixin, admin.ModelAdmin):  # type: ignore[misc]
    pass


def call(user: Any, target: ImportStudy, data: dict[str, Any] | None = None) -> Any:
    factory = RequestFactory()
    url = f"/admin/studies/study/{target.study.pk}/import/"
    request = factory.post(url, data) if data is not None else factory.get(url)
    request.user = user
    request.session = {}  # type: ignore[assignment]
    request._messages = FallbackStorage(request)  # type: ignore[attr-defined]
    response = _StudyAdmin(Study, admin.site).import_view(request, str(target.study.pk))
    response.render()
    return response


def form_data(target: ImportStudy, name: str, **fields: Any) -> dict[str, Any]:
    return {
        "file": SimpleUploadedFile(name, sample(name)),
        "round": target.round.pk,
        "create_missing": "on",
        **fields,
    }


def test_the_page_shows_the_form_and_the_formats(target: ImportStudy) -> None:
    response = call(UserFactory(is_staff=True, is_superuser=True), target)
    assert response.status_code == 200
    assert b"Label Studio JSON export" in response.content
    assert b'enctype="multipart/form-data"' in response.content


def test_a_dry_run_shows_the_report_and_writes_nothing(target: ImportStudy) -> None:
    before = db_state(target.study)
    response = call(
        UserFactory(is_staff=True, is_superuser=True),
        target,
        form_data(target, "label_studio.json", format="label_studio", dry_run="on"),
    )
    assert response.status_code == 200
    assert b"dry run: nothing written" in response.content
    assert response.context_data["report"].created == 13  # 12 labels, 1 model prediction
    assert db_state(target.study) == before


def test_an_import_writes_and_a_rejected_one_lists_its_rows(target: ImportStudy) -> None:
    user = UserFactory(is_staff=True, is_superuser=True)
    question = target.questions["sentiment"].pk
    call(user, target, form_data(target, "long.csv", format="long_csv", question=question))
    assert len(stored(target.round, "sentiment")) == 5
    response = call(
        user,
        target,
        form_data(target, "long_malformed.csv", format="long_csv", question=question),
    )
    assert b"rejected: nothing written" in response.content
    assert b"line 4" in response.content
    assert len(stored(target.round, "sentiment")) == 5


def test_staff_without_change_permission_are_refused(target: ImportStudy) -> None:
    from django.core.exceptions import PermissionDenied

    with pytest.raises(PermissionDenied):
        call(UserFactory(is_staff=True), target)


def test_the_mapping_options_are_form_fields_and_the_report_shows_their_effects(
    target: ImportStudy, tone: Question
) -> None:
    before = db_state(target.study)
    upload = SimpleUploadedFile(
        "labels.csv", b"item,coder,label\ndoc-1,alice,Positive\ndoc-1,bob,pos\n"
    )
    response = call(
        UserFactory(is_staff=True, is_superuser=True),
        target,
        {
            "file": upload,
            "format": "long_csv",
            "round": target.round.pk,
            "question": tone.pk,
            "create_missing": "on",
            "dry_run": "on",
            "case_insensitive_categories": "on",
            "category_map": '{"pos": "positive"}',
        },
    )
    assert response.status_code == 200
    assert response.context_data["form"].errors == {}
    assert response.context_data["report"].created == 2
    assert b"<td>tone</td><td>Positive</td><td>positive</td><td>case_insensitive</td>" in (
        response.content
    )
    assert b"<td>tone</td><td>pos</td><td>positive</td><td>category_map</td>" in response.content
    assert db_state(target.study) == before


def test_a_category_map_that_is_no_json_object_is_a_form_error(target: ImportStudy) -> None:
    response = call(
        UserFactory(is_staff=True, is_superuser=True),
        target,
        form_data(target, "long.csv", format="long_csv", category_map="[1]"),
    )
    assert response.context_data["form"].errors == {
        "category_map": ["category_map must be a JSON object."]
    }


def test_coder_map_is_a_form_field(target: ImportStudy) -> None:
    response = call(
        UserFactory(is_staff=True, is_superuser=True),
        target,
        {
            "file": SimpleUploadedFile("labels.csv", b"item,coder,label\ndoc-1,annotator_17,pos\n"),
            "format": "long_csv",
            "round": target.round.pk,
            "question": target.questions["sentiment"].pk,
            "coder_map": '{"annotator_17": "alice"}',
        },
    )
    assert response.context_data["form"].errors == {}
    assert stored(target.round, "sentiment") == {("doc-1", "alice"): "pos"}
    assert b"<td>annotator_17</td><td>alice</td><td>1</td>" in response.content


def test_a_span_import_shows_units_per_coder_and_a_refusal_as_a_form_error(
    target: ImportStudy, mentions: Question
) -> None:
    user = UserFactory(is_staff=True, is_superuser=True)
    response = call(
        user,
        target,
        form_data(
            target, "prodigy_ner.jsonl", format="prodigy", question=mentions.pk,
            document_key="doc",
        ),
    )  # fmt: skip
    assert response.context_data["report"].committed
    assert b"Span units per coder" in response.content
    assert b"<td>mentions</td><td>ner_news-alice</td><td>3</td><td>7</td><td>1</td>" in (
        response.content
    )
    assert ("d2", "ner_news-bob") in stored_units(target.round, "mentions")
    refused = call(
        user,
        target,
        form_data(
            target, "prodigy_ner.jsonl", format="prodigy",
            question=target.questions["entity"].pk,
        ),
    )  # fmt: skip
    assert refused.context_data["report"] is None
    assert b"a nominal question. Spans are imported into a span question only" in (refused.content)
