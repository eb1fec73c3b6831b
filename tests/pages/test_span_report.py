"""The round report of a span question reads the stored span results: coefficients with their
intervals, alpha_u per category, the most disputed documents linked to the document view, the
comparison with the previous round, and alpha_u and span F1 across rounds.

The results are stored literals in the shape ``computations.services`` stores for a span
question (nothing is computed on the page, so none is needed here).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import scope_data_revision
from studies.models import Annotation, Item, LabelKind, Question, Round, Study
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

pytestmark = pytest.mark.django_db


def _ci(low: float, high: float) -> dict[str, Any]:
    return {"low": low, "high": high, "confidence": 0.95, "method": "bca", "replicates": 1000}


def _results(alpha_u: float, f1: float, item: Item, **extra: Any) -> dict[str, Any]:
    return {
        "level": "span",
        "kind": "span",
        "unit": "character",
        "n_documents": 1,
        "n_items": 1,
        "n_coders": 2,
        "n_units": 9,
        "n_annotations": 2,
        "coefficients": {
            "alpha_u": {
                "value": alpha_u,
                "observed": 0.0064,
                "expected": 0.0454,
                "ci": _ci(0.61, 0.97),
                # Krippendorff (2004) p. 254 per category (docs/references.md#server-span-tv60).
                "categories": {
                    "c": {"value": 0.7286, "observed": 0.0144, "expected": 0.0532},
                    "k": {"value": 1.0, "observed": 0.0, "expected": 0.049},
                },
            },
            "span_f1": {"value": f1, "categories": {}, "ci": _ci(0.2, 0.9)},
            "span_f1_overlap": {"value": 0.8889, "categories": {}},
            "token_alpha": {"value": 0.81, "observed": 0.05, "expected": 0.26},
            "pk": {"value": 0.12, "pairs": []},
            "window_diff": {"value": None, "reason": "documents shorter than two windows"},
        },
        "skipped": {"window_diff": "documents shorter than two windows"},
        "documents": [
            {
                "document": item.pk,
                "item": item.pk,
                "external_id": item.external_id,
                "n_units": 9,
                "coders": 2,
                # The one document holds all of α_U's D_o.
                "observed_disagreement": 0.0064,
                "f1_overlap": 0.8889,
            }
        ],
        "bootstrap": {"replicates": 1000, "seed": 0, "confidence": 0.95, "chunks": 0},
        **extra,
    }


def _store(study: Study, question: Question, round_: Round, results: dict[str, Any]) -> Computation:
    computation = Computation.objects.create(
        study=study,
        question=question,
        scope=ComputationScope.ROUND,
        parameters={"coefficients": ["alpha_u"], "bootstrap": 1000, "seed": 0},
        params_hash=f"hash-{round_.pk}",
        data_revision=scope_data_revision(question=question, round_ids=[round_.pk]),
        status=ComputationStatus.DONE,
        progress=1.0,
        finished_at=timezone.now(),
        results=results,
    )
    computation.rounds.set([round_])
    return computation


@pytest.fixture
def span_rounds(study: Study) -> tuple[Question, list[Round], Item]:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key="entities")
    c = CategoryFactory(question=question, code="c").pk
    rounds = [RoundFactory(study=study, name=f"R{n}", position=n) for n in (1, 2)]
    item = ItemFactory(study=study, external_id="krippendorff-2004")
    coders = [CoderFactory(study=study, key=k) for k in ("r0", "r1")]
    for round_ in rounds:
        for coder in coders:
            Annotation.objects.create(
                round=round_, question=question, item=item, coder=coder, units=[[225, 295, c]]
            )
    _store(study, question, rounds[0], _results(0.70, 0.50, item))
    comparison = {
        "status": "done",
        "kind": "span",
        "coefficient": "alpha_u",
        "difference_is": "later round minus earlier round",
        "later": {"round": rounds[1].pk, "round_name": "R2"},
        "earlier": {"round": rounds[0].pk, "round_name": "R1", "computation": None},
        "paired": True,
        "n_shared_items": 1,
        "method": "bootstrap",
        "difference": {"estimate": 0.1591, "ci": _ci(-0.05, 0.3)},
        "coefficients": {
            "alpha_u": {
                "later_value": 0.8591,
                "earlier_value": 0.70,
                "method": "bootstrap",
                "difference": {"estimate": 0.1591, "ci": _ci(-0.05, 0.3)},
            },
            "span_f1": {
                "later_value": 0.6667,
                "earlier_value": 0.50,
                "method": "point estimates only",
                "reason": "no bootstrap interval: fewer than two documents",
                "difference": {"estimate": 0.1667},
            },
        },
        "earlier_data_revision": scope_data_revision(question=question, round_ids=[rounds[0].pk]),
    }
    _store(
        study,
        question,
        rounds[1],
        _results(0.8591, 0.6667, item, comparison_with_previous=comparison),
    )
    return question, rounds, item


def _report(client: Any, study: Study, round_: Round, question: Question) -> str:
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    response = client.get(url, {"question": question.pk})
    assert response.status_code == 200
    return response.content.decode()


def _row(html: str, pattern: str) -> str:
    found = re.search(pattern, html, re.S)
    assert found is not None, pattern
    return found.group(0)


def test_the_span_report_lists_each_coefficient_with_its_interval_and_reading(
    study: Study, span_rounds: Any, viewer: Any, site_client: Any
) -> None:
    question, rounds, _ = span_rounds
    html = _report(site_client(viewer), study, rounds[1], question)
    alpha = _row(html, r'<tr data-coefficient="alpha_u">.*?</tr>')
    assert "Unitizing alpha (αᵤ)" in alpha
    assert '<td class="num value">0.859</td>' in alpha
    # Small disagreements with the digits they need, not 0.006 and 0.045.
    assert '<td class="num observed">0.00640 <small>D<sub>o</sub></small></td>' in alpha
    assert '<td class="num expected">0.0454 <small>D<sub>e</sub></small></td>' in alpha
    assert "[0.610, 0.970] <small>95 % bca</small>" in alpha
    # α_U weighs units by their positions (a distance): no benchmark scale by default.
    assert (
        '<td class="reliability"><span class="reading" data-scale="none"><small '
        'class="no-scale">no benchmark scale: weighted by a distance, and the scales were '
        "proposed for unweighted coefficients (choose one to read it on)</small></span></td>"
    ) in alpha
    f1 = _row(html, r'<tr data-coefficient="span_f1">.*?</tr>')
    assert '<td class="num value">0.667</td>' in f1
    assert '<td class="num expected">—</td>' in f1
    assert "share of matched units" in f1
    assert "error rate: lower is better" in _row(html, r'<tr data-coefficient="pk">.*?</tr>')
    window = _row(html, r'<tr data-coefficient="window_diff">.*?</tr>')
    assert '<td class="num value">—</td>' in window
    assert "documents shorter than two windows" in window
    assert 'data-coefficient="gamma"' not in html  # not computed, not shown
    assert '<dd class="n-documents">1</dd>' in html
    assert '<dd class="n-units">9</dd>' in html


def test_the_span_report_shows_alpha_u_per_category_and_links_disputed_documents(
    study: Study, span_rounds: Any, viewer: Any, site_client: Any
) -> None:
    question, rounds, item = span_rounds
    html = _report(site_client(viewer), study, rounds[1], question)
    assert (
        '<tr data-category="c"><th scope="row">c</th><td class="num value">0.729</td>'
        '<td class="num observed">0.0144</td><td class="num expected">0.0532</td></tr>'
    ) in html
    assert (
        '<tr data-category="k"><th scope="row">k</th><td class="num value">1.000</td>'
        '<td class="num observed">0.000</td><td class="num expected">0.0490</td></tr>'
    ) in html
    link = reverse("pages:span-document", args=[study.pk, rounds[1].pk, question.pk, item.pk])
    assert (
        f'<tr data-item="krippendorff-2004"><th scope="row"><a href="{link}">krippendorff-2004'
    ) in html
    assert (
        "each document's share of D<sub>o</sub> (the shares of all documents add up to 100 %)"
        in html
    )
    items = reverse("pages:span-items", args=[study.pk, rounds[1].pk, question.pk])
    assert f'<a href="{items}">' in html


def test_the_span_report_compares_with_the_previous_round_marking_point_estimates(
    study: Study, span_rounds: Any, viewer: Any, site_client: Any
) -> None:
    question, rounds, _ = span_rounds
    html = _report(site_client(viewer), study, rounds[1], question)
    table = _row(html, r'<table class="span-comparison">.*?</table>')
    assert "R2 − R1 (later round minus earlier round), paired on 1 shared documents" in table
    alpha = _row(table, r'<tr data-coefficient="alpha_u">.*?</tr>')
    assert '<td class="num">0.700</td><td class="num">0.859</td>' in alpha
    assert '<td class="num difference">+0.159</td>' in alpha
    assert "[-0.050, 0.300] <small>95 % bca, 1000 replicates</small>" in alpha
    f1 = _row(table, r'<tr data-coefficient="span_f1">.*?</tr>')
    assert '<td class="num difference">+0.167</td>' in f1
    assert "none: point estimates only" in f1
    assert "fewer than two documents" in f1
    first = _report(site_client(viewer), study, rounds[0], question)
    assert "No comparison: this computation was made before comparisons" in first


def test_the_span_report_charts_alpha_u_and_f1_across_rounds(
    study: Study, span_rounds: Any, viewer: Any, site_client: Any
) -> None:
    question, rounds, _ = span_rounds
    html = _report(site_client(viewer), study, rounds[0], question)
    alpha = _row(html, r'<svg[^>]*id="span-history-alpha_u".*?</svg>')
    values = re.findall(r'<circle class="point"[^>]*data-value="([^"]+)"', alpha)
    assert [float(v) for v in values] == [0.70, 0.8591]
    # No reference lines: α_U is read on no scale (Krippendorff's lines would be one).
    assert "reference-line" not in alpha
    f1 = _row(html, r'<svg[^>]*id="span-history-span_f1".*?</svg>')
    assert [float(v) for v in re.findall(r'data-value="([0-9.]+)"><title', f1)] == [0.5, 0.6667]
    assert "reference-line" not in f1
    table = _row(
        html, r'<table class="chart-table history-table" data-coefficient="alpha_u">.*?</table>'
    )
    assert '<td class="num" data-round="R2">0.859 <small>[0.610, 0.970]</small></td>' in table


def test_the_span_report_without_a_computation_still_links_the_items(
    study: Study, viewer: Any, outsider: Any, site_client: Any
) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key="empty-spans")
    round_ = RoundFactory(study=study, name="R1", position=1)
    html = _report(site_client(viewer), study, round_, question)
    assert "No finished computation for this question in this round yet." in html
    assert "No computation of this question has finished yet." in html
    assert reverse("pages:span-items", args=[study.pk, round_.pk, question.pk]) in html
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    assert site_client(outsider).get(url, {"question": question.pk}).status_code == 404


def test_the_study_and_coder_pages_show_span_questions_by_their_alpha_u(
    study: Study, span_rounds: Any, viewer: Any, site_client: Any
) -> None:
    question, _, _ = span_rounds
    client = site_client(viewer)
    html = client.get(reverse("pages:study-detail", args=[study.pk])).content.decode()
    headline = _row(html, r'<article class="question-panel" data-question="entities".*?</article>')
    assert '<span class="coefficient">Unitizing alpha (αᵤ)</span>' in headline
    assert '<strong class="num value">0.859</strong>' in headline
    history = client.get(reverse("pages:study-history", args=[study.pk])).content.decode()
    assert 'id="history-alpha_u"' in history
    assert 'id="history-span_f1"' in history
    coder = question.study.coders.get(key="r0")
    page = client.get(reverse("pages:coder-detail", args=[study.pk, coder.pk]))
    assert page.status_code == 200


def test_a_computed_span_round_reads_as_krippendorffs_example(
    study: Study, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """Krippendorff (2004) p. 254 computed by the worker and read on the report
    (docs/references.md#server-span-tv60); R2 repeats it with one unit fewer for r1."""
    from computations.services import computation_request

    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key="units")
    ids = {code: CategoryFactory(question=question, code=code).pk for code in ("c", "k")}
    coders = [CoderFactory(study=study, key=f"r{n}") for n in range(2)]
    item = ItemFactory(study=study, external_id="k2004", text="", extent_begin=150, extent_end=450)
    units = [
        [[180, 240, ids["k"]], [225, 295, ids["c"]], [300, 350, ids["k"]], [370, 400, ids["c"]]],
        [[180, 240, ids["k"]], [220, 300, ids["c"]], [300, 350, ids["k"]],
         [355, 375, ids["c"]], [400, 420, ids["c"]]],
    ]  # fmt: skip
    rounds = [RoundFactory(study=study, name=f"R{n}", position=n) for n in (1, 2)]
    for round_ in rounds:
        for coder, own in zip(coders, units, strict=True):
            if round_.name == "R2" and coder.key == "r1":
                own = [u for u in own if u[:2] != [300, 350]]
            Annotation.objects.create(
                round=round_, question=question, item=item, coder=coder, units=own
            )
        with django_capture_on_commit_callbacks(execute=True):
            computation_request(
                study=study, question=question, rounds=[round_], parameters={"bootstrap": 0}
            )
    first = _report(site_client(viewer), study, rounds[0], question)
    assert '<td class="num value">0.859</td>' in _row(
        first, r'<tr data-coefficient="alpha_u">.*?</tr>'
    )
    assert '<tr data-category="c"><th scope="row">c</th><td class="num value">0.729</td>' in first
    second = _report(site_client(viewer), study, rounds[1], question)
    table = _row(second, r'<table class="span-comparison">.*?</table>')
    alpha = _row(table, r'<tr data-coefficient="alpha_u">.*?</tr>')
    assert '<td class="num">0.859</td>' in alpha  # R1's stored value
    assert "none: point estimates only" in alpha
    assert "the rounds share 1 document" in alpha


def test_the_span_reports_charts_list_their_legend_under_them(
    study: Study, span_rounds: Any, viewer: Any, site_client: Any
) -> None:
    """The history page's HTML legend under each chart (the question's line: Okabe–Ito
    blue, solid), never drawn inside the chart, where it overlapped with many rounds."""
    question, rounds, _ = span_rounds
    html = _report(site_client(viewer), study, rounds[0], question)
    for coefficient in ("alpha_u", "span_f1"):
        box = _row(
            html, rf'<div class="chart-box"><svg[^>]*id="span-history-{coefficient}".*?</div>'
        )
        chart, legend = box.removesuffix("</div>").split("</svg>", 1)
        assert 'class="legend"' not in chart
        assert legend.strip() == (
            '<ul class="history-legend" aria-label="Lines">\n'
            '<li data-series="entities"><svg class="legend-swatch" viewBox="0 0 28 10" '
            'width="28" height="10" aria-hidden="true"><line x1="1" x2="27" y1="5" y2="5" '
            'stroke="#0072B2" stroke-width="2.5" stroke-dasharray=""/></svg> entities</li>\n'
            "</ul>"
        )
