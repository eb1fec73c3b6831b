"""Empty states say what to do next (issue 23, item 7), literally."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from studies.models import Study
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def _flat(response: Any) -> str:
    return re.sub(r"\s+", " ", response.content.decode())


def test_a_user_without_studies_is_told_to_create_one(site_client: Any) -> None:
    html = _flat(site_client(UserFactory()).get(reverse("pages:study-list")))
    assert (
        '<p class="empty">You are not a member of any study yet. Next: <a href="/studies/new/">'
        "create a study</a>, or ask a study's manager to add you as a member.</p>"
    ) in html


def test_an_empty_study_says_how_to_add_questions_rounds_and_labels(
    study: Study, manager: Any, site_client: Any
) -> None:
    client = site_client(manager)
    listing = _flat(client.get(reverse("pages:study-list")))
    assert (
        '<td colspan="5" class="empty">No questions yet. Next: add the study\'s questions over '
        f"the API (<code>POST /api/v1/studies/{study.pk}/questions/</code>), in the admin, or "
        "by importing a labeling tool's export.</td>"
    ) in listing
    html = _flat(client.get(reverse("pages:study-detail", args=[study.pk])))
    assert (
        '<p class="empty-history">No computation has finished yet. Next: add a question and a '
        "round, upload their annotations, then request a computation.</p>"
    ) in html
    assert (
        f'<td colspan="2" class="empty">No rounds yet. Next: open one over the API (<code>POST '
        f"/api/v1/studies/{study.pk}/rounds/</code>) or in the admin.</td>"
    ) in html
    assert "No coders yet. They are added with their first annotations" in html
    assert "None yet. Request one above once a round has annotations." in html
