"""The round report reads the comparison with the previous round that the worker stored with
the computation; loading the page never bootstraps."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from computations import comparison, engine
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import scope_data_revision
from studies.models import Annotation
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory
from tests.pages.conftest import PagesWorld

pytestmark = pytest.mark.django_db


@pytest.fixture
def no_computing(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: Any, **__: Any) -> Any:
        raise AssertionError("the page computed")

    monkeypatch.setattr(comparison, "rounds_compare", refuse)
    for name in ("difference", "decompositions", "point_report", "diagnostics"):
        monkeypatch.setattr(engine, name, refuse)


@pytest.fixture
def two_rounds(study: Any) -> dict[str, Any]:
    question = nominal_question(study, codes=("a", "b"), key="ab")
    r1 = RoundFactory(study=study, name="R1", position=1)
    r2 = RoundFactory(study=study, name="R2", position=2)
    coders, items = label_round(r1, question, [["a", "b"], ["a", "a"]])
    label_round(r2, question, [["a", "b"], ["a", "b"]], coders=coders, items=items)
    return {"question": question, "r1": r1, "r2": r2}


def _stored_computation(study: Any, question: Any, round_: Any, stored: Any) -> Computation:
    results: dict[str, Any] = {
        "n_items": 2, "n_coders": 2, "n_annotations": 4, "level": "nominal",
        "distance": "nominal",
        "coefficients": {"alpha": {"value": 1.0, "observed": 0.0, "expected": 0.5,
                                   "kind": "disagreement"}},
    }  # fmt: skip
    if stored is not None:
        results["comparison_with_previous"] = stored
    computation = Computation.objects.create(
        study=study, question=question, scope=ComputationScope.ROUND, parameters={},
        params_hash="0" * 64, data_revision="", status=ComputationStatus.DONE, progress=1.0,
        finished_at=timezone.now(), results=results,
    )  # fmt: skip
    computation.rounds.set([round_])
    return computation


def _done(r1: Any, r2: Any, revision: str) -> dict[str, Any]:
    return {
        "status": "done", "coefficient": "alpha",
        "difference_is": "later round minus earlier round",
        "later": {"round": r2.pk, "round_name": "R2", "n_items": 8},
        "earlier": {"round": r1.pk, "round_name": "R1", "n_items": 8},
        "paired": True, "n_shared_items": 8,
        # Stored before the metrics library renamed the CI's "level" to "confidence".
        "difference": {"estimate": 0.9375,
                       "ci": {"low": 0.5, "high": 1.0, "level": 0.95, "method": "bca",
                              "replicates": 500}},
        "earlier_data_revision": revision,
    }  # fmt: skip


def _section(client: Any, study: Any, round_: Any, question: Any) -> str:
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    html = client.get(url, {"question": question.pk}).content.decode()
    section = re.search(r'<section aria-labelledby="compare-heading">.*?</section>', html, re.S)
    assert section is not None
    return re.sub(r"\s+", " ", section.group(0))


def test_the_report_reads_the_stored_comparison(
    study: Any, viewer: Any, site_client: Any, two_rounds: dict[str, Any], no_computing: None
) -> None:
    r1, r2, question = two_rounds["r1"], two_rounds["r2"], two_rounds["question"]
    revision = scope_data_revision(question=question, round_ids=[r1.pk])
    _stored_computation(study, question, r2, _done(r1, r2, revision))
    section = _section(site_client(viewer), study, r2, question)
    assert (
        '<p class="comparison">Krippendorff&#x27;s alpha: R2 − R1 = '
        '<span class="num difference">+0.938</span>, 95 % interval '
        '<span class="num">[0.500, 1.000]</span> (later round minus earlier round, paired on '
        "8 shared items, 500 bootstrap replicates).</p>"
    ) in section
    assert "changed since" not in section


def test_the_report_says_when_the_earlier_rounds_annotations_changed(
    study: Any, viewer: Any, site_client: Any, two_rounds: dict[str, Any], no_computing: None
) -> None:
    r1, r2, question = two_rounds["r1"], two_rounds["r2"], two_rounds["question"]
    revision = scope_data_revision(question=question, round_ids=[r1.pk])
    _stored_computation(study, question, r2, _done(r1, r2, revision))
    Annotation.objects.filter(round=r1).first().delete()
    section = _section(site_client(viewer), study, r2, question)
    assert (
        '<p class="stale">R1\'s annotations changed since this comparison: request the '
        "computation of R2 again.</p>"
    ) in section


def test_the_report_shows_the_stored_reason_of_a_skipped_comparison(
    study: Any, viewer: Any, site_client: Any, two_rounds: dict[str, Any], no_computing: None
) -> None:
    r1, question = two_rounds["r1"], two_rounds["question"]
    stored = {"status": "skipped", "reason": "R1 is the study's first round."}
    _stored_computation(study, question, r1, stored)
    section = _section(site_client(viewer), study, r1, question)
    assert (
        '<p class="comparison-error">No comparison: R1 is the study&#x27;s first round.</p>'
    ) in section


def test_a_computation_without_a_stored_comparison_asks_for_a_new_one(
    study: Any, viewer: Any, site_client: Any, two_rounds: dict[str, Any], no_computing: None
) -> None:
    r2, question = two_rounds["r2"], two_rounds["question"]
    _stored_computation(study, question, r2, None)
    section = _section(site_client(viewer), study, r2, question)
    assert (
        '<p class="comparison-error">No comparison: this computation was made before '
        "comparisons were stored with it; request it again.</p>"
    ) in section


def test_a_worker_computed_report_shows_the_comparison_it_stored(
    pages_world: PagesWorld, viewer: Any, site_client: Any, no_computing: None
) -> None:
    world = pages_world
    stored = world.computations[1].results["comparison_with_previous"]
    assert stored["status"] == "done"
    assert stored["earlier"]["round_name"] == "R1"
    section = _section(site_client(viewer), world.study, world.rounds[1], world.question)
    assert "Krippendorff&#x27;s alpha: R2 − R1 = " in section
    assert '<span class="num difference">' in section
