"""GET /api/v1/studies/{study_pk}/exports/...: annotations long and wide, diagnostics, results."""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from computations.models import (
    Computation,
    ComputationItemTable,
    ComputationScope,
    ComputationStatus,
)
from exchange.imports import annotations_import
from studies.access import Actor
from tests.computations.helpers import stored_round_computation
from tests.exchange.conftest import ImportStudy, db_state, sample

pytestmark = pytest.mark.django_db


@pytest.fixture
def labelled(target: ImportStudy, actor: Actor) -> ImportStudy:
    for question, name in (("sentiment", "wide.csv"), ("age", "long_questions.csv")):
        report = annotations_import(
            study=target.study,
            format_name="wide_csv" if name == "wide.csv" else "long_csv",
            data=sample(name),
            round_ref="Round 1",
            question_key=question if name == "wide.csv" else None,
            create_missing=True,
            actor=actor,
        )
        assert report.committed
    return target


@pytest.fixture
def computed(labelled: ImportStudy) -> ImportStudy:
    """``labelled`` with a finished computation of each question: the diagnostics export
    reads the item tables the worker stores with them."""
    round_ = labelled.study.rounds.get(name="Round 1")
    for question in labelled.study.questions.filter(key__in=("sentiment", "age")):
        stored_round_computation(labelled.study, question, round_)
    return labelled


def get(client: APIClient, target: ImportStudy, what: str, **query: Any) -> Any:
    query.setdefault("round", "Round 1")
    return client.get(f"/api/v1/studies/{target.study.pk}/exports/{what}/", query)


def test_annotations_export_as_long_csv(viewer_client: APIClient, labelled: ImportStudy) -> None:
    response = get(viewer_client, labelled, "annotations", question="sentiment", format="csv")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    assert response.content.decode().splitlines() == [
        "item,coder,label",
        "doc-1,alice,pos",
        "doc-1,bob,pos",
        "doc-1,carol,neg",
        "doc-2,alice,neutral",
        "doc-2,carol,neutral",
        "doc-3,alice,neg",
        "doc-3,carol,neg",
        "doc-4,alice,pos",
        "doc-4,bob,pos",
    ]


def test_annotations_export_as_wide_csv(viewer_client: APIClient, labelled: ImportStudy) -> None:
    response = get(
        viewer_client, labelled, "annotations", question="sentiment", shape="wide", format="csv"
    )
    assert response.content.decode().splitlines() == [
        "item,alice,bob,carol",
        "doc-1,pos,pos,neg",
        "doc-2,neutral,,neutral",
        "doc-3,neg,,neg",
        "doc-4,pos,pos,",
    ]


def test_annotations_export_as_json(viewer_client: APIClient, labelled: ImportStudy) -> None:
    response = get(viewer_client, labelled, "annotations", question="age", shape="wide")
    assert response.status_code == 200
    assert response.json() == {
        "round": "Round 1",
        "question": "age",
        "kind": "ratio",
        "coders": ["alice", "bob"],
        "rows": [{"item": "doc-1", "labels": {"alice": 41.0, "bob": 40.5}}],
    }


def test_a_long_export_imports_back_unchanged(
    viewer_client: APIClient, labelled: ImportStudy, actor: Actor
) -> None:
    exported = get(viewer_client, labelled, "annotations", question="sentiment", format="csv")
    before = db_state(labelled.study)
    report = annotations_import(
        study=labelled.study,
        format_name="long_csv",
        data=exported.content,
        round_ref="Round 1",
        question_key="sentiment",
        actor=actor,
    )
    assert (report.created, report.updated, report.unchanged) == (0, 0, 9)
    assert db_state(labelled.study) == before


def test_item_diagnostics_as_csv(viewer_client: APIClient, computed: ImportStudy) -> None:
    response = get(viewer_client, computed, "diagnostics", question="sentiment", format="csv")
    assert response.status_code == 200
    assert response.content.decode().splitlines() == [
        "item,n_coders,n_distinct,majority,majority_share,pairwise_agreement,alice,bob,carol",
        "doc-1,3,2,pos,0.666667,0.333333,pos,pos,neg",
        "doc-2,2,1,neutral,1,1,neutral,,neutral",
        "doc-3,2,1,neg,1,1,neg,,neg",
        "doc-4,2,1,pos,1,1,pos,pos,",
    ]


def test_item_diagnostics_of_numbers_add_mean_and_spread(
    viewer_client: APIClient, computed: ImportStudy
) -> None:
    response = get(viewer_client, computed, "diagnostics", question="age")
    assert response.json()["items"] == [
        {
            "item": "doc-1",
            "n_coders": 2,
            "n_distinct": 2,
            "majority": None,
            "majority_share": 0.5,
            "pairwise_agreement": 0.0,
            "mean": 40.75,
            "spread": 0.5,
            "labels": {"alice": 41.0, "bob": 40.5},
        }
    ]


def test_item_diagnostics_need_a_finished_computation(
    viewer_client: APIClient, labelled: ImportStudy
) -> None:
    response = get(viewer_client, labelled, "diagnostics", question="sentiment", format="csv")
    assert response.status_code == 404
    assert "request a computation" in response.content.decode()


def test_item_diagnostics_of_a_computation_without_a_stored_table_are_409(
    viewer_client: APIClient, computed: ImportStudy
) -> None:
    ComputationItemTable.objects.all().delete()  # as computed before tables were stored
    response = get(viewer_client, computed, "diagnostics", question="sentiment")
    assert response.status_code == 409
    error = response.json()["errors"][0]
    assert error["code"] == "item_table_missing"
    assert error["detail"] == (
        "The latest computation of this round and question predates the stored item "
        "table: request a computation again."
    )


def test_results_need_a_finished_computation(
    viewer_client: APIClient, labelled: ImportStudy
) -> None:
    response = get(viewer_client, labelled, "results", question="sentiment")
    assert response.status_code == 404


def test_results_export_the_latest_computation_of_the_round(
    viewer_client: APIClient, labelled: ImportStudy
) -> None:
    computation = Computation.objects.create(
        study=labelled.study,
        question=labelled.questions["sentiment"],
        scope=ComputationScope.ROUND,
        parameters={"level": "nominal"},
        params_hash="h",
        data_revision="r",
        status=ComputationStatus.DONE,
        finished_at=timezone.now(),
        n_annotations=9,
        metrics_version="test",
        results={
            "coefficients": {
                "alpha": {"value": 0.5, "se": 0.1, "ci": {"low": 0.3, "high": 0.7, "level": 0.95}},
                "fleiss_kappa": {"value": 0.45},
            },
            "diagnostics": {"per_coder": {"alice": 0.6}},
            "skipped": {},
        },
    )
    computation.rounds.set([labelled.round])
    csv_response = get(viewer_client, labelled, "results", question="sentiment", format="csv")
    assert csv_response.content.decode().splitlines() == [
        "coefficient,value,se,ci_low,ci_high,ci_level",
        "alpha,0.5,0.1,0.3,0.7,0.95",
        "fleiss_kappa,0.45,,,,",
    ]
    body = get(viewer_client, labelled, "results", question="sentiment").json()
    assert body["computation"] == computation.pk
    assert body["coefficients"][0]["coefficient"] == "alpha"
    assert body["diagnostics"] == {"per_coder": {"alice": 0.6}}


def test_export_options_are_validated(viewer_client: APIClient, labelled: ImportStudy) -> None:
    response = get(viewer_client, labelled, "annotations", round="Round 9", question="nope")
    assert response.status_code == 400
    assert {e["code"] for e in response.json()["errors"]} == {"unknown_round", "unknown_question"}
    csv_error = get(viewer_client, labelled, "annotations", question="nope", format="csv")
    assert csv_error.status_code == 400
    assert csv_error["Content-Type"] == "application/json"
    assert csv_error.json()["errors"][0]["code"] == "unknown_question"


def test_non_members_get_404(outsider_client: APIClient, labelled: ImportStudy) -> None:
    assert get(outsider_client, labelled, "annotations", question="sentiment").status_code == 404
