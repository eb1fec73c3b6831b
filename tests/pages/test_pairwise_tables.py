"""Pairwise tables state each pair's shared items and flag the pairs below the minimum
(``AGREEMENT_PAIR_MIN_ITEMS``, 10 by default); the heatmap leaves them blank, and Light's
kappa says how many of its pairs are such.

Krippendorff's (2011) data (round R2 of the k2011 world): the coders share 8 to 10 items;
the pairwise kappas (Gwet's missing-data convention) are A×B 0.851, A×C 0.512, A×D 0.853,
B×C 0.563, B×D 0.871, C×D 0.622, whose mean is Light's kappa 0.712
(docs/references.md#k2011-reliability-data).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import override_settings
from django.urls import reverse

from studies.models import Study
from tests.pages.conftest import PagesWorld
from tests.pages.k2011_world import k2011_world

pytestmark = pytest.mark.django_db


@pytest.fixture
def k2011(study: Study, django_capture_on_commit_callbacks: Any) -> PagesWorld:
    return k2011_world(study, django_capture_on_commit_callbacks)


def _report(client: Any, world: PagesWorld) -> str:
    url = reverse("pages:round-report", args=[world.study.pk, world.rounds[1].pk])
    html = client.get(url, {"question": world.question.pk}).content.decode()
    return re.sub(r"\s+", " ", html)


def test_each_pair_states_its_shared_items_and_the_few_are_flagged(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    html = _report(site_client(viewer), k2011)
    table = re.search(r'<table class="matrix coder-pairs">.*?</table>', html)
    assert table is not None
    assert (
        "Cohen&#x27;s kappa / multi-kappa of every two coders, with the items both labelled. "
        "Missing labels follow Gwet's (2014) convention"
    ) in table.group(0)
    assert "left blank in the heatmap: 4 of the 6 pairs here." in table.group(0)
    rows = re.findall(r"<tr><th scope=\"row\">(\w)</th>(.*?)</tr>", table.group(0))
    cells = {coder: re.findall(r"<td[^>]*>(.*?)</td>", row) for coder, row in rows}
    assert cells["A"] == [
        "—",
        "0.851 †<br><small>9 items</small>",
        "0.512 †<br><small>8 items</small>",
        "0.853 †<br><small>9 items</small>",
    ]
    assert cells["B"][3] == "0.871<br><small>10 items</small>"
    # The heatmap leaves the flagged pairs blank and keeps the others.
    heatmap = re.search(r'<svg[^>]*id="coder-heatmap".*?</svg>', html)
    assert heatmap is not None
    assert "<title>A × C: —</title>" in heatmap.group(0)
    assert "<title>B × D: 0.87</title>" in heatmap.group(0)
    assert "Coder × coder agreement: Cohen&#x27;s kappa / multi-kappa of each pair of coders" in (
        heatmap.group(0)
    )


def test_lights_kappa_says_how_many_of_its_pairs_share_few_items(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    html = _report(site_client(viewer), k2011)
    row = re.search(r'<tr data-coefficient="light_kappa">.*?</tr>', html)
    assert row is not None
    assert (
        '<small class="light-note">mean of the 6 pairs\' kappas below, each pair counted '
        "once; 4 share fewer than 10 items (without them: 0.746)</small>"
    ) in row.group(0)
    assert '<td class="num value">0.712</td>' in row.group(0)
    deg = re.search(r'<tr data-pair="A\|C" class="few-items">.*?</tr>', html)
    assert deg is not None
    assert '<td class="num">8 †</td>' in deg.group(0)


@override_settings(AGREEMENT_PAIR_MIN_ITEMS=8)
def test_the_minimum_is_a_setting(k2011: PagesWorld, viewer: Any, site_client: Any) -> None:
    html = _report(site_client(viewer), k2011)
    table = html.split('<table class="matrix coder-pairs">')[1].split("</table>")[0]
    assert "†" not in table.split("<tbody>")[1]
    assert "each pair counted once</small>" in html
