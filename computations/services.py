"""Computations: request, claim, run, fan out, combine, and sweep.

The life of a computation::

    request ──► queued ──claim──► running ──► done
                  ▲                  │  └──► failed (the error is kept)
                  └──── sweep ───────┘ (heartbeat stopped: the worker died)

A request on data that has not changed since an identical request returns that
computation (``params_hash`` + ``data_revision``). Work is enqueued after the transaction
commits, tasks take ids only, and each step is a no-op when repeated: the claim is a
conditional UPDATE, chunks are written once, the combine step is claimed the same way.

A bootstrap larger than ``chunk_size`` replicates fans out: the run step stores the point
estimates and creates one chunk per ``chunk_size`` replicates; each chunk task computes its
replicates; the task that finishes the last chunk enqueues the combine step.

A scope of more than ``AGREEMENT_ITEM_CHUNK_ANNOTATIONS`` annotations is split by item
ranges first (phase ``items``): the run step only counts annotations per item and creates
one item chunk per range; each item chunk task reads its range and stores its per-item sums
(``computations/item_sums.py``); the task that finishes the last one enqueues the combine
step, which adds them up (phase ``merging``) into the point estimates and the bootstrap's
rows, and then bootstraps inline or fans the bootstrap out as above. No worker reads the
whole scope then.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import IntegrityError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from computations import dispatch, engine, item_sums, item_table, model_coders
from computations.comparison import COMPARISON_KEY, comparison_with_previous
from computations.models import (
    Computation,
    ComputationChunk,
    ComputationItemChunk,
    ComputationScope,
    ComputationStatus,
    ComputationTrigger,
)
from computations.quality import coder_quality
from computations.scope import (
    ScopeAnnotations,
    ScopeSpans,
    calibration_reads_adjudications,
    coder_keys,
    item_external_ids,
    question_domain,
    scope_adjudications_fingerprint,
    scope_annotations,
    scope_coder_ids,
    scope_data_revision,
    scope_item_counts,
    scope_spans,
    unit_label,
)
from computations.selectors import computation_round_ids
from computations.signals import computation_finished
from computations.structured_step import (
    run_structured_step,
    structured_parameter_errors,
    uses_distance_table,
)
from studies.distance_tables import distance_table_fingerprints
from studies.kinds import Kind, kinds_taking
from studies.models import Annotation, Question, Round, Study

logger = logging.getLogger(__name__)

MAX_BOOTSTRAP = 200_000
LEVELS = engine.LEVELS
# Parameters that change how the work is split, not its result: left out of the hash.
_NOT_HASHED = frozenset({"chunk_size"})


def heartbeat_timeout() -> timedelta:
    """How long a running computation may stay silent before the sweep requeues it."""
    return timedelta(seconds=settings.AGREEMENT_COMPUTATION_HEARTBEAT_SECONDS)


def heartbeat_interval() -> float:
    """How often a working task refreshes its heartbeat (well under the timeout)."""
    return float(settings.AGREEMENT_COMPUTATION_HEARTBEAT_INTERVAL_SECONDS)


def item_chunk_annotations() -> int:
    """Above this many annotations a computation is split by item ranges over the workers."""
    return int(settings.AGREEMENT_ITEM_CHUNK_ANNOTATIONS)


def resend_after() -> timedelta:
    """How long a queued computation's run message may go unclaimed before the sweep sends
    it again (the message was lost); duplicates are harmless (the claim), only wasteful."""
    return timedelta(seconds=settings.AGREEMENT_COMPUTATION_RESEND_AFTER_SECONDS)


# -- parameters ------------------------------------------------------------------------------


def computation_parameters(*, question: Question, given: Mapping[str, Any]) -> dict[str, Any]:
    """The question kind's defaults, overridden by what was given, checked.

    Raises ``ValidationError`` naming each bad field: a parameter the question's kind does
    not take (its defaults name those it takes; the message names the kinds that do: a
    minimum overlap for a nominal question, say), a coefficient of the other family (span
    coefficients are for span questions only, and the others for the other kinds), a bad
    bootstrap size, seed, confidence level, minimum overlap or overlapping rule (``error``
    or ``merge``); a structured kind checks its own parameters (``parameter_errors``).
    """
    params = engine.default_parameters(question.kind)
    params["chunk_size"] = settings.AGREEMENT_COMPUTATION_CHUNK_SIZE
    # The model-coder step's parameters (ε, ...) join only when given: a request without
    # them keeps the parameters, and so the hash, it had before they existed.
    model_errors = model_coders.parameter_errors(question.label_kind, given)
    if model_errors:
        raise ValidationError(model_errors)
    model_params = model_coders.step_parameters(given)
    given = {key: value for key, value in given.items() if key not in model_coders.PARAMETERS}
    if question.label_kind.structured is not None:
        return _structured_parameters(question, params, given)
    span = question.label_kind.units
    errors = _unknown_parameter_errors(question.label_kind, set(given) - set(params))
    if errors:
        raise ValidationError(errors)
    params.update({key: value for key, value in given.items() if value is not None})
    errors.update(_coefficient_errors(params["coefficients"], span=span))
    if span:
        overlap = params["min_overlap"]
        if not (isinstance(overlap, int | float) and 0 <= overlap <= 1):
            errors["min_overlap"] = "The minimum overlap is a share from 0 to 1."
        if params["overlapping"] not in engine.SPAN_OVERLAPPING:
            errors["overlapping"] = (
                "What alpha_u does with one coder's overlapping units of a category: "
                f"one of {', '.join(engine.SPAN_OVERLAPPING)}."
            )
    else:
        if params["level"] not in LEVELS:
            errors["level"] = f"The level of measurement is one of {', '.join(LEVELS)}."
        distances = [*engine.distance_names(), question.label_kind.defaults["distance"]]
        if params["distance"] not in distances:
            errors["distance"] = f"Unknown distance; known: {', '.join(engine.distance_names())}."
    errors.update(_sampling_errors(params))
    if errors:
        raise ValidationError(errors)
    params["coefficients"] = list(dict.fromkeys(params["coefficients"]))
    params["confidence"] = float(params["confidence"])
    if span:
        params["min_overlap"] = float(params["min_overlap"])
    params.update(model_params)
    return params


def _structured_parameters(
    question: Question, params: dict[str, Any], given: Mapping[str, Any]
) -> dict[str, Any]:
    """A structured kind's defaults overridden by what was given, checked by the kind."""
    unknown = _unknown_parameter_errors(question.label_kind, set(given) - set(params))
    if unknown:
        raise ValidationError(unknown)
    params.update({key: value for key, value in given.items() if value is not None})
    errors = structured_parameter_errors(question.label_kind, params)
    errors.update(_sampling_errors(params))
    if errors:
        raise ValidationError(errors)
    params["coefficients"] = list(dict.fromkeys(params["coefficients"]))
    params["confidence"] = float(params["confidence"])
    return params


def _unknown_parameter_errors(kind: Kind, names: set[str]) -> dict[str, str]:
    """A message per parameter the question's kind does not take, naming the kinds that do."""
    errors: dict[str, str] = {}
    for name in sorted(names):
        takers = kinds_taking(name)
        if kind.units and name in ("level", "distance"):
            errors[name] = f"A span question has no {name}: its coefficients fix their own."
        elif takers:
            errors[name] = (
                f"{kind.key.capitalize()} questions take no {name}: it is a parameter of "
                f"{_listed(takers)} questions."
            )
        else:
            errors[name] = f"Unknown parameter {name!r}."
    return errors


def _listed(names: Sequence[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _coefficient_errors(coefficients: Any, *, span: bool) -> dict[str, str]:
    """Span coefficients for span questions only, the others for the other kinds."""
    known = engine.SPAN_COEFFICIENTS if span else engine.ALL_COEFFICIENTS
    other = engine.ALL_COEFFICIENTS if span else engine.SPAN_COEFFICIENTS
    choose = f"choose one or more of: {', '.join(known)}."
    if not coefficients or not isinstance(coefficients, list | tuple):
        return {"coefficients": choose.capitalize()}
    misplaced = [name for name in coefficients if name in other and name not in known]
    if misplaced:
        family = "not for span questions" if span else "for span questions only"
        return {"coefficients": f"{', '.join(misplaced)}: {family}; {choose}"}
    if any(name not in known for name in coefficients):
        return {"coefficients": choose.capitalize()}
    return {}


def _sampling_errors(params: Mapping[str, Any]) -> dict[str, str]:
    """What is wrong with the bootstrap size, seed, confidence level and chunk size."""
    errors: dict[str, str] = {}
    if not (isinstance(params["bootstrap"], int) and 0 <= params["bootstrap"] <= MAX_BOOTSTRAP):
        errors["bootstrap"] = f"The bootstrap size is a whole number from 0 to {MAX_BOOTSTRAP}."
    elif params["bootstrap"] == 1:
        errors["bootstrap"] = "A bootstrap needs at least 2 replicates (or 0 for none)."
    if not (isinstance(params["seed"], int) and params["seed"] >= 0):
        errors["seed"] = "The seed is a non-negative whole number."
    confidence = params["confidence"]
    if not (isinstance(confidence, int | float) and 0.5 <= confidence < 1):
        errors["confidence"] = "The confidence level is at least 0.5 and below 1."
    if not (isinstance(params["chunk_size"], int) and params["chunk_size"] >= 10):
        errors["chunk_size"] = "Chunks hold at least 10 replicates."
    return errors


def parameters_hash(
    *,
    question: Question,
    scope: str,
    round_ids: Sequence[int],
    params: Mapping[str, Any],
    distance_table: str | None = None,
    adjudications: str | None = None,
) -> str:
    """A SHA-256 of the request: the scope, the parameters, (``distance_table``) the
    fingerprint of the distance table it uses and (``adjudications``) that of the scope's
    adjudications a model's calibration reads, so that the same request after the table
    was replaced or an item adjudicated is a new computation, not the one made from the
    old inputs."""
    hashed = {key: value for key, value in params.items() if key not in _NOT_HASHED}
    payload: dict[str, Any] = {
        "question": question.pk,
        "scope": scope,
        "rounds": sorted(set(round_ids)),
        "parameters": hashed,
    }
    if distance_table is not None:
        payload["distance_table"] = distance_table
    if adjudications is not None:
        payload["adjudications"] = adjudications
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


# -- request -----------------------------------------------------------------------------------


def _scope_rounds(*, study: Study, scope: str, rounds: Sequence[Round] | None) -> list[Round]:
    if scope == ComputationScope.STUDY:
        found = list(Round.objects.filter(study=study).order_by("position"))
        if not found:
            raise ValidationError({"rounds": "The study has no rounds yet."})
        return found
    chosen = list(dict.fromkeys(rounds or []))
    if any(r.study_id != study.pk for r in chosen):
        raise ValidationError({"rounds": "Every round must belong to this study."})
    if scope == ComputationScope.ROUND and len(chosen) != 1:
        raise ValidationError({"rounds": "A one-round computation names exactly one round."})
    if scope == ComputationScope.ROUNDS and not chosen:
        raise ValidationError({"rounds": "Name the rounds to pool."})
    return chosen


def _ensure_annotated(*, question: Question, scope: str, rounds: Sequence[Round]) -> None:
    """A computation needs annotations to read: an empty scope is refused at request time,
    not failed later on a worker."""
    if question.annotations.filter(round__in=rounds).exists():
        return
    if scope == ComputationScope.STUDY:
        where = "any round of this study"
    elif len(rounds) == 1:
        where = f"round {rounds[0].name!r}"
    else:
        where = "rounds " + ", ".join(repr(r.name) for r in rounds)
    raise ValidationError(
        {
            "rounds": ValidationError(
                f"Question {question.key!r} has no annotations in {where}: there is nothing "
                "to compute.",
                code="empty_scope",
            )
        }
    )


@dataclass(frozen=True)
class ComputationRequestResult:
    computation: Computation
    created: bool


def computation_request(
    *,
    study: Study,
    question: Question,
    scope: str = ComputationScope.ROUND,
    rounds: Sequence[Round] | None = None,
    parameters: Mapping[str, Any] | None = None,
    trigger: str = ComputationTrigger.API,
    requested_by: Any | None = None,
) -> ComputationRequestResult:
    """Queue a computation, or return the live one for the same request on the same data.

    Raises ``ValidationError`` (naming the field) for a question of another study, an
    unknown scope, rounds that do not fit the scope, a scope without any annotation of the
    question (``empty_scope``), and bad parameters; nothing is created then.
    """
    if question.study_id != study.pk:
        raise ValidationError({"question": "The question belongs to another study."})
    if scope not in ComputationScope.values:
        raise ValidationError(
            {"scope": f"The scope is one of {', '.join(ComputationScope.values)}."}
        )
    chosen = _scope_rounds(study=study, scope=scope, rounds=rounds)
    _ensure_annotated(question=question, scope=scope, rounds=chosen)
    round_ids = [r.pk for r in chosen]
    params = computation_parameters(question=question, given=parameters or {})
    # The table the worker will read (it records the one it did read): "" for none yet.
    table = (
        distance_table_fingerprints(question_ids=[question.pk]).get(question.pk, "")
        if uses_distance_table(question.label_kind, params)
        else None
    )
    # The adjudications a model's calibration will read (the worker records those it did
    # read): only where a model coder gave confidences, so that people-only requests keep
    # their identity whatever is adjudicated.
    adjudications = (
        scope_adjudications_fingerprint(question_id=question.pk, round_ids=round_ids)
        if calibration_reads_adjudications(question=question, round_ids=round_ids)
        else None
    )
    params_hash = parameters_hash(
        question=question,
        scope=scope,
        round_ids=round_ids,
        params=params,
        distance_table=table,
        adjudications=adjudications,
    )
    with transaction.atomic():
        revision = scope_data_revision(question=question, round_ids=round_ids)
        existing = _live_computation(params_hash, revision)
        if existing is not None:
            return ComputationRequestResult(existing, created=False)
        computation = Computation(
            study=study,
            question=question,
            scope=scope,
            parameters=params,
            params_hash=params_hash,
            data_revision=revision,
            distance_table_fingerprint=table or "",
            adjudications_fingerprint=adjudications or "",
            trigger=trigger,
            requested_by=requested_by if getattr(requested_by, "pk", None) else None,
            # Handed over now; cleared if the broker refuses it after the commit.
            dispatched_at=timezone.now(),
        )
        computation.full_clean(exclude=["rounds"], validate_constraints=False)
        try:
            with transaction.atomic():
                computation.save()
        except IntegrityError:
            # A concurrent identical request won the unique (params_hash, data_revision).
            existing = _live_computation(params_hash, revision)
            if existing is None:
                raise
            return ComputationRequestResult(existing, created=False)
        computation.rounds.set(chosen)
        dispatch.computation_run_enqueue(computation.pk)
    logger.info(
        "computation queued id=%s question=%s rounds=%s", computation.pk, question.pk, round_ids
    )
    return ComputationRequestResult(computation, created=True)


def _live_computation(params_hash: str, revision: str) -> Computation | None:
    return (
        Computation.objects.filter(params_hash=params_hash, data_revision=revision)
        .exclude(status=ComputationStatus.FAILED)
        .first()
    )


def computations_request_for_closed_round(
    *, round: Round, requested_by: Any | None = None
) -> list[Computation]:
    """One computation per question of the study, for the round just closed (defaults)."""
    computations = []
    for question in Question.objects.filter(study_id=round.study_id):
        if not question.annotations.filter(round=round).exists():
            continue
        result = computation_request(
            study=round.study,
            question=question,
            scope=ComputationScope.ROUND,
            rounds=[round],
            trigger=ComputationTrigger.ROUND_CLOSE,
            requested_by=requested_by,
        )
        computations.append(result.computation)
    return computations


# -- claim and run -------------------------------------------------------------------------------


def computation_claim(*, computation_id: int) -> bool:
    """queued → running, atomically; False when another worker has it (or it is finished)."""
    now = timezone.now()
    claimed = Computation.objects.filter(pk=computation_id, status=ComputationStatus.QUEUED).update(
        status=ComputationStatus.RUNNING,
        started_at=now,
        heartbeat_at=now,
        attempts=F("attempts") + 1,
        phase="",
        error="",
    )
    return claimed == 1


def _beat(computation_id: int, progress: float | None = None) -> None:
    """Refresh the heartbeat (and progress) of a running computation."""
    fields: dict[str, Any] = {"heartbeat_at": timezone.now()}
    if progress is not None:
        fields["progress"] = min(max(progress, 0.0), 1.0)
    Computation.objects.filter(pk=computation_id, status=ComputationStatus.RUNNING).update(**fields)


def computation_fail(*, computation_id: int, error: str, attempt: int | None = None) -> bool:
    """Mark the computation failed (not once done); with ``attempt``, only if it is still
    that attempt: a requeued computation's old worker cannot fail the new one's run."""
    unfinished = Computation.objects.filter(pk=computation_id).exclude(
        status=ComputationStatus.DONE
    )
    if attempt is not None:
        unfinished = unfinished.filter(status=ComputationStatus.RUNNING, attempts=attempt)
    failed = unfinished.update(
        status=ComputationStatus.FAILED, error=error[:5000], finished_at=timezone.now()
    )
    if failed:
        logger.warning("computation failed id=%s error=%s", computation_id, error)
    else:
        logger.info("computation not failed id=%s (finished or requeued)", computation_id)
    return bool(failed)


@dataclass(frozen=True)
class _Loaded:
    scope: ScopeAnnotations
    data: Any
    item_names: dict[Any, str]
    coder_names: dict[Any, str]


def _load(computation: Computation) -> _Loaded:
    scope = scope_annotations(
        question=computation.question, round_ids=computation_round_ids(computation)
    )
    if scope.n_annotations == 0:
        raise ValueError("There are no annotations in this scope.")
    data = engine.reliability_data(
        scope.item_ids, scope.coder_ids, scope.labels, domain=scope.domain
    )
    return _Loaded(scope, data, {}, {})


def _names(
    loaded: _Loaded, computation: Computation
) -> tuple[Callable[[list[Any]], dict[Any, str]], dict[int, str]]:
    """Coder keys, and a lookup of item names for the few items a result shows."""
    coders = coder_keys(int(c) for c in loaded.data.coders)
    return _item_namer(computation), {
        int(c): coders.get(int(c), str(c)) for c in loaded.data.coders
    }


def _item_namer(computation: Computation) -> Callable[[list[Any]], dict[Any, str]]:
    """A lookup of item names (``round/external id`` when rounds are pooled) by unit id."""

    def item_names(units: list[Any]) -> dict[Any, str]:
        items = item_external_ids(unit_label(int(u))[1] for u in units)
        rounds = dict(
            Round.objects.filter(pk__in=computation_round_ids(computation)).values_list(
                "id", "name"
            )
        )
        names = {}
        for unit in units:
            round_id, item_id = unit_label(int(unit))
            name = items.get(item_id, str(item_id))
            names[unit] = f"{rounds.get(round_id, round_id)}/{name}" if round_id else name
        return names

    return item_names


@contextmanager
def heartbeat_thread(beat: Callable[[], None], *, name: str) -> Iterator[None]:
    """Call ``beat`` from a side thread every heartbeat interval while the block runs.

    A SIGKILLed worker takes the thread with it: the beats stop and the sweep requeues.
    """
    stop = threading.Event()

    def beating() -> None:
        beaten = False
        try:
            while not stop.wait(heartbeat_interval()):
                beat()
                beaten = True
        finally:
            if beaten:
                connection.close()  # this thread's own connection

    thread = threading.Thread(target=beating, name=name, daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


def _heartbeat(computation_id: int) -> AbstractContextManager[None]:
    """Beat while a long step of a computation computes, so the sweep knows it is alive."""
    return heartbeat_thread(lambda: _beat(computation_id), name=f"heartbeat-{computation_id}")


def _run_guarded(computation_id: int, step: Callable[[Computation], None]) -> None:
    """Run one step of a running computation; any failure marks it failed with the reason."""
    computation = Computation.objects.select_related("question").filter(pk=computation_id).first()
    if computation is None or computation.status != ComputationStatus.RUNNING:
        logger.info("computation step skipped id=%s (not running)", computation_id)
        return
    try:
        with _heartbeat(computation_id):
            step(computation)
    except ValueError as error:
        computation_fail(
            computation_id=computation_id, error=str(error), attempt=computation.attempts
        )
    except Exception as error:
        logger.exception("computation crashed id=%s", computation_id)
        computation_fail(
            computation_id=computation_id,
            error=f"{type(error).__name__}: {error}",
            attempt=computation.attempts,
        )
    if not Computation.objects.filter(
        pk=computation_id, status__in=(ComputationStatus.DONE, ComputationStatus.FAILED)
    ).exists():
        return
    computation_finished.send(sender=Computation, computation_id=computation_id)


def computation_run(*, computation_id: int) -> None:
    """The claimed computation's main step: read, report, then finish or fan out."""
    _run_guarded(computation_id, _run_step)


def _run_step(computation: Computation) -> None:
    if computation.question.label_kind.units:
        _run_span_step(computation)
        return
    if computation.question.label_kind.structured is not None:
        run_structured_step(computation, _beat)
        return
    split, refusal = _split_by_items(computation)
    if split:
        return
    params = computation.parameters
    clock = time.monotonic()
    seconds: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        seconds[name] = round(now - clock, 3)
        clock = now

    loaded = _load(computation)
    lap("read")
    _beat(computation.pk, 0.1)
    item_names, coder_names = _names(loaded, computation)
    replicates = int(params["bootstrap"])
    fan_out = replicates > int(params["chunk_size"])
    results = engine.point_report(loaded.data, params, parents=loaded.scope.parents, bootstrap=0)
    lap("report")
    _beat(computation.pk, 0.25)
    results["diagnostics"] = engine.diagnostics(
        loaded.data,
        coder_names=coder_names,
        item_names=item_names,
        # Labels that are one category each: the two-coder reports and coincidences apply.
        categorical=computation.question.label_kind.categorical,
    )
    lap("diagnostics")
    item_table.store_item_table(computation)
    lap("item_table")
    # The people's reliability: a model coder's is its alternative annotator test below.
    results["coder_quality"] = coder_quality(
        model_coders.scope_without_models(loaded.scope, study_id=computation.study_id),
        seed=int(params["seed"]),
        coder_names=coder_names,
        item_names=item_names,
    )
    models = model_coders.model_coders_result(
        scope=loaded.scope,
        data=loaded.data,
        kind=computation.question.label_kind,
        params=params,
        round_ids=computation_round_ids(computation),
        study_id=computation.study_id,
        question_id=computation.question_id,
    )
    if models.results is not None:
        results[model_coders.RESULTS_KEY] = models.results
    results["bootstrap"] = {
        "replicates": replicates,
        "seed": params["seed"],
        "confidence": params["confidence"],
        "chunks": 0,
    }
    results["seconds"] = seconds
    if refusal:
        results["item_chunks"] = {"split": False, "reason": refusal}
    common = {
        "fingerprint": loaded.scope.fingerprint,
        "adjudications_fingerprint": models.adjudications_fingerprint,
        "n_annotations": loaded.scope.n_annotations,
        "metrics_version": engine.metrics_version(),
        "results": results,
        "heartbeat_at": timezone.now(),
    }
    if replicates:
        engine.add_analytic_se(loaded.data, params, results, parents=loaded.scope.parents)
        decompositions = _decompositions_of(loaded, params, results)
        if fan_out:
            _fan_out(computation, loaded.scope.fingerprint, decompositions, common, replicates)
            return
        values = engine.bootstrap_chunks(
            decompositions, seed=int(params["seed"]), start=0, stop=replicates
        )
        _apply_intervals(results, decompositions, [values], params)
        lap("bootstrap")
    _store_comparison(computation, results, loaded.scope.n_annotations)
    lap("comparison")
    Computation.objects.filter(pk=computation.pk, status=ComputationStatus.RUNNING).update(
        status=ComputationStatus.DONE, progress=1.0, finished_at=timezone.now(), **common
    )
    logger.info("computation done id=%s seconds=%s", computation.pk, seconds)


def _run_span_step(computation: Computation) -> None:
    """A span question: read the units, run the span report (its bootstrap inline: span
    measures are not chunked), name the most disputed documents, compare with the previous
    round, store."""
    params = computation.parameters
    clock = time.monotonic()
    seconds: dict[str, float] = {}

    def lap(name: str) -> None:
        nonlocal clock
        now = time.monotonic()
        seconds[name] = round(now - clock, 3)
        clock = now

    scope = scope_spans(question=computation.question, round_ids=computation_round_ids(computation))
    if scope.n_annotations == 0:
        raise ValueError("There are no annotations in this scope.")
    lap("read")
    _beat(computation.pk, 0.1)
    # Documents by external id and coders by key: the reasons and coder pairs stored read
    # as the user names them.
    results = engine.span_report(scope.named, params)
    lap("report")
    _beat(computation.pk, 0.9)
    _name_documents(results["documents"], scope)
    results.update(
        kind=computation.question.kind,
        unit=computation.question.span_unit or "character",
        n_items=results.get("n_documents", scope.data.n_documents),
        n_annotations=scope.n_annotations,
        coder_keys={
            str(pk): name
            for pk, name in zip(scope.coder_ids.tolist(), scope.coder_names, strict=True)
        },
    )
    results["bootstrap"] = {
        "replicates": int(params["bootstrap"]),
        "seed": params["seed"],
        "confidence": params["confidence"],
        "chunks": 0,
    }
    results["seconds"] = seconds
    _store_comparison(computation, results, scope.n_annotations)
    lap("comparison")
    Computation.objects.filter(pk=computation.pk, status=ComputationStatus.RUNNING).update(
        status=ComputationStatus.DONE,
        progress=1.0,
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
        fingerprint=scope.fingerprint,
        n_annotations=scope.n_annotations,
        metrics_version=engine.metrics_version(),
        results=results,
    )
    logger.info("span computation done id=%s seconds=%s", computation.pk, seconds)


def _name_documents(documents: list[dict[str, Any]], scope: ScopeSpans) -> None:
    """Give each listed document its item id, round id and external id (``round/external
    id`` when rounds are pooled: the document's name in ``scope.named``)."""
    for entry in documents:
        index = entry.pop("index", None)
        if index is None:
            entry.update(item=None, external_id=str(entry.get("document")))
            continue
        entry.update(
            item=int(scope.item_ids[index]),
            external_id=scope.document_names[index],
            round=int(scope.round_ids[index]),
        )


def _store_comparison(
    computation: Computation, results: dict[str, Any], n_annotations: int
) -> None:
    """Keep the comparison with the previous round in the results, so pages only read it.

    Its failure is stored as its reason: the computation's own agreement is done and stays so.
    """
    try:
        comparison = comparison_with_previous(
            computation=computation, results=results, n_annotations=n_annotations
        )
    except Exception as error:
        logger.exception("comparison with the previous round failed id=%s", computation.pk)
        comparison = {"status": "failed", "reason": f"{type(error).__name__}: {error}"}
    if comparison is not None:
        results[COMPARISON_KEY] = comparison


def _decompositions_of(
    loaded: _Loaded, params: Mapping[str, Any], results: Mapping[str, Any]
) -> dict[str, Any]:
    """Decompositions of the reported coefficients (those the data leaves undefined are not)."""
    reported = [name for name in params["coefficients"] if name in results["coefficients"]]
    return engine.decompositions(
        loaded.data, {**params, "coefficients": reported}, parents=loaded.scope.parents
    )


def _apply_intervals(
    results: dict[str, Any],
    decompositions: Mapping[str, Any],
    chunks: Sequence[Mapping[str, Sequence[float | None]]],
    params: Mapping[str, Any],
    jackknifes: Mapping[str, Any] | None = None,
) -> None:
    """Combine replicate chunks into each coefficient's ``ci`` (and bootstrap SE), with the
    leave-one-item-out values the chunks computed when they did (``jackknifes``)."""
    coefficients = results.get("coefficients", {})
    skipped = results.setdefault("skipped", {})
    for name, decomposition in decompositions.items():
        entry = coefficients.get(name)
        if entry is None:
            continue
        try:
            given = (jackknifes or {}).get(name)
            interval = engine.bootstrap_combine(
                decomposition,
                [chunk[name] for chunk in chunks],
                seed=int(params["seed"]),
                replicates=int(params["bootstrap"]),
                confidence=float(params["confidence"]),
                **({"jackknife": given} if given is not None else {}),
            )
        except ValueError as error:  # e.g. fewer than two valid replicates
            skipped[f"{name}.ci"] = str(error)
            continue
        entry["ci"] = interval["ci"]
        entry["bootstrap_se"] = interval.get("se")


def _fan_out(
    computation: Computation,
    fingerprint: str,
    decompositions: dict[str, Any],
    common: dict[str, Any],
    replicates: int,
) -> None:
    # Kept for the chunks this process will run: they need not read the annotations again.
    chunk_size = int(computation.parameters["chunk_size"])
    _DECOMPOSITION_CACHE.clear()
    _DECOMPOSITION_CACHE[computation.pk] = (fingerprint, decompositions)
    total = math.ceil(replicates / chunk_size)
    common["results"]["bootstrap"]["chunks"] = total
    with transaction.atomic():
        for index in range(total):
            ComputationChunk.objects.get_or_create(
                computation=computation,
                index=index,
                defaults={
                    "start": index * chunk_size,
                    "stop": min(replicates, (index + 1) * chunk_size),
                },
            )
        updated = Computation.objects.filter(
            pk=computation.pk, status=ComputationStatus.RUNNING
        ).update(
            phase="chunks",
            chunks_total=total,
            progress=0.3,
            dispatched_at=timezone.now(),
            **common,
        )
        if not updated:
            return
        pending = list(
            ComputationChunk.objects.filter(computation=computation, done=False).values_list(
                "id", flat=True
            )
        )
        if pending:
            dispatch.computation_chunks_enqueue(computation.pk, pending)
        else:
            dispatch.computation_combine_enqueue(computation.pk)
    logger.info(
        "computation fanned out id=%s chunks=%s pending=%s", computation.pk, total, len(pending)
    )


# -- chunks and combine ---------------------------------------------------------------------------

# A worker process keeps the last decompositions it built, so the chunks of one
# computation that land on the same process read the annotations once.
_DECOMPOSITION_CACHE: dict[int, tuple[str, dict[str, Any]]] = {}


def _decompositions_for(computation: Computation) -> dict[str, Any]:
    cached = _DECOMPOSITION_CACHE.get(computation.pk)
    if cached is not None and cached[0] == computation.fingerprint:
        return cached[1]
    if computation.item_plan:
        # Split by items: the stored per-item sums, never the annotations.
        chunks = list(computation.item_chunks.order_by("index"))
        reported = (computation.results or {}).get("coefficients") or {}
        merged = _merged_decompositions(computation, chunks)
        decompositions = {name: d for name, d in merged.items() if name in reported}
        _DECOMPOSITION_CACHE.clear()
        _DECOMPOSITION_CACHE[computation.pk] = (computation.fingerprint, decompositions)
        return decompositions
    loaded = _load(computation)
    if loaded.scope.fingerprint != computation.fingerprint:
        raise ValueError(
            "The annotations changed while the bootstrap ran; request the computation again."
        )
    decompositions = _decompositions_of(loaded, computation.parameters, computation.results or {})
    _DECOMPOSITION_CACHE.clear()
    _DECOMPOSITION_CACHE[computation.pk] = (computation.fingerprint, decompositions)
    return decompositions


def computation_chunk_run(*, chunk_id: int) -> None:
    """Compute one chunk of replicates, once; the last chunk enqueues the combine step."""
    chunk = ComputationChunk.objects.filter(pk=chunk_id).first()
    if chunk is None or chunk.done:
        return

    def step(computation: Computation) -> None:
        if computation.phase != "chunks":
            return
        _beat(computation.pk)
        decompositions = _decompositions_for(computation)
        seed = int(computation.parameters["seed"])
        values = engine.bootstrap_chunks(
            decompositions, seed=seed, start=chunk.start, stop=chunk.stop
        )
        # This chunk's share of the BCa jackknife too, so the combine step is short.
        slices = engine.jackknife_slices(
            decompositions, index=chunk.index, total=computation.chunks_total or 1
        )
        jackknife = item_sums.pack(slices) if slices else None
        with transaction.atomic():
            # Chunks finishing together on two workers take turns here: without the row
            # lock each could count the other's chunk as not done, and no one would combine.
            list(Computation.objects.select_for_update().filter(pk=computation.pk).values("pk"))
            wrote = ComputationChunk.objects.filter(pk=chunk.pk, done=False).update(
                done=True, values=values, jackknife=jackknife, finished_at=timezone.now()
            )
            if not wrote:
                return
            done = ComputationChunk.objects.filter(computation=computation, done=True).count()
            total = computation.chunks_total or 1
            _beat(computation.pk, 0.3 + 0.65 * done / total)
            if done >= total:
                Computation.objects.filter(pk=computation.pk).update(dispatched_at=timezone.now())
                dispatch.computation_combine_enqueue(computation.pk)

    _run_guarded(chunk.computation_id, step)


def computation_combine(*, computation_id: int) -> None:
    """Add up the item chunks (claimed items → merging), or combine every bootstrap chunk
    into the intervals (claimed chunks → combining); each once."""
    merging = Computation.objects.filter(
        pk=computation_id, status=ComputationStatus.RUNNING, phase="items"
    ).update(phase="merging", heartbeat_at=timezone.now())
    if merging:
        _run_guarded(computation_id, _merge_step)
        return
    claimed = Computation.objects.filter(
        pk=computation_id, status=ComputationStatus.RUNNING, phase="chunks"
    ).update(phase="combining", heartbeat_at=timezone.now())
    if not claimed:
        return
    _run_guarded(computation_id, _combine_step)


def _combine_step(computation: Computation) -> None:
    chunks = list(computation.chunks.filter(done=True).order_by("index"))
    if len(chunks) != computation.chunks_total:
        # A chunk was lost: go back to the chunk phase; the sweep or the chunks finish it.
        Computation.objects.filter(pk=computation.pk).update(phase="chunks")
        return
    decompositions = _decompositions_for(computation)
    results = dict(computation.results or {})
    _apply_intervals(
        results,
        decompositions,
        [chunk.values or {} for chunk in chunks],
        computation.parameters,
        _chunk_jackknifes(chunks, decompositions),
    )
    _store_comparison(computation, results, computation.n_annotations or 0)
    Computation.objects.filter(
        pk=computation.pk, status=ComputationStatus.RUNNING, phase="combining"
    ).update(
        status=ComputationStatus.DONE,
        results=results,
        progress=1.0,
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )
    logger.info("computation combined id=%s chunks=%s", computation.pk, len(chunks))


# -- split by items ------------------------------------------------------------------------------

#: Phases in which chunks run on the workers: item chunks, then bootstrap chunks.
_CHUNK_PHASES = ("items", "chunks")


def _split_by_items(computation: Computation) -> tuple[bool, str]:
    """Split a large computation by item ranges and send its item chunks: (True, "").

    (False, "") for a scope within ``item_chunk_annotations()``; (False, reason) for a
    larger one whose question or coefficients are computed in one step only.
    """
    limit = item_chunk_annotations()
    question = computation.question
    round_ids = computation_round_ids(computation)
    count = Annotation.objects.filter(question=question, round_id__in=round_ids).count()
    if count <= limit:
        return False, ""
    refusal = item_sums.split_refusal(question.kind, computation.parameters)
    if refusal is not None:
        logger.info("computation not split by items id=%s (%s)", computation.pk, refusal)
        return False, f"{count} annotations, but {refusal}."
    rounds, items, counts = scope_item_counts(question=question, round_ids=round_ids)
    ranges = item_sums.item_ranges(rounds, items, counts, limit)
    plan = {
        "coders": scope_coder_ids(question=question, round_ids=round_ids),
        "revision": scope_data_revision(question=question, round_ids=round_ids),
        "annotations_per_chunk": limit,
    }
    with transaction.atomic():
        existing = list(
            ComputationItemChunk.objects.filter(computation=computation)
            .order_by("index")
            .values_list("round_id", "first_item", "last_item", "n_annotations")
        )
        if existing != ranges or computation.item_plan != plan:
            # A first split, or the data moved on since an earlier attempt's: start afresh.
            ComputationItemChunk.objects.filter(computation=computation).delete()
            ComputationItemChunk.objects.bulk_create(
                ComputationItemChunk(
                    computation=computation,
                    index=index,
                    round_id=round_id,
                    first_item=first,
                    last_item=last,
                    n_annotations=n,
                )
                for index, (round_id, first, last, n) in enumerate(ranges)
            )
        updated = Computation.objects.filter(
            pk=computation.pk, status=ComputationStatus.RUNNING
        ).update(
            phase="items",
            item_plan=plan,
            progress=0.05,
            heartbeat_at=timezone.now(),
            dispatched_at=timezone.now(),
        )
        if updated:
            _enqueue_chunk_phase(computation.pk, "items")
    logger.info(
        "computation split by items id=%s annotations=%s chunks=%s", computation.pk, count,
        len(ranges),
    )  # fmt: skip
    return True, ""


def computation_item_chunk_run(*, chunk_id: int) -> None:
    """Read one item range and store its per-item sums and item-table rows, once; the last
    chunk enqueues the combine step (which adds them up)."""
    chunk = ComputationItemChunk.objects.defer("sums", "item_rows").filter(pk=chunk_id).first()
    if chunk is None or chunk.done:
        return

    def step(computation: Computation) -> None:
        if computation.phase != "items" or not computation.item_plan:
            return
        _beat(computation.pk)
        scope = scope_annotations(
            question=computation.question,
            round_ids=[chunk.round_id],
            items=(chunk.first_item, chunk.last_item),
        )
        sums = item_sums.chunk_sums(
            kind=computation.question.kind,
            items=scope.item_ids,
            coders=scope.coder_ids,
            labels=scope.labels,
            domain=scope.domain,
            all_coders=computation.item_plan["coders"],
            params=computation.parameters,
            fingerprint=scope.fingerprint,
        )
        item_rows = item_table.chunk_item_rows(
            computation,
            round_id=chunk.round_id,
            item_range=(chunk.first_item, chunk.last_item),
            coder_ids=computation.item_plan["coders"],
        )
        with transaction.atomic():
            # As for the bootstrap chunks: the row lock makes chunks finishing together
            # take turns, so exactly one of them sees every chunk done.
            list(Computation.objects.select_for_update().filter(pk=computation.pk).values("pk"))
            wrote = ComputationItemChunk.objects.filter(pk=chunk.pk, done=False).update(
                done=True,
                sums=sums.blob,
                summary=sums.summary,
                item_rows=item_rows,
                finished_at=timezone.now(),
            )
            if not wrote:
                return
            chunks = ComputationItemChunk.objects.filter(computation=computation)
            done, total = chunks.filter(done=True).count(), chunks.count()
            _beat(computation.pk, 0.05 + 0.25 * done / max(total, 1))
            if done >= total:
                Computation.objects.filter(pk=computation.pk).update(dispatched_at=timezone.now())
                dispatch.computation_combine_enqueue(computation.pk)

    _run_guarded(chunk.computation_id, step)


def _merged_decompositions(
    computation: Computation, chunks: Sequence[ComputationItemChunk]
) -> dict[str, Any]:
    plan = computation.item_plan or {}
    return item_sums.merged_decompositions(
        [(bytes(chunk.sums or b""), chunk.summary or {}) for chunk in chunks],
        kind=computation.question.kind,
        domain=question_domain(computation.question),
        all_coders=plan["coders"],
        params=computation.parameters,
    )


def _merge_step(computation: Computation) -> None:
    """Add up the item chunks: the point report and the item table, then the bootstrap
    inline or fanned out."""
    chunks = list(computation.item_chunks.defer("item_rows").order_by("index"))
    if not chunks or not all(chunk.done for chunk in chunks):
        # A chunk is missing: back to the item phase; the sweep or the chunks finish it.
        Computation.objects.filter(pk=computation.pk, phase="merging").update(phase="items")
        return
    params = computation.parameters
    plan = computation.item_plan or {}
    clock = time.monotonic()
    question = computation.question
    revision = scope_data_revision(question=question, round_ids=computation_round_ids(computation))
    if revision != plan.get("revision"):
        raise ValueError(
            "The annotations changed while the computation ran split by items; request the "
            "computation again."
        )
    decompositions = _merged_decompositions(computation, chunks)
    summaries = [chunk.summary or {} for chunk in chunks]
    results = item_sums.point_results(
        decompositions,
        summaries,
        kind=question.kind,
        domain=question_domain(question),
        n_coders=len(plan["coders"]),
        params=params,
    )
    categorical = question.label_kind.categorical
    pooled = len(set(computation_round_ids(computation))) > 1
    disputed = item_sums.most_disputed_rows(
        [(chunk.round_id, chunk.summary or {}) for chunk in chunks], pooled=pooled
    )
    results["diagnostics"] = {
        "most_disputed_items": engine.most_disputed_json(disputed, _item_namer(computation)),
        "skipped": {
            key: item_sums.ONE_STEP_REASON
            for key in item_sums.ONE_STEP_DIAGNOSTICS[: None if categorical else 3]
        },
    }
    results["coder_quality"] = {"skipped": item_sums.ONE_STEP_REASON}
    models = _split_model_coders(computation, plan["coders"])
    if models.results is not None:
        results[model_coders.RESULTS_KEY] = models.results
    replicates = int(params["bootstrap"])
    results["bootstrap"] = {
        "replicates": replicates,
        "seed": params["seed"],
        "confidence": params["confidence"],
        "chunks": 0,
    }
    results["item_chunks"] = {
        "split": True,
        "chunks": len(chunks),
        "annotations_per_chunk": plan.get("annotations_per_chunk"),
    }
    seconds = {"merge": round(time.monotonic() - clock, 3)}
    clock = time.monotonic()
    item_table.store_split_item_table(computation, plan["coders"])
    seconds["item_table"] = round(time.monotonic() - clock, 3)
    results["seconds"] = seconds
    fingerprint = item_sums.chunks_fingerprint([s.get("fingerprint", "") for s in summaries])
    n_annotations = int(results["n_annotations"])
    common = {
        "fingerprint": fingerprint,
        "adjudications_fingerprint": models.adjudications_fingerprint,
        "n_annotations": n_annotations,
        "metrics_version": engine.metrics_version(),
        "results": results,
        "heartbeat_at": timezone.now(),
    }
    reported = {n: d for n, d in decompositions.items() if n in results["coefficients"]}
    if replicates:
        if replicates > int(params["chunk_size"]):
            _fan_out(computation, fingerprint, reported, common, replicates)
            return
        clock = time.monotonic()
        values = engine.bootstrap_chunks(
            reported, seed=int(params["seed"]), start=0, stop=replicates
        )
        _apply_intervals(results, reported, [values], params)
        seconds["bootstrap"] = round(time.monotonic() - clock, 3)
    _store_comparison(computation, results, n_annotations)
    Computation.objects.filter(
        pk=computation.pk, status=ComputationStatus.RUNNING, phase="merging"
    ).update(status=ComputationStatus.DONE, progress=1.0, finished_at=timezone.now(), **common)
    logger.info("computation merged id=%s item chunks=%s", computation.pk, len(chunks))


def _split_model_coders(
    computation: Computation, coder_ids: Sequence[int]
) -> model_coders.ModelCodersStep:
    """The model-coder step of a computation split by items, on the merged scope: the same
    ``results["model_coders"]`` as the one-step path stores. Its tests need each person's
    items together (the alternative annotator test leaves one person out across all items),
    so a scope with model coders is read once more here, as long arrays (linear in the
    annotations: no coders × items matrix); a scope without any reads nothing."""
    if not model_coders.scope_coders(coder_ids, study_id=computation.study_id).models:
        return model_coders.ModelCodersStep(None)
    loaded = _load(computation)
    return model_coders.model_coders_result(
        scope=loaded.scope,
        data=loaded.data,
        kind=computation.question.label_kind,
        params=computation.parameters,
        round_ids=computation_round_ids(computation),
        study_id=computation.study_id,
        question_id=computation.question_id,
    )


def _chunk_jackknifes(
    chunks: Sequence[ComputationChunk], decompositions: Mapping[str, Any]
) -> dict[str, Any]:
    """Each coefficient's leave-one-item-out values, joined from the chunks' slices (in
    index order); a coefficient some chunk has no slice of is left to the combine step."""
    slices = [item_sums.unpack(bytes(c.jackknife)) if c.jackknife else {} for c in chunks]
    return {
        name: np.concatenate([piece[name] for piece in slices])
        for name in decompositions
        if slices and all(name in piece for piece in slices)
    }


# -- sweep ---------------------------------------------------------------------------------------


def computations_sweep(*, timeout: timedelta | None = None) -> list[int]:
    """Send again every computation's work that nothing else will send; their ids.

    - running, but its heartbeat older than ``timeout`` (default: the heartbeat timeout;
      its worker died): back to queued, and its run task sent again; in the chunk phase,
      its pending chunks (of replicates, or of items) sent again instead (the chunks done
      are kept);
    - queued, and its run message refused by the broker (``dispatched_at`` null) or sent
      longer than ``resend_after()`` ago and still not claimed (lost): sent again;
    - running in a chunk phase, and its chunk or combine messages refused: the pending
      chunks (or, when all are done, the combine step) sent again.

    Each is taken with a conditional UPDATE (status, heartbeat, ``dispatched_at`` as read),
    so overlapping sweeps send it once; a duplicate message is harmless anyway (the claim,
    chunks written once, the combine step claimed).
    """
    now = timezone.now()
    cutoff = now - (timeout or heartbeat_timeout())
    acted: list[int] = []
    stuck = Computation.objects.filter(
        status=ComputationStatus.RUNNING, heartbeat_at__lt=cutoff
    ).values_list("id", "phase", "heartbeat_at")
    for computation_id, phase, heartbeat in list(stuck):
        with transaction.atomic():
            unchanged = Computation.objects.filter(
                pk=computation_id, status=ComputationStatus.RUNNING, heartbeat_at=heartbeat
            )
            if phase in _CHUNK_PHASES:
                # The chunks keep the work done: send the pending ones again (the dead
                # worker's among them) rather than start over; a chunk is written once.
                if unchanged.update(heartbeat_at=now, dispatched_at=now):
                    acted.append(computation_id)
                    _enqueue_chunk_phase(computation_id, phase)
                continue
            if unchanged.update(
                status=ComputationStatus.QUEUED, phase="", heartbeat_at=None, dispatched_at=now
            ):
                acted.append(computation_id)
                dispatch.computation_run_enqueue(computation_id)
    unsent = (
        Computation.objects.filter(status=ComputationStatus.QUEUED)
        .filter(Q(dispatched_at__isnull=True) | Q(dispatched_at__lt=now - resend_after()))
        .exclude(pk__in=acted)
        .values_list("id", "dispatched_at")
    )
    for computation_id, dispatched in list(unsent):
        with transaction.atomic():
            if _take_for_sending(computation_id, ComputationStatus.QUEUED, dispatched, now):
                acted.append(computation_id)
                dispatch.computation_run_enqueue(computation_id)
    refused = Computation.objects.filter(
        status=ComputationStatus.RUNNING, phase__in=_CHUNK_PHASES, dispatched_at__isnull=True
    ).values_list("id", "phase")
    for computation_id, phase in list(refused):
        with transaction.atomic():
            if _take_for_sending(computation_id, ComputationStatus.RUNNING, None, now):
                acted.append(computation_id)
                _enqueue_chunk_phase(computation_id, phase)
    if acted:
        logger.warning("computations sent again by the sweep ids=%s", acted)
    return acted


def _take_for_sending(
    computation_id: int, status: str, dispatched: datetime | None, now: datetime
) -> bool:
    """Mark a computation handed over, if it is unchanged since the sweep read it."""
    unchanged = Computation.objects.filter(pk=computation_id, status=status)
    if dispatched is None:
        unchanged = unchanged.filter(dispatched_at__isnull=True)
    else:
        unchanged = unchanged.filter(dispatched_at=dispatched)
    return unchanged.update(dispatched_at=now) == 1


def _enqueue_chunk_phase(computation_id: int, phase: str = "chunks") -> None:
    """Send the chunks (of items or of replicates, by ``phase``) not yet done, or the
    combine step when every chunk is."""
    if phase == "items":
        items = list(
            ComputationItemChunk.objects.filter(
                computation_id=computation_id, done=False
            ).values_list("id", flat=True)
        )
        if items:
            dispatch.computation_item_chunks_enqueue(computation_id, items)
        else:
            dispatch.computation_combine_enqueue(computation_id)
        return
    pending = list(
        ComputationChunk.objects.filter(computation_id=computation_id, done=False).values_list(
            "id", flat=True
        )
    )
    if pending:
        dispatch.computation_chunks_enqueue(computation_id, pending)
    else:
        dispatch.computation_combine_enqueue(computation_id)
