"""What every label kind declares: the one description the apps ask instead of branching.

A :class:`Kind` is plain data and a few functions on plain data. It imports no app (the
apps import it), so a kind module never closes an import cycle. The apps keep one path per
:class:`ValueForm` (the column a value is stored in), not one per kind: a new kind whose
values take an existing form needs no change outside its own module.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from studies.kinds.structured import StructuredValues


class ValueForm(enum.StrEnum):
    """Where one coder's value of one item is stored, and so how the apps read it."""

    #: One category (``Annotation.category_id``): a code, or a node of a tree.
    CATEGORY = "category"
    #: One number (``Annotation.number``).
    NUMBER = "number"
    #: A non-empty set of categories (``Annotation.category_set``, sorted ids).
    CATEGORY_SET = "category_set"
    #: Span units of a document (``Annotation.units``): a coder's whole annotation.
    UNITS = "units"
    #: Any other structure (``Annotation.units``), read and written through the kind's
    #: :class:`~studies.kinds.structured.StructuredValues`: regions on an image, say.
    STRUCTURED = "structured"

    @property
    def column(self) -> str:
        """The ``Annotation`` field that holds a value of this form."""
        return "units" if self is ValueForm.STRUCTURED else self.value


class Feature(enum.StrEnum):
    """What the server can do with a question beyond computing its agreement."""

    REVIEW = "review"
    ADJUDICATION = "adjudication"
    REFERENCE = "reference"
    PLANNING = "planning"
    QUALITY = "quality"
    #: Model coders' tests: agreement among people, among models and between the groups,
    #: the alternative annotator test and prediction-powered estimates.
    MODELS = "models"


#: How each feature is named in a refusal ("<kind> questions have no <what>").
FEATURE_TEXT: Mapping[Feature, str] = {
    Feature.REVIEW: "review queue",
    Feature.ADJUDICATION: "adjudication",
    Feature.REFERENCE: "results against a reference",
    Feature.PLANNING: "sample-size plan",
    Feature.QUALITY: "coder-quality model",
    Feature.MODELS: "model-coder tests (the alternative annotator test, prediction-powered "
    "estimates)",
}


class KindRefusalError(ValueError):
    """A feature the question's kind does not have; ``code`` is machine-readable, and the
    API answers it with a 400 naming ``field``."""

    def __init__(self, *, kind: str, feature: Feature, reason: str) -> None:
        self.kind = kind
        self.feature = feature
        self.code = f"{feature.value}_not_available"
        self.message = reason
        super().__init__(reason)


@dataclass(frozen=True)
class Kind:
    """Everything the server needs to know about one kind of label."""

    #: The stored value of ``Question.kind``.
    key: str
    #: The name people read ("Nominal category").
    title: str
    form: ValueForm
    #: ``parse(scheme, raw) -> Label``: one value as a tool writes it, validated against the
    #: question's prepared :class:`studies.labels.LabelScheme`; raises ``LabelError``.
    parse: Callable[[Any, Any], Any]
    #: Whether the question declares categories (a span question's label its units).
    has_categories: bool = False
    #: Whether categories form a tree (a node's ``parent``; values by code or by path).
    category_tree: bool = False
    #: Whether a category may be declared ``undirected`` (a symmetric relation label).
    undirected_categories: bool = False
    #: Whether the question takes ``min_value``/``max_value``.
    takes_range: bool = False
    #: The lowest value allowed whatever the declared range (ratio numbers: 0).
    lowest_value: float | None = None
    #: Whether the question takes ``span_unit`` (what offsets count).
    takes_span_unit: bool = False
    #: Whether values are ordered categories (ordinal: weighted kappa, midranks).
    ordered_categories: bool = False
    #: The computation's defaults (coefficients, level, distance, bootstrap, ...).
    defaults: Mapping[str, Any] = field(default_factory=dict)
    #: Coefficients that can be asked of this kind (None: every label coefficient).
    coefficients: tuple[str, ...] | None = None
    #: Coefficients with a per-item (per-document) decomposition: a bootstrap difference
    #: of two rounds (None: every coefficient of the label report).
    comparable: tuple[str, ...] | None = None
    #: By distance: coefficients a computation split by item ranges adds up from sums.
    item_decompositions: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Level and distance of alpha against a reference (adjudication, gold).
    reference_distance: tuple[str, str] | None = None
    #: Whether a plan may model the pilot's categories (assumed distributions, other designs).
    plan_model: bool = False
    #: Features this kind has, and why each other one is refused.
    features: frozenset[Feature] = frozenset()
    refusals: Mapping[Feature, str] = field(default_factory=dict)
    #: The kind whose scheme maps a tool file's labels of this kind onto categories (a
    #: span's units carry nominal labels); None: this kind's own.
    file_labels_as: str | None = None
    #: How a structured value crosses the server's edges (form STRUCTURED only).
    structured: StructuredValues | None = None
    #: How Label Studio names a result of this kind (``choices``, ``number``, ``labels``, ...).
    label_studio_type: str = "choices"
    #: How the alternative annotator test scores a label's alignment with the other humans
    #: (``metrics.models.ALT_TEST_SCORINGS``: ``accuracy`` for one category, ``neg_rmse``
    #: for a number); None for kinds without :attr:`Feature.MODELS`.
    model_scoring: str | None = None

    @property
    def categorical(self) -> bool:
        """One category per value (a confusion matrix, per-category diagnostics)."""
        return self.form is ValueForm.CATEGORY

    @property
    def category_valued(self) -> bool:
        """Each value is made of declared categories: one, a node, or a set of them."""
        return self.form in (ValueForm.CATEGORY, ValueForm.CATEGORY_SET)

    @property
    def categories_from_labels(self) -> bool:
        """Whether an upload may declare the unknown codes it carries as new categories
        (``create_categories``): flat, unordered categories only; an ordinal scale's order
        and a tree's parents cannot be read from labels."""
        return self.category_valued and not self.ordered_categories and not self.category_tree

    @property
    def numeric(self) -> bool:
        return self.form is ValueForm.NUMBER

    @property
    def units(self) -> bool:
        """A coder's value is a whole document's units, not one label per item."""
        return self.form is ValueForm.UNITS

    def supports(self, feature: Feature) -> bool:
        return feature in self.features

    def require(self, feature: Feature) -> None:
        """Refuse, with the reason, a feature this kind does not have."""
        if feature not in self.features:
            reason = self.refusals.get(feature) or (
                f"{self.key.capitalize()} questions have no {FEATURE_TEXT[feature]}."
            )
            raise KindRefusalError(kind=self.key, feature=feature, reason=reason)

    @property
    def parameters(self) -> frozenset[str]:
        """The computation parameters a question of this kind takes: its defaults' names
        (the API lets them through and the kind's ``parameter_errors`` checks them)."""
        return frozenset(self.defaults)

    def default_parameters(self) -> dict[str, Any]:
        """A fresh copy of the defaults (lists copied, so a caller may change them)."""
        return {
            name: list(value) if isinstance(value, list | tuple) else value
            for name, value in self.defaults.items()
        }

    def reference_level(self) -> tuple[str, str]:
        """The level and distance of alpha against a reference (refused without one)."""
        self.require(Feature.REFERENCE)
        if self.reference_distance is None:
            raise ValueError(f"The {self.key} kind declares no distance to a reference.")
        return self.reference_distance

    def decomposable(self, distance: str) -> tuple[str, ...]:
        return self.item_decompositions.get(distance, ())
