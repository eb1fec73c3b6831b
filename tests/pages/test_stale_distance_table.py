"""The pages mark a text question's result computed with its distance table (``distance``
``user``) once the table is replaced, saying so, and the round report computes it again in
one click with the same distance; a result with another distance stays unmarked.

The data (tests/studies/test_distance_tables.py's hand case): item 1 alice "a", bob "b";
item 2 both "c". The second table puts every two different texts at 1: alpha = 1 − 0.5 /
(10 / 12) = 0.4 (hand-worked in tests/computations/test_stale_distance_table.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from computations.models import Computation
from studies.models import Question, Round, Study
from tests.distance_table_case import FIRST_TABLE, SECOND_TABLE, caption_question, upload_table

pytestmark = pytest.mark.django_db

MARK = '<strong class="stale">The distance table was replaced after this result</strong>'


@pytest.fixture
def caption(study: Study, manager_client: APIClient) -> Question:
    return caption_question(study, manager_client)


def _compute(client: APIClient, question: Question, on_commit: Any, distance: str) -> int:
    with on_commit(execute=True):
        posted = client.post(
            f"/api/v1/studies/{question.study_id}/computations/",
            {"question": "caption", "round": "Round 1", "bootstrap": 0, "distance": distance},
            format="json",
        )
    assert posted.status_code == 202, posted.json()
    computation = Computation.objects.get(pk=posted.json()["id"])
    assert computation.status == "done", computation.error
    return computation.pk


def _report_url(question: Question) -> str:
    round_ = Round.objects.get(study_id=question.study_id, name="Round 1")
    return (
        reverse("pages:round-report", args=[question.study_id, round_.pk])
        + f"?question={question.pk}"
    )


def _page(client: Client, url: str) -> str:
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def test_the_round_report_names_the_replaced_table_and_computes_again_in_one_click(
    caption: Question,
    manager: Any,
    manager_client: APIClient,
    site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    upload_table(manager_client, caption, FIRST_TABLE)
    first = _compute(manager_client, caption, django_capture_on_commit_callbacks, "user")
    client = site_client(manager)
    url = _report_url(caption)
    assert 'class="stale"' not in _page(client, url)

    upload_table(manager_client, caption, SECOND_TABLE)
    html = _page(client, url)
    assert MARK in html
    assert f'<input type="hidden" name="again" value="{first}">' in html
    assert '<button type="submit">Compute Round 1 again</button>' in html

    token = client.cookies["csrftoken"].value
    round_ = Round.objects.get(study_id=caption.study_id, name="Round 1")
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("pages:computation-request", args=[caption.study_id]),
            {
                "question": caption.pk,
                "round": round_.pk,
                "again": first,
                "next": url,
                "csrfmiddlewaretoken": token,
            },
        )
    assert response.status_code == 302
    again = Computation.objects.exclude(pk=first).get()
    assert (again.status, again.parameters["distance"]) == ("done", "user")
    assert again.results is not None
    assert again.results["coefficients"]["alpha"]["value"] == pytest.approx(0.4, abs=1e-12)
    assert 'class="stale"' not in _page(client, url)


def test_a_levenshtein_result_is_not_marked_when_the_table_changes(
    caption: Question,
    manager: Any,
    manager_client: APIClient,
    site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    upload_table(manager_client, caption, FIRST_TABLE)
    _compute(manager_client, caption, django_capture_on_commit_callbacks, "user")
    _compute(manager_client, caption, django_capture_on_commit_callbacks, "levenshtein")
    upload_table(manager_client, caption, SECOND_TABLE)
    client = site_client(manager)
    assert 'class="stale"' not in _page(client, _report_url(caption))
    assert 'class="stale"' not in _page(
        client, reverse("pages:study-detail", args=[caption.study_id])
    )


def test_the_dashboard_and_the_reliability_report_say_the_table_was_replaced(
    caption: Question,
    manager: Any,
    manager_client: APIClient,
    site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    upload_table(manager_client, caption, FIRST_TABLE)
    first = _compute(manager_client, caption, django_capture_on_commit_callbacks, "user")
    upload_table(manager_client, caption, SECOND_TABLE)
    client = site_client(manager)

    dashboard = _page(client, reverse("pages:study-detail", args=[caption.study_id]))
    assert '<small class="stale">(distance table replaced since)</small>' in dashboard
    assert (
        '<p class="next-step" data-kind="recompute"><strong>Next:</strong> Since the latest '
        "computation of caption in Round 1, the distance table was replaced.</p>"
    ) in dashboard
    assert f'<input type="hidden" name="again" value="{first}">' in dashboard
    assert '<small class="stale">(distance table replaced since)</small>' in _page(
        client, reverse("pages:study-list")
    )

    markdown = _page(
        client, reverse("pages:study-reliability-download", args=[caption.study_id, "md"])
    )
    assert f"| #{first} (distance table replaced since) |" in markdown
    assert "(The distance table was replaced after this result: request it again.)" in markdown


def test_again_names_an_unknown_computation(
    caption: Question, manager: Any, site_client: Any
) -> None:
    client = site_client(manager)
    _page(client, _report_url(caption))
    round_ = Round.objects.get(study_id=caption.study_id, name="Round 1")
    response = client.post(
        reverse("pages:computation-request", args=[caption.study_id]),
        {
            "question": caption.pk,
            "round": round_.pk,
            "again": 999,
            "csrfmiddlewaretoken": client.cookies["csrftoken"].value,
        },
        headers={"Accept": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["errors"]["again"] == [
        {"message": "No computation 999 of this question.", "code": ""}
    ]
    assert not Computation.objects.exists()
