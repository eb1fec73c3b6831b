"""Agreement on pairwise preferences: A, B or tie, and which option was shown first.

- :class:`PreferenceData`: ``PreferenceData.from_long(items, coders, choices, shown_first,
  *, option_a=None, option_b=None)``;
- :func:`preference_alpha`, :func:`decompose_preference_alpha`: alpha on the choice, nominal
  or with the tie in the middle of an ordinal scale;
- :func:`position_bias`: the share of non-tie choices that picked the option shown first,
  per coder and overall, with the exact binomial test;
- :func:`circular_triads`: each coder's circular triads and coefficient of consistence where
  options recur;
- :func:`preference_report`, :func:`read_preferences`: the JSON of ``python -m metrics
  report FILE --level preference`` and its CSV reader.
"""

from __future__ import annotations

from metrics.structured.preferences.alpha import (
    decompose_preference_alpha,
    preference_alpha,
    preference_reliability_data,
)
from metrics.structured.preferences.bias import BiasResult, PositionBias, position_bias
from metrics.structured.preferences.data import CHOICES, PreferenceData
from metrics.structured.preferences.reader import (
    OPTION_FIELDS,
    PREFERENCE_FIELDS,
    read_preferences,
)
from metrics.structured.preferences.report import preference_report
from metrics.structured.preferences.triads import Consistency, circular_triads

__all__ = [
    "CHOICES",
    "OPTION_FIELDS",
    "PREFERENCE_FIELDS",
    "BiasResult",
    "Consistency",
    "PositionBias",
    "PreferenceData",
    "circular_triads",
    "decompose_preference_alpha",
    "position_bias",
    "preference_alpha",
    "preference_reliability_data",
    "preference_report",
    "read_preferences",
]
