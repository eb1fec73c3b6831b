"""A study's live connections to Label Studio projects, and what they read and wrote.

- ``LabelStudioConnection``: the project (URL, id), its API token (encrypted at rest,
  ``connections.secrets``), the webhook's secret (only its SHA-256), the mapping of the
  project's controls, users and model versions onto the study's questions and coders (the
  file import's ``question_map``, ``category_map``, ``coder_map``), and its last event,
  sync and error.
- ``LinkedTask``: one Label Studio task as last reconciled: the (question, item, coder)
  annotations it gave, so that what disappears from it in Label Studio is deleted here;
  ``purpose`` marks the tasks the server sent to the project (review, adjudication).
- ``LinkedAnnotation``: a Label Studio annotation id and its task (Label Studio's delete
  events name annotations only).
- ``LabelStudioEvent`` and ``LabelStudioSync``: work rows of the outbox
  (``agreement_server.worker_jobs``): a webhook received, a sync asked for.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils import timezone

from agreement_server.worker_jobs import WorkerJob
from studies.models import Question, Round, Study


class LabelStudioConnection(models.Model):
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="label_studio_connections"
    )
    # The round the project's annotations go to (it must be open to take them).
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=200, blank=True)
    url = models.URLField(
        max_length=500, help_text="Label Studio's address, e.g. https://ls.example.org"
    )
    project_id = models.PositiveBigIntegerField()
    # Fernet token of the API token (connections.secrets); never shown, never logged.
    token_encrypted = models.TextField(editable=False)
    # The token's last four characters, to recognise it.
    token_hint = models.CharField(max_length=8, editable=False, blank=True)
    # SHA-256 of the secret Label Studio sends with each webhook (X-Agreement-Connection-Secret).
    webhook_secret_hash = models.CharField(max_length=64, editable=False)
    # The webhook's id in Label Studio when the server registered it (None: pasted by hand).
    webhook_id = models.PositiveBigIntegerField(null=True, blank=True)
    question_map = models.JSONField(default=dict, blank=True)
    category_map = models.JSONField(default=dict, blank=True)
    case_insensitive_categories = models.BooleanField(default=False)
    coder_map = models.JSONField(default=dict, blank=True)
    document_key = models.CharField(max_length=100, default="id")
    # The project's controls as last read: [{"name", "type", "to_name"}] (label_config.py).
    controls = models.JSONField(default=list, blank=True)
    is_active = models.BooleanField(default=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)
    last_test = models.JSONField(default=dict, blank=True)
    last_event_at = models.DateTimeField(null=True, blank=True)
    last_sync_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    # The round's agreement is requested again once no event came for the quiet period.
    recompute_after = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["study", "id"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["study", "url", "project_id"], name="label_studio_connection_unique"
            )
        ]
        indexes: ClassVar = [
            # The beat's look for connections whose quiet period is over.
            models.Index(fields=["recompute_after"], name="ls_connection_recompute")
        ]

    def __str__(self) -> str:
        return self.name or f"Label Studio project {self.project_id}"


class TaskPurpose(models.TextChoices):
    ANNOTATE = "annotate", "Annotated by the coders"
    REVIEW = "review", "A review-queue item sent back"
    ADJUDICATION = "adjudication", "An item to adjudicate sent back"


class LinkedTask(models.Model):
    connection = models.ForeignKey(
        LabelStudioConnection, on_delete=models.CASCADE, related_name="tasks"
    )
    task_id = models.PositiveBigIntegerField()
    purpose = models.CharField(
        max_length=20, choices=TaskPurpose.choices, default=TaskPurpose.ANNOTATE
    )
    # [question key, item external id, coder key] of every annotation this task gave.
    pairs = models.JSONField(default=list)
    # For the tasks the server sent: what they stand for, and the annotation that resolved it.
    round = models.ForeignKey(
        Round, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    item_key = models.CharField(max_length=200, blank=True)
    review_entry_id = models.BigIntegerField(null=True, blank=True)
    resolved_at = models.DateTimeField(null=True, blank=True)
    resolution_key = models.CharField(max_length=100, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["connection", "task_id"], name="linked_task_unique")
        ]

    def __str__(self) -> str:
        return f"Label Studio task {self.task_id} ({self.purpose})"


class LinkedAnnotation(models.Model):
    connection = models.ForeignKey(
        LabelStudioConnection, on_delete=models.CASCADE, related_name="+"
    )
    annotation_id = models.PositiveBigIntegerField()
    task_id = models.PositiveBigIntegerField()

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["connection", "annotation_id"], name="linked_annotation_unique"
            )
        ]

    def __str__(self) -> str:
        return f"Label Studio annotation {self.annotation_id} of task {self.task_id}"


class LabelStudioEvent(WorkerJob):
    """A webhook call received: which tasks and annotations it names; applied by a worker."""

    connection = models.ForeignKey(
        LabelStudioConnection, on_delete=models.CASCADE, related_name="events"
    )
    action = models.CharField(max_length=50)
    task_ids = models.JSONField(default=list)
    annotation_ids = models.JSONField(default=list)
    received_at = models.DateTimeField(default=timezone.now)
    report = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering: ClassVar = ["-received_at", "-id"]
        indexes: ClassVar = [
            # The sweep's look for queued and running events.
            models.Index(fields=["status", "dispatched_at"], name="ls_event_status")
        ]


class SyncTrigger(models.TextChoices):
    MANUAL = "manual", "Sync now"
    PERIODIC = "periodic", "Periodic"


class LabelStudioSync(WorkerJob):
    """A sync: every task of the project read page by page and reconciled; its report."""

    connection = models.ForeignKey(
        LabelStudioConnection, on_delete=models.CASCADE, related_name="syncs"
    )
    trigger = models.CharField(max_length=10, choices=SyncTrigger.choices)
    requested_at = models.DateTimeField(default=timezone.now)
    report = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering: ClassVar = ["-requested_at", "-id"]
        indexes: ClassVar = [
            models.Index(fields=["status", "dispatched_at"], name="ls_sync_status")
        ]
