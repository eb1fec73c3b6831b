"""Who sees what: anonymous users sign in first, non-members get 404, forms need CSRF."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import reverse

from computations.models import Computation
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db


def _study_urls(world: PagesWorld) -> list[str]:
    s, r, q = world.study.pk, world.rounds[0].pk, world.question.pk
    c = world.computations[0].pk
    return [
        reverse("pages:study-detail", args=[s]),
        reverse("pages:study-history", args=[s]),
        reverse("pages:computations-pending", args=[s]),
        reverse("pages:round-report", args=[s, r]),
        reverse("pages:coder-detail", args=[s, world.coders[0].pk]),
        reverse("pages:computation-status", args=[s, c]),
        reverse("pages:results-download", args=[s, r, q, "csv"]),
        reverse("pages:results-download", args=[s, r, q, "json"]),
        reverse("pages:items-download", args=[s, r, q]),
        reverse("pages:annotations-download", args=[s, r, q, "long"]),
        reverse("pages:annotations-download", args=[s, r, q, "wide"]),
    ]


def test_anonymous_visitors_are_sent_to_the_site_login(pages_world: PagesWorld) -> None:
    client = Client()
    for url in [reverse("pages:study-list"), *_study_urls(pages_world)]:
        response = client.get(url)
        assert response.status_code == 302, url
        assert response["Location"].startswith(reverse("login") + "?next="), url


def test_non_members_get_404_on_every_page_of_the_study(
    pages_world: PagesWorld, outsider: Any, site_client: Any
) -> None:
    client = site_client(outsider)
    for url in _study_urls(pages_world):
        assert client.get(url).status_code == 404, url
    response = client.post(
        reverse("pages:computation-request", args=[pages_world.study.pk]),
        {"question": pages_world.question.pk, "round": pages_world.rounds[0].pk},
    )
    assert response.status_code in (403, 404)  # CSRF refuses it before the view's 404


def test_members_of_every_role_see_every_page(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    client = site_client(viewer)
    for url in _study_urls(pages_world):
        assert client.get(url).status_code == 200, url


def test_a_computation_of_another_study_is_404_through_this_study(
    pages_world: PagesWorld, outsider: Any, viewer: Any, site_client: Any
) -> None:
    other = outsider.memberships.get().study
    url = reverse("pages:computation-status", args=[other.pk, pages_world.computations[0].pk])
    assert site_client(outsider).get(url).status_code == 404


def _csrf_token(client: Client, url: str) -> str:
    html = client.get(url).content.decode()
    marker = 'name="csrfmiddlewaretoken" value="'
    start = html.index(marker) + len(marker)
    return html[start : html.index('"', start)]


def test_requesting_a_computation_without_the_csrf_token_is_refused(
    pages_world: PagesWorld, annotator: Any, site_client: Any
) -> None:
    client = site_client(annotator)
    before = Computation.objects.count()
    response = client.post(
        reverse("pages:computation-request", args=[pages_world.study.pk]),
        {"question": pages_world.question.pk, "round": pages_world.rounds[0].pk},
    )
    assert response.status_code == 403
    assert Computation.objects.count() == before


def test_requesting_a_computation_with_the_token_answers_its_status_as_json(
    pages_world: PagesWorld,
    annotator: Any,
    site_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = site_client(annotator)
    study_url = reverse("pages:study-detail", args=[pages_world.study.pk])
    token = _csrf_token(client, study_url)
    # In a test the commit (and the eager task) comes after the view answered: queued.
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            reverse("pages:computation-request", args=[pages_world.study.pk]),
            {
                "question": pages_world.question.pk,
                "round": pages_world.rounds[0].pk,
                "csrfmiddlewaretoken": token,
            },
            HTTP_ACCEPT="application/json",
        )
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "queued"
    status = client.get(body["status_url"]).json()
    assert status["id"] == body["id"]
    assert status["status"] == "done"
    assert status["finished"] is True
    assert status["progress"] == 1.0
    assert body["report_url"].startswith(
        reverse("pages:round-report", args=[pages_world.study.pk, pages_world.rounds[0].pk])
    )


def test_viewers_cannot_request_computations(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    client = site_client(viewer)
    token = _csrf_token(client, reverse("pages:study-list"))
    before = Computation.objects.count()
    response = client.post(
        reverse("pages:computation-request", args=[pages_world.study.pk]),
        {
            "question": pages_world.question.pk,
            "round": pages_world.rounds[0].pk,
            "csrfmiddlewaretoken": token,
        },
        HTTP_ACCEPT="application/json",
    )
    assert response.status_code == 403
    assert Computation.objects.count() == before


def test_the_login_form_signs_in_with_csrf_and_lands_on_the_study_list(
    pages_world: PagesWorld, viewer: Any
) -> None:
    viewer.set_password("pw-for-tests")
    viewer.save()
    client = Client(enforce_csrf_checks=True)
    token = _csrf_token(client, reverse("login"))
    response = client.post(
        reverse("login"),
        {"username": viewer.username, "password": "pw-for-tests", "csrfmiddlewaretoken": token},
    )
    assert response.status_code == 302
    assert response["Location"] == reverse("pages:study-list")
    assert pages_world.study.name in client.get(reverse("pages:study-list")).content.decode()


def test_a_huge_id_is_a_404_not_a_database_error(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    client = site_client(viewer)
    assert client.get(f"/studies/{10**30}/").status_code == 404
    report = reverse("pages:round-report", args=[pages_world.study.pk, pages_world.rounds[0].pk])
    assert client.get(report, {"question": str(10**30)}).status_code == 404
    assert client.get(report, {"question": "x"}).status_code == 404
