"""The study list, study page, round report and coder page show the stored numbers."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from pages.selectors import reliability_label
from pages.templatetags.pages_extras import interval, num
from studies.models import Round
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory
from tests.pages.conftest import PagesWorld, compute

pytestmark = pytest.mark.django_db


def _text(response: Any) -> str:
    return response.content.decode()


def _alpha(world: PagesWorld, index: int) -> dict[str, Any]:
    return world.computations[index].results["coefficients"]["alpha"]


def test_study_list_shows_the_latest_alpha_its_interval_label_and_trend(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    response = site_client(viewer).get(reverse("pages:study-list"))
    assert response.status_code == 200
    html = _text(response)
    latest, previous = _alpha(pages_world, 1), _alpha(pages_world, 0)
    row = re.search(r'<tr class="study-row".*?</tr>', html, re.S).group(0)
    assert f"{latest['value']:.3f}" in row
    assert interval(latest["ci"]) in row
    assert f">{reliability_label(latest['value'], 'alpha')}<" in row
    direction = "up" if latest["value"] > previous["value"] else "down"
    assert f"trend-{direction}" in row
    assert '<td class="num rounds" rowspan="1">2 / 0</td>' in row
    assert '<td class="num coders" rowspan="1">3</td>' in row
    assert '<td class="num items" rowspan="1">40</td>' in row


def test_study_list_lists_only_the_users_studies(
    pages_world: PagesWorld, outsider: Any, site_client: Any
) -> None:
    html = _text(site_client(outsider).get(reverse("pages:study-list")))
    assert "Study B" in html
    assert pages_world.study.name not in html


def test_study_page_charts_every_coefficient_over_both_rounds(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    response = site_client(viewer).get(reverse("pages:study-detail", args=[pages_world.study.pk]))
    html = _text(response)
    coefficients = pages_world.computations[1].results["coefficients"]
    for name in coefficients:
        assert f'data-coefficient="{name}" data-rounds="2" data-series="1"' in html
    chart = re.search(r'<svg[^>]*id="history-alpha".*?</svg>', html, re.S).group(0)
    assert "<title" in chart
    assert "<desc" in chart
    assert chart.count('class="round-tick"') == 2
    assert 'data-value="0.667"' in chart
    assert 'data-value="0.8"' in chart
    values = [
        float(v) for v in re.findall(r'<circle class="point"[^>]*data-value="([^"]+)"', chart)
    ]
    assert values == pytest.approx(
        [_alpha(pages_world, 0)["value"], _alpha(pages_world, 1)["value"]]
    )
    table = re.search(
        r'<table class="chart-table history-table" data-coefficient="alpha">.*?</table>', html, re.S
    ).group(0)
    for index in (0, 1):
        alpha = _alpha(pages_world, index)
        low, high = num(alpha["ci"]["low"]), num(alpha["ci"]["high"])
        assert f"{num(alpha['value'])} <small>[{low}, {high}]</small>" in table


def test_a_viewer_sees_no_request_button_and_an_annotator_does(
    pages_world: PagesWorld, viewer: Any, annotator: Any, site_client: Any
) -> None:
    url = reverse("pages:study-detail", args=[pages_world.study.pk])
    assert 'id="request-computation"' not in _text(site_client(viewer).get(url))
    html = _text(site_client(annotator).get(url))
    assert 'id="request-computation"' in html
    assert "csrfmiddlewaretoken" in html


def test_round_report_shows_the_stored_coefficients_with_observed_and_expected(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    round_ = pages_world.rounds[1]
    url = reverse("pages:round-report", args=[pages_world.study.pk, round_.pk])
    html = _text(site_client(viewer).get(url, {"question": pages_world.question.pk}))
    results = pages_world.computations[1].results
    for name, entry in results["coefficients"].items():
        row = re.search(rf'<tr data-coefficient="{name}">.*?</tr>', html, re.S).group(0)
        assert f'<td class="num value">{num(entry["value"])}</td>' in row
        assert f"{num(entry['observed'])} <small>" in row
        if name == "observed_agreement":  # no expected term
            assert '<td class="num expected">—</td>' in row
        else:
            assert f"{num(entry['expected'])} <small>" in row
        assert interval(entry.get("ci")) in row
    assert f'<dd class="n-items">{results["n_items"]}</dd>' in html
    assert "Prevalence index" in html
    assert "Bias index" in html
    assert 'id="coder-heatmap"' in html
    assert 'id="coincidence-heatmap"' in html
    for category in results["diagnostics"]["per_category"]["categories"]:
        assert f'<tr data-category="{category}">' in html
    disputed = results["diagnostics"]["most_disputed_items"][0]["item"]
    assert f'<tr data-item="{disputed}">' in html
    assert 'class="num difference"' in html


def test_round_report_puts_di_eugenio_glass_indices_beside_the_stored_kappa(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Two coders, two categories: κ_Co in the table equals the computation's kappa, and the
    prevalence and bias indices are Byrt et al.'s from the 2 × 2 table."""
    question = nominal_question(study, codes=("yes", "no"), key="binary")
    round_ = RoundFactory(study=study, name="only", position=1)
    table = [["yes"] * 6 + ["no"] * 4, ["yes"] * 4 + ["no"] * 6]
    label_round(round_, question, table)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    html = _text(site_client(viewer).get(url, {"question": question.pk}))
    row = re.search(r'<tr data-pair="[^"]+">.*?</tr>', html, re.S).group(0)
    kappa = computation.results["coefficients"]["kappa"]["value"]
    assert f'<td class="num kappa-cohen">{num(kappa)}</td>' in row
    # 4 yes-yes, 2 yes-no, 0 no-yes, 4 no-no of 10: PI = (4 - 4)/10, BI = (2 - 0)/10.
    assert f'<td class="num prevalence-index">{num(0.0)}</td>' in row
    assert f'<td class="num bias-index">{num(0.2)}</td>' in row


def test_round_report_with_three_coders_shows_every_pair_and_the_annotator_bias(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    round_ = pages_world.rounds[0]
    url = reverse("pages:round-report", args=[pages_world.study.pk, round_.pk])
    html = _text(site_client(viewer).get(url))
    assert html.count("<tr data-pair=") == 3
    assert 'class="annotator-bias"' in html


def test_round_report_without_a_computation_says_so(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    empty = Round.objects.create(study=pages_world.study, name="R3", position=3)
    url = reverse("pages:round-report", args=[pages_world.study.pk, empty.pk])
    assert "No finished computation" in _text(site_client(viewer).get(url))


def test_coder_page_shows_their_agreement_per_round_and_label_distribution(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    coder = pages_world.coders[0]
    url = reverse("pages:coder-detail", args=[pages_world.study.pk, coder.pk])
    html = _text(site_client(viewer).get(url))
    for computation in pages_world.computations:
        value = computation.results["diagnostics"]["per_coder"][coder.key]
        assert f'<td class="num own">{num(value)}</td>' in html
    table = pages_world.computations[1].results["diagnostics"]["coder_distributions"]
    index = [str(c) for c in table["coders"]].index(str(coder.pk))
    share = table["proportions"][index][0]
    assert f'<td class="num share">{100 * share:.1f} %</td>' in html


def test_coder_page_charts_every_coders_agreement_across_rounds(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    coder = pages_world.coders[0]
    url = reverse("pages:coder-detail", args=[pages_world.study.pk, coder.pk])
    html = _text(site_client(viewer).get(url))
    chart = re.search(r'<svg[^>]*id="coder-q\d+".*?</svg>', html, re.S).group(0)
    assert 'data-rounds="2"' in chart
    assert chart.count('<g class="series"') == len(pages_world.coders)
    own = re.search(rf'<g class="series" data-question="{coder.key}">.*?</g>', chart, re.S).group(0)
    values = [float(v) for v in re.findall(r'data-value="([^"]+)"', own)]
    expected = [c.results["diagnostics"]["per_coder"][coder.key] for c in pages_world.computations]
    assert values == pytest.approx(expected)


def test_pages_of_an_empty_study_render(study: Any, manager: Any, site_client: Any) -> None:
    client = site_client(manager)
    assert "No questions yet." in _text(client.get(reverse("pages:study-list")))
    html = _text(client.get(reverse("pages:study-detail", args=[study.pk])))
    assert "No computation has finished yet" in html
    assert "The study needs a question and a round first." in html
