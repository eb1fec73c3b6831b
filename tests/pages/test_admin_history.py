"""The study admin's change page shows the history chart, latest results and computations."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib import admin
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.db import SessionStore
from django.test import RequestFactory

from studies.admin_history import StudyHistoryAdminMixin
from studies.models import Study
from studies.templatetags.studies_extras import num
from tests.factories import UserFactory
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db


class _StudyAdmin(StudyHistoryAdminMixin, admin.ModelAdmin):
    pass


def _change_page(study: Study) -> str:
    site = admin.AdminSite(name="admin")
    model_admin = _StudyAdmin(Study, site)
    request = RequestFactory().get(f"/admin/studies/study/{study.pk}/change/")
    request.user = UserFactory(is_staff=True, is_superuser=True)
    request.session = SessionStore()
    request._messages = FallbackStorage(request)  # type: ignore[attr-defined]
    response: Any = model_admin.change_view(request, str(study.pk))
    response.render()
    return str(response.content.decode())


def test_study_change_page_shows_the_history_chart_and_latest_results(
    pages_world: PagesWorld,
) -> None:
    html = _change_page(pages_world.study)
    assert 'id="agreement-history"' in html
    assert 'id="admin-history-alpha"' in html
    assert 'data-rounds="2"' in html
    latest = pages_world.computations[1].results["coefficients"]["alpha"]["value"]
    assert f'<td class="num value">{num(latest)}</td>' in html
    for computation in pages_world.computations:
        assert f'<tr data-computation="{computation.pk}">' in html
