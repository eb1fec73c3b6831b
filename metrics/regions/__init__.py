"""Agreement on image regions: boxes (optionally rotated), polygons and keypoints.

- :class:`RegionData`: regions ``(image, coder, geometry, label)`` with which coders
  annotated each image (drew nothing vs did not annotate);
- geometry: :func:`box_iou`, :func:`box_giou`, :func:`corner_l2`, :func:`box_corners`
  (rotated boxes), :func:`polygon_iou` (exact, any simple polygon), :func:`keypoint_distance`
  and :func:`keypoint_similarity` (OKS);
- :func:`alpha_matched`: Tschirschwitz et al.'s alpha per image, as kalphacv computes it, and
  :func:`alpha_matched_pooled`: the same units, one alpha over all images;
- :func:`detection_f1`: maximum one-to-one matching of same-label regions between coders;
- :func:`region_alpha`: Krippendorff's alpha with a distance between coders' sets of regions
  (Braylan, Alonso & Lease 2022);
- :func:`region_report`, :func:`read_boxes`, :func:`read_polygons`: everything at once, as
  ``python -m metrics report FILE --level box`` prints it.

Each measure has a ``decompose_*`` twin with one row per image, for the bootstrap over images.
"""

from __future__ import annotations

from metrics.regions.boxes import box_corners, box_giou, box_iou, corner_l2
from metrics.regions.data import KINDS, RegionData
from metrics.regions.detection_f1 import (
    DetectionF1,
    PairDetectionF1,
    decompose_detection_f1,
    detection_f1,
    image_detection_f1,
)
from metrics.regions.keypoints import keypoint_distance, keypoint_similarity
from metrics.regions.matched_alpha import (
    MatchedAlpha,
    PooledMatchedAlpha,
    alpha_matched,
    alpha_matched_pooled,
    decompose_alpha_matched,
    decompose_alpha_matched_pooled,
)
from metrics.regions.matched_units import EMPTY, NOT_ANNOTATED, MatchedUnits, match_units
from metrics.regions.polygons import check_simple_polygon, polygon_area, polygon_iou
from metrics.regions.reader import read_boxes, read_polygons
from metrics.regions.region_alpha import (
    REGION_DISTANCES,
    RegionAlpha,
    decompose_region_alpha,
    image_disagreement,
    region_alpha,
)
from metrics.regions.report import REGION_COEFFICIENT_KEYS, format_region_table, region_report

__all__ = [
    "EMPTY",
    "KINDS",
    "NOT_ANNOTATED",
    "REGION_COEFFICIENT_KEYS",
    "REGION_DISTANCES",
    "DetectionF1",
    "MatchedAlpha",
    "MatchedUnits",
    "PairDetectionF1",
    "PooledMatchedAlpha",
    "RegionAlpha",
    "RegionData",
    "alpha_matched",
    "alpha_matched_pooled",
    "box_corners",
    "box_giou",
    "box_iou",
    "check_simple_polygon",
    "corner_l2",
    "decompose_alpha_matched",
    "decompose_alpha_matched_pooled",
    "decompose_detection_f1",
    "decompose_region_alpha",
    "detection_f1",
    "format_region_table",
    "image_detection_f1",
    "image_disagreement",
    "keypoint_distance",
    "keypoint_similarity",
    "match_units",
    "polygon_area",
    "polygon_iou",
    "read_boxes",
    "read_polygons",
    "region_alpha",
    "region_report",
]
