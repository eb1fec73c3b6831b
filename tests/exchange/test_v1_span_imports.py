"""POST /api/v1/studies/{study_pk}/imports/ with span exports: units per document and
coder in a span question, the refusals, and three tools' exports of the same documents.

The three documents (samples label_studio_ner.json, doccano_ner_*.jsonl,
prodigy_ner.jsonl; each document carries its name d1..d3 in a field "doc"):
d1 "Angela Merkel visited Siemens in Munich.", d2 "The weather was fine.",
d3 "Apple and Google opened offices in Berlin and Paris.".
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from studies.models import Annotation, Coder, Item, Question
from tests.exchange.conftest import ImportStudy, db_state, sample, stored_units
from tests.factories import ItemFactory

pytestmark = pytest.mark.django_db

# What alice and bob marked, by hand from the texts (end exclusive); d2: found nothing.
EXPECTED = {
    ("d1", "alice"): [(0, 13, "PER"), (22, 29, "ORG"), (33, 39, "LOC")],
    ("d1", "bob"): [(0, 13, "PER"), (22, 29, "LOC")],
    ("d2", "alice"): [],
    ("d2", "bob"): [],
    ("d3", "alice"): [(0, 5, "ORG"), (10, 16, "ORG"), (35, 41, "LOC"), (46, 51, "LOC")],
    ("d3", "bob"): [(0, 5, "ORG"), (0, 16, "ORG"), (10, 16, "ORG"), (35, 41, "LOC")],
}
LABEL_STUDIO_CODERS = {"1": "alice", "2": "bob"}  # completed_by user ids
PRODIGY_CODERS = {"ner_news-alice": "alice", "ner_news-bob": "bob"}  # _annotator_id


def post(
    client: APIClient, target: ImportStudy, name: str, data: bytes | None = None, **fields: Any
) -> Any:
    fields.setdefault("round", "Round 1")
    fields.setdefault("create_missing", "true")
    for key in ("coder_map", "question_map", "category_map"):
        if isinstance(fields.get(key), dict):
            fields[key] = json.dumps(fields[key])
    fields["file"] = SimpleUploadedFile(name, data if data is not None else sample(name))
    return client.post(f"/api/v1/studies/{target.study.pk}/imports/", fields, format="multipart")


def doccano_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("alice.jsonl", sample("doccano_ner_alice.jsonl"))
        archive.writestr("bob.jsonl", sample("doccano_ner_bob.jsonl"))
    return buffer.getvalue()


# One format at a time ---------------------------------------------------------------------


def test_label_studio_ner_export_gives_units_per_task_and_coder(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    response = post(
        annotator_client, target, "label_studio_ner.json", format="label_studio",
        question="mentions", coder_map=LABEL_STUDIO_CODERS, predictions="false",
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["committed"] is True
    assert (body["created"], body["items_created"], body["coders_created"]) == (6, 3, 0)
    assert body["annotations"] == 13  # units
    assert body["skipped"] == {
        "cancelled annotation": 1,
        "model prediction (predictions=false)": 1,
    }
    assert body["spans"] == [
        {
            "question": "mentions",
            "documents": 3,
            "units": 13,
            "empty": 2,
            "coders": [
                {"coder": "alice", "documents": 3, "units": 7, "empty": 1},
                {"coder": "bob", "documents": 3, "units": 6, "empty": 1},
            ],
        }
    ]
    assert stored_units(target.round, "mentions") == {
        ("1" if doc == "d1" else "2" if doc == "d2" else "3", coder): units
        for (doc, coder), units in EXPECTED.items()
    }
    assert Item.objects.get(study=target.study, external_id="3").text == (
        "Apple and Google opened offices in Berlin and Paris."
    )


def test_doccano_zip_of_one_file_per_annotator(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    response = post(
        annotator_client, target, "doccano.zip", doccano_zip(), format="doccano",
        question="mentions", document_key="doc",
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    assert stored_units(target.round, "mentions") == EXPECTED


def test_prodigy_ner_export_counts_accepted_tasks_only(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    response = post(
        annotator_client, target, "prodigy_ner.jsonl", format="prodigy", question="mentions",
        document_key="doc", coder_map=PRODIGY_CODERS,
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    assert response.json()["skipped"] == {"ignored answer": 1, "rejected span task": 1}
    assert stored_units(target.round, "mentions") == EXPECTED


def test_inception_tsv_file_of_one_annotator(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    for coder in ("alice", "bob"):
        response = post(
            annotator_client, target, "news-001.txt.tsv", sample(f"inception_{coder}.tsv"),
            format="inception_tsv", question="mentions", coder=coder,
        )  # fmt: skip
        assert response.status_code == 200, response.json()
    assert stored_units(target.round, "mentions") == {
        ("news-001.txt", "alice"): [
            (0, 13, "PER"), (22, 29, "ORG"), (22, 29, "LOC"), (33, 39, "LOC"), (53, 59, "ORG"),
        ],  # sorted by begin, end, then the label's declared order
        ("news-001.txt", "bob"): [],
    }  # fmt: skip
    assert Item.objects.get(study=target.study, external_id="news-001.txt").text == (
        "Angela Merkel visited Siemens in Munich.\nFans 😀 love Google."
    )


def test_conll_files_go_to_a_token_question_with_token_extents(
    annotator_client: APIClient, target: ImportStudy, mention_tokens: Question
) -> None:
    for name in ("conll_alice.conll", "conll_bob.conll"):
        response = post(annotator_client, target, name, format="conll", question="mention_tokens")
        assert response.status_code == 200, response.json()
    assert stored_units(target.round, "mention_tokens") == {
        ("1", "conll_alice"): [(0, 1, "ORG"), (2, 3, "MISC"), (5, 7, "PER")],
        ("1", "conll_bob"): [(0, 1, "ORG"), (2, 4, "MISC"), (5, 7, "PER")],
        ("2", "conll_alice"): [],
        ("2", "conll_bob"): [(1, 2, "LOC")],
    }
    item = Item.objects.get(study=target.study, external_id="1")
    assert (item.extent_begin, item.extent_end) == (0, 7)
    assert item.text == "EU rejects German call .\nPeter Blackburn"


# The same documents from three tools -------------------------------------------------------


def test_label_studio_doccano_and_prodigy_exports_of_the_same_documents_agree(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    first = post(
        annotator_client, target, "label_studio_ner.json", format="label_studio",
        question="mentions", document_key="doc", coder_map=LABEL_STUDIO_CODERS,
        predictions="false",  # the people's units only: the other tools have no model
    )  # fmt: skip
    assert first.status_code == 200, first.json()
    assert first.json()["created"] == 6
    assert stored_units(target.round, "mentions") == EXPECTED
    after_label_studio = db_state(target.study)
    doccano = post(
        annotator_client, target, "doccano.zip", doccano_zip(), format="doccano",
        question="mentions", document_key="doc",
    )  # fmt: skip
    prodigy = post(
        annotator_client, target, "prodigy_ner.jsonl", format="prodigy", question="mentions",
        document_key="doc", coder_map=PRODIGY_CODERS,
    )  # fmt: skip
    for response in (doccano, prodigy):
        assert response.status_code == 200, response.json()
        body = response.json()
        assert (body["created"], body["updated"], body["unchanged"]) == (0, 0, 6)
        assert body["spans"] == first.json()["spans"]
    assert db_state(target.study) == after_label_studio


def test_the_text_as_document_key_joins_the_tools_without_a_shared_field(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    post(
        annotator_client, target, "label_studio_ner.json", format="label_studio",
        question="mentions", document_key="text", coder_map=LABEL_STUDIO_CODERS,
    )  # fmt: skip
    prodigy = post(
        annotator_client, target, "prodigy_ner.jsonl", format="prodigy", question="mentions",
        document_key="text", coder_map=PRODIGY_CODERS,
    )  # fmt: skip
    assert (prodigy.json()["created"], prodigy.json()["unchanged"]) == (0, 6)
    assert Item.objects.filter(study=target.study).count() == 5  # doc-1, doc-2 and three texts


def test_a_reimport_replaces_a_coders_units_of_a_document(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    post(
        annotator_client, target, "prodigy_ner.jsonl", format="prodigy", question="mentions",
        document_key="doc", coder_map=PRODIGY_CODERS,
    )  # fmt: skip
    corrected = (
        b'{"text": "The weather was fine.", "meta": {"doc": "d2"}, "_input_hash": 918273645,'
        b' "_view_id": "ner_manual", "answer": "accept", "_annotator_id": "ner_news-bob",'
        b' "spans": [{"start": 4, "end": 11, "label": "LOC"}]}\n'
    )
    response = post(
        annotator_client, target, "fix.jsonl", corrected, format="prodigy", question="mentions",
        document_key="doc", coder_map=PRODIGY_CODERS,
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    assert (response.json()["updated"], response.json()["created"]) == (1, 0)
    assert stored_units(target.round, "mentions") == {**EXPECTED, ("d2", "bob"): [(4, 11, "LOC")]}


# Refusals -----------------------------------------------------------------------------------


def test_span_results_aimed_at_a_nominal_question_are_refused_naming_it(
    annotator_client: APIClient, target: ImportStudy
) -> None:
    before = db_state(target.study)
    response = post(
        annotator_client, target, "label_studio_ner.json", format="label_studio",
        question="entity",
    )  # fmt: skip
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["attr"], error["code"]) == ("question", "not_a_span_question")
    assert error["detail"].startswith(
        "The file's span units (tool field 'label') go to question 'entity', a nominal "
        "question. Spans are imported into a span question only"
    )
    assert db_state(target.study) == before


def test_a_question_holding_old_style_span_items_says_so(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    entity = target.questions["entity"]
    old = ItemFactory(study=target.study, external_id="401:0-13")
    Annotation.objects.create(
        round=target.round,
        question=entity,
        item=old,
        coder=Coder.objects.get(study=target.study, key="alice"),
        category=entity.categories.get(code="PER"),
    )
    response = post(
        annotator_client, target, "label_studio_spans.json", format="label_studio",
        question_map={"ner": "entity"},
    )  # fmt: skip
    assert response.status_code == 400
    assert (
        "It holds spans imported the old way (items '<doc>:<begin>-<end>')"
        in (response.json()["errors"][0]["detail"])
    )
    # A span question holding such labels is refused too (they would be compared).
    Annotation.objects.create(
        round=target.round,
        question=mentions,
        item=old,
        coder=Coder.objects.get(study=target.study, key="bob"),
        category=mentions.categories.get(code="PER"),
    )
    refused = post(
        annotator_client, target, "label_studio_spans.json", format="label_studio",
        question_map={"ner": "mentions"},
    )  # fmt: skip
    assert refused.status_code == 400
    assert refused.json()["errors"][0]["code"] == "old_style_spans"


def test_conll_into_a_character_question_is_refused(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    response = post(
        annotator_client, target, "conll_alice.conll", format="conll", question="mentions"
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert error["code"] == "wrong_span_unit"
    assert error["detail"] == (
        "CoNLL BIO (one annotator per file) gives offsets in tokens; question 'mentions' "
        "counts characters (span_unit character): import into a span question whose "
        "span_unit is token."
    )


def test_character_offsets_into_a_token_question_are_refused(
    annotator_client: APIClient, target: ImportStudy, mention_tokens: Question
) -> None:
    response = post(
        annotator_client, target, "prodigy_ner.jsonl", format="prodigy",
        question="mention_tokens",
    )  # fmt: skip
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "wrong_span_unit"


def test_bad_offsets_name_the_task_and_nothing_is_written(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    before = db_state(target.study)
    response = post(
        annotator_client, target, "label_studio_spans_bad_offsets.json", format="label_studio",
        question="mentions",
    )  # fmt: skip
    assert response.status_code == 400
    assert [(e["attr"], e["code"]) for e in response.json()["errors"]] == [
        ("task 801, annotation 8001, result z1.value.start", "invalid_offsets"),
        ("task 801, annotation 8001, result z2.value.start", "invalid_offsets"),
        ("task 801, annotation 8001, result z3.value.start", "invalid_offsets"),
    ]
    assert db_state(target.study) == before


def test_partial_writes_the_pairs_without_a_bad_record(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    response = post(
        annotator_client, target, "label_studio_spans_bad_offsets.json", format="label_studio",
        question="mentions", partial="true",
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    # coder 10's annotation had bad results: left out whole rather than half-replaced
    assert stored_units(target.round, "mentions") == {("801", "11"): [(0, 5, "ORG")]}


def test_an_unknown_span_label_is_rejected_with_the_closest_code(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    data = b'[{"doc": "d", "user": "alice", "begin": 0, "end": 4, "label": "PERS"}]'
    response = post(
        annotator_client, target, "spans.json", data, format="inception", question="mentions"
    )
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["attr"], error["code"]) == ("record 0.label", "unknown_category")
    assert error["detail"] == (
        "record 0: 'PERS' is not a category of this question (closest: 'PER'). To accept "
        '\'PERS\', map it in category_map: {"PERS": "PER"}.'
    )


def test_single_labels_aimed_at_a_span_question_are_refused(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    response = post(annotator_client, target, "long.csv", format="long_csv", question="mentions")
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "not_a_span_question"


def test_partial_leaves_out_the_pairs_the_writer_refuses(
    annotator_client: APIClient, target: ImportStudy, mentions: Question
) -> None:
    data = (
        b'[{"doc": "d", "user": "alice", "begin": 0, "end": 4, "label": "PER"},'
        b' {"doc": "d", "user": "bob", "begin": 0, "end": 4, "label": "PER"},'
        b' {"doc": "d", "user": "bob", "begin": 5, "end": 9, "label": "PERS"}]'
    )
    response = post(
        annotator_client, target, "spans.json", data, format="inception", question="mentions",
        partial="true",
    )  # fmt: skip
    assert response.status_code == 200, response.json()
    body = response.json()
    assert [(r["source"], r["field"], r["code"]) for r in body["rejected"]] == [
        ("record 2", "label", "unknown_category")
    ]
    assert body["spans"][0]["coders"] == [
        {"coder": "alice", "documents": 1, "units": 1, "empty": 0}
    ]
    assert stored_units(target.round, "mentions") == {("d", "alice"): [(0, 4, "PER")]}
