"""Parsers of labeling tools' export formats, registered by name in ``FORMATS``.

Importing this package registers every format module.
"""

from __future__ import annotations

from exchange.formats import doccano, generic, inception, label_studio, prodigy
from exchange.formats.base import (
    FORMATS,
    ImportFormat,
    MalformedFileError,
    ParsedFile,
    ParsedRow,
    ParseOptions,
    Rejection,
)

__all__ = [
    "FORMATS",
    "ImportFormat",
    "MalformedFileError",
    "ParseOptions",
    "ParsedFile",
    "ParsedRow",
    "Rejection",
    "doccano",
    "generic",
    "inception",
    "label_studio",
    "prodigy",
]
