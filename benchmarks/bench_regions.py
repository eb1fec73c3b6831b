"""Speed of alpha_matched and detection F1 on 10,000 images × 3 coders × 20 boxes.

Run from the repository root::

    python benchmarks/bench_regions.py                  # 10,000 images (600,000 boxes)
    python benchmarks/bench_regions.py --images 2000    # quicker

Prints, from one run, the seconds of building RegionData, alpha_matched and detection F1 on
the whole corpus (goal: alpha_matched and detection F1 together ≤ 10 s), and on the first
``--peer-images`` images the time of kalphacv 1.5.2 (``calculate_iaa``, the peer a user would
otherwise run) against alpha_matched on the same images, their ratio, and both values. Without
kalphacv installed the peer is skipped with a note.
"""

from __future__ import annotations

import argparse
import copy
import importlib
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from metrics.regions import RegionData, alpha_matched, detection_f1

LABELS = np.array(["car", "person", "bike", "sign", "tree"], dtype=object)


def timed(function: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = function()
    return time.perf_counter() - start, result


def corpus(images: int, coders: int, boxes: int, seed: int) -> list[tuple[Any, ...]]:
    """Reference boxes per image; each coder keeps most of them with jitter, relabels a few,
    and misses or adds some, so that every coder has about ``boxes`` boxes per image."""
    rng = np.random.default_rng(seed)
    rows: list[tuple[Any, ...]] = []
    for image in range(images):
        truth = np.column_stack(
            [rng.uniform(0, 1800, (boxes, 2)), rng.uniform(20, 200, (boxes, 2))]
        )
        labels = LABELS[rng.integers(0, LABELS.size, boxes)]
        for coder in range(coders):
            moved = truth + rng.normal(0, 6, truth.shape)
            moved[:, 2:] = np.abs(moved[:, 2:]) + 1
            missed = rng.random(boxes) < 0.08
            moved[missed, :2] = rng.uniform(0, 1800, (int(missed.sum()), 2))
            relabel = rng.random(boxes) < 0.05
            coded = np.where(relabel, LABELS[rng.integers(0, LABELS.size, boxes)], labels)
            name = f"img{image:05d}"
            rows += [
                (name, f"c{coder}", *box, label)
                for box, label in zip(moved.round(1).tolist(), coded, strict=True)
            ]
    return rows


def kalphacv_input(rows: list[tuple[Any, ...]]) -> dict[str, Any]:
    names = sorted({row[0] for row in rows})
    index = {name: k for k, name in enumerate(names)}
    coders = sorted({row[1] for row in rows})
    return {
        "images": [
            {"id": k, "file_name": name, "width": 2000, "height": 2000, "raters": coders}
            for k, name in enumerate(names)
        ],
        "annotations": [
            {
                "image_id": index[row[0]],
                "rater": row[1],
                "bbox": list(row[2:6]),
                "category_id": row[6],
            }
            for row in rows
        ],
    }


def peer(rows: list[tuple[Any, ...]], images: int) -> None:
    try:
        calculate_iaa = importlib.import_module("kalphacv.calculate_iaa").calculate_iaa
    except ImportError as error:
        print(f"kalphacv: not installed ({error}); the peer comparison is skipped")
        return
    chosen = {f"img{k:05d}" for k in range(images)}
    subset = [row for row in rows if row[0] in chosen]
    coco = kalphacv_input(subset)
    seconds_peer, peer_result = timed(
        lambda: calculate_iaa(
            "bbox", copy.deepcopy(coco), "raters", "rater", [0.5], 0.6, silent=True
        )
    )
    data = RegionData.from_boxes(subset)
    seconds_ours, ours = timed(lambda: alpha_matched(data, iou_threshold=0.5))
    print(
        f"kalphacv 1.5.2 on {images} images: {seconds_peer:.3f} s (alpha {peer_result[0.5]:.4f}); "
        f"alpha_matched {seconds_ours:.3f} s (alpha {ours.value:.4f}); "
        f"ratio ours / kalphacv {seconds_ours / seconds_peer:.4f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--images", type=int, default=10_000)
    parser.add_argument("--coders", type=int, default=3)
    parser.add_argument("--boxes", type=int, default=20)
    parser.add_argument("--peer-images", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rows = corpus(args.images, args.coders, args.boxes, args.seed)
    print(f"{args.images} images × {args.coders} coders × {args.boxes} boxes = {len(rows):,} boxes")
    seconds_build, data = timed(lambda: RegionData.from_boxes(rows))
    print(f"RegionData.from_boxes: {seconds_build:.2f} s")
    seconds_alpha, alpha = timed(lambda: alpha_matched(data, iou_threshold=0.5))
    print(
        f"alpha_matched: {seconds_alpha:.2f} s (value {alpha.value:.4f}, {alpha.n_units:,} units)"
    )
    seconds_f1, f1 = timed(lambda: detection_f1(data, iou_threshold=0.5))
    print(f"detection_f1: {seconds_f1:.2f} s (value {f1.value:.4f})")
    total = seconds_alpha + seconds_f1
    print(f"alpha_matched + detection_f1: {total:.2f} s (goal ≤ 10 s)")
    peer(rows, min(args.peer_images, args.images))


if __name__ == "__main__":
    main()
