"""Exports in the generic shapes: annotations long and wide, item-level diagnostics, and a
finished computation's results. Pure formatting of what ``selectors_exports`` read; no
database writes.

- long: ``item,coder,label`` (the same shape the long CSV import and the bulk upload take);
- wide: ``item,<coder 1>,...,<coder m>``: the reliability matrix, items in rows (an empty
  cell is a missing label);
- diagnostics: per item, how many coders labelled it, how many distinct labels, the most
  frequent one and its share, the share of agreeing coder pairs, and every coder's label
  (the counterpart of INCEpTION's Diagnosis export), as the worker stored them with the
  round's latest computation (``computations/item_table.py``);
- results: one row per coefficient with its value, standard error and interval;
- spans (span questions): the CLI's ``document,coder,begin,end,label``, one row per unit and
  one row with empty begin, end and label per coder who annotated a document and found
  nothing; as JSON, the span upload's own body (``documents``, ``units``, ``empty``).

Every CSV goes through ``studies.text_rules.write_csv``: text cells (names, codes, headers)
starting with ``=``, ``+``, ``-``, ``@``, TAB or CR get a leading ``'`` so that spreadsheets
do not run them as formulas; the columns listed as numeric keep their numbers as they are.
"""

from __future__ import annotations

import math
from typing import Any

from annotations.selectors import SpanTable, StructuredTable
from computations.models import Computation
from exchange.selectors import AnnotationTable, StoredItemTable
from studies.labels import LabelScheme, format_number
from studies.text_rules import write_csv

LONG_COLUMNS = ("item", "coder", "label")
SPAN_COLUMNS = ("document", "coder", "begin", "end", "label")
DIAGNOSTIC_COLUMNS = (
    "item",
    "n_coders",
    "n_distinct",
    "majority",
    "majority_share",
    "pairwise_agreement",
)
NUMERIC_DIAGNOSTIC_COLUMNS = ("mean", "spread")
RESULT_COLUMNS = ("coefficient", "value", "se", "ci_low", "ci_high", "ci_level")


def _is_numeric(scheme: LabelScheme) -> bool:
    return scheme.spec.numeric


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.6g}" if math.isfinite(value) else ""
    return value


# Annotations ---------------------------------------------------------------------------


def annotations_long_csv(table: AnnotationTable) -> str:
    text = table.scheme.text
    return write_csv(
        LONG_COLUMNS,
        ((item, coder, text(label)) for (item, coder), label in table.labels.items()),
        numeric={2} if _is_numeric(table.scheme) else (),
    )


def annotations_long_json(table: AnnotationTable) -> list[dict[str, Any]]:
    value = table.scheme.json_value
    return [
        {"item": item, "coder": coder, "label": value(label)}
        for (item, coder), label in table.labels.items()
    ]


def annotations_wide_csv(table: AnnotationTable) -> str:
    text, labels = table.scheme.text, table.labels
    return write_csv(
        ["item", *table.coders],
        (
            [item, *(text(labels[(item, c)]) if (item, c) in labels else "" for c in table.coders)]
            for item in table.items
        ),
        numeric=range(1, len(table.coders) + 1) if _is_numeric(table.scheme) else (),
    )


def annotations_wide_json(table: AnnotationTable) -> list[dict[str, Any]]:
    value, labels = table.scheme.json_value, table.labels
    return [
        {
            "item": item,
            "labels": {c: value(labels[(item, c)]) for c in table.coders if (item, c) in labels},
        }
        for item in table.items
    ]


# Span annotations --------------------------------------------------------------------------


def spans_csv(table: SpanTable) -> str:
    """``document,coder,begin,end,label`` (what ``metrics report --level span`` and the span
    upload read): a row per unit, in stored order, and ``document,coder,,,`` for a coder who
    found nothing.

    The rows are formatted one by one: text output has no vectorised path worth its
    complexity, and a round's units fit in memory as the stored JSON already does.
    """
    code = table.scheme.code_by_id

    def rows() -> Any:
        for document, coder, units in table.rows:
            if not units:
                yield (document, coder, "", "", "")
            for begin, end, pk in units:
                yield (document, coder, format_number(begin), format_number(end), code[int(pk)])

    return write_csv(SPAN_COLUMNS, rows(), numeric={2, 3})


def spans_json(table: SpanTable) -> dict[str, Any]:
    """The span upload's body: ``documents`` (those with an explicit extent), ``units`` and
    ``empty``, plus the round, question and span unit; uploading it again changes nothing."""
    units_json = table.scheme.units_json
    units: list[dict[str, Any]] = []
    empty: list[dict[str, str]] = []
    for document, coder, stored in table.rows:
        if not stored:
            empty.append({"document": document, "coder": coder})
        units.extend({"document": document, "coder": coder, **u} for u in units_json(stored))
    return {
        "round": table.round.name,
        "question": table.question.key,
        "kind": table.question.kind,
        "span_unit": table.scheme.span_unit,
        "coders": table.coders,
        "documents": [
            {"document": document, "begin": begin, "end": end}
            for document, (begin, end) in table.extents.items()
        ],
        "units": units,
        "empty": empty,
    }


# Item-level diagnostics -----------------------------------------------------------------


def item_diagnostics(stored: StoredItemTable) -> list[dict[str, Any]]:
    """One entry per item, as the worker stored it: the figures above and ``labels`` by
    coder.

    ``majority`` is empty when no label was chosen by two coders or more (a tie of single
    votes has no majority); ``pairwise_agreement`` is empty for an item one coder labelled.
    """
    text, value = stored.scheme.text, stored.scheme.json_value
    out = []
    for entry in stored.table.items:
        majority = entry["majority"]
        out.append(
            {
                **entry,
                "majority": text(majority) if majority is not None else None,
                "labels": {coder: value(label) for coder, label in entry["labels"].items()},
            }
        )
    return out


def item_diagnostics_csv(stored: StoredItemTable) -> str:
    scheme, coders = stored.scheme, stored.table.coders
    numeric = _is_numeric(scheme)
    columns = [*DIAGNOSTIC_COLUMNS, *(NUMERIC_DIAGNOSTIC_COLUMNS if numeric else ())]
    # Counts and shares are numbers; so are the labels (majority, coders) of numbers.
    text_columns = {"item"} if numeric else {"item", "majority"}
    number_at = {i for i, name in enumerate(columns) if name not in text_columns}
    if numeric:
        number_at.update(range(len(columns), len(columns) + len(coders)))
    text = scheme.text

    def row(entry: dict[str, Any]) -> list[Any]:
        majority, labels = entry["majority"], entry["labels"]
        shown = {**entry, "majority": None if majority is None else text(majority)}
        cells = [_cell(shown.get(name)) for name in columns]
        for coder in coders:
            label = labels.get(coder)
            cells.append("" if label is None else text(label))
        return cells

    return write_csv(
        [*columns, *coders], (row(entry) for entry in stored.table.items), numeric=number_at
    )


# Results of a computation ---------------------------------------------------------------


def _interval(ci: Any) -> tuple[Any, Any, Any]:
    if isinstance(ci, dict):
        return (
            ci.get("low", ci.get("lower")),
            ci.get("high", ci.get("upper")),
            ci.get("confidence", ci.get("level")),
        )
    if isinstance(ci, list | tuple) and len(ci) == 2:
        return ci[0], ci[1], None
    return None, None, None


def computation_result_rows(computation: Computation) -> list[dict[str, Any]]:
    """One row per coefficient of a finished computation."""
    coefficients = (computation.results or {}).get("coefficients") or {}
    rows = []
    for name, entry in coefficients.items():
        entry = entry if isinstance(entry, dict) else {"value": entry}
        low, high, level = _interval(entry.get("ci"))
        rows.append(
            {
                "coefficient": name,
                "value": entry.get("value"),
                "se": entry.get("se"),
                "ci_low": low,
                "ci_high": high,
                "ci_level": level,
            }
        )
    return rows


def computation_results_csv(computation: Computation) -> str:
    return write_csv(
        RESULT_COLUMNS,
        (
            [_cell(row[name]) for name in RESULT_COLUMNS]
            for row in computation_result_rows(computation)
        ),
        numeric=range(1, len(RESULT_COLUMNS)),
    )


def computation_results_json(computation: Computation) -> dict[str, Any]:
    results = computation.results or {}
    return {
        "computation": computation.pk,
        "question": computation.question.key,
        "scope": computation.scope,
        "parameters": computation.parameters,
        "finished_at": computation.finished_at.isoformat() if computation.finished_at else None,
        "n_annotations": computation.n_annotations,
        "metrics_version": computation.metrics_version,
        "coefficients": computation_result_rows(computation),
        "diagnostics": results.get("diagnostics"),
        "skipped": results.get("skipped"),
    }


# Structured values (regions on images, ...) ------------------------------------------------


def _structured_cell(value: Any) -> Any:
    """A value's cell as the CLI's CSV writes it: points ``x1 y1;x2 y2``, numbers as numbers."""
    if isinstance(value, list):
        return ";".join(" ".join(format_number(v) for v in point) for point in value)
    return value


def structured_csv(table: StructuredTable) -> str:
    """The question's CSV shape (``metrics report --level <kind>`` and the upload read it):
    a row per record, and a row of empty values for a coder who annotated and drew nothing."""
    values = table.question.label_kind.structured
    assert values is not None
    columns = values.columns
    first_value = 2

    def rows() -> Any:
        for item, coder, value in table.rows:
            records = values.to_json(value, table.code_by_id)
            if not records:
                yield (item, coder, *("" for _ in columns[first_value:]))
            for record in records:
                yield (
                    item,
                    coder,
                    *(_structured_cell(record.get(name, "")) for name in columns[first_value:]),
                )

    numeric = {i for i, name in enumerate(columns) if name in _NUMERIC_COLUMNS}
    return write_csv(columns, rows(), numeric=numeric)


_NUMERIC_COLUMNS = frozenset({"x", "y", "width", "height", "rotation"})


def structured_json(table: StructuredTable) -> dict[str, Any]:
    """The structured upload's body (``rows`` and ``images``): uploading it again changes
    nothing."""
    values = table.question.label_kind.structured
    assert values is not None
    item_column = values.item_column
    rows: list[dict[str, Any]] = []
    for item, coder, value in table.rows:
        records = values.to_json(value, table.code_by_id)
        rows.extend({item_column: item, "coder": coder, **record} for record in records)
        if not records:
            rows.append({item_column: item, "coder": coder})
    return {
        "round": table.round.name,
        "question": table.question.key,
        "kind": table.question.kind,
        "coders": table.coders,
        "images": [
            {"image": item, "width": width, "height": height, "url": url}
            for item, (width, height, url) in table.images.items()
            if width is not None
        ],
        "rows": rows,
    }


def coco_json(table: StructuredTable) -> dict[str, Any]:
    """The round's regions as one COCO detection file: ``images`` (file_name = the item's
    external id), ``categories`` (the question's, in declared order), ``annotations`` with
    an ``annotator`` field naming the coder (COCO has none: the COCO import reads it back),
    and ``annotated_nothing`` listing the (image, coder) pairs that drew nothing."""
    values = table.question.label_kind.structured
    coco = values.coco if values is not None else None
    if coco is None:
        raise ValueError(f"{table.question.kind} questions have no COCO export.")
    items = dict.fromkeys(item for item, _, _ in table.rows)
    image_ids = {item: index + 1 for index, item in enumerate(items)}
    annotations: list[dict[str, Any]] = []
    nothing: list[dict[str, Any]] = []
    for item, coder, value in table.rows:
        if not value:
            nothing.append({"image_id": image_ids[item], "annotator": coder})
        for record in value:
            entry = {"id": len(annotations) + 1, "image_id": image_ids[item], "annotator": coder}
            annotations.append({**entry, "iscrowd": 0, **coco(record)})
    images = [
        {
            "id": image_id,
            "file_name": item,
            "width": table.images[item][0],
            "height": table.images[item][1],
        }
        for item, image_id in image_ids.items()
    ]
    return {
        "info": {"description": f"{table.question.key}, {table.round.name}"},
        "images": images,
        "categories": [{"id": pk, "name": code} for pk, code in table.code_by_id.items()],
        "annotations": annotations,
        "annotated_nothing": nothing,
    }
