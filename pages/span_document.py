"""Reads for the document view of a span question: one item's units, coder by coder, and where
the coders disagree.

Everything comes from the stored annotations of one (round, question, item): no measure is
computed. The disagreement marks are a comparison of the few units of one document, made
here because they are a reading aid, not a number of the report:

- a unit is **unmatched** when no other coder who annotated the document has a unit
  overlapping it, and **missed by** the coders among them who have none;
- a unit has a **category** difference when another coder's overlapping units all carry
  other categories, and a **boundary** difference when another coder has an overlapping unit
  of its category but none with its begin and end;
- a **disputed stretch** is a run of the continuum where the coders' categories differ
  (some coder has a category there that another has not); a **split** is an offset where
  some coders begin or end a unit and others do not, with the coverage the same on both
  sides (one long unit against two adjacent ones).

A coder with no annotation row for the item did not annotate it and is compared with no one;
a coder whose row holds no units annotated it and found nothing.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, Min

from studies.models import Annotation, Category, Item, Question, Round, SpanUnit

#: Number of category colours (``cat-0`` .. ``cat-6`` in pages.css; the charts' palette).
N_COLOURS = 7
UNIT_NAMES: dict[str, str] = {
    SpanUnit.CHARACTER: "characters",
    SpanUnit.TOKEN: "tokens",
    SpanUnit.SECOND: "seconds",
}
ITEMS_PER_PAGE = 100


def _flag_classes(flags: Sequence[str]) -> str:
    return " ".join(f"flag-{flag}" for flag in flags)


@dataclass(frozen=True)
class CategoryKey:
    """A category of the question as the page draws it."""

    id: int
    code: str
    label: str
    colour: int


@dataclass(frozen=True)
class UnitView:
    """One coder's unit with what the other coders did there."""

    begin: float
    end: float
    category: CategoryKey
    #: Other annotating coders with no unit overlapping this one.
    missed_by: tuple[str, ...] = ()
    #: Other coders whose overlapping units all carry another category.
    category_differs: tuple[str, ...] = ()
    #: Other coders with an overlapping unit of this category, none with these boundaries.
    boundary_differs: tuple[str, ...] = ()
    #: How many other coders annotated the document (0: no one to compare with).
    n_others: int = 0

    @property
    def compared(self) -> bool:
        return self.n_others > 0

    @property
    def unmatched(self) -> bool:
        return self.compared and len(self.missed_by) == self.n_others

    @property
    def agreed(self) -> bool:
        return self.compared and not (
            self.missed_by or self.category_differs or self.boundary_differs
        )

    @property
    def flags(self) -> tuple[str, ...]:
        """CSS-friendly names of the unit's disagreements, in a fixed order."""
        out = []
        if self.unmatched:
            out.append("unmatched")
        elif self.missed_by:
            out.append("missed")
        if self.category_differs:
            out.append("category")
        if self.boundary_differs:
            out.append("boundary")
        return tuple(out)

    @property
    def flag_classes(self) -> str:
        return _flag_classes(self.flags)

    @property
    def note(self) -> str:
        """The disagreement in words ("" when the others agree or there is no one to ask)."""
        if not self.compared:
            return "no other coder annotated this document"
        parts = []
        if self.unmatched:
            parts.append("no other coder marked this stretch")
        elif self.missed_by:
            parts.append(f"not marked by {', '.join(self.missed_by)}")
        if self.category_differs:
            parts.append(f"another category by {', '.join(self.category_differs)}")
        if self.boundary_differs:
            parts.append(f"other boundaries by {', '.join(self.boundary_differs)}")
        return "; ".join(parts)


@dataclass(frozen=True)
class TextPiece:
    """A run of the item's text with the categories one coder gave it (none: unmarked)."""

    text: str
    begin: int
    end: int
    categories: tuple[CategoryKey, ...] = ()
    flags: tuple[str, ...] = ()

    @property
    def flag_classes(self) -> str:
        return _flag_classes(self.flags)

    @property
    def codes(self) -> str:
        return "+".join(c.code for c in self.categories)


@dataclass
class CoderLane:
    coder_id: int
    coder: str
    #: False: no annotation row for this item (not annotated, compared with no one).
    annotated: bool
    units: list[UnitView] = field(default_factory=list)
    #: The item's text cut at this coder's unit boundaries (character questions with text).
    pieces: list[TextPiece] = field(default_factory=list)


@dataclass(frozen=True)
class Stretch:
    """A run of the continuum where the annotating coders' categories differ."""

    begin: float
    end: float
    #: Per coder key, the categories there ("" for none), in lane order.
    categories: tuple[tuple[str, str], ...]


@dataclass
class SpanDocument:
    round: Round
    question: Question
    item: Item
    unit: str
    unit_name: str
    extent: tuple[float, float]
    categories: list[CategoryKey]
    lanes: list[CoderLane]
    stretches: list[Stretch]
    splits: list[float]
    #: The text when offsets index it (character questions whose item has text), else None.
    text: str | None
    #: The text cut at the disputed stretches' edges, disputed pieces flagged.
    disputed_pieces: list[TextPiece]
    previous_item: int | None
    next_item: int | None

    @property
    def annotating(self) -> list[CoderLane]:
        return [lane for lane in self.lanes if lane.annotated]

    @property
    def n_units(self) -> int:
        return sum(len(lane.units) for lane in self.lanes)


def _categories(question: Question) -> dict[int, CategoryKey]:
    rows = Category.objects.filter(question=question).order_by("position", "id")
    return {
        c.pk: CategoryKey(c.pk, c.code, c.label or c.code, n % N_COLOURS)
        for n, c in enumerate(rows)
    }


def _unknown_category(pk: int) -> CategoryKey:
    return CategoryKey(pk, f"#{pk}", f"#{pk}", N_COLOURS - 1)


def _overlaps(a: tuple[float, float, int], b: tuple[float, float, int]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def _compare_unit(
    unit: tuple[float, float, int],
    others: Sequence[tuple[str, Sequence[tuple[float, float, int]]]],
    category: CategoryKey,
) -> UnitView:
    missed, category_differs, boundary_differs = [], [], []
    for key, their_units in others:
        touching = [u for u in their_units if _overlaps(unit, u)]
        if not touching:
            missed.append(key)
        elif unit in touching:
            continue
        elif any(u[2] == unit[2] for u in touching):
            boundary_differs.append(key)
        else:
            category_differs.append(key)
    return UnitView(
        begin=unit[0],
        end=unit[1],
        category=category,
        missed_by=tuple(missed),
        category_differs=tuple(category_differs),
        boundary_differs=tuple(boundary_differs),
        n_others=len(others),
    )


def _coverage(units: Sequence[tuple[float, float, int]], begin: float, end: float) -> frozenset:
    return frozenset(u[2] for u in units if u[0] < end and begin < u[1])


def _stretches(
    lanes: Sequence[tuple[str, Sequence[tuple[float, float, int]]]],
    names: dict[int, CategoryKey],
) -> tuple[list[Stretch], list[float]]:
    """Runs where the annotating coders' categories differ, and the splits (see module)."""
    if len(lanes) < 2:
        return [], []
    edges = sorted({x for _, units in lanes for u in units for x in u[:2]})
    stretches: list[Stretch] = []
    runs: list[tuple[float, float, tuple[frozenset, ...]]] = []
    for begin, end in itertools.pairwise(edges):
        cover = tuple(_coverage(units, begin, end) for _, units in lanes)
        if len(set(cover)) > 1:
            if runs and runs[-1][1] == begin and runs[-1][2] == cover:
                runs[-1] = (runs[-1][0], end, cover)
            else:
                runs.append((begin, end, cover))
    for begin, end, cover in runs:
        text = tuple(
            (
                key,
                ", ".join(sorted(names.get(c, _unknown_category(c)).code for c in categories)),
            )
            for (key, _), categories in zip(lanes, cover, strict=True)
        )
        stretches.append(Stretch(begin, end, text))
    disputed = [(s.begin, s.end) for s in stretches]
    bounds = [{x for u in units for x in u[:2]} for _, units in lanes]
    shared = set.intersection(*bounds)
    splits = sorted(
        x for x in set.union(*bounds) - shared if not any(b <= x <= e for b, e in disputed)
    )
    return stretches, splits


def _pieces(text: str, units: Sequence[UnitView], cuts: Sequence[float] = ()) -> list[TextPiece]:
    """``text`` cut at the units' edges (and ``cuts``), each piece with its covering units."""
    size = len(text)
    edges = {0, size}
    for unit in units:
        edges.update((min(max(int(unit.begin), 0), size), min(max(int(unit.end), 0), size)))
    edges.update(min(max(int(x), 0), size) for x in cuts)
    ordered = sorted(edges)
    pieces = []
    for begin, end in itertools.pairwise(ordered):
        if begin == end:
            continue
        covering = [u for u in units if u.begin < end and begin < u.end]
        flags = sorted({flag for u in covering for flag in u.flags})
        categories = tuple(dict.fromkeys(u.category for u in covering))
        pieces.append(TextPiece(text[begin:end], begin, end, categories, tuple(flags)))
    return pieces


def _disputed_pieces(text: str, stretches: Sequence[Stretch]) -> list[TextPiece]:
    size = len(text)
    edges = {0, size}
    for s in stretches:
        edges.update((min(max(int(s.begin), 0), size), min(max(int(s.end), 0), size)))
    ordered = sorted(edges)
    out = []
    for begin, end in itertools.pairwise(ordered):
        if begin == end:
            continue
        disputed = any(s.begin < end and begin < s.end for s in stretches)
        out.append(TextPiece(text[begin:end], begin, end, (), ("disputed",) if disputed else ()))
    return out


def _neighbours(round_: Round, question: Question, item: Item) -> tuple[int | None, int | None]:
    """The items annotated for the question in the round just before and after this one."""
    labelled = Annotation.objects.filter(round=round_, question=question)
    before = labelled.filter(item_id__lt=item.pk).aggregate(pk=Max("item_id"))["pk"]
    after = labelled.filter(item_id__gt=item.pk).aggregate(pk=Min("item_id"))["pk"]
    return before, after


def _round_coders(round_: Round, question: Question) -> list[tuple[int, str]]:
    """Every coder with an annotation of the question in the round, by key."""
    return list(
        Annotation.objects.filter(round=round_, question=question)
        .values_list("coder_id", "coder__key")
        .distinct()
        .order_by("coder__key")
    )


def _extent(item: Item, lanes: Sequence[CoderLane]) -> tuple[float, float]:
    begin = item.extent_begin if item.extent_begin is not None else 0.0
    if item.extent_end is not None:
        end = item.extent_end
    elif item.text:
        end = float(len(item.text))
    else:
        end = max((u.end for lane in lanes for u in lane.units), default=begin + 1.0)
    return float(begin), float(max(end, begin + 1e-9))


def span_document(*, round_: Round, question: Question, item: Item) -> SpanDocument:
    """The document view of one item of a span question in a round, from stored annotations."""
    categories = _categories(question)
    stored = dict(
        Annotation.objects.filter(round=round_, question=question, item=item).values_list(
            "coder_id", "units"
        )
    )
    coder_rows = _round_coders(round_, question)
    raw: dict[int, list[tuple[float, float, int]]] = {
        coder_id: sorted((float(b), float(e), int(c)) for b, e, c in (units or []))
        for coder_id, units in stored.items()
    }
    annotating = [(key, raw[pk]) for pk, key in coder_rows if pk in raw]
    lanes = []
    for pk, key in coder_rows:
        if pk not in raw:
            lanes.append(CoderLane(pk, key, annotated=False))
            continue
        others = [(k, units) for k, units in annotating if k != key]
        units = [
            _compare_unit(u, others, categories.get(u[2]) or _unknown_category(u[2]))
            for u in raw[pk]
        ]
        lanes.append(CoderLane(pk, key, annotated=True, units=units))
    stretches, splits = _stretches(annotating, categories)
    unit = question.span_unit or SpanUnit.CHARACTER
    text = item.text if unit == SpanUnit.CHARACTER and item.text else None
    if text is not None:
        for lane in lanes:
            if lane.annotated:
                lane.pieces = _pieces(text, lane.units)
    previous_item, next_item = _neighbours(round_, question, item)
    return SpanDocument(
        round=round_,
        question=question,
        item=item,
        unit=unit,
        unit_name=UNIT_NAMES.get(unit, unit),
        extent=_extent(item, lanes),
        categories=list(categories.values()),
        lanes=lanes,
        stretches=stretches,
        splits=splits,
        text=text,
        disputed_pieces=_disputed_pieces(text, stretches) if text is not None else [],
        previous_item=previous_item,
        next_item=next_item,
    )


@dataclass(frozen=True)
class ItemRow:
    item_id: int
    external_id: str
    n_coders: int


def span_items_page(*, round_: Round, question: Question, page: int | str | None) -> Page:
    """The items annotated for a span question in a round, by external id, a page at a time."""
    rows = (
        Annotation.objects.filter(round=round_, question=question)
        .values("item_id", "item__external_id")
        .annotate(n_coders=Count("coder_id"))
        .order_by("item__external_id", "item_id")
    )
    paginator = Paginator(rows, ITEMS_PER_PAGE)
    found = paginator.get_page(page)
    items: list[Any] = [
        ItemRow(r["item_id"], r["item__external_id"], r["n_coders"]) for r in found.object_list
    ]
    found.object_list = items
    return found
