"""Computations: parameters, request and reuse, staleness, claim, run, fan-out, sweep."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import numpy as np
import pytest
from django.core.exceptions import ValidationError
from django.utils import timezone

from computations import services as service
from computations.models import (
    Computation,
    ComputationChunk,
    ComputationScope,
    ComputationStatus,
    ComputationTrigger,
)
from computations.scope import scope_annotations
from computations.selectors import computation_is_stale
from computations.services import (
    computation_claim,
    computation_parameters,
    computation_request,
    computations_request_for_closed_round,
    computations_sweep,
)
from metrics import ReliabilityData, annotator_bias, coincidence_matrix
from studies.models import Annotation, LabelKind
from tests.computations.helpers import (
    EngineDouble,
    label_round,
    nominal_question,
    random_table,
)
from tests.factories import QuestionFactory, RoundFactory

pytestmark = pytest.mark.django_db

TABLE = [
    ["a", "a", "b", "c", "a", None],
    ["a", "b", "b", "c", "a", "c"],
    ["a", "a", "b", "c", None, "c"],
]


@pytest.fixture
def engine_double(monkeypatch: pytest.MonkeyPatch) -> EngineDouble:
    return EngineDouble(monkeypatch)


@pytest.fixture
def labelled(study: Any) -> tuple[Any, Any]:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, TABLE)
    return question, round_


def request(study: Any, question: Any, round_: Any, **parameters: Any) -> Any:
    return computation_request(
        study=study, question=question, scope=ComputationScope.ROUND, rounds=[round_],
        parameters=parameters,
    )  # fmt: skip


# -- parameters ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "distance", "coefficient"),
    [
        (LabelKind.SET, "masi", "alpha"),
        (LabelKind.HIERARCHY, "tree", "alpha"),
        (LabelKind.INTERVAL, "interval", "alpha"),
        (LabelKind.RATIO, "ratio", "alpha"),
        (LabelKind.ORDINAL, "ordinal", "kappa_w"),
        (LabelKind.NOMINAL, "nominal", "kappa"),
    ],
)
def test_parameters_default_to_the_question_kinds_coefficients_and_distance(
    study: Any, kind: str, distance: str, coefficient: str
) -> None:
    question = QuestionFactory(study=study, kind=kind)
    params = computation_parameters(question=question, given={})
    assert params["distance"] == distance
    assert coefficient in params["coefficients"]
    assert params["bootstrap"] == 1000
    assert params["confidence"] == 0.95


def test_parameters_given_override_the_defaults(study: Any) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.NOMINAL)
    params = computation_parameters(
        question=question, given={"coefficients": ["alpha"], "bootstrap": 0, "seed": 7}
    )
    assert params["coefficients"] == ["alpha"]
    assert (params["bootstrap"], params["seed"]) == (0, 7)


@pytest.mark.parametrize(
    "given",
    [
        {"coefficients": ["nope"]},
        {"bootstrap": 1},
        {"bootstrap": -5},
        {"confidence": 1.0},
        {"seed": -1},
        {"distance": "euclid"},
        {"level": "fuzzy"},
        {"colour": "red"},
    ],
)
def test_parameters_out_of_range_are_refused(study: Any, given: dict) -> None:
    question = QuestionFactory(study=study, kind=LabelKind.NOMINAL)
    with pytest.raises(ValidationError):
        computation_parameters(question=question, given=given)


# -- the adapter ------------------------------------------------------------------------------


def test_scope_annotations_streams_one_row_per_annotation_with_codes(labelled: Any) -> None:
    question, round_ = labelled
    scope = scope_annotations(question=question, round_ids=[round_.pk])
    assert scope.n_annotations == 16
    assert sorted(set(scope.labels)) == ["a", "b", "c"]
    assert scope.domain == ("a", "b", "c")
    assert len(scope.fingerprint) == 64


def test_scope_fingerprint_changes_with_any_label_and_only_then(labelled: Any) -> None:
    question, round_ = labelled
    before = scope_annotations(question=question, round_ids=[round_.pk]).fingerprint
    assert scope_annotations(question=question, round_ids=[round_.pk]).fingerprint == before
    annotation = Annotation.objects.filter(round=round_, category__code="a").first()
    annotation.category = question.categories.get(code="b")
    annotation.save()
    assert scope_annotations(question=question, round_ids=[round_.pk]).fingerprint != before


def test_pooled_rounds_keep_each_rounds_items_apart(study: Any) -> None:
    question = nominal_question(study)
    first, second = RoundFactory(study=study), RoundFactory(study=study)
    coders, items = label_round(first, question, [["a", "b"], ["a", "b"]])
    label_round(second, question, [["b", "b"], ["a", "b"]], coders=coders, items=items)
    scope = scope_annotations(question=question, round_ids=[first.pk, second.pk])
    assert len(set(scope.item_ids.tolist())) == 4


def test_set_and_number_questions_are_read_as_frozensets_and_floats(study: Any) -> None:
    sets = nominal_question(study, kind=LabelKind.SET)
    numbers = QuestionFactory(study=study, kind=LabelKind.INTERVAL)
    round_ = RoundFactory(study=study)
    label_round(round_, sets, [["a|b", "c"], ["a", "c|b"]])
    label_round(round_, numbers, [[1.5, 2.0], [1.0, None]])
    set_scope = scope_annotations(question=sets, round_ids=[round_.pk])
    assert frozenset({"a", "b"}) in set_scope.labels
    number_scope = scope_annotations(question=numbers, round_ids=[round_.pk])
    assert sorted(number_scope.labels.tolist()) == [1.0, 1.5, 2.0]


# -- request, reuse, staleness ------------------------------------------------------------------


def test_request_queues_a_computation_and_runs_it_after_commit(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        result = request(study, question, round_, bootstrap=0)
    assert result.created
    assert Computation.objects.get().status == ComputationStatus.QUEUED
    assert len(callbacks) == 1  # nothing is sent before the commit
    callbacks[0]()
    computation = Computation.objects.get()
    assert computation.status == ComputationStatus.DONE
    assert computation.progress == 1.0
    assert computation.n_annotations == 16
    assert (
        computation.fingerprint
        == scope_annotations(question=question, round_ids=[round_.pk]).fingerprint
    )
    assert computation.results["coefficients"]["alpha"]["value"] is not None
    assert computation.started_at <= computation.finished_at


def test_the_same_request_on_unchanged_data_returns_the_existing_computation(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=True):
        first = request(study, question, round_, bootstrap=0)
    second = request(study, question, round_, bootstrap=0)
    assert not second.created
    assert second.computation.pk == first.computation.pk
    assert Computation.objects.count() == 1
    assert engine_double.calls["point_report"] == 1


def test_a_different_parameter_is_a_different_computation(
    study: Any, labelled: Any, engine_double: EngineDouble
) -> None:
    question, round_ = labelled
    first = request(study, question, round_, bootstrap=0)
    second = request(study, question, round_, bootstrap=0, seed=3)
    assert second.created
    assert second.computation.pk != first.computation.pk


def test_changed_annotations_make_the_computation_stale_and_a_new_request_recompute(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=True):
        first = request(study, question, round_, bootstrap=0).computation
    assert not computation_is_stale(first)
    Annotation.objects.filter(round=round_).first().delete()
    assert computation_is_stale(first)
    with django_capture_on_commit_callbacks(execute=True):
        second = request(study, question, round_, bootstrap=0)
    assert second.created
    second.computation.refresh_from_db()
    assert second.computation.n_annotations == 15
    assert not computation_is_stale(second.computation)


def test_a_failed_computation_does_not_block_a_new_request(
    study: Any, labelled: Any, engine_double: EngineDouble
) -> None:
    question, round_ = labelled
    first = request(study, question, round_, bootstrap=0).computation
    Computation.objects.filter(pk=first.pk).update(status=ComputationStatus.FAILED)
    assert request(study, question, round_, bootstrap=0).created


def test_request_refuses_a_round_of_another_study(study: Any, labelled: Any) -> None:
    question, _ = labelled
    with pytest.raises(ValidationError):
        request(study, question, RoundFactory(), bootstrap=0)


def test_a_study_scope_pools_every_round(
    study: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    rounds = [RoundFactory(study=study), RoundFactory(study=study)]
    for round_ in rounds:
        label_round(round_, question, TABLE)
    with django_capture_on_commit_callbacks(execute=True):
        result = computation_request(
            study=study,
            question=question,
            scope=ComputationScope.STUDY,
            parameters={"bootstrap": 0},
        )
    computation = Computation.objects.get(pk=result.computation.pk)
    assert sorted(computation.rounds.values_list("pk", flat=True)) == sorted(r.pk for r in rounds)
    assert computation.n_annotations == 32


def test_closing_a_round_requests_one_computation_per_labelled_question(
    study: Any, labelled: Any, engine_double: EngineDouble
) -> None:
    question, round_ = labelled
    nominal_question(study, codes=("x",))  # no annotations in the round: nothing to compute
    computations = computations_request_for_closed_round(round=round_)
    assert [c.question_id for c in computations] == [question.pk]
    assert computations[0].trigger == ComputationTrigger.ROUND_CLOSE


# -- claim, failure, idempotency ----------------------------------------------------------------


def test_only_one_claim_of_a_queued_computation_succeeds(study: Any, labelled: Any) -> None:
    question, round_ = labelled
    computation = request(study, question, round_, bootstrap=0).computation
    assert computation_claim(computation_id=computation.pk)
    assert not computation_claim(computation_id=computation.pk)
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.RUNNING
    assert computation.attempts == 1


def test_running_a_finished_computation_again_changes_nothing(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    from computations.tasks import computation_run_task

    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=True):
        computation = request(study, question, round_, bootstrap=0).computation
    computation.refresh_from_db()
    finished = computation.finished_at
    computation_run_task(computation.pk)  # a message delivered twice
    computation_run_task.delay(computation.pk)
    computation.refresh_from_db()
    assert computation.finished_at == finished
    assert computation.attempts == 1
    assert engine_double.calls["point_report"] == 1


def test_an_engine_error_fails_the_computation_with_the_reason(
    study: Any, labelled: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:  # fmt: skip
    def undefined(*args: Any, **kwargs: Any) -> None:
        raise ValueError("There has to be at least one pairable item.")

    monkeypatch.setattr(service.engine, "point_report", undefined)
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=True):
        computation = request(study, question, round_, bootstrap=0).computation
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.FAILED
    assert "pairable" in computation.error
    assert computation.finished_at is not None


def test_an_empty_scope_is_refused_at_request_time_and_creates_nothing(study: Any) -> None:
    question = nominal_question(study, key="unlabelled")
    round_ = RoundFactory(study=study, name="Round 1")
    with pytest.raises(ValidationError) as caught:
        request(study, question, round_, bootstrap=0)
    assert caught.value.message_dict == {
        "rounds": [
            "Question 'unlabelled' has no annotations in round 'Round 1': there is nothing "
            "to compute."
        ]
    }
    assert caught.value.error_dict["rounds"][0].code == "empty_scope"
    assert not Computation.objects.exists()


def test_an_empty_study_scope_names_every_round(study: Any) -> None:
    question = nominal_question(study, key="unlabelled")
    RoundFactory(study=study, name="Round 1")
    with pytest.raises(ValidationError) as caught:
        computation_request(study=study, question=question, scope=ComputationScope.STUDY)
    assert caught.value.messages == [
        "Question 'unlabelled' has no annotations in any round of this study: there is "
        "nothing to compute."
    ]


# -- fan-out ------------------------------------------------------------------------------------


def test_a_large_bootstrap_fans_out_in_chunks_and_combines_once(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=True):
        computation = request(study, question, round_, bootstrap=55, chunk_size=10).computation
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE
    assert computation.chunks_total == 6
    chunks = list(ComputationChunk.objects.filter(computation=computation).order_by("index"))
    assert [(c.start, c.stop) for c in chunks][-1] == (50, 55)
    assert all(c.done for c in chunks)
    assert engine_double.calls["bootstrap_combine"] == 1
    # The chunked interval is the one an unchunked bootstrap gives.
    inline = engine_double.point_report(
        service._load(computation).data, {"seed": 0}, parents={}, bootstrap=55
    )
    assert (
        computation.results["coefficients"]["alpha"]["ci"] == inline["coefficients"]["alpha"]["ci"]
    )
    assert computation.progress == 1.0


def test_a_redelivered_chunk_or_combine_message_changes_nothing(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    from computations.tasks import computation_chunk_task, computation_combine_task

    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=True):
        computation = request(study, question, round_, bootstrap=30, chunk_size=10).computation
    chunk = ComputationChunk.objects.filter(computation=computation).first()
    computation_chunk_task(chunk.pk)
    computation_combine_task(computation.pk)
    assert engine_double.calls["bootstrap_chunks"] == 3
    assert engine_double.calls["bootstrap_combine"] == 1


def test_chunks_of_a_requeued_computation_are_not_computed_again(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = labelled
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        computation = request(study, question, round_, bootstrap=30, chunk_size=10).computation
    computation_claim(computation_id=computation.pk)
    with django_capture_on_commit_callbacks(execute=False) as chunk_sends:
        service.computation_run(computation_id=computation.pk)
    assert callbacks
    assert chunk_sends
    first = ComputationChunk.objects.filter(computation=computation).order_by("index").first()
    service.computation_chunk_run(chunk_id=first.pk)  # one chunk done, then the worker dies
    Computation.objects.filter(pk=computation.pk).update(
        heartbeat_at=timezone.now() - timedelta(hours=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        assert computations_sweep(timeout=timedelta(minutes=5)) == [computation.pk]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE
    assert engine_double.calls["bootstrap_chunks"] == 3  # 1 before, 2 after: none twice


# -- sweep --------------------------------------------------------------------------------------


def test_the_sweep_requeues_a_running_computation_whose_heartbeat_stopped(
    study: Any, labelled: Any, engine_double: EngineDouble, django_capture_on_commit_callbacks: Any
) -> None:
    question, round_ = labelled
    computation = request(study, question, round_, bootstrap=0).computation
    assert computation_claim(computation_id=computation.pk)
    Computation.objects.filter(pk=computation.pk).update(
        heartbeat_at=timezone.now() - timedelta(minutes=10)
    )
    with django_capture_on_commit_callbacks(execute=True):
        requeued = computations_sweep(timeout=timedelta(minutes=5))
    assert requeued == [computation.pk]
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE
    assert computation.attempts == 2


def test_the_sweep_leaves_a_computation_with_a_fresh_heartbeat_alone(
    study: Any, labelled: Any
) -> None:
    question, round_ = labelled
    computation = request(study, question, round_, bootstrap=0).computation
    computation_claim(computation_id=computation.pk)
    assert computations_sweep(timeout=timedelta(minutes=5)) == []
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.RUNNING


# -- real numbers -------------------------------------------------------------------------------


def test_a_computation_stores_the_metrics_report_with_intervals_and_diagnostics(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, random_table(3, 60, ["a", "b", "c"], agree=0.8, seed=1))
    with django_capture_on_commit_callbacks(execute=True):
        computation = request(study, question, round_, bootstrap=200).computation
    computation.refresh_from_db()
    assert computation.status == ComputationStatus.DONE, computation.error
    results = computation.results
    assert results["n_items"] == 60
    assert results["n_coders"] == 3
    alpha = results["coefficients"]["alpha"]
    assert alpha["ci"]["low"] <= alpha["value"] <= alpha["ci"]["high"]
    assert computation.metrics_version
    # The pages only read these: the worker stores them with the rest.
    diagnostics = results["diagnostics"]
    data = ReliabilityData.from_long(
        *zip(
            *Annotation.objects.filter(round=round_).values_list(
                "item_id", "coder_id", "category__code"
            ),
            strict=True,
        ),
        domain=("a", "b", "c"),
    )
    assert diagnostics["coincidence"]["labels"] == ["a", "b", "c"]
    assert np.allclose(diagnostics["coincidence"]["matrix"], coincidence_matrix(data))
    assert len(diagnostics["kappa_comparisons"]) == 3  # every pair of the three coders
    assert diagnostics["annotator_bias"]["bias"] == pytest.approx(annotator_bias(data).bias)


def test_a_fanned_out_bootstrap_equals_the_single_task_bootstrap(
    study: Any, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study)
    round_ = RoundFactory(study=study)
    label_round(round_, question, random_table(3, 60, ["a", "b", "c"], agree=0.7, seed=2))
    params = {"coefficients": ["alpha", "kappa"], "bootstrap": 120, "seed": 5}
    with django_capture_on_commit_callbacks(execute=True):
        single = request(study, question, round_, **params).computation
    Computation.objects.filter(pk=single.pk).update(status=ComputationStatus.FAILED)
    with django_capture_on_commit_callbacks(execute=True):
        fanned = request(study, question, round_, chunk_size=50, **params).computation
    single.refresh_from_db()
    fanned.refresh_from_db()
    assert fanned.chunks_total == 3
    for name in ("alpha", "kappa"):
        a, b = single.results["coefficients"][name], fanned.results["coefficients"][name]
        assert a["value"] == pytest.approx(b["value"])
        assert a["ci"]["low"] == pytest.approx(b["ci"]["low"])
        assert a["ci"]["high"] == pytest.approx(b["ci"]["high"])
