"""The home page marks a headline whose annotations changed after it was computed, as the
study page does, by reading stored results only."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from computations import engine
from studies.models import Annotation
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db

STALE = '<small class="stale">(annotations changed since)</small>'


def _row(client: Any, world: PagesWorld) -> str:
    html = client.get(reverse("pages:study-list")).content.decode()
    row = re.search(
        rf'<tr class="study-row" data-study="{world.study.pk}" '
        rf'data-question="{world.question.key}">.*?</tr>',
        html,
        re.S,
    )
    assert row is not None
    return row.group(0)


def _no_computing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("a page computed")

    for name in ("point_report", "diagnostics", "decompositions", "difference"):
        monkeypatch.setattr(engine, name, refuse)


def test_the_study_list_marks_a_stale_headline(
    pages_world: PagesWorld, viewer: Any, site_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_computing(monkeypatch)
    client = site_client(viewer)
    assert STALE not in _row(client, pages_world)
    Annotation.objects.filter(round=pages_world.rounds[1]).first().delete()
    row = _row(client, pages_world)
    assert STALE in row
    value = r'<td class="num value">\d\.\d{3} <small>alpha, R2</small> '
    assert re.search(value + re.escape(STALE), row)


def test_the_study_page_marks_the_same_headline(
    pages_world: PagesWorld, viewer: Any, site_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _no_computing(monkeypatch)
    Annotation.objects.filter(round=pages_world.rounds[1]).first().delete()
    html = site_client(viewer).get(reverse("pages:study-detail", args=[pages_world.study.pk]))
    assert f'<span class="round">R2</span> {STALE}:' in html.content.decode()
