"""Agreement on free text: captions, summaries, corrections.

- :class:`TextData`: each coder's text per item (``TextData.from_long(items, coders, texts)``);
- :func:`text_alpha`, :func:`decompose_text_alpha`: Krippendorff's alpha with the normalised
  Levenshtein distance, token Jaccard, or a user-supplied distance (matrix, mapping, callable);
- :func:`levenshtein`, :func:`normalized_levenshtein`, :func:`token_jaccard`: the distances of
  two texts (:class:`TextCodes` and :class:`TokenSets` for many pairs at once);
- :func:`text_report`, :func:`read_texts`, :func:`read_text_distances`: the JSON of
  ``python -m metrics report FILE --level text``, its CSV reader and the reader of
  user-supplied distances (``--distance-file``).
"""

from __future__ import annotations

from metrics.structured.texts.alpha import (
    TEXT_DISTANCES,
    TextAlpha,
    decompose_text_alpha,
    text_alpha,
    text_distance,
)
from metrics.structured.texts.data import TextData
from metrics.structured.texts.jaccard import JaccardDistance, TokenSets, token_jaccard
from metrics.structured.texts.levenshtein import (
    TextCodes,
    levenshtein,
    levenshtein_pairs,
    normalized_levenshtein,
    normalized_levenshtein_pairs,
)
from metrics.structured.texts.reader import (
    DISTANCE_FIELDS,
    TEXT_FIELDS,
    read_text_distances,
    read_texts,
)
from metrics.structured.texts.report import DEFAULT_MAX_PAIRS, text_report

__all__ = [
    "DEFAULT_MAX_PAIRS",
    "DISTANCE_FIELDS",
    "TEXT_DISTANCES",
    "TEXT_FIELDS",
    "JaccardDistance",
    "TextAlpha",
    "TextCodes",
    "TextData",
    "TokenSets",
    "decompose_text_alpha",
    "levenshtein",
    "levenshtein_pairs",
    "normalized_levenshtein",
    "normalized_levenshtein_pairs",
    "read_text_distances",
    "read_texts",
    "text_alpha",
    "text_distance",
    "text_report",
    "token_jaccard",
]
