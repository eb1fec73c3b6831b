"""Span: units (begin, end, category) a coder marks on a document; a coder's annotation
of a document is all its units, replaced whole ("annotated, found nothing" is kept).

Measured by Krippendorff's unitizing alpha, Mathet et al.'s gamma, span F1, token-level
agreement and segmentation distances (``metrics.spans``). Units are not items: the
features that work item by item are refused with the reason.
"""

from typing import Any

from studies.kinds.base import Feature, Kind, ValueForm
from studies.kinds.common import INTERVAL_DEFAULTS
from studies.kinds.values import Label, LabelError, LabelErrorCode

#: Every coefficient of a span question (``metrics.spans.span_report``), in display order.
COEFFICIENTS = (
    "alpha_u",
    "gamma",
    "span_f1",
    "span_f1_overlap",
    "token_alpha",
    "token_kappa",
    "pk",
    "window_diff",
)
#: What is computed unless asked otherwise (gamma is costly, token kappa repeats token alpha).
DEFAULT_COEFFICIENTS = tuple(c for c in COEFFICIENTS if c not in ("gamma", "token_kappa"))
#: Coefficients with a per-document decomposition (a bootstrap difference of two rounds).
COMPARABLE = ("alpha_u", "span_f1", "span_f1_overlap")

UPLOAD_HINT = (
    "This is a span question: its annotations are units (begin, end, label), uploaded to "
    "POST /api/v1/studies/{study}/annotations/spans/, not single labels."
)
NOT_ITEMS = "(their units are not items)"


def refuse_single_label(scheme: Any, raw: Any) -> Label:
    """Every single-label path answers 400 for a span question, never 500."""
    raise LabelError(LabelErrorCode.SPAN_QUESTION, UPLOAD_HINT)


KIND = Kind(
    key="span",
    title="Units (begin, end, category) on a continuum",
    form=ValueForm.UNITS,
    parse=refuse_single_label,
    has_categories=True,
    takes_span_unit=True,
    defaults={
        "coefficients": list(DEFAULT_COEFFICIENTS),
        **INTERVAL_DEFAULTS,
        "min_overlap": 0.5,
        "overlapping": "error",
    },
    coefficients=COEFFICIENTS,
    comparable=COMPARABLE,
    refusals={
        Feature.REVIEW: f"Span questions have no review queue {NOT_ITEMS}.",
        Feature.ADJUDICATION: f"Span questions have no item reference {NOT_ITEMS}.",
        Feature.REFERENCE: f"Span questions have no item reference {NOT_ITEMS}.",
        Feature.PLANNING: "its units are not items, so a plan in items does not apply.",
        Feature.QUALITY: "Coder quality models need one category per annotation: nominal or "
        "ordinal questions, not span ones.",
    },
    file_labels_as="nominal",
    label_studio_type="labels",
)
