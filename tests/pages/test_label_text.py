"""Labels on the pages read as text: a set's codes joined by commas in the declared order, a
hierarchy node as its path; never a Python list."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from pages.label_text import LabelText
from studies.labels import CategoryRow, LabelScheme
from studies.models import LabelKind
from tests.pages.conftest import LabelsWorld

pytestmark = pytest.mark.django_db

PYTHON_LIST = "[&#x27;"  # how "['" looks once the template escapes it


def _html(client: Any, url: str, **query: Any) -> str:
    response = client.get(url, query)
    assert response.status_code == 200
    return str(response.content.decode())


def _section(html: str, question_key: str) -> str:
    section = re.search(rf'<section[^>]*data-question="{question_key}".*?</section>', html, re.S)
    assert section is not None, question_key
    return section.group(0)


def _row(html: str, table_class: str, category: str) -> str:
    table = re.search(rf'<table class="{table_class}">.*?</table>', html, re.S)
    assert table is not None, table_class
    row = re.search(rf'<tr data-category="{re.escape(category)}">.*?</tr>', table.group(0), re.S)
    assert row is not None, category
    return re.sub(r"\s+", " ", row.group(0))


@pytest.mark.parametrize(
    ("stored", "text"),
    [
        (["economy", "politics"], "politics, economy"),
        ("economy|politics", "politics, economy"),
        (["sport"], "sport"),
    ],
)
def test_a_set_reads_as_its_codes_in_declared_order(stored: Any, text: str) -> None:
    rows = [CategoryRow(1, "politics", None, 0), CategoryRow(2, "economy", None, 1),
            CategoryRow(3, "sport", None, 2)]  # fmt: skip
    labels = LabelText(LabelScheme(kind=LabelKind.SET, categories=rows))
    assert labels.stored(stored) == text
    assert labels.annotation((None, None, (2, 1))) == "politics, economy"


def test_a_hierarchy_node_reads_as_its_path() -> None:
    rows = [CategoryRow(1, "news", None, 0), CategoryRow(2, "economy", 1, 1),
            CategoryRow(3, "sport", None, 2)]  # fmt: skip
    labels = LabelText(LabelScheme(kind=LabelKind.HIERARCHY, categories=rows))
    assert labels.stored("economy") == "news/economy"
    assert labels.stored("sport") == "sport"
    assert labels.annotation((2, None, None)) == "news/economy"


def test_coder_page_writes_sets_and_nodes_as_text(
    labels_world: LabelsWorld, viewer: Any, site_client: Any
) -> None:
    world = labels_world
    url = reverse("pages:coder-detail", args=[world.study.pk, world.coders[0].pk])
    html = _html(site_client(viewer), url)
    assert PYTHON_LIST not in html
    assert "['" not in html
    # The first coder gave {economy, politics} once of 6 labels; all coders twice of 18.
    assert _row(_section(html, "topics"), "distribution", "economy, politics") == (
        '<tr data-category="economy, politics"><th scope="row">economy, politics</th>'
        '<td class="num">1</td><td class="num share">16.7 %</td>'
        '<td class="num pooled">11.1 %</td> <td class="bars" aria-hidden="true">'
        '<span class="bar own" style="width: 20px"></span>'
        '<span class="bar pooled" style="width: 13px"></span></td></tr>'
    )
    # economy under news: the first coder 2 of 6, all coders 6 of 18.
    assert (
        '<tr data-category="news/economy"><th scope="row">news/economy</th>'
        '<td class="num">2</td><td class="num share">33.3 %</td>'
        '<td class="num pooled">33.3 %</td>'
    ) in _row(_section(html, "tree"), "distribution", "news/economy")


def test_round_report_writes_sets_as_text(
    labels_world: LabelsWorld, viewer: Any, site_client: Any
) -> None:
    world = labels_world
    url = reverse("pages:round-report", args=[world.study.pk, world.round.pk])
    html = _html(site_client(viewer), url, question=world.topics.pk)
    assert PYTHON_LIST not in html
    # Agreement per category is by category (whether a set holds it), not by combination.
    row = _row(html, "per-category", "economy")
    assert '<th scope="row">economy</th>' in row
    disputed = re.search(r'<table class="disputed">.*?</table>', html, re.S)
    assert disputed is not None
    assert '<td class="label">economy, politics</td>' in disputed.group(0)
    assert "economy|politics" not in disputed.group(0)


def test_round_report_writes_nodes_as_their_paths(
    labels_world: LabelsWorld, viewer: Any, site_client: Any
) -> None:
    world = labels_world
    url = reverse("pages:round-report", args=[world.study.pk, world.round.pk])
    html = _html(site_client(viewer), url, question=world.tree.pk)
    assert '<th scope="row">news/economy</th>' in _row(html, "per-category", "news/economy")
    coincidence = re.search(r'<table class="matrix coincidence">.*?</table>', html, re.S)
    assert coincidence is not None
    assert '<th scope="col">news/politics</th>' in coincidence.group(0)
    assert '<th scope="row">news/politics</th>' in coincidence.group(0)
    disputed = re.search(r'<table class="disputed">.*?</table>', html, re.S)
    assert disputed is not None
    assert '<td class="label">news/economy</td>' in disputed.group(0)
