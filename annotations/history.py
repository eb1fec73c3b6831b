"""The change log's batch entries: written for a crowd import, expanded on every read.

A streamed CSV import (``annotations.ingest``) that creates at least
``AGREEMENT_INGEST_BATCH_LOG_MIN`` annotations logs their creation as one ``AnnotationChange``
row, a *batch entry* (``batch_size`` set, no item or coder), instead of one row each: each
annotation it created carries the entry's id in ``Annotation.created_in`` and lies between
the entry's ``first_annotation_id`` and ``last_annotation_id``; the entry keeps the question's
categories as they were (``categories``), so the values read as the labeling tool's text of
that time, as a per-row entry's do.

Reads expand a batch entry into the per-annotation "created" entries it stands for
(``ChangeHistory``: who, when, no old value, the new value as text), so the study's history,
the history of one annotation and the API's listing (filters, ``since``, pages) read as
they did when every annotation had its own row. An expanded entry carries its batch
entry's id.

The history stays complete when an annotation a batch created changes: the first change
logged for it (an update by any upload, or a deletion) first writes its creation as an
entry of its own, with the batch's time and author and the value it created
(``creation_entries``), and clears ``created_in``; the expansion reads only the annotations
that still carry it. Deleting a round, question, item or coder deletes their annotations and
log entries as before (the batch entry goes with its round or question).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, overload

from django.conf import settings
from django.db.models import Q, QuerySet

from studies.labels import CategoryRow, Label, LabelScheme, label_of
from studies.models import Annotation, AnnotationChange, Category, Coder, Item, Question

#: The default of ``AGREEMENT_INGEST_BATCH_LOG_MIN``.
BATCH_LOG_MIN = 10_000


def batch_log_min() -> int:
    """The fewest annotations an import creates for its log to be one batch entry."""
    return max(int(getattr(settings, "AGREEMENT_INGEST_BATCH_LOG_MIN", BATCH_LOG_MIN)), 1)


def category_snapshot(question: Question) -> list[list[Any]]:
    """The question's categories as a batch entry keeps them: ``[id, code, parent, position]``."""
    return [
        [pk, code, parent_id, position]
        for pk, code, parent_id, position in Category.objects.filter(question=question)
        .order_by("position", "id")
        .values_list("id", "code", "parent_id", "position")
    ]


def batch_scheme(entry: AnnotationChange, question: Question) -> LabelScheme:
    """The label scheme a batch entry's values are written in (its kept categories)."""
    return LabelScheme(
        kind=question.kind,
        categories=[CategoryRow(*row) for row in entry.categories or ()],
        min_value=question.min_value,
        max_value=question.max_value,
        span_unit=question.span_unit,
    )


@dataclass(frozen=True)
class Creation:
    """An annotation a batch created, about to change: its creation gets its own entry."""

    item_id: int
    coder_id: int
    batch_id: int
    label: Label  # the label the batch created (still the stored one)


def creation_entries(creations: Sequence[Creation], question: Question) -> list[AnnotationChange]:
    """The per-annotation "created" entries of ``creations``, as their batch entries would
    read them (time, author, text); write them before the change that follows."""
    if not creations:
        return []
    batches = {
        entry.pk: entry
        for entry in AnnotationChange.objects.filter(
            pk__in={c.batch_id for c in creations}, batch_size__isnull=False
        )
    }
    schemes = {pk: batch_scheme(entry, question) for pk, entry in batches.items()}
    entries = []
    for creation in creations:
        entry = batches.get(creation.batch_id)
        if entry is None:  # its round or question was deleted and made again: nothing to keep
            continue
        entries.append(
            AnnotationChange(
                study_id=entry.study_id,
                round_id=entry.round_id,
                question_id=entry.question_id,
                item_id=creation.item_id,
                coder_id=creation.coder_id,
                action=AnnotationChange.Action.CREATED,
                old_value=None,
                new_value=schemes[creation.batch_id].text(creation.label),
                changed_at=entry.changed_at,
                changed_by_id=entry.changed_by_id,
                token_id=entry.token_id,
            )
        )
    return entries


def write_creation_entries(creations: Sequence[Creation], question: Question) -> int:
    entries = creation_entries(creations, question)
    AnnotationChange.objects.bulk_create(entries, batch_size=2_000)
    return len(entries)


# Reading -------------------------------------------------------------------------------


def batch_annotations(
    entry: AnnotationChange, *, item: str | None = None, coder: str | None = None
) -> QuerySet[Annotation]:
    """The annotations a batch entry stands for, newest first, read along the primary key
    between its first and last annotation ids (``created_in`` names the entry: no filter on
    the round and question, whose index a planner with stale statistics, right after an
    import, would walk whole and sort)."""
    annotations = Annotation.objects.filter(
        id__gte=entry.first_annotation_id or 0,
        id__lte=entry.last_annotation_id or 0,
        created_in=entry.pk,
    )
    # Keys to ids within the study first (their unique indexes), so that an item is found
    # through the annotations' item index, not by a join over the study's million items.
    if item:
        items = Item.objects.filter(study_id=entry.study_id, external_id=item)
        annotations = annotations.filter(item_id__in=items.values("id"))
    if coder:
        coders = Coder.objects.filter(study_id=entry.study_id, key=coder)
        annotations = annotations.filter(coder_id__in=coders.values("id"))
    return annotations.order_by("-id")


def expanded_entries(
    entry: AnnotationChange, annotations: Iterable[Annotation]
) -> list[AnnotationChange]:
    """The per-annotation entries of a batch entry for these of its annotations (read with
    their item and coder)."""
    scheme = batch_scheme(entry, entry.question)
    return [
        AnnotationChange(
            id=entry.pk,
            study_id=entry.study_id,
            round=entry.round,
            question=entry.question,
            item=annotation.item,
            coder=annotation.coder,
            action=AnnotationChange.Action.CREATED,
            old_value=None,
            new_value=scheme.text(
                label_of(annotation.category_id, annotation.number, annotation.category_set)
            ),
            changed_at=entry.changed_at,
            changed_by=entry.changed_by,
            token=entry.token,
        )
        for annotation in annotations
    ]


def batch_page(
    entry: AnnotationChange, start: int, stop: int, item: str | None, coder: str | None
) -> list[AnnotationChange]:
    """Entries ``start`` to ``stop`` of a batch entry's expansion: the page's ids first
    (along the primary key), then those annotations with their item and coder."""
    ids = list(
        batch_annotations(entry, item=item, coder=coder).values_list("id", flat=True)[start:stop]
    )
    annotations = Annotation.objects.filter(id__in=ids).select_related("item", "coder")
    return expanded_entries(entry, annotations.order_by("-id"))


class ChangeHistory(Sequence[AnnotationChange]):
    """Change-log entries, newest first (``-changed_at, -id``), each batch entry expanded
    in place into the entries it stands for (its annotations, newest first).

    Countable and sliceable, as Django's ``Paginator`` (and so the API's pages) reads it:
    a page costs a count per batch entry above it and reads only the rows and annotations it
    shows. ``entries`` is the log filtered by study, round, question, action and time; the
    item and coder filters (keys) apply to the per-row entries and to each batch's
    annotations."""

    ordered = True  # for Paginator

    def __init__(
        self,
        entries: QuerySet[AnnotationChange],
        *,
        item: str | None = None,
        coder: str | None = None,
    ) -> None:
        entries = entries.order_by("-changed_at", "-id")
        rows = entries.filter(batch_size__isnull=True)
        if item:
            rows = rows.filter(item__external_id=item)
        if coder:
            rows = rows.filter(coder__key=coder)
        self.rows = rows
        self.batches = entries.filter(batch_size__isnull=False).select_related(
            "round", "question", "changed_by", "token"
        )
        self.item, self.coder = item, coder
        self._batch_list: list[AnnotationChange] | None = None
        self._before: dict[int, int] = {}
        self._size: dict[int, int] = {}
        self._count: int | None = None

    def _batches(self) -> list[AnnotationChange]:
        if self._batch_list is None:
            self._batch_list = list(self.batches)
        return self._batch_list

    def _rows_before(self, entry: AnnotationChange) -> int:
        found = self._before.get(entry.pk)
        if found is None:
            found = self._before[entry.pk] = self.rows.filter(
                Q(changed_at__gt=entry.changed_at) | Q(changed_at=entry.changed_at, id__gt=entry.pk)
            ).count()
        return found

    def _batch_size(self, entry: AnnotationChange) -> int:
        found = self._size.get(entry.pk)
        if found is None:
            found = self._size[entry.pk] = batch_annotations(
                entry, item=self.item, coder=self.coder
            ).count()
        return found

    def count(self) -> int:  # type: ignore[override]  # Paginator's count(), not Sequence's
        if self._count is None:
            self._count = self.rows.count() + sum(self._batch_size(b) for b in self._batches())
        return self._count

    def __len__(self) -> int:
        return self.count()

    def __iter__(self) -> Iterator[AnnotationChange]:
        return iter(self[0 : self.count()])

    @overload
    def __getitem__(self, key: int) -> AnnotationChange: ...

    @overload
    def __getitem__(self, key: slice) -> list[AnnotationChange]: ...

    def __getitem__(self, key: int | slice) -> AnnotationChange | list[AnnotationChange]:
        if isinstance(key, int):
            found = self[key : key + 1] if key >= 0 else []
            if not found:
                raise IndexError(key)
            return found[0]
        if key.step not in (None, 1):
            raise TypeError("ChangeHistory takes slices without a step")
        start = max(key.start or 0, 0)
        stop = self.count() if key.stop is None else key.stop
        if stop <= start:
            return []
        batches = self._batches()
        if not batches:
            return list(self.rows[start:stop])
        out: list[AnnotationChange] = []
        position = 0  # where the next segment starts in the expanded order
        rows_done = 0  # per-row entries placed so far
        for entry in batches:
            if position >= stop:
                break
            before = self._rows_before(entry)
            length = before - rows_done
            low, high = max(start, position), min(stop, position + length)
            if low < high:
                offset = rows_done - position
                out.extend(self.rows[low + offset : high + offset])
            position, rows_done = position + length, before
            size = self._batch_size(entry)
            low, high = max(start, position), min(stop, position + size)
            if low < high:
                out.extend(
                    batch_page(entry, low - position, high - position, self.item, self.coder)
                )
            position += size
        if position < stop:
            low = max(start, position)
            offset = rows_done - position
            out.extend(self.rows[low + offset : stop + offset])
        return out
