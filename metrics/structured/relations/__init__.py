"""Agreement on relations: labelled links between units (spans) of a document.

- :class:`RelationData`: ``RelationData.from_long(documents, coders, head_begin, head_end,
  tail_begin, tail_end, labels, *, undirected=())`` ("annotated, no relation" kept);
- :func:`relation_f1`, :func:`decompose_relation_f1`: relation F1 between coder pairs on exact
  tuples or with units matched by overlap, micro over documents, averaged over pairs, per
  label;
- :func:`relation_alpha`, :func:`decompose_relation_alpha`: nominal alpha on the candidate
  unit pairs (the label or "no relation"), units aligned as the span kind aligns them;
- :func:`relation_report`, :func:`read_relations`: the JSON of ``python -m metrics report FILE
  --level relation`` and its CSV reader.
"""

from __future__ import annotations

from metrics.structured.relations.alpha import (
    NO_RELATION,
    RelationAlpha,
    decompose_relation_alpha,
    relation_alpha,
    relation_reliability_data,
)
from metrics.structured.relations.data import RelationData
from metrics.structured.relations.f1 import (
    PairRelationF1,
    RelationF1,
    decompose_relation_f1,
    relation_f1,
)
from metrics.structured.relations.reader import RELATION_FIELDS, read_relations
from metrics.structured.relations.report import relation_report

__all__ = [
    "NO_RELATION",
    "RELATION_FIELDS",
    "PairRelationF1",
    "RelationAlpha",
    "RelationData",
    "RelationF1",
    "decompose_relation_alpha",
    "decompose_relation_f1",
    "read_relations",
    "relation_alpha",
    "relation_f1",
    "relation_reliability_data",
    "relation_report",
]
