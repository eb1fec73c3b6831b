"""The document view of a span question: each coder's units on one item and where they differ,
read from the stored annotations (hand-built cases, expected page text written out)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.urls import reverse

from pages.span_charts import nice_ticks
from studies.models import Annotation, Coder, Item, LabelKind, Question, Round, SpanUnit, Study
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

pytestmark = pytest.mark.django_db

#:      0         1         2
#:      01234567890123456789012345678
TEXT = "Alice met Bob in Paris today."


@dataclass
class SpanWorld:
    study: Study
    round: Round
    question: Question
    item: Item
    other: Item
    coders: dict[str, Coder]


def _annotate(round_: Round, question: Question, item: Item, coder: Coder, units: Any) -> None:
    Annotation.objects.create(round=round_, question=question, item=item, coder=coder, units=units)


@pytest.fixture
def span_world(study: Study) -> SpanWorld:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key="entities")
    per = CategoryFactory(question=question, code="PER", position=0).pk
    loc = CategoryFactory(question=question, code="LOC", position=1).pk
    round_ = RoundFactory(study=study, name="R1", position=1)
    item = ItemFactory(study=study, external_id="doc-1", text=TEXT)
    other = ItemFactory(study=study, external_id="doc-2", text="Nothing here.")
    coders = {
        key: CoderFactory(study=study, key=key) for key in ("ann", "bob", "cyd", "dan", "eve")
    }
    _annotate(round_, question, item, coders["ann"], [[0, 5, per], [10, 13, per], [17, 22, loc]])
    _annotate(round_, question, item, coders["bob"], [[0, 5, per], [10, 13, loc], [17, 23, loc]])
    _annotate(round_, question, item, coders["cyd"], [[0, 5, per], [17, 22, loc], [23, 28, loc]])
    _annotate(round_, question, item, coders["dan"], [])  # annotated, nothing found
    _annotate(round_, question, other, coders["eve"], [])  # eve did not annotate doc-1
    return SpanWorld(study, round_, question, item, other, coders)


def _page(client: Any, world: SpanWorld, item: Item | None = None) -> str:
    item = item or world.item
    url = reverse(
        "pages:span-document",
        args=[world.study.pk, world.round.pk, world.question.pk, item.pk],
    )
    response = client.get(url)
    assert response.status_code == 200
    return response.content.decode()


def _swatch(colour: int, code: str) -> str:
    swatch = f'<span class="swatch cat-{colour}" aria-hidden="true"></span>'
    return f'<td class="label">{swatch} {code}</td>'


def _unit_row(coder: str, begin: int, end: int, code: str, text: str, note: str, flags: str) -> str:
    colour = {"PER": 0, "LOC": 1}[code]
    head = f'<tr class="{flags}" data-coder="{coder}">' if flags else f'<tr data-coder="{coder}">'
    return (
        f'{head}<th scope="row">{coder}</th><td class="num">{begin}</td><td class="num">{end}</td>'
        f'{_swatch(colour, code)}<td class="excerpt">{text}</td>'
        f'<td class="agreement">{note}</td></tr>'
    )


def test_the_units_table_says_how_the_other_coders_marked_each_unit(
    span_world: SpanWorld, viewer: Any, site_client: Any
) -> None:
    html = _page(site_client(viewer), span_world)
    expected = [
        _unit_row("ann", 0, 5, "PER", "Alice", "not marked by dan", "flag-missed"),
        _unit_row(
            "ann", 10, 13, "PER", "Bob",
            "not marked by cyd, dan; another category by bob", "flag-missed flag-category",
        ),
        _unit_row(
            "ann", 17, 22, "LOC", "Paris",
            "not marked by dan; other boundaries by bob", "flag-missed flag-boundary",
        ),
        _unit_row(
            "bob", 10, 13, "LOC", "Bob",
            "not marked by cyd, dan; another category by ann", "flag-missed flag-category",
        ),
        _unit_row(
            "bob", 17, 23, "LOC", "Paris ",
            "not marked by dan; other boundaries by ann, cyd", "flag-missed flag-boundary",
        ),
        _unit_row(
            "cyd", 23, 28, "LOC", "today", "no other coder marked this stretch", "flag-unmatched"
        ),
    ]  # fmt: skip
    for row in expected:
        assert row in html
    assert (
        '<tr data-coder="dan"><th scope="row">dan</th><td colspan="5">annotated, nothing found'
        "</td></tr>"
    ) in html
    assert (
        '<tr data-coder="eve" class="not-annotated"><th scope="row">eve</th>'
        '<td colspan="5">not annotated</td></tr>'
    ) in html
    assert '<dd class="n-annotating">4 of 5</dd>' in html
    assert '<dd class="n-units">9</dd>' in html
    assert '<dd class="extent">0 – 29 characters</dd>' in html


def test_the_disputed_stretches_list_each_coders_categories(
    span_world: SpanWorld, viewer: Any, site_client: Any
) -> None:
    html = _page(site_client(viewer), span_world)
    table = re.search(r'<table class="stretches">.*?</table>', html, re.S).group(0)
    rows = re.findall(r"<tr data-begin.*?</tr>", table, re.S)
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in rows]
    assert cells == [
        ["0", "5", "PER", "PER", "PER", "—", "Alice"],
        ["10", "13", "PER", "LOC", "—", "—", "Bob"],
        ["17", "22", "LOC", "LOC", "LOC", "—", "Paris"],
        ["22", "23", "—", "LOC", "—", "—", " "],
        ["23", "28", "—", "—", "LOC", "—", "today"],
    ]
    assert '<dd class="n-stretches">5</dd>' in html
    assert "Split differently at" not in html


def test_the_text_lanes_highlight_each_coders_units_and_the_disputed_text(
    span_world: SpanWorld, viewer: Any, site_client: Any
) -> None:
    html = _page(site_client(viewer), span_world)
    cyd = re.search(r'<div class="span-text-lane" data-coder="cyd">.*?</p>', html, re.S).group(0)
    assert (
        '<mark class="unit cat-0 flag-missed" data-begin="0" data-end="5" '
        'title="PER (0–5): missed">Alice<sup class="unit-label">PER ✱</sup></mark> met Bob in '
        '<mark class="unit cat-1 flag-missed flag-boundary" data-begin="17" data-end="22" '
        'title="LOC (17–22): missed, boundary">Paris<sup class="unit-label">LOC ✱</sup></mark> '
        '<mark class="unit cat-1 flag-unmatched" data-begin="23" data-end="28" '
        'title="LOC (23–28): unmatched">today<sup class="unit-label">LOC ✱</sup></mark>.'
    ) in cyd
    disputed = re.search(r'<div class="span-text-lane disputed-text".*?</p>', html, re.S).group(0)
    marked = re.findall(r'<mark class="disputed"[^>]*>(.*?)</mark>', disputed)
    assert marked == ["Alice", "Bob", "Paris", " ", "today"]
    eve = re.search(r'<div class="span-text-lane" data-coder="eve">.*?</div>', html, re.S).group(0)
    assert '<p class="lane-note">not annotated</p>' in eve


def test_the_lanes_chart_draws_a_bar_per_unit_and_a_disputed_lane(
    span_world: SpanWorld, viewer: Any, site_client: Any
) -> None:
    html = _page(site_client(viewer), span_world)
    chart = re.search(r'<svg[^>]*id="document-lanes".*?</svg>', html, re.S).group(0)
    assert 'data-lanes="5"' in chart
    assert "<title" in chart
    assert "<desc" in chart
    assert len(re.findall(r'<rect class="stretch"', chart)) == 5
    cyd = re.search(r'<g class="lane" data-coder="cyd">.*?</g></g>', chart, re.S).group(0)
    assert re.findall(r'<g class="([^"]*)" data-category="(\w+)" data-begin="(\d+)"', cyd) == [
        ("unit flag-missed", "PER", "0"),
        ("unit flag-missed flag-boundary", "LOC", "17"),
        ("unit flag-unmatched", "LOC", "23"),
    ]
    assert "<title>cyd: LOC, 23–28; no other coder marked this stretch</title>" in cyd
    assert "annotated, nothing found" in chart
    assert "not annotated" in chart
    ticks = re.findall(r'<text class="ruler-tick"[^>]*>([^<]+)</text>', chart)
    assert ticks == ["0", "5", "10", "15", "20", "25"]


def test_a_recording_without_text_gets_a_ruler_in_seconds_and_split_marks(
    study: Study, viewer: Any, site_client: Any
) -> None:
    question = QuestionFactory(
        study=study, kind=LabelKind.SPAN, key="speech", span_unit=SpanUnit.SECOND
    )
    speech = CategoryFactory(question=question, code="speech").pk
    round_ = RoundFactory(study=study, name="R1", position=1)
    item = ItemFactory(study=study, external_id="rec-1", text="")
    ann, bob = CoderFactory(study=study, key="ann"), CoderFactory(study=study, key="bob")
    _annotate(round_, question, item, ann, [[0.0, 2.5, speech]])
    _annotate(round_, question, item, bob, [[0.0, 1.25, speech], [1.25, 2.5, speech]])
    world = SpanWorld(study, round_, question, item, item, {})
    html = _page(site_client(viewer), world)
    assert '<dd class="extent">0 – 2.500 seconds</dd>' in html
    assert "Text by coder" not in html
    assert "The coders give the same categories everywhere." in html
    assert 'Split differently at: <span class="num">1.250</span>' in html
    assert '<line class="split" ' in html
    assert (
        '<tr class="flag-boundary" data-coder="ann"><th scope="row">ann</th>'
        '<td class="num">0</td><td class="num">2.500</td>'
    ) in html


def test_nice_ticks_are_one_two_or_five_times_a_power_of_ten() -> None:
    assert nice_ticks(0, 29) == [0, 5, 10, 15, 20, 25]
    assert nice_ticks(0, 2.5) == [0, 0.5, 1.0, 1.5, 2.0, 2.5]
    assert nice_ticks(100, 1000) == [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]


def test_the_document_view_is_for_members_and_span_questions_only(
    span_world: SpanWorld, outsider: Any, viewer: Any, site_client: Any
) -> None:
    args = [span_world.study.pk, span_world.round.pk, span_world.question.pk, span_world.item.pk]
    url = reverse("pages:span-document", args=args)
    assert site_client(outsider).get(url).status_code == 404
    anonymous = site_client().get(url)
    assert anonymous.status_code == 302
    assert reverse("login") in anonymous["Location"]
    nominal = QuestionFactory(study=span_world.study, kind=LabelKind.NOMINAL, key="topic")
    other_args = [span_world.study.pk, span_world.round.pk, nominal.pk, span_world.item.pk]
    assert (
        site_client(viewer).get(reverse("pages:span-document", args=other_args)).status_code == 404
    )
    foreign = ItemFactory(external_id="elsewhere")  # another study's item
    args[-1] = foreign.pk
    assert site_client(viewer).get(reverse("pages:span-document", args=args)).status_code == 404
    items = reverse("pages:span-items", args=args[:3])
    assert site_client(outsider).get(items).status_code == 404


def test_the_item_list_and_the_round_report_link_to_the_document_view(
    span_world: SpanWorld, viewer: Any, site_client: Any
) -> None:
    client = site_client(viewer)
    world = span_world
    items_url = reverse(
        "pages:span-items", args=[world.study.pk, world.round.pk, world.question.pk]
    )
    report = client.get(
        reverse("pages:round-report", args=[world.study.pk, world.round.pk]),
        {"question": world.question.pk},
    ).content.decode()
    assert f'<p class="span-items-link"><a href="{items_url}">' in report
    html = client.get(items_url).content.decode()
    for item, n in ((world.item, 4), (world.other, 1)):
        link = reverse(
            "pages:span-document", args=[world.study.pk, world.round.pk, world.question.pk, item.pk]
        )
        assert (
            f'<tr data-item="{item.external_id}"><th scope="row"><a href="{link}">'
            f'{item.external_id}</a></th><td class="num">{n}</td></tr>'
        ) in html
    document = _page(client, world)
    other = reverse(
        "pages:span-document",
        args=[world.study.pk, world.round.pk, world.question.pk, world.other.pk],
    )
    assert f'<a rel="next" href="{other}">next item →</a>' in document
    assert '<span class="muted">first item</span>' in document
