"""The adjudication page (items where the coders disagree, a form per item), its POST, the
"against the reference" page and the coder page's table; literal text."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from adjudication import services
from adjudication.models import Adjudication

pytestmark = pytest.mark.django_db


def page_client(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def urls(study: Any, gold_round: dict[str, Any]) -> dict[str, str]:
    base = (
        f"/studies/{study.pk}/rounds/{gold_round['round'].pk}/questions/{gold_round['question'].pk}"
    )
    return {
        "page": f"{base}/adjudication/",
        "decide": f"{base}/adjudication/decide/",
        "reference": f"{base}/reference/",
    }


def test_the_page_lists_disputed_items_with_each_coders_label(
    study: Any, gold_round: dict[str, Any], manager: Any, viewer: Any
) -> None:
    url = urls(study, gold_round)["page"]
    text = page_client(manager).get(url).content.decode()
    assert "<h1>Adjudication: Round 1, question sentiment</h1>" in text
    assert "Reference of this round: the adjudicated labels (no gold coder)." in text
    assert (
        "<caption>2 items; deciding again keeps the earlier decision in the history</caption>"
        in text
    )
    assert '<tr id="item-' in text
    assert 'data-item="u2"' in text
    assert 'data-item="u4"' in text
    assert 'data-item="u1"' not in text
    assert '<input type="radio" name="choice" value="c2" required> b (c2)</label>' in text
    assert "<script>" not in text  # CSP: no inline script
    viewer_text = page_client(viewer).get(url).content.decode()
    assert "Only managers of the study adjudicate items; you see the decisions." in viewer_text
    assert 'class="adjudicate"' not in viewer_text
    assert "u1" in page_client(viewer).get(url + "?all=1").content.decode()


def test_a_manager_decides_through_the_form(
    study: Any,
    gold_round: dict[str, Any],
    manager: Any,
    viewer: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    links = urls(study, gold_round)
    u4 = gold_round["items"][3]
    client = page_client(manager)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(
            links["decide"], {"item": u4.pk, "choice": "c1", "note": "a is meant"}, follow=True
        )
    assert response.status_code == 200
    text = response.content.decode()
    assert "Item u4: reference label a." in text
    assert "a <small>(from c1 by manager_a: a is meant)</small>" in text
    entered = client.post(links["decide"], {"item": u4.pk, "choice": "__entered__", "label": "z"})
    assert entered.status_code == 302
    followed = client.get(links["page"]).content.decode()
    assert "Unknown category" in followed or "&#x27;z&#x27;" in followed
    assert Adjudication.objects.filter(item=u4, superseded_at__isnull=True).get().value == "a"
    refused = page_client(viewer).post(links["decide"], {"item": u4.pk, "choice": "c1"})
    assert refused.status_code == 403
    assert refused.content.decode() == "Only managers of the study adjudicate items."
    empty = client.post(
        links["decide"], {"item": u4.pk, "choice": "__entered__"}, HTTP_ACCEPT="application/json"
    )
    assert (empty.status_code, empty.json()) == (
        400,
        {"error": "Type the label, or pick a coder's label."},
    )


def test_the_reference_page_reads_the_stored_results(
    study: Any,
    gold_round: dict[str, Any],
    viewer: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    client = page_client(viewer)
    reference = urls(study, gold_round)["reference"]
    text = client.get(reference).content.decode()
    assert (
        "No results against the reference: this round has no gold coder and no adjudicated "
        "item for this question." in text
    )
    with django_capture_on_commit_callbacks(execute=True):
        services.gold_coder_set(round_=gold_round["round"], coder=gold_round["coders"][2])
    text = client.get(reference).content.decode()
    assert "Reference: gold coder g, 0 adjudicated items, 4 items with a reference label." in text
    assert (
        '<tr data-coder="c1"><th scope="row">c1</th><td class="num">4</td>'
        '<td class="num">0.500</td>'
    ) in text
    assert '<td class="num">0.200</td>' in text  # c1's kappa
    assert '<h2 id="ref-1">c1 per label</h2>' in text
    assert (
        '<tr><th scope="row">b</th><td class="num">1.000</td><td class="num">0.333</td>'
        '<td class="num">0.500</td><td class="num">3</td><td class="num">2</td>'
        '<td class="num">1</td><td class="num">0</td></tr>'
    ) in text
    report = client.get(
        f"/studies/{study.pk}/rounds/{gold_round['round'].pk}/?question={gold_round['question'].pk}"
    ).content.decode()
    assert (
        ">Against the reference</a>: each coder against the gold coder or the adjudicated labels."
        in report
    )
    coder_page = client.get(
        f"/studies/{study.pk}/coders/{gold_round['coders'][1].pk}/"
    ).content.decode()
    assert '<h2 id="against-reference">Against the reference</h2>' in coder_page
    assert '<td class="num">4</td><td class="num">0.750</td>' in coder_page


def test_the_review_queue_page_links_the_adjudication_page(
    study: Any, gold_round: dict[str, Any], viewer: Any
) -> None:
    base = (
        f"/studies/{study.pk}/rounds/{gold_round['round'].pk}/questions/{gold_round['question'].pk}"
    )
    text = page_client(viewer).get(f"{base}/review/").content.decode()
    assert (
        f'<a href="{base}/adjudication/">Adjudicate</a>: decide these items\' reference '
        "labels (an adjudicated item leaves the queue)."
    ) in text
