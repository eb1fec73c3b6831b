"""The worker's plan (eager Celery, SQLite) from the seeded pilot of ``tests/planning/pilot.py``.

Expected numbers come from the library's command line on the same pilot written as CSV
(item-000…item-059, coder-0…coder-2), run once and copied here
(docs/references.md#server-plan-pilot):

    python -m metrics plan pilot.csv --domain a,b,c --coefficient alpha --target 0.5 --power 0.8
      → 860 items, probability 0.810; curve 20: 0.055, 40: 0.101, 80: 0.131, 160: 0.230 …
      (the default --pilot-uncertainty lower-bound: the pilot's one-sided 80% lower bound)
    The other designs' model at the pilot's lower bound: the 20% quantile of the pilot's
    1,000 bootstrap replicates of nominal alpha (metrics.bootstrap_chunk, seed 0) is
    0.5509558022864878, and
    python -m metrics plan --categories a:0.34444444444444444,b:0.2777777777777778,\
      c:0.37777777777777777 --alpha 0.5509558022864878 --coders 2 --target 0.5 --power 0.8
      → 1440 items, 0.802
    … --coders 4 → 605 items, 0.822
    Without a pilot the assumed alpha is the truth: … --alpha 0.6158081373646883 --coders 2
      → 278 items, 0.814; --coders 4 → 113 items, 0.805
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import TestCase

from planning.models import PlanRequest, PlanStatus
from planning.services import plan_claim, plan_request_create, plan_run, plans_sweep
from studies.models import CoderKind
from tests.computations.helpers import label_round
from tests.factories import CoderFactory, ItemFactory, RoundFactory, StudyFactory
from tests.planning.pilot import pilot_round

pytestmark = pytest.mark.django_db


def _plan(**kwargs: Any) -> PlanRequest:
    with TestCase.captureOnCommitCallbacks(execute=True):
        plan = plan_request_create(**kwargs)
    return PlanRequest.objects.get(pk=plan.pk)


@pytest.fixture
def pilot() -> tuple[Any, Any, Any]:
    study = StudyFactory()
    round_ = RoundFactory(study=study, name="Pilot")
    return study, round_, pilot_round(round_)


def test_the_worker_stores_the_plan_of_the_pilots_design(pilot: tuple[Any, Any, Any]) -> None:
    study, round_, question = pilot
    plan = _plan(study=study, question=question, pilot_round=round_, target=0.5, power=0.8)
    assert plan.status == PlanStatus.DONE, plan.error
    assert plan.progress == 1.0
    result = plan.result
    assert result["recommended"]["n_items"] == 860
    assert plan.recommended_items == 860
    mine = result["plans"][0]
    assert mine["design"] == "pilot"
    assert mine["coders_per_item"] == 3.0
    assert mine["annotations"] == 2580
    assert mine["probability"] == 0.810
    assert [(p["n"], p["probability"]) for p in mine["curve"][:4]] == [
        (20, 0.055),
        (40, 0.101),
        (80, 0.131),
        (160, 0.230),
    ]
    assert mine["method"] == "bca-abc"
    assert mine["pilot_uncertainty"] == "lower-bound"
    assert result["pilot_uncertainty"] == "lower-bound"
    assert result["pilot"]["n_items"] == 60
    assert result["pilot"]["n_coders"] == 3
    assert result["pilot"]["estimate"] == pytest.approx(0.6158081373646883, abs=1e-12)
    assert result["pilot"]["category_shares"] == pytest.approx(
        {"a": 62 / 180, "b": 50 / 180, "c": 68 / 180}
    )


def test_a_model_coder_is_left_out_of_the_pilot(pilot: tuple[Any, Any, Any]) -> None:
    """The same plan as the people's alone (860 items, above), whatever a model labelled."""
    study, round_, question = pilot
    model = CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt")
    items = [ItemFactory(study=study, external_id=f"extra-{u}") for u in range(20)]
    label_round(round_, question, [["a"] * 20], coders=[model], items=items)
    plan = _plan(study=study, question=question, pilot_round=round_, target=0.5, power=0.8)
    assert plan.status == PlanStatus.DONE, plan.error
    assert plan.recommended_items == 860
    assert (plan.result["pilot"]["n_items"], plan.result["pilot"]["n_coders"]) == (60, 3)


def test_other_designs_use_the_model_fitted_to_the_pilot(pilot: tuple[Any, Any, Any]) -> None:
    study, round_, question = pilot
    plan = _plan(
        study=study,
        question=question,
        pilot_round=round_,
        target=0.5,
        power=0.8,
        coders_per_item=[2, 4],
    )
    assert plan.status == PlanStatus.DONE, plan.error
    by_design = {p["design"]: p for p in plan.result["plans"]}
    assert by_design["2 coders per item"]["n_items"] == 1440
    assert by_design["2 coders per item"]["probability"] == 0.802
    assert by_design["2 coders per item"]["annotations"] == 2880
    assert by_design["4 coders per item"]["n_items"] == 605
    assert by_design["4 coders per item"]["probability"] == 0.822
    # From a pilot the recommendation is the pilot's own design.
    assert plan.result["recommended"]["design"] == "pilot"


def test_without_a_pilot_the_design_with_fewest_annotations_is_recommended() -> None:
    study = StudyFactory()
    round_ = RoundFactory(study=study)
    question = pilot_round(round_)
    assumptions = {
        "categories": {"a": 0.34444444444444444, "b": 0.2777777777777778, "c": 0.37777777777777777},
        "alpha": 0.6158081373646883,
    }
    plan = _plan(
        study=study,
        question=question,
        assumptions=assumptions,
        target=0.5,
        power=0.8,
        coders_per_item=[2, 4],
    )
    assert plan.status == PlanStatus.DONE, plan.error
    assert plan.result["pilot"] is None
    # 2 coders: 278 × 2 = 556 annotations; 4 coders: 113 × 4 = 452.
    assert plan.result["recommended"] == {
        "design": "4 coders per item",
        "n_items": 113,
        "coders_per_item": 4,
        "annotations": 452,
        "probability": 0.805,
    }
    assert plan.result["pilot_uncertainty"] == "none"


def test_an_unreachable_target_fails_with_the_librarys_reason(pilot: tuple[Any, Any, Any]) -> None:
    study, round_, question = pilot
    plan = _plan(study=study, question=question, pilot_round=round_, target=0.7, power=0.8)
    assert plan.status == PlanStatus.FAILED
    assert plan.error.startswith("The target cannot be reached: the alpha of the pilot is 0.6158")
    assert plan.result is None


def test_the_run_is_idempotent_and_the_sweep_resends_unsent_plans(
    pilot: tuple[Any, Any, Any],
) -> None:
    study, round_, question = pilot
    plan = _plan(study=study, question=question, pilot_round=round_, target=0.5, power=0.8)
    assert plan_claim(plan_id=plan.pk) is False  # done: a second message does nothing
    plan_run(plan_id=plan.pk)
    assert PlanRequest.objects.get(pk=plan.pk).result == plan.result
    # A request whose message the broker refused (dispatched_at cleared) is sent by the sweep.
    PlanRequest.objects.filter(pk=plan.pk).update(
        status=PlanStatus.QUEUED, dispatched_at=None, result=None
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert plans_sweep() == [plan.pk]
    again = PlanRequest.objects.get(pk=plan.pk)
    assert again.status == PlanStatus.DONE
    assert again.recommended_items == 860
    assert again.attempts == 2


def test_a_refused_message_leaves_the_plan_to_the_sweep(
    pilot: tuple[Any, Any, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    from celery.canvas import Signature

    study, round_, question = pilot

    def refuse(self: Any, *args: Any, **kwargs: Any) -> None:
        raise ConnectionError("broker down")

    with monkeypatch.context() as patched:
        patched.setattr(Signature, "apply_async", refuse)
        plan = _plan(study=study, question=question, pilot_round=round_, target=0.5, power=0.8)
    # The request succeeded; the plan waits, marked unsent, until the sweep sends it.
    assert plan.status == PlanStatus.QUEUED
    assert plan.dispatched_at is None
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert plans_sweep() == [plan.pk]
    assert PlanRequest.objects.get(pk=plan.pk).recommended_items == 860


def test_the_sweep_requeues_a_plan_whose_worker_died(pilot: tuple[Any, Any, Any]) -> None:
    from datetime import timedelta

    from django.utils import timezone

    study, round_, question = pilot
    plan = _plan(study=study, question=question, pilot_round=round_, target=0.5, power=0.8)
    silent_since = timezone.now() - timedelta(minutes=5)
    PlanRequest.objects.filter(pk=plan.pk).update(
        status=PlanStatus.RUNNING, heartbeat_at=silent_since, result=None
    )
    with TestCase.captureOnCommitCallbacks(execute=True):
        assert plans_sweep() == [plan.pk]
    again = PlanRequest.objects.get(pk=plan.pk)
    assert again.status == PlanStatus.DONE
    assert again.recommended_items == 860
    # A plan that reported progress a moment ago is left alone.
    PlanRequest.objects.filter(pk=plan.pk).update(
        status=PlanStatus.RUNNING, heartbeat_at=timezone.now()
    )
    assert plans_sweep() == []
