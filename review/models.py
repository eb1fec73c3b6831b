"""The review queue: a question's rule, and the items of a round that the rule sends to review.

A ``ReviewRule`` says which items of a question need a second look; a worker applies it to a
round's labels when a computation of that round finishes and stores one ``ReviewEntry`` per
item it flags, with the competing labels. An entry leaves the queue when a person resolves it
(``resolution="resolved"``, with a note), when its reference label is adjudicated
(``resolution="adjudicated"``, on the adjudication app's ``items_adjudicated`` signal) or
when the labels were changed so that the item no longer matches (``resolution="reannotated"``,
set by the next computation).
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from studies.models import Item, Question, Round


class ReviewRule(models.Model):
    """Which items of a question go to review; an item matching any criterion is flagged.

    ``disagreement``: the item's coders gave more than one label. ``min_coders``: fewer than
    this many coders labelled the item. ``max_item_agreement``: the share of the item's coder
    pairs that agree is at most this (items with fewer than two coders have no share).
    """

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="review_rule")
    disagreement = models.BooleanField(default=False)
    min_coders = models.PositiveIntegerField(null=True, blank=True)
    max_item_agreement = models.FloatField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar = ["question"]
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=Q(max_item_agreement__isnull=True)
                | (Q(max_item_agreement__gte=0) & Q(max_item_agreement__lte=1)),
                name="review_rule_agreement_is_a_share",
            ),
        ]

    def __str__(self) -> str:
        return f"Review rule of {self.question}"

    @property
    def is_active(self) -> bool:
        return (
            self.disagreement or self.min_coders is not None or self.max_item_agreement is not None
        )


class ReviewReason(models.TextChoices):
    DISAGREEMENT = "disagreement", "The coders disagree"
    FEW_CODERS = "few_coders", "Fewer coders than the rule asks"
    LOW_AGREEMENT = "low_agreement", "Share of agreeing pairs at or below the threshold"


class ReviewResolution(models.TextChoices):
    RESOLVED = "resolved", "Resolved by a person"
    REANNOTATED = "reannotated", "Re-annotated: no longer matches the rule"
    ADJUDICATED = "adjudicated", "Adjudicated: its reference label was decided"


class ReviewEntry(models.Model):
    """An item of a round flagged by its question's rule.

    ``reason`` lists the criteria it matched, comma-separated, in the order of
    ``ReviewReason``; ``labels`` maps coder key to label text (category codes, ``a|b`` for
    sets, numbers as written); ``agreement`` is the share of agreeing coder pairs (None with
    fewer than two coders). Unresolved entries are the queue: at most one per item.
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="review_entries")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+")
    reason = models.CharField(max_length=100)
    labels = models.JSONField(default=dict)
    n_coders = models.PositiveIntegerField(default=0)
    agreement = models.FloatField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution = models.CharField(max_length=20, choices=ReviewResolution.choices, blank=True)
    resolution_note = models.TextField(blank=True)
    resolved_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering: ClassVar = ["round", "question", "item", "-created_at"]
        verbose_name_plural = "review entries"
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["round", "question", "item"],
                condition=Q(resolved_at__isnull=True),
                name="review_entry_one_open_per_item",
            ),
            models.CheckConstraint(
                condition=Q(resolved_at__isnull=True, resolution="")
                | Q(resolved_at__isnull=False) & ~Q(resolution=""),
                name="review_entry_resolution_matches_time",
            ),
        ]
        indexes: ClassVar = [
            models.Index(fields=["round", "question", "resolved_at"], name="review_entry_queue"),
        ]

    def __str__(self) -> str:
        return f"{self.item} in {self.round} ({self.reason})"

    @property
    def reasons(self) -> list[str]:
        return self.reason.split(",") if self.reason else []
