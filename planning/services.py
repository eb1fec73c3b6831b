"""Plan requests: validate and create, claim, run on the worker, and sweep.

::

    plan_request_create ──(after commit)──► plan_run_task: plan_claim → plan_run → done | failed
          ▲                                                     │
          └──────────── plans_sweep (never sent, or the worker died) ◄┘

Input is checked here, with one message per field (the API answers 400 with them): the
question can be planned (not a span question), the coefficient applies to its kind, the
pilot round has annotations of the question from at least two coders, or the assumptions
name the question's categories with shares summing to 1 and one assumed agreement.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from agreement_server.worker_jobs import job_beat, job_claim, job_fail, job_finish, jobs_sweep
from computations.model_coders import scope_without_models
from computations.scope import scope_annotations
from computations.services import heartbeat_timeout, resend_after
from metrics.planning import DEFAULT_PILOT_UNCERTAINTY, PILOT_UNCERTAINTY
from planning import dispatch
from planning.models import PlanRequest, PlanStatus
from planning.simulation import (
    MAX_PATTERNS,
    PLAN_COEFFICIENTS,
    Pilot,
    PlanSpec,
    plan_result,
)
from studies.closest import category_hint
from studies.kinds import Feature, KindRefusalError
from studies.models import Annotation, Category, Question, Round, Study

logger = logging.getLogger(__name__)

#: At most this many designs (coders per item) in one request.
MAX_DESIGNS = 6
MAX_CODERS_PER_ITEM = 50
MAX_ITEMS_LIMIT = 1_000_000


# -- validation ----------------------------------------------------------------------------------


def _range_errors(
    *, target: float, power: float, confidence: float, max_items: int
) -> dict[str, str]:
    errors = {}
    if not (math.isfinite(target) and -1.0 < target < 1.0):
        errors["target"] = f"The lower bound to reach, between -1 and 1 (exclusive); got {target}."
    if not (math.isfinite(power) and 0.0 < power < 1.0):
        errors["power"] = f"A probability strictly between 0 and 1 (e.g. 0.9); got {power}."
    if not (math.isfinite(confidence) and 0.0 < confidence < 1.0):
        errors["confidence"] = (
            f"The interval's level strictly between 0 and 1 (e.g. 0.95); got {confidence}."
        )
    if not 20 <= max_items <= MAX_ITEMS_LIMIT:
        errors["max_items"] = f"From 20 to {MAX_ITEMS_LIMIT:,} items; got {max_items}."
    return errors


def _question_errors(question: Question, coefficient: str) -> dict[str, str]:
    try:
        question.label_kind.require(Feature.PLANNING)
    except KindRefusalError as refusal:
        return {
            "question": f"Question {question.key!r} is a {question.kind} question: "
            f"{refusal.message}"
        }
    allowed = PLAN_COEFFICIENTS[question.kind]
    if coefficient not in allowed:
        return {
            "coefficient": f"{coefficient!r} does not apply to the {question.kind} question "
            f"{question.key!r}; choose one of {', '.join(allowed)}."
        }
    return {}


def _design_errors(question: Question, designs: Sequence[int], n_categories: int) -> dict[str, str]:
    if not designs:
        return {}
    if not question.label_kind.plan_model:
        return {
            "coders_per_item": "Other designs are planned with the nominal model: only for "
            f"nominal questions ({question.key!r} is {question.kind}); leave it empty to plan "
            "the pilot's own design."
        }
    if len(designs) > MAX_DESIGNS or len(set(designs)) != len(designs):
        return {"coders_per_item": f"At most {MAX_DESIGNS} different numbers of coders."}
    for coders in designs:
        if not 2 <= coders <= MAX_CODERS_PER_ITEM:
            return {
                "coders_per_item": f"From 2 to {MAX_CODERS_PER_ITEM} coders per item; got {coders}."
            }
        if n_categories**coders > MAX_PATTERNS:
            return {
                "coders_per_item": f"{n_categories} categories and {coders} coders per item give "
                f"{n_categories**coders:,} label patterns, more than the model enumerates "
                f"({MAX_PATTERNS:,}); plan for fewer coders."
            }
    return {}


def _pilot_errors(question: Question, pilot_round: Round) -> dict[str, str]:
    coders = len(
        Annotation.objects.filter(question=question, round=pilot_round)
        .order_by()
        .values_list("coder_id", flat=True)
        .distinct()[:2]
    )
    if coders == 0:
        return {
            "pilot_round": f"Round {pilot_round.name!r} has no annotations for question "
            f"{question.key!r}: annotate a pilot first, or plan from assumptions."
        }
    if coders < 2:
        return {
            "pilot_round": f"Round {pilot_round.name!r} has annotations of question "
            f"{question.key!r} from one coder only: agreement needs at least two."
        }
    return {}


def _assumption_errors(question: Question, assumptions: Mapping[str, Any]) -> dict[str, str]:
    if not question.label_kind.plan_model:
        return {
            "assumptions": "Planning without a pilot uses the nominal model: only for nominal "
            f"questions ({question.key!r} is {question.kind}); give a pilot round instead."
        }
    unknown = set(assumptions) - {"categories", "alpha", "agreement"}
    if unknown:
        return {"assumptions": f"Unknown keys: {', '.join(sorted(unknown))}."}
    categories = assumptions.get("categories")
    if not isinstance(categories, Mapping) or len(categories) < 2:
        return {
            "assumptions.categories": "At least two categories with their expected shares, "
            'e.g. {"yes": 0.3, "no": 0.7}.'
        }
    codes = set(Category.objects.filter(question=question).values_list("code", flat=True))
    for code, share in categories.items():
        if code not in codes:
            return {
                "assumptions.categories": f"{code!r} is not a category of question "
                f"{question.key!r} {category_hint(str(code), sorted(codes))}."
            }
        if not (isinstance(share, int | float) and not isinstance(share, bool) and share > 0):
            return {
                "assumptions.categories": f"The share of {code!r} must be above 0; got {share!r}."
            }
    total = float(sum(categories.values()))
    if abs(total - 1.0) > 1e-6:
        return {"assumptions.categories": f"The shares must sum to 1; they sum to {total:.6g}."}
    given = [key for key in ("alpha", "agreement") if assumptions.get(key) is not None]
    if len(given) != 1:
        return {
            "assumptions": "Give exactly one assumed agreement: alpha (the population alpha, "
            "0 to 1) or agreement (the share of coder pairs that agree)."
        }
    value = assumptions[given[0]]
    chance = sum(float(share) ** 2 for share in categories.values())
    low = 0.0 if given[0] == "alpha" else chance
    if not (isinstance(value, int | float) and not isinstance(value, bool) and low <= value <= 1):
        return {f"assumptions.{given[0]}": f"From {low:.4g} to 1; got {value!r}."}
    return {}


# -- create --------------------------------------------------------------------------------------


@transaction.atomic
def plan_request_create(
    *,
    study: Study,
    question: Question,
    target: float,
    pilot_round: Round | None = None,
    assumptions: Mapping[str, Any] | None = None,
    coefficient: str = "alpha",
    confidence: float = 0.95,
    power: float = 0.9,
    coders_per_item: Sequence[int] = (),
    max_items: int = 10_000,
    replicates: int = 1000,
    seed: int = 0,
    pilot_uncertainty: str = DEFAULT_PILOT_UNCERTAINTY,
    requested_by: Any = None,
) -> PlanRequest:
    """Check the request, store it, and send it to a worker once the transaction commits."""
    if question.study_id != study.pk or (
        pilot_round is not None and pilot_round.study_id != study.pk
    ):
        raise ValidationError("The question and the pilot round must belong to the study.")
    designs = [int(c) for c in coders_per_item]
    errors = _range_errors(target=target, power=power, confidence=confidence, max_items=max_items)
    errors.update(_question_errors(question, coefficient))
    if pilot_uncertainty not in PILOT_UNCERTAINTY:
        errors["pilot_uncertainty"] = (
            f"One of {', '.join(PILOT_UNCERTAINTY)}; got {pilot_uncertainty!r}."
        )
    if not errors:
        if pilot_round is not None and assumptions:
            errors["assumptions"] = "Give a pilot round or assumptions, not both."
        elif pilot_round is not None:
            errors.update(_pilot_errors(question, pilot_round))
        elif assumptions:
            errors.update(_assumption_errors(question, assumptions))
            designs = designs or [2]
        else:
            errors["pilot_round"] = (
                "Give a pilot round (its annotations are resampled), or, without one, "
                "assumptions: the expected category shares and alpha or agreement."
            )
    if not errors:
        n_categories = (
            len(assumptions["categories"])
            if assumptions
            else Category.objects.filter(question=question).count()
        )
        errors.update(_design_errors(question, designs, n_categories))
    if errors:
        raise ValidationError(errors)
    plan = PlanRequest.objects.create(
        study=study,
        question=question,
        pilot_round=pilot_round,
        assumptions=dict(assumptions or {}),
        coefficient=coefficient,
        confidence=confidence,
        target=target,
        power=power,
        coders_per_item=designs,
        max_items=max_items,
        replicates=replicates,
        seed=seed,
        pilot_uncertainty=pilot_uncertainty,
        requested_by=requested_by if getattr(requested_by, "pk", None) else None,
        dispatched_at=timezone.now(),
    )
    dispatch.plan_run_enqueue(plan.pk)
    logger.info("plan requested id=%s study=%s question=%s", plan.pk, study.pk, question.pk)
    return plan


# -- the worker ----------------------------------------------------------------------------------


def plan_claim(*, plan_id: int) -> bool:
    """queued → running, atomically; False when another worker has it (or it is finished)."""
    return job_claim(PlanRequest, plan_id, progress=0.0)


def _spec(plan: PlanRequest) -> PlanSpec:
    return PlanSpec(
        kind=plan.question.kind,
        coefficient=plan.coefficient,
        target=plan.target,
        power=plan.power,
        confidence=plan.confidence,
        max_items=plan.max_items,
        replicates=plan.replicates,
        seed=plan.seed,
        coders_per_item=tuple(int(c) for c in plan.coders_per_item),
        assumptions=plan.assumptions,
        pilot_uncertainty=plan.pilot_uncertainty,
    )


def plan_run(*, plan_id: int) -> None:
    """Compute the claimed plan and store its result, or its failure with the reason."""
    plan = PlanRequest.objects.select_related("question", "pilot_round").filter(pk=plan_id).first()
    if plan is None or plan.status != PlanStatus.RUNNING:
        logger.info("plan run skipped id=%s (not running)", plan_id)
        return

    def progress(share: float) -> None:
        job_beat(plan, progress=min(max(share, 0.0), 1.0))

    try:
        pilot = None
        if not plan.assumptions:
            if plan.pilot_round is None:
                raise ValueError("The pilot round was deleted; request a new plan.")
            scope = scope_without_models(
                scope_annotations(question=plan.question, round_ids=[plan.pilot_round.pk]),
                study_id=plan.question.study_id,
            )
            if scope.n_annotations == 0:
                raise ValueError(
                    f"Round {plan.pilot_round.name!r} has no annotations by people any more."
                )
            pilot = Pilot(name=plan.pilot_round.name, round_id=plan.pilot_round.pk, scope=scope)
        result = plan_result(_spec(plan), pilot, on_step=progress)
    except ValueError as error:
        _fail(plan, str(error))
        return
    except Exception as error:
        logger.exception("plan crashed id=%s", plan_id)
        _fail(plan, f"{type(error).__name__}: {error}")
        return
    updated = job_finish(plan, status=PlanStatus.DONE, result=result, progress=1.0)
    logger.info("plan finished status=%s error=%s updated=%s", PlanStatus.DONE, "", updated)


def _fail(plan: PlanRequest, error: str) -> None:
    updated = job_fail(plan, error)
    logger.info("plan finished status=%s error=%s updated=%s", PlanStatus.FAILED, error, updated)


# -- sweep ---------------------------------------------------------------------------------------


def plans_sweep(*, now: Any = None) -> list[int]:
    """Send again the plans nothing else will; returns their ids.

    - queued, and never sent (``dispatched_at`` null: the broker refused) or sent longer than
      ``resend_after()`` ago and still unclaimed (the message was lost);
    - running, with no progress for ``heartbeat_timeout()`` (the worker died): back to queued.

    See ``agreement_server.worker_jobs.jobs_sweep``.
    """
    now = now or timezone.now()
    sent = jobs_sweep(
        PlanRequest,
        send=dispatch.plan_run_send,
        silent_before=now - _running_timeout(),
        sent_before=now - resend_after(),
        now=now,
    )
    if sent:
        logger.warning("plans sent again by the sweep ids=%s", sent)
    return sent


def _running_timeout() -> timedelta:
    # A plan reports progress after each design (seconds apart); a silent one is dead.
    return max(heartbeat_timeout(), timedelta(seconds=60))
