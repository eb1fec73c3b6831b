"""Review rules and the review queue: writes.

The queue of a round and question is rebuilt from the round's labels when a computation of
that round finishes (``review_queue_on_computation_finished``, called on the worker by the
``computation_finished`` receiver). Items flagged for the first time, or flagged again after
a person resolved them with other labels, enter the queue and are announced with
``review_items_added``; open entries whose item no longer matches leave it as
``reannotated``.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from agreement_server.bulk import batched, bulk_update_rows, write_batch_size
from computations.models import Computation, ComputationScope, ComputationStatus
from computations.scope import coder_keys, scope_annotations
from review.models import ReviewEntry, ReviewResolution, ReviewRule
from review.rule import flag_items
from review.selectors import review_items_added_data
from review.signals import review_items_added
from studies.kinds import Feature, Kind, KindRefusalError, ValueForm
from studies.models import Question, Round

logger = logging.getLogger(__name__)

_RULE_FIELDS = frozenset({"disagreement", "min_coders", "max_item_agreement"})


# -- rules ---------------------------------------------------------------------------------------


@transaction.atomic
def review_rule_set(*, question: Question, **fields: Any) -> ReviewRule:
    """Create or change the question's rule (only the fields given change)."""
    unknown = set(fields) - _RULE_FIELDS
    if unknown:
        raise ValidationError(f"Unknown rule fields: {', '.join(sorted(unknown))}.")
    try:
        question.label_kind.require(Feature.REVIEW)
    except KindRefusalError as refusal:
        raise ValidationError({"question": refusal.message}) from None
    # The rule's row only: its model ordering joins the question and the study.
    rule = ReviewRule.objects.select_for_update(of=("self",)).filter(question=question).first()
    if rule is None:
        rule = ReviewRule(question=question)
    for name, value in fields.items():
        setattr(rule, name, value)
    if rule.min_coders is not None and rule.min_coders < 1:
        raise ValidationError({"min_coders": "At least 1 (or null for no minimum)."})
    if rule.max_item_agreement is not None and not 0 <= rule.max_item_agreement <= 1:
        raise ValidationError(
            {"max_item_agreement": "A share of agreeing coder pairs, from 0 to 1."}
        )
    rule.save()
    return rule


def review_rule_delete(*, question: Question) -> None:
    """Remove the question's rule; its queue stays as it is until the next computation."""
    ReviewRule.objects.filter(question=question).delete()


# -- the queue -----------------------------------------------------------------------------------


def _label_texts(labels: Any, kind: Kind) -> list[str]:
    if kind.numeric:
        return [format(float(value), "g") for value in np.asarray(labels, dtype=np.float64)]
    if kind.form is ValueForm.CATEGORY_SET:
        return ["|".join(sorted(value)) for value in labels]  # type: ignore[arg-type]
    return [str(value) for value in labels]


def review_queue_rebuild(*, round_: Round, question: Question) -> list[int]:
    """Apply the question's rule to the round's labels; returns the ids of entries added.

    Without a rule (or one with no criterion) nothing changes.
    """
    rule = ReviewRule.objects.filter(question=question).first()
    kind = question.label_kind
    if rule is None or not rule.is_active or not kind.supports(Feature.REVIEW):
        return []
    scope = scope_annotations(question=question, round_ids=[round_.pk])
    codes: Any = scope.labels
    if kind.form is ValueForm.CATEGORY_SET:
        # Sets arrive as a list of frozensets (built per annotation by the scope already).
        codes = np.asarray(_label_texts(scope.labels, kind), dtype=str)
    flagged = flag_items(
        scope.item_ids,
        codes,
        disagreement=rule.disagreement,
        min_coders=rule.min_coders,
        max_item_agreement=rule.max_item_agreement,
    )
    # The competing labels of the flagged items only.
    rows = np.flatnonzero(np.isin(scope.item_ids, flagged.item_ids))
    keys = coder_keys(np.unique(scope.coder_ids[rows]).tolist())
    texts = _label_texts([scope.labels[i] for i in rows], kind)
    labels: dict[int, dict[str, str]] = {int(item): {} for item in flagged.item_ids}
    for row, text in zip(rows.tolist(), texts, strict=True):
        labels[int(scope.item_ids[row])][keys[int(scope.coder_ids[row])]] = text
    with transaction.atomic():
        added = _store(round_, question, flagged, labels)
    if added:
        transaction.on_commit(lambda: _announce(round_, question, added))
    logger.info(
        "review queue rebuilt round=%s question=%s flagged=%s added=%s",
        round_.pk,
        question.pk,
        len(flagged.item_ids),
        len(added),
    )
    return added


_ENTRY_FIELDS = ("reason", "labels", "n_coders", "agreement")


def _store(
    round_: Round, question: Question, flagged: Any, labels: dict[int, dict[str, str]]
) -> list[int]:
    """Write the queue's changes, a batch of rows per statement (``AGREEMENT_WRITE_BATCH_SIZE``):
    the entries gone, the open ones whose fields changed, the new ones. Called inside one
    transaction, so a reader sees the old queue or the new one (the locks it takes:
    docs/operations.md, "Bounded statements and locks")."""
    size = write_batch_size()
    entries = ReviewEntry.objects.filter(round=round_, question=question)
    open_entries = _lock_open_entries(entries)
    last_resolved = _last_resolved_labels(entries)
    flagged_ids = {int(item) for item in flagged.item_ids}
    gone = [pk for item, (pk, _) in open_entries.items() if item not in flagged_ids]
    now = timezone.now()
    for batch in batched(gone, size):
        ReviewEntry.objects.filter(pk__in=batch).update(
            resolved_at=now, resolution=ReviewResolution.REANNOTATED
        )
    new: list[ReviewEntry] = []
    changed: list[tuple[Any, ...]] = []
    for item, reason, n_coders, agreement in zip(
        flagged.item_ids.tolist(),
        flagged.reasons,
        flagged.n_coders.tolist(),
        flagged.agreement.tolist(),
        strict=True,
    ):
        share = None if np.isnan(agreement) else float(agreement)
        fields = [reason, labels[item], n_coders, share]
        entry = open_entries.get(item)
        if entry is not None:
            if entry[1] != fields:  # an unchanged entry is not written again
                changed.append((entry[0], *fields))
        elif last_resolved.get(item) != labels[item]:
            # A person's resolution stands while the labels it saw are unchanged.
            values = dict(zip(_ENTRY_FIELDS, fields, strict=True))
            new.append(ReviewEntry(round=round_, question=question, item_id=item, **values))
    bulk_update_rows(ReviewEntry, _ENTRY_FIELDS, changed, batch_size=size)
    created = ReviewEntry.objects.bulk_create(new, batch_size=size)
    return [entry.pk for entry in created]


def _lock_open_entries(entries: QuerySet[ReviewEntry]) -> dict[int, tuple[int, list[Any]]]:
    """``{item id: (entry id, [its fields])}`` of the open entries, locked: a person resolving
    one waits for the rebuild's commit and then finds it as the rebuild left it."""
    return {
        item_id: (pk, fields)
        for pk, item_id, *fields in entries.filter(resolved_at__isnull=True)
        # By id, not the model's ordering: that joins the round, question, item and study,
        # and FOR UPDATE would lock their rows too (every write to the study would wait).
        .order_by("pk")
        .select_for_update(of=("self",))
        .values_list("pk", "item_id", *_ENTRY_FIELDS)
    }


def _last_resolved_labels(entries: QuerySet[ReviewEntry]) -> dict[int, dict[str, str]]:
    """``{item id: labels}`` that the item's last resolution by a person saw (read only:
    a resolved entry never changes again)."""
    last: dict[int, dict[str, str]] = {}
    for item_id, item_labels in (
        entries.filter(resolution__in=(ReviewResolution.RESOLVED, ReviewResolution.ADJUDICATED))
        .order_by("item_id", "resolved_at")
        .values_list("item_id", "labels")
    ):
        last[item_id] = item_labels
    return last


def _announce(round_: Round, question: Question, entry_ids: list[int]) -> None:
    review_items_added.send(
        sender=ReviewEntry,
        study_id=round_.study_id,
        round_id=round_.pk,
        question_id=question.pk,
        entry_ids=entry_ids,
        # One event per batch: the first new entry's id names it.
        event_id=f"review.items_added:{round_.pk}:{question.pk}:{min(entry_ids)}",
        data=review_items_added_data(round_=round_, question=question, entry_ids=entry_ids),
    )


def review_queue_on_computation_finished(*, computation_id: int) -> list[int]:
    """Rebuild the queue of a done one-round computation's round and question."""
    computation = Computation.objects.select_related("question").filter(pk=computation_id).first()
    if (
        computation is None
        or computation.status != ComputationStatus.DONE
        or computation.scope != ComputationScope.ROUND
    ):
        return []
    added: list[int] = []
    for round_ in computation.rounds.all():
        added += review_queue_rebuild(round_=round_, question=computation.question)
    return added


@transaction.atomic
def review_entry_resolve(*, entry: ReviewEntry, note: str = "", user: Any = None) -> ReviewEntry:
    """Take an open entry out of the queue as resolved by a person, with a note."""
    locked = ReviewEntry.objects.select_for_update().get(pk=entry.pk)
    if locked.resolved_at is not None:
        raise ValidationError(
            f"This item already left the queue ({locked.resolution}).", code="already_resolved"
        )
    locked.resolved_at = timezone.now()
    locked.resolution = ReviewResolution.RESOLVED
    locked.resolution_note = note
    locked.resolved_by = user if getattr(user, "pk", None) else None
    locked.save(update_fields=["resolved_at", "resolution", "resolution_note", "resolved_by"])
    return locked


def review_entries_adjudicated(
    *, round_id: int, question_id: int, item_ids: list[int], note: str = "", user: Any = None
) -> int:
    """Take the items' open entries out of the queue as adjudicated; returns how many left.

    Like a person's resolution, it stands while the labels it saw are unchanged.
    """
    return ReviewEntry.objects.filter(
        round_id=round_id, question_id=question_id, item_id__in=item_ids, resolved_at__isnull=True
    ).update(
        resolved_at=timezone.now(),
        resolution=ReviewResolution.ADJUDICATED,
        resolution_note=note,
        resolved_by=user if getattr(user, "pk", None) else None,
    )
