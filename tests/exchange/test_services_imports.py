"""annotations_import: each format mapped onto round and questions, all or nothing."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from exchange.imports import ImportReport, annotations_import
from studies.access import Actor
from studies.exceptions import ConflictError
from studies.models import Coder, CoderKind, ModelConfidence, Question
from tests.exchange.conftest import ImportStudy, db_state, sample, stored, stored_units

pytestmark = pytest.mark.django_db


def run(target: ImportStudy, actor: Actor, fmt: str, data: bytes, **options: Any) -> ImportReport:
    options.setdefault("round_ref", "Round 1")
    options.setdefault("create_missing", True)
    return annotations_import(
        study=target.study, format_name=fmt, data=data, actor=actor, **options
    )


def rejected(report: ImportReport) -> list[tuple[str, str, str]]:
    return [(r.source, r.field, r.code) for r in report.rejected]


# Label Studio ---------------------------------------------------------------------------


def test_label_studio_maps_from_name_onto_questions_and_skips_cancelled(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(target, actor, "label_studio", sample("label_studio.json"))
    assert report.committed
    assert report.rejected == []
    assert report.skipped == {"cancelled annotation": 1}
    assert report.rows_read == 14  # 12 results + 1 cancelled annotation + 1 prediction
    assert report.annotations == 13
    assert (report.created, report.updated, report.unchanged) == (13, 0, 0)
    assert report.items_created == 2
    # "10", "bob@example.org" and the model of the prediction, "sentiment-v3"
    assert report.coders_created == 3
    assert report.notes == ["Model predictions kept apart as model coders: sentiment-v3."]
    model = Coder.objects.get(study=target.study, key="sentiment-v3")
    assert (model.kind, model.model_name, model.model_version) == (
        CoderKind.MODEL,
        "sentiment-v3",
        "sentiment-v3",
    )
    assert Coder.objects.get(study=target.study, key="10").kind == CoderKind.PERSON
    assert stored(target.round, "sentiment") == {
        ("101", "10"): "neutral",
        ("101", "bob@example.org"): "pos",
        ("101", "sentiment-v3"): "neg",
        ("102", "10"): "neg",
        ("102", "bob@example.org"): "neg",
    }
    assert stored(target.round, "topics")[("101", "10")] == ["culture", "sports"]
    assert stored(target.round, "topics")[("102", "bob@example.org")] == ["culture", "politics"]
    assert stored(target.round, "taxon") == {
        ("101", "10"): "dog",
        ("101", "bob@example.org"): "cat",
    }
    assert stored(target.round, "score") == {("101", "10"): 3.0}
    assert stored(target.round, "age") == {("101", "bob@example.org"): 34.0}
    assert {q.question: q.created for q in report.questions} == {
        "age": 1,
        "score": 1,
        "sentiment": 5,
        "taxon": 2,
        "topics": 4,
    }


def test_a_label_studio_predictions_score_is_kept_as_the_models_confidence(
    target: ImportStudy, actor: Actor
) -> None:
    run(target, actor, "label_studio", sample("label_studio.json"))
    # The sample's one prediction: model_version sentiment-v3, score 0.91, "neg" on task 101.
    kept = ModelConfidence.objects.values_list(
        "item__external_id", "coder__key", "question__key", "confidence"
    )
    assert list(kept) == [("101", "sentiment-v3", "sentiment", 0.91)]


def test_a_prediction_score_outside_0_to_1_is_noted_not_kept(
    target: ImportStudy, actor: Actor
) -> None:
    tasks = json.loads(sample("label_studio.json"))
    for task in tasks:
        for prediction in task.get("predictions") or []:
            prediction["score"] = 7.5
    report = run(target, actor, "label_studio", json.dumps(tasks).encode())
    assert report.committed
    assert (
        "1 prediction score(s) not a number from 0 to 1 were not kept as the model's "
        "confidence (its calibration reads confidences in [0, 1])." in report.notes
    )
    assert not ModelConfidence.objects.exists()


def test_label_studio_predictions_are_skipped_when_asked(target: ImportStudy, actor: Actor) -> None:
    report = run(target, actor, "label_studio", sample("label_studio.json"), predictions=False)
    assert report.committed
    assert report.skipped == {"cancelled annotation": 1, "model prediction (predictions=false)": 1}
    assert report.annotations == 12
    assert report.coders_created == 2
    assert not Coder.objects.filter(study=target.study, kind=CoderKind.MODEL).exists()


def test_label_studio_reimport_reports_everything_unchanged(
    target: ImportStudy, actor: Actor
) -> None:
    run(target, actor, "label_studio", sample("label_studio.json"))
    before = db_state(target.study)
    report = run(target, actor, "label_studio", sample("label_studio.json"))
    assert report.committed
    assert (report.created, report.updated, report.unchanged) == (0, 0, 13)
    assert db_state(target.study) == before


def test_label_studio_unknown_label_rejects_the_whole_file(
    target: ImportStudy, actor: Actor
) -> None:
    before = db_state(target.study)
    report = run(target, actor, "label_studio", sample("label_studio_unknown_label.json"))
    assert not report.committed
    assert rejected(report) == [
        ("task 201, annotation 2002, result b", "label", "unknown_category")
    ]
    assert "'positive'" in report.rejected[0].detail
    assert (report.created, report.items_created) == (0, 0)
    assert db_state(target.study) == before


def test_label_studio_partial_writes_the_valid_rows_and_reports_the_others(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(
        target, actor, "label_studio", sample("label_studio_unknown_label.json"), partial=True
    )
    assert report.committed
    assert report.created == 1
    assert report.rejected_count == 1
    assert stored(target.round, "sentiment") == {("201", "10"): "pos"}


def test_label_studio_wrong_types_and_missing_fields_are_reported_by_source(
    target: ImportStudy, actor: Actor
) -> None:
    before = db_state(target.study)
    report = run(target, actor, "label_studio", sample("label_studio_wrong_types.json"))
    assert not report.committed
    assert rejected(report) == [
        ("task 301, annotation 3001, result a", "value.choices", "invalid_type"),
        ("task 301, annotation 3002", "completed_by", "required"),
        ("task 301, annotation 3003, result c", "value.rating", "invalid_type"),
        ("task[1]", "id", "required"),
        # a textarea with no text question for it: rejected when mapped onto the questions
        ("task 301, annotation 3003, result d", "from_name", "unmapped_field"),
    ]
    assert db_state(target.study) == before


def test_label_studio_truncated_json_is_a_malformed_file(target: ImportStudy, actor: Actor) -> None:
    before = db_state(target.study)
    with pytest.raises(ValidationError) as error:
        run(target, actor, "label_studio", sample("label_studio_truncated.json"))
    assert error.value.error_dict["file"][0].code == "malformed_file"
    assert "not valid JSON" in error.value.error_dict["file"][0].message
    assert db_state(target.study) == before


def test_label_studio_spans_become_units_of_the_task_per_coder(
    target: ImportStudy, actor: Actor, mentions: Question
) -> None:
    report = run(
        target,
        actor,
        "label_studio",
        sample("label_studio_spans.json"),
        question_map={"ner": "mentions"},
    )
    assert report.committed
    assert stored_units(target.round, "mentions") == {
        ("401", "10"): [(0, 13, "PER"), (22, 29, "ORG")],
        ("401", "11"): [(0, 13, "PER"), (22, 29, "LOC")],
    }


def test_spans_aimed_at_a_question_that_is_not_a_span_question_are_refused(
    target: ImportStudy, actor: Actor
) -> None:
    before = db_state(target.study)
    with pytest.raises(ValidationError) as error:
        run(
            target,
            actor,
            "label_studio",
            sample("label_studio_spans.json"),
            question_map={"ner": "entity"},
        )
    (refusal,) = error.value.error_dict["question"]
    assert refusal.code == "not_a_span_question"
    assert refusal.message == (
        "The file's span units (tool field 'ner') go to question 'entity', a nominal "
        "question. Spans are imported into a span question only (kind span: units begin, "
        "end, label per coder and document): create a span question with the same labels and "
        "import into it (question, or question_map)."
    )
    assert db_state(target.study) == before


def test_a_field_mapped_to_no_question_is_rejected_unless_mapped_to_null(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(target, actor, "label_studio", sample("label_studio_spans.json"))
    assert rejected(report) == [
        ("task 401, annotation 4001, result s1", "question", "unmapped_field")
    ]
    assert not report.committed
    ignored = run(
        target, actor, "label_studio", sample("label_studio_spans.json"), question_map={"ner": None}
    )
    assert ignored.skipped == {"field 'ner' ignored by question_map": 4}


def test_a_single_unknown_field_goes_to_the_given_question(
    target: ImportStudy, actor: Actor, mentions: Question
) -> None:
    report = run(
        target, actor, "label_studio", sample("label_studio_spans.json"), question_key="mentions"
    )
    assert report.committed
    assert report.created == 2  # one annotation (list of units) per task and coder


# doccano --------------------------------------------------------------------------------


def test_doccano_one_file_per_annotator_takes_the_coder_from_the_file_name(
    target: ImportStudy, actor: Actor
) -> None:
    alice = run(
        target,
        actor,
        "doccano",
        sample("doccano_alice.jsonl"),
        question_key="sentiment",
        filename="alice.jsonl",
    )
    bob = run(
        target, actor, "doccano", sample("doccano_bob.jsonl"), question_key="sentiment", coder="bob"
    )
    assert alice.skipped == {"record without a label": 1}
    assert (alice.created, bob.created) == (3, 3)
    assert stored(target.round, "sentiment") == {
        ("1", "alice"): "neutral",
        ("2", "alice"): "neg",
        ("3", "alice"): "pos",
        ("1", "bob"): "pos",
        ("2", "bob"): "neg",
        ("3", "bob"): "pos",
    }


def test_doccano_zip_imports_every_annotator_file(target: ImportStudy, actor: Actor) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("export/alice.jsonl", sample("doccano_alice.jsonl"))
        archive.writestr("export/bob.jsonl", sample("doccano_bob.jsonl"))
    report = run(target, actor, "doccano", buffer.getvalue(), question_key="sentiment")
    assert report.committed
    assert report.created == 6
    assert report.coders_created == 0  # alice and bob exist


def test_doccano_annotator_field_and_set_labels(target: ImportStudy, actor: Actor) -> None:
    report = run(
        target, actor, "doccano", sample("doccano_annotator_field.jsonl"), question_key="topics"
    )
    assert report.committed
    assert stored(target.round, "topics") == {
        ("11", "alice"): ["culture", "sports"],
        ("11", "bob"): ["culture"],
        ("12", "alice"): ["politics"],
        ("12", "bob"): ["politics"],
    }


def test_doccano_malformed_records_are_reported_and_nothing_is_written(
    target: ImportStudy, actor: Actor
) -> None:
    before = db_state(target.study)
    report = run(
        target, actor, "doccano", sample("doccano_malformed.jsonl"), question_key="sentiment",
        coder="carol",
    )  # fmt: skip
    assert not report.committed
    assert rejected(report) == [
        ("line 3", "label", "invalid_type"),
        ("line 5", "label", "required"),
        ("line 4", "label", "unknown_category"),
    ]
    assert db_state(target.study) == before


def test_doccano_without_annotator_rejects_every_record(target: ImportStudy, actor: Actor) -> None:
    report = run(target, actor, "doccano", sample("doccano_bob.jsonl"), question_key="sentiment")
    assert {(r.field, r.code) for r in report.rejected} == {("annotator", "required")}
    assert report.rejected_count == 3


def test_doccano_truncated_line_is_a_malformed_file(target: ImportStudy, actor: Actor) -> None:
    with pytest.raises(ValidationError) as error:
        run(target, actor, "doccano", sample("doccano_truncated.jsonl"), question_key="sentiment")
    assert "line 2 is not valid JSON" in error.value.error_dict["file"][0].message


# Prodigy --------------------------------------------------------------------------------


def test_prodigy_choices_use_input_hash_and_annotator_and_skip_ignore(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(target, actor, "prodigy", sample("prodigy.jsonl"), question_key="sentiment")
    assert report.committed
    assert report.skipped == {"ignored answer": 1}
    assert stored(target.round, "sentiment") == {
        ("1843961702", "news-alice"): "neutral",
        ("1843961702", "news-bob"): "pos",
        ("-77120934", "news-alice"): "neg",
    }


def test_prodigy_binary_answers_map_the_task_label_onto_a_question(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(
        target, actor, "prodigy", sample("prodigy_binary.jsonl"), question_map={"SPORTS": "sports"}
    )
    assert report.committed
    assert stored(target.round, "sports") == {
        ("55501", "news-alice"): "accept",
        ("55501", "news-bob"): "reject",
        ("55502", "news-alice"): "reject",
    }


def test_prodigy_malformed_records_are_reported(target: ImportStudy, actor: Actor) -> None:
    before = db_state(target.study)
    report = run(
        target, actor, "prodigy", sample("prodigy_malformed.jsonl"), question_key="sentiment"
    )
    assert rejected(report) == [
        ("line 2", "_input_hash", "required"),
        ("line 3", "_annotator_id", "required"),
        ("line 4", "answer", "invalid_type"),
        ("line 5", "label", "unknown_category"),
    ]
    assert db_state(target.study) == before


# INCEpTION ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["inception_spans.json", "inception_spans.csv"])
def test_inception_span_exports_give_units_per_document_and_user(
    target: ImportStudy, actor: Actor, mentions: Question, name: str
) -> None:
    report = run(target, actor, "inception", sample(name), question_key="mentions")
    assert report.committed
    assert stored_units(target.round, "mentions") == {
        ("news-001.txt", "alice"): [(0, 13, "PER"), (22, 29, "ORG")],
        ("news-001.txt", "bob"): [(0, 13, "PER"), (22, 29, "LOC")],
        ("news-002.txt", "alice"): [(5, 11, "LOC")],
    }


def test_inception_malformed_csv_names_line_and_field(
    target: ImportStudy, actor: Actor, mentions: Question
) -> None:
    before = db_state(target.study)
    report = run(
        target, actor, "inception", sample("inception_spans_malformed.csv"), question_key="mentions"
    )
    assert rejected(report) == [
        ("line 3", "user", "required"),
        ("line 4", "begin", "invalid_type"),
        ("line 5", "label", "required"),
        ("line 6", "label", "unknown_category"),
    ]
    assert db_state(target.study) == before


def test_inception_diagnosis_skips_no_annotation_and_no_label(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(
        target,
        actor,
        "inception_diagnosis",
        sample("inception_diagnosis.csv"),
        question_map={"value": "entity"},
    )
    assert report.committed
    assert report.skipped == {"annotation without a label (<no label>)": 1}
    assert stored(target.round, "entity") == {
        ("news-001.txt:0-13", "alice"): "PER",
        ("news-001.txt:0-13", "bob"): "PER",
        ("news-001.txt:0-13", "carol"): "PER",
        ("news-001.txt:22-29", "alice"): "ORG",
        ("news-001.txt:22-29", "bob"): "LOC",
        ("news-002.txt:5-11", "alice"): "LOC",
    }


# Generic CSVs ---------------------------------------------------------------------------


def test_long_csv_imports_and_skips_missing_labels(target: ImportStudy, actor: Actor) -> None:
    report = run(target, actor, "long_csv", sample("long.csv"), question_key="sentiment")
    assert report.committed
    assert report.skipped == {"line with an empty label": 1}
    assert (report.created, report.items_created, report.coders_created) == (5, 1, 0)


def test_long_csv_with_a_question_column_writes_several_questions(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(target, actor, "long_csv", sample("long_questions.csv"))
    assert report.committed
    assert stored(target.round, "topics") == {
        ("doc-1", "alice"): ["culture", "sports"],
        ("doc-1", "bob"): ["sports"],
    }
    assert stored(target.round, "age") == {("doc-1", "alice"): 41.0, ("doc-1", "bob"): 40.5}


def test_long_csv_errors_name_lines_and_nothing_is_half_written(
    target: ImportStudy, actor: Actor
) -> None:
    before = db_state(target.study)
    report = run(target, actor, "long_csv", sample("long_malformed.csv"), question_key="sentiment")
    assert not report.committed
    assert rejected(report) == [
        ("line 3", "coder", "required"),
        ("line 4", "label", "unknown_category"),
        ("line 5", "label", "set_for_single_label"),
        ("line 6", "row", "duplicate_row"),
    ]
    assert db_state(target.study) == before


def test_long_csv_without_header_is_a_malformed_file(target: ImportStudy, actor: Actor) -> None:
    with pytest.raises(ValidationError) as error:
        run(target, actor, "long_csv", sample("long_no_header.csv"), question_key="sentiment")
    assert error.value.error_dict["file"][0].code == "malformed_file"


def test_wide_csv_reads_one_column_per_coder(target: ImportStudy, actor: Actor) -> None:
    report = run(target, actor, "wide_csv", sample("wide.csv"), question_key="sentiment")
    assert report.committed
    assert report.created == 9
    assert stored(target.round, "sentiment")[("doc-2", "carol")] == "neutral"
    assert ("doc-2", "bob") not in stored(target.round, "sentiment")


def test_wide_csv_malformed_lines_are_reported(target: ImportStudy, actor: Actor) -> None:
    before = db_state(target.study)
    report = run(target, actor, "wide_csv", sample("wide_malformed.csv"), question_key="sentiment")
    assert rejected(report) == [
        ("line 4", "item", "required"),
        ("line 5", "row", "field_count"),
        ("line 3, column bob", "label", "unknown_category"),
    ]
    assert db_state(target.study) == before


def test_agreement_table_creates_synthetic_coders_and_says_so(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(
        target, actor, "agreement_table", sample("agreement_table.csv"), question_key="sentiment"
    )
    assert report.committed
    assert report.created == 14
    assert report.coders_created == 5
    assert "synthetic coders slot-1..slot-5" in report.notes[0]
    labels = stored(target.round, "sentiment")
    assert sorted(v for (item, _), v in labels.items() if item == "tweet-1") == [
        "neg", "pos", "pos", "pos",
    ]  # fmt: skip


def test_agreement_table_bad_counts_and_unknown_categories_are_rejected(
    target: ImportStudy, actor: Actor
) -> None:
    before = db_state(target.study)
    report = run(
        target, actor, "agreement_table", sample("agreement_table_malformed.csv"),
        question_key="sentiment",
    )  # fmt: skip
    assert {(r.source, r.code) for r in report.rejected} == {
        ("line 3, column neg", "invalid_count"),
        ("line 4, column neg", "invalid_count"),
        ("line 5, column happy", "unknown_category"),
    }
    assert report.rejected_count == 4  # line 5 gives "happy" to two slots
    assert db_state(target.study) == before


# Across formats -------------------------------------------------------------------------


def test_dry_run_reports_what_would_happen_and_writes_nothing(
    target: ImportStudy, actor: Actor
) -> None:
    before = db_state(target.study)
    report = run(target, actor, "label_studio", sample("label_studio.json"), dry_run=True)
    assert report.dry_run
    assert not report.committed
    assert (report.created, report.items_created, report.coders_created) == (13, 2, 3)
    assert db_state(target.study) == before


def test_without_create_missing_unknown_items_are_rejected(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(
        target, actor, "long_csv", sample("long.csv"), question_key="sentiment",
        create_missing=False,
    )  # fmt: skip
    assert {(r.source, r.field, r.code) for r in report.rejected} == {
        ("line 6", "item", "unknown_item"),
    }


def test_a_closed_round_is_a_conflict(target: ImportStudy, actor: Actor) -> None:
    with pytest.raises(ConflictError):
        run(
            target,
            actor,
            "long_csv",
            sample("long.csv"),
            question_key="sentiment",
            round_ref="Pilot",
        )


def test_bad_request_options_are_validation_errors(target: ImportStudy, actor: Actor) -> None:
    with pytest.raises(ValidationError) as error:
        run(
            target, actor, "excel", b"x", round_ref="Round 9", question_key="nope",
            question_map={"a": "missing"},
        )  # fmt: skip
    assert set(error.value.error_dict) == {"format", "round", "question", "question_map"}


def test_a_file_without_question_needs_one(target: ImportStudy, actor: Actor) -> None:
    with pytest.raises(ValidationError) as error:
        run(target, actor, "long_csv", sample("long.csv"))
    assert error.value.error_dict["question"][0].code == "required"


def test_a_file_with_no_label_is_rejected(target: ImportStudy, actor: Actor) -> None:
    report = run(target, actor, "long_csv", b"item,coder,label\n", question_key="sentiment")
    assert rejected(report) == [("file", "file", "no_rows")]
    assert not report.committed


VALID_SAMPLES = [
    ("label_studio", "label_studio.json", {}),
    ("label_studio", "label_studio_spans.json", {"question_map": {"ner": "mentions"}}),
    ("doccano", "doccano_alice.jsonl", {"question_key": "sentiment", "coder": "alice"}),
    ("doccano", "doccano_annotator_field.jsonl", {"question_key": "topics"}),
    ("prodigy", "prodigy.jsonl", {"question_key": "sentiment"}),
    ("prodigy", "prodigy_binary.jsonl", {"question_map": {"SPORTS": "sports"}}),
    ("inception", "inception_spans.json", {"question_key": "mentions"}),
    ("inception", "inception_spans.csv", {"question_key": "mentions"}),
    ("inception_diagnosis", "inception_diagnosis.csv", {"question_map": {"value": "entity"}}),
    ("long_csv", "long.csv", {"question_key": "sentiment"}),
    ("long_csv", "long_questions.csv", {}),
    ("wide_csv", "wide.csv", {"question_key": "sentiment"}),
    ("agreement_table", "agreement_table.csv", {"question_key": "sentiment"}),
]


@pytest.mark.parametrize(("fmt", "name", "options"), VALID_SAMPLES)
def test_every_valid_sample_dry_runs_imports_and_reimports_unchanged(
    target: ImportStudy,
    actor: Actor,
    mentions: Question,
    fmt: str,
    name: str,
    options: dict[str, Any],
) -> None:
    before = db_state(target.study)
    dry = run(target, actor, fmt, sample(name), dry_run=True, **options)
    assert dry.rejected == []
    assert db_state(target.study) == before
    first = run(target, actor, fmt, sample(name), **options)
    assert first.committed
    assert first.rejected == []
    assert (first.created, first.items_created, first.coders_created) == (
        dry.created,
        dry.items_created,
        dry.coders_created,
    )
    assert first.created > 0
    after = db_state(target.study)
    again = run(target, actor, fmt, sample(name), **options)
    assert (again.created, again.updated, again.unchanged) == (0, 0, first.created)
    assert db_state(target.study) == after


def test_an_import_logs_each_change_with_the_importing_user(
    target: ImportStudy, actor: Actor
) -> None:
    from studies.models import AnnotationChange

    run(target, actor, "long_csv", sample("long.csv"), question_key="sentiment")
    changes = AnnotationChange.objects.filter(study=target.study)
    assert changes.count() == 5
    assert {change.changed_by_id for change in changes} == {actor.user.pk}


def test_a_changed_label_is_reported_updated(target: ImportStudy, actor: Actor) -> None:
    run(target, actor, "long_csv", sample("long.csv"), question_key="sentiment")
    changed = sample("long.csv").replace(b"doc-1,bob,neg", b"doc-1,bob,pos")
    report = run(target, actor, "long_csv", changed, question_key="sentiment")
    assert (report.created, report.updated, report.unchanged) == (0, 1, 4)
    assert stored(target.round, "sentiment")[("doc-1", "bob")] == "pos"


def test_new_items_get_the_text_the_file_carries_and_existing_items_keep_theirs(
    target: ImportStudy, actor: Actor, mentions: Question
) -> None:
    from studies.models import Item

    Item.objects.create(study=target.study, external_id="102", text="kept as it was")
    run(target, actor, "label_studio", sample("label_studio.json"))
    texts = dict(Item.objects.filter(study=target.study).values_list("external_id", "text"))
    assert texts["101"] == "The match ended in a draw after extra time."
    assert texts["102"] == "kept as it was"
    run(target, actor, "label_studio", sample("label_studio_spans.json"), question_key="mentions")
    assert Item.objects.get(study=target.study, external_id="401").text == (
        "Angela Merkel visited Siemens in Munich."
    )


@pytest.mark.parametrize(("fmt", "data"), [
    ("label_studio", b"[" * 100_000),
    ("prodigy", b'{"a": ' * 100_000 + b"\n"),
])  # fmt: skip
def test_deeply_nested_json_is_a_malformed_file(
    target: ImportStudy, actor: Actor, fmt: str, data: bytes
) -> None:
    with pytest.raises(ValidationError) as error:
        run(target, actor, fmt, data, question_key="sentiment")
    assert error.value.error_dict["file"][0].code == "malformed_file"
