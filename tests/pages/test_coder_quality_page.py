"""The round report's "Coder quality" table and the coder page's per-round accuracy and
competence read what the worker stored.

Two kinds of checks: a round computed for real (eager Celery), where three coders who always
agree have Dawid–Skene accuracy 1 (worked by hand in
tests/computations/test_coder_quality.py) and the planted spammer is flagged; and a stored
result written out here, so that every cell's text is a literal.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse

from computations.models import Computation
from tests.computations.helpers import label_round, nominal_question
from tests.computations.test_coder_quality import SPAMMER_CODERS, SPAMMER_TABLE
from tests.factories import CoderFactory, ItemFactory, RoundFactory
from tests.pages.conftest import compute

pytestmark = pytest.mark.django_db

#: A stored result, written out: three coders, spam least competent.
STORED = {
    "labels": ["a", "b"],
    "n_items": 8,
    "n_coders": 3,
    "n_annotations": 24,
    "seed": 0,
    "dawid_skene": {
        "coders": {
            "ann": {"accuracy": 0.9375, "confusion": [[1.0, 0.0], [0.125, 0.875]]},
            "bob": {"accuracy": 0.875, "confusion": [[0.75, 0.25], [0.0, 1.0]]},
            "spam": {"accuracy": 0.5, "confusion": [[1.0, 0.0], [1.0, 0.0]]},
        },
        "priors": {"a": 0.5, "b": 0.5},
        "iterations": 4,
        "converged": True,
    },
    "mace": {
        "coders": {
            "ann": {"competence": 0.8125, "spamming": {"a": 0.5, "b": 0.5}},
            "bob": {"competence": 0.71, "spamming": {"a": 0.5, "b": 0.5}},
            "spam": {"competence": 0.0421, "spamming": {"a": 0.99, "b": 0.01}},
        },
        "n_restarts": 3,
        "iterations": 12,
        "converged": True,
    },
    "posterior_labels": {
        "model": "dawid_skene",
        "n_items": 8,
        "agreement_with_majority": 0.875,
        "sample": [],
    },
}


def _html(client: Any, url: str, **query: Any) -> str:
    response = client.get(url, query)
    assert response.status_code == 200
    return str(response.content.decode())


def _table(html: str, table_class: str) -> str:
    table = re.search(rf'<table class="{table_class}">.*?</table>', html, re.S)
    assert table is not None, table_class
    return table.group(0)


def _rows(table: str) -> list[str]:
    return re.findall(r"<tr data-[a-z]+=.*?</tr>", table, re.S)


@pytest.fixture
def stored_round(study: Any, django_capture_on_commit_callbacks: Any) -> Any:
    """A computed round whose stored coder quality is replaced by ``STORED``."""
    question = nominal_question(study, codes=("a", "b"), key="topic")
    round_ = RoundFactory(study=study, name="Pilot", position=1)
    coders = [CoderFactory(study=study, key=key) for key in ("ann", "bob", "spam")]
    table = [list("aabbabab"), list("aabbabaa"), list("aaaaaaaa")]
    label_round(round_, question, table, coders=coders)
    computation = compute(study, question, round_, django_capture_on_commit_callbacks)
    Computation.objects.filter(pk=computation.pk).update(
        results={**(computation.results or {}), "coder_quality": STORED}
    )
    return question, round_, coders


def test_round_report_lists_coders_least_competent_first_with_the_lowest_flagged(
    stored_round: Any, study: Any, viewer: Any, site_client: Any
) -> None:
    question, round_, _ = stored_round
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    table = _table(_html(site_client(viewer), url, question=question.pk), "coder-quality")
    assert "<caption>Coders by MACE competence (probability of not spamming), least " in table
    assert "Posterior labels of 8 items agree with the majority vote on 87.5 % of them." in table
    assert _rows(table) == [
        '<tr data-coder="spam" class="lowest"><th scope="row">spam</th>'
        '<td class="num competence">0.042</td><td class="num accuracy">0.500</td>'
        "<td><strong>lowest competence</strong></td></tr>",
        '<tr data-coder="bob"><th scope="row">bob</th><td class="num competence">0.710</td>'
        '<td class="num accuracy">0.875</td><td></td></tr>',
        '<tr data-coder="ann"><th scope="row">ann</th><td class="num competence">0.812</td>'
        '<td class="num accuracy">0.938</td><td></td></tr>',
    ]


def test_coder_page_shows_accuracy_and_competence_per_round(
    stored_round: Any, study: Any, viewer: Any, site_client: Any
) -> None:
    _, _, coders = stored_round
    client = site_client(viewer)
    spam = _table(
        _html(client, reverse("pages:coder-detail", args=[study.pk, coders[2].pk])),
        "coder-quality",
    )
    assert _rows(spam) == [
        '<tr data-round="Pilot"><th scope="row">Pilot</th><td class="num accuracy">0.500</td>'
        '<td class="num competence">0.042</td><td class="num">3</td>'
        "<td><strong>lowest competence in the round</strong></td></tr>"
    ]
    ann = _table(
        _html(client, reverse("pages:coder-detail", args=[study.pk, coders[0].pk])),
        "coder-quality",
    )
    assert _rows(ann) == [
        '<tr data-round="Pilot"><th scope="row">Pilot</th><td class="num accuracy">0.938</td>'
        '<td class="num competence">0.812</td><td class="num">3</td><td></td></tr>'
    ]
    assert "Dawid–Skene accuracy, the probability that ann's label is the true one" in ann


def test_a_computed_round_flags_the_planted_spammer(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b", "c"), key="topic")
    round_ = RoundFactory(study=study, name="Pilot", position=1)
    coders = [CoderFactory(study=study, key=key) for key in SPAMMER_CODERS]
    label_round(round_, question, SPAMMER_TABLE, coders=coders)
    compute(study, question, round_, django_capture_on_commit_callbacks)
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    rows = _rows(_table(_html(site_client(viewer), url, question=question.pk), "coder-quality"))
    assert len(rows) == 4
    assert rows[0].startswith('<tr data-coder="spam" class="lowest">')
    assert "<strong>lowest competence</strong>" in rows[0]
    assert all("lowest" not in row for row in rows[1:])


def test_coders_who_always_agree_show_accuracy_one_on_their_page(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    # Hand-worked in tests/computations/test_coder_quality.py: identity confusion, accuracy 1.
    question = nominal_question(study, codes=("a", "b"), key="topic")
    round_ = RoundFactory(study=study, name="Pilot", position=1)
    coders = [CoderFactory(study=study, key=key) for key in ("ann", "bob", "cid")]
    items = [ItemFactory(study=study) for _ in range(6)]
    label_round(round_, question, [list("aabbab")] * 3, coders=coders, items=items)
    compute(study, question, round_, django_capture_on_commit_callbacks)
    url = reverse("pages:coder-detail", args=[study.pk, coders[0].pk])
    table = _table(_html(site_client(viewer), url), "coder-quality")
    assert '<td class="num accuracy">1.000</td>' in table


def test_a_skipped_coder_quality_says_why_on_the_round_report(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"), key="topic")
    round_ = RoundFactory(study=study, name="Pilot", position=1)
    label_round(round_, question, [["a", None, "b"], [None, "b", None]])
    compute(study, question, round_, django_capture_on_commit_callbacks)
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    html = _html(site_client(viewer), url, question=question.pk)
    assert (
        '<p class="quality-skipped">No coder quality: No item has labels from two coders: '
        "coder quality cannot be estimated.</p>"
    ) in html


def test_a_coder_without_a_stored_quality_reads_so(
    study: Any, viewer: Any, site_client: Any
) -> None:
    nominal_question(study, codes=("a", "b"), key="topic")
    coder = CoderFactory(study=study, key="ann")
    html = _html(site_client(viewer), reverse("pages:coder-detail", args=[study.pk, coder.pk]))
    assert (
        '<p class="no-quality">No coder quality yet (no round computation with a Dawid–Skene '
        "and MACE result for this coder).</p>"
    ) in html
