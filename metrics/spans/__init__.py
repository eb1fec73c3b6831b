"""Agreement on spans and segments: where units are on a continuum and what they are.

- :class:`SpanData`: units ``(document, coder, begin, end, category)`` with each document's
  extent and which coders annotated it.
"""

from __future__ import annotations

from metrics.spans.data import SpanData

__all__ = ["SpanData"]
