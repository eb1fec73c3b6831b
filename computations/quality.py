"""The worker's coder-quality step: Dawid–Skene and MACE on a computation's annotations.

A round's computation stores ``results["coder_quality"]``: each coder's Dawid–Skene
accuracy and confusion matrix, MACE competence, and the posterior labels as a candidate
reference (``computations.engine.coder_quality`` gives the shape). It is a reading beside
the agreement report, so it never fails the computation: when it does not apply (a
question that is not nominal or ordinal, no item with two coders, more annotations than
``AGREEMENT_QUALITY_MAX_ANNOTATIONS``) or the models fail, it stores
``{"skipped": <reason>}`` instead.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
from django.conf import settings

from computations import engine
from computations.scope import ScopeAnnotations
from studies.kinds import Feature, kind_of

logger = logging.getLogger(__name__)

#: Above this many annotations the step is skipped. MACE's starts cost most: about 0.03 s
#: per iteration per million annotations (docs/quality.md), up to 50 iterations each.


def max_annotations() -> int:
    """The ``AGREEMENT_QUALITY_MAX_ANNOTATIONS`` setting."""
    return int(settings.AGREEMENT_QUALITY_MAX_ANNOTATIONS)


def skip_reason(scope: ScopeAnnotations) -> str | None:
    """Why the models do not run on this scope, or None when they do."""
    kind = kind_of(scope.kind)
    if not kind.supports(Feature.QUALITY):
        return (
            "Coder quality models need one category per annotation: nominal or ordinal "
            f"questions, not {scope.kind} ones."
        )
    cap = max_annotations()
    if scope.n_annotations > cap:
        return (
            f"{scope.n_annotations} annotations: above the {cap} for which coder quality "
            "models run on the server (AGREEMENT_QUALITY_MAX_ANNOTATIONS)."
        )
    _, per_item = np.unique(scope.item_ids, return_counts=True)
    if not len(per_item) or int(per_item.max()) < 2:
        return "No item has labels from two coders: coder quality cannot be estimated."
    return None


def coder_quality(
    scope: ScopeAnnotations,
    *,
    seed: int,
    coder_names: Mapping[Any, str],
    item_names: Callable[[list[Any]], dict[Any, str]],
) -> dict[str, Any]:
    """The coder-quality result of a scope, or ``{"skipped": reason}``; never raises.

    Coders are named by ``coder_names`` (their keys), the sampled items by ``item_names``
    (their external ids); MACE's random starts are seeded with ``seed``.
    """
    reason = skip_reason(scope)
    if reason is not None:
        return {"skipped": reason}
    started = time.monotonic()
    try:
        result = engine.coder_quality(
            (scope.item_ids, scope.coder_ids, scope.labels),
            domain=scope.domain or (),
            seed=seed,
            coder_names=coder_names,
            item_names=item_names,
        )
    except Exception as error:  # a reading beside the report: its failure is only noted
        logger.exception("coder quality failed")
        return {"skipped": f"The coder quality models failed: {type(error).__name__}: {error}"}
    result["seconds"] = round(time.monotonic() - started, 3)
    return result
