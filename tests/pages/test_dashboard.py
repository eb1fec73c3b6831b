"""The study page's first screen: per question the headline with its interval and reading,
the trend, the weakest categories, coders and items, the review queue and adjudications,
and the next step, all read from stored results in a bounded number of statements.

The study is ``tests/pages/dashboard_world.py``: "value" is Krippendorff's (2011) data in
R2 (alpha 0.743, docs/references.md#k2011-reliability-data) after a changed R1 (0.482), its
categories' kappas from irrCAC (docs/references.md#k2011-per-category);
"tone" is worked by hand in that module's docstring. Each coder's mean pairwise kappa in R2
comes from the six published pairwise kappas (tests/pages/test_pairwise_tables.py:
A×B 0.851, A×C 0.512, A×D 0.853, B×C 0.563, B×D 0.871, C×D 0.622): C (0.512 + 0.563 +
0.622) / 3 = 0.566, A (0.851 + 0.512 + 0.853) / 3 = 0.739, B (0.851 + 0.563 + 0.871) / 3 =
0.762, D 0.782; the others' mean beside C's is (0.739 + 0.762 + 0.782) / 3 = 0.761, 0.195
above. Item disagreement is the share of an item's disagreeing pairs of labels: u6 (1, 2,
3, 4) 1.000, u2 (2, 2, 3, 2) and u8 (1, 1, 2, 1) 6/12 = 0.500. The interval and the
benchmark probabilities were recorded from the fixed labels and bootstrap seed (as in
tests/pages/test_views_pages.py).
"""

from __future__ import annotations

import html as html_lib
import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from computations.models import Computation, ComputationStatus
from studies.models import Study
from tests.computations.helpers import label_round, nominal_question
from tests.factories import CoderFactory, ItemFactory, RoundFactory
from tests.pages.dashboard_world import DashboardWorld, dashboard_world
from tests.pages.k2011_world import compute

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(study: Study, django_capture_on_commit_callbacks: Any) -> DashboardWorld:
    return dashboard_world(study, django_capture_on_commit_callbacks)


#: Tags that end a line of text (the others run on within it).
BLOCK_END = re.compile(r"<(?:/(?:p|h\d|dt|dd|li|div|section|article|tr|td|th)|br)\b[^>]*>")


def _text(fragment: str) -> str:
    """What a reader sees: charts and tags dropped, entities read, white space collapsed."""
    fragment = re.sub(r"<svg.*?</svg>", " ", fragment, flags=re.S)
    fragment = re.sub(r"<[^>]+>", "", BLOCK_END.sub(" ", fragment))
    return re.sub(r"\s+", " ", html_lib.unescape(fragment)).strip()


def _panel(page: str, key: str) -> str:
    found = re.search(rf'<article class="question-panel" data-question="{key}".*?</article>',
                      page, re.S)  # fmt: skip
    assert found is not None, key
    return found.group(0)


def _page(client: Any, world: DashboardWorld) -> str:
    response = client.get(reverse("pages:study-detail", args=[world.study.pk]))
    assert response.status_code == 200
    return str(response.content.decode())


def test_each_question_reads_its_headline_trend_weakest_queues_and_next_step(
    world: DashboardWorld, viewer: Any, site_client: Any
) -> None:
    page = _page(site_client(viewer), world)
    c = world.coders[2]
    value = _panel(page, "value")
    assert _text(value) == (
        "value Nominal category "
        "Krippendorff's alpha in R2: 0.743 [0.381, 1.000] "
        "tentative on Krippendorff's scale no band above discard reaches probability 0.95; "
        "most probable band: discard (0.35) "
        "▲ +0.262 since R1 (up) "
        "Weakest categories (Cohen's kappa / multi-kappa, each against the rest) "
        "2 (0.688); 1 (0.743); 3 (0.771) "
        "Weakest coders (mean Cohen's kappa / multi-kappa with the others) "
        "C (0.566); A (0.739); B (0.762) "
        "Most disputed items (disagreement) u6 (1.000); u2 (0.500); u8 (0.500) "
        "Review queue: 0 open items (no review rule set) · Adjudication: 0 items decided · "
        "Round report "
        "Next: C's mean agreement with the other coders in R2 (Cohen's kappa / multi-kappa) is "
        "0.566, 0.195 below the others' mean of 0.761. Retrain C."
    )
    assert f'<a href="/studies/{world.study.pk}/coders/{c.pk}/">Retrain C</a>' in value
    tone = _panel(page, "tone")
    round_two = world.rounds[1]
    assert _text(tone) == (
        "tone Nominal category "
        "Krippendorff's alpha in R2: 0.710 [0.260, 1.000] "
        "tentative on Krippendorff's scale no band above discard reaches probability 0.95; "
        "most probable band: discard (0.41) "
        "no previous round to compare "
        "Weakest categories (Cohen's kappa / multi-kappa, each against the rest) "
        "pos (0.583); neg (0.737); neu (0.783) "
        "Weakest coders (mean Cohen's kappa / multi-kappa with the others) A (0.697); B (0.697) "
        "Most disputed items (disagreement) u4 (1.000); u10 (1.000) "
        "Review queue: 1 open item · Adjudication: 1 item decided · Round report "
        "Next: The review queue of tone in R2 holds 1 open item. Review it."
    )
    base = f"/studies/{world.study.pk}/rounds/{round_two.pk}/questions/{world.tone.pk}"
    assert f'<a class="review-count" href="{base}/review/">1 open item</a>' in tone
    assert f'<a class="adjudication-count" href="{base}/adjudication/">1 item decided</a>' in tone
    assert f'<a href="{base}/review/">Review it</a>' in tone
    history = reverse("pages:study-history", args=[world.study.pk])
    assert f'<a href="{history}">History: every coefficient across rounds</a>' in page
    # The charts moved to the history page; the sparkline stays.
    assert 'class="chart history-chart"' not in page
    assert page.count('<svg xmlns="http://www.w3.org/2000/svg" class="sparkline"') == 2


def test_a_question_whose_plan_is_stored_and_nothing_waits_points_to_the_report(
    world: DashboardWorld, viewer: Any, site_client: Any
) -> None:
    """With tone's last item adjudicated too, its queue is empty: two coders have no coder
    far below the others, so a plan from R2 is next."""
    from adjudication.services import adjudicate

    adjudicate(round_=world.rounds[1], question=world.tone, item=world.items[9], label="pos")
    tone = _panel(_page(site_client(viewer), world), "tone")
    plans = reverse("pages:plans", args=[world.study.pk])
    assert _text(tone).endswith(
        "Next: No sample-size plan of tone takes R2 as its pilot yet. Plan the next round."
    )
    assert (
        f'<a href="{plans}?question={world.tone.pk}&amp;pilot={world.rounds[1].pk}">Plan the '
        "next round</a>"
    ) in tone


def test_a_pending_computation_is_shown_with_a_refresh_link(
    world: DashboardWorld, viewer: Any, site_client: Any
) -> None:
    pending = Computation.objects.create(
        study=world.study,
        question=world.tone,
        scope="round",
        params_hash="p" * 64,
        data_revision="pending",
        status=ComputationStatus.RUNNING,
        progress=0.25,
    )
    pending.rounds.set([world.rounds[0]])
    page = _page(site_client(viewer), world)
    url = reverse("pages:study-detail", args=[world.study.pk])
    status = reverse("pages:computations-pending", args=[world.study.pk])
    section = re.search(r'<section class="pending".*?</section>', page, re.S)
    assert section is not None
    assert f'data-status-url="{status}" data-waiting="{pending.pk}"' in section.group(0)
    assert _text(section.group(0)) == (
        f"Computations under way Computation {pending.pk} of tone in R1: running, 25 % "
        "The results show here once they are stored: the page updates itself, or refresh it."
    )
    assert f'<a class="refresh-link" href="{url}">refresh</a>' in section.group(0)
    assert '<noscript><meta http-equiv="refresh" content="15"></noscript>' in section.group(0)


def test_the_pending_read_lists_unfinished_computations_for_members_only(
    world: DashboardWorld, viewer: Any, outsider: Any, site_client: Any
) -> None:
    url = reverse("pages:computations-pending", args=[world.study.pk])
    assert site_client(viewer).get(url).json() == {"pending": []}
    queued = Computation.objects.create(
        study=world.study,
        question=world.value,
        scope="round",
        params_hash="q" * 64,
        data_revision="queued",
    )
    body = site_client(viewer).get(url).json()
    assert body == {"pending": [{"id": queued.pk, "status": "queued", "progress": 0.0}]}
    assert site_client(outsider).get(url).status_code == 404
    assert site_client(None).get(url).status_code == 302


def _statements(client: Any, study: Study) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(reverse("pages:study-detail", args=[study.pk]))
    assert response.status_code == 200
    return len(captured.captured_queries)


def test_the_dashboard_costs_the_same_statements_however_many_coders_items_and_rounds(
    world: DashboardWorld, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    client = site_client(viewer)
    before = _statements(client, world.study)
    # Thirty more coders and forty more items in a third round of "value", computed.
    study = world.study
    round_three = RoundFactory(study=study, name="R3", position=3)
    coders = [CoderFactory(study=study, key=f"crowd-{n:02d}") for n in range(30)]
    items = [ItemFactory(study=study, external_id=f"v{n}") for n in range(40)]
    table = [[str(1 + (c + u) % 5 if (c * u) % 7 else 1) for u in range(40)] for c in range(30)]
    label_round(round_three, world.value, table, coders=coders, items=items)
    compute(study, world.value, round_three, django_capture_on_commit_callbacks)
    assert _statements(client, study) == before
    assert before <= 40, before


def test_a_study_without_questions_says_what_to_do(
    study: Study, viewer: Any, site_client: Any
) -> None:
    html = site_client(viewer).get(reverse("pages:study-detail", args=[study.pk]))
    text = _text(html.content.decode())
    assert (
        "Where the study stands No questions yet. Next: add the study's questions over the "
        f"API (POST /api/v1/studies/{study.pk}/questions/), in the admin, or by importing a "
        "labeling tool's export. No computation has finished yet."
    ) in text


def test_a_question_without_a_computation_asks_for_one(
    study: Study, viewer: Any, site_client: Any
) -> None:
    nominal_question(study, key="fresh")
    page = site_client(viewer).get(reverse("pages:study-detail", args=[study.pk]))
    panel = _panel(page.content.decode(), "fresh")
    assert _text(panel) == (
        "fresh Nominal category Next: No computation of fresh has finished yet. "
        "Request a computation."
    )
