"""The one place where the server calls the metrics library.

Everything the workers need from ``metrics`` goes through here, in JSON-ready shapes:
defaults per label kind, building reliability data, the point report with diagnostics,
decompositions for the bootstrap, chunked replicates and their combination, and the
difference of two coefficients. A name change in ``metrics`` is an edit in this module
only.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy import sparse

import metrics
from metrics import (
    COEFFICIENT_KEYS,
    HIERARCHY_DISTANCES,
    Decomposition,
    ReliabilityData,
    analytic_se,
    annotator_bias,
    bootstrap_difference,
    bootstrap_difference_unpaired,
    coder_distributions,
    coefficient_specs,
    coincidence_matrix,
    item_disagreement,
    jackknife_values,
    kappa_comparison,
    pairwise_coder_matrix,
    per_category_agreement,
    per_member_agreement,
    report_distance,
)
from metrics import bootstrap_chunk as metrics_bootstrap_chunk
from metrics import bootstrap_combine as metrics_bootstrap_combine
from metrics import decompose_light_kappa as decompose_light_kappa  # for item_sums
from metrics import distance_names as metrics_distance_names
from metrics import light_kappa_on_rows as light_kappa_on_rows  # for item_sums
from metrics import report as metrics_report
from metrics.distances.scalar import midranks as midranks  # for item_sums
from metrics.models import (
    AltTestRefusedError,
    alt_tests_on_data,
    calibration,
    group_agreement,
    ppi_mean,
    self_consistency_on_data,
)
from metrics.quality import as_annotations, dawid_skene, mace
from metrics.report import benchmarks_json
from metrics.spans import SpanData, decompose_span_f1, decompose_unitizing_alpha
from metrics.spans import span_report as metrics_span_report
from metrics.spans.refusal import (
    OVERLAPPING_TOKEN_LABELS,
    OVERLAPPING_UNITS,
    RefusalError,
    refusal_text,
)
from metrics.spans.report import OVERLAPPING
from metrics.uncertainty.benchmarks import paired_difference_replicates, probability_later_higher
from studies.kinds import kind_of
from studies.kinds import span as span_kind

#: Every coefficient name the report knows, in display order.
ALL_COEFFICIENTS: tuple[str, ...] = tuple(COEFFICIENT_KEYS)
LEVELS: tuple[str, ...] = tuple(metrics.LEVELS)

#: The coefficients of a span question, in display order (its kind's module has them).
SPAN_COEFFICIENTS: tuple[str, ...] = span_kind.COEFFICIENTS
#: Span coefficients with a per-document decomposition (a bootstrap difference of two rounds).
SPAN_DECOMPOSABLE: tuple[str, ...] = span_kind.COMPARABLE
#: What alpha_u does with one coder's overlapping units of a category (parameter
#: ``overlapping``): refuse them (alpha_u undefined, with the reason) or merge them.
SPAN_OVERLAPPING: tuple[str, ...] = tuple(OVERLAPPING)
#: The way out of each span refusal of the library (by its ``reason_code``), in the API's
#: words: alpha_u's parameter to send; token agreement has no option on the server.
SERVER_REMEDIES: dict[str, str] = {
    OVERLAPPING_UNITS: (
        '(request the computation again with the parameter "overlapping": "merge" to merge '
        "them into their union)"
    ),
    OVERLAPPING_TOKEN_LABELS: (
        "Token-level agreement needs one category per position and coder: resolve the "
        "overlap in the data (alpha_U and span F1 are computed without it)."
    ),
}
#: The most disputed documents a span result keeps.
MOST_DISPUTED_DOCUMENTS = 50
_TREE_DISTANCES = tuple(HIERARCHY_DISTANCES)

MOST_DISPUTED = 20
MAX_PAIRWISE_CODERS = 8
MAX_COINCIDENCE_VALUES = 60
#: Above this many distinct labels (numbers of an interval question, say) the per-label
#: diagnostics (per category, each coder's distribution) are skipped with the reason.
MAX_CATEGORY_VALUES = 1000


def metrics_version() -> str:
    return str(metrics.__version__)


def default_parameters(kind: str) -> dict[str, Any]:
    """What a computation of a question of this kind uses unless told otherwise."""
    return kind_of(kind).default_parameters()


def distance_names() -> list[str]:
    return list(metrics_distance_names())


# -- data ---------------------------------------------------------------------------------------


def reliability_data(
    items: Sequence[Hashable] | np.ndarray,
    coders: Sequence[Hashable] | np.ndarray,
    labels: Sequence[Hashable] | np.ndarray,
    *,
    domain: Sequence[Hashable] | None,
) -> Any:
    return ReliabilityData.from_long(items, coders, labels, domain=domain)


def _report_options(params: Mapping[str, Any], parents: Mapping[str, str | None]) -> dict[str, Any]:
    options: dict[str, Any] = {"level": params["level"], "distance": params["distance"]}
    if params["distance"] in _TREE_DISTANCES:
        options["tree"] = dict(parents)  # {node: parent}, as the report takes it
    return options


# -- the report -----------------------------------------------------------------------------------


def point_report(
    data: Any,
    params: Mapping[str, Any],
    *,
    parents: Mapping[str, str | None],
    bootstrap: int,
) -> dict[str, Any]:
    """The report for the requested coefficients; with ``bootstrap > 0`` their CIs inline."""
    options = _report_options(params, parents)
    if bootstrap:
        options.update(bootstrap=bootstrap, seed=params["seed"], confidence=params["confidence"])
    result: dict[str, Any] = _jsonable(metrics_report(data, **options))
    wanted = params["coefficients"]
    coefficients = result.get("coefficients", {})
    result["coefficients"] = {name: coefficients[name] for name in wanted if name in coefficients}
    skipped = result.get("skipped") or {}
    # The ICC table (interval and ratio questions) is not one of the asked coefficients:
    # kept with its reason when the design is incomplete.
    result["skipped"] = {
        key: reason
        for key, reason in skipped.items()
        if key.split(".")[0] in wanted or key == "icc"
    }
    for name in wanted:
        if name not in coefficients and name not in result["skipped"]:
            result["skipped"][name] = "not reported for this data"
    return result


def diagnostics(
    data: Any,
    *,
    coder_names: Mapping[Any, str],
    item_names: Callable[[list[Any]], dict[Any, str]],
    categorical: bool = True,
) -> dict[str, Any]:
    """Per category, per coder pair, per coder, and the most disputed items; for categorical
    labels also Di Eugenio & Glass's report per pair of coders, Artstein & Poesio's annotator
    bias and the coincidence matrix, so that pages only read what the worker stored.

    A diagnostic undefined on this data is listed under ``skipped`` with the reason; the
    others are still reported. With more than ``MAX_CATEGORY_VALUES`` distinct labels the
    per-label ones (per category, coder distributions) are skipped so (docs/crowd-scale.md).
    """
    out: dict[str, Any] = {}
    skipped: dict[str, str] = {}

    def attempt(key: str, diagnostic: Callable[[Any], Any], shape: Callable[[Any], Any]) -> None:
        try:
            out[key] = shape(diagnostic(data))
        except ValueError as error:
            skipped[key] = str(error)

    if data.n_values > MAX_CATEGORY_VALUES:
        for key in ("per_category", "coder_distributions"):
            skipped[key] = (
                f"{data.n_values} distinct labels, more than {MAX_CATEGORY_VALUES}: a row per "
                "label would be about as large as the data, so it is left out."
            )
    elif _set_valued(data):
        # A set label is read per category it holds ("contains k" or not), never as one
        # category among the combinations that occur.
        attempt("per_category", per_member_agreement, lambda r: {**_jsonable(r), "members": True})
    else:
        attempt("per_category", per_category_agreement, _jsonable)

    def pairs(pairwise: Any) -> Any:
        out["per_coder"] = _per_coder(pairwise, data, coder_names)
        return _jsonable(pairwise)

    attempt("coder_pairs", pairwise_coder_matrix, pairs)
    attempt(
        "most_disputed_items",
        item_disagreement,
        lambda disputed: _most_disputed(disputed, data, item_names),
    )
    if data.n_values <= MAX_CATEGORY_VALUES:
        attempt("coder_distributions", coder_distributions, _jsonable)
    if categorical:
        _categorical_diagnostics(data, coder_names, out, skipped)
    out["skipped"] = skipped
    return out


def _set_valued(data: Any) -> bool:
    """Whether the labels are sets (the domain's values are frozensets)."""
    return bool(data.domain) and all(isinstance(v, frozenset | set) for v in data.domain)


def _categorical_diagnostics(
    data: Any, coder_names: Mapping[Any, str], out: dict[str, Any], skipped: dict[str, str]
) -> None:
    if data.n_coders > MAX_PAIRWISE_CODERS:
        skipped["kappa_comparisons"] = (
            f"More than {MAX_PAIRWISE_CODERS} coders: the pairwise table is left out."
        )
    else:
        out["kappa_comparisons"] = _kappa_comparisons(data, coder_names)
    try:
        out["annotator_bias"] = _jsonable(annotator_bias(data))
    except ValueError as error:
        skipped["annotator_bias"] = str(error)
    if data.n_values > MAX_COINCIDENCE_VALUES:
        skipped["coincidence"] = f"More than {MAX_COINCIDENCE_VALUES} distinct labels."
        return
    try:
        matrix = coincidence_matrix(data)
    except ValueError as error:
        skipped["coincidence"] = str(error)
        return
    out["coincidence"] = {"labels": [_key(v) for v in data.domain], "matrix": _jsonable(matrix)}


def _kappa_comparisons(data: Any, coder_names: Mapping[Any, str]) -> list[dict[str, Any]]:
    """Di Eugenio & Glass's two-coder report for every pair of coders, on the items both
    labelled (a pair without such items says why instead)."""
    rows = []
    for first, second in itertools.combinations(range(data.n_coders), 2):
        pair = ReliabilityData(
            data.codes[[first, second]],
            data.domain,
            data.items,
            (data.coders[first], data.coders[second]),
        )
        try:
            row = _jsonable(kappa_comparison(pair))
        except ValueError as error:
            row = {"error": str(error)}
        names = [coder_names.get(data.coders[c], str(data.coders[c])) for c in (first, second)]
        rows.append({"first": names[0], "second": names[1], **row})
    return rows


def _per_coder(pairwise: Any, data: Any, coder_names: Mapping[Any, str]) -> dict[str, float | None]:
    """Each coder's mean agreement with every other coder (the pairwise matrix's row means)."""
    matrix = getattr(pairwise, "matrix", None)
    if matrix is None:
        matrix = getattr(pairwise, "values", pairwise)
    array = np.asarray(matrix, dtype=np.float64)
    coders = list(getattr(pairwise, "coders", data.coders))
    if array.ndim != 2 or array.shape != (len(coders), len(coders)):
        return {}
    off_diagonal = array.copy()
    np.fill_diagonal(off_diagonal, np.nan)
    out: dict[str, float | None] = {}
    for index, coder in enumerate(coders):
        row = off_diagonal[index]
        row = row[~np.isnan(row)]
        out[coder_names.get(coder, str(coder))] = float(row.mean()) if len(row) else None
    return out


def _most_disputed(
    disputed: Any, data: Any, item_names: Callable[[list[Any]], dict[Any, str]]
) -> list[dict]:
    values = getattr(disputed, "disagreement", None)
    if values is None:
        values = getattr(disputed, "values", disputed)
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        return _jsonable(disputed)  # type: ignore[no-any-return]
    items = list(getattr(disputed, "items", data.items))
    if array.ndim != 1 or len(array) != len(items):
        return _jsonable(disputed)  # type: ignore[no-any-return]
    shown = _disputed_order(array, MOST_DISPUTED)
    names = item_names([items[i] for i in shown])  # only the items shown are looked up
    return [
        {"item": names.get(items[i], str(items[i])), "disagreement": _float(array[i])}
        for i in shown
    ]


def _disputed_order(values: np.ndarray, count: int) -> list[int]:
    """Positions of the ``count`` highest values (ties in position order), nan left out."""
    order = np.argsort(-np.nan_to_num(values, nan=-np.inf), kind="stable")[:count]
    return [int(i) for i in order if not math.isnan(values[i])]


def most_disputed_units(data: Any, *, leave_out: Hashable) -> list[tuple[Any, float]]:
    """(item, observed disagreement) of the ``MOST_DISPUTED`` most disputed items of
    ``data`` but ``leave_out``, in the order the diagnostics list them; an item's
    disagreement depends on that item only, so the lists of item ranges merge into the
    whole scope's (a stable sort on the disagreement, ranges in item order)."""
    disputed = item_disagreement(data)
    values = np.asarray(disputed.disagreement, dtype=np.float64)
    items = list(getattr(disputed, "items", data.items))
    shown = _disputed_order(values, MOST_DISPUTED + 1)
    return [(items[i], float(values[i])) for i in shown if items[i] != leave_out][:MOST_DISPUTED]


def most_disputed_json(
    rows: Sequence[tuple[Any, float]], item_names: Callable[[list[Any]], dict[Any, str]]
) -> list[dict[str, Any]]:
    """The stored shape of the most disputed items, from (item, disagreement) rows."""
    names = item_names([item for item, _ in rows])
    return [
        {"item": names.get(item, str(item)), "disagreement": _float(value)} for item, value in rows
    ]


# -- bootstrap fan-out ---------------------------------------------------------------------------


def add_analytic_se(
    data: Any,
    params: Mapping[str, Any],
    report: dict[str, Any],
    *,
    parents: Mapping[str, str | None],
) -> None:
    """Add the analytic SEs the report gives with a bootstrap, for a fanned-out bootstrap.

    ``metrics.report`` attaches them only when it runs the bootstrap itself; the chunked
    bootstrap runs it elsewhere, so the same per-coefficient rule is applied here.
    """
    distance = _distance(params, parents)
    coefficients = report.get("coefficients", {})
    for spec in coefficient_specs(data.n_coders, distance is not None):
        entry = coefficients.get(spec.key)
        if entry is None or entry.get("value") is None:
            continue
        se = analytic_se(spec, data, distance, entry["value"], params["confidence"])
        if se is not None:
            entry["se"] = _float(se)


def decompositions(
    data: Any, params: Mapping[str, Any], *, parents: Mapping[str, str | None]
) -> dict[str, Any]:
    """The requested coefficients as per-item decompositions, for chunked bootstraps.

    The same entries as ``metrics.report`` (its ``coefficient_specs``): the level's (or the
    given) distance weights alpha, kappa_w, AC1/AC2 and Brennan–Prediger.
    """
    distance = _distance(params, parents)
    wanted = set(params["coefficients"])
    out = {}
    for spec in coefficient_specs(data.n_coders, distance is not None):
        if spec.key not in wanted:
            continue
        kwargs = {"distance": distance} if spec.weighted and distance is not None else {}
        try:
            out[spec.key] = spec.decompose(data, **kwargs)
        except ValueError:
            continue  # undefined on this data: the report lists it under "skipped"
    return out


def _distance(params: Mapping[str, Any], parents: Mapping[str, str | None]) -> Any:
    options = _report_options(params, parents)
    return report_distance(options["level"], options["distance"], tree=options.get("tree"))


def report_distance_of(params: Mapping[str, Any], parents: Mapping[str, str | None]) -> Any:
    """The distance the report uses with these parameters (None: the nominal distance)."""
    return _distance(params, parents)


def json_float(value: Any) -> float | None:
    """A float for JSON: None for nan and infinities."""
    return _float(value)


def bootstrap_chunk(decomposition: Any, *, seed: int, start: int, stop: int) -> list[float | None]:
    values = metrics_bootstrap_chunk(decomposition, seed=seed, start=start, stop=stop)
    return [None if math.isnan(v) else float(v) for v in values.tolist()]


def bootstrap_chunks(
    decompositions: Mapping[str, Any], *, seed: int, start: int, stop: int
) -> dict[str, list[float | None]]:
    """Replicates ``start``..``stop - 1`` of several coefficients of the same items at once.

    Every coefficient resamples the same items per replicate (``[seed, r]``), so drawing
    the resampling counts once and multiplying them with all coefficients' statistics gives
    each coefficient's replicate values as its own ``bootstrap_chunk`` would, for the cost of
    one draw instead of one per coefficient (the draw dominates on large data). Wide sparse
    statistics (``STACK_MAX_COLUMNS``) are resampled on their own: the same values, with
    their totals held a few replicates at a time.
    """
    wide = [n for n in decompositions if _wide(decompositions[n])]
    names = [n for n in decompositions if n not in wide]
    alone = {n: bootstrap_chunk(decompositions[n], seed=seed, start=start, stop=stop)
             for n in (wide if len(names) > 1 else [*wide, *names])}  # fmt: skip
    if len(names) <= 1:
        return {n: alone[n] for n in decompositions}
    stacked = _Stacked([decompositions[n] for n in names])
    first = metrics_bootstrap_chunk(stacked.decomposition, seed=seed, start=start, stop=stop)
    out = {names[0]: first}
    for index, name in enumerate(names[1:], start=1):
        out[name] = np.concatenate(stacked.values[index]) if stacked.values[index] else first[:0]
    stacked_values = {
        n: [None if math.isnan(v) else float(v) for v in out[n].tolist()] for n in names
    }
    return {n: stacked_values[n] if n in stacked_values else alone[n] for n in decompositions}


#: Sparse statistics wider than this are resampled on their own, not stacked: the bootstrap
#: then totals them a few replicates at a time (the kappa family on many distinct values).
STACK_MAX_COLUMNS = 4096


def _wide(decomposition: Any) -> bool:
    stats = decomposition.item_stats
    return bool(sparse.issparse(stats) and stats.shape[1] > STACK_MAX_COLUMNS)


def jackknife_slices(
    decompositions: Mapping[str, Any], *, index: int, total: int
) -> dict[str, np.ndarray]:
    """Slice ``index`` of ``total`` (by items) of every coefficient's leave-one-item-out
    values: a bootstrap chunk computes its slice, so the combine step need not."""
    out = {}
    for name, decomposition in decompositions.items():
        n = decomposition.n_items
        out[name] = jackknife_values(
            decomposition, start=n * index // total, stop=n * (index + 1) // total
        )
    return out


class _Stacked:
    """One decomposition whose statistics are every coefficient's, side by side.

    Its ``finalize`` returns the first coefficient and records the others' values, block
    by block, in the order the bootstrap evaluates them.
    """

    def __init__(self, parts: Sequence[Any]) -> None:
        self.parts = list(parts)
        self.widths = [int(p.item_stats.shape[1]) for p in self.parts]
        self.values: list[list[np.ndarray]] = [[] for _ in self.parts]
        self.decomposition = Decomposition(
            "stacked",
            _StackedStats(self.parts),  # type: ignore[arg-type]
            self.finalize,
        )

    def finalize(self, totals: np.ndarray) -> np.ndarray:
        offsets = np.cumsum([0, *self.widths])
        result = None
        for index, part in enumerate(self.parts):
            piece = totals[..., offsets[index] : offsets[index + 1]]
            with np.errstate(divide="ignore", invalid="ignore"):
                values = np.asarray(part.finalize(piece), dtype=np.float64)
            if index == 0:
                result = values
            else:
                values = values.reshape(-1)
                self.values[index].append(np.where(np.isfinite(values), values, np.nan))
        return result  # type: ignore[return-value]


class _StackedStats:
    """``W @ [S_1 | S_2 | ...]`` computed part by part (dense with BLAS, sparse with scipy)."""

    __array_ufunc__ = None  # ``ndarray @ self`` defers to ``__rmatmul__``

    def __init__(self, parts: Sequence[Any]) -> None:
        self.parts = parts
        self.shape = (int(parts[0].item_stats.shape[0]), sum(p.item_stats.shape[1] for p in parts))

    def __rmatmul__(self, weights: np.ndarray) -> np.ndarray:
        return np.hstack([np.asarray(weights @ p.item_stats) for p in self.parts])

    def sum(self, axis: int = 0) -> np.ndarray:
        return np.hstack([np.asarray(p.item_stats.sum(axis=axis)).ravel() for p in self.parts])


def bootstrap_combine(
    decomposition: Any,
    chunks: Sequence[Sequence[float | None]],
    *,
    seed: int,
    replicates: int,
    confidence: float,
    jackknife: np.ndarray | None = None,
) -> dict[str, Any]:
    """The interval of one coefficient from its replicate chunks, with the share of the
    replicates in each benchmark band (``ci["benchmarks"]``, as ``metrics.report`` gives);
    ``jackknife``: its leave-one-item-out values if the chunks computed them."""
    arrays = [np.array([np.nan if v is None else v for v in c], dtype=np.float64) for c in chunks]
    result = metrics_bootstrap_combine(
        decomposition,
        arrays,
        seed=seed,
        replicates=replicates,
        confidence=confidence,
        jackknife=jackknife,
    )
    out = bootstrap_json(result)
    try:
        out["ci"]["benchmarks"] = _jsonable(benchmarks_json(replicates=np.concatenate(arrays)))
    except ValueError:
        pass  # no finite replicate in [-1, 1]: the interval stands without bands
    return out


def bootstrap_json(result: Any) -> dict[str, Any]:
    """A bootstrap result; ``ci`` has the report's shape (low, high, confidence, method,
    replicates)."""
    out: dict[str, Any] = _jsonable(result)
    out["ci"] = {
        "low": _float(result.low),
        "high": _float(result.high),
        "confidence": float(result.confidence),
        "method": str(result.method),
        "replicates": int(result.replicates),
    }
    return out


def difference(
    first: Any, second: Any, *, paired: bool, replicates: int, seed: int, confidence: float
) -> dict[str, Any]:
    """``first − second`` by the bootstrap; paired, with the probability that ``first`` is
    the higher (``probability_later_higher``: ``first`` is the later round)."""
    function = bootstrap_difference if paired else bootstrap_difference_unpaired
    result = function(
        first, second, replicates=replicates, seed=seed, confidence=confidence, minimums=(0.0,)
    )
    out = bootstrap_json(result)
    if paired:
        # The same draws as the interval's (value for value), kept for this one reading.
        differences = paired_difference_replicates(first, second, replicates=replicates, seed=seed)
        try:
            later = probability_later_higher(differences, nan_policy="omit")
        except ValueError:  # every replicate undefined
            return out
        out["probability_later_higher"] = {
            "probability": later.probability,
            "share_higher": later.share_higher,
            "share_tied": later.share_tied,
            "share_lower": later.share_lower,
            "n_replicates": later.n_replicates,
            "n_omitted": later.n_omitted,
        }
    return out


# -- coder quality ---------------------------------------------------------------------------

#: MACE's random starts on the server: fewer than the library's 10 (MACE's default), since
#: each start is a full EM run and the result is a reading beside the report, not the report.
QUALITY_MACE_RESTARTS = 3
#: Items whose posterior label a coder-quality result keeps, in item order.
QUALITY_SAMPLE_ITEMS = 50


def coder_quality(
    data: tuple[Any, Any, Any],
    *,
    domain: Sequence[Hashable],
    seed: int,
    coder_names: Mapping[Any, str],
    item_names: Callable[[list[Any]], dict[Any, str]],
    n_restarts: int = QUALITY_MACE_RESTARTS,
    sample: int = QUALITY_SAMPLE_ITEMS,
) -> dict[str, Any]:
    """Dawid–Skene and MACE on ``(items, coders, labels)``, JSON-ready, coders by name.

    ``domain`` is every label in order; only the labels that occur are modelled (a label
    nobody gave would only add a column of zeros to Dawid–Skene and a phantom true label
    to MACE's uniform prior). The posterior labels are Dawid–Skene's (it estimates the
    class priors); ``agreement_with_majority`` is the share of items whose posterior label
    is one of the item's most frequent labels (a tie counts as agreement). Raises
    ``ValueError`` as the models do.
    """
    items, coders, labels = data
    observed = set(np.unique(np.asarray(labels, dtype=object).astype(str)).tolist())
    used = [label for label in domain if str(label) in observed]
    annotations = as_annotations((items, coders, labels), domain=used)
    ds = dawid_skene(annotations)
    ma = mace(annotations, n_restarts=n_restarts, seed=seed)
    names = [coder_names.get(c, str(c)) for c in annotations.coders.tolist()]
    keys = [_key(label) for label in annotations.domain]
    accuracy = ds.coder_accuracy
    dawid = {
        "coders": {
            name: {"accuracy": _float(accuracy[c]), "confusion": _jsonable(ds.confusion[c])}
            for c, name in enumerate(names)
        },
        "priors": {key: _float(p) for key, p in zip(keys, ds.priors, strict=True)},
        "iterations": int(ds.iterations),
        "converged": bool(ds.converged),
        "log_likelihood": _float(ds.log_likelihood),
    }
    competence = {
        "coders": {
            name: {
                "competence": _float(ma.competence[c]),
                "spamming": {k: _float(p) for k, p in zip(keys, ma.spamming[c], strict=True)},
            }
            for c, name in enumerate(names)
        },
        "n_restarts": int(n_restarts),
        "iterations": int(ma.iterations),
        "converged": bool(ma.converged),
        "log_likelihood": _float(ma.log_likelihood),
    }
    votes = np.zeros((annotations.n_items, annotations.n_values), dtype=np.int64)
    np.add.at(votes, (annotations.item, annotations.label), 1)
    best = ds.label_codes
    rows = np.arange(annotations.n_items)
    with_majority = votes[rows, best] == votes.max(axis=1)
    shown = annotations.items[:sample].tolist()
    item_text = item_names(shown)
    posterior = {
        "model": "dawid_skene",
        "n_items": int(annotations.n_items),
        "agreement_with_majority": _float(with_majority.mean()),
        "sample": [
            {
                "item": item_text.get(item, str(item)),
                "label": keys[int(best[i])],
                "probability": _float(ds.posterior[i, best[i]]),
            }
            for i, item in enumerate(shown)
        ],
    }
    return {
        "labels": keys,
        "n_items": int(annotations.n_items),
        "n_coders": int(annotations.n_coders),
        "n_annotations": int(annotations.n_annotations),
        "seed": int(seed),
        "dawid_skene": dawid,
        "mace": competence,
        "posterior_labels": posterior,
    }


# -- model coders ----------------------------------------------------------------------------


def with_coder_names(data: Any, names: Mapping[Any, str]) -> Any:
    """The same data with each coder named (``names``: coder id -> key), so that the
    library's results and refusals read as the study names its coders."""
    return ReliabilityData.from_codes(
        data.item_index,
        data.coder_index,
        data.value_code,
        data.domain,
        data.items,
        tuple(names.get(coder, str(coder)) for coder in data.coders),
        coders_identified=data.coders_identified,
        domain_declared=data.domain_declared,
    )


def model_groups(
    data: Any,
    params: Mapping[str, Any],
    *,
    people: Sequence[Hashable],
    models: Sequence[Hashable],
    parents: Mapping[str, str | None],
) -> dict[str, Any]:
    """Alpha among ``people``, among ``models`` and Vanbelle & Albert's agreement between
    the groups, with the computation's distance and bootstrap (``metrics.models``)."""
    distance = _distance(params, parents)
    result = group_agreement(
        data,
        first=people,
        second=models,
        distance="nominal" if distance is None else distance,
        replicates=int(params["bootstrap"]),
        seed=int(params["seed"]),
        confidence=float(params["confidence"]),
    ).to_json()
    return {
        "people": result["first"],
        "models": result["second"],
        "between": result["between"],
        "distance": params["distance"],
    }


def model_self_consistency(
    data: Any,
    params: Mapping[str, Any],
    *,
    runs: Sequence[Hashable],
    parents: Mapping[str, str | None],
) -> dict[str, Any]:
    """Intra-coder alpha between the ``runs`` of one model (``metrics.models``), with the
    computation's distance and bootstrap; ``{"refused": reason}`` when undefined."""
    distance = _distance(params, parents)
    try:
        result = self_consistency_on_data(
            data,
            runs=runs,
            distance="nominal" if distance is None else distance,
            replicates=int(params["bootstrap"]),
            seed=int(params["seed"]),
            confidence=float(params["confidence"]),
        )
    except ValueError as error:
        return {"refused": str(error), "runs": [str(run) for run in runs]}
    body = result.to_json()
    body["distance"] = params["distance"]
    return _jsonable(body)  # type: ignore[no-any-return]


#: Where calibration takes a label's correct answer: the item's adjudicated label when it
#: has one (``adjudication``), else the people's majority label.
CALIBRATION_REFERENCE = (
    "the adjudicated label where the item has one, else the people's majority label (items "
    "where one label has more of the people than any other; ties left out)"
)


def model_calibration(
    data: Any,
    *,
    model: Hashable,
    humans: Sequence[Hashable],
    units: Any,
    confidences: Any,
    bins: int,
    adjudicated_units: Any = (),
    adjudicated_codes: Sequence[Hashable] = (),
) -> dict[str, Any]:
    """Expected calibration error (equal-mass bins) and the reliability diagram of the
    model's confidences (``metrics.models.calibration``): a label is correct when it is the
    item's adjudicated label (``adjudicated_units`` and ``adjudicated_codes``, one per
    adjudicated unit) or, for an item without one, the people's unique majority label.
    ``units`` and ``confidences`` are the model's, one per label it gave a confidence with;
    ``n_adjudicated`` and ``n_majority`` count the labels read against each reference.
    ``{"refused": reason}`` when no such label has a reference."""
    coders = list(data.coders)
    n_items, V = data.n_items, data.n_values
    model_code = np.full(n_items, -1, dtype=np.intp)
    mine = data.coder_index == coders.index(model)
    model_code[data.item_index[mine]] = data.value_code[mine]
    people = np.isin(data.coder_index, [coders.index(h) for h in humans if h in coders])
    counts = np.bincount(
        data.item_index[people] * V + data.value_code[people], minlength=n_items * V
    ).reshape(n_items, V)
    top = counts.max(axis=1) if V else np.zeros(n_items, dtype=np.intp)
    unique = (counts == top[:, None]).sum(axis=1) == 1
    reference = np.where(unique & (top > 0), counts.argmax(axis=1), -1)
    known_units = np.asarray(data.items, dtype=np.int64)
    adjudicated = _adjudicated_items(data, known_units, adjudicated_units, adjudicated_codes)
    # A code outside the data's domain (nobody used it) is V: no model label equals it.
    reference[adjudicated[0]] = adjudicated[1]
    units = np.asarray(units, dtype=np.int64)
    index = np.minimum(np.searchsorted(known_units, units), max(n_items - 1, 0))
    labelled = (known_units[index] == units) if n_items else np.zeros(units.size, dtype=bool)
    labelled &= model_code[index] >= 0  # a confidence whose label was deleted is not read
    usable = labelled & (reference[index] >= 0)
    if not usable.any():
        return {
            "refused": "No label the model gave a confidence with has a reference: "
            f"{CALIBRATION_REFERENCE}.",
            "n_confidences": int(labelled.sum()),
        }
    result = calibration(
        np.asarray(confidences, dtype=np.float64)[usable],
        model_code[index[usable]] == reference[index[usable]],
        bins=bins,
    ).to_json()
    by_adjudication = np.zeros(n_items, dtype=bool)
    by_adjudication[adjudicated[0]] = True
    result["reference"] = CALIBRATION_REFERENCE
    result["n_adjudicated"] = int(by_adjudication[index[usable]].sum())
    result["n_majority"] = int(usable.sum()) - result["n_adjudicated"]
    result["n_without_reference"] = int(labelled.sum() - usable.sum())
    return _jsonable(result)  # type: ignore[no-any-return]


def _adjudicated_items(
    data: Any, known_units: np.ndarray, units: Any, codes: Sequence[Hashable]
) -> tuple[np.ndarray, np.ndarray]:
    """The data's item indexes of the adjudicated units it has, and each one's value code
    (``data.n_values`` for a code outside the data's domain)."""
    units = np.asarray(units, dtype=np.int64)
    if not units.size or not known_units.size:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    index = np.minimum(np.searchsorted(known_units, units), known_units.size - 1)
    kept = known_units[index] == units
    code_of = {value: code for code, value in enumerate(data.domain)}
    value_codes = np.array([code_of.get(code, data.n_values) for code in codes], dtype=np.intp)
    return index[kept], value_codes[kept]


def model_alt_test(
    data: Any,
    *,
    model: Hashable,
    humans: Sequence[Hashable],
    epsilon: float,
    alpha: float,
    scoring: str,
) -> dict[str, Any]:
    """The alternative annotator test of one model against ``humans`` (``metrics.models``),
    JSON-ready; ``{"refused": reason}`` when it cannot run. Excluded items are counted by
    reason (a model that labels many items alone would otherwise list them all)."""
    try:
        result = alt_tests_on_data(
            data,
            models=[model],
            humans=list(humans),
            epsilon=epsilon,
            alpha=alpha,
            scoring=scoring,  # type: ignore[arg-type]
        )[model]
    except AltTestRefusedError as refusal:
        return {"refused": str(refusal), "excluded_humans": _jsonable(refusal.reasons)}
    body = result.to_json()
    body["humans"] = [{"coder": key, **entry} for key, entry in body["humans"].items()]
    reasons: dict[str, int] = {}
    for reason in result.excluded_items.values():
        reasons[reason] = reasons.get(reason, 0) + 1
    body["excluded_items"] = reasons
    body["n_humans"] = len(result.humans)
    return _jsonable(body)  # type: ignore[no-any-return]


def model_ppi(
    data: Any,
    *,
    model: Hashable,
    humans: Sequence[Hashable],
    categorical: bool,
    confidence: float,
) -> dict[str, Any]:
    """Prediction-powered estimates from ``model``'s labels, corrected by the people's.

    The labelled set is the items the model and at least one person labelled, the
    unlabelled set those the model labelled alone; an item's human label ``Y`` is the share
    of its people who gave the category (one person: their label as 0/1), or for numbers
    their mean. Per category (or once, the mean, for numbers): ``metrics.models.ppi_mean``
    (PPI++, power-tuned per category), the classical interval from ``Y`` alone and the
    naive model share. ``{"refused": reason}`` when the sets are too small.
    """
    coders = list(data.coders)
    human_positions = [coders.index(h) for h in humans if h in coders]
    model_position = coders.index(model)
    n_items, V = data.n_items, data.n_values
    model_code = np.full(n_items, -1, dtype=np.intp)
    mine = data.coder_index == model_position
    model_code[data.item_index[mine]] = data.value_code[mine]
    human = np.isin(data.coder_index, human_positions)
    per_item = np.bincount(data.item_index[human], minlength=n_items)
    labelled = (model_code >= 0) & (per_item > 0)
    unlabelled = (model_code >= 0) & (per_item == 0)
    rows: list[dict[str, Any]] = []
    try:
        if categorical:
            # Items × categories shares of the labelled set, by column (sparse: only the
            # categories each item's people gave).
            row_of = np.cumsum(labelled) - 1
            kept = labelled[data.item_index[human]]
            items = data.item_index[human][kept]
            shares = sparse.csc_matrix(
                (1.0 / per_item[items], (row_of[items], data.value_code[human][kept])),
                shape=(int(labelled.sum()), V),
            )
            for k, label in enumerate(data.domain):
                estimate = ppi_mean(
                    shares[:, k].toarray().ravel(),
                    (model_code[labelled] == k).astype(float),
                    (model_code[unlabelled] == k).astype(float),
                    confidence=confidence,
                )
                rows.append({"label": _key(label), **estimate.to_json()})
        else:
            values = data.domain_as_floats
            if values is None:
                raise ValueError("Prediction-powered means need numeric labels.")
            sums = np.bincount(
                data.item_index[human], weights=values[data.value_code[human]], minlength=n_items
            )
            estimate = ppi_mean(
                sums[labelled] / per_item[labelled],
                values[model_code[labelled]],
                values[model_code[unlabelled]],
                confidence=confidence,
            )
            rows.append({"label": "mean", **estimate.to_json()})
    except ValueError as error:
        return {
            "refused": str(error),
            "n_labelled": int(labelled.sum()),
            "n_unlabelled": int(unlabelled.sum()),
        }
    return _jsonable(  # type: ignore[no-any-return]
        {
            "estimates": rows,
            "what": "prevalence" if categorical else "mean",
            "n_labelled": int(labelled.sum()),
            "n_unlabelled": int(unlabelled.sum()),
            "n_people_only": int(((model_code < 0) & (per_item > 0)).sum()),
            "confidence": confidence,
        }
    )


# -- spans ---------------------------------------------------------------------------------------


def span_report(data: SpanData, params: Mapping[str, Any]) -> dict[str, Any]:
    """The span report of the requested coefficients, with their intervals when
    ``params["bootstrap"]`` asks for replicates.

    ``params["overlapping"]`` ("error" or "merge") is what alpha_u does with one coder's
    overlapping units of a category; when it refuses them, its reason names the parameter to
    send. A coefficient the data leaves undefined keeps ``value: null`` and its ``reason``,
    which is also listed under ``skipped``. ``documents`` keeps the most disputed
    ``MOST_DISPUTED_DOCUMENTS``, each with its index in ``data.documents`` (``index``) so that
    the caller can name its item.
    """
    wanted = list(params["coefficients"])
    options: dict[str, Any] = {
        "gamma": "gamma" in wanted,
        "min_overlap": float(params["min_overlap"]),
        "overlapping": span_overlapping(params),
        "bootstrap": int(params["bootstrap"]),
        "seed": int(params["seed"]),  # gamma's sampling too, with or without a bootstrap
        "confidence": float(params["confidence"]),
    }
    report: dict[str, Any] = _jsonable(metrics_span_report(data, **options))
    coefficients = report.get("coefficients") or {}
    for entry in coefficients.values():
        remedy = SERVER_REMEDIES.get(entry.get("reason_code"))
        if remedy is not None:
            entry["reason"] = refusal_text(str(entry["reason_problem"]), remedy)
    skipped: dict[str, str] = {}
    kept: dict[str, Any] = {}
    for name in wanted:
        entry = coefficients.get(name)
        if entry is None:
            skipped[name] = "not reported for this data"
            continue
        kept[name] = entry
        if entry.get("value") is None:
            skipped[name] = str(entry.get("reason") or "undefined on this data")
    report["coefficients"] = kept
    report["skipped"] = skipped
    index = {document: i for i, document in enumerate(data.documents)}
    documents = []
    for entry in (report.get("documents") or [])[:MOST_DISPUTED_DOCUMENTS]:
        position = index.get(entry.get("document"))
        if position is None:  # the report names documents as strings
            position = index.get(_document_key(entry.get("document"), data.documents))
        documents.append({**entry, "index": position})
    report["documents"] = documents
    return report


def _document_key(name: Any, documents: Sequence[Hashable]) -> Hashable | None:
    text = str(name)
    return next((d for d in documents if str(d) == text), None)


def span_overlapping(params: Mapping[str, Any]) -> Any:
    """The ``overlapping`` parameter of span computation parameters; "error" for those
    stored before it existed."""
    return params.get("overlapping") or "error"


def span_decompositions(
    data: SpanData, names: Sequence[str], *, min_overlap: float, overlapping: str = "error"
) -> dict[str, Decomposition]:
    """Per-document decompositions of the ``SPAN_DECOMPOSABLE`` coefficients among ``names``
    (one row per document of ``data``, in its order); ``overlapping`` as in ``span_report``."""
    out: dict[str, Decomposition] = {}
    for name in names:
        if name == "alpha_u":
            policy: Any = overlapping
            try:
                out[name] = decompose_unitizing_alpha(data, overlapping=policy)
            except RefusalError as refusal:
                remedy = SERVER_REMEDIES.get(refusal.code, refusal.remedy)
                raise ValueError(refusal_text(refusal.problem, remedy)) from None
        elif name == "span_f1":
            out[name] = decompose_span_f1(data, match="exact")
        elif name == "span_f1_overlap":
            out[name] = decompose_span_f1(data, match="overlap", min_overlap=min_overlap)
    return out


def decomposition_rows(decomposition: Decomposition, rows: Sequence[int]) -> Decomposition:
    """The same coefficient on some documents only (rows in the given order)."""
    return decomposition.with_rows(decomposition.item_stats[list(rows)])


# -- helpers -------------------------------------------------------------------------------------


def _float(value: Any) -> float | None:
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {_key(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, frozenset | set):
        return sorted(_key(v) for v in value)
    if isinstance(value, np.generic):
        return _jsonable(value.item())
    if isinstance(value, float):
        return _float(value)
    if value is None or isinstance(value, str | int | bool):
        return value
    return str(value)


def _key(value: Any) -> str:
    if isinstance(value, frozenset | set):
        return "|".join(sorted(str(v) for v in value))
    if isinstance(value, tuple):
        return "/".join(str(v) for v in value)
    return str(value.item() if isinstance(value, np.generic) else value)
