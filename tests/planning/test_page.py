"""The planning page: the form, the stored plans with their literal results, and the POST."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from computations.services import computation_request
from planning.models import PlanRequest, PlanStatus
from planning.services import plan_request_create
from tests.factories import RoundFactory
from tests.planning.pilot import pilot_round

pytestmark = pytest.mark.django_db


@pytest.fixture
def pilot(study: Any) -> tuple[Any, Any]:
    round_ = RoundFactory(study=study, name="Pilot")
    return round_, pilot_round(round_)


def _client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def _page(study: Any, question: Any) -> str:
    return f"/studies/{study.pk}/plans/?question={question.pk}"


def test_the_page_shows_a_stored_plan(
    study: Any, pilot: Any, viewer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = pilot
    with django_capture_on_commit_callbacks(execute=True):
        plan_request_create(
            study=study, question=question, pilot_round=round_, target=0.5, power=0.8,
            coders_per_item=[2],
        )  # fmt: skip
    text = _client(viewer).get(_page(study, question)).content.decode()
    assert "Plan the next round: question tone" in text
    assert "alpha's 95 % lower bound ≥ 0.5 with probability 0.8" in text
    assert "From the pilot round Pilot" in text
    # The CLI's figures on the same pilot (tests/planning/test_worker.py, references).
    assert "<strong>Recommended: 860 items</strong> (pilot; about 2580 annotations)" in text
    assert "Pilot Pilot: 60 items, 3 coders (3.0 per item), alpha 0.616." in text
    assert (
        '<tr data-design="2 coders per item"><th scope="row">2 coders per item</th>'
        '<td class="num">2</td><td class="num">1440</td><td class="num">2880</td>'
        '<td class="num">0.802</td>'
    ) in text
    assert '<td class="num">160</td><td class="num">0.230</td>' in text
    assert (
        "Each simulated round's lower bound: the report's BCa bootstrap interval (computed "
        "in its analytic ABC form). The pilot's uncertainty is carried: each simulated round "
        "is drawn from a bootstrap resample of the pilot at its one-sided 80 % lower bound of "
        "alpha (the other designs: the model at the 20 % quantile of the pilot's bootstrap "
        "replicates of alpha)."
    ) in text
    # Viewers read, but the form is for managers.
    assert "Only the study's managers can request a plan" in text
    assert '<form method="post" action="/studies/' not in text.split("plan-request-heading")[1]


def test_a_failed_plan_shows_the_reason(
    study: Any, pilot: Any, viewer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = pilot
    with django_capture_on_commit_callbacks(execute=True):
        plan_request_create(study=study, question=question, pilot_round=round_, target=0.7)
    text = _client(viewer).get(_page(study, question)).content.decode()
    assert "Not planned: The target cannot be reached: the alpha of the pilot is 0.6158" in text


def test_a_manager_posts_the_form_and_a_viewer_may_not(
    study: Any, pilot: Any, manager: Any, viewer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = pilot
    form = {
        "question": question.pk, "pilot_round": round_.pk, "coefficient": "alpha",
        "target": "0.5", "confidence": "0.95", "power": "0.8", "coders_per_item": "",
    }  # fmt: skip
    url = f"/studies/{study.pk}/plans/request/"
    assert _client(viewer).post(url, form, HTTP_ACCEPT="application/json").status_code == 403
    with django_capture_on_commit_callbacks(execute=True):
        response = _client(manager).post(url, form, follow=True)
    text = response.content.decode()
    plan = PlanRequest.objects.get()
    assert plan.status == PlanStatus.DONE
    assert f"Plan {plan.pk} requested (queued)." in text
    assert '<form method="post" action="/studies/' in text
    bad = _client(manager).post(url, {**form, "pilot_round": round_.pk, "target": "0.7",
                                      "coders_per_item": "two"}, follow=True)  # fmt: skip
    assert "Other designs (coders per item): Whole numbers separated by commas, e.g. 2, 4." in (
        bad.content.decode()
    )
    # The option is on the form, the default chosen.
    assert (
        '<option value="lower-bound" selected>plan on the pilot&#x27;s one-sided 80 % lower '
        "bound (default)</option>"
    ) in text
    with django_capture_on_commit_callbacks(execute=True):
        posted = _client(manager).post(url, {**form, "pilot_uncertainty": "none"})
    assert posted.status_code == 302
    assert PlanRequest.objects.latest("id").pilot_uncertainty == "none"
    shown = _client(manager).get(_page(study, question)).content.decode()
    assert "The pilot's estimate is taken as the truth (its uncertainty is not carried)." in shown


def test_the_study_page_and_the_round_report_link_the_planning_page(
    study: Any, pilot: Any, viewer: Any, django_capture_on_commit_callbacks: Any
) -> None:
    round_, question = pilot
    with django_capture_on_commit_callbacks(execute=True):
        computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 50}
        )
    client = _client(viewer)
    study_page = client.get(f"/studies/{study.pk}/").content.decode()
    assert (
        f'Plan the next round: <a href="/studies/{study.pk}/plans/?question={question.pk}">tone</a>'
        in study_page
    )
    report = client.get(f"/studies/{study.pk}/rounds/{round_.pk}/?question={question.pk}")
    assert (
        f'<a href="/studies/{study.pk}/plans/?question={question.pk}&amp;pilot={round_.pk}">'
        "Plan the next round</a>"
    ) in report.content.decode()


def test_the_admin_lists_plans_read_only(
    study: Any, pilot: Any, django_capture_on_commit_callbacks: Any
) -> None:
    from tests.factories import UserFactory

    round_, question = pilot
    with django_capture_on_commit_callbacks(execute=True):
        plan = plan_request_create(study=study, question=question, pilot_round=round_, target=0.5)
    admin_user = UserFactory(username="root", is_staff=True, is_superuser=True)
    client = _client(admin_user)
    listing = client.get("/admin/planning/planrequest/").content.decode()
    assert "1 plan request" in listing
    change = client.get(f"/admin/planning/planrequest/{plan.pk}/change/")
    assert change.status_code == 200
    assert client.get("/admin/planning/planrequest/add/").status_code == 403
