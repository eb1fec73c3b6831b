"""Numbers on the pages: a value that rounds to zero is written 0.000, never -0.000."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from computations.models import Computation, ComputationScope, ComputationStatus
from pages.templatetags.pages_extras import interval, num, percent, signed
from tests.computations.helpers import nominal_question
from tests.factories import RoundFactory

NEGATIVE_ZEROS = ("-0.000", "−0.000", "-0.0 %", "+-0.000", "-0.00<", "-0.0<")


def _shown(html: str) -> str:
    """The page without its charts' ``data-value`` attributes, which keep the stored number
    as it is (-0.0002) for scripts; everything a person reads stays."""
    return re.sub(r'data-value="[^"]*"', "", html)


@pytest.mark.parametrize(
    ("value", "text"),
    [(-0.0, "0.000"), (-0.0004, "0.000"), (-1e-17, "0.000"), (0.0, "0.000"),
     (-0.0006, "-0.001"), (0.25, "0.250"), (None, "—"), (float("nan"), "—")],
)  # fmt: skip
def test_num_writes_negative_zero_as_zero(value: float | None, text: str) -> None:
    assert num(value) == text


def test_signed_writes_zero_without_a_sign() -> None:
    assert signed(-0.0) == "0.000"
    assert signed(-0.0004) == "0.000"
    assert signed(0.0) == "0.000"
    assert signed(0.1234) == "+0.123"
    assert signed(-0.1236) == "-0.124"


def test_interval_and_percent_write_negative_zero_as_zero() -> None:
    assert interval({"low": -0.0002, "high": 0.5}) == "[0.000, 0.500]"
    assert percent(-0.00001) == "0.0 %"
    assert num(-0.04, 1) == "0.0"


STORED = {
    "n_items": 10,
    "n_coders": 2,
    "n_annotations": 20,
    "level": "nominal",
    "distance": "nominal",
    "coefficients": {
        "kappa": {
            "value": -0.0002, "observed": 0.5, "expected": 0.5001, "kind": "agreement",
            "ci": {"low": -0.0004, "high": 0.3, "confidence": 0.95, "method": "bca",
                   "replicates": 200},
            "se": -0.0,
        },
        "alpha": {"value": -0.0, "observed": 0.5, "expected": 0.5, "kind": "disagreement"},
    },
    "diagnostics": {
        "kappa_comparisons": [
            {"first": "ann", "second": "bob", "n_items": 10, "kappa_cohen": -0.0001,
             "kappa_siegel_castellan": -0.0, "pabak": 0.0, "prevalence_index": -1e-17,
             "bias_index": -0.0, "kappa_max": 1.0},
        ],
        "per_category": {"method": "one against the rest", "categories": ["yes", "no"],
                         "values": [-0.0, 0.2], "observed": [0.5, 0.5],
                         "expected": [0.5, 0.5]},
    },
}  # fmt: skip


@pytest.mark.django_db
def test_pages_show_no_negative_zero(study: Any, viewer: Any, site_client: Any) -> None:
    question = nominal_question(study, codes=("yes", "no"), key="binary")
    round_ = RoundFactory(study=study, name="only", position=1)
    computation = Computation.objects.create(
        study=study, question=question, scope=ComputationScope.ROUND, parameters={},
        params_hash="0" * 64, data_revision="", status=ComputationStatus.DONE,
        progress=1.0, finished_at=timezone.now(), results=STORED,
    )  # fmt: skip
    computation.rounds.set([round_])
    client = site_client(viewer)
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    report = _shown(client.get(url, {"question": question.pk}).content.decode())
    for zero in NEGATIVE_ZEROS:
        assert zero not in report
    kappa = re.search(r'<tr data-coefficient="kappa">.*?</tr>', report, re.S)
    assert kappa is not None
    assert '<td class="num value">0.000</td>' in kappa.group(0)
    assert '<td class="num ci">[0.000, 0.300] <small>95 % bca</small></td>' in kappa.group(0)
    assert '<td class="num se">0.000</td>' in kappa.group(0)
    pair = re.search(r'<tr data-pair="ann\|bob">.*?</tr>', report, re.S)
    assert pair is not None
    assert '<td class="num kappa-cohen">0.000</td>' in pair.group(0)
    assert '<td class="num prevalence-index">0.000</td>' in pair.group(0)
    assert '<td class="num bias-index">0.000</td>' in pair.group(0)
    assert (
        '<tr data-category="yes"><th scope="row">yes</th><td class="num value">0.000</td>'
    ) in report
    pages = ("pages:study-detail", "pages:study-history")
    for url in (*(reverse(name, args=[study.pk]) for name in pages), reverse("pages:study-list")):
        html = _shown(client.get(url).content.decode())
        for zero in NEGATIVE_ZEROS:
            assert zero not in html, url
    page = client.get(reverse("pages:study-history", args=[study.pk])).content.decode()
    chart = re.search(r'<svg[^>]*id="history-kappa".*?</svg>', page, re.S)
    assert chart is not None
    assert "<title>binary, only: 0.000, interval 0.000 to 0.300</title>" in chart.group(0)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0.743, "0.743"),
        (0.1, "0.100"),
        (0.0999, "0.0999"),
        (0.00234, "0.00234"),
        (0.0451, "0.0451"),
        (-0.00234, "-0.00234"),
        (0.0, "0.000"),
        (None, "—"),
    ],
)
def test_small_numbers_keep_three_significant_digits(value: float | None, text: str) -> None:
    from pages.number_text import precise_text

    assert precise_text(value) == text
