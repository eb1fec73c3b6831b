"""Review entries written for people and labeling tools: a CSV and a Label Studio task list.

CSV columns, one row per entry and coder (an entry with no label has one row, empty coder):
``entry`` (id), ``round`` (name), ``question`` (key), ``item`` (external id), ``reason``
(criteria matched, comma-separated), ``n_coders``, ``agreement`` (share of agreeing coder
pairs, empty with fewer than two coders), ``coder`` (key), ``label`` (label text),
``resolved_at`` (ISO time, empty while in the queue), ``resolution``, ``note``. Cells
are neutralised against spreadsheet formulas (``studies.text_rules.write_csv``).

The Label Studio task list has one task per entry: ``data`` holds the item's text (``text``)
and the review's facts; ``predictions`` has one prediction per coder, its ``model_version``
the coder key and its ``result`` the coder's label on the control named after the question
(``choices`` for categories, ``number`` for numbers), so a reviewer sees each coder's label
and accepts or corrects one.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from review.models import ReviewEntry
from studies.kinds import Kind, ValueForm
from studies.text_rules import write_csv

CSV_HEADER = (
    "entry",
    "round",
    "question",
    "item",
    "reason",
    "n_coders",
    "agreement",
    "coder",
    "label",
    "resolved_at",
    "resolution",
    "note",
)
_NUMERIC = {0, 5, 6}


def review_csv(entries: Iterable[ReviewEntry]) -> str:
    rows: list[list[Any]] = []
    for entry in entries:
        head = [
            entry.pk,
            entry.round.name,
            entry.question.key,
            entry.item.external_id,
            entry.reason,
            entry.n_coders,
            entry.agreement,
        ]
        tail = [
            entry.resolved_at.isoformat() if entry.resolved_at else None,
            entry.resolution,
            entry.resolution_note,
        ]
        for coder, label in sorted(entry.labels.items()) or [(None, None)]:
            rows.append([*head, coder, label, *tail])
    return write_csv(CSV_HEADER, rows, numeric=_NUMERIC)


def _result(kind: Kind, question_key: str, label: str) -> dict[str, Any]:
    value: dict[str, Any]
    if kind.numeric:
        value = {"number": float(label)}
    else:
        members = label.split("|") if kind.form is ValueForm.CATEGORY_SET else [label]
        value = {"choices": members}
    return {
        "from_name": question_key,
        "to_name": "text",
        "type": kind.label_studio_type,
        "value": value,
    }


def review_label_studio(entries: Iterable[ReviewEntry]) -> list[dict[str, Any]]:
    """Label Studio tasks (its JSON import format with ``predictions``), one per entry."""
    tasks = []
    for entry in entries:
        question = entry.question
        tasks.append(
            {
                "data": {
                    "text": entry.item.text,
                    "item": entry.item.external_id,
                    "round": entry.round.name,
                    "review_entry": entry.pk,
                    "review_reason": entry.reason,
                },
                "predictions": [
                    {
                        "model_version": coder,
                        "result": [_result(question.label_kind, question.key, label)],
                    }
                    for coder, label in sorted(entry.labels.items())
                ],
            }
        )
    return tasks
