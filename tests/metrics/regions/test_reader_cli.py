"""The region CSV readers, region_report and ``python -m metrics report --level box|polygon``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from metrics.cli import main
from metrics.regions import (
    REGION_COEFFICIENT_KEYS,
    RegionData,
    alpha_matched,
    detection_f1,
    read_boxes,
    read_polygons,
    region_report,
)

BOXES = """image,coder,x,y,width,height,label
img1,ann,0,0,10,10,cat
img1,bob,1,0,10,10,cat
img1,cy,,,,,
img2,ann,5,5,20,20,dog
img2,bob,6,5,20,20,dog
img2,cy,50,50,5,5,dog
img3,ann,0,0,4,4,cat
img3,bob,0,0,4,4,dog
"""

POLYGONS = """image,coder,points,label
img1,ann,0 0;10 0;10 10;0 10,cat
img1,bob,1 0;11 0;11 10;1 10,cat
img2,ann,0 0;4 0;0 4,dog
img2,bob,,
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_read_boxes_keeps_drew_nothing_apart_from_not_annotated(tmp_path: Path) -> None:
    data = read_boxes(write(tmp_path, "boxes.csv", BOXES))
    assert data.images == ("img1", "img2", "img3")
    assert data.coders == ("ann", "bob", "cy")
    assert data.n_regions == 7
    assert data.annotated.tolist() == [[True, True, True], [True, True, True], [True, True, False]]


def test_read_polygons(tmp_path: Path) -> None:
    data = read_polygons(write(tmp_path, "polygons.csv", POLYGONS))
    assert data.kind == "polygon"
    assert data.n_regions == 3
    assert data.annotated.tolist() == [[True, True], [True, True]]


def test_cli_box_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(tmp_path, "boxes.csv", BOXES)
    assert main(["report", str(path), "--level", "box", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert (result["n_images"], result["n_coders"], result["n_boxes"]) == (3, 3, 7)
    assert list(result["coefficients"]) == list(REGION_COEFFICIENT_KEYS)
    coefficients = result["coefficients"]
    data = read_boxes(path)
    expected = alpha_matched(data)
    assert coefficients["alpha_matched"]["value"] == pytest.approx(expected.value)
    assert coefficients["alpha_matched"]["images"] == pytest.approx(expected.images)
    assert set(coefficients["alpha_matched_pooled"]) >= {"value", "observed", "expected"}
    f1 = detection_f1(data)
    assert coefficients["detection_f1"]["value"] == pytest.approx(f1.value)
    assert coefficients["detection_f1"]["categories"] == pytest.approx(f1.categories)
    for distance in ("iou", "giou", "corner_l2"):
        assert coefficients[f"region_alpha_{distance}"]["value"] is not None
    # Most disputed first: img2 (alpha −1/9), img1 and img3 (alpha 0), by mean set distance.
    assert result["images"][0]["image"] == "img2"


def test_cli_bootstrap_gives_every_measure_an_interval(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "boxes.csv", BOXES)
    arguments = ["report", str(path), "--level", "box", "--bootstrap", "200", "--seed", "4"]
    assert main([*arguments, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert main([*arguments, "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    for key in REGION_COEFFICIENT_KEYS:
        ci = first["coefficients"][key]["ci"]
        assert ci["replicates"] == 200
        assert ci == second["coefficients"][key]["ci"]


def test_cli_polygon_level_and_threshold(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "polygons.csv", POLYGONS)
    # img1: the squares overlap with IoU 90/110 = 0.818: they match at 0.5, not at 0.9.
    assert main(["report", str(path), "--level", "polygon", "--json"]) == 0
    loose = json.loads(capsys.readouterr().out)
    assert (
        main(["report", str(path), "--level", "polygon", "--iou-threshold", "0.9", "--json"]) == 0
    )
    strict = json.loads(capsys.readouterr().out)
    assert loose["n_polygons"] == 3
    assert loose["coefficients"]["alpha_matched"]["images"]["img1"] == 1.0
    assert strict["coefficients"]["alpha_matched"]["images"]["img1"] < 1.0
    # img1 one match of 2, img2 none of 1 (bob drew nothing): F1 = 2 / 3.
    assert loose["coefficients"]["detection_f1"]["value"] == pytest.approx(2 / 3)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("image,coder,x,y,width,label\n", "line 1: the CSV header must name"),
        ("image,coder,x,y,width,height,label\ni,a,0,0,ten,5,cat\n", "line 2, field 'width'"),
        (
            "image,coder,x,y,width,height,label\ni,a,0,0,-1,5,cat\n",
            "line 2, field 'width': must be ≥ 0",
        ),
        ("image,coder,x,y,width,height,label\ni,a,0,0,1,5,\n", "line 2, field 'label': empty"),
        ("image,coder,x,y,width,height,label\n,a,0,0,1,5,cat\n", "line 2, field 'image': empty"),
        (
            "image,coder,x,y,width,height,label\ni,a,0,0,1,5,cat\ni,a,,,,,\n",
            "line 3, field 'x': an empty row says coder 'a' drew nothing",
        ),
    ],
)
def test_cli_bad_box_input_names_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    path = write(tmp_path, "bad.csv", text)
    assert main(["report", str(path), "--level", "box"]) == 2
    assert message in capsys.readouterr().err


def test_cli_bad_polygon_names_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "bad.csv", "image,coder,points,label\ni,a,0 0;2 2;2 0;0 2,cat\n")
    assert main(["report", str(path), "--level", "polygon"]) == 2
    assert (
        "line 2, field 'points': not a simple polygon: edges 1 and 3 cross"
        in capsys.readouterr().err
    )


def test_cli_iou_threshold_belongs_to_region_levels(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = write(tmp_path, "items.csv", "item,coder,label\n1,a,x\n1,b,x\n")
    assert main(["report", str(path), "--iou-threshold", "0.5"]) == 2
    assert "--iou-threshold applies to --level box and polygon only" in capsys.readouterr().err


def test_region_report_marks_undefined_measures() -> None:
    data = RegionData.from_boxes([("i", "a", 0, 0, 10, 10, "cat")])
    result = region_report(data)
    assert result["coefficients"]["alpha_matched"]["value"] is None
    assert "two coders" in result["coefficients"]["alpha_matched"]["reason"]
