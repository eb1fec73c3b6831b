"""Two rounds compared: the difference of a coefficient, later round minus earlier round
(one convention for the API and the pages), with a bootstrap interval on their shared items
(paired) or on all their items as independent samples when the item sets differ.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from django.conf import settings
from django.db.models import Exists, OuterRef

from computations import engine
from computations.models import Computation, ComputationScope
from computations.scope import ScopeAnnotations, scope_annotations, scope_data_revision
from computations.selectors import computation_round_ids, latest_round_computations
from studies.exceptions import ApplicationError
from studies.models import Annotation, Question, Round, Study

MIN_SHARED_ITEMS = 2
#: What ``difference`` is, in every comparison's result.
DIFFERENCE_IS = "later round minus earlier round"
#: The coefficient a study's headline shows and a round is compared on, first present wins.
HEADLINE_ORDER = ("alpha", "kappa", "pi", "ac1", "s", "observed_agreement")
#: Bootstrap replicates of the comparison stored with a finished computation.
COMPARE_REPLICATES = 500
#: Where a finished one-round computation keeps its comparison with the previous round.
COMPARISON_KEY = "comparison_with_previous"


def headline_coefficient(names: Sequence[str]) -> str | None:
    """The coefficient a result is summed up by: the first of ``HEADLINE_ORDER`` present."""
    for name in HEADLINE_ORDER:
        if name in names:
            return name
    return names[0] if names else None


def compare_max_annotations() -> int:
    return int(settings.AGREEMENT_COMPARE_MAX_ANNOTATIONS)


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
    *,
    study: Study,
    question: Question,
    round_: Round,
    coefficient: str | None,
    parameters: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """The level and distance of ``parameters``, else of the round's latest computation,
    else the question kind's defaults; the coefficient given, else alpha or the first."""
    if parameters is None:
        latest = latest_round_computations(study=study, question_ids=[question.pk]).get(
            (question.pk, round_.pk)
        )
        parameters = latest.parameters if latest else engine.default_parameters(question.kind)
    params = dict(parameters)
    if coefficient is None:
        coefficient = "alpha" if "alpha" in params["coefficients"] else params["coefficients"][0]
    params["coefficient"] = coefficient
    return params


def _round_entry(round_: Round, n_items: int) -> dict[str, Any]:
    return {"round": round_.pk, "round_name": round_.name, "n_items": n_items}


def rounds_compare(
    *,
    study: Study,
    question: Question,
    first: Round,
    second: Round,
    coefficient: str | None = None,
    replicates: int = 1000,
    seed: int = 0,
    confidence: float = 0.95,
    parameters: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The later round minus the earlier one for one coefficient, with a bootstrap CI.

    Whichever order the two rounds are given in (``first``, ``second``), the difference is
    the later round's coefficient (higher ``position``) minus the earlier one's, so a
    positive difference is an improvement over time; ``later`` and ``earlier`` name them.
    Paired on the items both rounds labelled (each replicate draws the same items in both);
    when the item sets differ, also unpaired on all items of each round. ``parameters``
    (level, distance, coefficients) default to those of the later round's latest
    computation.

    Raises
    ------
    ApplicationError
        ``cannot_compare``: the same round twice, a round without annotations for the
        question, or data the coefficient is undefined on (a 400, not a crash).
    """
    try:
        return _rounds_compare(
            study=study, question=question, first=first, second=second,
            coefficient=coefficient, replicates=replicates, seed=seed,
            confidence=confidence, parameters=parameters,
        )  # fmt: skip
    except ValueError as error:
        raise ApplicationError(str(error), code="cannot_compare") from None


def _rounds_compare(
    *,
    study: Study,
    question: Question,
    first: Round,
    second: Round,
    coefficient: str | None,
    replicates: int,
    seed: int,
    confidence: float,
    parameters: Mapping[str, Any] | None,
) -> dict[str, Any]:
    if first.pk == second.pk:
        raise ValueError("A comparison needs two different rounds.")
    later, earlier = (first, second) if first.position > second.position else (second, first)
    params = _comparison_parameters(
        study=study, question=question, round_=later, coefficient=coefficient,
        parameters=parameters,
    )  # fmt: skip
    name = params.pop("coefficient")
    a = scope_annotations(question=question, round_ids=[later.pk])
    b = scope_annotations(question=question, round_ids=[earlier.pk])
    if not a.n_annotations or not b.n_annotations:
        raise ValueError("Both rounds need annotations for this question.")
    items_a, items_b = np.unique(a.item_ids), np.unique(b.item_ids)
    shared = np.intersect1d(items_a, items_b)
    same_items = len(shared) == len(items_a) == len(items_b)
    options: dict[str, Any] = {"replicates": replicates, "seed": seed, "confidence": confidence}
    entries = {later.pk: _round_entry(later, len(items_a)),
               earlier.pk: _round_entry(earlier, len(items_b))}  # fmt: skip
    out: dict[str, Any] = {
        "question": question.pk,
        "coefficient": name,
        "difference_is": DIFFERENCE_IS,
        "later": entries[later.pk],
        "earlier": entries[earlier.pk],
        "first": entries[first.pk],
        "second": entries[second.pk],
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


# -- the comparison a finished computation stores -------------------------------------------------


def earlier_annotated_round(*, question: Question, round_: Round) -> Round | None:
    """The latest round before ``round_`` holding annotations for the question (an EXISTS
    per round on the annotations' (round, question, ...) index, never a scan)."""
    labelled = Annotation.objects.filter(round=OuterRef("pk"), question=question)
    return (
        Round.objects.filter(study_id=round_.study_id, position__lt=round_.position)
        .filter(Exists(labelled))
        .order_by("-position")
        .first()
    )


def comparison_with_previous(
    *, computation: Computation, results: Mapping[str, Any], n_annotations: int
) -> dict[str, Any] | None:
    """What a finishing one-round computation stores under ``COMPARISON_KEY``.

    The computation's round minus the latest earlier round with annotations for the question,
    on the result's headline coefficient with the computation's level, distance, seed and
    confidence. ``status`` is ``done`` (the ``rounds_compare`` result and the earlier round's
    data revision, so a page can tell when it changed), ``skipped`` (no earlier round, or
    more annotations than ``compare_max_annotations``) or ``failed``, each with a ``reason``.
    None for computations over several rounds, which have no previous round.
    """
    if computation.scope != ComputationScope.ROUND:
        return None
    round_ids = computation_round_ids(computation)
    round_ = Round.objects.get(pk=round_ids[0])
    question = computation.question
    earlier = earlier_annotated_round(question=question, round_=round_)
    if earlier is None:
        first = not Round.objects.filter(
            study_id=round_.study_id, position__lt=round_.position
        ).exists()
        reason = (
            f"{round_.name} is the study's first round."
            if first
            else f"No round before {round_.name} has annotations for this question."
        )
        return {"status": "skipped", "reason": reason}
    bound = compare_max_annotations()
    total = n_annotations + Annotation.objects.filter(round=earlier, question=question).count()
    if total > bound:
        return {
            "status": "skipped",
            "reason": f"{round_.name} and {earlier.name} hold {total} annotations of this "
            f"question, more than the {bound} compared when a computation finishes "
            "(AGREEMENT_COMPARE_MAX_ANNOTATIONS); compare them with the API's history/compare.",
            "earlier": {"round": earlier.pk, "round_name": earlier.name},
        }
    coefficient = headline_coefficient(list(results.get("coefficients") or {}))
    if coefficient is None:
        return {"status": "skipped", "reason": "No coefficient was reported to compare."}
    params = computation.parameters
    try:
        compared = rounds_compare(
            study=computation.study, question=question, first=round_, second=earlier,
            coefficient=coefficient, replicates=COMPARE_REPLICATES, seed=int(params["seed"]),
            confidence=float(params["confidence"]), parameters=params,
        )  # fmt: skip
    except ApplicationError as error:
        return {"status": "failed", "reason": error.message}
    revision = scope_data_revision(question=question, round_ids=[earlier.pk])
    return {"status": "done", **compared, "earlier_data_revision": revision}
