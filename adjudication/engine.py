"""The one module of the adjudication app that computes with ``metrics``: each coder of a
round against the round's reference, as the JSON a ``ReferenceResult`` stores.

Input is what ``computations.scope.scope_annotations`` read (parallel arrays, one row per
annotation) and the reference label of each item; the coders × items matrix is filled with
numpy indexing, never a Python loop over annotations.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np

from metrics import HIERARCHY_DISTANCES, REFERENCE_MEASURES, reference_agreement, report_distance
from studies.kinds import kind_of


def reference_report(
    *,
    kind: str,
    item_ids: np.ndarray,
    coder_ids: np.ndarray,
    labels: Sequence[Any],
    reference: Mapping[int, Any],
    coder_names: Mapping[int, str],
    domain: Sequence[Hashable] | None,
    parents: Mapping[str, str | None],
    replicates: int,
    seed: int,
    confidence: float,
) -> dict[str, Any]:
    """Every coder (``coder_names``' keys, in order) against ``reference`` (item id → label).

    Returns ``{"n_reference_items", "distance", "confidence", "replicates", "labels",
    "coders": [...]}``; each coder has ``coder`` (key), ``n_items``, the measures of
    ``REFERENCE_MEASURES`` with ``{"value", "low", "high"}``, ``notes`` and, for categorical
    questions, ``confusion`` (rows: the reference) and ``categories`` (precision, recall,
    F1, support per label).
    """
    label_kind = kind_of(kind)
    level, distance_name = label_kind.reference_level()
    tree = dict(parents) if distance_name in HIERARCHY_DISTANCES else None
    # The report's nominal level means "no weights" (None); alpha takes the name.
    distance: Any = report_distance(level, distance_name, tree=tree) or distance_name
    numeric = label_kind.numeric
    coders = list(coder_names)
    items = np.unique(np.concatenate([item_ids, np.fromiter(reference, np.int64)]))
    column = np.searchsorted(items, item_ids)
    row_of = {coder: row for row, coder in enumerate(coders)}
    row = np.array([row_of.get(int(c), -1) for c in np.unique(coder_ids)], dtype=np.int64)
    rows = row[np.searchsorted(np.unique(coder_ids), coder_ids)] if len(coder_ids) else row
    kept = rows >= 0
    matrix: np.ndarray
    gold: np.ndarray
    if numeric:
        matrix = np.full((len(coders), len(items)), np.nan)
        matrix[rows[kept], column[kept]] = np.asarray(labels, dtype=np.float64)[kept]
        gold = np.full(len(items), np.nan)
    else:
        matrix = np.full((len(coders), len(items)), None, dtype=object)
        values = np.empty(len(labels), dtype=object)
        values[:] = list(labels)
        matrix[rows[kept], column[kept]] = values[kept]
        gold = np.full(len(items), None, dtype=object)
    reference_items = np.fromiter(reference, np.int64)
    gold[np.searchsorted(items, reference_items)] = [reference[int(i)] for i in reference_items]
    result = reference_agreement(
        matrix,
        gold,
        distance=distance,
        domain=domain,
        replicates=replicates,
        seed=seed,
        confidence=confidence,
        method="bca",
    )
    label_texts = [_text(value) for value in result.domain]
    # Labels that are categories get a confusion matrix and per-category F1.
    categorical = label_kind.categorical
    out_coders = []
    for coder_id, measured in zip(coders, result.coders, strict=True):
        entry: dict[str, Any] = {
            "coder": coder_names[coder_id],
            "coder_id": coder_id,
            "n_items": measured.n_items,
            "notes": dict(measured.notes),
        }
        for measure in REFERENCE_MEASURES:
            if measure == "macro_f1" and not categorical:
                continue
            interval = measured.intervals.get(measure)
            entry[measure] = {
                "value": _float(measured.value(measure)),
                "low": _float(interval.low) if interval else None,
                "high": _float(interval.high) if interval else None,
            }
        if categorical:
            entry["confusion"] = measured.confusion.tolist()
            entry["categories"] = [
                {
                    "label": text,
                    "precision": _float(p),
                    "recall": _float(r),
                    "f1": _float(f),
                    "support": int(s),
                }
                for text, p, r, f, s in zip(
                    label_texts,
                    measured.precision.tolist(),
                    measured.recall.tolist(),
                    measured.f1.tolist(),
                    measured.support.tolist(),
                    strict=True,
                )
            ]
        out_coders.append(entry)
    return {
        "n_reference_items": result.n_reference_items,
        "distance": distance_name,
        "confidence": confidence,
        "replicates": replicates,
        "labels": label_texts if categorical else [],
        "coders": out_coders,
    }


def _text(value: Any) -> str:
    if isinstance(value, frozenset | set):
        return "|".join(sorted(value))
    if isinstance(value, float):
        return format(value, "g")
    return str(value)


def _float(value: Any) -> float | None:
    number = float(value)
    return None if math.isnan(number) or math.isinf(number) else number
