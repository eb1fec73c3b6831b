"""Agreement on structured annotations: relations, rankings, pairwise preferences, free text.

Each kind is a subpackage with a data type built from long rows, its measures (each with a
``decompose_*`` twin for the bootstrap where it has one), a ``<kind>_report(data, ...)``
returning the JSON of ``python -m metrics report FILE --level <kind>``, and a CSV reader:

- :mod:`metrics.structured.preferences`: :class:`PreferenceData`, :func:`preference_alpha`,
  :func:`position_bias`, :func:`circular_triads`, :func:`preference_report`;
- :mod:`metrics.structured.rankings`: :class:`RankingData`, :func:`kendall_w`,
  :func:`ranking_alpha`, :func:`consensus_agreement`, :func:`ranking_report`;
- :mod:`metrics.structured.relations`: :class:`RelationData`, :func:`relation_f1`,
  :func:`relation_alpha`, :func:`relation_report`;
- :mod:`metrics.structured.texts`: :class:`TextData`, :func:`text_alpha`, :func:`text_report`.

Krippendorff's alpha is defined for any distance between two values (Artstein & Poesio 2008,
§2.6 and §3): a ranking or a text is a value, compared with a distance of its own.
"""

from __future__ import annotations

from metrics.structured._pairwise import (
    AUTO_EXACT_PAIRS,
    DEFAULT_EXPECTED_PAIRS,
    EXPECTED_METHODS,
    MAX_SAMPLED_PAIRS,
)
from metrics.structured.preferences import (
    PositionBias,
    PreferenceData,
    circular_triads,
    decompose_preference_alpha,
    position_bias,
    preference_alpha,
    preference_report,
    read_preferences,
)
from metrics.structured.rankings import (
    KendallW,
    RankingAlpha,
    RankingData,
    consensus_agreement,
    decompose_kendall_w,
    decompose_ranking_alpha,
    kendall_w,
    ranking_alpha,
    ranking_report,
    read_rankings,
)
from metrics.structured.relations import (
    RelationAlpha,
    RelationData,
    RelationF1,
    decompose_relation_alpha,
    decompose_relation_f1,
    read_relations,
    relation_alpha,
    relation_f1,
    relation_report,
)
from metrics.structured.texts import (
    TextAlpha,
    TextData,
    decompose_text_alpha,
    read_texts,
    text_alpha,
    text_report,
)

__all__ = [
    "AUTO_EXACT_PAIRS",
    "DEFAULT_EXPECTED_PAIRS",
    "EXPECTED_METHODS",
    "MAX_SAMPLED_PAIRS",
    "KendallW",
    "PositionBias",
    "PreferenceData",
    "RankingAlpha",
    "RankingData",
    "RelationAlpha",
    "RelationData",
    "RelationF1",
    "TextAlpha",
    "TextData",
    "circular_triads",
    "consensus_agreement",
    "decompose_kendall_w",
    "decompose_preference_alpha",
    "decompose_ranking_alpha",
    "decompose_relation_alpha",
    "decompose_relation_f1",
    "decompose_text_alpha",
    "kendall_w",
    "position_bias",
    "preference_alpha",
    "preference_report",
    "ranking_alpha",
    "ranking_report",
    "read_preferences",
    "read_rankings",
    "read_relations",
    "read_texts",
    "relation_alpha",
    "relation_f1",
    "relation_report",
    "text_alpha",
    "text_report",
]
