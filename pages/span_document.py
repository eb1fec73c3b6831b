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

import numpy as np
from django.core.paginator import Page, Paginator
from django.db.models import Count, Max, Min

from pages import span_marks
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


#: The disagreement flags of a unit, in the order the page writes them.
FLAG_NAMES = ("unmatched", "missed", "category", "boundary")


@dataclass(frozen=True)
class _Scheme:
    """The categories met on the page, indexed for ``pages.span_marks``."""

    keys: list[CategoryKey]
    index: dict[int, int]

    @classmethod
    def of(cls, declared: dict[int, CategoryKey], stored: Sequence[int]) -> _Scheme:
        keys = list(declared.values())
        for pk in dict.fromkeys(stored):
            if pk not in declared:
                keys.append(_unknown_category(pk))
        return cls(keys, {key.id: n for n, key in enumerate(keys)})

    def units(self, rows: Sequence[tuple[float, float, int]]) -> span_marks.Units:
        return span_marks.Units.of([(b, e, self.index[c]) for b, e, c in rows])


def _unit_views(
    own: span_marks.Units, others: Sequence[tuple[str, span_marks.Units]], scheme: _Scheme
) -> list[UnitView]:
    """Each of a coder's units with who among ``others`` missed it or marked it otherwise."""
    marks = [(key, span_marks.compare(own, units)) for key, units in others]
    views = []
    for n in range(len(own)):
        views.append(
            UnitView(
                begin=float(own.begin[n]),
                end=float(own.end[n]),
                category=scheme.keys[int(own.category[n])],
                missed_by=tuple(key for key, m in marks if m.missed[n]),
                category_differs=tuple(key for key, m in marks if m.category[n]),
                boundary_differs=tuple(key for key, m in marks if m.boundary[n]),
                n_others=len(others),
            )
        )
    return views


def _stretches(
    lanes: Sequence[tuple[str, span_marks.Units]], scheme: _Scheme
) -> tuple[list[Stretch], list[float]]:
    """Runs where the annotating coders' categories differ, and the splits (see module)."""
    found = span_marks.disputes([units for _, units in lanes], len(scheme.keys))
    stretches = [
        Stretch(
            float(begin),
            float(end),
            tuple(
                (key, ", ".join(sorted(scheme.keys[k].code for k in np.flatnonzero(cover))))
                for (key, _), cover in zip(lanes, found.cover[run], strict=True)
            ),
        )
        for run, (begin, end) in enumerate(found.runs)
    ]
    return stretches, [float(x) for x in found.splits]


def _pieces(text: str, units: Sequence[UnitView], scheme: _Scheme) -> list[TextPiece]:
    """``text`` cut at the units' edges, each piece with its covering categories and flags."""
    own = scheme.units([(u.begin, u.end, u.category.id) for u in units])
    flags = np.array([[name in u.flags for name in FLAG_NAMES] for u in units], dtype=bool).reshape(
        -1, len(FLAG_NAMES)
    )
    edges, categories, flagged = span_marks.cut(own, flags, len(text), len(scheme.keys))
    return [
        TextPiece(
            text[begin:end],
            int(begin),
            int(end),
            tuple(scheme.keys[k] for k in np.flatnonzero(categories[:, n])),
            tuple(FLAG_NAMES[f] for f in np.flatnonzero(flagged[:, n])),
        )
        for n, (begin, end) in enumerate(itertools.pairwise(edges.tolist()))
    ]


def _disputed_pieces(text: str, stretches: Sequence[Stretch]) -> list[TextPiece]:
    """``text`` cut at the disputed stretches' edges, the disputed pieces flagged."""
    runs = np.array([(s.begin, s.end) for s in stretches], dtype=np.float64).reshape(-1, 2)
    size = len(text)
    edges = np.unique(np.concatenate([[0, size], np.clip(runs.ravel(), 0, size)]).astype(int))
    begins = edges[:-1].astype(np.float64)
    index = np.searchsorted(runs[:, 0], begins, side="right") - 1
    disputed = (
        (index >= 0) & (begins < runs[np.maximum(index, 0), 1])
        if len(runs)
        else (np.zeros(len(begins), dtype=bool))
    )
    return [
        TextPiece(text[begin:end], begin, end, (), ("disputed",) if flag else ())
        for (begin, end), flag in zip(itertools.pairwise(edges.tolist()), disputed, strict=True)
    ]


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
    scheme = _Scheme.of(categories, [c for rows in raw.values() for _, _, c in rows])
    arrays = {pk: scheme.units(rows) for pk, rows in raw.items()}
    annotating = [(key, arrays[pk]) for pk, key in coder_rows if pk in arrays]
    lanes = []
    for pk, key in coder_rows:
        if pk not in arrays:
            lanes.append(CoderLane(pk, key, annotated=False))
            continue
        others = [(k, units) for k, units in annotating if k != key]
        units = _unit_views(arrays[pk], others, scheme)
        lanes.append(CoderLane(pk, key, annotated=True, units=units))
    stretches, splits = _stretches(annotating, scheme)
    unit = question.span_unit or SpanUnit.CHARACTER
    text = item.text if unit == SpanUnit.CHARACTER and item.text else None
    if text is not None:
        for lane in lanes:
            if lane.annotated:
                lane.pieces = _pieces(text, lane.units, scheme)
    previous_item, next_item = _neighbours(round_, question, item)
    return SpanDocument(
        round=round_,
        question=question,
        item=item,
        unit=unit,
        unit_name=UNIT_NAMES.get(unit, unit),
        extent=_extent(item, lanes),
        categories=scheme.keys,
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
