"""Per-item diagnostics of one round, computed on the worker and stored beside the
computation (``ComputationItemTable``) for the item downloads, which only read them.

Per item: how many coders labelled it, how many distinct labels, the most frequent one and
its share, the share of agreeing coder pairs, (numbers) mean and spread, and every coder's
stored label. Labels are kept as stored (category id, number, category set): the downloads
turn them into text or JSON with the question's scheme, as the annotation exports do.

A computation split by items (``computations/item_sums.py``) stores the same table: each
item-range worker writes its items' rows as ``pack`` does, with the indices of the scope's
coders (``chunk_item_rows``; an item's row depends on that item's labels only), beside its
sums, and the merge step joins them in item order, one range at a time, under the scope's
coders (``store_split_item_table``): the JSON ``pack`` gives for the whole round.
"""

from __future__ import annotations

import gc
import json
import zlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from computations import scope
from computations.models import (
    Computation,
    ComputationItemChunk,
    ComputationItemTable,
    ComputationScope,
)
from studies.kinds import ValueForm, kind_of
from studies.labels import Label, label_of
from studies.models import Annotation

TABLE_VERSION = 1
_STREAM_CHUNK = 20_000
_SEPARATORS = (",", ":")
_LEVEL = 6


@dataclass(frozen=True)
class ItemTable:
    """``coders`` sorted by key; ``items`` in item order, each a dict of the figures plus
    ``item``, ``majority`` (a stored label or None) and ``labels`` (coder -> stored label)."""

    coders: list[str]
    items: list[dict[str, Any]]


def _item_figures(labels: list[Label], numeric: bool) -> dict[str, Any]:
    counts = Counter(labels)
    n = len(labels)
    majority, top = counts.most_common(1)[0]
    agreeing_pairs = sum(c * (c - 1) // 2 for c in counts.values())
    pairs = n * (n - 1) // 2
    out: dict[str, Any] = {
        "n_coders": n,
        "n_distinct": len(counts),
        # No majority when no label was chosen by two coders or more (a tie of single votes).
        "majority": majority if top > 1 or n == 1 else None,
        "majority_share": top / n,
        "pairwise_agreement": agreeing_pairs / pairs if pairs else None,
    }
    if numeric:
        numbers = [label[1] for label in labels if label[1] is not None]
        out["mean"] = sum(numbers) / len(numbers)
        out["spread"] = max(numbers) - min(numbers)
    return out


@contextmanager
def _without_cyclic_gc() -> Iterator[None]:
    """Build a table with the cyclic garbage collector paused: the rows are millions of
    small lists and dicts without cycles (freed by reference counting), and the collector's
    passes over them took half of a range's time (6 s of 12 per 500,000 annotations)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def item_diagnostics(
    *, round_id: int, question_id: int, kind: str, item_range: tuple[int, int] | None = None
) -> ItemTable:
    """Read one round and question's labels (one streamed query) and compute each item's
    figures; ``item_range`` (first and last item id, inclusive) reads that range only."""
    annotations = Annotation.objects.filter(round_id=round_id, question_id=question_id)
    if item_range is not None:
        first, last = item_range
        annotations = annotations.filter(item_id__gte=first, item_id__lte=last)
    # Only set questions read ``category_set``: its JSON converter costs a call per row.
    sets = kind_of(kind).form is ValueForm.CATEGORY_SET
    columns = ("item__external_id", "coder__key", "category_id", "number")
    rows = annotations.order_by("item_id", "coder__key").values_list(
        *columns, *(("category_set",) if sets else ())
    )
    by_item: dict[str, dict[str, Label]] = {}
    coders: set[str] = set()
    for row in rows.iterator(chunk_size=_STREAM_CHUNK):
        by_item.setdefault(row[0], {})[row[1]] = label_of(row[2], row[3], row[4] if sets else None)
        coders.add(row[1])
    numeric = kind_of(kind).numeric
    items = [
        {"item": item, **_item_figures(list(labels.values()), numeric), "labels": labels}
        for item, labels in by_item.items()
    ]
    return ItemTable(coders=sorted(coders), items=items)


def _packed_items(table: ItemTable, index: dict[str, int]) -> list[dict[str, Any]]:
    """The items as stored: each item's labels as ``[coder index, category, number, set]``."""
    return [
        {
            **{k: v for k, v in entry.items() if k != "labels"},
            "labels": [[index[c], *label] for c, label in entry["labels"].items()],
        }
        for entry in table.items
    ]


def pack(table: ItemTable) -> bytes:
    """Compressed JSON; each item's labels as ``[coder index, category, number, set]``."""
    index = {coder: i for i, coder in enumerate(table.coders)}
    body = {"version": TABLE_VERSION, "coders": table.coders, "items": _packed_items(table, index)}
    return zlib.compress(json.dumps(body, separators=_SEPARATORS).encode(), _LEVEL)


def unpack(data: bytes | memoryview) -> ItemTable:
    body = json.loads(zlib.decompress(bytes(data)))
    coders = body["coders"]
    items = []
    for entry in body["items"]:
        majority = entry.get("majority")
        items.append(
            {
                **entry,
                "majority": label_of(*majority) if majority is not None else None,
                "labels": {coders[c]: label_of(*label) for c, *label in entry["labels"]},
            }
        )
    return ItemTable(coders=coders, items=items)


def table_round(computation: Computation) -> int | None:
    """The round whose item table the computation stores: a one-round computation's. Other
    scopes pool rounds and store none."""
    if computation.scope != ComputationScope.ROUND:
        return None
    round_ids = list(computation.rounds.values_list("pk", flat=True))
    return round_ids[0] if len(round_ids) == 1 else None


def store_item_table(computation: Computation) -> ComputationItemTable | None:
    """Compute and store the item table of a one-round computation (again on a redelivered
    message: the same rows are written). Other scopes pool rounds and get none."""
    round_id = table_round(computation)
    if round_id is None:
        return None
    with _without_cyclic_gc():
        table = item_diagnostics(
            round_id=round_id,
            question_id=computation.question_id,
            kind=computation.question.kind,
        )
        n_items, packed = len(table.items), pack(table)
        del table
    stored, _ = ComputationItemTable.objects.update_or_create(
        computation=computation, defaults={"n_items": n_items, "table": packed}
    )
    return stored


# -- a computation split by items --------------------------------------------------------------


class ChangedWhileSplitError(ValueError):
    """A range's coders are not the scope's: the annotations changed meanwhile."""

    def __init__(self) -> None:
        super().__init__(
            "The annotations changed while the computation ran split by items; request the "
            "computation again."
        )


def sorted_coder_keys(coder_ids: Sequence[int]) -> list[str]:
    """The keys of the scope's coders (as the split planned them), sorted: the table's
    coders."""
    return sorted(scope.coder_keys(coder_ids).values())


def chunk_item_rows(
    computation: Computation,
    *,
    round_id: int,
    item_range: tuple[int, int],
    coder_ids: Sequence[int],
) -> bytes | None:
    """One item range's share of the table, or None when the computation stores no item
    table: the JSON text of its items as ``pack`` writes them, with the indices of the
    scope's coders (``coder_ids``, as the split planned them), without the list's brackets,
    compressed fast (it is decompressed once, by the merge step)."""
    if table_round(computation) != round_id:
        return None
    index = {coder: i for i, coder in enumerate(sorted_coder_keys(coder_ids))}
    with _without_cyclic_gc():
        table = item_diagnostics(
            round_id=round_id,
            question_id=computation.question_id,
            kind=computation.question.kind,
            item_range=item_range,
        )
        try:
            text = json.dumps(_packed_items(table, index), separators=_SEPARATORS)[1:-1]
        except KeyError:
            raise ChangedWhileSplitError from None
        del table
    return zlib.compress(text.encode(), 1)


def assemble(coders: Sequence[str], parts: Iterable[bytes]) -> bytes:
    """The table of a split computation from its ranges' ``chunk_item_rows``, in item order:
    the bytes ``pack`` gives for the whole scope once decompressed, compressed one range at
    a time (no range is parsed; one is held at once)."""
    compressor = zlib.compressobj(_LEVEL)
    head = json.dumps({"version": TABLE_VERSION, "coders": list(coders)}, separators=_SEPARATORS)
    out = [compressor.compress(f'{head[:-1]},"items":['.encode())]
    written = False
    for part in parts:
        text = zlib.decompress(part)
        if not text:
            continue
        out.append(compressor.compress(b"," + text if written else text))
        written = True
    out.append(compressor.compress(b"]}"))
    out.append(compressor.flush())
    return b"".join(out)


class _RangeWithoutRowsError(Exception):
    """An item range computed before ranges kept their rows."""


def _chunk_rows(computation: Computation, counted: list[int]) -> Iterator[bytes]:
    """Each item range's rows in item order, read one range at a time; each range's item
    count (from its summary) is added to ``counted``."""
    chunks = ComputationItemChunk.objects.filter(computation=computation).order_by("index")
    for chunk_id in list(chunks.values_list("pk", flat=True)):
        rows, summary = ComputationItemChunk.objects.values_list("item_rows", "summary").get(
            pk=chunk_id
        )
        if rows is None:
            raise _RangeWithoutRowsError
        counted.append(int((summary or {})["n_items"]))
        yield bytes(rows)


def store_split_item_table(
    computation: Computation, coder_ids: Sequence[int]
) -> ComputationItemTable | None:
    """Store the item table of a one-round computation split by items from its ranges' rows
    (``coder_ids``: the scope's coders, as the split planned them); the same rows again on
    a second merge. None for other scopes, or when a range has no rows (computed before
    ranges kept them): the download then asks for a computation again."""
    if table_round(computation) is None:
        return None
    counted: list[int] = []
    try:
        table = assemble(sorted_coder_keys(coder_ids), _chunk_rows(computation, counted))
    except _RangeWithoutRowsError:
        return None
    stored, _ = ComputationItemTable.objects.update_or_create(
        computation=computation, defaults={"n_items": sum(counted), "table": table}
    )
    return stored
