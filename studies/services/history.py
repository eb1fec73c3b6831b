"""A study's agreement round after round: the history, round comparisons, coder drift.

The history and the drift read finished computations (nothing is recomputed); comparing
two rounds bootstraps the difference of a coefficient on their shared items (a paired
bootstrap), and on all their items as independent samples when the item sets differ.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from studies.exceptions import ApplicationError
from studies.models import (
    Computation,
    ComputationScope,
    ComputationStatus,
    Question,
    Round,
    Study,
)
from studies.selectors_computations import (
    ScopeAnnotations,
    scope_annotations,
    scope_data_revision,
)
from studies.services import agreement_engine as engine

MIN_SHARED_ITEMS = 2


def _latest_round_computations(
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
    latest = _latest_round_computations(study=study, question_ids=[q.pk for q in questions])
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
    latest = _latest_round_computations(study=study, question_ids=[question.pk])
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


# -- comparing two rounds -------------------------------------------------------------------------


def _restricted(scope: ScopeAnnotations, keep: np.ndarray) -> ScopeAnnotations:
    mask = np.isin(scope.item_ids, keep)
    labels = scope.labels
    if isinstance(labels, np.ndarray):
        kept_labels: Any = labels[mask]
    else:
        kept_labels = [label for label, m in zip(labels, mask, strict=True) if m]
    return ScopeAnnotations(
        kind=scope.kind,
        item_ids=scope.item_ids[mask],
        coder_ids=scope.coder_ids[mask],
        labels=kept_labels,
        domain=scope.domain,
        parents=scope.parents,
        fingerprint=scope.fingerprint,
    )


def _decomposition(scope: ScopeAnnotations, params: dict[str, Any], coefficient: str) -> Any:
    data = engine.reliability_data(
        scope.item_ids, scope.coder_ids, scope.labels, domain=scope.domain
    )
    single = {**params, "coefficients": [coefficient]}
    return engine.decompositions(data, single, parents=scope.parents)[coefficient]


def _comparison_parameters(
    *, study: Study, question: Question, round_: Round, coefficient: str | None
) -> dict[str, Any]:
    latest = _latest_round_computations(study=study, question_ids=[question.pk]).get(
        (question.pk, round_.pk)
    )
    params = dict(latest.parameters) if latest else engine.default_parameters(question.kind)
    if coefficient is None:
        coefficient = "alpha" if "alpha" in params["coefficients"] else params["coefficients"][0]
    params["coefficient"] = coefficient
    return params


def rounds_compare(**options: Any) -> dict[str, Any]:
    """See ``_rounds_compare``; a comparison the data cannot support is a 400, not a crash."""
    try:
        return _rounds_compare(**options)
    except ValueError as error:
        raise ApplicationError(str(error), code="cannot_compare") from None


def _rounds_compare(
    *,
    study: Study,
    question: Question,
    first: Round,
    second: Round,
    coefficient: str | None = None,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
) -> dict[str, Any]:
    """first − second for one coefficient, with a bootstrap CI.

    Paired on the items both rounds labelled (each replicate draws the same items in both);
    when the item sets differ, also unpaired on all items of each round.
    """
    params = _comparison_parameters(
        study=study, question=question, round_=first, coefficient=coefficient
    )
    name = params.pop("coefficient")
    a = scope_annotations(question=question, round_ids=[first.pk])
    b = scope_annotations(question=question, round_ids=[second.pk])
    if not a.n_annotations or not b.n_annotations:
        raise ValueError("Both rounds need annotations for this question.")
    items_a, items_b = np.unique(a.item_ids), np.unique(b.item_ids)
    shared = np.intersect1d(items_a, items_b)
    same_items = len(shared) == len(items_a) == len(items_b)
    options: dict[str, Any] = {"replicates": replicates, "seed": seed, "confidence": confidence}
    out: dict[str, Any] = {
        "question": question.pk,
        "coefficient": name,
        "first": {"round": first.pk, "round_name": first.name, "n_items": len(items_a)},
        "second": {"round": second.pk, "round_name": second.name, "n_items": len(items_b)},
        "n_shared_items": len(shared),
        "parameters": {k: params[k] for k in ("level", "distance") if k in params},
    }
    unpaired = None
    if not same_items:
        unpaired = engine.difference(
            _decomposition(a, params, name),
            _decomposition(b, params, name),
            paired=False,
            **options,
        )
    if len(shared) >= MIN_SHARED_ITEMS:
        out["paired"] = True
        out["difference"] = engine.difference(
            _decomposition(_restricted(a, shared), params, name),
            _decomposition(_restricted(b, shared), params, name),
            paired=True,
            **options,
        )
        if unpaired is not None:
            out["unpaired"] = unpaired
    else:
        out["paired"] = False
        out["difference"] = unpaired
    return out
