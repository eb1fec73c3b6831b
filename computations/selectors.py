"""Reads of stored computations: a study's computations, its agreement history round after
round and each coder's drift. Nothing here computes: it reads what the workers stored.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import QuerySet

from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import scope_data_revision
from studies.models import Question, Round, Study


def computation_round_ids(computation: Computation) -> list[int]:
    return sorted(computation.rounds.values_list("id", flat=True))


def computation_is_stale(computation: Computation) -> bool:
    """True when the scope's annotations changed after the computation was requested."""
    current = scope_data_revision(
        question=computation.question_id, round_ids=computation_round_ids(computation)
    )
    return current != computation.data_revision


def computations_of_study(*, study_id: int) -> QuerySet[Computation]:
    # select_related: the serializer shows the question key; prefetch: the round ids,
    # otherwise one query per listed computation.
    return (
        Computation.objects.filter(study_id=study_id)
        .select_related("question")
        .prefetch_related("rounds")
    )


def done_computations_for_history(
    *, study_id: int, question_id: int | None = None
) -> QuerySet[Computation]:
    queryset = Computation.objects.filter(study_id=study_id, status=ComputationStatus.DONE)
    if question_id is not None:
        queryset = queryset.filter(question_id=question_id)
    return queryset.select_related("question").prefetch_related("rounds").order_by("-finished_at")


# -- history ---------------------------------------------------------------------------------


def latest_round_computations(
    *, study: Study, question_ids: Iterable[int]
) -> dict[tuple[int, int], Computation]:
    """The latest done one-round computation per (question, round)."""
    latest: dict[tuple[int, int], Computation] = {}
    queryset = (
        Computation.objects.filter(
            study=study,
            question_id__in=list(question_ids),
            status=ComputationStatus.DONE,
            scope=ComputationScope.ROUND,
        )
        # One query for every computation's round instead of one per computation.
        .prefetch_related("rounds")
        .order_by("finished_at", "id")
    )
    for computation in queryset:
        for round_ in computation.rounds.all():
            latest[(computation.question_id, round_.pk)] = computation
    return latest


def _coefficient_points(results: dict[str, Any]) -> dict[str, dict[str, Any]]:
    points = {}
    for name, entry in (results.get("coefficients") or {}).items():
        points[name] = {
            "value": entry.get("value"),
            "ci": entry.get("ci"),
            "se": entry.get("se"),
        }
    return points


def study_history(*, study: Study, question_id: int | None = None) -> dict[str, Any]:
    """For each question, each round in order with its latest computation's coefficients."""
    questions = list(Question.objects.filter(study=study).order_by("position", "id"))
    if question_id is not None:
        questions = [q for q in questions if q.pk == question_id]
    rounds = list(Round.objects.filter(study=study).order_by("position"))
    latest = latest_round_computations(study=study, question_ids=[q.pk for q in questions])
    out = []
    for question in questions:
        entries = []
        for round_ in rounds:
            computation = latest.get((question.pk, round_.pk))
            entries.append(_history_entry(round_, question, computation))
        out.append(
            {
                "question": question.pk,
                "question_key": question.key,
                "kind": question.kind,
                "rounds": entries,
            }
        )
    return {"study": study.pk, "questions": out}


def _history_entry(
    round_: Round, question: Question, computation: Computation | None
) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "round": round_.pk,
        "round_name": round_.name,
        "position": round_.position,
        "status": round_.status,
        "computation": None,
        "stale": None,
        "finished_at": None,
        "n_items": None,
        "n_coders": None,
        "n_annotations": None,
        "coefficients": {},
    }
    if computation is None:
        return entry
    results = computation.results or {}
    revision = scope_data_revision(question=question.pk, round_ids=[round_.pk])
    entry.update(
        computation=computation.pk,
        stale=revision != computation.data_revision,
        finished_at=computation.finished_at,
        n_items=results.get("n_items"),
        n_coders=results.get("n_coders"),
        n_annotations=computation.n_annotations,
        coefficients=_coefficient_points(results),
    )
    return entry


def coder_drift(*, study: Study, question: Question) -> dict[str, Any]:
    """Each coder's mean agreement with the other coders, round after round."""
    rounds = list(Round.objects.filter(study=study).order_by("position"))
    latest = latest_round_computations(study=study, question_ids=[question.pk])
    per_round: list[dict[str, float | None]] = []
    round_rows = []
    for round_ in rounds:
        computation = latest.get((question.pk, round_.pk))
        values: dict[str, float | None] = {}
        if computation is not None:
            diagnostics = (computation.results or {}).get("diagnostics") or {}
            values = diagnostics.get("per_coder") or {}
        per_round.append(values)
        round_rows.append(
            {
                "round": round_.pk,
                "round_name": round_.name,
                "position": round_.position,
                "computation": computation.pk if computation else None,
            }
        )
    coders = sorted({coder for values in per_round for coder in values})
    coder_rows = []
    for coder in coders:
        series = [values.get(coder) for values in per_round]
        known = [v for v in series if v is not None]
        coder_rows.append(
            {
                "coder": coder,
                "values": series,
                "change": (known[-1] - known[0]) if len(known) >= 2 else None,
            }
        )
    return {"study": study.pk, "question": question.pk, "rounds": round_rows, "coders": coder_rows}
