"""Label Studio results whose value is a whole structure per task and annotator: a free
text (``textarea``), a ranking of a list's items (``ranker``) and a choice between two
objects (``pairwise``). Each becomes the rows of the question's own CSV shape
(``item,coder,text``; ``item,coder,option,rank``; ``item,coder,choice,shown_first``),
written through the structured upload as the ``structured_csv`` import's are.

- ``textarea``: ``value.text`` is a list of the texts the annotator submitted; one text is
  the value, several are joined by a line break (one text per item and coder). A textarea
  attached to a region (``perRegion``: the value also holds the region's ``start``, ``x``...)
  is rejected: its text belongs to the region, not to the task.
- ``ranker``: ``value.ranker`` maps a column to the ids of the list's items in their order
  (Label Studio's Ranker tag, web/libs/editor/src/tags/control/Ranker.jsx). Without
  buckets the one column is the tag's own name and its order is the ranking: the first id
  is rank 1. Items left in the column ``_`` were not ranked (a partial ranking). Buckets
  (several named columns) group items without ranking them and are rejected.
- ``pairwise``: ``value.selected`` is ``left`` or ``right`` (Pairwise.js). The left object
  (the first name of the tag's ``toName``) is option ``A``, the right ``B``; Label Studio
  draws the left one first, so ``shown_first`` is ``A``. Position bias then reads as the
  share of left picks, which says something about the raters only when the tasks put the
  options on the left at random.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from exchange.formats.base import ImportErrorCode, ParsedFile, ParsedRegion, key_text
from studies.kinds import KINDS

#: The column a ranker result keeps the list's unranked items in.
UNRANKED = "_"

Cells = list[dict[str, Any]]


class _RefusedError(ValueError):
    def __init__(self, field: str, detail: str) -> None:
        super().__init__(detail)
        self.field = field
        self.detail = detail


def _text(value: Mapping[str, Any], from_name: str) -> Cells:
    if any(key in value for key in ("start", "x", "points", "labels")):
        raise _RefusedError(
            "value",
            "A per-region textarea result (its text belongs to a region) is not imported; "
            "only a textarea of the whole task is.",
        )
    texts = value.get("text")
    if isinstance(texts, str):
        texts = [texts]
    if not isinstance(texts, list) or not all(isinstance(text, str) for text in texts):
        raise _RefusedError("value.text", "value.text must be a list of texts.")
    return [{"text": "\n".join(texts)}]


def _ranking(value: Mapping[str, Any], from_name: str) -> Cells:
    columns = value.get("ranker")
    if not isinstance(columns, dict):
        raise _RefusedError("value.ranker", "value.ranker must map a column to the items' ids.")
    ranked = {name: ids for name, ids in columns.items() if name != UNRANKED}
    if len(ranked) != 1:
        raise _RefusedError(
            "value.ranker",
            f"A ranker result has one ranked column (got {', '.join(map(repr, ranked)) or 'none'}"
            "): a Ranker with Buckets groups items without ranking them, so it is not imported.",
        )
    (ids,) = ranked.values()
    if not isinstance(ids, list) or not ids:
        raise _RefusedError("value.ranker", "The ranked column must list at least one item id.")
    options = [key_text(item) for item in ids]
    if any(option is None for option in options):
        raise _RefusedError("value.ranker", "An item id must be a text or an integer.")
    if len(set(options)) != len(options):
        raise _RefusedError("value.ranker", "The ranked column names an item twice.")
    return [{"option": option, "rank": rank} for rank, option in enumerate(options, start=1)]


_SIDES = {"left": "A", "right": "B"}


def _preference(value: Mapping[str, Any], from_name: str) -> Cells:
    side = value.get("selected")
    choice = _SIDES.get(side) if isinstance(side, str) else None
    if choice is None:
        raise _RefusedError("value.selected", "value.selected must be left or right.")
    return [{"choice": choice, "shown_first": "A"}]


#: The reader of each Label Studio result type this module imports.
READERS: Mapping[str, Callable[[Mapping[str, Any], str], Cells]] = {
    "textarea": _text,
    "ranker": _ranking,
    "pairwise": _preference,
}
#: The kind of question each of them goes to (the kind that exports that type).
KIND_OF: Mapping[str, str] = {
    kind.label_studio_type: key
    for key, kind in KINDS.items()
    if kind.label_studio_type in READERS and kind.structured is not None
}
STRUCTURED_TYPES = tuple(READERS)


def structured_result(
    parsed: ParsedFile,
    *,
    item: str,
    coder: str,
    source: str,
    from_name: str,
    kind: str,
    result: Mapping[str, Any],
) -> None:
    """Read one textarea, ranker or pairwise result into ``parsed.regions`` (the rows of
    its question's CSV shape), or a rejection naming the field."""
    value = result.get("value")
    try:
        if not isinstance(value, dict):
            raise _RefusedError("value", "value is missing.")
        rows = READERS[kind](value, from_name)
    except _RefusedError as refused:
        parsed.reject(
            source,
            refused.field,
            ImportErrorCode.INVALID_TYPE,
            refused.detail,
            tool_field=from_name,
            pair=(item, coder),
        )
        return
    parsed.regions.extend(
        ParsedRegion(source, item, coder, KIND_OF[kind], cells, from_name) for cells in rows
    )
