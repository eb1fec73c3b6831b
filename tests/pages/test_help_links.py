"""The documentation a page names is a link to it on the site (``/help/<name>/``)."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from studies.models import Study
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_planning_page_links_docs_planning(study: Study, viewer: Any, site_client: Any) -> None:
    from tests.computations.helpers import nominal_question

    question = nominal_question(study, codes=("a", "b"))
    html = (
        site_client(viewer)
        .get(reverse("pages:plans", args=[study.pk]), {"question": question.pk})
        .content.decode()
    )
    assert 'see <a href="/help/planning/">docs/planning.md</a>)' in html


def test_a_docs_page_shows_the_files_text_to_signed_in_users(site_client: Any) -> None:
    client = site_client(UserFactory())
    html = client.get("/help/planning/").content.decode()
    assert "<title>docs/planning.md · Agreement server</title>" in html
    assert "# Sample-size planning\n\n`metrics.planning` answers" in html
    assert client.get("/help/no-such-page/").status_code == 404
    assert client.get("/help/..%2Fsecurity/").status_code == 404
    assert site_client().get("/help/planning/").status_code == 302
