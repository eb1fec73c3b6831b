"""The round report and the study page read each coefficient on its one benchmark scale
(metrics.read_coefficient, Gwet 2014's benchmarking), the ICC table of interval questions and the
probability that a round is higher than the previous.

Stored values: irrCAC 0.4.4's Benchmark(coeff=0.67, se=0.15) (Landis & Koch: moderate or
better 0.96356, substantial 0.49343; Krippendorff: tentative or better 0.501, discard the most
probable 0.499; docs/references.md#irrcac-benchmark-examples) and
Shrout & Fleiss (1979) with pingouin 0.7.0's ICC(A,1) (docs/references.md#shrout-fleiss-1979,
#pingouin-icc-cases).
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from computations.models import Computation, ComputationScope, ComputationStatus
from computations.services import computation_request
from studies.models import LabelKind
from tests.computations.helpers import label_round, nominal_question
from tests.factories import QuestionFactory, RoundFactory

pytestmark = pytest.mark.django_db

# irrCAC's example read on Landis & Koch's scale, as the worker stores it.
IRRCAC_BANDS = {
    "method": "normal",
    "threshold": 0.95,
    "n_replicates": 0,
    "n_omitted": 0,
    "se": 0.15,
    "scales": {
        "landis_koch": {
            "labels": ["almost perfect", "substantial", "moderate", "fair", "slight", "poor"],
            "probabilities": [0.18168, 0.49343, 0.28845, 0.03556, 0.00087, 0.0],
            "cumulative": [0.18168, 0.67511, 0.96356, 0.99912, 1.0, 1.0],
            "attained": "moderate",
            "attained_probability": 0.96356,
            "leading": "substantial",
            "leading_probability": 0.49343,
        },
        "fleiss": {
            "labels": ["excellent", "intermediate to good", "poor"],
            "probabilities": [0.28699, 0.67657, 0.03644],
            "cumulative": [0.28699, 0.96356, 1.0],
            "attained": "intermediate to good",
            "attained_probability": 0.96356,
            "leading": "intermediate to good",
            "leading_probability": 0.67657,
        },
        "krippendorff": {
            "labels": ["good", "tentative", "discard"],
            "probabilities": [0.18168, 0.31936, 0.49896],
            "cumulative": [0.18168, 0.50104, 1.0],
            "attained": "discard",
            "attained_probability": 1.0,
            "leading": "discard",
            "leading_probability": 0.49896,
        },
    },
}

SHROUT_FLEISS = [
    [9, 6, 8, 7, 10, 6],
    [2, 1, 4, 1, 5, 2],
    [5, 3, 6, 2, 6, 4],
    [8, 2, 8, 6, 9, 7],
]


def _stored(study: Any, question: Any, round_: Any, results: dict[str, Any]) -> Computation:
    computation = Computation.objects.create(
        study=study, question=question, scope=ComputationScope.ROUND, parameters={},
        params_hash="0" * 64, data_revision="", status=ComputationStatus.DONE, progress=1.0,
        finished_at=timezone.now(), results=results,
    )  # fmt: skip
    computation.rounds.set([round_])
    return computation


def _page(client: Any, study: Any, round_: Any, question: Any) -> str:
    url = reverse("pages:round-report", args=[study.pk, round_.pk])
    response = client.get(url, {"question": question.pk})
    assert response.status_code == 200
    return re.sub(r"\s+", " ", response.content.decode())


def _entry(value: float, kind: str = "agreement") -> dict[str, Any]:
    return {
        "value": value, "observed": 0.8, "expected": 0.39, "kind": kind,
        "ci": {"low": 0.4, "high": 0.9, "confidence": 0.95, "method": "bca", "replicates": 500,
               "benchmarks": IRRCAC_BANDS},
    }  # fmt: skip


def _results(distance: str = "nominal", **extra: Any) -> dict[str, Any]:
    return {
        "n_items": 8, "n_coders": 2, "n_annotations": 16, "level": "nominal",
        "distance": distance,
        "coefficients": {
            "kappa": _entry(0.67),
            "alpha": _entry(0.67, "disagreement"),
            "observed_agreement": _entry(0.8),
        },
        **extra,
    }  # fmt: skip


def _cell(html: str, coefficient: str) -> str:
    row = re.search(rf'<tr data-coefficient="{coefficient}">.*?</tr>', html)
    assert row is not None
    cell = re.search(r'<td class="reliability">.*?</td>', row.group(0))
    assert cell is not None
    return cell.group(0)


def test_each_coefficient_is_read_on_one_scale_only(
    study: Any, viewer: Any, site_client: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"))
    round_ = RoundFactory(study=study, name="R1", position=1)
    _stored(study, question, round_, _results())
    html = _page(site_client(viewer), study, round_, question)
    # Kappa on Landis & Koch's scale, named once; no other scale beside it.
    assert _cell(html, "kappa") == (
        '<td class="reliability"><span class="reading" data-scale="landis_koch"><strong '
        'class="band">substantial</strong> <small>on Landis &amp; Koch\'s scale</small><br>'
        '<small class="benchmark">moderate or better with probability 0.96; most probable '
        "band: substantial (0.49)</small></span></td>"
    )
    # The same stored bands read alpha on Krippendorff's scale only: no "discard" beside a
    # "substantial" of another scale.
    assert _cell(html, "alpha") == (
        '<td class="reliability"><span class="reading" data-scale="krippendorff"><strong '
        'class="band">tentative</strong> <small>on Krippendorff\'s scale</small><br>'
        '<small class="benchmark">no band above discard reaches probability 0.95; most '
        "probable band: discard (0.50)</small></span></td>"
    )
    # Observed agreement is not chance-corrected: no scale, no band probabilities.
    assert _cell(html, "observed_agreement") == (
        '<td class="reliability"><span class="reading" data-scale="none"><small '
        'class="no-scale">no benchmark scale: not chance-corrected</small></span></td>'
    )
    assert html.count("Landis &amp; Koch's scale") == 1


def test_a_weighted_alpha_has_no_scale_unless_the_study_chooses_one(
    study: Any, viewer: Any, site_client: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"), key="topics", kind=LabelKind.SET)
    round_ = RoundFactory(study=study, name="R1", position=1)
    _stored(study, question, round_, _results(distance="masi"))
    html = _page(site_client(viewer), study, round_, question)
    assert _cell(html, "alpha") == (
        '<td class="reliability"><span class="reading" data-scale="none"><small '
        'class="no-scale">no benchmark scale: weighted by the masi distance, and the scales '
        "were proposed for unweighted coefficients (choose one to read it on)</small></span>"
        "</td>"
    )
    study.benchmark_scale = "fleiss"
    study.save()
    html = _page(site_client(viewer), study, round_, question)
    assert _cell(html, "alpha") == (
        '<td class="reliability"><span class="reading" data-scale="fleiss"><strong '
        'class="band">intermediate to good</strong> <small>on Fleiss\'s scale</small><br>'
        '<small class="benchmark">intermediate to good or better with probability 0.96; most '
        "probable band: intermediate to good (0.68)</small></span></td>"
    )
    assert "the study's choice, Fleiss" in html
    assert "not chance-corrected" in _cell(html, "observed_agreement")


def test_the_api_gives_the_same_reading(study: Any, manager_client: Any) -> None:
    question = nominal_question(study, codes=("a", "b"))
    round_ = RoundFactory(study=study, name="R1", position=1)
    computation = _stored(study, question, round_, _results())
    body = manager_client.get(f"/api/v1/studies/{study.pk}/computations/{computation.pk}/").json()
    assert body["readings"]["alpha"] == {
        "scale": "krippendorff",
        "scale_name": "Krippendorff",
        "reason": "Krippendorff's cut-offs 0.667 and 0.8 were proposed for alpha",
        "band": "tentative",
        "attained": "discard",
        "attained_probability": 1.0,
        "leading": "discard",
        "leading_probability": 0.49896,
        "text": "tentative on Krippendorff's scale; no band above discard reaches probability "
        "0.95; most probable band: discard (0.50)",
    }
    assert body["readings"]["observed_agreement"]["scale"] is None
    assert body["readings"]["kappa"]["scale"] == "landis_koch"


def test_the_comparison_gives_the_probability_that_this_round_is_higher(
    study: Any, viewer: Any, site_client: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"))
    r1 = RoundFactory(study=study, name="R1", position=1)
    r2 = RoundFactory(study=study, name="R2", position=2)
    comparison = {
        "status": "done", "coefficient": "kappa",
        "difference_is": "later round minus earlier round",
        "later": {"round": r2.pk, "round_name": "R2", "n_items": 8},
        "earlier": {"round": r1.pk, "round_name": "R1", "n_items": 8},
        "paired": True, "n_shared_items": 8,
        "difference": {"estimate": 0.2,
                       "ci": {"low": -0.1, "high": 0.5, "confidence": 0.95, "method": "bca",
                              "replicates": 500},
                       "probability_later_higher": {"probability": 0.87, "share_higher": 0.86,
                                                    "share_tied": 0.02, "share_lower": 0.12,
                                                    "n_replicates": 500, "n_omitted": 0}},
        "earlier_data_revision": "",
    }  # fmt: skip
    _stored(study, question, r2, _results(comparison_with_previous=comparison))
    html = _page(site_client(viewer), study, r2, question)
    assert (
        '<p class="later-higher">Probability that this round is higher than the previous: '
        '<span class="num">0.87</span> <small>(share of the 500 paired bootstrap replicates '
        "where R2 is above R1, ties counted one half)</small>.</p>"
    ) in html


def test_an_interval_question_shows_its_icc_table(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.INTERVAL, key="score")
    round_ = RoundFactory(study=study, name="R1", position=1)
    label_round(round_, question, SHROUT_FLEISS)
    with django_capture_on_commit_callbacks(execute=True):
        computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 0}
        )
    html = _page(site_client(viewer), study, round_, question)
    table = re.search(r'<table class="icc">.*?</table>', html)
    assert table is not None
    assert (
        "Intraclass correlations (McGraw &amp; Wong 1996; Shrout &amp; Fleiss 1979 names in "
        "brackets) on 6 items × 4 coders, with 95 % F-test intervals"
    ) in table.group(0)
    # Shrout & Fleiss's ICC(2,1) = .29, F 11.03 on (5, 15); pingouin's interval
    # [0.0188, 0.7611] and p 0.000135.
    assert (
        '<tr data-form="twoway_random-agreement-single"> <th scope="row">ICC(A,1) '
        "<small>[ICC2]</small></th> <td>two-way random</td><td>agreement, single</td> "
        '<td class="num value">0.290</td> <td class="num ci">[0.019, 0.761]</td> '
        '<td class="num">11.03</td> <td class="num">5, 15</td> '
        '<td class="num p-value">0.0001</td> </tr>'
    ) in table.group(0)
    assert '<th scope="row">ICC(C,1) <small>[ICC3]</small></th>' in table.group(0)
    assert '<td class="num value">0.715</td>' in table.group(0)


#: Two coders who agree on all twelve items: every replicate of alpha is 1 where defined.
AGREE = [list("aabbaabbabab"), list("aabbaabbabab")]


def test_the_study_page_reads_the_headline_alpha_on_krippendorffs_scale(
    study: Any, viewer: Any, site_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, codes=("a", "b"), key="ab")
    round_ = RoundFactory(study=study, name="R1", position=1)
    label_round(round_, question, AGREE)
    with django_capture_on_commit_callbacks(execute=True):
        computation_request(
            study=study, question=question, rounds=[round_], parameters={"bootstrap": 50}
        )
    html = re.sub(
        r"\s+",
        " ",
        site_client(viewer).get(reverse("pages:study-detail", args=[study.pk])).content.decode(),
    )
    row = re.search(r'<article class="question-panel" data-question="ab".*?</article>', html)
    assert row is not None
    # The headline is alpha: Krippendorff's scale, never Landis & Koch's (which read it
    # "almost perfect (Landis & Koch)" with its title twice).
    assert (
        '<p class="reliability"><span class="reading" data-scale="krippendorff"><strong '
        'class="band">good</strong> <small>on Krippendorff\'s scale</small><br><small '
        'class="benchmark">good or better with probability 1.00; most probable band: good '
        "(1.00)</small></span></p>"
    ) in row.group(0)
    assert "Landis" not in row.group(0)
