"""Pages of crowd-sized studies read without scanning annotations: a round above
``AGREEMENT_EXACT_STALENESS_MAX`` annotations is marked stale from indexed lookups (an
annotation added since, a change logged since), and the study page links the first coders
by key with the total."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from annotations.services import annotation_delete
from computations.selectors import study_history
from studies.access import Actor
from studies.models import Annotation
from tests.factories import CoderFactory
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db

STALE = '<small class="stale">(annotations changed since)</small>'


def _stale(world: PagesWorld) -> list[Any]:
    (entry,) = study_history(study=world.study, question_id=world.question.pk)["questions"]
    return [r["stale"] for r in entry["rounds"]]


@pytest.fixture
def crowd_sized(settings: Any) -> None:
    """Every stored computation counts as a crowd round (above the exact-check bound)."""
    settings.AGREEMENT_EXACT_STALENESS_MAX = 10


def test_a_large_round_is_not_stale_until_its_annotations_change(
    pages_world: PagesWorld, crowd_sized: None
) -> None:
    assert _stale(pages_world) == [False, False]


def test_a_logged_deletion_in_a_large_round_makes_it_stale(
    pages_world: PagesWorld, crowd_sized: None
) -> None:
    annotation = Annotation.objects.filter(round=pages_world.rounds[1]).first()
    annotation_delete(annotation=annotation, actor=Actor(user=None, token=None))
    assert _stale(pages_world) == [False, True]


def test_an_annotation_added_to_a_large_round_makes_it_stale(
    pages_world: PagesWorld, crowd_sized: None
) -> None:
    first = Annotation.objects.filter(round=pages_world.rounds[0]).first()
    Annotation.objects.create(
        round=first.round,
        question=first.question,
        item=first.item,
        coder=CoderFactory(study=pages_world.study, key="newcomer"),
        category=first.category,
    )
    assert _stale(pages_world) == [True, False]


def test_a_small_round_still_notices_a_direct_deletion(pages_world: PagesWorld) -> None:
    Annotation.objects.filter(round=pages_world.rounds[0]).first().delete()
    assert _stale(pages_world) == [True, False]


def test_the_study_page_lists_the_first_coders_and_says_how_many(
    pages_world: PagesWorld, viewer: Any, site_client: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("pages.views.CODERS_LISTED", 2)
    html = site_client(viewer).get(reverse("pages:study-detail", args=[pages_world.study.pk]))
    text = html.content.decode()
    assert "The first 2 of 3 coders by key; the API's <code>coders/</code> lists them all." in text
    coder = pages_world.study.coders.order_by("key").first()
    assert f'<li><a href="/studies/{pages_world.study.pk}/coders/{coder.pk}/">' in text


def test_the_dashboard_of_a_crowd_sized_study_never_reads_annotations(
    pages_world: PagesWorld, crowd_sized: None
) -> None:
    """The dashboard reads stored results only: the history's statements (its questions,
    rounds and results, and per computed round the indexed staleness probes of a crowd round,
    ``LIMIT 1`` each), then the questions, one for each question's categories, and one each
    for the diagnostics, review queue, review rules, adjudications, plans, coders and
    unfinished computations; no statement reads the annotations otherwise."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from pages.dashboard import study_dashboard

    with CaptureQueriesContext(connection) as captured:
        dashboard = study_dashboard(study=pages_world.study)
    (panel,) = dashboard.panels
    assert panel.headline.round_name == "R2"
    assert [weak.label for weak in panel.coders] == sorted(
        (weak.label for weak in panel.coders),
        key=lambda key: pages_world.computations[1].results["diagnostics"]["per_coder"][key],
    )
    statements = [query["sql"] for query in captured.captured_queries]
    probes = [sql for sql in statements if "studies_annotation" in sql]
    assert len(probes) == 4  # an annotation and a change after each of R1's and R2's results
    assert all(sql.endswith("LIMIT 1") for sql in probes), probes
    assert len(statements) - len(probes) == 3 + 1 + 1 + 7, statements
