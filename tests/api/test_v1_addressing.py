"""A question and a round are named the same way on every endpoint: by id, or by the
question's key / the round's name (digits are an id first, then a key / name); a name that
is not in the study is a 400 naming the parameter, never an empty answer."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from computations.models import Computation, ComputationScope
from computations.services import computation_request
from studies.models import Study
from studies.selectors import question_resolve, round_resolve
from tests.api.annotation_setup import (
    Scheme,
    annotations_url,
    build_scheme,
    bulk_url,
    changes_url,
)
from tests.computations.comparing import compare_through_api
from tests.computations.helpers import (
    EngineDouble,
    label_round,
    nominal_question,
    random_table,
)
from tests.factories import AnnotationFactory, QuestionFactory, RoundFactory, StudyFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheme(study: Study) -> Scheme:
    return build_scheme(study)


@pytest.fixture
def uploaded(annotator_client: APIClient, scheme: Scheme) -> Scheme:
    """Round 1: sentiment by alice (doc-1 pos) and bob (doc-2 neg), taxon by alice (doc-1
    dog); Round 2: sentiment by alice (doc-2 neutral)."""
    for question, item, coder, label in [
        ("sentiment", "doc-1", "alice", "pos"),
        ("sentiment", "doc-2", "bob", "neg"),
        ("taxon", "doc-1", "alice", "dog"),
    ]:
        response = annotator_client.post(
            bulk_url(scheme.study),
            {
                "round": "Round 1",
                "question": question,
                "annotations": [{"item": item, "coder": coder, "label": label}],
            },
            format="json",
        )
        assert response.status_code == 200, response.json()
    second = RoundFactory(study=scheme.study, name="Round 2", position=2)
    AnnotationFactory(
        round=second,
        question=scheme.sentiment,
        item=scheme.items["doc-2"],
        coder=scheme.coders["alice"],
        category=scheme.categories["neutral"],
    )
    return scheme


def rows_of(body: dict[str, Any]) -> set[tuple[str, str, str, str]]:
    return {(r["round_name"], r["question"], r["item"], r["coder"]) for r in body["results"]}


ROUND_1_SENTIMENT = {
    ("Round 1", "sentiment", "doc-1", "alice"),
    ("Round 1", "sentiment", "doc-2", "bob"),
}


# --- the resolver --------------------------------------------------------------------------


def test_digits_are_an_id_first_then_a_key_or_a_name(study: Study) -> None:
    first = RoundFactory(study=study, name="Pilot")
    named_like_first = RoundFactory(study=study, name=str(first.pk))
    year = RoundFactory(study=study, name="987654321")
    question = QuestionFactory(study=study, key="sentiment")
    keyed_in_digits = QuestionFactory(study=study, key="987654321")

    assert round_resolve(study=study, ref=str(first.pk)) == first  # the id wins over a name
    assert round_resolve(study=study, ref=first.pk) == first
    assert round_resolve(study=study, ref=f" {named_like_first.pk} ") == named_like_first
    assert round_resolve(study=study, ref="987654321") == year  # no such id: the name
    assert round_resolve(study=study, ref="Pilot") == first
    assert round_resolve(study=study, ref="pilot") is None
    assert question_resolve(study=study, ref=str(question.pk)) == question
    assert question_resolve(study=study, ref=question.pk) == question
    assert question_resolve(study=study, ref="sentiment") == question
    assert question_resolve(study=study, ref="987654321") == keyed_in_digits
    assert question_resolve(study=study, ref="nope\x00") is None


def test_an_object_of_another_study_is_not_found_by_its_id(study: Study) -> None:
    other = StudyFactory()
    foreign_round = RoundFactory(study=other, name="Round 1")
    foreign_question = QuestionFactory(study=other, key="sentiment")

    assert round_resolve(study=study, ref=foreign_round.pk) is None
    assert question_resolve(study=study, ref=foreign_question.pk) is None
    assert question_resolve(study=study, ref="sentiment") is None


# --- annotations and their change log ------------------------------------------------------


def test_annotations_filtered_by_round_id_and_question_id(
    viewer_client: APIClient, uploaded: Scheme
) -> None:
    response = viewer_client.get(
        annotations_url(uploaded.study),
        {"round": uploaded.round.pk, "question": uploaded.sentiment.pk},
    )

    assert response.status_code == 200, response.json()
    assert rows_of(response.json()) == ROUND_1_SENTIMENT


def test_annotations_filtered_by_round_name_and_question_key(
    viewer_client: APIClient, uploaded: Scheme
) -> None:
    response = viewer_client.get(
        annotations_url(uploaded.study), {"round": "Round 1", "question": "sentiment"}
    )

    assert response.status_code == 200, response.json()
    assert rows_of(response.json()) == ROUND_1_SENTIMENT


def test_an_annotation_shows_the_question_id_and_key_and_the_round_id_and_name(
    viewer_client: APIClient, uploaded: Scheme
) -> None:
    body = viewer_client.get(
        annotations_url(uploaded.study), {"round": "Round 1", "question": "taxon"}
    ).json()

    (row,) = body["results"]
    assert (row["question"], row["question_id"]) == ("taxon", uploaded.taxon.pk)
    assert (row["round"], row["round_name"]) == (uploaded.round.pk, "Round 1")


@pytest.mark.parametrize(
    ("query", "attr", "code", "detail"),
    [
        ({"question": "mood"}, "question", "unknown_question", "No question 'mood' in this study."),
        (
            {"question": "999999"},
            "question",
            "unknown_question",
            "No question '999999' in this study.",
        ),
        ({"round": "Round 9"}, "round", "unknown_round", "No round 'Round 9' in this study."),
        ({"round": "999999"}, "round", "unknown_round", "No round '999999' in this study."),
    ],
)
@pytest.mark.parametrize("url", [annotations_url, changes_url])
def test_a_filter_naming_something_absent_is_a_400_naming_it(
    viewer_client: APIClient,
    uploaded: Scheme,
    url: Any,
    query: dict[str, str],
    attr: str,
    code: str,
    detail: str,
) -> None:
    response = viewer_client.get(url(uploaded.study), query)

    assert response.status_code == 400
    assert response.json()["errors"] == [{"code": code, "detail": detail, "attr": attr}]


def test_a_question_of_another_study_is_absent_here(
    viewer_client: APIClient, uploaded: Scheme
) -> None:
    foreign = QuestionFactory(study=StudyFactory(), key="foreign")

    response = viewer_client.get(annotations_url(uploaded.study), {"question": foreign.pk})

    assert response.status_code == 400
    assert response.json()["errors"][0]["code"] == "unknown_question"


def test_the_change_log_filtered_by_question_id_and_round_name(
    viewer_client: APIClient, uploaded: Scheme
) -> None:
    response = viewer_client.get(
        changes_url(uploaded.study), {"question": uploaded.taxon.pk, "round": "Round 1"}
    )

    assert response.status_code == 200, response.json()
    changes = response.json()["results"]
    assert [(c["question"], c["item"], c["coder"], c["new_value"]) for c in changes] == [
        ("taxon", "doc-1", "alice", "dog")
    ]
    assert changes[0]["question_id"] == uploaded.taxon.pk


# --- uploads, imports, exports -------------------------------------------------------------


def test_an_upload_takes_the_question_by_id(annotator_client: APIClient, scheme: Scheme) -> None:
    response = annotator_client.post(
        bulk_url(scheme.study),
        {
            "round": "Round 1",
            "question": scheme.sentiment.pk,
            "annotations": [{"item": "doc-1", "coder": "alice", "label": "pos"}],
        },
        format="json",
    )

    assert response.status_code == 200, response.json()
    assert response.json()["created"] == 1
    assert scheme.sentiment.annotations.get().category.code == "pos"


def test_a_csv_upload_takes_ids_in_the_query(annotator_client: APIClient, scheme: Scheme) -> None:
    response = annotator_client.post(
        f"{bulk_url(scheme.study)}?round={scheme.round.pk}&question={scheme.sentiment.pk}",
        data="item,coder,label\ndoc-1,alice,neg\n",
        content_type="text/csv",
    )

    assert response.status_code == 200, response.json()
    assert scheme.sentiment.annotations.get(round=scheme.round).category.code == "neg"


def test_a_json_upload_refuses_round_and_question_in_the_query(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = annotator_client.post(
        f"{bulk_url(scheme.study)}?round=Pilot",
        {"round": "Round 1", "question": "sentiment", "annotations": []},
        format="json",
    )

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "csv_only_parameter",
            "detail": "A JSON upload names its round, question and create_missing in its "
            "body; the query parameter 'round' is for CSV uploads only.",
            "attr": "round",
        }
    ]


def test_an_import_takes_the_round_and_question_by_id(
    annotator_client: APIClient, scheme: Scheme
) -> None:
    response = annotator_client.post(
        f"/api/v1/studies/{scheme.study.pk}/imports/"
        f"?format=long_csv&round={scheme.round.pk}&question={scheme.sentiment.pk}",
        data=b"item,coder,label\ndoc-1,alice,pos\ndoc-1,bob,neg\n",
        content_type="text/csv",
    )

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["created"], body["round"]) == (2, "Round 1")
    assert [q["question"] for q in body["questions"]] == ["sentiment"]


def test_an_import_names_an_absent_question(annotator_client: APIClient, scheme: Scheme) -> None:
    response = annotator_client.post(
        f"/api/v1/studies/{scheme.study.pk}/imports/?format=long_csv&round=Round%201&question=999999",
        data=b"item,coder,label\ndoc-1,alice,pos\n",
        content_type="text/csv",
    )

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "unknown_question",
            "detail": "No question '999999' in this study.",
            "attr": "question",
        }
    ]


def test_an_export_takes_ids(viewer_client: APIClient, uploaded: Scheme) -> None:
    response = viewer_client.get(
        f"/api/v1/studies/{uploaded.study.pk}/exports/annotations/",
        {"round": uploaded.round.pk, "question": uploaded.sentiment.pk},
    )

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["round"], body["question"]) == ("Round 1", "sentiment")
    assert body["rows"] == [
        {"item": "doc-1", "coder": "alice", "label": "pos"},
        {"item": "doc-2", "coder": "bob", "label": "neg"},
    ]


# --- computations and history --------------------------------------------------------------


@pytest.fixture
def two_rounds(
    study: Study, monkeypatch: pytest.MonkeyPatch, django_capture_on_commit_callbacks: Any
) -> tuple[Any, Any, Any]:
    """Question "relevant" labelled by two coders in rounds R1 and R2, each computed."""
    EngineDouble(monkeypatch)
    question = nominal_question(study, key="relevant")
    first = RoundFactory(study=study, name="R1", position=1)
    second = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(first, question, random_table(2, 20, "abc", agree=0.5, seed=1))
    label_round(
        second, question, random_table(2, 20, "abc", agree=0.9, seed=2), coders=coders, items=items
    )
    for round_ in (first, second):
        with django_capture_on_commit_callbacks(execute=True):
            computation_request(
                study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
                parameters={"bootstrap": 0},
            )  # fmt: skip
    return question, first, second


def computations_url(study: Study) -> str:
    return f"/api/v1/studies/{study.pk}/computations/"


def test_a_computation_takes_a_question_key_and_a_round_name(
    manager_client: APIClient, study: Study, two_rounds: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, first, _ = two_rounds
    with django_capture_on_commit_callbacks(execute=True):
        response = manager_client.post(
            computations_url(study),
            {"question": "relevant", "round": "R1", "coefficients": ["alpha"], "bootstrap": 0},
            format="json",
        )

    assert response.status_code == 202, response.json()
    body = response.json()
    assert (body["question"], body["question_key"]) == (question.pk, "relevant")
    assert (body["rounds"], body["round_names"]) == ([first.pk], ["R1"])


def test_pooled_rounds_are_named_by_name_or_id(
    manager_client: APIClient, study: Study, two_rounds: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    question, first, second = two_rounds
    with django_capture_on_commit_callbacks(execute=True):
        response = manager_client.post(
            computations_url(study),
            {"question": question.pk, "rounds": ["R2", first.pk], "bootstrap": 0},
            format="json",
        )

    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["scope"] == "rounds"
    assert (body["rounds"], body["round_names"]) == ([first.pk, second.pk], ["R1", "R2"])


@pytest.mark.parametrize(
    ("body", "attr", "code", "detail"),
    [
        ({"question": "mood"}, "question", "unknown_question", "No question 'mood' in this study."),
        (
            {"question": "relevant", "round": "R9"},
            "round",
            "unknown_round",
            "No round 'R9' in this study.",
        ),
        (
            {"question": "relevant", "rounds": ["R1", "R9"]},
            "rounds.1",
            "unknown_round",
            "No round 'R9' in this study.",
        ),
    ],
)
def test_a_computation_naming_something_absent_is_a_400(
    manager_client: APIClient, study: Study, two_rounds: Any, body: dict, attr: str, code: str,
    detail: str,
) -> None:  # fmt: skip
    before = Computation.objects.count()

    response = manager_client.post(computations_url(study), body, format="json")

    assert response.status_code == 400
    assert response.json()["errors"] == [{"code": code, "detail": detail, "attr": attr}]
    assert Computation.objects.count() == before


def test_a_computation_on_an_empty_scope_is_a_400_and_creates_nothing(
    manager_client: APIClient, study: Study, two_rounds: Any
) -> None:
    QuestionFactory(study=study, key="unlabelled")
    before = Computation.objects.count()

    response = manager_client.post(
        computations_url(study), {"question": "unlabelled", "round": "R1"}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "empty_scope",
            "detail": "Question 'unlabelled' has no annotations in round 'R1': there is "
            "nothing to compute.",
            "attr": "rounds",
        }
    ]
    assert Computation.objects.count() == before


def test_pooled_rounds_without_annotations_are_named_in_the_refusal(
    manager_client: APIClient, study: Study, two_rounds: Any
) -> None:
    QuestionFactory(study=study, key="unlabelled")

    response = manager_client.post(
        computations_url(study), {"question": "unlabelled", "rounds": ["R1", "R2"]}, format="json"
    )

    assert response.status_code == 400
    assert response.json()["errors"][0]["detail"] == (
        "Question 'unlabelled' has no annotations in rounds 'R1', 'R2': there is nothing to "
        "compute."
    )
    assert not Computation.objects.filter(question__key="unlabelled").exists()


def test_the_computation_list_filters_by_question_key_and_round_name(
    viewer_client: APIClient, study: Study, two_rounds: Any
) -> None:
    *_, second = two_rounds

    response = viewer_client.get(computations_url(study), {"question": "relevant", "round": "R2"})

    assert response.status_code == 200, response.json()
    (row,) = response.json()["results"]
    assert (row["rounds"], row["round_names"]) == ([second.pk], ["R2"])
    absent = viewer_client.get(computations_url(study), {"round": "R9"})
    assert absent.status_code == 400
    assert absent.json()["errors"][0]["attr"] == "round"


def test_the_history_takes_a_question_key(
    viewer_client: APIClient, study: Study, two_rounds: Any
) -> None:
    question, *_ = two_rounds
    QuestionFactory(study=study, key="other")

    response = viewer_client.get(f"/api/v1/studies/{study.pk}/history/", {"question": "relevant"})

    assert response.status_code == 200, response.json()
    (entry,) = response.json()["questions"]
    assert (entry["question"], entry["question_key"]) == (question.pk, "relevant")
    assert [r["round_name"] for r in entry["rounds"]] == ["R1", "R2"]


def test_the_history_names_an_absent_question(
    viewer_client: APIClient, study: Study, two_rounds: Any
) -> None:
    response = viewer_client.get(f"/api/v1/studies/{study.pk}/history/", {"question": "mood"})

    assert response.status_code == 400
    assert response.json()["errors"] == [
        {
            "code": "unknown_question",
            "detail": "No question 'mood' in this study.",
            "attr": "question",
        }
    ]


def test_coder_drift_takes_a_question_key_and_shows_it(
    viewer_client: APIClient, study: Study, two_rounds: Any
) -> None:
    question, *_ = two_rounds

    response = viewer_client.get(
        f"/api/v1/studies/{study.pk}/history/coders/", {"question": "relevant"}
    )

    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["question"], body["question_key"]) == (question.pk, "relevant")
    assert [r["round_name"] for r in body["rounds"]] == ["R1", "R2"]


def test_compare_takes_a_question_key_and_round_names(
    annotator_client: APIClient,
    study: Study,
    two_rounds: Any,
    monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    monkeypatch.undo()  # the comparison runs on the real metrics engine
    question, first, second = two_rounds

    posted, read = compare_through_api(
        annotator_client, study.pk, django_capture_on_commit_callbacks,
        question="relevant", first="R2", second=first.pk, bootstrap=50,
    )  # fmt: skip

    assert posted.status_code == 202, posted.json()
    assert read.status_code == 200, read.json()
    body = read.json()["result"]
    assert (body["question"], body["question_key"]) == (question.pk, "relevant")
    assert (body["first"]["round"], body["first"]["round_name"]) == (second.pk, "R2")
    assert (body["second"]["round"], body["second"]["round_name"]) == (first.pk, "R1")
    absent = annotator_client.post(
        f"/api/v1/studies/{study.pk}/comparisons/",
        {"question": "relevant", "first": "R2", "second": "R9"},
        format="json",
    )
    assert absent.status_code == 400
    assert absent.json()["errors"][0]["attr"] == "second"
