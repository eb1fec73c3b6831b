"""The pages mark a result whose model coder's calibration read the adjudications once an
item is adjudicated after it, saying so, and the round report computes it again in one
click; a people-only result stays unmarked.

The data is ADJUDICATION_CASE (tests/computations/model_rounds.py); after adjudicating i1
"b" and i3 "c" the model's ECE is (0.1 + 0.2 + 0.3 + 0.6)/4 = 0.3 (hand-worked in
tests/computations/test_model_coders.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from adjudication.services import adjudicate
from computations.models import Computation
from studies.models import CoderKind, Item, Question, Round, Study
from tests.computations.helpers import nominal_question
from tests.computations.model_rounds import ADJUDICATED, adjudication_case_rows, upload
from tests.factories import CoderFactory, RoundFactory

pytestmark = pytest.mark.django_db

MARK = '<strong class="stale">The adjudications changed after this result</strong>'


def _case(study: Study, client: APIClient, *, model: bool = True) -> tuple[Question, Round]:
    question = nominal_question(study, key="q")
    RoundFactory(study=study, name="R1", position=1)
    round_ = Round.objects.get(study=study, name="R1")
    CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test")
    rows = [row for row in adjudication_case_rows() if model or row["coder"] != "llm"]
    response = upload(client, study, rows)
    assert response.status_code in (200, 201), response.content
    return question, round_


def _compute(client: APIClient, study: Study, on_commit: Any) -> int:
    with on_commit(execute=True):
        posted = client.post(
            f"/api/v1/studies/{study.pk}/computations/",
            {"question": "q", "round": "R1", "bootstrap": 0},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    computation = Computation.objects.get(pk=posted.json()["id"])
    assert computation.status == "done", computation.error
    return computation.pk


def _adjudicate(study: Study, question: Question, round_: Round) -> None:
    items = {item.external_id: item for item in Item.objects.filter(study=study)}
    for external_id, label in ADJUDICATED.items():
        adjudicate(round_=round_, question=question, item=items[external_id], label=label)


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _report_url(question: Question, round_: Round) -> str:
    return (
        reverse("pages:round-report", args=[question.study_id, round_.pk])
        + f"?question={question.pk}"
    )


def test_the_round_report_names_the_adjudications_and_computes_again_in_one_click(
    study: Study,
    manager: Any,
    manager_client: APIClient,
    site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question, round_ = _case(study, manager_client)
    first = _compute(manager_client, study, django_capture_on_commit_callbacks)
    client = site_client(manager)
    url = _report_url(question, round_)
    assert 'class="stale"' not in _page(client, url)

    _adjudicate(study, question, round_)
    html = _page(client, url)
    assert MARK in html
    assert f'<input type="hidden" name="again" value="{first}">' in html
    assert '<button type="submit">Compute R1 again</button>' in html

    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("pages:computation-request", args=[study.pk]),
            {
                "question": question.pk,
                "round": round_.pk,
                "again": first,
                "next": url,
                "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
            },
        )
    assert response.status_code == 302
    again = Computation.objects.exclude(pk=first).get()
    assert again.status == "done", again.error
    assert again.results is not None
    calibration = again.results["model_coders"]["per_model"][0]["calibration"]
    assert calibration["ece"] == pytest.approx(0.3, abs=1e-12)
    assert 'class="stale"' not in _page(client, url)


def test_the_dashboard_and_the_reliability_report_say_the_adjudications_changed(
    study: Study,
    manager: Any,
    manager_client: APIClient,
    site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question, round_ = _case(study, manager_client)
    first = _compute(manager_client, study, django_capture_on_commit_callbacks)
    _adjudicate(study, question, round_)
    client = site_client(manager)

    dashboard = _page(client, reverse("pages:study-detail", args=[study.pk]))
    assert '<small class="stale">(adjudications changed since)</small>' in dashboard
    assert (
        '<p class="next-step" data-kind="recompute"><strong>Next:</strong> Since the latest '
        "computation of q in R1, the adjudications changed.</p>"
    ) in dashboard
    assert f'<input type="hidden" name="again" value="{first}">' in dashboard

    markdown = _page(client, reverse("pages:study-reliability-download", args=[study.pk, "md"]))
    assert f"| #{first} (adjudications changed since) |" in markdown
    assert "(The adjudications changed after this result: request it again.)" in markdown


def test_a_people_only_result_is_not_marked_after_an_adjudication(
    study: Study,
    manager: Any,
    manager_client: APIClient,
    site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question, round_ = _case(study, manager_client, model=False)
    _compute(manager_client, study, django_capture_on_commit_callbacks)
    _adjudicate(study, question, round_)
    client = site_client(manager)
    assert 'class="stale"' not in _page(client, _report_url(question, round_))
    assert 'class="stale"' not in _page(client, reverse("pages:study-detail", args=[study.pk]))
