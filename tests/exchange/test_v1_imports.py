"""POST /api/v1/studies/{study_pk}/imports/: multipart or raw body, report, all or none."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from studies.models import LabelKind, Question, Role
from tests.exchange.conftest import ImportStudy, db_state, sample, stored
from tests.factories import CategoryFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def url(target: ImportStudy, suffix: str = "") -> str:
    return f"/api/v1/studies/{target.study.pk}/imports/{suffix}"


def upload(client: APIClient, target: ImportStudy, name: str, **fields: Any) -> Any:
    fields.setdefault("round", "Round 1")
    fields.setdefault("create_missing", "true")
    fields["file"] = SimpleUploadedFile(name, sample(name))
    return client.post(url(target), fields, format="multipart")


def test_a_multipart_upload_imports_and_answers_the_report(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = upload(annotator_client, target, "label_studio.json", format="label_studio")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["committed"] is True
    assert body["format"] == "label_studio"
    # The prediction of model "sentiment-v3" is one more annotation, of a model coder.
    assert (body["rows_read"], body["annotations"]) == (14, 13)
    assert (body["created"], body["updated"], body["unchanged"]) == (13, 0, 0)
    assert body["skipped"] == {"cancelled annotation": 1}
    assert body["notes"] == ["Model predictions kept apart as model coders: sentiment-v3."]
    assert body["rejected"] == []
    assert {q["question"] for q in body["questions"]} == {
        "age", "score", "sentiment", "taxon", "topics",
    }  # fmt: skip


def test_predictions_false_skips_the_model_predictions(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = upload(
        annotator_client, target, "label_studio.json", format="label_studio", predictions="false"
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["created"] == 12
    assert body["skipped"] == {
        "cancelled annotation": 1,
        "model prediction (predictions=false)": 1,
    }


def test_a_raw_body_with_options_in_the_query_string_imports(
    manager_client: APIClient, target: ImportStudy
) -> None:
    response = manager_client.post(
        url(target) + "?format=long_csv&round=Round%201&question=sentiment&create_missing=true",
        data=sample("long.csv"),
        content_type="text/csv",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["created"] == 5


def test_the_doccano_file_name_names_its_annotator(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = upload(
        annotator_client, target, "doccano_alice.jsonl", format="doccano", question="sentiment"
    )
    assert response.status_code == 200, response.json()
    assert set(stored(target.round, "sentiment")) == {
        ("1", "doccano_alice"), ("2", "doccano_alice"), ("3", "doccano_alice"),
    }  # fmt: skip


def test_a_rejected_import_answers_400_with_errors_and_report_and_writes_nothing(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    before = db_state(target.study)
    response = upload(
        annotator_client, target, "long_malformed.csv", format="long_csv", question="sentiment"
    )
    assert response.status_code == 400
    body = response.json()
    assert body["type"] == "validation_error"
    assert body["errors"][0] == {
        "code": "required",
        "detail": "line 3: The coder is empty.",
        "attr": "line 3.coder",
    }
    assert [e["code"] for e in body["errors"]] == [
        "required", "unknown_category", "set_for_single_label", "duplicate_row",
    ]  # fmt: skip
    assert body["report"]["committed"] is False
    assert body["report"]["rejected_count"] == 4
    assert db_state(target.study) == before


def test_a_partial_import_writes_the_valid_rows(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = upload(
        annotator_client,
        target,
        "long_malformed.csv",
        format="long_csv",
        question="sentiment",
        partial="true",
    )
    assert response.status_code == 200
    body = response.json()
    assert body["committed"] is True
    assert body["created"] == 1
    assert body["rejected_count"] == 4


def test_a_dry_run_answers_200_even_with_rejections_and_writes_nothing(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    before = db_state(target.study)
    response = upload(
        annotator_client,
        target,
        "long_malformed.csv",
        format="long_csv",
        question="sentiment",
        dry_run="true",
    )
    assert response.status_code == 200
    assert response.json()["dry_run"] is True
    assert response.json()["rejected_count"] == 4
    assert db_state(target.study) == before


def test_a_truncated_file_is_a_malformed_file_error(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = upload(
        annotator_client, target, "label_studio_truncated.json", format="label_studio"
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "malformed_file"
    assert response.json()["errors"][0]["attr"] == "file"


def test_question_map_is_a_json_object(annotator_client: APIClient, target: ImportStudy) -> None:
    response = upload(
        annotator_client,
        target,
        "inception_diagnosis.csv",
        format="inception_diagnosis",
        question_map=json.dumps({"value": "entity"}),
    )
    assert response.status_code == 200, response.json()
    bad = upload(
        annotator_client,
        target,
        "inception_diagnosis.csv",
        format="inception_diagnosis",
        question_map="[1, 2]",
    )
    assert bad.status_code == 400
    assert bad.json()["errors"][0]["attr"] == "question_map"


def test_missing_options_and_file_are_validation_errors(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = annotator_client.post(url(target), {"round": "Round 1"}, format="multipart")
    assert response.status_code == 400
    assert {e["attr"] for e in response.json()["errors"]} == {"format", "file"}


def test_a_closed_round_answers_409(annotator_client: APIClient, target: ImportStudy) -> None:
    response = upload(
        annotator_client, target, "long.csv", format="long_csv", question="sentiment", round="Pilot"
    )
    assert response.status_code == 409
    assert response.json()["errors"][0]["code"] == "round_closed"


def test_viewers_may_not_import(viewer_client: APIClient, target: ImportStudy) -> None:
    response = upload(viewer_client, target, "long.csv", format="long_csv", question="sentiment")
    assert response.status_code == 403


def test_non_members_get_404(outsider_client: APIClient, target: ImportStudy) -> None:
    response = upload(outsider_client, target, "long.csv", format="long_csv", question="sentiment")
    assert response.status_code == 404


def test_a_study_token_with_annotator_role_may_import(
    client_for: Any, study_token: Any, target: ImportStudy
) -> None:
    _, secret = study_token(Role.ANNOTATOR)
    response = upload(
        client_for(token_secret=secret), target, "prodigy.jsonl", format="prodigy",
        question="sentiment",
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    assert response.json()["created"] == 3


def test_the_formats_are_listed(viewer_client: APIClient, target: ImportStudy) -> None:
    response = viewer_client.get(url(target, "formats/"))
    assert response.status_code == 200
    assert {f["name"] for f in response.json()} == {
        "label_studio", "doccano", "prodigy", "inception", "inception_diagnosis",
        "inception_tsv", "conll", "long_csv", "wide_csv", "agreement_table", "coco", "cvat",
        "structured_csv", "argilla", "brat", "inception_tsv_relations", "prodigy_rel",
    }  # fmt: skip


def test_an_empty_raw_body_is_a_bad_request(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    response = annotator_client.post(
        url(target) + "?format=long_csv&round=Round%201&question=sentiment",
        data=b"",
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["detail"] == "The file is empty."


def test_a_comment_box_mapped_to_null_is_ignored_and_reported(
    annotator_client: APIClient, target: ImportStudy, tone: Question
) -> None:
    response = upload(
        annotator_client,
        target,
        "label_studio_comment_box.json",
        format="label_studio",
        question_map=json.dumps({"comment": None}),
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["committed"] is True
    assert body["ignored_fields"] == {"comment": 3}
    assert body["created"] == 4


def test_a_comment_box_not_ignored_answers_400_naming_result_and_remedy(
    annotator_client: APIClient, target: ImportStudy, tone: Question
) -> None:
    before = db_state(target.study)
    response = upload(
        annotator_client, target, "label_studio_comment_box.json", format="label_studio"
    )
    assert response.status_code == 400
    first = response.json()["errors"][0]
    assert first["code"] == "unmapped_field"
    assert first["attr"] == "task 501, annotation 5001, result c1.from_name"
    assert first["detail"].endswith(
        'leave the field out by mapping it to null: "question_map": {"comment": null}.'
    )
    assert db_state(target.study) == before


def post_csv(client: APIClient, target: ImportStudy, data: bytes, **fields: Any) -> Any:
    fields.setdefault("format", "long_csv")
    fields.setdefault("round", "Round 1")
    fields.setdefault("create_missing", "true")
    fields["file"] = SimpleUploadedFile("labels.csv", data)
    return client.post(url(target), fields, format="multipart")


def test_category_options_are_form_fields_and_a_dry_run_shows_their_effects(
    annotator_client: APIClient, target: ImportStudy, tone: Question
) -> None:
    before = db_state(target.study)
    response = post_csv(
        annotator_client,
        target,
        b"item,coder,label\ndoc-1,alice,Positive\ndoc-1,bob,pos\ndoc-2,bob,n/a\n",
        question="tone",
        case_insensitive_categories="true",
        category_map=json.dumps({"pos": "positive", "n/a": None}),
        dry_run="true",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["created"] == 2
    assert body["label_mappings"] == [
        {
            "question": "tone",
            "label": "Positive",
            "code": "positive",
            "rule": "case_insensitive",
            "count": 1,
        },
        {"question": "tone", "label": "n/a", "code": None, "rule": "category_map", "count": 1},
        {
            "question": "tone",
            "label": "pos",
            "code": "positive",
            "rule": "category_map",
            "count": 1,
        },
    ]
    assert db_state(target.study) == before


def test_an_ambiguous_case_insensitive_match_answers_400_naming_row_and_label(
    manager_client: APIClient, target: ImportStudy
) -> None:
    polarity = QuestionFactory(study=target.study, key="polarity", kind=LabelKind.NOMINAL)
    CategoryFactory(question=polarity, code="Pos", position=0)
    CategoryFactory(question=polarity, code="pos", position=1)
    response = manager_client.post(
        url(target) + "?format=long_csv&round=Round%201&question=polarity"
        "&case_insensitive_categories=true&create_missing=true",
        data=b"item,coder,label\ndoc-1,alice,POS\n",
        content_type="text/csv",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "ambiguous_category",
            "detail": "line 2: 'POS' matches the codes 'Pos' and 'pos' ignoring case: name the "
            'one it means in category_map, e.g. {"POS": "Pos"}.',
            "attr": "line 2.label",
        }
    ]


@pytest.mark.parametrize(
    ("category_map", "message"),
    [
        ("[1]", "category_map must be a JSON object."),
        (
            '{"pos": 3}',
            "category_map['pos'] must be a category code, null, or (for question 'pos' only) "
            "an object of file label -> category code or null.",
        ),
        (
            '{"pos": "postive"}',
            "category_map maps 'pos' to 'postive', which is a category of no question of "
            "this study (closest: 'positive').",
        ),
    ],
)
def test_a_bad_category_map_answers_400_on_category_map(
    annotator_client: APIClient,
    target: ImportStudy,
    tone: Question,
    category_map: str,
    message: str,
) -> None:
    response = post_csv(
        annotator_client,
        target,
        b"item,coder,label\ndoc-1,alice,pos\n",
        question="tone",
        category_map=category_map,
    )
    assert response.status_code == 400
    assert [(e["attr"], e["detail"]) for e in response.json()["errors"]] == [
        ("category_map", message)
    ]


@pytest.mark.parametrize("option", ["question_map", "category_map", "coder_map"])
def test_a_mapping_option_nested_too_deeply_is_a_400_not_a_crash(
    annotator_client: APIClient, target: ImportStudy, option: str
) -> None:
    response = post_csv(
        annotator_client,
        target,
        b"item,coder,label\ndoc-1,alice,pos\n",
        question="sentiment",
        **{option: "[" * 100_000},
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["attr"] == option


def test_coder_map_is_a_form_field_and_lands_labels_on_an_existing_coder(
    annotator_client: APIClient, target: ImportStudy, tone: Question
) -> None:
    response = upload(
        annotator_client,
        target,
        "label_studio_comment_box.json",
        format="label_studio",
        question_map=json.dumps({"comment": None}),
        coder_map=json.dumps({"17": "alice"}),
    )
    assert response.status_code == 200, response.json()
    assert response.json()["coder_mappings"] == [{"name": "17", "coder": "alice", "annotations": 2}]
    assert stored(target.round, "tone")[("501", "alice")] == "positive"
    assert stored(target.round, "tone")[("502", "alice")] == "negative"


def test_coder_map_onto_an_unknown_coder_answers_400_naming_it(
    annotator_client: APIClient, target: ImportStudy, tone: Question
) -> None:
    before = db_state(target.study)
    response = upload(
        annotator_client,
        target,
        "label_studio_comment_box.json",
        format="label_studio",
        question_map=json.dumps({"comment": None}),
        coder_map=json.dumps({"17": "zed"}),
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "unknown_coder",
            "detail": "coder_map maps '17' to 'zed', which is no coder of this study.",
            "attr": "coder_map",
        }
    ]
    assert db_state(target.study) == before


_CODER_MAP_SHAPE = (
    "coder_map maps annotator names to coder keys (non-empty strings) or coder ids "
    "(positive integers)."
)


@pytest.mark.parametrize(
    ("coder_map", "message"),
    [
        ('{"17": true}', _CODER_MAP_SHAPE),
        ('{"17": 0}', _CODER_MAP_SHAPE),
        ('{"17": ""}', _CODER_MAP_SHAPE),
        ('{"17": 99999999999999999999}', _CODER_MAP_SHAPE),
        ("[]", "coder_map must be a JSON object."),
    ],
)
def test_coder_map_values_are_coder_keys_or_ids(
    annotator_client: APIClient, target: ImportStudy, coder_map: str, message: str
) -> None:
    response = post_csv(
        annotator_client,
        target,
        b"item,coder,label\ndoc-1,17,pos\n",
        question="sentiment",
        coder_map=coder_map,
    )
    assert response.status_code == 400
    assert [(e["attr"], e["detail"]) for e in response.json()["errors"]] == [("coder_map", message)]
