"""Span computations on the workers: the span report of a round stored as results, its
history, its comparison with the previous round, request validation, failures.

The numbers are Krippendorff's (2004, p. 254) unitizing example as DKPro Statistics tests it
(docs/references.md#server-span-tv60) and span F1 computed by hand on the same units.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.core.exceptions import ValidationError

from computations import services as service
from computations.comparison import COMPARISON_KEY
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.selectors import study_history
from computations.services import computation_parameters, computation_request
from studies.models import Annotation, Coder, Item, LabelKind, Question, Round, Study
from tests.computations.comparing import compare_through_api
from tests.computations.helpers import label_round, nominal_question
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)

pytestmark = pytest.mark.django_db


#: Krippendorff (2004) p. 254, as DKPro Statistics 2.3.x tests it
#: (Krippendorff2004Test.java; docs/references.md#server-span-tv60): a continuum
#: [150, 450), two raters, units (begin, length, rater, category).
TV60_UNITS = [
    (225, 70, 0, "c"), (370, 30, 0, "c"), (220, 80, 1, "c"), (355, 20, 1, "c"),
    (400, 20, 1, "c"), (180, 60, 0, "k"), (300, 50, 0, "k"), (180, 60, 1, "k"),
    (300, 50, 1, "k"),
]  # fmt: skip
TV60_ALPHA_U = 0.8591  # tolerance 0.0005
TV60_CATEGORIES = {  # (alpha, D_o, D_e), tolerance 1e-4
    "c": (0.7286, 0.0144, 0.0532),
    "k": (1.0, 0.0, 0.0490),
}
#: Span F1 of the same units, by hand: r0 has 4 units, r1 5. Exact matches (same begin, end
#: and category): k 180-240 and k 300-350, so F1 = 2·2/(4 + 5) = 4/9. Overlapping matches
#: with IoU ≥ 0.5 add c 225-295 ~ c 220-300 (IoU 70/80); c 370-400 overlaps c 355-375 by 5
#: of 45 (IoU 0.11) and touches c 400-420 at no position: F1 = 2·3/9 = 2/3.
TV60_F1_EXACT = 4 / 9
TV60_F1_OVERLAP = 2 / 3


@dataclass
class SpanStudy:
    study: Study
    question: Question
    coders: list[Coder]
    categories: dict[str, int]


#: The units coder r1 skips in the rounds where they skip: two units r0 marked too (k
#: 300-350 exactly, c 220-300 nearly as r0's 225-295).
SKIPPED = {(300, 350), (220, 300)}


def _units_of(rater: int, categories: dict[str, int], *, skip: bool = False) -> list[list[int]]:
    """The TV-60 units of one rater, sorted, without the ``SKIPPED`` ones when ``skip``."""
    return sorted(
        [begin, begin + length, categories[code]]
        for begin, length, r, code in TV60_UNITS
        if r == rater and not (skip and (begin, begin + length) in SKIPPED)
    )


def _label(world: SpanStudy, round_: Round, item: Item, *, skip: bool = False) -> None:
    """Both raters' TV-60 units on ``item``; with ``skip``, r1 leaves out ``SKIPPED``."""
    for rater, coder in enumerate(world.coders):
        Annotation.objects.create(
            round=round_,
            question=world.question,
            item=item,
            coder=coder,
            units=_units_of(rater, world.categories, skip=skip and rater == 1),
        )


@pytest.fixture
def span_study(study: Study) -> SpanStudy:
    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key="units")
    categories = {
        code: CategoryFactory(question=question, code=code, position=n).pk
        for n, code in enumerate(("c", "k"))
    }
    coders = [CoderFactory(study=study, key=f"r{n}") for n in range(2)]
    return SpanStudy(study, question, coders, categories)


def _item(study: Study, name: str) -> Item:
    return ItemFactory(study=study, external_id=name, text="", extent_begin=150, extent_end=450)


def _compute(world: SpanStudy, rounds: list[Round], capture: Any, **parameters: Any) -> Computation:
    scope = ComputationScope.ROUND if len(rounds) == 1 else ComputationScope.ROUNDS
    with capture(execute=True):
        result = computation_request(
            study=world.study,
            question=world.question,
            scope=scope,
            rounds=rounds,
            parameters=parameters,
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.DONE, computation.error
    return computation


def test_a_span_round_stores_krippendorffs_unitizing_alpha_and_span_f1(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any
) -> None:
    round_ = RoundFactory(study=span_study.study, name="R1", position=1)
    item = _item(span_study.study, "k2004")
    _label(span_study, round_, item)
    computation = _compute(span_study, [round_], django_capture_on_commit_callbacks, bootstrap=0)
    results = computation.results
    alpha_u = results["coefficients"]["alpha_u"]
    assert alpha_u["value"] == pytest.approx(TV60_ALPHA_U, abs=5e-4)
    for code, (value, observed, expected) in TV60_CATEGORIES.items():
        category = alpha_u["categories"][code]
        assert category["value"] == pytest.approx(value, abs=1e-4)
        assert category["observed"] == pytest.approx(observed, abs=1e-4)
        assert category["expected"] == pytest.approx(expected, abs=1e-4)
    assert results["coefficients"]["span_f1"]["value"] == pytest.approx(TV60_F1_EXACT)
    assert results["coefficients"]["span_f1_overlap"]["value"] == pytest.approx(TV60_F1_OVERLAP)
    # PostgreSQL's jsonb keeps no key order: compare the keys as a set.
    assert set(results["coefficients"]) == {
        "alpha_u", "span_f1", "span_f1_overlap", "token_alpha", "pk", "window_diff",
    }  # fmt: skip
    assert (results["n_documents"], results["n_items"], results["n_coders"]) == (1, 1, 2)
    assert results["n_units"] == 9
    # Category c (225-295) and k (180-240) overlap for r0: no single token label at 225.
    assert results["coefficients"]["token_alpha"]["value"] is None
    assert results["skipped"]["token_alpha"] == (
        "Document 'k2004', coder 'r0': position 225 is covered by units of two categories "
        "('c' and 'k'), so it has no single token label. Token-level agreement needs one "
        "category per position and coder: resolve the overlap in the data (alpha_U and span "
        "F1 are computed without it)."
    )
    assert computation.n_annotations == 2
    assert results["documents"][0]["item"] == item.pk
    assert results["documents"][0]["external_id"] == "k2004"
    assert results["bootstrap"]["replicates"] == 0
    assert computation.fingerprint
    assert computation.progress == 1.0
    assert results[COMPARISON_KEY] == {
        "status": "skipped",
        "reason": "R1 is the study's first round.",
    }


def test_a_coder_who_skips_units_lowers_alpha_u_and_f1_and_the_next_round_says_by_how_much(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any
) -> None:
    world, capture = span_study, django_capture_on_commit_callbacks
    rounds = [RoundFactory(study=world.study, name=f"R{n}", position=n) for n in (1, 2)]
    items = [_item(world.study, f"doc-{n}") for n in range(6)]
    for item in items:
        _label(world, rounds[0], item)
        _label(world, rounds[1], item, skip=item in items[:3])
    full = _compute(world, [rounds[0]], capture, bootstrap=200, seed=3)
    skipped = _compute(world, [rounds[1]], capture, bootstrap=200, seed=3)
    before, after = full.results["coefficients"], skipped.results["coefficients"]
    for name in ("alpha_u", "span_f1", "span_f1_overlap"):
        assert after[name]["value"] < before[name]["value"], name
    ci = after["alpha_u"]["ci"]
    assert set(ci) == {"low", "high", "confidence", "method", "replicates"}
    assert ci["confidence"] == 0.95
    assert ci["replicates"] == 200
    assert ci["low"] <= after["alpha_u"]["value"] <= ci["high"]
    disputed = skipped.results["documents"]
    assert {d["external_id"] for d in disputed[:3]} == {"doc-0", "doc-1", "doc-2"}
    assert all(d["item"] in {i.pk for i in items} for d in disputed)

    comparison = skipped.results[COMPARISON_KEY]
    assert comparison["status"] == "done"
    assert comparison["coefficient"] == "alpha_u"
    assert comparison["difference_is"] == "later round minus earlier round"
    assert (comparison["later"]["round_name"], comparison["earlier"]["round_name"]) == ("R2", "R1")
    assert comparison["earlier"]["computation"] == full.pk
    assert comparison["paired"] is True
    assert comparison["n_shared_items"] == 6
    for name in ("alpha_u", "span_f1"):
        entry = comparison["coefficients"][name]
        assert entry["method"] == "bootstrap"
        assert entry["earlier_value"] == before[name]["value"]
        assert entry["later_value"] == after[name]["value"]
        # Paired on the same six documents: the estimate is the difference of the two rounds.
        estimate = entry["difference"]["estimate"]
        assert estimate == pytest.approx(after[name]["value"] - before[name]["value"])
        assert estimate < 0
        assert entry["difference"]["ci"]["replicates"] == 500


def test_above_the_comparison_bound_the_difference_is_of_point_estimates_and_says_so(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any, settings: Any
) -> None:
    settings.AGREEMENT_COMPARE_MAX_ANNOTATIONS = 3
    world, capture = span_study, django_capture_on_commit_callbacks
    rounds = [RoundFactory(study=world.study, name=f"R{n}", position=n) for n in (1, 2)]
    items = [_item(world.study, f"doc-{n}") for n in range(2)]
    for item in items:
        _label(world, rounds[0], item)
        _label(world, rounds[1], item, skip=True)
    full = _compute(world, [rounds[0]], capture, bootstrap=0)
    later = _compute(world, [rounds[1]], capture, bootstrap=0)
    comparison = later.results[COMPARISON_KEY]
    entry = comparison["coefficients"]["alpha_u"]
    assert entry["method"] == "point estimates only"
    assert "more than the 3 bootstrapped" in entry["reason"]
    assert "ci" not in entry["difference"]
    before = full.results["coefficients"]["alpha_u"]["value"]
    after = later.results["coefficients"]["alpha_u"]["value"]
    assert entry["difference"]["estimate"] == pytest.approx(after - before)


def test_the_history_lists_span_computations_round_after_round(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any
) -> None:
    world, capture = span_study, django_capture_on_commit_callbacks
    rounds = [RoundFactory(study=world.study, name=f"R{n}", position=n) for n in (1, 2)]
    item = _item(world.study, "k2004")
    for round_ in rounds:
        _label(world, round_, item)
    computations = [_compute(world, [r], capture, bootstrap=0) for r in rounds]
    history = study_history(study=world.study, question_id=world.question.pk)
    (question,) = history["questions"]
    assert question["kind"] == LabelKind.SPAN
    for entry, computation in zip(question["rounds"], computations, strict=True):
        assert entry["computation"] == computation.pk
        assert entry["n_items"] == 1
        assert entry["coefficients"]["alpha_u"]["value"] == pytest.approx(TV60_ALPHA_U, abs=5e-4)
        assert entry["coefficients"]["span_f1"]["value"] == pytest.approx(TV60_F1_EXACT)


def test_pooled_rounds_read_every_rounds_documents(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any
) -> None:
    world, capture = span_study, django_capture_on_commit_callbacks
    rounds = [RoundFactory(study=world.study, name=f"R{n}", position=n) for n in (1, 2)]
    for round_ in rounds:
        _label(world, round_, _item(world.study, f"doc-{round_.name}"))
    pooled = _compute(world, rounds, capture, bootstrap=0)
    assert pooled.results["n_documents"] == 2
    assert COMPARISON_KEY not in pooled.results


def test_gamma_is_computed_when_asked_for(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any
) -> None:
    round_ = RoundFactory(study=span_study.study, name="R1", position=1)
    _label(span_study, round_, _item(span_study.study, "k2004"))
    computation = _compute(
        span_study,
        [round_],
        django_capture_on_commit_callbacks,
        bootstrap=0,
        seed=5,
        coefficients=["alpha_u", "gamma"],
    )
    assert set(computation.results["coefficients"]) == {"alpha_u", "gamma"}
    gamma = computation.results["coefficients"]["gamma"]
    assert -1 <= gamma["value"] <= 1
    assert gamma["expected"] > gamma["observed"] > 0  # some disagreement, less than chance
    assert (gamma["samples"], gamma["seed"]) == (30, 5)  # the computation's seed


def test_a_span_report_error_fails_the_computation_with_the_reason(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any, monkeypatch: Any
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ValueError("min_overlap must be between 0 and 1; got 2.")

    monkeypatch.setattr(service.engine, "span_report", refuse)
    round_ = RoundFactory(study=span_study.study, name="R1", position=1)
    _label(span_study, round_, _item(span_study.study, "k2004"))
    with django_capture_on_commit_callbacks(execute=True):
        result = computation_request(
            study=span_study.study, question=span_study.question, rounds=[round_]
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.FAILED
    assert computation.error == "min_overlap must be between 0 and 1; got 2."
    assert computation.finished_at is not None


def test_a_span_computation_runs_once_however_often_its_message_arrives(
    span_study: SpanStudy, django_capture_on_commit_callbacks: Any
) -> None:
    from computations.tasks import computation_run_task

    round_ = RoundFactory(study=span_study.study, name="R1", position=1)
    _label(span_study, round_, _item(span_study.study, "k2004"))
    computation = _compute(span_study, [round_], django_capture_on_commit_callbacks, bootstrap=0)
    finished, results = computation.finished_at, computation.results
    computation_run_task(computation.pk)
    computation.refresh_from_db()
    assert computation.finished_at == finished
    assert computation.results == results
    assert computation.attempts == 1


# -- parameters ----------------------------------------------------------------------------------


def test_a_span_question_defaults_to_the_span_coefficients(span_study: SpanStudy) -> None:
    params = computation_parameters(question=span_study.question, given={})
    assert params["coefficients"] == [
        "alpha_u", "span_f1", "span_f1_overlap", "token_alpha", "pk", "window_diff",
    ]  # fmt: skip
    assert (params["bootstrap"], params["seed"], params["confidence"]) == (1000, 0, 0.95)
    assert params["min_overlap"] == 0.5
    assert "level" not in params
    assert "distance" not in params


@pytest.mark.parametrize(
    ("given", "field", "message"),
    [
        (
            {"coefficients": ["alpha", "alpha_u"]},
            "coefficients",
            "alpha: not for span questions; choose one or more of: alpha_u, gamma, span_f1, "
            "span_f1_overlap, token_alpha, token_kappa, pk, window_diff.",
        ),
        ({"level": "nominal"}, "level", "A span question has no level"),
        ({"distance": "nominal"}, "distance", "A span question has no distance"),
        ({"min_overlap": 1.5}, "min_overlap", "The minimum overlap is a share from 0 to 1."),
        ({"coefficients": []}, "coefficients", "Choose one or more of: alpha_u"),
    ],
)
def test_span_parameters_are_checked_naming_the_field(
    span_study: SpanStudy, given: dict[str, Any], field: str, message: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        computation_parameters(question=span_study.question, given=given)
    assert list(caught.value.message_dict) == [field]
    assert caught.value.message_dict[field][0].startswith(message)


def test_span_coefficients_and_min_overlap_are_refused_for_other_questions(study: Study) -> None:
    question = nominal_question(study)
    with pytest.raises(ValidationError) as caught:
        computation_parameters(question=question, given={"coefficients": ["kappa", "alpha_u"]})
    assert caught.value.message_dict["coefficients"][0].startswith(
        "alpha_u: for span questions only; choose one or more of: observed_agreement"
    )
    with pytest.raises(ValidationError) as caught:
        computation_parameters(question=question, given={"min_overlap": 0.5})
    assert caught.value.message_dict == {
        "min_overlap": [
            "Nominal questions take no min_overlap: it is a parameter of span and relation "
            "questions."
        ]
    }


def test_the_api_answers_400_naming_the_field(span_study: SpanStudy, annotator_client: Any) -> None:
    round_ = RoundFactory(study=span_study.study, name="R1", position=1)
    _label(span_study, round_, _item(span_study.study, "k2004"))
    url = f"/api/v1/studies/{span_study.study.pk}/computations/"
    nominal = nominal_question(span_study.study, key="topic")
    label_round(round_, nominal, [["a"], ["b"]], coders=span_study.coders)
    cases = [
        ({"question": "units", "round": "R1", "coefficients": ["kappa"]}, "coefficients"),
        ({"question": "units", "round": "R1", "level": "nominal"}, "level"),
        ({"question": nominal.key, "round": "R1", "coefficients": ["span_f1"]}, "coefficients"),
        ({"question": nominal.key, "round": "R1", "min_overlap": 0.3}, "min_overlap"),
    ]
    for body, field in cases:
        response = annotator_client.post(url, body, format="json")
        assert response.status_code == 400, response.content
        assert field in str(response.json()), response.json()
    assert not Computation.objects.exists()


def test_the_api_compares_two_span_rounds_on_a_decomposable_coefficient(
    span_study: SpanStudy, annotator_client: Any, django_capture_on_commit_callbacks: Any
) -> None:
    world = span_study
    rounds = [RoundFactory(study=world.study, name=f"R{n}", position=n) for n in (1, 2)]
    for item in [_item(world.study, f"doc-{n}") for n in range(4)]:
        _label(world, rounds[0], item)
        _label(world, rounds[1], item, skip=True)
    query = {"question": "units", "first": "R1", "second": "R2", "bootstrap": 100}

    def compared(**extra: Any) -> Any:
        return compare_through_api(
            annotator_client, world.study.pk, django_capture_on_commit_callbacks,
            **query, **extra,
        )  # fmt: skip

    body = compared()[1].json()["result"]
    assert body["coefficient"] == "alpha_u"
    assert (body["later"]["round_name"], body["earlier"]["round_name"]) == ("R2", "R1")
    assert body["paired"] is True
    assert body["n_shared_items"] == 4
    assert body["difference"]["estimate"] < 0
    assert body["difference"]["ci"]["replicates"] == 100
    f1 = compared(coefficient="span_f1")[1].json()["result"]
    assert f1["coefficient"] == "span_f1"
    assert f1["difference"]["estimate"] < 0
    refused, _ = compared(coefficient="kappa")
    assert refused.status_code == 400
    assert "alpha_u, span_f1, span_f1_overlap" in str(refused.json())


def test_the_api_refuses_a_span_coefficient_for_comparing_other_questions(
    study: Study, annotator_client: Any
) -> None:
    question = nominal_question(study, key="topic")
    rounds = [RoundFactory(study=study, name=f"R{n}", position=n) for n in (1, 2)]
    for round_ in rounds:
        label_round(round_, question, [["a", "b", "c"], ["a", "b", "b"]])
    response = annotator_client.post(
        f"/api/v1/studies/{study.pk}/comparisons/",
        {"question": "topic", "first": "R1", "second": "R2", "coefficient": "alpha_u"},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["errors"][0]["attr"] == "coefficient"
    assert "Rounds of a nominal question are compared on " in str(response.json())
    assert "not alpha_u." in str(response.json())
