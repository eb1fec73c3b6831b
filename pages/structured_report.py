"""What the pages show of a structured question (regions on images, ...): the round
report's coefficients, per-category table and most disputed items, and one item's values,
each coder's drawn over the item. Stored results only: the kind names its coefficients and
draws its values (``StructuredValues.names``, ``.draw``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from django.utils.safestring import SafeString

from computations.models import Computation
from computations.selectors import Staleness, computation_staleness, study_history
from metrics import Reading
from pages.selectors import (
    CoefficientHistory,
    history_by_coefficient,
    reading_of,
    round_computation,
)
from pages.text_diff import word_diff
from studies.kinds.structured import StructuredValues
from studies.models import Annotation, Category, Item, Question, Round, Study

#: The sizes a report may give, as the page names them.
SUMMARY = (
    ("n_items", "Items"),
    ("n_coders", "Coders"),
    ("n_regions", "Regions"),
    ("n_options", "Options"),
    ("n_texts", "Distinct texts"),
    ("n_relations", "Relations"),
    ("n_units", "Units (distinct spans related)"),
    ("n_annotations", "Annotated items × coders"),
)
#: Colours of the coders' drawings, in coder order (colour-blind safe, Okabe–Ito).
CODER_COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000")


@dataclass(frozen=True)
class CoefficientRow:
    key: str
    name: str
    value: float | None
    observed: float | None
    expected: float | None
    ci: Mapping[str, Any] | None
    #: The value read on its one benchmark scale: none for the region alphas (distance
    #: based) unless the study chose one, none for shares of matched regions.
    reading: Reading | None
    reason: str | None


@dataclass(frozen=True)
class CategoryRow:
    category: str
    values: list[float | None]


@dataclass(frozen=True)
class DisputedRow:
    item: str
    item_id: int | None
    value: float | None
    n_records: int | None


@dataclass
class StructuredRoundReport:
    study: Study
    round: Round
    question: Question
    computation: Computation | None
    #: What changed after the computation (its annotations, the distance table it used).
    staleness: Staleness | None = None
    results: dict[str, Any] = field(default_factory=dict)
    coefficients: list[CoefficientRow] = field(default_factory=list)
    category_columns: list[str] = field(default_factory=list)
    categories: list[CategoryRow] = field(default_factory=list)
    disputed: list[DisputedRow] = field(default_factory=list)
    history: list[CoefficientHistory] = field(default_factory=list)
    #: What a most disputed item's value is, and whether its regions are counted.
    disputed_measure: str = ""
    disputed_counts: bool = False
    #: The data's sizes, as the kind's report gives them: (what, how many).
    summary: list[tuple[str, Any]] = field(default_factory=list)


def _values(question: Question) -> StructuredValues:
    values = question.label_kind.structured
    if values is None:
        raise ValueError(f"Question {question.key!r} is not a structured question.")
    return values


def _number(value: Any) -> float | None:
    return None if value is None else float(value)


def coefficient_rows(
    results: Mapping[str, Any], values: StructuredValues, *, chosen: str | None = None
) -> list[CoefficientRow]:
    """The stored coefficients in the kind's display order, with their bands where they apply."""
    stored = results.get("coefficients") or {}
    skipped = results.get("skipped") or {}
    rows = []
    for key in [*values.names, *(k for k in stored if k not in values.names)]:
        entry = stored.get(key)
        if entry is None:
            continue
        value = _number(entry.get("value"))
        banded = key not in values.not_chance_corrected
        rows.append(
            CoefficientRow(
                key=key,
                name=values.names.get(key, key),
                value=value,
                observed=_number(entry.get("observed")),
                expected=_number(entry.get("expected")),
                ci=entry.get("ci"),
                reading=reading_of(key, entry, distance=key, chosen=chosen) if banded else None,
                reason=entry.get("reason") or (skipped.get(key) if value is None else None),
            )
        )
    return rows


def category_rows(results: Mapping[str, Any]) -> tuple[list[str], list[CategoryRow]]:
    """Per category, each coefficient that has a per-category value (columns in order)."""
    stored = results.get("coefficients") or {}
    columns = [key for key, entry in stored.items() if isinstance(entry.get("categories"), dict)]
    labels: list[str] = []
    for key in columns:
        labels.extend(str(label) for label in stored[key]["categories"] if str(label) not in labels)
    rows = [
        CategoryRow(
            category=label,
            values=[
                _number(_category_value(stored[key]["categories"].get(label))) for key in columns
            ],
        )
        for label in labels
    ]
    return columns, rows


def _category_value(entry: Any) -> Any:
    return entry.get("value") if isinstance(entry, Mapping) else entry


def structured_round_report(
    *, study: Study, round_: Round, question: Question
) -> StructuredRoundReport:
    values = _values(question)
    computation = round_computation(study=study, round_=round_, question=question)
    report = StructuredRoundReport(
        study=study, round=round_, question=question, computation=computation
    )
    history = study_history(study=study, question_id=question.pk)
    # Named as the kind names them (the site's common names know only the category kinds').
    report.history = [
        replace(h, name=values.names[h.coefficient])
        for h in history_by_coefficient(history, chosen=study.benchmark_scale)
        if h.coefficient in values.names
    ]
    if computation is None:
        return report
    results = computation.results or {}
    report.staleness = computation_staleness(computation)
    report.results = results
    report.coefficients = coefficient_rows(results, values, chosen=study.benchmark_scale)
    columns, report.categories = category_rows(results)
    report.category_columns = [values.names.get(key, key) for key in columns]
    report.disputed_measure = values.disputed_measure
    report.disputed_counts = any(row.n_records is not None for row in report.disputed)
    report.summary = [
        (label, results[key]) for key, label in SUMMARY if results.get(key) is not None
    ]
    report.disputed = [
        DisputedRow(
            item=str(entry.get("name", "")),
            item_id=entry.get("item"),
            value=_number(entry.get("value")),
            n_records=entry.get("n_regions"),
        )
        for entry in results.get("most_disputed", [])
    ]
    return report


@dataclass(frozen=True)
class CoderDrawing:
    coder: str
    colour: str
    shapes: list[dict[str, Any]]
    text: str
    annotated_nothing: bool
    #: The text with its differences from the first coder's marked (escaped HTML), when
    #: the kind compares texts; None for the first coder and otherwise.
    marked: SafeString | None = None


@dataclass(frozen=True)
class StructuredItem:
    round: Round
    question: Question
    item: Item
    width: float
    height: float
    drawings: list[CoderDrawing]
    #: Whether the latest computation stored this item's matched units (it does for its
    #: most disputed items): then each shape says its unit, or that it is unmatched.
    matched: bool = False
    #: The coder whose text the others' are compared with (kinds that mark differences).
    baseline: str | None = None


def _stored_units(round_: Round, question: Question, item: Item) -> list[list[Any]] | None:
    """The matched units the latest computation stored for this item, if any."""
    computation = round_computation(study=round_.study, round_=round_, question=question)
    for entry in (computation.results or {}).get("most_disputed", []) if computation else []:
        if entry.get("item") == item.pk and "units" in entry:
            return list(entry["units"])
    return None


def _mark(drawings: list[CoderDrawing], units: list[list[Any]]) -> list[CoderDrawing]:
    """Each shape with its unit's number (from 1) when matched with another coder's, or as
    unmatched."""
    unit_of: dict[tuple[str, int], int] = {}
    for number, members in enumerate(units, start=1):
        if len(members) > 1:
            for coder, place in members:
                unit_of[(str(coder), int(place))] = number
    return [
        CoderDrawing(
            coder=d.coder,
            colour=d.colour,
            shapes=[
                {**shape, "unit": unit_of.get((d.coder, k)), "matched": (d.coder, k) in unit_of}
                for k, shape in enumerate(d.shapes)
            ],
            text=d.text,
            annotated_nothing=d.annotated_nothing,
        )
        for d in drawings
    ]


def structured_item(*, round_: Round, question: Question, item: Item) -> StructuredItem:
    """One item's values in a round, each coder's drawn in its own colour over the item
    (its declared size, else the extent of everything drawn)."""
    values = _values(question)
    code_by_id = dict(Category.objects.filter(question=question).values_list("id", "code"))
    annotations = (
        Annotation.objects.filter(round=round_, question=question, item=item)
        .order_by("coder__key")
        .values_list("coder__key", "units")
    )
    drawings = []
    for index, (coder, value) in enumerate(annotations):
        value = value or []
        drawings.append(
            CoderDrawing(
                coder=coder,
                colour=CODER_COLOURS[index % len(CODER_COLOURS)],
                shapes=values.draw(value, code_by_id),
                text=values.text(value, code_by_id),
                annotated_nothing=not value,
            )
        )
    units = _stored_units(round_, question, item)
    if units is not None:
        drawings = _mark(drawings, units)
    baseline = None
    if values.marks_differences and len(drawings) > 1:
        baseline = drawings[0].coder
        drawings = [
            drawings[0],
            *(replace(d, marked=word_diff(drawings[0].text, d.text)) for d in drawings[1:]),
        ]
    width, height = item.image_width, item.image_height
    if width is None or height is None:
        extent = [point for d in drawings for shape in d.shapes for point in shape["extent"]]
        width = max((x for x, _ in extent), default=100.0)
        height = max((y for _, y in extent), default=100.0)
    return StructuredItem(
        round_,
        question,
        item,
        float(width),
        float(height),
        drawings,
        matched=units is not None,
        baseline=baseline,
    )
