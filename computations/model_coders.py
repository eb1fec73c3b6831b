"""The worker's model-coder step: what a computation says about the scope's model coders.

When the scope's coders include models (``Coder.kind`` model) and people, a computation
stores ``results["model_coders"]``:

- ``groups``: Krippendorff's alpha among the people, among the models, and Vanbelle &
  Albert's agreement between the two groups, each with its bootstrap interval (the
  computation's distance, replicates, seed and confidence);
- ``per_model``: for each model coder, its name, model version and prompt version (those
  recorded for the round, ``ModelCoderRound``), the alternative annotator test against the
  people (``epsilon`` and ``alt_test_alpha`` parameters; at least
  ``MIN_PEOPLE_FOR_ALT_TEST`` people in the scope, else the reason) and the
  prediction-powered estimates of each category's prevalence (or the mean of a number), and
  its self-consistency: intra-coder alpha among the model coders that are runs of the same
  model (the same model name and version; another run or prompt version), with its
  bootstrap interval, or why there is none; and, when it gave a confidence with its labels
  (``ModelConfidence``), its calibration: the expected calibration error with
  ``CALIBRATION_BINS`` equal-mass bins against the item's adjudicated label where it has
  one (``adjudication``, read in one query) and else the people's majority label, with the
  number of labels read against each, and the reliability diagram's bins (the computation
  records the fingerprint of the adjudications read, ``adjudications_fingerprint``: it is
  stale once they change);
- ``settings``: ε, the false discovery rate level and the scoring the test used.

The numbers come from ``computations.engine`` (``metrics.models``); a part that cannot be
computed stores its reason. It is a reading beside the agreement report: it never fails the
computation. A scope without model coders stores nothing (its results are as before).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from computations import engine
from computations.scope import (
    ScopeAdjudications,
    ScopeAnnotations,
    coder_keys,
    scope_adjudications,
    scope_confidences,
)
from studies.kinds import Feature, Kind
from studies.models import Coder, CoderKind
from studies.services.roster import model_round_versions_record

logger = logging.getLogger(__name__)

#: The people the alternative annotator test needs in the scope: with two, "the remaining
#: humans" of each item is one person (Calderon et al. 2025 ask for three or more).
MIN_PEOPLE_FOR_ALT_TEST = 3
#: The optional computation parameters of the step, with their defaults (the paper's): left
#: out of a computation's parameters unless given, so earlier requests keep their hash.
PARAMETERS: dict[str, float] = {"epsilon": 0.2, "alt_test_alpha": 0.05}
#: Equal-mass bins of the calibration's expected calibration error and reliability diagram.
CALIBRATION_BINS = 10
#: The key of the step's part of ``Computation.results``.
RESULTS_KEY = "model_coders"


def parameter_errors(kind: Kind, given: Mapping[str, Any]) -> dict[str, str]:
    """What is wrong with the step's parameters among ``given`` (empty when fine)."""
    errors: dict[str, str] = {}
    for name in PARAMETERS:
        if name not in given or given[name] is None:
            continue
        if not kind.supports(Feature.MODELS):
            errors[name] = f"{kind.key.capitalize()} questions have no model-coder tests."
            continue
        value = given[name]
        number = isinstance(value, int | float) and not isinstance(value, bool)
        if name == "epsilon" and not (number and 0 <= value < 1):
            errors[name] = (
                "ε, the alternative annotator test's cost-benefit margin, is a number from 0 "
                "to below 1 (the paper suggests 0.2 for experts, 0.15 for skilled coders, "
                "0.1 for crowd workers)."
            )
        elif name == "alt_test_alpha" and not (number and 0 < value < 1):
            errors[name] = (
                "The alternative annotator test's false discovery rate level is above 0 "
                "and below 1."
            )
    return errors


def step_parameters(given: Mapping[str, Any]) -> dict[str, float]:
    """The step's parameters given (checked by :func:`parameter_errors`), as floats."""
    return {name: float(given[name]) for name in PARAMETERS if given.get(name) is not None}


@dataclass(frozen=True)
class ScopeCoders:
    """The scope's coders by id: their keys, and which are people and which models."""

    keys: dict[int, str]
    people: list[int]
    models: list[int]
    model_rows: dict[int, dict[str, Any]]


def scope_coders(coder_ids: Sequence[int], *, study_id: int) -> ScopeCoders:
    """The scope's coders, people and models. The study's model coders are read first (a
    few rows), so a scope without any costs one small query, however many coders it has."""
    ids = {int(c) for c in coder_ids}
    models = {
        row["id"]: dict(row)
        for row in Coder.objects.filter(study_id=study_id, kind=CoderKind.MODEL)
        .order_by("key")
        .values("id", "key", "model_name", "model_version", "prompt_version")
        if row["id"] in ids
    }
    if not models:
        return ScopeCoders(keys={}, people=sorted(ids), models=[], model_rows={})
    keys = coder_keys(ids)
    return ScopeCoders(
        keys=keys,
        people=sorted((c for c in ids if c not in models), key=lambda c: keys.get(c, "")),
        models=list(models),
        model_rows=models,
    )


@dataclass(frozen=True)
class ModelCodersStep:
    """What the step gives the computation: ``results["model_coders"]`` (None when the
    scope has no model coder) and the fingerprint of the scope's adjudications its
    calibration read as reference labels (``scope.adjudications_fingerprint``; empty when no
    model gave a confidence, so that nothing read them), which the computation records."""

    results: dict[str, Any] | None
    adjudications_fingerprint: str = ""


def model_coders_result(
    *,
    scope: ScopeAnnotations,
    data: Any,
    kind: Kind,
    params: Mapping[str, Any],
    round_ids: Sequence[int],
    study_id: int,
    question_id: int,
) -> ModelCodersStep:
    """The scope's ``results["model_coders"]`` (None when it has no model coder) and the
    adjudications it read; never raises (a failure is stored as the reason)."""
    coders = scope_coders([int(c) for c in data.coders], study_id=study_id)
    if not coders.models:
        return ModelCodersStep(None)
    if not kind.supports(Feature.MODELS):
        return ModelCodersStep({"skipped": _kind_refusal(kind)})
    started = time.monotonic()
    try:
        result, adjudications = _result(coders, data, kind, params, round_ids, scope, question_id)
    except Exception as error:  # a reading beside the report: its failure is only noted
        logger.exception("model-coder step failed")
        return ModelCodersStep(
            {"skipped": f"The model-coder tests failed: {type(error).__name__}: {error}"}
        )
    result["seconds"] = round(time.monotonic() - started, 3)
    return ModelCodersStep(result, adjudications)


def structured_result(
    report: Mapping[str, Any],
    coder_key_list: Sequence[str],
    *,
    round_ids: Sequence[int],
    study_id: int,
) -> dict[str, Any] | None:
    """``results["model_coders"]`` of a structured question whose report measures each
    coder's position bias (pairwise preferences): each model coder's share of non-tie
    choices picking the option shown first, with the exact binomial p, as the report
    computed it. None when the scope has no model coder or the report has no position bias.
    """
    bias = report.get("position_bias")
    if not isinstance(bias, Mapping):
        return None
    keys = set(coder_key_list)
    # The study's model coders are a few rows: read them all rather than name every coder.
    rows = [
        row
        for row in Coder.objects.filter(study_id=study_id, kind=CoderKind.MODEL)
        .order_by("key")
        .values("id", "key", "model_name", "model_version", "prompt_version")
        if row["key"] in keys
    ]
    if not rows:
        return None
    versions = model_round_versions_record(
        round_ids=round_ids, coder_ids=[row["id"] for row in rows]
    )
    per_model = [
        {
            **_model_entry(row, versions, round_ids),
            "position_bias": dict(bias.get(row["key"]) or {}),
        }
        for row in rows
    ]
    models = {row["key"] for row in rows}
    return {
        "people": sorted(keys - models),
        "models": sorted(models),
        "per_model": per_model,
    }


def _kind_refusal(kind: Kind) -> str:
    try:
        kind.require(Feature.MODELS)
    except ValueError as refusal:
        return str(refusal)
    return ""


def _result(
    coders: ScopeCoders,
    data: Any,
    kind: Kind,
    params: Mapping[str, Any],
    round_ids: Sequence[int],
    scope: ScopeAnnotations,
    question_id: int,
) -> tuple[dict[str, Any], str]:
    """The step's results and the fingerprint of the adjudications read (empty: none)."""
    named = engine.with_coder_names(data, coders.keys)
    confidences = scope_confidences(
        question_id=question_id, round_ids=round_ids, coder_ids=coders.models
    )
    people = [coders.keys[c] for c in coders.people]
    models = [coders.keys[c] for c in coders.models]
    epsilon = float(params.get("epsilon", PARAMETERS["epsilon"]))
    alpha = float(params.get("alt_test_alpha", PARAMETERS["alt_test_alpha"]))
    scoring = kind.model_scoring or "accuracy"
    groups = engine.model_groups(named, params, people=people, models=models, parents=scope.parents)
    versions = model_round_versions_record(round_ids=round_ids, coder_ids=coders.models)
    # The calibration's reference labels: read once for every model, and only when it runs.
    adjudications = (
        scope_adjudications(question_id=question_id, round_ids=round_ids)
        if kind.categorical and confidences.coder_ids.size
        else ScopeAdjudications(units=np.zeros(0, dtype=np.int64), codes=[])
    )
    per_model = []
    for coder_id in coders.models:
        key = coders.keys[coder_id]
        entry = _model_entry(coders.model_rows[coder_id], versions, round_ids)
        if len(people) < MIN_PEOPLE_FOR_ALT_TEST:
            entry["alt_test"] = {
                "refused": (
                    f"The alternative annotator test needs at least {MIN_PEOPLE_FOR_ALT_TEST} "
                    f"people (person coders) in the round; it has {len(people)}"
                    + (f" ({', '.join(people)})." if people else ".")
                )
            }
        else:
            entry["alt_test"] = engine.model_alt_test(
                named, model=key, humans=people, epsilon=epsilon, alpha=alpha, scoring=scoring
            )
        if people:
            entry["ppi"] = engine.model_ppi(
                named,
                model=key,
                humans=people,
                categorical=kind.categorical,
                confidence=float(params["confidence"]),
            )
        else:
            entry["ppi"] = {"refused": "No person labelled this scope: nothing corrects the model."}
        calibrated = _calibration(named, kind, key, people, confidences, coder_id, adjudications)
        if calibrated is not None:
            entry["calibration"] = calibrated
        per_model.append(entry)
    _add_self_consistency(per_model, named, params, scope)
    result = {
        "people": people,
        "models": models,
        "groups": groups,
        "per_model": per_model,
        "settings": {
            "epsilon": epsilon,
            "alt_test_alpha": alpha,
            "scoring": scoring,
            "min_people": MIN_PEOPLE_FOR_ALT_TEST,
            "confidence": float(params["confidence"]),
        },
    }
    return result, adjudications.fingerprint


def _calibration(
    named: Any,
    kind: Kind,
    key: str,
    people: list[str],
    confidences: Any,
    coder_id: int,
    adjudications: ScopeAdjudications,
) -> dict[str, Any] | None:
    """The model's calibration against the adjudicated label, else the people's majority
    label, when it gave confidences (None when it gave none)."""
    mine = confidences.coder_ids == coder_id
    if not mine.any():
        return None
    if not kind.categorical:
        return {
            "refused": f"{kind.title} labels are not one category each: a confidence has no "
            "right or wrong label to be calibrated against."
        }
    if not people and not adjudications.units.size:
        return {
            "refused": "No person labelled this scope and no item is adjudicated: there is "
            "no reference label."
        }
    return engine.model_calibration(
        named,
        model=key,
        humans=people,
        units=confidences.units[mine],
        confidences=confidences.confidences[mine],
        bins=CALIBRATION_BINS,
        adjudicated_units=adjudications.units,
        adjudicated_codes=adjudications.codes,
    )


def run_of(entry: Mapping[str, Any]) -> tuple[str, str]:
    """What makes two model coders runs of one model: the same model name and model version
    (for the scope); their prompt versions may differ."""
    return (str(entry.get("model_name") or ""), str(entry.get("model_version") or ""))


def _add_self_consistency(
    per_model: list[dict[str, Any]], named: Any, params: Mapping[str, Any], scope: Any
) -> None:
    """Each model's self-consistency: intra-coder alpha among the model coders of the scope
    that are runs of the same model (:func:`run_of`), computed once per model and stored
    with each of its runs; a model with one run stores why there is none."""
    runs: dict[tuple[str, str], list[str]] = {}
    for entry in per_model:
        runs.setdefault(run_of(entry), []).append(str(entry["key"]))
    results: dict[tuple[str, str], dict[str, Any]] = {}
    for model, keys in runs.items():
        if len(keys) < 2:
            name, version = model
            results[model] = {
                "refused": (
                    f"No other run of model {name}"
                    + (f" (version {version})" if version else "")
                    + " labelled this scope: self-consistency needs a second model coder "
                    "with the same model name and version (another run, or another prompt "
                    "version) on the same items."
                ),
                "runs": keys,
            }
        else:
            results[model] = engine.model_self_consistency(
                named, params, runs=keys, parents=scope.parents
            )
    for entry in per_model:
        entry["self_consistency"] = results[run_of(entry)]


def _model_entry(
    row: Mapping[str, Any], versions: Mapping[tuple[int, int], Any], round_ids: Sequence[int]
) -> dict[str, Any]:
    """A model coder's identity in ``per_model``: its key, model name, and the model and
    prompt versions recorded for the scope's rounds (its current ones when none)."""
    coder_id = row["id"]
    recorded = [versions[(coder_id, r)] for r in round_ids if (coder_id, r) in versions]
    return {
        "coder": coder_id,
        "key": row["key"],
        "model_name": row["model_name"],
        "model_version": _joined(v.model_version for v in recorded) or row["model_version"],
        "prompt_version": _joined(v.prompt_version for v in recorded) or row["prompt_version"],
    }


def _joined(values: Any) -> str:
    """The distinct values in order, joined (several rounds pooled may differ)."""
    return ", ".join(dict.fromkeys(v for v in values if v))


def scope_without_models(scope: ScopeAnnotations, *, study_id: int) -> ScopeAnnotations:
    """The scope's annotations by people only (a plan for the next round is the people's:
    a model's labels cost nothing and its extra items would change the pilot's design)."""
    coders = np.unique(scope.coder_ids)
    models = scope_coders([int(c) for c in coders], study_id=study_id).models
    if not models:
        return scope
    keep = ~np.isin(scope.coder_ids, np.asarray(models, dtype=np.int64))
    labels = scope.labels
    kept_labels = (
        labels[keep]
        if isinstance(labels, np.ndarray)
        else [label for label, kept in zip(labels, keep.tolist(), strict=True) if kept]
    )
    return replace(
        scope, item_ids=scope.item_ids[keep], coder_ids=scope.coder_ids[keep], labels=kept_labels
    )
