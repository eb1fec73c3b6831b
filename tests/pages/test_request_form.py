""" "Request a computation": the form proposes a round that has annotations, says so when
none has, and a request the service refuses shows the service's message on the page."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from computations.models import Computation
from studies.exceptions import ApplicationError
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory

pytestmark = pytest.mark.django_db

EMPTY_SCOPE = "Round R2 has no annotations for question q1: there is nothing to compute."


def _page(client: Any, study: Any) -> str:
    response = client.get(reverse("pages:study-detail", args=[study.pk]))
    assert response.status_code == 200
    return str(response.content.decode())


def _form(html: str) -> str:
    form = re.search(r'<section aria-labelledby="compute-heading">.*?</section>', html, re.S)
    assert form is not None
    return form.group(0)


@pytest.fixture
def two_questions(study: Any) -> dict[str, Any]:
    """q1 labelled in R1 only; q2 in R1 and R2; R3 is closed and empty."""
    q1 = nominal_question(study, codes=("yes", "no"), key="q1", position=1)
    q2 = nominal_question(study, codes=("yes", "no"), key="q2", position=2)
    r1 = RoundFactory(study=study, name="R1", position=1)
    r2 = RoundFactory(study=study, name="R2", position=2)
    r3 = RoundFactory(study=study, name="R3", position=3, closed=True)
    coders, items = label_round(r1, q1, [["yes", "no"], ["yes", "yes"]])
    label_round(r1, q2, [["yes", "no"], ["no", "no"]], coders=coders, items=items)
    label_round(r2, q2, [["yes", "no"], ["no", "no"]], coders=coders, items=items)
    return {"q1": q1, "q2": q2, "r1": r1, "r2": r2, "r3": r3}


def test_the_form_proposes_the_latest_round_with_annotations_not_the_last_round(
    study: Any, annotator: Any, site_client: Any, two_questions: dict[str, Any]
) -> None:
    r1, r2, r3 = two_questions["r1"], two_questions["r2"], two_questions["r3"]
    form = _form(_page(site_client(annotator), study))
    assert f'<option value="{two_questions["q1"].pk}" selected>q1</option>' in form
    assert f'<option value="{r1.pk}" selected>R1</option>' in form
    assert f'<option value="{r2.pk}">R2</option>' in form
    assert f'<option value="{r3.pk}">R3</option>' in form
    assert '<button type="submit" id="request-computation">' in form
    latest = re.search(r'data-latest-rounds="([^"]*)"', form)
    assert latest is not None
    mapping = json.loads(latest.group(1).replace("&quot;", '"'))
    assert mapping == {str(two_questions["q1"].pk): r1.pk, str(two_questions["q2"].pk): r2.pk}


def test_without_any_annotations_the_form_says_so_and_the_button_is_disabled(
    study: Any, annotator: Any, site_client: Any
) -> None:
    nominal_question(study, codes=("yes", "no"), key="q1")
    RoundFactory(study=study, name="R1", position=1)
    form = _form(_page(site_client(annotator), study))
    assert (
        '<p class="no-annotations">No round has annotations yet: upload annotations before '
        "requesting a computation.</p>"
    ) in form
    assert '<button type="submit" id="request-computation" disabled>' in form


@pytest.mark.parametrize(
    "refusal",
    [
        ValidationError({"rounds": [EMPTY_SCOPE]}),
        ApplicationError(EMPTY_SCOPE, code="empty_scope"),
    ],
    ids=["validation-error", "application-error"],
)
def test_a_refused_request_answers_400_with_the_services_message(
    study: Any,
    annotator: Any,
    site_client: Any,
    two_questions: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
    refusal: Exception,
) -> None:
    """The service refuses an empty scope (the contract of ``computation_request``)."""

    def refuse(**_: Any) -> Any:
        raise refusal

    monkeypatch.setattr("pages.views.computation_request", refuse)
    client = site_client(annotator)
    client.get(reverse("pages:study-detail", args=[study.pk]))  # sets the CSRF cookie
    token = client.cookies["csrftoken"].value
    url = reverse("pages:computation-request", args=[study.pk])
    data = {"question": two_questions["q1"].pk, "round": two_questions["r2"].pk}
    before = Computation.objects.count()

    answer = client.post(url, data, HTTP_ACCEPT="application/json", HTTP_X_CSRFTOKEN=token)
    assert answer.status_code == 400
    assert answer.json() == {"error": EMPTY_SCOPE}

    page = client.post(url, data, HTTP_X_CSRFTOKEN=token, follow=True)
    assert page.status_code == 200
    assert f'<li class="message error">{EMPTY_SCOPE}</li>' in page.content.decode()
    assert Computation.objects.count() == before
