"""Unknown category codes in a bulk upload: every error names the closest declared code
(``difflib.get_close_matches``, cutoff 0.6) or, when none is close, the declared codes; and
``create_categories`` declares them instead, for nominal and set questions.

The closest codes, worked out by hand with difflib's ratio 2·M/T (M characters in matching
blocks, T the two lengths' sum; a code is close from 0.6 on):

- 'neutrall' / 'neutral': block 'neutral', 2·7/15 = 0.93 ('neg': 'ne', 2·2/11 = 0.36);
- 'sprots' / 'sports': blocks 'sp', 'o', 'ts', 2·5/12 = 0.83 ('politics': 2·4/14 = 0.57);
- 'Neg' / 'neg': block 'eg', 2·2/6 = 0.67 (difflib is case-sensitive);
- 'dgo' / 'dog': blocks 'd', 'o', 2·2/6 = 0.67;
- 'zzz' shares no character with any code: ratio 0, so the declared codes are listed.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from annotations import history
from annotations.ingest import annotations_ingest_csv
from studies.access import Actor
from studies.models import Annotation, AnnotationChange, Category, LabelKind, Study
from tests.api.annotation_setup import Scheme, build_scheme, bulk_url
from tests.factories import CategoryFactory, QuestionFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


def post_json(
    client: APIClient, scheme: Scheme, question: str, rows: list[Any], **flags: Any
) -> Any:
    body = {"round": scheme.round.pk, "question": question, "annotations": rows, **flags}
    return client.post(bulk_url(scheme.study), body, format="json")


def post_csv(client: APIClient, scheme: Scheme, text: str, **query: str) -> Any:
    params = "&".join(f"{key}={value}" for key, value in query.items())
    return client.post(
        f"{bulk_url(scheme.study)}?{params}", data=text.encode(), content_type="text/csv"
    )


def codes(question: Any) -> list[str]:
    return list(
        Category.objects.filter(question=question)
        .order_by("position")
        .values_list("code", flat=True)
    )


# --- the closest code ---------------------------------------------------------------------


def test_a_json_upload_names_the_closest_code_or_the_declared_ones(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        "sentiment",
        [
            {"item": "doc-1", "coder": "alice", "label": "neutrall"},
            {"item": "doc-1", "coder": "bob", "label": "zzz"},
        ],
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "unknown_category",
            "detail": "'neutrall' is not a category of this question (closest: 'neutral').",
            "attr": "annotations.0.label",
        },
        {
            "code": "unknown_category",
            "detail": "'zzz' is not a category of this question "
            "(declared: 'pos', 'neg', 'neutral').",
            "attr": "annotations.1.label",
        },
    ]


def test_a_set_names_the_closest_code_of_each_unknown_member(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_csv(
        annotator_client,
        scheme,
        "item,coder,label\ndoc-1,alice,sprots|zzz|culture\n",
        round=str(scheme.round.pk),
        question="topics",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "unknown_category",
            "detail": "Not categories of this question: 'sprots' (closest: 'sports'), 'zzz' "
            "(declared: 'sports', 'politics', 'culture').",
            "attr": "annotations.0.label",
        }
    ]


def test_a_streamed_csv_names_the_closest_code_by_line(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_csv(
        annotator_client,
        scheme,
        "item,coder,label\ndoc-1,alice,pos\ndoc-1,bob,Neg\n",
        round=str(scheme.round.pk),
        question="sentiment",
        partial="true",
    )
    assert response.status_code == 200
    assert response.json()["rejections"] == [
        {
            "line": 3,
            "field": "label",
            "code": "unknown_category",
            "detail": "'Neg' is not a category of this question (closest: 'neg').",
        }
    ]


def test_a_hierarchy_node_error_names_the_closest_code(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client, scheme, "taxon", [{"item": "doc-1", "coder": "alice", "label": "dgo"}]
    )
    assert response.json()["errors"][0]["detail"] == (
        "'dgo' is neither the code nor the path of a node of this question's tree (closest: 'dog')."
    )


def test_many_declared_codes_are_listed_ten_at_most(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    question = QuestionFactory(study=scheme.study, key="letters", kind=LabelKind.NOMINAL)
    for position, code in enumerate(f"c{n:02d}" for n in range(12)):
        CategoryFactory(question=question, code=code, position=position)
    response = post_json(
        annotator_client, scheme, "letters", [{"item": "doc-1", "coder": "alice", "label": "zzz"}]
    )
    assert response.json()["errors"][0]["detail"] == (
        "'zzz' is not a category of this question (declared: 'c00', 'c01', 'c02', 'c03', "
        "'c04', 'c05', 'c06', 'c07', 'c08', 'c09', and 2 more)."
    )


# --- create_categories ----------------------------------------------------------------------


def test_a_json_upload_declares_new_categories_when_asked(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    rows = [
        {"item": "doc-1", "coder": "alice", "label": "mixed"},
        {"item": "doc-1", "coder": "bob", "label": "pos"},
        {"item": "doc-2", "coder": "alice", "label": "mixed"},
        {"item": "doc-2", "coder": "bob", "label": "sarcastic"},
    ]
    response = post_json(annotator_client, scheme, "sentiment", rows, create_categories=True)
    assert response.status_code == 200, response.json()
    assert response.json() == {
        "created": 4,
        "updated": 0,
        "unchanged": 0,
        "items_created": 0,
        "coders_created": 0,
        "categories_created": ["mixed", "sarcastic"],
    }
    assert codes(scheme.sentiment) == ["pos", "neg", "neutral", "mixed", "sarcastic"]
    assert Category.objects.get(question=scheme.sentiment, code="mixed").label == "mixed"
    stored = Annotation.objects.get(
        round=scheme.round, question=scheme.sentiment, item__external_id="doc-2", coder__key="bob"
    )
    assert stored.category is not None
    assert stored.category.code == "sarcastic"
    again = post_json(annotator_client, scheme, "sentiment", rows, create_categories=True)
    assert again.json()["categories_created"] == []
    assert again.json()["unchanged"] == 4


def test_a_csv_upload_declares_the_new_members_of_sets(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_csv(
        annotator_client,
        scheme,
        "item,coder,label\ndoc-1,alice,sports|cooking\ndoc-1,bob,travel|cooking\n",
        round=str(scheme.round.pk),
        question="topics",
        create_categories="true",
    )
    assert response.status_code == 200, response.json()
    assert response.json()["categories_created"] == ["cooking", "travel"]
    assert codes(scheme.topics) == ["sports", "politics", "culture", "cooking", "travel"]


def test_without_the_flag_nothing_is_declared(annotator_client: APIClient, scheme: Scheme) -> None:
    response = post_json(
        annotator_client,
        scheme,
        "sentiment",
        [{"item": "doc-1", "coder": "alice", "label": "mixed"}],
    )
    assert response.status_code == 400
    assert codes(scheme.sentiment) == ["pos", "neg", "neutral"]


def test_an_upload_refused_for_another_row_declares_nothing(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        "sentiment",
        [
            {"item": "doc-1", "coder": "alice", "label": "mixed"},
            {"item": "doc-1", "coder": "nobody", "label": "pos"},
        ],
        create_categories=True,
    )
    assert response.status_code == 400
    assert [error["code"] for error in response.json()["errors"]] == ["unknown_coder"]
    assert codes(scheme.sentiment) == ["pos", "neg", "neutral"]


def test_an_ordinal_question_refuses_to_declare_categories(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    grade = QuestionFactory(study=scheme.study, key="grade", kind=LabelKind.ORDINAL)
    CategoryFactory(question=grade, code="low", position=0)
    response = post_json(
        annotator_client,
        scheme,
        "grade",
        [{"item": "doc-1", "coder": "alice", "label": "high"}],
        create_categories=True,
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "categories_not_from_labels",
            "detail": "Question 'grade' is ordinal: its categories cannot be declared from "
            "labels (an ordinal scale's order or a tree's parents would be guessed). Declare "
            "them in the label scheme first.",
            "attr": "create_categories",
        }
    ]


def stored(scheme: Scheme, question: str) -> list[tuple[str, str, Any]]:
    rows = Annotation.objects.filter(round=scheme.round, question__key=question).values_list(
        "item__external_id", "coder__key", "category__code", "category_set"
    )
    return sorted((item, coder, code or tuple(members)) for item, coder, code, members in rows)


def test_a_streamed_upload_declares_new_categories_when_asked(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_csv(
        annotator_client,
        scheme,
        "item,coder,label\n"
        "doc-1,alice,mixed\n"
        "doc-1,bob,pos\n"
        "doc-2,alice,mixed\n"
        "doc-2,bob,sarcastic\n",
        round=str(scheme.round.pk),
        question="sentiment",
        create_categories="true",
        partial="true",
    )
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["categories_created"] == ["mixed", "sarcastic"]
    assert (body["rows"], body["created"], body["rejected"]) == (4, 4, 0)
    assert codes(scheme.sentiment) == ["pos", "neg", "neutral", "mixed", "sarcastic"]
    assert stored(scheme, "sentiment") == [
        ("doc-1", "alice", "mixed"),
        ("doc-1", "bob", "pos"),
        ("doc-2", "alice", "mixed"),
        ("doc-2", "bob", "sarcastic"),
    ]


def test_a_streamed_set_upload_declares_new_members_across_batches(scheme: Scheme) -> None:
    """Batches of two rows: 'cooking' first comes in the first batch, 'travel' in the
    second; the codes are declared first seen first, each row keeps its line."""
    report = annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key="topics",
        lines=[
            "item,coder,label\n",
            "doc-1,alice,sports|cooking\n",
            "doc-1,bob,sports\n",
            "doc-2,alice,travel|cooking\n",
            "doc-2,bob,politics\n",
        ],
        actor=Actor(user=None, token=None),
        create_categories=True,
        batch_size=2,
    )
    assert report.categories_created == ["cooking", "travel"]
    assert (report.rows, report.created, report.rejected) == (4, 4, 0)
    assert codes(scheme.topics) == ["sports", "politics", "culture", "cooking", "travel"]
    code_of = dict(Category.objects.filter(question=scheme.topics).values_list("pk", "code"))
    assert [
        (item, coder, [code_of[pk] for pk in ids]) for item, coder, ids in stored(scheme, "topics")
    ] == [
        ("doc-1", "alice", ["sports", "cooking"]),
        ("doc-1", "bob", ["sports"]),
        ("doc-2", "alice", ["cooking", "travel"]),
        ("doc-2", "bob", ["politics"]),
    ]


def test_a_streamed_upload_still_refuses_a_code_no_category_may_have(
    annotator_client: APIClient, scheme: Scheme, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Above the bulk limit (lowered to 2 rows) the upload streams, all or nothing: 'a/b'
    cannot be a code ('/' writes a tree's path), so its line is refused, and neither
    'mixed' nor any annotation is written."""
    monkeypatch.setattr("annotations.api.parsers.MAX_BULK_ROWS", 2)
    response = post_csv(
        annotator_client,
        scheme,
        "item,coder,label\ndoc-1,alice,mixed\ndoc-1,bob,pos\ndoc-2,alice,a/b\n",
        round=str(scheme.round.pk),
        question="sentiment",
        create_categories="true",
    )
    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "unknown_category",
            "detail": "'a/b' is not a category of this question "
            "(declared: 'pos', 'neg', 'neutral', 'mixed').",
            "attr": "line 4.label",
        }
    ]
    assert codes(scheme.sentiment) == ["pos", "neg", "neutral"]
    assert stored(scheme, "sentiment") == []


def test_a_streamed_upload_refuses_create_categories_for_an_ordinal_question(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    grade = QuestionFactory(study=scheme.study, key="grade", kind=LabelKind.ORDINAL)
    CategoryFactory(question=grade, code="low", position=0)
    response = post_csv(
        annotator_client,
        scheme,
        "item,coder,label\ndoc-1,alice,high\n",
        round=str(scheme.round.pk),
        question="grade",
        create_categories="true",
        partial="true",
    )
    assert response.status_code == 400
    assert [(e["code"], e["attr"]) for e in response.json()["errors"]] == [
        ("categories_not_from_labels", "create_categories")
    ]
    assert codes(grade) == ["low"]


def test_a_code_no_category_may_have_stays_unknown(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = post_json(
        annotator_client,
        scheme,
        "sentiment",
        [{"item": "doc-1", "coder": "alice", "label": "a/b"}],
        create_categories=True,
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "unknown_category"
    assert codes(scheme.sentiment) == ["pos", "neg", "neutral"]


def test_the_batch_entry_of_a_streamed_upload_reads_its_new_categories(
    settings: Any, scheme: Scheme
) -> None:
    """The import's one change-log entry keeps the categories its values are read with
    (on PostgreSQL it is made before the first row is read): 'mixed' among them."""
    settings.AGREEMENT_INGEST_BATCH_LOG_MIN = 1
    annotations_ingest_csv(
        study=scheme.study,
        round_ref=scheme.round.pk,
        question_key="sentiment",
        lines=["item,coder,label\n", "doc-1,alice,pos\n", "doc-2,bob,mixed\n"],
        actor=Actor(user=None, token=None),
        create_categories=True,
        batch_size=1,
    )
    entry = AnnotationChange.objects.get(batch_size=2)
    expanded = history.expanded_entries(entry, history.batch_annotations(entry))
    assert sorted((e.item.external_id, e.new_value) for e in expanded) == [
        ("doc-1", "pos"),
        ("doc-2", "mixed"),
    ]


def test_the_import_command_declares_categories_when_asked(scheme: Scheme, tmp_path: Any) -> None:
    path = tmp_path / "crowd.csv"
    path.write_text("item,coder,label\ndoc-1,alice,mixed\ndoc-1,bob,pos\n")
    out = io.StringIO()
    call_command(
        "annotations_import_csv",
        str(scheme.study.pk),
        str(scheme.round.pk),
        "sentiment",
        str(path),
        "--create-categories",
        stdout=out,
    )
    assert "Categories declared: mixed." in out.getvalue()
    assert codes(scheme.sentiment) == ["pos", "neg", "neutral", "mixed"]
