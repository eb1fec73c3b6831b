"""The study list, study page, round report and coder page show the stored numbers.

Expected page text is literal. The k2011 world's round R2 is Krippendorff's (2011) data, so
its point values are published (docs/references.md#k2011-reliability-data and
docs/references.md#irrcac-raw-4raters); its intervals and round R1's values were recorded
from the fixed labels and bootstrap seed of ``tests/pages/k2011_world.py``.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from studies.models import Question, Round, Study
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory
from tests.pages.conftest import PagesWorld
from tests.pages.k2011_world import compute, k2011_world

pytestmark = pytest.mark.django_db


def _text(response: Any) -> str:
    return response.content.decode()


#: Round R2's coefficients on the round report: value, observed term, expected term (None:
#: none), interval. Values and terms are published (k2011-reliability-data: alpha, D_o, D_e;
#: irrcac-raw-4raters: p_a and p_e of fleiss = pi, conger = kappa, gwet = AC1, bp; Bennett's
#: S with 5 categories is Brennan-Prediger; Light's kappa 0.712 is in k2011-reliability-data)
#: except Light's observed term 0.778 (mean pairwise agreement) and the bootstrap intervals,
#: recorded from the fixed data and seed.
ROUND_TWO = {
    "observed_agreement": ("0.818", "0.818", None, "[0.522, 0.958]"),
    "s": ("0.773", "0.818", "0.200", "[0.402, 0.948]"),
    "pi": ("0.761", "0.818", "0.239", "[0.347, 1.000]"),
    "kappa": ("0.763", "0.818", "0.233", "[0.421, 1.000]"),
    "alpha": ("0.743", "0.200", "0.779", "[0.381, 1.000]"),
    "light_kappa": ("0.712", "0.778", "0.233", "[0.330, 1.000]"),
    "ac1": ("0.775", "0.818", "0.190", "[0.391, 0.947]"),
    "brennan_prediger": ("0.773", "0.818", "0.200", "[0.402, 0.948]"),
}


@pytest.fixture
def k2011(study: Study, django_capture_on_commit_callbacks: Any) -> PagesWorld:
    return k2011_world(study, django_capture_on_commit_callbacks)


def test_study_list_shows_the_latest_alpha_its_interval_label_and_trend(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    response = site_client(viewer).get(reverse("pages:study-list"))
    assert response.status_code == 200
    html = _text(response)
    row = re.search(r'<tr class="study-row".*?</tr>', html, re.S).group(0)
    assert '<td class="num value">0.743 <small>alpha, R2</small></td>' in row
    assert '<td class="num interval">[0.381, 1.000]</td>' in row
    # 0.667 <= 0.743 < 0.8 on Krippendorff's scale, the one that reads nominal alpha.
    assert (
        '<td class="label"><span class="reading" data-scale="krippendorff"><strong '
        'class="band">tentative</strong> <small>on Krippendorff\'s scale</small><br><small '
        'class="benchmark">no band above discard reaches probability 0.95; most probable '
        "band: discard (0.35)</small></span></td>"
    ) in row
    assert '<span aria-hidden="true" class="trend-up">' in row
    assert "<small>(from 0.482)</small>" in row  # R1's alpha
    assert '<td class="num rounds" rowspan="1">2 / 0</td>' in row
    assert '<td class="num coders" rowspan="1">4</td>' in row
    assert '<td class="num items" rowspan="1">12</td>' in row


def test_study_list_lists_only_the_users_studies(
    pages_world: PagesWorld, outsider: Any, site_client: Any
) -> None:
    html = _text(site_client(outsider).get(reverse("pages:study-list")))
    assert "Study B" in html
    assert pages_world.study.name not in html


def test_history_page_charts_every_coefficient_over_both_rounds(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    response = site_client(viewer).get(reverse("pages:study-history", args=[k2011.study.pk]))
    html = _text(response)
    for name in ROUND_TWO:
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
    assert values == pytest.approx([0.481658692185, 0.743421052632], abs=1e-9)
    table = re.search(
        r'<table class="chart-table history-table" data-coefficient="alpha">.*?</table>', html, re.S
    ).group(0)
    assert '<td class="num" data-question="value" data-round="R1">0.482 <small>' in table
    assert "0.482 <small>[0.160, 0.832]</small>" in table
    assert "0.743 <small>[0.381, 1.000]</small>" in table


def test_a_viewer_sees_no_request_button_and_an_annotator_does(
    pages_world: PagesWorld, viewer: Any, annotator: Any, site_client: Any
) -> None:
    url = reverse("pages:study-detail", args=[pages_world.study.pk])
    assert 'id="request-computation"' not in _text(site_client(viewer).get(url))
    html = _text(site_client(annotator).get(url))
    assert 'id="request-computation"' in html
    assert "csrfmiddlewaretoken" in html


def test_round_report_shows_the_stored_coefficients_with_observed_and_expected(
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    round_ = k2011.rounds[1]
    url = reverse("pages:round-report", args=[k2011.study.pk, round_.pk])
    html = _text(site_client(viewer).get(url, {"question": k2011.question.pk}))
    results = k2011.computations[1].results
    assert html.count("<tr data-coefficient=") == len(ROUND_TWO)
    for name, (value, observed, expected, ci) in ROUND_TWO.items():
        row = re.search(rf'<tr data-coefficient="{name}">.*?</tr>', html, re.S).group(0)
        assert f'<td class="num value">{value}</td>' in row
        assert f'<td class="num observed">{observed} <small>' in row
        if expected is None:  # observed agreement has no expected term
            assert '<td class="num expected">—</td>' in row
        else:
            assert f'<td class="num expected">{expected} <small>' in row
        assert f'<td class="num ci">{ci} <small>95 % bca</small></td>' in row
    assert '<dd class="n-items">12</dd>' in html
    assert "Prevalence index" in html
    assert "Bias index" in html
    assert 'id="coder-heatmap"' in html
    assert 'id="coincidence-heatmap"' in html
    for category in ("1", "2", "3", "4", "5"):
        assert f'<tr data-category="{category}">' in html
    disputed = results["diagnostics"]["most_disputed_items"][0]["item"]
    assert f'<tr data-item="{disputed}">' in html
    assert 'class="num difference"' in html


def test_round_report_puts_di_eugenio_glass_indices_beside_the_stored_kappa(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Two coders, two categories: κ_Co in the table is Cohen's kappa of the 2 × 2 table, and
    the prevalence and bias indices are Byrt et al.'s from it."""
    question = nominal_question(study, codes=("yes", "no"), key="binary")
    round_ = RoundFactory(study=study, name="only", position=1)
    table = [["yes"] * 6 + ["no"] * 4, ["yes"] * 4 + ["no"] * 6]
    label_round(round_, question, table)
    compute(study, question, round_, django_capture_on_commit_callbacks)
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    html = _text(site_client(viewer).get(url, {"question": question.pk}))
    row = re.search(r'<tr data-pair="[^"]+">.*?</tr>', html, re.S).group(0)
    # 4 yes-yes, 2 yes-no, 0 no-yes, 4 no-no of 10: p_o = 0.8, p_e = 0.6 * 0.4 + 0.4 * 0.6
    # = 0.48, kappa = 0.32 / 0.52 = 0.6154; PI = (4 - 4)/10, BI = (2 - 0)/10.
    assert '<td class="num kappa-cohen">0.615</td>' in row
    assert '<td class="num prevalence-index">0.000</td>' in row
    assert '<td class="num bias-index">0.200</td>' in row


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
    k2011: PagesWorld, viewer: Any, site_client: Any
) -> None:
    coder = k2011.coders[0]  # A
    url = reverse("pages:coder-detail", args=[k2011.study.pk, coder.pk])
    html = _text(site_client(viewer).get(url))
    # A's mean pairwise kappa with B, C and D in R1 and R2 (recorded from the fixed data).
    assert '<td class="num own">0.360</td>' in html
    assert '<td class="num own">0.739</td>' in html
    # A's nine R2 labels: 1, 2, 3, 3, 2, 1, 4, 1, 2, i.e. 3, 3, 2, 1, 0 of codes 1-5.
    shares = re.findall(r'<td class="num share">[^<]*</td>', html)
    assert shares == [f'<td class="num share">{text} %</td>' for text in
                      ("33.3", "33.3", "22.2", "11.1", "0.0")]  # fmt: skip


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
    assert "The study needs a question and a round first. Next: add them over the API" in html


def test_round_report_names_its_question_by_id_or_key(
    pages_world: PagesWorld, viewer: Any, site_client: Any
) -> None:
    question = Question.objects.get(study=pages_world.study)
    round_ = Round.objects.filter(study=pages_world.study).order_by("position").last()
    url = reverse("pages:round-report", args=[pages_world.study.pk, round_.pk])
    client = site_client(viewer)
    by_id = client.get(url, {"question": question.pk})
    by_key = client.get(url, {"question": question.key})
    assert by_id.status_code == by_key.status_code == 200
    csrf = re.compile(r'name="csrfmiddlewaretoken" value="[^"]*"')
    assert csrf.sub("", _text(by_key)) == csrf.sub("", _text(by_id))
    assert client.get(url, {"question": "no-such-question"}).status_code == 404
    assert client.get(url, {"question": "9" * 30}).status_code == 404
