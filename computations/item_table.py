"""Per-item diagnostics of one round, computed on the worker and stored beside the
computation (``ComputationItemTable``) for the item downloads, which only read them.

Per item: how many coders labelled it, how many distinct labels, the most frequent one and
its share, the share of agreeing coder pairs, (numbers) mean and spread, and every coder's
stored label. Labels are kept as stored (category id, number, category set): the downloads
turn them into text or JSON with the question's scheme, as the annotation exports do.

A computation split by items (``computations/item_sums.py``) stores no table: its workers
each read a range of items and keep only their sums.
"""

from __future__ import annotations

import json
import zlib
from collections import Counter
from dataclasses import dataclass
from typing import Any

from computations.models import Computation, ComputationItemTable, ComputationScope
from studies.labels import Label, label_of
from studies.models import Annotation, LabelKind

TABLE_VERSION = 1
_STREAM_CHUNK = 20_000


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


def item_diagnostics(*, round_id: int, question_id: int, kind: str) -> ItemTable:
    """Read one round and question's labels (one streamed query) and compute each item's
    figures."""
    rows = (
        Annotation.objects.filter(round_id=round_id, question_id=question_id)
        .order_by("item_id", "coder__key")
        .values_list("item__external_id", "coder__key", "category_id", "number", "category_set")
    )
    by_item: dict[str, dict[str, Label]] = {}
    coders: set[str] = set()
    for item, coder, category_id, number, category_set in rows.iterator(chunk_size=_STREAM_CHUNK):
        by_item.setdefault(item, {})[coder] = label_of(category_id, number, category_set)
        coders.add(coder)
    numeric = kind in (LabelKind.INTERVAL, LabelKind.RATIO)
    items = [
        {"item": item, **_item_figures(list(labels.values()), numeric), "labels": labels}
        for item, labels in by_item.items()
    ]
    return ItemTable(coders=sorted(coders), items=items)


def pack(table: ItemTable) -> bytes:
    """Compressed JSON; each item's labels as ``[coder index, category, number, set]``."""
    index = {coder: i for i, coder in enumerate(table.coders)}
    items = [
        {
            **{k: v for k, v in entry.items() if k != "labels"},
            "labels": [[index[c], *label] for c, label in entry["labels"].items()],
        }
        for entry in table.items
    ]
    body = {"version": TABLE_VERSION, "coders": table.coders, "items": items}
    return zlib.compress(json.dumps(body, separators=(",", ":")).encode(), 6)


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


def store_item_table(computation: Computation) -> ComputationItemTable | None:
    """Compute and store the item table of a one-round computation (again on a redelivered
    message: the same rows are written). Other scopes pool rounds and get none."""
    if computation.scope != ComputationScope.ROUND:
        return None
    round_ids = list(computation.rounds.values_list("pk", flat=True))
    if len(round_ids) != 1:
        return None
    table = item_diagnostics(
        round_id=round_ids[0],
        question_id=computation.question_id,
        kind=computation.question.kind,
    )
    stored, _ = ComputationItemTable.objects.update_or_create(
        computation=computation, defaults={"n_items": len(table.items), "table": pack(table)}
    )
    return stored
