"""Regions a tool's file holds (Label Studio rectangles, polygons and keypoints, COCO,
CVAT), mapped onto the study's region questions and written through the structured
upload (``annotations.structured``), each (image, coder) pair replaced whole.

A region goes to the question its tool field names (``question_map``, else the question
with that key), else to the import's ``question``; that question's kind must be the
region's (a box into a box question). Its label goes through the question's label matcher
(``category_map``, ``case_insensitive_categories``), as single labels do.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from django.core.exceptions import ValidationError

from annotations.structured import ImageRow, Row, structured_values_replace
from exchange.formats.base import ImportErrorCode, ParsedFile, ParsedImage, ParsedRegion, Rejection
from exchange.formats.relations import both_ways
from exchange.mapping import LabelMatcher
from studies.access import Actor
from studies.models import Question, Round

_MAX_PARTIAL_PASSES = 5
_ROW_ATTR = re.compile(r"^rows\.(\d+)(?:\.(\w+))?$")


@dataclass
class RegionGroups:
    """The file's regions per question key, and the records that went nowhere."""

    regions: dict[str, list[ParsedRegion]] = field(default_factory=dict)
    rejections: list[Rejection] = field(default_factory=list)
    ignored: dict[str, int] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)


def regions_to_questions(
    parsed: ParsedFile,
    *,
    question_key: str | None,
    question_map: Mapping[str, str | None],
    questions: Mapping[str, Question],
) -> RegionGroups:
    groups = RegionGroups()
    for region in parsed.regions:
        if region.field is not None and region.field in question_map:
            key = question_map[region.field]
            if key is None:
                groups.ignored[region.field] = groups.ignored.get(region.field, 0) + 1
                continue
        elif region.field is not None and region.field in questions:
            key = region.field
        else:
            key = question_key
        question = questions.get(key) if key is not None else None
        if question is None:
            groups.rejections.append(
                Rejection(
                    region.source,
                    "from_name",
                    ImportErrorCode.UNMAPPED_FIELD,
                    f"No question for the {region.kind} field {region.field!r}: name one "
                    "with question (or question_map)" + _ignore_hint(region.field),
                    region.field,
                )
            )
            continue
        if region.kind and question.kind != region.kind and region.field is None:
            # A format that offers several kinds of one object (COCO's bbox and
            # segmentation): the question takes its own kind, the others are left.
            if not region.is_empty:
                reason = (
                    f"{region.kind}s not imported (question {question.key!r} takes "
                    f"{question.kind}s)"
                )
                groups.skipped[reason] = groups.skipped.get(reason, 0) + 1
            continue
        if question.label_kind.structured is None or (region.kind and question.kind != region.kind):
            groups.rejections.append(
                Rejection(
                    region.source,
                    "type",
                    ImportErrorCode.UNSUPPORTED_TYPE,
                    f"A {region.kind or 'structured value'} cannot go to question "
                    f"{question.key!r}, a {question.kind} question.",
                    region.field,
                )
            )
            continue
        groups.regions.setdefault(question.key, []).append(region)
    return groups


def _ignore_hint(tool_field: str | None) -> str:
    if tool_field is None:
        return "."
    ignore = json.dumps({"question_map": {tool_field: None}}, ensure_ascii=False)[1:-1]
    return f", or leave the field out by mapping it to null: {ignore}."


def match_region_labels(
    regions: Sequence[ParsedRegion], matcher: LabelMatcher
) -> tuple[list[ParsedRegion], list[Rejection], int]:
    """The regions with their labels matched onto the question's codes; rejected ones and
    the count of those dropped by ``category_map``. A relation drawn both ways becomes two
    unless the question declares its label undirected (:func:`both_ways`)."""
    kept: list[ParsedRegion] = []
    rejected: list[Rejection] = []
    dropped = 0
    known = frozenset(matcher.codes)
    for region in regions:
        label = region.cells.get("label")
        if region.is_empty or label is None or label == "":
            kept.append(region)
            continue
        match = matcher.match(label)
        if match.error is not None:
            code, detail = match.error
            rejected.append(Rejection(region.source, "label", code, detail, region.field))
        elif match.dropped:
            dropped += 1
        else:
            matched = replace(region, cells={**region.cells, "label": match.label})
            kept.extend(both_ways(matched, undirected=matcher.undirected, known=known))
    return kept, rejected, dropped


@dataclass
class RegionOutcome:
    """What writing one region question did; ``rejected`` in the file's own terms."""

    regions: int
    created: int = 0
    updated: int = 0
    unchanged: int = 0
    items_created: int = 0
    coders_created: int = 0
    rejected: list[Rejection] = field(default_factory=list)


def _rows(regions: Sequence[ParsedRegion], item_column: str) -> list[Row]:
    return [
        Row({item_column: r.image, "coder": r.coder, **r.cells}, f"rows.{index}")
        for index, r in enumerate(regions)
    ]


def _images(images: Mapping[str, ParsedImage], keys: set[str]) -> list[ImageRow]:
    return [
        ImageRow(key, image.width, image.height, image.url, f"image {key}")
        for key, image in sorted(images.items())
        if key in keys and image.width is not None and image.height is not None
    ]


def write_region_question(
    *,
    round_: Round,
    question: Question,
    regions: Sequence[ParsedRegion],
    images: Mapping[str, ParsedImage],
    create_missing: bool,
    partial: bool,
    actor: Actor,
) -> RegionOutcome:
    """Write one region question's regions (inside the import's transaction). Without
    ``partial`` the first refusal stops; with it, a refused pair is left out whole (its
    other regions would otherwise replace what it has) and the rest written."""
    values = question.label_kind.structured
    assert values is not None
    remaining = list(regions)
    outcome = RegionOutcome(regions=sum(1 for r in remaining if not r.is_empty))
    for _ in range(_MAX_PARTIAL_PASSES):
        if not remaining:
            return outcome
        try:
            result = structured_values_replace(
                round=round_,
                question=question,
                rows=_rows(remaining, values.item_column),
                images=_images(images, {r.image for r in remaining}),
                actor=actor,
                create_missing=create_missing,
            )
        except ValidationError as error:
            if not hasattr(error, "error_dict"):
                raise
            bad_pairs = _rejections(error, remaining, outcome)
            if not partial or not bad_pairs:
                return outcome
            remaining = [r for r in remaining if (r.image, r.coder) not in bad_pairs]
            continue
        outcome.created += result.created
        outcome.updated += result.replaced
        outcome.unchanged += result.unchanged
        outcome.items_created += result.items_created
        outcome.coders_created += result.coders_created
        return outcome
    return outcome


def _rejections(
    error: ValidationError, regions: Sequence[ParsedRegion], outcome: RegionOutcome
) -> set[tuple[str, str]]:
    """The upload's errors as rejections of the file's records; the pairs at fault."""
    bad: set[tuple[str, str]] = set()
    for attr, errors in error.error_dict.items():
        row = _ROW_ATTR.match(attr)
        for single in errors:
            message = str(single.message % single.params if single.params else single.message)
            code = single.code or "invalid"
            if row is None:
                outcome.rejected.append(Rejection("file", attr, code, message))
                continue
            region = regions[int(row.group(1))]
            bad.add((region.image, region.coder))
            outcome.rejected.append(
                Rejection(region.source, row.group(2) or "row", code, message, region.field)
            )
    return bad
