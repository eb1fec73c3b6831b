"""Stale marks: what changed in the labels after an adjudication, a review-queue entry, a
reference result or a sample-size plan was made from them.

Each of those was made from the labels of a round and question at one moment (the decision,
the computation that built the queue, the reference result's run, the plan's run). Every
write of a label through the services is logged (``studies.models.AnnotationChange``: who,
when, the old and the new value), so a page finds what changed since with **one query** on
the study's log, newest first along its (study, changed_at) index, bounded by
``CHANGES_READ`` rows: a page never scans a crowd round's log. A change made directly in the
database, not through the services, is not logged and not seen here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime

from studies.models import AnnotationChange, Question, Study

#: The most log rows a page reads (newest first); beyond, counts are "at least".
CHANGES_READ = 2000
#: The most changes a mark lists one by one.
CHANGES_LISTED = 5


@dataclass(frozen=True)
class Change:
    """One logged change of one coder's label of one item."""

    round_id: int
    item_id: int
    item: str
    coder: str
    action: str
    old: str | None
    new: str | None
    at: datetime

    @property
    def text(self) -> str:
        """ "alice on post-003: positive → negative", "bob added neutral on post-003"."""
        if self.action == AnnotationChange.Action.CREATED:
            return f"{self.coder} labelled {self.item} {self.new}"
        if self.action == AnnotationChange.Action.DELETED:
            return f"{self.coder} removed their label {self.old} of {self.item}"
        return f"{self.coder} relabelled {self.item}: {self.old} → {self.new}"


@dataclass(frozen=True)
class StaleMark:
    """What changed after something was made: the changes (newest first), how many, and
    whether the count is complete (False: at least ``count``)."""

    changes: list[Change]
    complete: bool = True

    @property
    def count(self) -> int:
        return len(self.changes)

    @property
    def listed(self) -> list[Change]:
        return self.changes[:CHANGES_LISTED]

    @property
    def more(self) -> int:
        return max(self.count - CHANGES_LISTED, 0)

    @property
    def last(self) -> datetime:
        return self.changes[0].at

    @property
    def summary(self) -> str:
        """ "3 labels changed (alice 2, bob 1)"."""
        by_coder = Counter(change.coder for change in self.changes)
        coders = ", ".join(f"{coder} {n}" for coder, n in sorted(by_coder.items()))
        count = f"{self.count}" if self.complete else f"at least {self.count}"
        noun = "label" if self.count == 1 else "labels"
        return f"{count} {noun} changed ({coders})"


@dataclass(frozen=True)
class ChangeLog:
    """The logged changes of a question in some rounds after a moment, newest first."""

    changes: list[Change]
    #: False when ``CHANGES_READ`` rows were read: older changes may be missing.
    complete: bool

    def since(
        self,
        moment: datetime | None,
        *,
        round_id: int | None = None,
        item_id: int | None = None,
    ) -> StaleMark | None:
        """The changes after ``moment`` (of one round, one item), or None when there are
        none (or no moment to compare with)."""
        if moment is None:
            return None
        found = [
            change
            for change in self.changes
            if change.at > moment
            and (round_id is None or change.round_id == round_id)
            and (item_id is None or change.item_id == item_id)
        ]
        if not found:
            return None
        # Incomplete only if the read stopped before reaching back to ``moment``.
        complete = self.complete or (bool(self.changes) and self.changes[-1].at <= moment)
        return StaleMark(found, complete=complete)


def change_log(
    *,
    study: Study,
    question: Question,
    round_ids: Iterable[int],
    after: datetime | None,
    item_ids: Sequence[int] | None = None,
) -> ChangeLog:
    """The logged label changes of ``question`` in ``round_ids`` (and ``item_ids``) after
    ``after``, newest first: one query, at most ``CHANGES_READ`` rows."""
    rounds = sorted(set(round_ids))
    if after is None or not rounds:
        return ChangeLog([], True)
    queryset = AnnotationChange.objects.filter(
        study=study, changed_at__gt=after, question=question, round_id__in=rounds
    )
    if item_ids is not None:
        queryset = queryset.filter(item_id__in=list(item_ids))
    rows = list(
        queryset.order_by("-changed_at", "-id").values_list(
            "round_id",
            "item_id",
            "item__external_id",
            "coder__key",
            "action",
            "old_value",
            "new_value",
            "changed_at",
        )[:CHANGES_READ]
    )
    return ChangeLog([Change(*row) for row in rows], complete=len(rows) < CHANGES_READ)
