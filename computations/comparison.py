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
from computations.scope import (
    ScopeAnnotations,
    scope_annotations,
    scope_data_revision,
    scope_spans,
)
from computations.selectors import computation_round_ids, latest_round_computations
from studies.exceptions import ApplicationError
from studies.models import Annotation, Question, Round, Study

MIN_SHARED_ITEMS = 2
#: What ``difference`` is, in every comparison's result.
DIFFERENCE_IS = "later round minus earlier round"
#: The coefficient a study's headline shows and a round is compared on, first present wins.
HEADLINE_ORDER = ("alpha", "alpha_u", "kappa", "pi", "ac1", "s", "observed_agreement", "span_f1")
#: Bootstrap replicates of the comparison stored with a finished computation.
COMPARE_REPLICATES = 500
#: Where a finished one-round computation keeps its comparison with the previous round.
COMPARISON_KEY = "comparison_with_previous"
#: The span coefficients a finished span computation compares with the previous round.
SPAN_COMPARED = ("alpha_u", "span_f1")
#: How a span comparison's difference was obtained.
BOOTSTRAPPED = "bootstrap"
POINT_ONLY = "point estimates only"


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
    if question.label_kind.units:
        return _span_rounds_compare(
            question=question, first=first, second=second, coefficient=coefficient,
            replicates=replicates, seed=seed, confidence=confidence, parameters=parameters,
        )  # fmt: skip
    if coefficient is not None and coefficient not in engine.ALL_COEFFICIENTS:
        raise ValueError(f"{coefficient} is for span questions only.")
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

    The computation's round minus the latest earlier round with annotations for the question
    (for a span question: alpha_u and span F1, see ``_span_comparison_with_previous``),
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
    if question.label_kind.units:
        cheap = total <= bound
        return _span_comparison_with_previous(
            computation=computation,
            results=results,
            round_=round_,
            earlier=earlier,
            bootstrap=cheap,
            why_not=None
            if cheap
            else f"{round_.name} and {earlier.name} hold {total} annotations of this question, "
            f"more than the {bound} bootstrapped when a computation finishes "
            "(AGREEMENT_COMPARE_MAX_ANNOTATIONS): the difference of the stored values, "
            "without an interval.",
        )
    if total > bound:
        return {
            "status": "skipped",
            "reason": f"{round_.name} and {earlier.name} hold {total} annotations of this "
            f"question, more than the {bound} compared when a computation finishes "
            "(AGREEMENT_COMPARE_MAX_ANNOTATIONS); request their comparison from the API's "
            "comparisons/.",
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


# -- span questions -------------------------------------------------------------------------------


def _span_round(question: Question, round_: Round) -> tuple[Any, np.ndarray]:
    scope = scope_spans(question=question, round_ids=[round_.pk])
    if not scope.n_annotations:
        raise ValueError(f"{round_.name} has no annotations for this question.")
    return scope.named, scope.item_ids


def _span_difference(
    later: tuple[Any, np.ndarray],
    earlier: tuple[Any, np.ndarray],
    name: str,
    *,
    min_overlap: float,
    overlapping: str,
    options: Mapping[str, Any],
) -> tuple[dict[str, Any], dict[str, Any] | None, bool, int]:
    """(difference, unpaired difference or None, paired, shared documents) of one span
    coefficient: paired on the documents (items) both rounds annotated, unpaired on all of
    each round's documents when those differ, as ``rounds_compare`` does for items."""
    (data_a, items_a), (data_b, items_b) = later, earlier

    def decompose(data: Any) -> Any:
        found = engine.span_decompositions(
            data, [name], min_overlap=min_overlap, overlapping=overlapping
        )
        return found[name]

    dec_a, dec_b = decompose(data_a), decompose(data_b)
    shared, rows_a, rows_b = np.intersect1d(items_a, items_b, return_indices=True)
    same = len(shared) == len(items_a) == len(items_b)
    if same and len(shared) < MIN_SHARED_ITEMS:
        raise ValueError(
            f"the rounds share {len(shared)} document: a bootstrap over documents needs "
            f"at least {MIN_SHARED_ITEMS}."
        )
    unpaired = None if same else engine.difference(dec_a, dec_b, paired=False, **options)
    if len(shared) >= MIN_SHARED_ITEMS:
        paired = engine.difference(
            engine.decomposition_rows(dec_a, rows_a.tolist()),
            engine.decomposition_rows(dec_b, rows_b.tolist()),
            paired=True,
            **options,
        )
        return paired, unpaired, True, len(shared)
    assert unpaired is not None  # fewer than two shared documents: the sets differ
    return unpaired, None, False, len(shared)


def _span_rounds_compare(
    *,
    question: Question,
    first: Round,
    second: Round,
    coefficient: str | None,
    replicates: int,
    seed: int,
    confidence: float,
    parameters: Mapping[str, Any] | None,
) -> dict[str, Any]:
    """``rounds_compare`` for a span question: one decomposable span coefficient (alpha_u
    unless told), later minus earlier, with a bootstrap interval over documents; the
    minimum overlap and overlapping rule of ``parameters``, else of the later round's latest
    computation, else the defaults."""
    name = coefficient or "alpha_u"
    if name not in engine.SPAN_DECOMPOSABLE:
        raise ValueError(
            f"Rounds of a span question are compared on {', '.join(engine.SPAN_DECOMPOSABLE)}, "
            f"not {name}."
        )
    later, earlier = (first, second) if first.position > second.position else (second, first)
    if parameters is None:
        latest = latest_round_computations(study=later.study, question_ids=[question.pk]).get(
            (question.pk, later.pk)
        )
        parameters = latest.parameters if latest else None
    params = dict(parameters or question.label_kind.default_parameters())
    read = {later.pk: _span_round(question, later), earlier.pk: _span_round(question, earlier)}
    options = {"replicates": replicates, "seed": seed, "confidence": confidence}
    chosen = _span_options(params)
    difference, unpaired, paired, n_shared = _span_difference(
        read[later.pk], read[earlier.pk], name, **chosen, options=options
    )
    entries = {r.pk: _round_entry(r, len(read[r.pk][1])) for r in (later, earlier)}
    out: dict[str, Any] = {
        "question": question.pk,
        "coefficient": name,
        "difference_is": DIFFERENCE_IS,
        "later": entries[later.pk],
        "earlier": entries[earlier.pk],
        "first": entries[first.pk],
        "second": entries[second.pk],
        "n_shared_items": n_shared,
        "paired": paired,
        "difference": difference,
        "parameters": chosen,
    }
    if unpaired is not None:
        out["unpaired"] = unpaired
    return out


def _span_options(params: Mapping[str, Any]) -> dict[str, Any]:
    """The minimum overlap and overlapping rule of span computation parameters (defaults for
    parameters stored before they existed)."""
    return {
        "min_overlap": float(params.get("min_overlap", 0.5)),
        "overlapping": str(engine.span_overlapping(params)),
    }


def _stored_value(results: Mapping[str, Any] | None, name: str) -> float | None:
    entry = ((results or {}).get("coefficients") or {}).get(name) or {}
    value = entry.get("value")
    return None if value is None else float(value)


def _span_comparison_with_previous(
    *,
    computation: Computation,
    results: Mapping[str, Any],
    round_: Round,
    earlier: Round,
    bootstrap: bool,
    why_not: str | None,
) -> dict[str, Any]:
    """The stored comparison of a span computation: for each of ``SPAN_COMPARED`` it
    computed, the later round minus the earlier, with a bootstrap interval when ``bootstrap``
    (``method: "bootstrap"``), else the difference of the two rounds' stored point
    estimates without an interval (``method: "point estimates only"`` and ``why_not``)."""
    question = computation.question
    params = computation.parameters
    names = [n for n in SPAN_COMPARED if n in (results.get("coefficients") or {})]
    if not names:
        return {"status": "skipped", "reason": "Neither alpha_u nor span_f1 was computed."}
    stored = latest_round_computations(study=computation.study, question_ids=[question.pk]).get(
        (question.pk, earlier.pk)
    )
    earlier_results = stored.results if stored is not None else None
    read = None
    if bootstrap:
        read = (_span_round(question, round_), _span_round(question, earlier))
    coefficients: dict[str, Any] = {}
    n_shared, paired = None, None
    options = {
        "replicates": COMPARE_REPLICATES,
        "seed": int(params["seed"]),
        "confidence": float(params["confidence"]),
    }
    for name in names:
        entry: dict[str, Any] = {
            "later_value": _stored_value(results, name),
            "earlier_value": _stored_value(earlier_results, name),
        }
        if read is not None:
            try:
                difference, _, paired, n_shared = _span_difference(
                    read[0], read[1], name, **_span_options(params), options=options
                )
            except ValueError as error:
                entry["reason"] = f"no bootstrap interval: {error}"
            else:
                coefficients[name] = {**entry, "method": BOOTSTRAPPED, "difference": difference}
                continue
        elif why_not:
            entry["reason"] = why_not
        if entry["earlier_value"] is None:
            entry["reason"] = (
                f"{earlier.name} has no finished computation of {name} to compare with."
            )
        later_value, earlier_value = entry["later_value"], entry["earlier_value"]
        estimate = (
            later_value - earlier_value
            if later_value is not None and earlier_value is not None
            else None
        )
        coefficients[name] = {**entry, "method": POINT_ONLY, "difference": {"estimate": estimate}}
    headline = coefficients[names[0]]
    return {
        "status": "done",
        "kind": computation.question.kind,
        "coefficient": names[0],
        "difference_is": DIFFERENCE_IS,
        "later": {"round": round_.pk, "round_name": round_.name},
        "earlier": {
            "round": earlier.pk,
            "round_name": earlier.name,
            "computation": stored.pk if stored is not None else None,
        },
        "paired": paired,
        "n_shared_items": n_shared,
        "method": headline["method"],
        "difference": headline["difference"],
        "coefficients": coefficients,
        "earlier_data_revision": scope_data_revision(question=question, round_ids=[earlier.pk]),
    }
