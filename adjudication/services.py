"""Gold and adjudication: writes, and the reference results computed on the worker.

- ``gold_coder_set`` / ``gold_coder_unset``: the round's gold coder;
- ``adjudicate``: the reference label of an item, picked from a coder or entered, with a
  note; an earlier adjudication of the item is superseded, never overwritten;
- ``reference_result_request``: mark a round and question's results queued and send the
  work to a worker after commit (``dispatch.py``); ``reference_result_run`` computes and
  stores them there; ``reference_results_sweep`` re-sends what the broker never got.

Every write that changes a reference requests its results again; so does a finished
computation of a round that has a reference (``reference_on_computation_finished``).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from adjudication import dispatch
from adjudication.engine import reference_report
from adjudication.models import (
    Adjudication,
    AdjudicationSource,
    ReferenceResult,
    ReferenceStatus,
    RoundReference,
)
from adjudication.signals import items_adjudicated
from agreement_server.worker_jobs import job_claim, job_fail, job_finish, jobs_sweep
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import coder_keys, scope_annotations
from studies.kinds import Feature, KindRefusalError, kinds_with
from studies.labels import Label, LabelError, LabelScheme, label_of
from studies.models import Annotation, Coder, Item, Question, Round

logger = logging.getLogger(__name__)

BOTH_GIVEN = "Give either a label or the coder whose label to take, not both."
NONE_GIVEN = "Give the reference label, or the coder whose label to take."

#: A queued result not handed over for this long, or running without end for this long,
#: is sent again by the sweep.
STALE_AFTER = timedelta(minutes=10)


def _audit(user: Any) -> Any:
    return user if getattr(user, "pk", None) else None


def _check_question(round_: Round, question: Question) -> None:
    if question.study_id != round_.study_id:
        raise ValidationError({"question": "This question belongs to another study."})
    try:
        question.label_kind.require(Feature.ADJUDICATION)
    except KindRefusalError as refusal:
        raise ValidationError({"question": refusal.message}) from None


# -- the gold coder ------------------------------------------------------------------------------


@transaction.atomic
def gold_coder_set(*, round_: Round, coder: Coder, user: Any = None) -> RoundReference:
    """Make ``coder`` the round's gold coder (replacing any other) and request the results."""
    if coder.study_id != round_.study_id:
        raise ValidationError({"gold_coder": "This coder belongs to another study."})
    reference, _ = RoundReference.objects.update_or_create(
        round=round_, defaults={"gold_coder": coder, "updated_by": _audit(user)}
    )
    _request_round(round_)
    return reference


@transaction.atomic
def gold_coder_unset(*, round_: Round) -> None:
    """The round has no gold coder any more; adjudicated labels stay the reference."""
    RoundReference.objects.filter(round=round_).delete()
    _request_round(round_)


def _request_round(round_: Round) -> None:
    """Request the results of every question the round has labels or adjudications for."""
    question_ids = set(
        Annotation.objects.filter(round=round_, question__kind__in=kinds_with(Feature.REFERENCE))
        .values_list("question_id", flat=True)
        .distinct()
    )
    question_ids |= set(
        Adjudication.objects.filter(round=round_).values_list("question_id", flat=True)
    )
    for question in Question.objects.filter(pk__in=question_ids):
        reference_result_request(round_=round_, question=question)


# -- adjudication --------------------------------------------------------------------------------


def _label_from_coder(round_: Round, question: Question, item: Item, coder: Coder) -> Label:
    row = (
        Annotation.objects.filter(round=round_, question=question, item=item, coder=coder)
        .values_list("category_id", "number", "category_set")
        .first()
    )
    if row is None:
        raise ValidationError(
            {"coder": f"Coder {coder.key} did not label item {item.external_id} in this round."}
        )
    return label_of(*row)


@transaction.atomic
def adjudicate(
    *,
    round_: Round,
    question: Question,
    item: Item,
    label: Any = None,
    coder: Coder | None = None,
    note: str = "",
    user: Any = None,
) -> Adjudication:
    """Record the reference label of ``item``: coder ``coder``'s label, or ``label`` entered
    in the question's label format (exactly one of them). The item's current adjudication,
    if any, is superseded and kept. The item leaves the review queue (``items_adjudicated``)
    and the round's results against the reference are requested again."""
    _check_question(round_, question)
    if item.study_id != round_.study_id:
        raise ValidationError({"item": "This item belongs to another study."})
    if coder is not None and label is not None:
        raise ValidationError({"label": ValidationError(BOTH_GIVEN, code="label_and_coder")})
    if coder is None and label is None:
        raise ValidationError({"label": ValidationError(NONE_GIVEN, code="required")})
    scheme = LabelScheme.for_question(question)
    if coder is not None:
        if coder.study_id != round_.study_id:
            raise ValidationError({"coder": "This coder belongs to another study."})
        parsed = _label_from_coder(round_, question, item, coder)
        source = AdjudicationSource.CODER
    else:
        try:
            parsed = scheme.parse(label)
        except LabelError as error:
            raise ValidationError(
                {"label": ValidationError(error.message, code=error.code)}
            ) from None
        source = AdjudicationSource.ENTERED
    category_id, number, category_set = parsed
    now = timezone.now()
    Adjudication.objects.select_for_update().filter(
        round=round_, question=question, item=item, superseded_at__isnull=True
    ).update(superseded_at=now)
    adjudication = Adjudication(
        round=round_,
        question=question,
        item=item,
        category_id=category_id,
        number=number,
        category_set=list(category_set) if category_set is not None else None,
        value=scheme.text(parsed),
        source=source,
        source_coder=coder,
        note=note,
        created_at=now,
        created_by=_audit(user),
    )
    adjudication.full_clean(exclude=["category", "source_coder", "round", "question", "item"])
    adjudication.save()
    items_adjudicated.send(
        sender=Adjudication,
        round_id=round_.pk,
        question_id=question.pk,
        item_ids=[item.pk],
        note=note,
        user=_audit(user),
    )
    reference_result_request(round_=round_, question=question)
    return adjudication


# -- results on the worker -----------------------------------------------------------------------


def reference_result_request(*, round_: Round, question: Question) -> ReferenceResult:
    """Queue the round and question's results (kept until the new ones are stored) and send
    the work after commit."""
    now = timezone.now()
    with transaction.atomic():
        result, _ = ReferenceResult.objects.select_for_update().get_or_create(
            round=round_, question=question
        )
        result.status = ReferenceStatus.QUEUED
        result.requested_at = now
        result.dispatched_at = now
        result.error = ""
        result.save(update_fields=["status", "requested_at", "dispatched_at", "error"])
        dispatch.reference_compute_enqueue(result.pk)
    return result


def reference_result_claim(*, result_id: int) -> bool:
    """Take a queued result for this worker (a conditional UPDATE: one worker wins)."""
    return job_claim(ReferenceResult, result_id)


def reference_inputs(*, round_: Round, question: Question) -> dict[str, Any]:
    """The reference label of each item (adjudication, else the gold coder's) in the
    metrics' terms, and the coders measured against it (every coder but the gold one)."""
    scope = scope_annotations(question=question, round_ids=[round_.pk])
    gold = RoundReference.objects.filter(round=round_).values_list("gold_coder_id", flat=True)
    gold_id = gold.first()
    reference: dict[int, Any] = {}
    if gold_id is not None:
        mine = scope.coder_ids == gold_id
        for item_id, value in zip(
            scope.item_ids[mine].tolist(),
            [scope.labels[i] for i in mine.nonzero()[0]],
            strict=True,
        ):
            reference[int(item_id)] = value
    scheme = LabelScheme.for_question(question)
    for item_id, category_id, number, category_set in Adjudication.objects.filter(
        round=round_, question=question, superseded_at__isnull=True
    ).values_list("item_id", "category_id", "number", "category_set"):
        value = _metrics_label(scheme, label_of(category_id, number, category_set))
        if value is not None:
            reference[item_id] = value
    coder_ids = sorted({int(c) for c in scope.coder_ids.tolist()} - {gold_id})
    names = coder_keys(coder_ids)
    return {
        "scope": scope,
        "reference": reference,
        "coder_names": {pk: names[pk] for pk in coder_ids},
        "gold_coder_key": (
            Coder.objects.filter(pk=gold_id).values_list("key", flat=True).first()
            if gold_id is not None
            else None
        ),
    }


def _metrics_label(scheme: LabelScheme, label: Label) -> Any:
    """The label as the metrics compare it; None when a category it names was deleted."""
    category_id, number, category_set = label
    if category_id is not None:
        return scheme.code_by_id.get(category_id)
    if number is not None:
        return float(number)
    if not category_set or any(pk not in scheme.code_by_id for pk in category_set):
        return None
    return frozenset(scheme.code_by_id[pk] for pk in category_set)


def reference_result_run(*, result_id: int) -> None:
    """Compute a claimed result and store it; a failure is stored with its reason."""
    result = ReferenceResult.objects.select_related("round", "question").get(pk=result_id)
    try:
        results = reference_results_compute(round_=result.round, question=result.question)
    except Exception as error:  # stored for the reader; the worker goes on
        logger.exception("reference results failed id=%s", result_id)
        job_fail(result, f"{type(error).__name__}: {error}")
        return
    # A request while this one ran set the row queued again: its own run stores the newer data.
    job_finish(result, status=ReferenceStatus.DONE, results=results)


def reference_results_compute(*, round_: Round, question: Question) -> dict[str, Any]:
    """Each coder of the round against its reference, as stored JSON (see ``engine``)."""
    inputs = reference_inputs(round_=round_, question=question)
    scope = inputs["scope"]
    head = {
        "gold_coder": inputs["gold_coder_key"],
        "n_adjudicated": Adjudication.objects.filter(
            round=round_, question=question, superseded_at__isnull=True
        ).count(),
    }
    if not inputs["reference"]:
        note = "The round has no reference yet: set a gold coder or adjudicate items."
        return {**head, "n_reference_items": 0, "coders": [], "labels": [], "note": note}
    report = reference_report(
        kind=question.kind,
        item_ids=scope.item_ids,
        coder_ids=scope.coder_ids,
        labels=scope.labels,
        reference=inputs["reference"],
        coder_names=inputs["coder_names"],
        domain=scope.domain,
        parents=scope.parents,
        replicates=settings.AGREEMENT_REFERENCE_BOOTSTRAP,
        seed=0,
        confidence=0.95,
    )
    return {**head, **report}


def reference_results_sweep(*, now: Any = None) -> list[int]:
    """Send again the results the broker never got (queued, not handed over or long ago)
    and those whose worker died (running for longer than ``STALE_AFTER``); see
    ``agreement_server.worker_jobs.jobs_sweep``."""
    now = now or timezone.now()
    stale = now - STALE_AFTER
    return jobs_sweep(
        ReferenceResult,
        send=dispatch.reference_compute_send,
        silent_before=stale,
        sent_before=stale,
        now=now,
    )


def reference_on_computation_finished(*, computation_id: int) -> list[int]:
    """Request the results of a done one-round computation's round and question when the
    round has a reference (a gold coder, or adjudications of that question)."""
    computation = Computation.objects.select_related("question").filter(pk=computation_id).first()
    if (
        computation is None
        or computation.status != ComputationStatus.DONE
        or computation.scope != ComputationScope.ROUND
        or not computation.question.label_kind.supports(Feature.REFERENCE)
    ):
        return []
    requested = []
    for round_ in computation.rounds.all():
        has_reference = (
            RoundReference.objects.filter(round=round_).exists()
            or Adjudication.objects.filter(round=round_, question=computation.question).exists()
        )
        if has_reference:
            result = reference_result_request(round_=round_, question=computation.question)
            requested.append(result.pk)
    return requested
