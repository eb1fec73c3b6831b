"""Per-item sums of a computation split by item ranges: built on each chunk, added up once.

Every coefficient is ``finalize(sum of per-item rows)`` (``metrics.Decomposition``). A
worker reads one range of items, builds those items' rows for every requested coefficient
(``chunk_sums``) and stores them; the combine step stacks the chunks' rows in item order
(``merged_decompositions``), which gives the rows the one-process path builds from the whole
scope, so the point estimates (``point_results``) and the bootstrap are the same numbers.

Two things make a chunk's rows line up with the others':

- **the same columns.** Columns depend on the coders (one block per coder for kappa's
  per-coder chance) and on the value domain. A chunk is built with every coder of the
  scope and the question's declared categories: a *phantom item* labelled by every coder
  with the first category is added to the chunk's data and its row dropped afterwards. It
  makes every coder present and no chunk is ever without a pairable item. ``finalize`` is
  taken from the phantom item alone (it depends on the coders and the domain only, for the
  coefficients split here).
- **Light's kappa's coder pairs.** Its rows also have two columns per coder pair, and the
  phantom item would list every pair of the scope's coders (2M for 2,000 coders). A chunk
  builds them without it, for the pairs that share one of its items, and stores those
  pairs; the merge puts every chunk's columns on the union of the pairs, sorted: the pairs
  that share an item in the scope, as the one-process rows list them
  (``_merged_light``).
- **interval alpha's centring.** Its rows hold sums of values centred on the mean of the
  pairable values; a chunk centres on its own mean, so the combine step moves each chunk's
  sums to the scope's mean (exactly: ``Σ(x-c') = Σ(x-c) + m(c-c')``, and likewise for
  squares) before stacking.

What can be split (``split_refusal`` says why not otherwise): nominal and ordinal
questions with every coefficient unweighted (observed agreement, S, pi, kappa, Light's
kappa) plus alpha at the nominal or ordinal level (nominal alpha's rows are value counts,
ordinal alpha's are coincidences: both finalise from the totals alone), and AC1 and
Brennan-Prediger at the nominal level; interval questions with alpha at the interval level.
Weighted coefficients whose weights depend on the data (ordinal weights are fixed from the
value counts of the whole scope: kappa_w, AC2, weighted Brennan-Prediger), the ratio
distance, set and hierarchy questions stay on the one-step path.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from computations import engine
from computations.engine import Decomposition, midranks
from studies.kinds import kind_of

#: The phantom item's id: below every item id, so its row is the first.
PHANTOM_ITEM = -1
#: Light's kappa: its rows' columns are the chunk's coder pairs (see ``_merged_light``).
LIGHT = "light_kappa"
#: Coefficients whose rows and ``finalize`` need no weights.
UNWEIGHTED = ("observed_agreement", "s", "pi", "kappa", "light_kappa")
#: Diagnostics a split computation does not compute (they need every annotation at once;
#: the most disputed items are merged from the ranges' lists).
ONE_STEP_DIAGNOSTICS = (
    "per_category",
    "coder_pairs",
    "coder_distributions",
    "kappa_comparisons",
    "annotator_bias",
    "coincidence",
)
ONE_STEP_REASON = (
    "Not computed for a computation split by items (more annotations than "
    "AGREEMENT_ITEM_CHUNK_ANNOTATIONS): it needs every annotation on one worker."
)


def distance_name(params: Mapping[str, Any]) -> str:
    """The name of the distance the report uses with these parameters (``nominal`` for none)."""
    distance = engine.report_distance_of(params, {})
    return "nominal" if distance is None else str(distance.name)


def item_ranges(
    rounds: NDArray[np.int64], items: NDArray[np.int64], counts: NDArray[np.int64], limit: int
) -> list[tuple[int, int, int, int]]:
    """(round, first item, last item, annotations) of consecutive items of one round holding
    about ``limit`` annotations each (an item is never cut), in (round, item) order: the
    order of the one-process path's rows."""
    if not len(items):
        return []
    index = np.arange(len(items))
    new_round = np.r_[True, rounds[1:] != rounds[:-1]]
    before = np.cumsum(counts) - counts
    round_start = np.maximum.accumulate(np.where(new_round, index, 0))
    bucket = (before - before[round_start]) // limit
    starts = np.flatnonzero(new_round | np.r_[True, bucket[1:] != bucket[:-1]])
    stops = np.r_[starts[1:], len(items)]
    return [
        (int(rounds[a]), int(items[a]), int(items[b - 1]), int(counts[a:b].sum()))
        for a, b in zip(starts.tolist(), stops.tolist(), strict=True)
    ]


def split_refusal(kind: str, params: Mapping[str, Any]) -> str | None:
    """Why a computation of this question kind with these parameters stays on one step
    (None when it can be split by items)."""
    label_kind = kind_of(kind)
    if not label_kind.item_decompositions:
        return f"{kind} questions are computed in one step only"
    try:
        name = distance_name(params)
    except ValueError as error:
        return str(error)
    allowed = label_kind.decomposable(name)
    if not allowed:
        return f"a {kind} question at the {name} distance is computed in one step only"
    refused = [c for c in params["coefficients"] if c not in allowed]
    if refused:
        return (
            f"{', '.join(refused)} at the {name} distance "
            f"{'is' if len(refused) == 1 else 'are'} computed in one step only"
        )
    return None


@dataclass(frozen=True)
class ChunkSums:
    """One chunk's rows (``blob``: a compressed ``.npz``) and its counts (``summary``)."""

    blob: bytes
    summary: dict[str, Any]


def _with_phantom(
    items: NDArray[np.int64],
    coders: NDArray[np.int64],
    labels: Any,
    *,
    all_coders: Sequence[int],
    phantom_label: Any,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[Any]]:
    n = len(all_coders)
    labels = np.asarray(labels)
    phantom = np.full(n, phantom_label, dtype=labels.dtype if labels.size else None)
    return (
        np.concatenate([np.full(n, PHANTOM_ITEM, dtype=np.int64), np.asarray(items, np.int64)]),
        np.concatenate([np.asarray(all_coders, dtype=np.int64), np.asarray(coders, np.int64)]),
        np.concatenate([phantom, labels]) if labels.size else phantom,
    )


def _phantom_label(kind: str, domain: Sequence[Any] | None, labels: Any) -> Any:
    if kind_of(kind).numeric:
        return float(labels[0]) if len(labels) else 0.0
    if not domain:
        raise ValueError("The question has no categories.")
    return domain[0]


def chunk_sums(
    *,
    kind: str,
    items: NDArray[np.int64],
    coders: NDArray[np.int64],
    labels: Any,
    domain: Sequence[Any] | None,
    all_coders: Sequence[int],
    params: Mapping[str, Any],
    fingerprint: str,
) -> ChunkSums:
    """The per-item rows of every requested coefficient on one chunk's annotations."""
    unknown = np.setdiff1d(np.asarray(coders, np.int64), np.asarray(all_coders, np.int64))
    if unknown.size:
        raise ValueError(
            "The annotations changed while the computation ran (a coder appeared); "
            "request the computation again."
        )
    phantom_label = _phantom_label(kind, domain, labels)
    all_items, all_coder_ids, all_labels = _with_phantom(
        items, coders, labels, all_coders=all_coders, phantom_label=phantom_label
    )
    data = engine.reliability_data(all_items, all_coder_ids, all_labels, domain=domain)
    decompositions = engine.decompositions(data, _without_light(params), parents={})
    arrays: dict[str, NDArray[Any]] = {}
    if LIGHT in params["coefficients"]:
        real = data.restricted_to_items(np.arange(data.n_items) > 0)  # the phantom item is first
        first, second, _ = real.coder_pairs()
        # Only the pairs sharing one of the chunk's items, named by their coder positions.
        arrays[f"{LIGHT}.first"] = first.astype(np.int64)
        arrays[f"{LIGHT}.second"] = second.astype(np.int64)
        decompositions[LIGHT] = engine.decompose_light_kappa(real, pairs=(first, second))
    for name, decomposition in decompositions.items():
        stats = decomposition.item_stats[0 if name == LIGHT else 1 :]  # the phantom's row first
        if sparse.issparse(stats):
            csr = sparse.csr_matrix(stats)
            arrays[f"{name}.data"] = csr.data
            arrays[f"{name}.indices"] = csr.indices
            arrays[f"{name}.indptr"] = csr.indptr
            arrays[f"{name}.shape"] = np.asarray(csr.shape, dtype=np.int64)
        else:
            arrays[f"{name}.dense"] = np.asarray(stats, dtype=np.float64)
    per_item = np.unique(np.asarray(items), return_counts=True)[1]
    summary: dict[str, Any] = {
        "coefficients": [name for name in engine.ALL_COEFFICIENTS if name in decompositions],
        "n_items": int(per_item.size),
        "n_annotations": len(items),
        "n_pairable_items": int(np.count_nonzero(per_item >= 2)),
        "fingerprint": fingerprint,
    }
    # Per item, so the ranges' lists merge into the scope's (the phantom item left out).
    summary["most_disputed"] = [
        [int(item), value]
        for item, value in engine.most_disputed_units(data, leave_out=PHANTOM_ITEM)
    ]
    if kind_of(kind).numeric and "alpha" in decompositions:
        summary["alpha_centre"] = _pairable_mean(all_items, all_labels)
    return ChunkSums(pack(arrays), summary)


def _pairable_mean(items: NDArray[np.int64], labels: NDArray[Any]) -> float:
    """The mean of the values on items with at least two (the centre interval alpha's rows
    are built around)."""
    _, inverse, counts = np.unique(items, return_inverse=True, return_counts=True)
    pairable = counts[inverse] >= 2
    values = np.asarray(labels, dtype=np.float64)[pairable]
    return float(values.mean()) if values.size else 0.0


def pack(arrays: Mapping[str, NDArray[Any]]) -> bytes:
    """Named arrays as a compressed ``.npz`` (what the chunk rows' binary fields hold)."""
    buffer = io.BytesIO()
    np.savez_compressed(buffer, **arrays)  # type: ignore[arg-type]
    return buffer.getvalue()


def unpack(blob: bytes) -> dict[str, Any]:
    """The named arrays of a ``pack``ed blob."""
    return _load(blob)


def _load(blob: bytes) -> dict[str, Any]:
    with np.load(io.BytesIO(bytes(blob)), allow_pickle=False) as stored:
        return {key: stored[key] for key in stored.files}


def _rows(arrays: Mapping[str, Any], name: str) -> NDArray[np.float64] | sparse.csr_matrix:
    if f"{name}.dense" in arrays:
        return np.asarray(arrays[f"{name}.dense"], dtype=np.float64)
    shape = tuple(int(v) for v in arrays[f"{name}.shape"])
    return sparse.csr_matrix(
        (arrays[f"{name}.data"], arrays[f"{name}.indices"], arrays[f"{name}.indptr"]),
        shape=shape,
    )


def _phantom_data(*, kind: str, domain: Sequence[Any] | None, all_coders: Sequence[int]) -> Any:
    items, coders, labels = _with_phantom(
        np.zeros(0, np.int64),
        np.zeros(0, np.int64),
        np.zeros(0, dtype=np.float64 if kind_of(kind).numeric else str),
        all_coders=all_coders,
        phantom_label=_phantom_label(kind, domain, []),
    )
    return engine.reliability_data(items, coders, labels, domain=domain)


def _without_light(params: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters without Light's kappa: its columns are the chunk's coder pairs
    (``chunk_sums``), put on one list of pairs when merged (``_merged_light``), never every
    pair of the scope's coders that the phantom item would make present."""
    return {**params, "coefficients": [c for c in params["coefficients"] if c != LIGHT]}


def template_decompositions(
    *, kind: str, domain: Sequence[Any] | None, all_coders: Sequence[int], params: Mapping[str, Any]
) -> dict[str, Decomposition]:
    """The decompositions of the phantom item alone: their ``finalize`` is every chunk's
    (Light's kappa's, which depends on the pairs the chunks list, is ``_merged_light``'s)."""
    data = _phantom_data(kind=kind, domain=domain, all_coders=all_coders)
    return dict(engine.decompositions(data, _without_light(params), parents={}))


def merged_decompositions(
    chunks: Sequence[tuple[bytes, Mapping[str, Any]]],
    *,
    kind: str,
    domain: Sequence[Any] | None,
    all_coders: Sequence[int],
    params: Mapping[str, Any],
) -> dict[str, Decomposition]:
    """Every chunk's rows stacked in chunk order, with the phantom item's ``finalize`` (and
    ``leave_one_out``, the jackknife's update for the per-coder chance coefficients): the
    decompositions the one-process path builds from the whole scope."""
    templates = template_decompositions(
        kind=kind, domain=domain, all_coders=all_coders, params=params
    )
    loaded = [(_load(blob), summary) for blob, summary in chunks]
    out: dict[str, Decomposition] = {}
    if LIGHT in params["coefficients"]:
        phantom = _phantom_data(kind=kind, domain=domain, all_coders=all_coders)
        out[LIGHT] = _merged_light(
            [arrays for arrays, _ in loaded], n_coders=phantom.n_coders, n_values=phantom.n_values
        )
    for name, template in templates.items():
        parts = [_rows(arrays, name) for arrays, _ in loaded]
        if kind_of(kind).numeric and name == "alpha":
            centres = [float(summary["alpha_centre"]) for _, summary in loaded]
            parts = _recentred(parts, centres)  # type: ignore[arg-type]
        if any(sparse.issparse(p) for p in parts):
            stacked: Any = sparse.vstack([sparse.csr_matrix(p) for p in parts], format="csr")
        else:
            stacked = np.vstack(parts) if parts else np.zeros((0, template.item_stats.shape[1]))
        out[name] = template.with_rows(stacked)
    return {name: out[name] for name in engine.ALL_COEFFICIENTS if name in out}


def _merged_light(
    chunks: Sequence[Mapping[str, Any]], *, n_coders: int, n_values: int
) -> Decomposition:
    """Light's kappa's rows of every chunk on the union of the chunks' coder pairs (sorted,
    as the one-process path lists the pairs sharing an item), stacked in chunk order.

    A chunk's pair ``p`` of the union's ``q`` moves its columns ``2p, 2p + 1`` to
    ``2q, 2q + 1``, its coder columns by the difference of the widths; the union is sorted
    and each chunk's pairs too, so the moved columns stay in order on each row.
    """
    keys = [_light_pair_keys(arrays, n_coders) for arrays in chunks]
    union = np.unique(np.concatenate([*keys, np.zeros(0, np.int64)]))
    width = 2 * union.size + n_coders * n_values
    parts = []
    for arrays, own in zip(chunks, keys, strict=True):
        rows = sparse.csr_matrix(_rows(arrays, LIGHT))
        pair_columns = 2 * own.size
        if rows.shape[1] != pair_columns + n_coders * n_values:
            raise ValueError("A chunk's Light's kappa rows do not match its coder pairs.")
        moved = np.concatenate(
            [
                (2 * np.searchsorted(union, own)[:, None] + np.arange(2)).reshape(-1),
                np.arange(n_coders * n_values) + 2 * union.size,
            ]
        )
        parts.append(
            sparse.csr_matrix(
                (rows.data, moved[rows.indices], rows.indptr), shape=(rows.shape[0], width)
            )
        )
    stacked = sparse.vstack(parts, format="csr") if parts else sparse.csr_matrix((0, width))
    return engine.light_kappa_on_rows(
        stacked, union // n_coders, union % n_coders, n_coders=n_coders, n_values=n_values
    )


def _light_pair_keys(arrays: Mapping[str, Any], n_coders: int) -> NDArray[np.int64]:
    """``first · C + second`` of the pairs a chunk's Light's kappa rows list (chunks stored
    before the rows listed their pairs have a column pair for every pair of coders)."""
    if f"{LIGHT}.first" in arrays:
        first = np.asarray(arrays[f"{LIGHT}.first"], np.int64)
        second = np.asarray(arrays[f"{LIGHT}.second"], np.int64)
    else:
        first, second = (a.astype(np.int64) for a in np.triu_indices(n_coders, 1))
    return first * n_coders + second


def _recentred(
    parts: Sequence[NDArray[np.float64]], centres: Sequence[float]
) -> list[NDArray[np.float64]]:
    """Interval alpha's rows ``[D_o part, m, Σ(x-c), Σ(x-c)²]`` of every chunk moved from the
    chunk's centre ``c`` to the scope's (the mean of every pairable value)."""
    totals = sum(
        float(p[:, 2].sum()) + float(p[:, 1].sum()) * c for p, c in zip(parts, centres, strict=True)
    )
    count = sum(float(p[:, 1].sum()) for p in parts)
    centre = totals / count if count else 0.0
    moved = []
    for rows, own in zip(parts, centres, strict=True):
        shift = own - centre
        m, s1 = rows[:, 1], rows[:, 2]
        out = rows.copy()
        out[:, 2] = s1 + m * shift
        out[:, 3] = rows[:, 3] + 2.0 * shift * s1 + m * shift * shift
        moved.append(out)
    return moved


# -- the report of a split computation -------------------------------------------------------


def point_results(
    decompositions: Mapping[str, Decomposition],
    summaries: Sequence[Mapping[str, Any]],
    *,
    kind: str,
    domain: Sequence[Any] | None,
    n_coders: int,
    params: Mapping[str, Any],
) -> dict[str, Any]:
    """The point report from the stacked rows, in ``engine.point_report``'s shape."""
    coefficients: dict[str, Any] = {}
    skipped: dict[str, str] = {}
    name_of_distance = distance_name(params)
    for name, decomposition in decompositions.items():
        totals = decomposition.totals()
        value = float(np.asarray(decomposition.finalize(totals)))
        if not math.isfinite(value):
            skipped[name] = (
                "undefined on this data (no pairable item, or an expected agreement of 1)"
            )
            continue
        observed, expected, which = _parts(name, decomposition, totals, kind, name_of_distance)
        coefficients[name] = {
            "value": value,
            "observed": engine.json_float(observed),
            "expected": engine.json_float(expected),
            "kind": which,
        }
    wanted = list(params["coefficients"])
    for name in wanted:
        if name not in coefficients and name not in skipped:
            skipped[name] = "not reported for this data"
    numeric = kind_of(kind).numeric
    if n_coders == 2 and not numeric and domain is not None and len(domain) == 2:
        skipped["true_agreement"] = ONE_STEP_REASON
    if numeric:
        skipped["icc"] = ONE_STEP_REASON
    return {
        "n_items": sum(int(s["n_items"]) for s in summaries),
        "n_coders": int(n_coders),
        "n_annotations": sum(int(s["n_annotations"]) for s in summaries),
        "n_pairable_items": sum(int(s["n_pairable_items"]) for s in summaries),
        "level": params["level"],
        "distance": name_of_distance,
        "coefficients": {name: coefficients[name] for name in wanted if name in coefficients},
        "skipped": skipped,
    }


def _parts(
    name: str, decomposition: Decomposition, totals: NDArray[np.float64], kind: str, distance: str
) -> tuple[float, float, str]:
    """(observed, expected, kind) of one entry, from its totals."""
    finalize = decomposition.finalize
    if name == "alpha":
        return (*_alpha_parts(totals, kind, distance), "disagreement")
    model = getattr(finalize, "__self__", None)
    if model is not None and hasattr(model, "parts"):
        observed, expected = model.parts(totals)
        return float(observed), float(expected), "agreement"
    if name == "light_kappa":
        cells = dict(
            zip(
                finalize.__code__.co_freevars,
                (cell.cell_contents for cell in finalize.__closure__ or ()),
                strict=True,
            )
        )
        observed, expected, kappas = cells["parts"](totals)
        defined = ~np.isnan(kappas)
        return float(observed[defined].mean()), float(expected[defined].mean()), "agreement"
    return math.nan, math.nan, "agreement"


def _alpha_parts(totals: NDArray[np.float64], kind: str, distance: str) -> tuple[float, float]:
    """Alpha's observed and expected disagreement from its totals."""
    t = np.asarray(totals, dtype=np.float64)
    if kind_of(kind).numeric:
        n = t[1]
        return t[0] / n, 2.0 * (n * t[3] - t[2] ** 2) / (n * (n - 1.0))
    if distance == "ordinal":
        size = math.isqrt(t.size)
        coincidences = t.reshape(size, size)
        marginals = coincidences.sum(-1)
        n = float(marginals.sum())
        ranks = midranks(marginals)
        ranks = ranks - (marginals * ranks).sum() / max(n, 1.0)
        second = float((marginals * ranks**2).sum())
        observed_sum = 2.0 * second - 2.0 * float(ranks @ coincidences @ ranks)
        expected_sum = 2.0 * (n * second - float((marginals * ranks).sum()) ** 2)
        return observed_sum / n, expected_sum / (n * (n - 1.0))
    counts = t[1:]
    n = float(counts.sum())
    return t[0] / n, (n * n - float((counts * counts).sum())) / (n * (n - 1.0))


def most_disputed_rows(
    chunks: Sequence[tuple[int, Mapping[str, Any]]], *, pooled: bool
) -> list[tuple[int, float]]:
    """The scope's most disputed (unit, disagreement), from each range's list: ``chunks``
    are (round id, summary) in item order; units as ``scope_annotations`` numbers them."""
    rows = [
        ((round_id << 40) + int(item) if pooled else int(item), float(value))
        for round_id, summary in chunks
        for item, value in summary.get("most_disputed") or []
    ]
    rows.sort(key=lambda row: -row[1])  # stable: ties stay in item order
    return rows[: engine.MOST_DISPUTED]


def chunks_fingerprint(fingerprints: Sequence[str]) -> str:
    """One SHA-256 of the chunks' fingerprints in order."""
    digest = hashlib.sha256()
    for fingerprint in fingerprints:
        digest.update(fingerprint.encode())
    return digest.hexdigest()
