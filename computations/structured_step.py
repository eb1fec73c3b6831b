"""The computation of a structured question (regions on an image, ...): its parameters,
and its one step on a worker. The question's kind reads the scope's values into the
library's report (``StructuredValues.report``); this module checks what is asked, stores
the result and names the most disputed items by their ids.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from django.utils import timezone

from computations import engine, model_coders
from computations.models import Computation, ComputationStatus
from computations.scope import scope_structured
from computations.selectors import computation_round_ids
from studies.distance_tables import distance_mapping
from studies.kinds import Kind

#: Why a structured computation has no comparison with the previous round (yet).
NO_COMPARISON = (
    "Rounds of this kind are compared by their stored values and intervals in the history; "
    "a paired bootstrap of two rounds is not computed for it yet."
)


def structured_parameter_errors(kind: Kind, params: Mapping[str, Any]) -> dict[str, str]:
    """What is wrong with the coefficients asked of a structured kind and its own options."""
    assert kind.structured is not None
    known = kind.coefficients or ()
    coefficients = params.get("coefficients")
    if (
        not coefficients
        or not isinstance(coefficients, list | tuple)
        or any(name not in known for name in coefficients)
    ):
        return {"coefficients": f"Choose one or more of: {', '.join(known)}."}
    return dict(kind.structured.parameter_errors(params))


def uses_distance_table(kind: Kind, params: Mapping[str, Any]) -> bool:
    """Whether a computation of ``kind`` with ``params`` reads the question's distance
    table (a text question's ``distance`` ``user``)."""
    values = kind.structured
    return values is not None and values.takes_distance_table and params.get("distance") == "user"


def run_structured_step(computation: Computation, beat: Callable[[int, float], None]) -> None:
    """Read the scope, run the kind's report, store it as the computation's result."""
    kind = computation.question.label_kind
    assert kind.structured is not None
    params = computation.parameters
    started = time.monotonic()
    scope = scope_structured(
        question=computation.question, round_ids=computation_round_ids(computation)
    )
    if scope.n_annotations == 0:
        raise ValueError("There are no annotations in this scope.")
    beat(computation.pk, 0.1)
    table_fingerprint = ""
    if uses_distance_table(kind, params):
        table = distance_mapping(question=computation.question)
        if table is not None:
            table_fingerprint = table.fingerprint
        params = {**params, "distance_table": table.distances if table is not None else None}
    # The question's undirected labels go with the parameters: they are its declaration,
    # not an option of the computation.
    results = kind.structured.report(
        scope.rows, scope.code_by_id, scope.items, {**params, "undirected": scope.undirected}
    )
    for entry in results.get("most_disputed", []):
        entry["item"] = scope.item_ids.get(str(entry.get("name")))
    results.update(
        kind=kind.key,
        n_annotations=scope.n_annotations,
        comparison={"status": "skipped", "reason": NO_COMPARISON},
        bootstrap={
            "replicates": int(params["bootstrap"]),
            "seed": params["seed"],
            "confidence": params["confidence"],
            "chunks": 0,
        },
        seconds={"report": round(time.monotonic() - started, 3)},
    )
    models = model_coders.structured_result(
        results,
        [coder for _, coder, _ in scope.rows],
        round_ids=computation_round_ids(computation),
        study_id=computation.study_id,
    )
    if models is not None:
        results[model_coders.RESULTS_KEY] = models
    Computation.objects.filter(pk=computation.pk, status=ComputationStatus.RUNNING).update(
        status=ComputationStatus.DONE,
        progress=1.0,
        finished_at=timezone.now(),
        heartbeat_at=timezone.now(),
        fingerprint=scope.fingerprint,
        distance_table_fingerprint=table_fingerprint,
        n_annotations=scope.n_annotations,
        metrics_version=engine.metrics_version(),
        results=results,
    )
