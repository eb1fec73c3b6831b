"""The study admin's change page shows the history chart, latest results and computations.

The latest round is Krippendorff's (2011) data: alpha 0.743
(docs/references.md#k2011-reliability-data).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from studies.models import Study
from tests.pages.k2011_world import k2011_world

pytestmark = pytest.mark.django_db


def test_study_change_page_shows_the_history_chart_and_latest_results(
    study: Study, admin_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    world = k2011_world(study, django_capture_on_commit_callbacks)
    url = reverse("admin:studies_study_change", args=[study.pk])
    html = admin_client.get(url).content.decode()
    assert 'id="agreement-history"' in html
    assert 'id="admin-history-alpha"' in html
    assert 'data-rounds="2"' in html
    assert '<td class="num value">0.743</td>' in html
    for computation in world.computations:
        assert f'<tr data-computation="{computation.pk}">' in html


def test_the_add_page_has_no_history(db: None, admin_client: Any) -> None:
    html = admin_client.get(reverse("admin:studies_study_add")).content.decode()
    assert 'id="agreement-history"' not in html
