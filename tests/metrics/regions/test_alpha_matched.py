"""alpha_matched and alpha_matched_pooled: kalphacv's published examples, kalphacv itself on
random data, and hand-worked cases.

- docs/references.md#kalphacv-example-images: kalphacv's three example images (fruits,
  smile fruits, landscape), alpha 0.0222, 0.494 and 0.4889 for boxes at IoU 0.5 as its test
  suite asserted them; polygons 0.1111 and 0.2857 as kalphacv 1.5.2 computes them.
- docs/references.md#kalphacv-live: kalphacv 1.5.2 run on the same random images (a test
  extra), image by image.
- docs/references.md#alpha-matched-hand-case: three coders on one image, worked by hand.
"""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from metrics import krippendorff_alpha
from metrics.regions.data import RegionData
from metrics.regions.matched_alpha import (
    alpha_matched,
    alpha_matched_pooled,
    decompose_alpha_matched,
    decompose_alpha_matched_pooled,
    units_reliability_data,
)
from metrics.regions.matched_units import EMPTY, NOT_ANNOTATED, match_units

EXAMPLES = json.loads((Path(__file__).parent / "data" / "kalphacv_examples.json").read_text())[
    "examples"
]

# -- kalphacv's example images -----------------------------------------------------------------


def example_data(name: str, mode: str) -> RegionData:
    """An example's COCO file as RegionData: each image entry is one annotator's copy."""
    example = EXAMPLES[name]
    names = {image["id"]: image["file_name"] for image in example["images"]}
    annotated = [(image["file_name"], image["id"]) for image in example["images"]]
    if mode == "bbox":
        rows = [
            (names[a["image_id"]], a["image_id"], *a["bbox"], a["category_id"])
            for a in example["annotations"]
        ]
        return RegionData.from_boxes(rows, annotated=annotated)
    rows = [
        (
            names[a["image_id"]],
            a["image_id"],
            np.reshape(a["segmentation"][0], (-1, 2)),
            a["category_id"],
        )
        for a in example["annotations"]
    ]
    return RegionData.from_polygons(rows, annotated=annotated)


@pytest.mark.parametrize(
    ("name", "mode", "published"),
    [
        # kalphacv's test suite (tests/test_example_*.py, commit 7c61429): boxes.
        ("fruits", "bbox", 0.0222),
        ("smile_fruits", "bbox", 0.494),
        ("landscape_annotations", "bbox", 0.4889),
        # kalphacv 1.5.2, calculate_iaa("segm", ...): single-polygon examples.
        ("fruits", "segm", 0.1111),
        ("smile_fruits", "segm", 0.2857),
    ],
)
def test_kalphacv_example_images(name: str, mode: str, published: float) -> None:
    result = alpha_matched(example_data(name, mode), iou_threshold=0.5)
    # kalphacv rounds each image's alpha to four decimals.
    assert result.value == pytest.approx(published, abs=5e-5)


def test_fruits_units_are_kalphacv_s_matching_matrix() -> None:
    # kalphacv's test_example_fruits.py::test_coincidence_matrix: annotation ids per unit,
    # -1 for an empty entry (units in kalphacv's column order).
    data = example_data("fruits", "bbox")
    units = match_units(data, iou_threshold=0.5)
    ids = [[1, 2, 3, -1], [6, 5, 4, -1], [9, -1, 8, 7]]
    # Our regions are sorted by (image, coder, order given), which is annotation id order.
    expected = np.array(ids).T
    cells = np.where(units.cells >= 0, units.cells + 1, -1)
    assert cells.tolist() == expected.tolist()


# -- kalphacv itself on random images ----------------------------------------------------------


def random_rows(seed: int) -> tuple[list[tuple[Any, ...]], list[tuple[str, str]]]:
    """Images with 2–4 coders who keep, jitter, relabel, drop or add boxes; some coders draw
    nothing on an image."""
    rng = np.random.default_rng(seed)
    rows, annotated = [], []
    for image in range(12):
        n_coders = int(rng.integers(2, 5))
        n_objects = int(rng.integers(0, 7))
        truth = np.column_stack(
            [rng.uniform(0, 200, (n_objects, 2)), rng.uniform(5, 60, (n_objects, 2))]
        )
        labels = rng.choice(["cat", "dog", "bird"], n_objects)
        for coder in range(n_coders):
            name = f"c{coder}"
            annotated.append((f"img{image}", name))
            if rng.random() < 0.1:
                continue  # annotated, drew nothing
            for box, label in zip(truth, labels, strict=True):
                if rng.random() < 0.2:
                    continue
                jitter = box + rng.normal(0, 4, 4)
                jitter[2:] = np.abs(jitter[2:]) + 1
                if rng.random() < 0.15:
                    label = rng.choice(["cat", "dog", "bird"])
                rows.append((f"img{image}", name, *np.round(jitter, 2), str(label)))
            if rng.random() < 0.3:
                extra = np.round(np.concatenate([rng.uniform(0, 200, 2), rng.uniform(5, 60, 2)]), 2)
                rows.append((f"img{image}", name, *extra, "cat"))
    return rows, annotated


def kalphacv_image_alphas(
    rows: list[tuple[Any, ...]], annotated: list[tuple[str, str]], threshold: float
) -> dict[str, float]:
    """kalphacv 1.5.2's alpha of each image (its calculate_iaa loop, image by image)."""
    pre_processing = importlib.import_module("kalphacv.pre_processing")
    reliability_data = importlib.import_module("kalphacv.reliability_data")
    kalphacv_alpha = importlib.import_module("kalphacv.krippendorff_alpha")
    names = sorted({image for image, _ in annotated})
    coco = {
        "images": [
            {
                "id": k,
                "file_name": image,
                "width": 300,
                "height": 300,
                "raters": sorted({c for i, c in annotated if i == image}),
            }
            for k, image in enumerate(names)
        ],
        "annotations": [
            {
                "image_id": names.index(row[0]),
                "rater": row[1],
                "bbox": list(row[2:6]),
                "category_id": row[6],
            }
            for row in rows
        ],
    }
    pre = pre_processing.Preprocess(coco, "raters", "rater", silent=True)
    alphas = {}
    for image in pre.image_names:
        table = reliability_data.ReliabilityData(
            image,
            pre.annotations_per_image[image],
            pre.raters_per_image[image],
            pre.size_per_image[image],
        ).run("bbox", threshold)
        alphas[image] = float(kalphacv_alpha.calculate_alpha(table))
    return alphas


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("threshold", [0.3, 0.5, 0.75])
def test_alpha_matched_equals_kalphacv_image_by_image(seed: int, threshold: float) -> None:
    rows, annotated = random_rows(seed)
    expected = kalphacv_image_alphas(rows, annotated, threshold)
    result = alpha_matched(
        RegionData.from_boxes(rows, annotated=annotated), iou_threshold=threshold
    )
    assert set(result.images) == set(expected)
    for image, value in expected.items():
        assert result.images[image] == pytest.approx(value, abs=5e-5), image
    assert result.value == pytest.approx(np.mean(list(expected.values())), abs=5e-5)


# -- hand-worked cases -------------------------------------------------------------------------

# docs/references.md#alpha-matched-hand-case. One image, coders a, b, c (IoU 0.5):
#   a: A1 (0,0,10,10) cat, A2 (20,0,10,10) dog
#   b: B1 (1,0,10,10) cat [IoU with A1 = 90/110], B2 (60,0,10,10) cat
#   c: C1 (20,1,10,10) cat [IoU with A2 = 90/110], C2 (61,0,10,10) cat [IoU with B2 90/110]
# b against a: B1–A1; B2 opens a unit. c against a: C1–A2; c against b (units where b has a
# region and c none): C2–B2. Units: (cat, cat, empty), (dog, empty, cat), (empty, cat, cat).
# Values: n = 9; cat 5, dog 1, empty 3. Per unit Σ_{k≠k'} n_uk n_uk' / (m − 1):
#   (cat, cat, E): 2·2·1 / 2 = 2; (dog, E, cat): 6 / 2 = 3; (E, cat, cat): 2.
# D_o = 7 / 9, D_e = (81 − 25 − 1 − 9) / (9·8) = 46 / 72, alpha = 1 − (7/9)/(46/72) = −5/23.
HAND_ROWS = [
    ("img", "a", 0, 0, 10, 10, "cat"),
    ("img", "a", 20, 0, 10, 10, "dog"),
    ("img", "b", 1, 0, 10, 10, "cat"),
    ("img", "b", 60, 0, 10, 10, "cat"),
    ("img", "c", 20, 1, 10, 10, "cat"),
    ("img", "c", 61, 0, 10, 10, "cat"),
]


def test_hand_case_units() -> None:
    data = RegionData.from_boxes(HAND_ROWS)
    units = match_units(data, iou_threshold=0.5)
    assert units.cells.tolist() == [[0, 2, EMPTY], [1, EMPTY, 4], [EMPTY, 3, 5]]


def test_hand_case_alpha() -> None:
    data = RegionData.from_boxes(HAND_ROWS)
    assert alpha_matched(data).value == pytest.approx(-5 / 23)
    pooled = alpha_matched_pooled(data)
    assert pooled.observed == pytest.approx(7 / 9)
    assert pooled.expected == pytest.approx(46 / 72)
    assert pooled.value == pytest.approx(-5 / 23)


def test_a_coder_who_drew_nothing_gives_empty_in_every_unit() -> None:
    # a and b agree on one box; c annotated and drew nothing: one unit (cat, cat, empty):
    # n = 3, D_o = 2·2·1 / 2 / 3 = 2/3, D_e = (9 − 4 − 1) / 6 = 2/3, alpha 0.
    rows = [("img", "a", 0, 0, 10, 10, "cat"), ("img", "b", 0, 0, 10, 10, "cat")]
    data = RegionData.from_boxes(rows, annotated=[("img", "c")])
    units = match_units(data)
    assert units.cells.tolist() == [[0, 1, EMPTY]]
    assert alpha_matched(data).value == pytest.approx(0.0)


def test_images_with_one_coder_are_left_out_and_single_value_images_count_one() -> None:
    rows = [
        ("solo", "a", 0, 0, 10, 10, "cat"),  # one coder: left out
        ("same", "a", 0, 0, 10, 10, "cat"),
        ("same", "b", 0, 0, 10, 10, "cat"),  # one value (cat): alpha 1
        ("apart", "a", 0, 0, 10, 10, "cat"),
        ("apart", "b", 50, 50, 10, 10, "cat"),  # (cat, E), (E, cat): alpha
    ]
    data = RegionData.from_boxes(rows, annotated=[("blank", "a"), ("blank", "b")])
    result = alpha_matched(data)
    # "apart": n = 4, D_o = (2 + 2) / 4 = 1, D_e = (16 − 4 − 4) / 12 = 2/3: alpha −1/2.
    # "blank": both drew nothing, no units: alpha 1. Mean of 1, −1/2, 1 = 1/2.
    assert result.images == pytest.approx({"same": 1.0, "apart": -0.5, "blank": 1.0})
    assert result.value == pytest.approx(0.5)
    assert "solo" not in result.images
    units = match_units(data)
    assert NOT_ANNOTATED not in units.cells[:, :2].tolist()


def test_threshold_is_strict() -> None:
    # IoU exactly 1/3 (10×10 boxes overlapping by half their width): no match at 1/3.
    rows = [("img", "a", 0, 0, 10, 10, "cat"), ("img", "b", 5, 0, 10, 10, "cat")]
    data = RegionData.from_boxes(rows)
    assert match_units(data, iou_threshold=1 / 3).n_units == 2
    assert match_units(data, iou_threshold=0.33).n_units == 1


def test_pooled_alpha_equals_the_library_alpha_and_the_krippendorff_package() -> None:
    krippendorff = importlib.import_module("krippendorff")
    rows, annotated = random_rows(3)
    data = RegionData.from_boxes(rows, annotated=annotated)
    units = match_units(data)
    reliability = units_reliability_data(data, units)
    table = np.full((data.n_coders, units.n_units), np.nan)
    table[reliability.coder_index, reliability.item_index] = reliability.value_code
    expected = krippendorff.alpha(reliability_data=table, level_of_measurement="nominal")
    pooled = alpha_matched_pooled(data)
    assert pooled.value == pytest.approx(expected, abs=1e-12)
    assert pooled.value == pytest.approx(krippendorff_alpha(reliability).value, abs=1e-12)


def test_decompositions_evaluate_to_the_values() -> None:
    rows, annotated = random_rows(5)
    data = RegionData.from_boxes(rows, annotated=annotated)
    mean = decompose_alpha_matched(data)
    pooled = decompose_alpha_matched_pooled(data)
    assert mean.n_items == pooled.n_items == data.n_images
    assert float(mean.evaluate()) == pytest.approx(alpha_matched(data).value, abs=1e-12)
    assert float(pooled.evaluate()) == pytest.approx(alpha_matched_pooled(data).value, abs=1e-12)
