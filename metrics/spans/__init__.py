"""Agreement on spans and segments: where units are on a continuum and what they are.

- :class:`SpanData`: units ``(document, coder, begin, end, category)`` with each document's
  extent and which coders annotated it (found nothing vs did not annotate);
- :func:`unitizing_alpha`: Krippendorff's α_U, overall and per category;
- :func:`gamma_agreement`, :func:`gamma_cat`: Mathet et al.'s γ and γ-cat (units aligned by
  an exact optimiser, expected disorder by seeded sampling);
- :func:`span_f1`: pairwise span F1, exact or by overlap, micro and per category
  (:func:`matched_units`: the unit pairs it matches; :func:`overlapping_units`: the
  candidates of its overlap matching);
- :func:`token_agreement`: alpha or kappa on every position labelled with its category or
  "outside" (the NER literature's baseline);
- :func:`pk`, :func:`window_diff`, :func:`segmentation_agreement`: window error rates of
  segmentations (lower is better; not chance-corrected);
- :func:`span_report` and :func:`read_spans`: everything at once, as
  ``python -m metrics report FILE --level span`` prints it.

Each measure that decomposes over documents has a ``decompose_*`` twin for the bootstrap.
"""

from __future__ import annotations

from metrics.spans.data import SpanData
from metrics.spans.f1 import (
    MatchedUnits,
    PairF1,
    SpanF1,
    decompose_span_f1,
    matched_units,
    overlapping_units,
    span_f1,
)
from metrics.spans.gamma import Gamma, decompose_gamma, gamma_agreement, gamma_cat
from metrics.spans.reader import read_continuum, read_spans
from metrics.spans.report import SPAN_COEFFICIENT_KEYS, format_span_table, span_report
from metrics.spans.segmentation import (
    PairSegmentation,
    SegmentationAgreement,
    decompose_segmentation,
    pk,
    segmentation_agreement,
    window_diff,
)
from metrics.spans.tokens import (
    OUTSIDE,
    decompose_token_agreement,
    token_agreement,
    token_reliability_data,
)
from metrics.spans.unitizing import (
    CategoryAlpha,
    UnitizingAlpha,
    decompose_unitizing_alpha,
    segment_distance,
    unitizing_alpha,
    unitizing_document_disagreement,
)

__all__ = [
    "OUTSIDE",
    "SPAN_COEFFICIENT_KEYS",
    "CategoryAlpha",
    "Gamma",
    "MatchedUnits",
    "PairF1",
    "PairSegmentation",
    "SegmentationAgreement",
    "SpanData",
    "SpanF1",
    "UnitizingAlpha",
    "decompose_gamma",
    "decompose_segmentation",
    "decompose_span_f1",
    "decompose_token_agreement",
    "decompose_unitizing_alpha",
    "format_span_table",
    "gamma_agreement",
    "gamma_cat",
    "matched_units",
    "overlapping_units",
    "pk",
    "read_continuum",
    "read_spans",
    "segment_distance",
    "segmentation_agreement",
    "span_f1",
    "span_report",
    "token_agreement",
    "token_reliability_data",
    "unitizing_alpha",
    "unitizing_document_disagreement",
    "window_diff",
]
