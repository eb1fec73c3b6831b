"""Two rounds compared: the difference of a coefficient, later round minus earlier, with a
bootstrap interval on their shared items (paired) or on all their items as independent
samples when the item sets differ.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from computations import engine
from computations.scope import ScopeAnnotations, scope_annotations
from computations.selectors import latest_round_computations
from studies.exceptions import ApplicationError
from studies.models import Question, Round, Study

MIN_SHARED_ITEMS = 2


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
    latest = latest_round_computations(study=study, question_ids=[question.pk]).get(
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
