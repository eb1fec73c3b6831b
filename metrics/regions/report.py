"""Every region measure at once: the JSON of ``python -m metrics report FILE --level box``.

:func:`region_report` computes alpha_matched (per image, as kalphacv), alpha_matched_pooled,
detection F1 and alpha with each region-set distance, each as ``{"value": ..., ...}``; a
measure undefined on the data has ``"value": null`` and a ``"reason"``. With ``bootstrap``
replicates every measure gets a ``"ci"``, all from the same resamples of images (replicate
``r`` draws from ``np.random.default_rng([seed, r])``, see
:mod:`metrics.uncertainty.bootstrap`). ``images`` lists every image, most disputed first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np

from metrics.decomposition import Decomposition
from metrics.regions.data import RegionData
from metrics.regions.detection_f1 import (
    decompose_detection_f1,
    detection_f1,
    image_detection_f1,
)
from metrics.regions.matched_alpha import (
    alpha_matched_pooled,
    decompose_alpha_matched,
    image_alphas,
    pooled_decomposition,
)
from metrics.regions.matched_units import match_units
from metrics.regions.region_alpha import (
    REGION_DISTANCES,
    decompose_region_alpha,
    image_disagreement,
    region_alpha,
)
from metrics.uncertainty.bootstrap import bootstrap as bootstrap_interval

__all__ = ["REGION_COEFFICIENT_KEYS", "format_region_table", "region_report"]

#: Every key of a region report's ``coefficients``, in the order they are reported.
REGION_COEFFICIENT_KEYS: tuple[str, ...] = (
    "alpha_matched",
    "alpha_matched_pooled",
    "detection_f1",
    *(f"region_alpha_{distance}" for distance in REGION_DISTANCES),
)

TITLES = {
    "alpha_matched": "alpha matched (mean over images)",
    "alpha_matched_pooled": "alpha matched, pooled",
    "detection_f1": "detection F1",
    "region_alpha_iou": "alpha, set distance 1 - IoU",
    "region_alpha_giou": "alpha, set distance (1 - GIoU)/2",
    "region_alpha_corner_l2": "alpha, set distance corner L2",
}

Entry = dict[str, Any]


def _name(value: Hashable) -> Any:
    if isinstance(value, str | int | float) and not isinstance(value, bool):
        return value
    return str(value)


def _number(value: Any) -> float | None:
    if value is None:
        return None
    number = float(value)
    return number if np.isfinite(number) else None


def _check_options(bootstrap: int, confidence: float, iou_threshold: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be strictly between 0 and 1; got {confidence}.")
    if isinstance(bootstrap, bool) or int(bootstrap) != bootstrap or bootstrap < 0:
        raise ValueError(f"bootstrap must be a whole number of replicates ≥ 0; got {bootstrap}.")
    if not 0 < iou_threshold <= 1:
        raise ValueError(f"iou_threshold must be in (0, 1]; got {iou_threshold}.")


def _matched(
    data: RegionData, iou_threshold: float, decompose: bool
) -> tuple[Entry, Entry, Decomposition | None, Decomposition | None]:
    units = match_units(data, iou_threshold=iou_threshold)
    if not units.images_with_coders.any():
        raise ValueError("alpha_matched needs at least one image annotated by two coders.")
    alphas = image_alphas(data, units)
    kept = np.flatnonzero(units.images_with_coders)
    mean: Entry = {
        "value": float(np.mean(alphas[kept])),
        "images": {_name(data.images[i]): float(alphas[i]) for i in kept.tolist()},
        "iou_threshold": float(iou_threshold),
        "n_units": units.n_units,
    }
    try:
        result = alpha_matched_pooled(data, iou_threshold=iou_threshold)
        pooled: Entry = {
            "value": result.value,
            "observed": result.observed,
            "expected": result.expected,
            "n_units": result.n_units,
        }
        pooled_rows = pooled_decomposition(data, units) if decompose else None
    except ValueError as error:
        pooled, pooled_rows = {"value": None, "reason": str(error)}, None
    mean_rows = decompose_alpha_matched(data, iou_threshold=iou_threshold) if decompose else None
    return mean, pooled, mean_rows, pooled_rows


def _f1(
    data: RegionData, iou_threshold: float, decompose: bool
) -> tuple[Entry, Decomposition | None]:
    result = detection_f1(data, iou_threshold=iou_threshold)
    entry: Entry = {
        "value": result.value,
        "categories": {_name(label): value for label, value in result.categories.items()},
        "iou_threshold": float(iou_threshold),
        "pairs": [
            {
                "coders": [_name(pair.coders[0]), _name(pair.coders[1])],
                "value": pair.value,
                "matches": pair.matches,
                "regions": pair.regions,
                "images": pair.images,
            }
            for pair in result.pairs
        ],
    }
    decomposition = decompose_detection_f1(data, iou_threshold=iou_threshold) if decompose else None
    return entry, decomposition


def _region_alpha(
    data: RegionData, distance: str, seed: int, decompose: bool
) -> tuple[Entry, Decomposition | None]:
    result = region_alpha(data, distance=distance, seed=seed)
    entry: Entry = {
        "value": result.value,
        "observed": result.observed,
        "expected": result.expected,
        "n_values": result.n_values,
        "expected_pairs": result.expected_pairs,
        "expected_sampled": result.expected_sampled,
    }
    decomposition = (
        decompose_region_alpha(data, distance=distance, seed=seed) if decompose else None
    )
    return entry, decomposition


def _add_intervals(
    coefficients: dict[str, Entry],
    decompositions: dict[str, Decomposition | None],
    replicates: int,
    seed: int,
    confidence: float,
) -> None:
    for key, entry in coefficients.items():
        decomposition = decompositions.get(key)
        if entry["value"] is None:
            continue
        if decomposition is None or decomposition.n_items < 2:
            entry["ci"] = None
            entry["ci_reason"] = "an interval resamples images and needs at least two."
            continue
        try:
            result = bootstrap_interval(
                decomposition, replicates=replicates, seed=seed, confidence=confidence
            )
        except ValueError as error:
            entry["ci"], entry["ci_reason"] = None, str(error)
            continue
        entry["ci"] = {
            "low": float(result.low),
            "high": float(result.high),
            "confidence": float(result.confidence),
            "method": str(result.method),
            "replicates": int(result.replicates),
        }


def _images(data: RegionData, coefficients: dict[str, Entry], iou_threshold: float) -> list[Entry]:
    counts = np.bincount(data.image, minlength=data.n_images)
    alphas = coefficients["alpha_matched"].get("images") or {}
    try:
        f1 = image_detection_f1(data, iou_threshold=iou_threshold)
    except ValueError:
        f1 = np.full(data.n_images, np.nan)
    try:
        disagreement = image_disagreement(data, distance="iou")
    except ValueError:
        disagreement = np.full(data.n_images, np.nan)
    images = [
        {
            "image": _name(data.images[i]),
            "n_regions": int(counts[i]),
            "coders": [_name(data.coders[c]) for c in data.coders_of(i).tolist()],
            "alpha_matched": alphas.get(_name(data.images[i])),
            "detection_f1": _number(f1[i]),
            "disagreement_iou": _number(disagreement[i]),
        }
        for i in range(data.n_images)
    ]

    def disputed(entry: Entry) -> tuple[float, float, float]:
        alpha = entry["alpha_matched"]
        share = entry["disagreement_iou"]
        f1_value = entry["detection_f1"]
        return (
            alpha if alpha is not None else 2.0,
            -share if share is not None else 1.0,
            f1_value if f1_value is not None else 2.0,
        )

    return sorted(images, key=disputed)


def region_report(
    data: RegionData,
    *,
    iou_threshold: float = 0.5,
    bootstrap: int = 0,
    confidence: float = 0.95,
    seed: int = 0,
) -> dict[str, Any]:
    """Every region measure of ``data`` as a JSON-ready dictionary.

    Parameters
    ----------
    data : RegionData
    iou_threshold : float, default 0.5
        Matching threshold of alpha_matched (IoU strictly above) and detection F1 (at least).
    bootstrap : int, default 0
        Bootstrap replicates over images (0 for none); each measure gets ``ci``.
    confidence : float, default 0.95
    seed : int, default 0
        Seed of the bootstrap and of the sampled expected disagreement of region alpha.

    Returns
    -------
    dict
        ``level`` (the data's kind), ``n_images``, ``n_coders``, ``n_regions`` (and
        ``n_boxes``, ``n_polygons`` or ``n_keypoints``), ``coefficients`` (key → entry, in
        :data:`REGION_COEFFICIENT_KEYS` order) and ``images`` (most disputed first: lowest
        alpha_matched, then largest mean set distance, then lowest F1).

    Examples
    --------
    >>> data = RegionData.from_boxes([("i", "a", 0, 0, 10, 10, "cat"),
    ...     ("i", "b", 0, 0, 10, 9, "cat")])
    >>> result = region_report(data)
    >>> result["n_boxes"], result["coefficients"]["detection_f1"]["value"]
    (2, 1.0)
    """
    _check_options(bootstrap, confidence, iou_threshold)
    decompose = bool(bootstrap)
    coefficients: dict[str, Entry] = {}
    decompositions: dict[str, Decomposition | None] = {}

    def run(keys: tuple[str, ...], compute: Callable[[], tuple[Any, ...]]) -> None:
        try:
            results = compute()
        except ValueError as error:
            for key in keys:
                coefficients[key], decompositions[key] = {"value": None, "reason": str(error)}, None
            return
        half = len(keys)
        for k, key in enumerate(keys):
            coefficients[key], decompositions[key] = results[k], results[half + k]

    run(("alpha_matched", "alpha_matched_pooled"), lambda: _matched(data, iou_threshold, decompose))
    run(("detection_f1",), lambda: _f1(data, iou_threshold, decompose))
    for distance in REGION_DISTANCES:
        if distance == "giou" and data.kind == "keypoint":
            continue
        run(
            (f"region_alpha_{distance}",),
            lambda distance=distance: _region_alpha(data, distance, seed, decompose),  # type: ignore[misc]
        )
    if bootstrap:
        _add_intervals(coefficients, decompositions, int(bootstrap), seed, confidence)
    return {
        "level": data.kind,
        "n_images": data.n_images,
        "n_coders": data.n_coders,
        "n_regions": data.n_regions,
        f"n_{data.kind}es" if data.kind == "box" else f"n_{data.kind}s": data.n_regions,
        "coefficients": coefficients,
        "images": _images(data, coefficients, iou_threshold),
    }


def _cell(value: float | None, width: int = 8) -> str:
    return f"{'—':>{width}}" if value is None else f"{value:>{width}.4f}"


def format_region_table(result: dict[str, Any], *, images: int = 10) -> str:
    """The human-readable region report: counts, one line per measure, labels, images."""
    coefficients = result["coefficients"]
    lines = [
        f"images {result['n_images']}, coders {result['n_coders']}, "
        f"regions {result['n_regions']}, level {result['level']}",
        "",
        f"{'measure':<36}{'value':>8}  interval",
    ]
    reasons = []
    for key in REGION_COEFFICIENT_KEYS:
        entry = coefficients.get(key)
        if entry is None:
            continue
        ci = entry.get("ci")
        interval = (
            f"[{ci['low']:.4f}, {ci['high']:.4f}] {ci['confidence']:.0%} {ci['method']}"
            if ci
            else ""
        )
        lines.append(f"{TITLES[key]:<36}{_cell(entry['value'])}  {interval}".rstrip())
        if entry["value"] is None:
            reasons.append(f"{key}: {entry['reason']}")
    categories = coefficients.get("detection_f1", {}).get("categories") or {}
    if categories:
        lines += ["", f"{'label':<30}{'detection F1':>14}"]
        lines += [f"{str(label)[:30]:<30}{_cell(value, 14)}" for label, value in categories.items()]
    shown = result.get("images", [])[:images]
    if shown:
        lines += [
            "",
            f"most disputed images (first {len(shown)} of {len(result['images'])})",
            f"{'image':<30}{'regions':>8}{'coders':>8}{'alpha':>9}{'F1':>9}{'1-IoU':>9}",
        ]
        for entry in shown:
            lines.append(
                f"{str(entry['image'])[:30]:<30}{entry['n_regions']:>8}{len(entry['coders']):>8}"
                f"{_cell(entry['alpha_matched'], 9)}{_cell(entry['detection_f1'], 9)}"
                f"{_cell(entry['disagreement_iou'], 9)}"
            )
    if reasons:
        lines += ["", *(f"undefined {reason}" for reason in reasons)]
    return "\n".join(lines)
