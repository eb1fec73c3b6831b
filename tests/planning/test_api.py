"""/api/v1/studies/{id}/plans/: validation (400 naming the field), access, list and retrieve."""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from planning.models import PlanRequest, PlanStatus
from studies.models import LabelKind
from tests.computations.helpers import nominal_question
from tests.factories import QuestionFactory, RoundFactory
from tests.planning.pilot import pilot_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def pilot(study: Any) -> tuple[Any, Any]:
    round_ = RoundFactory(study=study, name="Pilot")
    return round_, pilot_round(round_)


def _url(study: Any, pk: int | None = None) -> str:
    base = f"/api/v1/studies/{study.pk}/plans/"
    return base if pk is None else f"{base}{pk}/"


def _post(client: APIClient, study: Any, capture: Any, **body: Any) -> Any:
    with capture(execute=True):
        return client.post(_url(study), body, format="json")


def _errors(response: Any) -> dict[str, str]:
    assert response.status_code == 400, response.content
    return {error["attr"]: error["detail"] for error in response.json()["errors"]}


def test_a_manager_requests_a_plan_and_members_read_it(
    study: Any, pilot: Any, manager_client: APIClient, viewer_client: APIClient,
    outsider_client: APIClient, django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    response = _post(
        manager_client, study, django_capture_on_commit_callbacks,
        question="tone", pilot_round="Pilot", target=0.5, power=0.8,
    )  # fmt: skip
    assert response.status_code == 202, response.json()
    body = response.json()
    assert body["question"] == "tone"
    assert body["pilot_round"] == "Pilot"
    assert body["status"] == "queued"  # answered before the worker ran
    plan = PlanRequest.objects.get()
    assert plan.status == PlanStatus.DONE
    shown = viewer_client.get(_url(study, plan.pk)).json()
    assert shown["status"] == "done"
    # The CLI's figure on the same pilot (tests/planning/test_worker.py, references).
    assert shown["recommended_items"] == 860
    assert shown["result"]["recommended"]["n_items"] == 860
    assert shown["pilot_uncertainty"] == "lower-bound"  # the documented default
    assert shown["result"]["method"] == "bca-abc"
    assert shown["requested_by"] == "manager_a"
    listed = viewer_client.get(_url(study)).json()
    assert listed["count"] == 1
    assert listed["results"][0]["id"] == plan.pk
    assert outsider_client.get(_url(study, plan.pk)).status_code == 404


def test_the_pilots_uncertainty_is_an_option_of_the_request(
    study: Any, pilot: Any, manager_client: APIClient, django_capture_on_commit_callbacks: Any
) -> None:
    # Taken as the truth, the pilot needs 173 items: `python -m metrics plan pilot.csv
    # --domain a,b,c --target 0.5 --power 0.8 --pilot-uncertainty none` (references,
    # server-plan-pilot); averaged over its bootstrap distribution, 515.
    for option, items in (("none", 173), ("bootstrap", 515)):
        response = _post(
            manager_client, study, django_capture_on_commit_callbacks, question="tone",
            pilot_round="Pilot", target=0.5, power=0.8, pilot_uncertainty=option,
        )  # fmt: skip
        assert response.status_code == 202, response.json()
        shown = manager_client.get(_url(study, response.json()["id"])).json()
        assert shown["pilot_uncertainty"] == option
        assert shown["result"]["pilot_uncertainty"] == option
        assert shown["recommended_items"] == items
    bad = manager_client.post(
        _url(study),
        {"question": "tone", "pilot_round": "Pilot", "target": 0.5, "pilot_uncertainty": "max"},
        format="json",
    )
    assert _errors(bad) == {"pilot_uncertainty": '"max" is not a valid choice.'}


def test_viewers_and_annotators_may_not_request(
    study: Any, pilot: Any, viewer_client: APIClient, annotator_client: APIClient
) -> None:
    body = {"question": "tone", "pilot_round": "Pilot", "target": 0.5}
    for client in (viewer_client, annotator_client):
        assert client.post(_url(study), body, format="json").status_code == 403
    assert not PlanRequest.objects.exists()


def test_an_empty_pilot_round_is_a_400_naming_it(
    study: Any, pilot: Any, manager_client: APIClient
) -> None:
    RoundFactory(study=study, name="Empty")
    response = manager_client.post(
        _url(study), {"question": "tone", "pilot_round": "Empty", "target": 0.5}, format="json"
    )
    assert _errors(response) == {
        "pilot_round": "Round 'Empty' has no annotations for question 'tone': annotate a "
        "pilot first, or plan from assumptions."
    }


def test_a_coefficient_of_another_kind_is_a_400(
    study: Any, pilot: Any, manager_client: APIClient
) -> None:
    response = manager_client.post(
        _url(study),
        {"question": "tone", "pilot_round": "Pilot", "target": 0.5, "coefficient": "kappa_w"},
        format="json",
    )
    assert _errors(response) == {
        "coefficient": "'kappa_w' does not apply to the nominal question 'tone'; choose one "
        "of observed_agreement, s, pi, kappa, alpha, light_kappa, ac1, brennan_prediger."
    }


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"target": 0.5}, {"pilot_round": "Give a pilot round (its annotations are resampled), "
                           "or, without one, assumptions: the expected category shares and "
                           "alpha or agreement."}),
        ({"target": 0.5, "power": 1.0, "pilot_round": "Pilot"},
         {"power": "A probability strictly between 0 and 1 (e.g. 0.9); got 1.0."}),
        ({"target": 0.5, "pilot_round": "Nowhere"},
         {"pilot_round": "No round 'Nowhere' in this study."}),
        ({"target": 0.5, "pilot_round": "Pilot",
          "assumptions": {"categories": {"a": 0.5, "b": 0.5}, "alpha": 0.7}},
         {"assumptions": "Give a pilot round or assumptions, not both."}),
        ({"target": 0.5, "assumptions": {"categories": {"a": 0.5, "x": 0.5}, "alpha": 0.7}},
         {"assumptions.categories": "'x' is not a category of question 'tone' "
                                    "(declared: 'a', 'b', 'c')."}),
        ({"target": 0.5, "assumptions": {"categories": {"a": 0.5, "b": 0.4}, "alpha": 0.7}},
         {"assumptions.categories": "The shares must sum to 1; they sum to 0.9."}),
        ({"target": 0.5, "assumptions": {"categories": {"a": 0.5, "b": 0.5}}},
         {"assumptions": "Give exactly one assumed agreement: alpha (the population alpha, 0 "
                         "to 1) or agreement (the share of coder pairs that agree)."}),
        ({"target": 0.5, "assumptions": {"categories": {"a": 0.5, "b": 0.5}, "agreement": 0.3}},
         {"assumptions.agreement": "From 0.5 to 1; got 0.3."}),
        ({"target": 0.5, "pilot_round": "Pilot", "coders_per_item": [2, 13]},
         {"coders_per_item": "3 categories and 13 coders per item give 1,594,323 label "
                             "patterns, more than the model enumerates (200,000); plan for "
                             "fewer coders."}),
    ],
)  # fmt: skip
def test_bad_input_is_a_400_naming_the_field(
    study: Any, pilot: Any, manager_client: APIClient, body: dict[str, Any],
    expected: dict[str, str],
) -> None:  # fmt: skip
    response = manager_client.post(_url(study), {"question": "tone", **body}, format="json")
    assert _errors(response) == expected
    assert not PlanRequest.objects.exists()


def test_a_one_coder_pilot_and_a_span_question_are_refused(
    study: Any, manager_client: APIClient
) -> None:
    from tests.computations.helpers import label_round

    question = nominal_question(study, codes=("a", "b"), key="solo")
    round_ = RoundFactory(study=study, name="Solo")
    label_round(round_, question, [["a", "b", "a"]])
    response = manager_client.post(
        _url(study), {"question": "solo", "pilot_round": "Solo", "target": 0.5}, format="json"
    )
    assert _errors(response) == {
        "pilot_round": "Round 'Solo' has annotations of question 'solo' from one coder only: "
        "agreement needs at least two."
    }
    QuestionFactory(study=study, key="entities", kind=LabelKind.SPAN)
    response = manager_client.post(
        _url(study), {"question": "entities", "pilot_round": "Solo", "target": 0.5}, format="json"
    )
    assert _errors(response) == {
        "question": "Question 'entities' is a span question: its units are not items, so a "
        "plan in items does not apply."
    }


def test_designs_and_assumptions_need_a_nominal_question(
    study: Any, manager_client: APIClient
) -> None:
    nominal_question(study, codes=("1", "2", "3"), key="grade", kind=LabelKind.ORDINAL)
    response = manager_client.post(
        _url(study),
        {"question": "grade", "target": 0.5,
         "assumptions": {"categories": {"1": 0.5, "2": 0.5}, "alpha": 0.7}},
        format="json",
    )  # fmt: skip
    assert _errors(response) == {
        "assumptions": "Planning without a pilot uses the nominal model: only for nominal "
        "questions ('grade' is ordinal); give a pilot round instead."
    }
