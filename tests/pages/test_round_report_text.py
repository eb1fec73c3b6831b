"""The round report's sentences and cells read as a person would write them: no empty
coefficient name, no reliability band or expected term where a coefficient has none."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from computations.services import computation_request
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory
from tests.pages.conftest import LabelsWorld, compute

pytestmark = pytest.mark.django_db


def _report(client: Any, study: Any, round_: Any, question: Any) -> str:
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    response = client.get(url, {"question": question.pk})
    assert response.status_code == 200
    return str(response.content.decode())


def _caption(html: str, table_class: str) -> str:
    table = re.search(rf'<table class="{table_class}">.*?</table>', html, re.S)
    assert table is not None, table_class
    caption = re.search(r"<caption>(.*?)</caption>", table.group(0), re.S)
    assert caption is not None
    return caption.group(1)


def test_a_hierarchy_report_without_kappa_does_not_name_an_empty_kappa(
    labels_world: LabelsWorld, viewer: Any, site_client: Any
) -> None:
    world = labels_world
    html = _report(site_client(viewer), world.study, world.round, world.tree)
    caption = _caption(html, "kappa-comparison")
    assert "The report's kappa above is ." not in html
    assert "The report's kappa" not in caption
    assert caption.endswith("and the maximum kappa. † fewer than 10 items: too few to read.")


def test_a_report_with_kappa_names_its_value_beside_the_pairwise_table(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # 4 yes-yes, 2 yes-no, 4 no-no: A_o = 0.8, A_e = 0.6 * 0.4 + 0.4 * 0.6 = 0.48,
    # kappa = (0.8 - 0.48) / 0.52 = 0.615.
    question = nominal_question(study, codes=("yes", "no"), key="binary")
    round_ = RoundFactory(study=study, name="only", position=1)
    label_round(round_, question, [["yes"] * 6 + ["no"] * 4, ["yes"] * 4 + ["no"] * 6])
    compute(study, question, round_, django_capture_on_commit_callbacks)
    html = _report(site_client(viewer), study, round_, question)
    caption = _caption(html, "kappa-comparison")
    assert caption.endswith('The report\'s kappa above is <span class="num">0.615</span>.')


def _coefficient_row(html: str, key: str) -> str:
    row = re.search(rf'<tr data-coefficient="{key}">.*?</tr>', html, re.S)
    assert row is not None, key
    return re.sub(r"\s+", " ", row.group(0))


def test_observed_agreement_has_no_expected_term_and_no_reliability_band(
    labels_world: LabelsWorld, viewer: Any, site_client: Any
) -> None:
    world = labels_world
    html = _report(site_client(viewer), world.study, world.round, world.topics)
    row = _coefficient_row(html, "observed_agreement")
    # Of each item's 3 pairs of coders, 3 agree on item 2 and 1 on the 5 others: 8/18.
    assert '<td class="num value">0.444</td>' in row
    assert '<td class="num observed">0.444 <small>A<sub>o</sub></small></td>' in row
    assert '<td class="num expected">—</td>' in row
    assert (
        '<td class="reliability"><span class="reading" data-scale="none"><small '
        'class="no-scale">no benchmark scale: not chance-corrected</small></span></td>'
    ) in row
    assert "0.000 <small>A<sub>e</sub>" not in row
    for band in ("discard", "tentative", "good"):
        assert band not in row
    # The set question's alpha weighs labels by the MASI distance: no scale by default.
    alpha = _coefficient_row(html, "alpha")
    assert (
        '<td class="reliability"><span class="reading" data-scale="none"><small '
        'class="no-scale">no benchmark scale: weighted by the masi distance, and the scales '
        "were proposed for unweighted coefficients (choose one to read it on)</small></span>"
        "</td>"
    ) in alpha


def test_the_headline_and_chart_of_observed_agreement_carry_no_band(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Only observed agreement requested: 9 of 10 items agreed, 0.900, which would be "good"
    on Krippendorff's scale if it were a reliability coefficient."""
    question = nominal_question(study, codes=("yes", "no"), key="binary")
    round_ = RoundFactory(study=study, name="only", position=1)
    label_round(round_, question, [["yes"] * 5 + ["no"] * 5, ["yes"] * 6 + ["no"] * 4])
    with django_capture_on_commit_callbacks(execute=True):
        computation_request(
            study=study, question=question, rounds=[round_],
            parameters={"coefficients": ["observed_agreement"], "bootstrap": 0},
        )  # fmt: skip
    client = site_client(viewer)
    listing = client.get(reverse("pages:study-list")).content.decode()
    found = re.search(r'<tr class="study-row".*?</tr>', listing, re.S)
    assert found is not None
    row = found.group(0)
    assert '<td class="num value">0.900 <small>observed_agreement, only</small></td>' in row
    assert (
        '<td class="label"><span class="reading" data-scale="none"><small class="no-scale">'
        "no benchmark scale: not chance-corrected</small></span></td>"
    ) in row
    history = client.get(reverse("pages:study-history", args=[study.pk])).content.decode()
    chart = re.search(r'<svg[^>]*id="history-observed_agreement".*?</svg>', history, re.S)
    assert chart is not None
    assert 'class="reference-line"' not in chart.group(0)
    assert "0.667" not in chart.group(0)
    page = client.get(reverse("pages:study-detail", args=[study.pk])).content.decode()
    headline = re.search(r'<article class="question-panel" data-question="binary".*?</article>',
                         page, re.S)  # fmt: skip
    assert headline is not None
    assert "good" not in headline.group(0)
    assert "no benchmark scale: not chance-corrected" in headline.group(0)


def test_a_set_questions_agreement_per_category_is_by_category_not_combination(
    labels_world: LabelsWorld, viewer: Any, site_client: Any
) -> None:
    """Per category of the sets, multi-kappa of "contains it" against "does not": economy's
    membership (1,0,1,0,0,1 / 1,0,1,0,0,1 / 1,0,0,0,1,0) gives A_o 0.667, A_e 0.500, kappa
    0.333; politics 0.778, 0.537, 0.520; sport 0.778, 0.481, 0.571 (metrics.conger_kappa
    on the same 0/1 matrices)."""
    world = labels_world
    html = _report(site_client(viewer), world.study, world.round, world.topics)
    table = re.search(r'<table class="per-category">.*?</table>', html, re.S)
    assert table is not None
    rows = re.findall(r'<tr data-category="([^"]+)">(.*?)</tr>', table.group(0))
    assert [category for category, _ in rows] == ["economy", "politics", "sport"]
    assert [re.findall(r'<td class="num[^"]*">([^<]*)</td>', cells) for _, cells in rows] == [
        ["0.333", "0.667", "0.500"],
        ["0.520", "0.778", "0.537"],
        ["0.571", "0.778", "0.481"],
    ]
    assert "economy, politics" not in table.group(0)
    assert "whether the coders' sets contain it or not, as two values" in table.group(0)
