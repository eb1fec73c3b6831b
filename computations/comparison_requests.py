"""Comparisons of two rounds, requested through the API and computed by a worker.

The life of a comparison is a computation's, in one step::

    request ──► queued ──claim──► running ──► done (the result stored)
                  ▲                  │  └──► failed (the reason kept)
                  └──── sweep ───────┘ (heartbeat stopped, or the message was never sent)

``comparison_request`` validates and records the request and hands the run task to the
broker after the commit (``dispatch.comparison_run_enqueue``); ``comparison_run`` (on the
worker) calls ``computations.comparison.rounds_compare`` and stores its answer; the API
only reads the stored row. The same request on unchanged annotations (and the same latest
computation of the later round) finds the live row again instead of computing twice.
"""

from __future__ import annotations

import hashlib
import json
import logging
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from agreement_server.worker_jobs import job_beat, job_claim, job_fail, job_finish, jobs_sweep
from computations import dispatch, engine
from computations.comparison import rounds_compare
from computations.models import ComputationStatus, RoundComparison
from computations.scope import scope_data_revision
from computations.selectors import latest_round_computations
from computations.services import heartbeat_thread, heartbeat_timeout, resend_after
from studies.exceptions import ApplicationError
from studies.models import Question, Round, Study

logger = logging.getLogger(__name__)

DEFAULT_REPLICATES = 1000
MIN_REPLICATES = 2
MAX_REPLICATES = 20_000


@dataclass(frozen=True)
class ComparisonRequestResult:
    comparison: RoundComparison
    created: bool


def _later(first: Round, second: Round) -> Round:
    return first if first.position > second.position else second


def _validate(
    *, study: Study, question: Question, first: Round, second: Round, coefficient: str
) -> None:
    """Refuse, naming the field, what no worker could compare."""
    if question.study_id != study.pk:
        raise ValidationError({"question": "The question belongs to another study."})
    for field, round_ in (("first", first), ("second", second)):
        if round_.study_id != study.pk:
            raise ValidationError({field: "The round belongs to another study."})
    if first.pk == second.pk:
        raise ValidationError(
            {"second": ValidationError("Compare two different rounds.", code="same_round")}
        )
    allowed = question.label_kind.comparable or engine.ALL_COEFFICIENTS
    if coefficient and coefficient not in allowed:
        kind = f"a {question.kind} question"
        raise ValidationError(
            {
                "coefficient": ValidationError(
                    f"Rounds of {kind} are compared on {', '.join(allowed)}, not {coefficient}.",
                    code="invalid_coefficient",
                )
            }
        )
    for field, round_ in (("first", first), ("second", second)):
        if not question.annotations.filter(round=round_).exists():
            raise ValidationError(
                {
                    field: ValidationError(
                        f"Question {question.key!r} has no annotations in round "
                        f"{round_.name!r}: there is nothing to compare.",
                        code="empty_round",
                    )
                }
            )


def _params_hash(fields: dict[str, Any]) -> str:
    text = json.dumps(fields, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()


def _live(params_hash: str, revision: str) -> RoundComparison | None:
    return (
        RoundComparison.objects.filter(params_hash=params_hash, data_revision=revision)
        .exclude(status=ComputationStatus.FAILED)
        .first()
    )


def comparison_request(
    *,
    study: Study,
    question: Question,
    first: Round,
    second: Round,
    coefficient: str | None = None,
    replicates: int = DEFAULT_REPLICATES,
    seed: int = 0,
    confidence: float = 0.95,
    requested_by: Any | None = None,
) -> ComparisonRequestResult:
    """Record a comparison of ``first`` and ``second`` and queue it for a worker, or return
    the live one for the same request on the same data.

    Raises ``ValidationError`` naming the field: a question or round of another study, the
    same round twice (``second``), a coefficient the question's kind is not compared on
    (``coefficient``), a round without annotations of the question (``first``/``second``),
    replicates outside [2, 20000] or a confidence outside [0.5, 1). Nothing is created then.
    """
    coefficient = coefficient or ""
    _validate(study=study, question=question, first=first, second=second, coefficient=coefficient)
    if not MIN_REPLICATES <= replicates <= MAX_REPLICATES:
        raise ValidationError(
            {"bootstrap": f"Between {MIN_REPLICATES} and {MAX_REPLICATES} replicates."}
        )
    if not 0.5 <= confidence < 1:
        raise ValidationError({"confidence": "A confidence in [0.5, 1)."})
    later = _later(first, second)
    latest = latest_round_computations(study=study, question_ids=[question.pk]).get(
        (question.pk, later.pk)
    )
    parameters = dict(latest.parameters) if latest is not None else None
    fields = {
        "question": question.pk,
        "first": first.pk,
        "second": second.pk,
        "coefficient": coefficient,
        "replicates": replicates,
        "seed": seed,
        "confidence": confidence,
        "parameters": parameters,
    }
    params_hash = _params_hash(fields)
    with transaction.atomic():
        revision = "|".join(
            scope_data_revision(question=question, round_ids=[r.pk]) for r in (first, second)
        )[:400]
        existing = _live(params_hash, revision)
        if existing is not None:
            return ComparisonRequestResult(existing, created=False)
        comparison = RoundComparison(
            study=study,
            question=question,
            first=first,
            second=second,
            coefficient=coefficient,
            replicates=replicates,
            seed=seed,
            confidence=confidence,
            parameters=parameters,
            params_hash=params_hash,
            data_revision=revision,
            requested_by=requested_by if getattr(requested_by, "pk", None) else None,
            dispatched_at=timezone.now(),
        )
        try:
            with transaction.atomic():
                comparison.save()
        except IntegrityError:
            existing = _live(params_hash, revision)  # a concurrent identical request won
            if existing is None:
                raise
            return ComparisonRequestResult(existing, created=False)
        dispatch.comparison_run_enqueue(comparison.pk)
    logger.info(
        "comparison queued id=%s question=%s rounds=%s,%s",
        comparison.pk,
        question.pk,
        first.pk,
        second.pk,
    )
    return ComparisonRequestResult(comparison, created=True)


def comparison_is_stale(comparison: RoundComparison) -> bool:
    """True when either round's annotations changed after the comparison was requested."""
    current = "|".join(
        scope_data_revision(question=comparison.question_id, round_ids=[round_id])
        for round_id in (comparison.first_id, comparison.second_id)
    )[:400]
    return current != comparison.data_revision


# -- the worker's side ---------------------------------------------------------------------------


def comparison_claim(*, comparison_id: int) -> bool:
    """queued → running, atomically; False when another worker has it (or it is finished)."""
    return job_claim(RoundComparison, comparison_id)


def _heartbeat(comparison: RoundComparison) -> AbstractContextManager[None]:
    """Beat while the bootstrap runs, so the sweep knows the comparison is alive."""
    return heartbeat_thread(lambda: job_beat(comparison), name=f"comparison-{comparison.pk}")


def comparison_run(*, comparison_id: int) -> None:
    """Compute the claimed comparison and store its result (or the reason it failed)."""
    comparison = (
        RoundComparison.objects.select_related("study", "question", "first", "second")
        .filter(pk=comparison_id)
        .first()
    )
    if comparison is None or comparison.status != ComputationStatus.RUNNING:
        logger.info("comparison run skipped id=%s (not running)", comparison_id)
        return
    try:
        with _heartbeat(comparison):
            result = rounds_compare(
                study=comparison.study,
                question=comparison.question,
                first=comparison.first,
                second=comparison.second,
                coefficient=comparison.coefficient or None,
                replicates=comparison.replicates,
                seed=comparison.seed,
                confidence=comparison.confidence,
                parameters=comparison.parameters,
            )
    except ApplicationError as error:
        job_fail(comparison, error.message)
        logger.info("comparison failed id=%s error=%s", comparison_id, error.message)
        return
    except Exception as error:
        logger.exception("comparison crashed id=%s", comparison_id)
        job_fail(comparison, f"{type(error).__name__}: {error}")
        return
    result["question_key"] = comparison.question.key
    # Only the attempt that claimed it finishes it (``job_finish``).
    job_finish(comparison, status=ComputationStatus.DONE, result=result)
    logger.info("comparison done id=%s", comparison_id)


def comparisons_sweep(*, timeout: timedelta | None = None) -> list[int]:
    """Send again every comparison nothing else will send; their ids.

    Running with a heartbeat older than ``timeout`` (its worker died): back to queued and
    sent again. Queued with the message refused by the broker (``dispatched_at`` null) or
    sent longer than ``resend_after()`` ago and unclaimed: sent again
    (``agreement_server.worker_jobs.jobs_sweep``).
    """
    now = timezone.now()
    acted = jobs_sweep(
        RoundComparison,
        send=dispatch.comparison_run_enqueue,
        silent_before=now - (timeout or heartbeat_timeout()),
        sent_before=now - resend_after(),
        now=now,
    )
    if acted:
        logger.warning("comparisons sent again by the sweep ids=%s", acted)
    return acted
