"""The study admin's change page shows the history chart, latest results and computations."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from pages.templatetags.pages_extras import num
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db


def test_study_change_page_shows_the_history_chart_and_latest_results(
    pages_world: PagesWorld, admin_client: Any
) -> None:
    url = reverse("admin:studies_study_change", args=[pages_world.study.pk])
    html = admin_client.get(url).content.decode()
    assert 'id="agreement-history"' in html
    assert 'id="admin-history-alpha"' in html
    assert 'data-rounds="2"' in html
    latest = pages_world.computations[1].results["coefficients"]["alpha"]["value"]
    assert f'<td class="num value">{num(latest)}</td>' in html
    for computation in pages_world.computations:
        assert f'<tr data-computation="{computation.pk}">' in html


def test_the_add_page_has_no_history(db: None, admin_client: Any) -> None:
    html = admin_client.get(reverse("admin:studies_study_add")).content.decode()
    assert 'id="agreement-history"' not in html
