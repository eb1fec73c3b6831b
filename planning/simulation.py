"""The plan itself: the one module of ``planning`` that computes with ``metrics``.

From a pilot, the pilot's own design (its coders and missing labels) is planned by
resampling its items (``metrics.plan_items`` on the coefficient's decomposition, built by
``computations.engine.decompositions`` exactly as a round's report builds it). Each further
design (``coders_per_item``) is planned with the nominal model of ``metrics.planning``
(``plan_without_pilot``): without a pilot from the assumptions, with a pilot from the
pilot's category shares and its nominal alpha. The pilot's uncertainty
(``spec.pilot_uncertainty``) reaches both: ``lower-bound`` plans the pilot's design on
resamples at its one-sided 80% lower bound and the model at the 20% quantile of the pilot's
bootstrap replicates of nominal alpha; ``bootstrap`` draws per simulated round a resample,
or a replicate's alpha; ``none`` takes the pilot as the truth. Assumptions (no pilot) are
taken as the truth. The result is plain JSON (``plan_result``).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from computations import engine
from computations.scope import ScopeAnnotations
from metrics import (
    Decomposition,
    bootstrap_chunk,
    coefficient_specs,
    plan_items,
    plan_without_pilot,
)
from metrics.planning import DEFAULT_PILOT_UNCERTAINTY, MAX_PATTERNS, PILOT_LEVEL
from studies.kinds import KINDS, Feature, kind_of

#: The coefficients a plan may target, per label kind: those a round's report computes.
PLAN_COEFFICIENTS: dict[str, tuple[str, ...]] = {
    key: tuple(kind.defaults["coefficients"])
    for key, kind in KINDS.items()
    if kind.supports(Feature.PLANNING)
}
__all__ = ["MAX_PATTERNS", "PLAN_COEFFICIENTS", "Pilot", "PlanSpec", "plan_result"]

#: Sizes below this are not planned (see docs/planning.md, "Small rounds").
MIN_ITEMS = 20


@dataclass(frozen=True)
class PlanSpec:
    """What to plan: the question's kind, the target, and the designs."""

    kind: str
    coefficient: str
    target: float
    power: float
    confidence: float
    max_items: int
    replicates: int
    seed: int
    coders_per_item: tuple[int, ...] = ()
    assumptions: Mapping[str, Any] = field(default_factory=dict)
    pilot_uncertainty: str = DEFAULT_PILOT_UNCERTAINTY


@dataclass(frozen=True)
class Pilot:
    """A pilot round's annotations of the question (``computations.scope``) and its name."""

    name: str
    round_id: int
    scope: ScopeAnnotations


def plan_result(
    spec: PlanSpec, pilot: Pilot | None, *, on_step: Callable[[float], None] | None = None
) -> dict[str, Any]:
    """Plan every design of ``spec``; ``on_step(share done)`` after each.

    Raises ``ValueError`` (with the library's reason) when the pilot's own design cannot be
    planned, or, without a pilot, when no design can; a design that fails beside others
    that succeed keeps its reason in its entry (``error``).
    """
    steps = len(spec.coders_per_item) + (1 if pilot is not None else 0)
    done = 0

    def step() -> None:
        nonlocal done
        done += 1
        if on_step is not None:
            on_step(done / max(steps, 1))

    plans: list[dict[str, Any]] = []
    draws: dict[str, Any] = {}
    pilot_json: dict[str, Any] | None = None
    categories: dict[Hashable, float]
    if pilot is not None:
        pilot_json, decomposition, categories, nominal = _pilot_summary(spec, pilot)
        model_alpha = float(nominal.evaluate()) if nominal is not None else float("nan")
        result = plan_items(
            decomposition, pilot_uncertainty=spec.pilot_uncertainty, **_common(spec)
        )
        coders = pilot_json["coders_per_item"]
        plans.append(_plan_json(result.to_json(), design="pilot", coders_per_item=coders))
        step()
        assumed: dict[str, Any] = {"alpha": model_alpha}
        if spec.pilot_uncertainty != "none" and nominal is not None and spec.coders_per_item:
            replicates = bootstrap_chunk(nominal, seed=spec.seed, start=0, stop=spec.replicates)
            defined = replicates[np.isfinite(replicates)]
            if spec.pilot_uncertainty == "bootstrap" and defined.size >= 2:
                # The model's alpha per simulated round: one of the pilot's replicates.
                draws["alpha_draws"] = defined
            elif defined.size >= 2:
                # The model at the pilot's one-sided lower bound of its nominal alpha.
                bound = float(np.quantile(defined, 1.0 - PILOT_LEVEL))
                assumed = {"alpha": min(max(bound, 0.0), 1.0)}
    else:
        categories = {str(k): float(v) for k, v in spec.assumptions["categories"].items()}
        assumed = {
            k: float(spec.assumptions[k]) for k in ("alpha", "agreement") if k in spec.assumptions
        }
    for coders in spec.coders_per_item:
        try:
            model = plan_without_pilot(
                categories,
                decompose=_model_decompose(spec.coefficient, coders),
                coders=coders,
                **assumed,
                **draws,
                **_common(spec),
            )
        except ValueError as error:
            plans.append({"design": f"{coders} coders per item", "coders_per_item": coders,
                          "source": "model", "error": str(error)})  # fmt: skip
        else:
            plans.append(
                _plan_json(
                    model.to_json(), design=f"{coders} coders per item", coders_per_item=coders
                )
            )
        step()
    planned = [plan for plan in plans if "error" not in plan]
    if not planned:
        raise ValueError(plans[0]["error"] if plans else "Nothing to plan: no design was given.")
    return {
        "coefficient": spec.coefficient,
        "target": spec.target,
        "power": spec.power,
        "confidence": spec.confidence,
        "replicates": spec.replicates,
        "seed": spec.seed,
        "method": planned[0]["method"],
        "pilot_uncertainty": spec.pilot_uncertainty if pilot is not None else "none",
        "metrics_version": engine.metrics_version(),
        "pilot": pilot_json,
        "model": (
            {"categories": categories, **{k: _finite(v) for k, v in assumed.items()}}
            if spec.coders_per_item
            else None
        ),
        "plans": plans,
        "recommended": _recommended(planned, pilot is not None),
    }


def _common(spec: PlanSpec) -> dict[str, Any]:
    return {
        "target": spec.target,
        "power": spec.power,
        "confidence": spec.confidence,
        "replicates": spec.replicates,
        "seed": spec.seed,
        "min_items": MIN_ITEMS,
        "max_items": spec.max_items,
    }


def _pilot_summary(
    spec: PlanSpec, pilot: Pilot
) -> tuple[dict[str, Any], Decomposition, dict[Hashable, float], Decomposition | None]:
    """The pilot as JSON, the coefficient's decomposition, the category shares and the
    nominal alpha's decomposition (the last two parameterise the model of the other
    designs; its bootstrap replicates carry the pilot's uncertainty into the model)."""
    scope = pilot.scope
    data = engine.reliability_data(
        scope.item_ids, scope.coder_ids, scope.labels, domain=scope.domain
    )
    params = {**engine.default_parameters(spec.kind), "coefficients": [spec.coefficient]}
    decomposition = engine.decompositions(data, params, parents=scope.parents).get(spec.coefficient)
    if decomposition is None:
        raise ValueError(
            f"{spec.coefficient} is not defined on the pilot round {pilot.name!r} "
            f"({data.n_coders} coders); choose another coefficient."
        )
    _, per_item = np.unique(scope.item_ids, return_counts=True)
    categories: dict[Hashable, float] = {}
    alpha: Decomposition | None = None
    if kind_of(spec.kind).plan_model:
        codes, counts = np.unique(np.asarray(scope.labels, dtype=str), return_counts=True)
        categories = {
            str(c): float(n) / float(counts.sum()) for c, n in zip(codes, counts, strict=True)
        }
        nominal = {**kind_of(spec.kind).default_parameters(), "coefficients": ["alpha"]}
        alpha = engine.decompositions(data, nominal, parents={}).get("alpha")
    model_alpha = float(alpha.evaluate()) if alpha is not None else float("nan")
    estimate = float(decomposition.evaluate())
    summary = {
        "round": pilot.name,
        "round_id": pilot.round_id,
        "n_items": len(per_item),
        "n_coders": int(data.n_coders),
        "n_annotations": int(scope.n_annotations),
        "coders_per_item": round(float(per_item.mean()), 2),
        "estimate": _finite(estimate),
        "category_shares": categories or None,
        "nominal_alpha": _finite(model_alpha),
    }
    return summary, decomposition, categories, alpha


def _model_decompose(coefficient: str, coders: int) -> Callable[[Any], Decomposition]:
    for spec in coefficient_specs(coders, False):
        if spec.key == coefficient:
            return spec.decompose  # type: ignore[no-any-return]
    raise ValueError(f"{coefficient} is not defined for {coders} coders per item.")


def _plan_json(plan: Mapping[str, Any], *, design: str, coders_per_item: float) -> dict[str, Any]:
    n_items = int(plan["n_items"])
    return {
        "design": design,
        "coders_per_item": coders_per_item,
        "n_items": n_items,
        "annotations": round(n_items * coders_per_item),
        "probability": plan["probability"],
        "estimate": _finite(plan["estimate"]),
        "source": plan["source"],
        "method": plan["method"],
        "pilot_uncertainty": plan["pilot_uncertainty"],
        "ceiling": plan["ceiling"],
        "curve": [
            {"n": int(p["n"]), "probability": float(p["probability"])} for p in plan["curve"]
        ],
    }


def _recommended(planned: Sequence[Mapping[str, Any]], from_pilot: bool) -> dict[str, Any]:
    """The pilot's design when there is a pilot; otherwise the design with the fewest
    annotations (items × coders per item; ties: fewer coders)."""
    if from_pilot:
        best = planned[0]
    else:
        best = min(planned, key=lambda p: (p["annotations"], p["coders_per_item"]))
    return {
        "design": best["design"],
        "n_items": best["n_items"],
        "coders_per_item": best["coders_per_item"],
        "annotations": best["annotations"],
        "probability": best["probability"],
    }


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None
