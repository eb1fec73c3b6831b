"""The data of an annotation study: who labels what, in which round, with which label scheme.

A label (annotation value) is one of: a category (nominal, ordinal, or a node of a
category tree), a number (interval, ratio), or a set of categories. Which one a question
takes is its ``kind``. A missing annotation is simply absent: there is no null label.
"""

from __future__ import annotations

import hashlib
import secrets
from typing import ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from studies.kinds import Kind, kind_of

#: What a study records for its reliability report that the server cannot infer from the
#: annotations: field name -> the GRRAS item (Kottner et al. 2011) it answers. Read by the
#: report (``pages.reliability_report``), the API, the admin and the site's study form.
GRRAS_STUDY_FIELDS: dict[str, int] = {
    "subject_population": 3,
    "rater_population": 4,
    "background": 5,
    "sample_size_rationale": 6,
    "sampling": 7,
    "blinding": 8,
    "independence": 9,
    "rater_training": 12,
    "practical_relevance": 14,
}


class BenchmarkScale(models.TextChoices):
    """The benchmark scales a study may choose (those every stored interval is read on)."""

    LANDIS_KOCH = "landis_koch", "Landis & Koch"
    FLEISS = "fleiss", "Fleiss"
    ALTMAN = "altman", "Altman"
    KRIPPENDORFF = "krippendorff", "Krippendorff"


class Study(models.Model):
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    # The reliability report's design facts (GRRAS, Kottner et al. 2011): free text the
    # server cannot infer; an empty field is named as missing by the report.
    subject_population = models.TextField(
        blank=True,
        help_text="GRRAS 3: the items and the population they stand for "
        "(e.g. forum posts of 2023 from three German news sites).",
    )
    rater_population = models.TextField(
        blank=True,
        help_text="GRRAS 4: who the coders are and whom they stand for "
        "(e.g. trained student assistants, crowd workers).",
    )
    background = models.TextField(
        blank=True,
        help_text="GRRAS 5: what is known about this instrument's reliability, and why this study.",
    )
    sample_size_rationale = models.TextField(
        blank=True,
        help_text="GRRAS 6: how the numbers of items and coders were chosen "
        "(e.g. a sample-size plan from the pilot round).",
    )
    sampling = models.TextField(
        blank=True,
        help_text="GRRAS 7: how the items (and coders) were sampled "
        "(e.g. simple random sample of 40 posts).",
    )
    blinding = models.TextField(
        blank=True,
        help_text="GRRAS 8: the rating process: what the coders saw, whether they were "
        "blind to each other's labels and to other information, time between repeats.",
    )
    independence = models.TextField(
        blank=True,
        help_text="GRRAS 9: whether the coders labelled independently (no discussion "
        "before labelling).",
    )
    rater_training = models.TextField(
        blank=True,
        help_text="GRRAS 12: the coders' training and experience.",
    )
    practical_relevance = models.TextField(
        blank=True,
        help_text="GRRAS 14: what the results mean for the use of the labels.",
    )
    # Which benchmark scale reads the study's coefficients (metrics.read_coefficient): empty
    # for the one rule (docs/benchmarks.md), a scale to read every chance-corrected
    # coefficient on, weighted ones included.
    benchmark_scale = models.CharField(
        max_length=20,
        blank=True,
        choices=BenchmarkScale.choices,
        help_text="Empty: Krippendorff's scale for nominal alpha, Landis & Koch's for the "
        "unweighted kappa family, none for weighted coefficients and observed agreement. "
        "A scale: every chance-corrected coefficient is read on it.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering: ClassVar = ["name", "id"]
        verbose_name_plural = "studies"

    def __str__(self) -> str:
        return self.name


class Role(models.TextChoices):
    MANAGER = "manager", "Manager"
    ANNOTATOR = "annotator", "Annotator"
    VIEWER = "viewer", "Viewer"


class Membership(models.Model):
    """A user's role in a study. Studies are private: only members see them."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.VIEWER)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering: ClassVar = ["study", "user"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["study", "user"], name="membership_unique_user"),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.role}) in {self.study}"


class LabelKind(models.TextChoices):
    """The stored keys of the label kinds; what each kind is and does is its module in
    ``studies.kinds`` (a test checks that the two lists agree)."""

    NOMINAL = "nominal", "Nominal category"
    ORDINAL = "ordinal", "Ordinal category"
    INTERVAL = "interval", "Interval number"
    RATIO = "ratio", "Ratio number"
    SET = "set", "Set of categories"
    HIERARCHY = "hierarchy", "Node of a category tree"
    SPAN = "span", "Units (begin, end, category) on a continuum"
    BOX = "box", "Boxes on an image"
    POLYGON = "polygon", "Polygons on an image"
    KEYPOINT = "keypoint", "Keypoints on an image"
    TEXT = "text", "Free text"
    RANKING = "ranking", "Ranking of options"
    PREFERENCE = "preference", "Pairwise preference"
    RELATION = "relation", "Relations between units of a document"


class SpanUnit(models.TextChoices):
    """What a span question's offsets count."""

    CHARACTER = "character", "Character offsets"
    TOKEN = "token", "Token offsets"
    SECOND = "second", "Seconds (time)"


class Question(models.Model):
    """One thing asked of every item (a labeling tool's field); its kind fixes the label type."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="questions")
    key = models.SlugField(max_length=100, help_text="Identifier used by labeling tools.")
    text = models.TextField(blank=True)
    kind = models.CharField(max_length=20, choices=LabelKind.choices)
    min_value = models.FloatField(null=True, blank=True, help_text="Numbers only: lowest allowed.")
    max_value = models.FloatField(null=True, blank=True, help_text="Numbers only: highest allowed.")
    span_unit = models.CharField(
        max_length=20,
        choices=SpanUnit.choices,
        blank=True,
        help_text="Span questions only: what begin and end count (default characters).",
    )
    position = models.PositiveIntegerField(default=0)

    class Meta:
        ordering: ClassVar = ["study", "position", "id"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["study", "key"], name="question_unique_key"),
            models.CheckConstraint(
                condition=Q(min_value__isnull=True)
                | Q(max_value__isnull=True)
                | Q(min_value__lte=models.F("max_value")),
                name="question_min_not_above_max",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study}: {self.key}"

    @property
    def label_kind(self) -> Kind:
        """What the server knows of this question's kind (``studies.kinds``)."""
        return kind_of(self.kind)

    @property
    def is_numeric(self) -> bool:
        return self.label_kind.takes_range

    def clean(self) -> None:
        kind = self.label_kind
        if not kind.takes_range and (self.min_value is not None or self.max_value is not None):
            raise ValidationError("Only numeric questions (interval, ratio) take a range.")
        lowest = kind.lowest_value
        if lowest is not None and self.min_value is not None and self.min_value < lowest:
            raise ValidationError(
                {"min_value": f"{kind.key.capitalize()} values cannot be below {lowest:g}."}
            )


class Category(models.Model):
    """A declared value of a categorical question. Unused categories are kept: they count
    in the value domain (for S, for instance). ``position`` orders ordinal scales;
    ``parent`` builds the tree of a hierarchy question."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="categories")
    code = models.CharField(max_length=100)
    label = models.CharField(max_length=200, blank=True)
    position = models.PositiveIntegerField(default=0)
    parent = models.ForeignKey(
        "self", on_delete=models.PROTECT, null=True, blank=True, related_name="children"
    )
    # A relation label with no direction (coreference, "similar to"): head and tail may be
    # swapped. Only kinds whose categories may be undirected take it (studies.kinds).
    undirected = models.BooleanField(
        default=False,
        db_default=False,
        help_text="Relation questions only: the label is symmetric (x–y is y–x).",
    )

    class Meta:
        ordering: ClassVar = ["question", "position", "id"]
        verbose_name_plural = "categories"
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["question", "code"], name="category_unique_code"),
            models.CheckConstraint(
                condition=~Q(code__contains="|") & ~Q(code__contains="/") & ~Q(code=""),
                name="category_code_has_no_separator",
            ),
        ]

    def __str__(self) -> str:
        return self.code

    def clean(self) -> None:
        if self.parent_id is not None:
            if not self.question.label_kind.category_tree:
                raise ValidationError({"parent": "Only hierarchy questions have parents."})
            if self.parent is not None and self.parent.question_id != self.question_id:
                raise ValidationError({"parent": "The parent belongs to another question."})
            ancestor = self.parent
            while ancestor is not None:
                if ancestor.pk == self.pk:
                    raise ValidationError({"parent": "A category cannot be its own ancestor."})
                ancestor = ancestor.parent


class CoderKind(models.TextChoices):
    """Who a coder is: a person, or a model (a language model, a classifier) whose labels
    are tested against the people's (docs/models.md)."""

    PERSON = "person", "Person"
    MODEL = "model", "Model"


#: The fields only a model coder fills, by their name in the API.
MODEL_FIELDS = ("model_name", "model_version", "prompt_version")


class Coder(models.Model):
    """Someone (or some model) who labels items; optionally a user account of this server.

    A model coder (``kind`` model) names its model, version and prompt version: the
    current ones, which each round it labels records in ``ModelCoderRound``.
    """

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="coders")
    key = models.CharField(max_length=200, help_text="The labeling tool's name for this coder.")
    name = models.CharField(max_length=200, blank=True)
    # Database defaults too: the crowd ingest creates coders with INSERT ... SELECT.
    kind = models.CharField(
        max_length=10,
        choices=CoderKind.choices,
        default=CoderKind.PERSON,
        db_default=CoderKind.PERSON,
    )
    model_name = models.CharField(
        max_length=200, blank=True, default="", db_default="", help_text="Models only."
    )
    model_version = models.CharField(
        max_length=200, blank=True, default="", db_default="", help_text="Models only."
    )
    prompt_version = models.CharField(
        max_length=200, blank=True, default="", db_default="", help_text="Models only."
    )
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="coder_profiles",
    )
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering: ClassVar = ["study", "key"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["study", "key"], name="coder_unique_key"),
        ]

    def __str__(self) -> str:
        return self.name or self.key

    @property
    def is_model(self) -> bool:
        return self.kind == CoderKind.MODEL

    def clean(self) -> None:
        """A model names its model; a person has none of the model fields (each error under
        the field's name)."""
        if self.kind == CoderKind.MODEL:
            if not self.model_name.strip():
                raise ValidationError(
                    {"model_name": "A model coder needs the model's name (model_name)."}
                )
            return
        errors = {
            field: f"Only model coders (kind model) have a {field.replace('_', ' ')}."
            for field in MODEL_FIELDS
            if getattr(self, field)
        }
        if errors:
            raise ValidationError(errors)


class Item(models.Model):
    """A unit to be labelled, known to the labeling tool by ``external_id``."""

    # Indexed by item_unique_external_id, whose first column it is (a crowd import creates a
    # million items: one index fewer to write). Not checked by the database either: the check
    # of a million new items at commit took 3.5 s of a 6M-row import. Deletes through Django
    # still cascade; ``manage.py annotations_check_references`` finds items a delete made by
    # hand in SQL left behind.
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, related_name="items", db_index=False, db_constraint=False
    )
    external_id = models.CharField(max_length=255)
    text = models.TextField(blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    # The continuum a span question's units lie on: [extent_begin, extent_end). Unset, it is
    # 0 to the length of ``text``, or to the largest end of the item's units.
    extent_begin = models.FloatField(null=True, blank=True)
    extent_end = models.FloatField(null=True, blank=True)
    # An image item's size in pixels (region questions check their regions against it) and
    # where the image is; an uploaded image is an ItemImage.
    image_width = models.FloatField(null=True, blank=True)
    image_height = models.FloatField(null=True, blank=True)
    image_url = models.URLField(max_length=2000, blank=True, default="", db_default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering: ClassVar = ["study", "id"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["study", "external_id"], name="item_unique_external_id"
            ),
        ]

    def __str__(self) -> str:
        return self.external_id


class ItemImage(models.Model):
    """An image item's picture, uploaded to the server (``studies.images``) and served to the
    study's members only. Kept in the database: one place to back up, no file store to share
    between web processes; its size is capped (``AGREEMENT_IMAGE_MAX_BYTES``)."""

    item = models.OneToOneField(
        Item, on_delete=models.CASCADE, primary_key=True, related_name="uploaded_image"
    )
    content = models.BinaryField()
    content_type = models.CharField(max_length=20)
    uploaded_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"image of {self.item}"


class StudyItemCount(models.Model):
    """How many items a study has, kept by the database itself.

    Triggers on the item table (migration 0009) add and subtract on every insert and delete,
    whatever writes them: the API, an import's COPY, the admin, a cascade. The study list
    reads this instead of counting a crowd study's million items on every request (90 ms and
    more on PostgreSQL). The application never writes it.
    """

    study = models.OneToOneField(
        Study,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="item_count",
        db_constraint=False,  # written by the triggers, in any order against deletes
    )
    items = models.BigIntegerField(default=0)

    def __str__(self) -> str:
        return f"{self.study_id}: {self.items} items"


class RoundStatus(models.TextChoices):
    OPEN = "open", "Open"
    CLOSED = "closed", "Closed"


class Round(models.Model):
    """An annotation round. Agreement is tracked round after round, in ``position`` order."""

    study = models.ForeignKey(Study, on_delete=models.CASCADE, related_name="rounds")
    name = models.CharField(max_length=200)
    position = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=RoundStatus.choices, default=RoundStatus.OPEN)
    opened_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["study", "position"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["study", "position"], name="round_unique_position"),
            models.UniqueConstraint(fields=["study", "name"], name="round_unique_name"),
            models.CheckConstraint(
                condition=Q(status=RoundStatus.OPEN, closed_at__isnull=True)
                | Q(status=RoundStatus.CLOSED, closed_at__isnull=False),
                name="round_closed_at_matches_status",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.study}: {self.name}"

    @property
    def is_open(self) -> bool:
        return self.status == RoundStatus.OPEN


class ModelCoderRound(models.Model):
    """The model version and prompt version a model coder labelled one round with.

    Recorded from the coder's current versions when the round is first computed (or set
    through the API), so that the history shows each round's versions after the coder's
    move on.
    """

    coder = models.ForeignKey(Coder, on_delete=models.CASCADE, related_name="round_versions")
    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="model_versions")
    model_version = models.CharField(max_length=200, blank=True)
    prompt_version = models.CharField(max_length=200, blank=True)
    recorded_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering: ClassVar = ["coder", "round__position"]
        constraints: ClassVar = [
            models.UniqueConstraint(fields=["coder", "round"], name="model_round_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.coder} in {self.round_id}: {self.model_version} / {self.prompt_version}"

    def clean(self) -> None:
        if self.coder_id is None or self.round_id is None:
            return
        if not self.coder.is_model:
            raise ValidationError(
                {"coder": "Only model coders (kind model) have versions per round."}
            )
        if self.round.study_id != self.coder.study_id:
            raise ValidationError({"round": "The round belongs to another study."})


class ModelConfidence(models.Model):
    """A model coder's confidence in its label of one item (Label Studio's prediction
    ``score``, an upload's ``confidence``), in [0, 1].

    Kept apart from ``Annotation`` so that the labels' hot path (the crowd-scale COPY, the
    scope reads) carries no column for it: only model coders have one, and only the
    calibration of the model-coder step reads it. Keyed as the annotation is; a row whose
    annotation was deleted is never read (the worker reads confidences of the labels it
    has).
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="+")
    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="+")
    item = models.ForeignKey(Item, on_delete=models.CASCADE, related_name="+")
    coder = models.ForeignKey(Coder, on_delete=models.CASCADE, related_name="confidences")
    confidence = models.FloatField()

    class Meta:
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["round", "question", "item", "coder"], name="model_confidence_unique"
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="model_confidence_in_unit_interval",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.coder_id} on {self.item_id}: {self.confidence}"


class Annotation(models.Model):
    """One coder's label for one item, for one question, in one round.

    Exactly one value column is filled, the one the question's kind calls for:
    ``category`` (nominal, ordinal, hierarchy), ``number`` (interval, ratio),
    ``category_set`` (set-valued: a sorted list of category ids, never empty) or ``units``
    (span: a list of ``[begin, end, category_id]``, sorted; empty when the coder annotated the
    item and found nothing, which differs from having no annotation).
    """

    # Reading a round's labels for one question (the computations' hot path) uses the unique
    # constraint's index, which starts with (round, question); no index of their own needed.
    #
    # The references are not checked by the database (db_constraint=False), as in the change
    # log: PostgreSQL checks a foreign key row by row at commit, which was 44% of a crowd
    # import's time (18 s of 42 s per million rows, docs/crowd-scale.md). Every write goes
    # through annotations.services / annotations.ingest, which resolve the item, coder and
    # category inside the study; Django's cascades (and PROTECT) still run on every delete
    # made through the ORM, and `manage.py annotations_check_references` finds rows whose
    # references were deleted some other way.
    round = models.ForeignKey(
        Round,
        on_delete=models.CASCADE,
        related_name="annotations",
        db_index=False,
        db_constraint=False,
    )
    #
    # Two indexes only, each entry costing a crowd import 6M writes (docs/crowd-scale.md,
    # "Which index serves which query"): the unique constraint's (round, question, item,
    # coder) and the item's (an item's deletion cascades here, batch by batch). The
    # question, coder and category have none: their deletions read this table once per
    # statement (a study's deletion removes its annotations by round first), and the reads
    # that name them name the round too, or the study's rounds (``studies.services``).
    question = models.ForeignKey(
        Question,
        on_delete=models.CASCADE,
        related_name="annotations",
        db_constraint=False,
        db_index=False,
    )
    item = models.ForeignKey(
        Item, on_delete=models.CASCADE, related_name="annotations", db_constraint=False
    )
    coder = models.ForeignKey(
        Coder,
        on_delete=models.CASCADE,
        related_name="annotations",
        db_constraint=False,
        db_index=False,
    )
    category = models.ForeignKey(
        Category,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    number = models.FloatField(null=True, blank=True)
    category_set = models.JSONField(null=True, blank=True)
    units = models.JSONField(null=True, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    # The id of the change log's batch entry that created this annotation (an import logged
    # as one entry, ``AnnotationChange.batch_size``), while its label is the one that entry
    # created; None otherwise. The first change logged for the annotation writes its
    # creation as an entry of its own and clears this. No index: a batch's annotations are
    # read along the primary key, between the entry's first and last annotation ids.
    created_in = models.BigIntegerField(null=True, blank=True, editable=False)

    class Meta:
        ordering: ClassVar = ["round", "question", "item", "coder"]
        constraints: ClassVar = [
            models.UniqueConstraint(
                fields=["round", "question", "item", "coder"], name="annotation_unique_label"
            ),
            models.CheckConstraint(
                condition=(
                    Q(
                        category__isnull=False,
                        number__isnull=True,
                        category_set__isnull=True,
                        units__isnull=True,
                    )
                    | Q(
                        category__isnull=True,
                        number__isnull=False,
                        category_set__isnull=True,
                        units__isnull=True,
                    )
                    | Q(
                        category__isnull=True,
                        number__isnull=True,
                        category_set__isnull=False,
                        units__isnull=True,
                    )
                    | Q(
                        category__isnull=True,
                        number__isnull=True,
                        category_set__isnull=True,
                        units__isnull=False,
                    )
                ),
                name="annotation_exactly_one_value",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.coder} on {self.item} ({self.question.key})"


class AnnotationChange(models.Model):
    """Every creation, change or deletion of an annotation: who, when, old and new value.

    Values are kept as the labeling tool's text (category codes, ``a|b`` for sets, numbers)
    so the log stays readable even after categories are renamed. Keys are copied, not
    foreign keys to the annotation, so the history outlives a deleted annotation.
    """

    class Action(models.TextChoices):
        CREATED = "created", "Created"
        UPDATED = "updated", "Updated"
        DELETED = "deleted", "Deleted"

    # The log is written in bulk beside every upload: checking its five references in the
    # database doubled an upload's cost, so Django's cascades alone keep them consistent.
    # Indexed by change_study_newest, whose first column it is.
    study = models.ForeignKey(
        Study,
        on_delete=models.CASCADE,
        related_name="annotation_changes",
        db_constraint=False,
        db_index=False,
    )
    round = models.ForeignKey(
        # Indexed by change_annotation_key, whose first column it is.
        Round,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    # No index of its own: only deleting a question reads the log by question alone (a scan).
    question = models.ForeignKey(
        Question, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    # None on a batch entry only (below).
    item = models.ForeignKey(
        Item,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        null=True,
        blank=True,
    )
    coder = models.ForeignKey(
        Coder,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        null=True,
        blank=True,
    )
    action = models.CharField(max_length=10, choices=Action.choices)
    # None, not "", means "no annotation" (before a creation, after a deletion): "" is no label.
    old_value = models.TextField(null=True, blank=True)  # noqa: DJ001
    new_value = models.TextField(null=True, blank=True)  # noqa: DJ001
    changed_at = models.DateTimeField(default=timezone.now)
    # Who made the change: unchecked by the database like the five keys above (a crowd import
    # by a token logs millions of rows), indexed only where set (for SET_NULL on deletion).
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    token = models.ForeignKey(
        "ApiToken",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    # A batch entry: one "created" entry for every annotation a crowd import created
    # (``annotations.ingest``, ``AGREEMENT_INGEST_BATCH_LOG_MIN`` rows or more), instead of
    # one row each. Its item and coder are None; ``batch_size`` says how many annotations
    # it created, whose ids lie from ``first_annotation_id`` to ``last_annotation_id`` and
    # who carry its id in ``Annotation.created_in``; ``categories`` keeps the question's
    # categories as they were (id, code, parent, position), so the values read as the
    # labeling tool's text of that time. Reads expand it into the per-annotation entries it
    # stands for (``annotations.history``).
    batch_size = models.PositiveBigIntegerField(null=True, blank=True)
    first_annotation_id = models.BigIntegerField(null=True, blank=True)
    last_annotation_id = models.BigIntegerField(null=True, blank=True)
    categories = models.JSONField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-changed_at", "-id"]
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=Q(batch_size__isnull=True, item__isnull=False, coder__isnull=False)
                | Q(
                    batch_size__isnull=False,
                    action="created",
                    item__isnull=True,
                    coder__isnull=True,
                ),
                name="change_annotation_or_batch",
            ),
        ]
        indexes: ClassVar = [
            # The history of one annotation, as shown in the admin and over the API.
            models.Index(
                fields=["round", "question", "item", "coder"], name="change_annotation_key"
            ),
            # A study's history, newest first (the API and the admin); also the study's cascade.
            models.Index(fields=["study", "-changed_at"], name="change_study_newest"),
            models.Index(
                fields=["changed_by"],
                name="change_changed_by",
                condition=Q(changed_by__isnull=False),
            ),
            models.Index(fields=["token"], name="change_token", condition=Q(token__isnull=False)),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.old_value!r} → {self.new_value!r}"


class ApiToken(models.Model):
    """A secret for the API: a user's personal token, or a study token for a labeling tool.

    Only a SHA-256 of the secret is stored; the secret is shown once, when created. A
    study token acts in one study with ``role``; a personal token acts as its user.
    """

    PREFIX_LENGTH = 8

    name = models.CharField(max_length=200)
    prefix = models.CharField(max_length=PREFIX_LENGTH, db_index=True, editable=False)
    key_hash = models.CharField(max_length=64, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="api_tokens",
    )
    study = models.ForeignKey(
        Study, on_delete=models.CASCADE, null=True, blank=True, related_name="api_tokens"
    )
    role = models.CharField(max_length=20, choices=Role.choices, default=Role.ANNOTATOR)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)
    expires_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When the token stops working (empty: it works until revoked).",
    )
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar = ["-created_at"]
        constraints: ClassVar = [
            models.CheckConstraint(
                condition=Q(user__isnull=False, study__isnull=True)
                | Q(user__isnull=True, study__isnull=False),
                name="token_belongs_to_user_or_study",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def is_active(self) -> bool:
        """Neither revoked nor expired."""
        return self.revoked_at is None and not self.is_expired

    @property
    def is_expired(self) -> bool:
        return self.expires_at is not None and self.expires_at <= timezone.now()

    @staticmethod
    def generate_secret() -> str:
        return secrets.token_urlsafe(32)

    @staticmethod
    def hash_secret(secret: str) -> str:
        return hashlib.sha256(secret.encode()).hexdigest()


class QuestionDistanceTable(models.Model):
    """A distance between a question's values that the team computed elsewhere (embedding
    distances between texts, say), uploaded with the question and used by a computation
    whose ``distance`` is ``user``. ``pairs`` holds ``[value_a, value_b, distance]`` once per
    unordered pair of different values, ``value_a < value_b`` (``studies.distance_tables``
    checks and writes it whole). ``fingerprint`` is a SHA-256 of ``pairs``: a computation
    records the fingerprint of the table it used, and is stale once the question's table
    has another (or none)."""

    question = models.OneToOneField(
        Question, on_delete=models.CASCADE, related_name="distance_table"
    )
    pairs = models.JSONField(default=list)
    n_pairs = models.PositiveIntegerField(default=0)
    fingerprint = models.CharField(max_length=64, blank=True)
    uploaded_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.question}: {self.n_pairs} distances"
