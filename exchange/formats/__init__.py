"""Parsers of labeling tools' export formats, registered by name in ``FORMATS``.

Importing this package registers every format module.
"""

from __future__ import annotations

from exchange.formats import (
    argilla,
    brat,
    coco,
    conll,
    cvat,
    doccano,
    generic,
    inception,
    label_studio,
    prodigy,
    prodigy_relations,
    webanno_tsv,
    webanno_tsv_relations,
)
from exchange.formats.base import (
    FORMATS,
    ImportFormat,
    MalformedFileError,
    ParsedDocument,
    ParsedFile,
    ParsedImage,
    ParsedRegion,
    ParsedRow,
    ParsedSpan,
    ParseOptions,
    Rejection,
)

__all__ = [
    "FORMATS",
    "ImportFormat",
    "MalformedFileError",
    "ParseOptions",
    "ParsedDocument",
    "ParsedFile",
    "ParsedImage",
    "ParsedRegion",
    "ParsedRow",
    "ParsedSpan",
    "Rejection",
    "argilla",
    "brat",
    "coco",
    "conll",
    "cvat",
    "doccano",
    "generic",
    "inception",
    "label_studio",
    "prodigy",
    "prodigy_relations",
    "webanno_tsv",
    "webanno_tsv_relations",
]
