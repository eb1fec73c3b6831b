"""annotations_import's mappings: ignored fields, category matching and mapping, coder mapping."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.exceptions import ValidationError

from exchange.imports import ImportReport, annotations_import
from studies.access import Actor
from studies.models import Coder, LabelKind, Question
from tests.exchange.conftest import ImportStudy, db_state, sample, stored, stored_units
from tests.factories import CategoryFactory, CoderFactory, QuestionFactory

pytestmark = pytest.mark.django_db


def run(target: ImportStudy, actor: Actor, fmt: str, data: bytes, **options: Any) -> ImportReport:
    options.setdefault("round_ref", "Round 1")
    options.setdefault("create_missing", True)
    return annotations_import(
        study=target.study, format_name=fmt, data=data, actor=actor, **options
    )


def rejected(report: ImportReport) -> list[tuple[str, str, str]]:
    return [(r.source, r.field, r.code) for r in report.rejected]


# Fields ignored by question_map --------------------------------------------------------


def test_a_textarea_mapped_to_null_is_ignored_and_the_rest_imports(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "label_studio",
        sample("label_studio_comment_box.json"),
        question_map={"comment": None},
    )
    assert report.rejected == []
    assert report.committed
    assert report.ignored_fields == {"comment": 3}
    assert report.skipped == {"field 'comment' ignored by question_map": 3}
    assert stored(target.round, "tone") == {
        ("501", "17"): "positive",
        ("501", "dana@example.org"): "positive",
        ("502", "17"): "negative",
        ("502", "dana@example.org"): "neutral",
    }


def test_a_textarea_without_a_question_is_rejected_saying_how_to_ignore_it(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    # A textarea is a free text: it goes to a text question of its name, and without one
    # it is rejected with the way to leave it out.
    before = db_state(target.study)
    report = run(target, actor, "label_studio", sample("label_studio_comment_box.json"))
    assert not report.committed
    assert rejected(report) == [
        ("task 501, annotation 5001, result c1", "from_name", "unmapped_field"),
        ("task 501, annotation 5002, result c2", "from_name", "unmapped_field"),
        ("task 502, annotation 5003, result c3", "from_name", "unmapped_field"),
    ]
    assert report.rejected[0].detail == (
        "No question for the text field 'comment': name one with question (or "
        "question_map), or leave the field out by mapping it to null: "
        '"question_map": {"comment": null}.'
    )
    assert report.ignored_fields == {}
    assert db_state(target.study) == before


def test_mapping_a_textarea_onto_a_label_question_still_rejects_it(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "label_studio",
        sample("label_studio_comment_box.json"),
        question_map={"comment": "sentiment"},
    )
    assert not report.committed
    assert {r.code for r in report.rejected} == {"unsupported_type"}
    assert report.rejected_count == 3


IGNORED_FIELD_FILES = [
    pytest.param(
        "long_csv",
        b"item,coder,label,question\ndoc-1,alice,pos,sentiment\ndoc-1,,too long to say,note\n",
        {"note": None},
        {"note": 1},
        {("doc-1", "alice"): "pos"},
        id="long_csv question column",
    ),
    pytest.param(
        "prodigy",
        b'{"_input_hash": 7, "_annotator_id": "alice", "label": "SPORTS", "answer": "accept"}\n'
        b'{"_input_hash": 7, "_annotator_id": "alice", "label": "SPAM", "answer": "maybe"}\n'
        b'{"_input_hash": 8, "_annotator_id": "bob", "label": "SPAM", "answer": "accept"}\n',
        {"SPORTS": "sports", "SPAM": None},
        {"SPAM": 2},
        {("7", "alice"): "accept"},
        id="prodigy binary label",
    ),
    pytest.param(
        "inception_diagnosis",
        b"Type,Collection,Document,Layer,Feature,Position,Flags,alice,bob\n"
        b"NamedEntity,news,n1.txt,Named entity,value,0-4,USED,PER,ORG\n"
        b"NamedEntity,news,n1.txt,Named entity,identifier,0-4,USED,Q1\n"
        b"NamedEntity,news,n1.txt,Named entity,identifier,6-9,USED,Q2,Q3\n",
        {"value": "entity", "identifier": None},
        {"identifier": 3},
        {("n1.txt:0-4", "alice"): "PER", ("n1.txt:0-4", "bob"): "ORG"},
        id="inception feature",
    ),
]


@pytest.mark.parametrize(("fmt", "data", "question_map", "ignored", "written"), IGNORED_FIELD_FILES)
def test_every_format_ignores_the_records_of_a_field_mapped_to_null(
    target: ImportStudy,
    actor: Actor,
    fmt: str,
    data: bytes,
    question_map: dict[str, str | None],
    ignored: dict[str, int],
    written: dict[tuple[str, str], str],
) -> None:
    report = run(target, actor, fmt, data, question_map=question_map)
    assert report.rejected == []
    assert report.committed
    assert report.ignored_fields == ignored
    question = next(iter(key for key in question_map.values() if key), "sentiment")
    assert stored(target.round, question) == written


# Category matching and category_map ---------------------------------------------------


def test_labels_differing_in_case_are_unknown_without_the_option_and_the_error_says_so(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target, actor, "long_csv", b"item,coder,label\ndoc-1,alice,Positive\n", question_key="tone"
    )
    assert rejected(report) == [("line 2", "label", "unknown_category")]
    assert report.rejected[0].detail == (
        "'Positive' is not a category of this question (closest: 'positive'). 'Positive' "
        "equals the code "
        "'positive' ignoring case: set case_insensitive_categories, or map it in category_map."
    )


def test_case_insensitive_categories_matches_labels_ignoring_case_and_whitespace(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    data = (
        b'{"id": 1, "annotator": "alice", "label": ["Positive"]}\n'
        b'{"id": 1, "annotator": "bob", "label": [" NEGATIVE "]}\n'
        b'{"id": 2, "annotator": "alice", "label": ["neutral"]}\n'
    )
    report = run(
        target, actor, "doccano", data, question_key="tone", case_insensitive_categories=True
    )
    assert report.rejected == []
    assert report.committed
    assert stored(target.round, "tone") == {
        ("1", "alice"): "positive",
        ("1", "bob"): "negative",
        ("2", "alice"): "neutral",
    }
    assert [(m.question, m.label, m.code, m.rule, m.count) for m in report.label_mappings] == [
        ("tone", "NEGATIVE", "negative", "case_insensitive", 1),
        ("tone", "Positive", "positive", "case_insensitive", 1),
    ]


def test_two_codes_equal_ignoring_case_make_a_case_insensitive_match_ambiguous(
    target: ImportStudy, actor: Actor
) -> None:
    polarity = QuestionFactory(study=target.study, key="polarity", kind=LabelKind.NOMINAL)
    for position, code in enumerate(["Pos", "pos", "neg"]):
        CategoryFactory(question=polarity, code=code, position=position)
    before = db_state(target.study)
    report = run(
        target,
        actor,
        "long_csv",
        b"item,coder,label\ndoc-1,alice,POS\ndoc-1,bob,pos\ndoc-2,alice,NEG\n",
        question_key="polarity",
        case_insensitive_categories=True,
    )
    assert not report.committed
    assert rejected(report) == [("line 2", "label", "ambiguous_category")]
    assert report.rejected[0].detail == (
        "'POS' matches the codes 'Pos' and 'pos' ignoring case: name the one it means in "
        'category_map, e.g. {"POS": "Pos"}.'
    )
    assert db_state(target.study) == before


def test_category_map_maps_a_file_label_onto_a_code(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "long_csv",
        b"item,coder,label\ndoc-1,alice,pos\ndoc-1,bob,negative\ndoc-2,bob,pos\n",
        question_key="tone",
        category_map={"pos": "positive"},
    )
    assert report.committed
    assert stored(target.round, "tone") == {
        ("doc-1", "alice"): "positive",
        ("doc-1", "bob"): "negative",
        ("doc-2", "bob"): "positive",
    }
    assert [(m.question, m.label, m.code, m.rule, m.count) for m in report.label_mappings] == [
        ("tone", "pos", "positive", "category_map", 2),
    ]


def test_category_map_to_null_drops_the_label_even_when_it_is_a_code(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "long_csv",
        b"item,coder,label\ndoc-1,alice,n/a\ndoc-1,bob,neutral\ndoc-2,bob,negative\n",
        question_key="tone",
        category_map={"n/a": None, "neutral": None},
    )
    assert report.committed
    assert stored(target.round, "tone") == {("doc-2", "bob"): "negative"}
    assert report.skipped == {"label dropped by category_map (mapped to null)": 2}
    assert [(m.label, m.code, m.count) for m in report.label_mappings] == [
        ("n/a", None, 1),
        ("neutral", None, 1),
    ]
    assert report.questions[0].annotations == 1


def test_category_map_applies_to_each_member_of_a_set(target: ImportStudy, actor: Actor) -> None:
    data = (
        b'{"id": 1, "annotator": "alice", "label": ["Sport", "culture", "unsure"]}\n'
        b'{"id": 1, "annotator": "bob", "label": ["unsure"]}\n'
        b'{"id": 2, "annotator": "bob", "label": ["Politics"]}\n'
    )
    report = run(
        target,
        actor,
        "doccano",
        data,
        question_key="topics",
        category_map={"Sport": "sports", "unsure": None},
        case_insensitive_categories=True,
    )
    assert report.rejected == []
    assert stored(target.round, "topics") == {
        ("1", "alice"): ["culture", "sports"],
        ("2", "bob"): ["politics"],
    }
    assert report.skipped == {"label dropped by category_map (mapped to null)": 1}


def test_hierarchy_nodes_match_by_code_or_path_ignoring_case(
    target: ImportStudy, actor: Actor
) -> None:
    report = run(
        target,
        actor,
        "long_csv",
        b"item,coder,label\ndoc-1,alice,Animal/DOG\ndoc-1,bob,PLANT\ndoc-2,bob,feline\n",
        question_key="taxon",
        case_insensitive_categories=True,
        category_map={"feline": "animal/cat"},
    )
    assert report.rejected == []
    assert stored(target.round, "taxon") == {
        ("doc-1", "alice"): "dog",
        ("doc-1", "bob"): "plant",
        ("doc-2", "bob"): "cat",
    }


def test_an_unknown_label_names_its_row_and_the_closest_code(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "long_csv",
        b"item,coder,label\ndoc-1,alice,positive\ndoc-1,bob,negatve\ndoc-2,bob,meh\n",
        question_key="tone",
        case_insensitive_categories=True,
    )
    assert rejected(report) == [
        ("line 3", "label", "unknown_category"),
        ("line 4", "label", "unknown_category"),
    ]
    assert report.rejected[0].detail == (
        "'negatve' is not a category of this question (closest: 'negative'). To accept "
        '\'negatve\', map it in category_map: {"negatve": "negative"}.'
    )
    assert report.rejected[1].detail == (
        "'meh' is not a category of this question (declared: 'positive', 'negative', "
        "'neutral'). To accept 'meh', map it in category_map: {\"meh\": \"<code>\"}."
    )


def test_a_shared_category_map_entry_outside_a_question_is_rejected_with_the_remedy(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    data = b"item,coder,label,question\ndoc-1,alice,good,tone\ndoc-1,bob,good,sentiment\n"
    report = run(target, actor, "long_csv", data, category_map={"good": "positive"})
    assert rejected(report) == [("line 3", "label", "unknown_category")]
    assert report.rejected[0].detail == (
        "category_map maps 'good' to 'positive', which is not a category of question "
        "'sentiment' (declared: 'pos', 'neg', 'neutral'); give that question its own map: "
        '{"sentiment": {"good": "<code>"}}.'
    )
    per_question = run(
        target,
        actor,
        "long_csv",
        data,
        category_map={"tone": {"good": "positive"}, "sentiment": {"good": "pos"}},
    )
    assert per_question.committed
    assert stored(target.round, "tone") == {("doc-1", "alice"): "positive"}
    assert stored(target.round, "sentiment") == {("doc-1", "bob"): "pos"}


@pytest.mark.parametrize(
    ("category_map", "message"),
    [
        (
            {"pos": "postive"},
            "category_map maps 'pos' to 'postive', which is a category of no question of "
            "this study (closest: 'positive').",
        ),
        ({"mood": {"pos": "positive"}}, "category_map names no question 'mood' of this study."),
        ({"age": {"old": "90"}}, "category_map: question 'age' takes numbers, not categories."),
        (
            {"tone": {"pos": "pos"}},
            "category_map maps 'pos' to 'pos', which is not a category of question 'tone' "
            "(declared: 'positive', 'negative', 'neutral').",
        ),
    ],
)
def test_a_category_map_naming_what_does_not_exist_is_a_bad_request(
    target: ImportStudy,
    actor: Actor,
    tone: Question,
    category_map: dict[str, Any],
    message: str,
) -> None:
    with pytest.raises(ValidationError) as error:
        run(
            target,
            actor,
            "long_csv",
            b"item,coder,label\ndoc-1,alice,pos\n",
            question_key="tone",
            category_map=category_map,
        )
    assert [e.message for e in error.value.error_dict["category_map"]] == [message]


CASE_AND_MAP_FILES = [
    pytest.param(
        "label_studio",
        b'[{"id": 9, "annotations": [{"id": 1, "completed_by": "alice", "result": ['
        b'{"id": "a", "from_name": "tone", "type": "choices", "value": {"choices": ["Positive"]}}'
        b']}, {"id": 2, "completed_by": "bob", "result": ['
        b'{"id": "b", "from_name": "tone", "type": "choices", "value": {"choices": ["pos"]}}'
        b"]}]}]",
        {},
        {("9", "alice"): "positive", ("9", "bob"): "positive"},
        id="label_studio",
    ),
    pytest.param(
        "doccano",
        b'{"id": 9, "annotator": "alice", "label": ["Positive"]}\n'
        b'{"id": 9, "annotator": "bob", "label": ["pos"]}\n',
        {"question_key": "tone"},
        {("9", "alice"): "positive", ("9", "bob"): "positive"},
        id="doccano",
    ),
    pytest.param(
        "inception_diagnosis",
        b"Type,Collection,Document,Layer,Feature,Position,Flags,alice,bob\n"
        b"Sentiment,c,d,Tone,tone,0-4,USED,Positive,pos\n",
        {},
        {("d:0-4", "alice"): "positive", ("d:0-4", "bob"): "positive"},
        id="inception_diagnosis",
    ),
    pytest.param(
        "wide_csv",
        b"item,alice,bob\nd,Positive,pos\n",
        {"question_key": "tone"},
        {("d", "alice"): "positive", ("d", "bob"): "positive"},
        id="wide_csv",
    ),
    pytest.param(
        "agreement_table",
        b"item,Positive,pos\nd,1,1\n",
        {"question_key": "tone"},
        {("d", "slot-1"): "positive", ("d", "slot-2"): "positive"},
        id="agreement_table",
    ),
]


@pytest.mark.parametrize(("fmt", "data", "options", "written"), CASE_AND_MAP_FILES)
def test_every_format_matches_categories_through_the_same_options(
    target: ImportStudy,
    actor: Actor,
    tone: Question,
    fmt: str,
    data: bytes,
    options: dict[str, Any],
    written: dict[tuple[str, str], str],
) -> None:
    report = run(
        target,
        actor,
        fmt,
        data,
        case_insensitive_categories=True,
        category_map={"pos": "positive"},
        **options,
    )
    assert report.rejected == []
    assert stored(target.round, "tone") == written


def test_a_mapped_import_dry_runs_writes_nothing_and_reimports_unchanged(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    data = b"item,coder,label\ndoc-1,alice,pos\ndoc-1,bob,Negative\ndoc-2,bob,n/a\n"
    options: dict[str, Any] = {
        "question_key": "tone",
        "category_map": {"pos": "positive", "n/a": None},
        "case_insensitive_categories": True,
    }
    before = db_state(target.study)
    dry = run(target, actor, "long_csv", data, dry_run=True, **options)
    assert db_state(target.study) == before
    assert (dry.created, dry.committed) == (2, False)
    assert [(m.label, m.code, m.rule) for m in dry.label_mappings] == [
        ("Negative", "negative", "case_insensitive"),
        ("n/a", None, "category_map"),
        ("pos", "positive", "category_map"),
    ]
    first = run(target, actor, "long_csv", data, **options)
    assert (first.created, first.committed) == (2, True)
    after = db_state(target.study)
    again = run(target, actor, "long_csv", data, **options)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 2)
    assert db_state(target.study) == after


# coder_map ---------------------------------------------------------------------------------


def coder_keys(target: ImportStudy) -> list[str]:
    return sorted(Coder.objects.filter(study=target.study).values_list("key", flat=True))


def test_coder_map_puts_an_annotators_labels_on_an_existing_coder(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    report = run(
        target,
        actor,
        "label_studio",
        sample("label_studio_comment_box.json"),
        question_map={"comment": None},
        coder_map={"17": "alice"},
    )
    assert report.committed
    assert stored(target.round, "tone") == {
        ("501", "alice"): "positive",
        ("501", "dana@example.org"): "positive",
        ("502", "alice"): "negative",
        ("502", "dana@example.org"): "neutral",
    }
    assert report.coders_created == 1
    assert coder_keys(target) == ["alice", "bob", "dana@example.org"]
    assert [(m.name, m.coder, m.annotations) for m in report.coder_mappings] == [("17", "alice", 2)]


def test_coder_map_takes_a_coder_id_and_lands_without_create_missing(
    target: ImportStudy, actor: Actor
) -> None:
    bob = Coder.objects.get(study=target.study, key="bob")
    report = run(
        target,
        actor,
        "long_csv",
        b"item,coder,label\ndoc-1,annotator_17,pos\ndoc-2,annotator_17,neg\ndoc-2,alice,neg\n",
        question_key="sentiment",
        coder_map={"annotator_17": bob.pk},
        create_missing=False,
    )
    assert report.rejected == []
    assert stored(target.round, "sentiment") == {
        ("doc-1", "bob"): "pos",
        ("doc-2", "bob"): "neg",
        ("doc-2", "alice"): "neg",
    }
    assert coder_keys(target) == ["alice", "bob"]


@pytest.mark.parametrize(
    ("coder_map", "message"),
    [
        ({"17": "zed"}, "coder_map maps '17' to 'zed', which is no coder of this study."),
        (
            {"17": 987654},
            "coder_map maps '17' to the coder id 987654, which is no coder of this study.",
        ),
        (
            {"17": "ali\x00ce"},
            "coder_map maps '17' to 'ali\\x00ce', which is no coder of this study.",
        ),
    ],
)
def test_coder_map_onto_an_unknown_coder_is_a_bad_request_naming_it(
    target: ImportStudy, actor: Actor, tone: Question, coder_map: dict[str, Any], message: str
) -> None:
    before = db_state(target.study)
    with pytest.raises(ValidationError) as error:
        run(
            target,
            actor,
            "label_studio",
            sample("label_studio_comment_box.json"),
            question_map={"comment": None},
            coder_map=coder_map,
        )
    assert [(e.code, e.message) for e in error.value.error_dict["coder_map"]] == [
        ("unknown_coder", message)
    ]
    assert db_state(target.study) == before


def test_a_coder_id_of_another_study_is_unknown(target: ImportStudy, actor: Actor) -> None:
    stranger = CoderFactory(key="alice")  # same key, another study
    with pytest.raises(ValidationError) as error:
        run(
            target,
            actor,
            "long_csv",
            b"item,coder,label\ndoc-1,x,pos\n",
            question_key="sentiment",
            coder_map={"x": stranger.pk},
        )
    assert error.value.error_dict["coder_map"][0].message == (
        f"coder_map maps 'x' to the coder id {stranger.pk}, which is no coder of this study."
    )


def test_two_names_mapped_onto_one_coder_for_the_same_item_are_duplicates(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    before = db_state(target.study)
    report = run(
        target,
        actor,
        "label_studio",
        sample("label_studio_comment_box.json"),
        question_map={"comment": None},
        coder_map={"17": "alice", "dana@example.org": "alice"},
    )
    assert not report.committed
    assert rejected(report) == [
        ("task 501, annotation 5002, result t2", "row", "duplicate_row"),
        ("task 502, annotation 5004, result t4", "row", "duplicate_row"),
    ]
    assert db_state(target.study) == before


def test_a_coder_mapped_import_dry_runs_and_reimports_unchanged(
    target: ImportStudy, actor: Actor, tone: Question
) -> None:
    options: dict[str, Any] = {
        "question_map": {"comment": None},
        "coder_map": {"17": "alice", "dana@example.org": "bob"},
        "create_missing": True,
    }
    data = sample("label_studio_comment_box.json")
    before = db_state(target.study)
    dry = run(target, actor, "label_studio", data, dry_run=True, **options)
    assert (dry.created, dry.coders_created, dry.committed) == (4, 0, False)
    assert [(m.name, m.coder, m.annotations) for m in dry.coder_mappings] == [
        ("17", "alice", 2),
        ("dana@example.org", "bob", 2),
    ]
    assert db_state(target.study) == before
    first = run(target, actor, "label_studio", data, **options)
    assert (first.created, first.committed) == (4, True)
    after = db_state(target.study)
    again = run(target, actor, "label_studio", data, **options)
    assert (again.created, again.updated, again.unchanged) == (0, 0, 4)
    assert db_state(target.study) == after


def test_span_labels_match_categories_through_the_same_options(
    target: ImportStudy, actor: Actor, mentions: Question
) -> None:
    data = (
        b'[{"doc": "d", "user": "alice", "begin": 0, "end": 4, "label": "per"},'
        b' {"doc": "d", "user": "alice", "begin": 5, "end": 9, "label": "Person"},'
        b' {"doc": "d", "user": "bob", "begin": 0, "end": 4, "label": "junk"}]'
    )
    report = run(
        target,
        actor,
        "inception",
        data,
        question_key="mentions",
        case_insensitive_categories=True,
        category_map={"mentions": {"Person": "PER", "junk": None}},
    )
    assert report.committed, report.rejected
    # bob's only unit is dropped: he annotated the document and found nothing countable
    assert stored_units(target.round, "mentions") == {
        ("d", "alice"): [(0, 4, "PER"), (5, 9, "PER")],
        ("d", "bob"): [],
    }
    assert report.skipped == {"label dropped by category_map (mapped to null)": 1}
    assert [(m.label, m.code, m.rule, m.count) for m in report.label_mappings] == [
        ("Person", "PER", "category_map", 1),
        ("junk", None, "category_map", 1),
        ("per", "PER", "case_insensitive", 1),
    ]
