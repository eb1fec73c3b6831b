"""Agreement on structured annotations: relations, rankings, pairwise preferences, free text.

Each kind is a subpackage with a data type built from long rows, its measures (each with a
``decompose_*`` twin for the bootstrap where it has one), a ``<kind>_report(data, ...)``
returning the JSON of ``python -m metrics report FILE --level <kind>``, and a CSV reader:

- :mod:`metrics.structured.texts`: :class:`TextData`, :func:`text_alpha`, :func:`text_report`.

Krippendorff's alpha is defined for any distance between two values (Artstein & Poesio 2008,
§2.6 and §3): a ranking or a text is a value, compared with a distance of its own.
"""

from __future__ import annotations

from metrics.structured.texts import (
    TextAlpha,
    TextData,
    decompose_text_alpha,
    read_texts,
    text_alpha,
    text_report,
)

__all__ = [
    "TextAlpha",
    "TextData",
    "decompose_text_alpha",
    "read_texts",
    "text_alpha",
    "text_report",
]
