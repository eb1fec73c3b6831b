"""Uploading a structured kind's annotations (regions on an image, say): every (item, coder)
pair named gets exactly the records given for it, all or none.

The rows are the question's CSV shape (``StructuredValues.columns``; JSON objects with the
same keys): one row per record, or one row with every value column empty for "annotated,
nothing". The kind parses each row; this module resolves items and coders, checks the round,
replaces each named pair's value whole and logs the change with the kind's canonical text.
Pairs not named keep what they have. ``images`` declares items' sizes (and an image URL),
which rows are checked against.

Errors name the row and field (``rows.3.width`` in JSON, ``line 4.width`` in CSV) with a code.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.functions import Length
from django.utils import timezone

from annotations.services import (
    _BULK_BATCH,
    CODER_KEY_MAX_LENGTH,
    ITEM_KEY_MAX_LENGTH,
    AnnotationErrorCode,
    PayloadTooLargeError,
    _change_objects,
    _create_keys,
    _ensure_open,
    _ids_by_key,
    _key_text,
    _RowErrors,
)
from studies.access import Actor
from studies.kinds.structured import ItemFacts, RowError, StructuredValues, Value, blank, number
from studies.labels import LabelScheme
from studies.models import Annotation, AnnotationChange, Coder, Item, Question, Round
from studies.text_rules import CsvReadError, read_csv, repeated_column, restore_text

logger = logging.getLogger(__name__)

MAX_STRUCTURED_ROWS = 200_000


class StructuredErrorCode:
    NOT_STRUCTURED = "not_a_structured_question"
    MISSING_COLUMNS = "missing_columns"
    DUPLICATE_COLUMN = "duplicate_column"
    MALFORMED_FILE = "malformed_file"
    SIZE_CONFLICT = "size_conflict"


@dataclass(frozen=True)
class Row:
    """One row of an upload: its cells by column, and where it came from (for errors)."""

    cells: Mapping[str, Any]
    where: str


@dataclass(frozen=True)
class ImageRow:
    """An item's declared image: its size in pixels and where the image is."""

    image: Any
    width: Any
    height: Any
    url: Any
    where: str


@dataclass(frozen=True)
class StructuredUploadResult:
    items: int
    coders: int
    records: int
    created: int
    replaced: int
    unchanged: int
    items_created: int
    coders_created: int

    @property
    def annotations(self) -> int:
        return self.created + self.replaced + self.unchanged


def values_of(question: Question) -> StructuredValues:
    """The question's structured values, or a 400 on ``question`` naming the right upload."""
    values = question.label_kind.structured
    if values is None:
        raise ValidationError(
            {
                "question": ValidationError(
                    f"Question {question.key!r} is a {question.kind} question: upload its "
                    "labels to annotations/bulk/ (spans to annotations/spans/).",
                    code=StructuredErrorCode.NOT_STRUCTURED,
                )
            }
        )
    return values


def rows_from_csv(text: str, values: StructuredValues) -> list[Row]:
    """Rows of a CSV in the question's shape (header required; other columns ignored);
    ``where`` is ``line <n>``, the header being line 1."""
    try:
        header, lines = read_csv(text)
    except CsvReadError as error:
        raise ValidationError(
            {"file": ValidationError(error.message, code=StructuredErrorCode.MALFORMED_FILE)}
        ) from None
    columns = [name.strip().lower() for name in header]
    twice = repeated_column(columns)
    if twice is not None:
        raise ValidationError(
            {
                "header": ValidationError(
                    f"The column {twice!r} is named twice.",
                    code=StructuredErrorCode.DUPLICATE_COLUMN,
                )
            }
        )
    required = [c for c in values.columns if c not in values.optional_columns]
    missing = [name for name in required if name not in columns]
    if missing:
        raise ValidationError(
            {
                "header": ValidationError(
                    f"The CSV header lacks {', '.join(missing)}; expected "
                    f"{','.join(values.columns)}.",
                    code=StructuredErrorCode.MISSING_COLUMNS,
                )
            }
        )
    at = {name: columns.index(name) for name in values.columns if name in columns}
    rows = []
    for line in lines:
        cells = {name: restore_text(line.cells[i].strip()) for name, i in at.items()}
        rows.append(Row(cells, f"line {line.line}"))
        if len(rows) > MAX_STRUCTURED_ROWS:
            break
    return rows


def rows_from_json(records: Sequence[Any]) -> list[Row]:
    return [
        Row(record if isinstance(record, Mapping) else {"": record}, f"rows.{index}")
        for index, record in enumerate(records)
    ]


def images_from_json(records: Sequence[Any]) -> list[ImageRow]:
    return [
        ImageRow(
            image=r.get("image") if isinstance(r, Mapping) else None,
            width=r.get("width") if isinstance(r, Mapping) else None,
            height=r.get("height") if isinstance(r, Mapping) else None,
            url=r.get("url", "") if isinstance(r, Mapping) else "",
            where=f"images.{index}",
        )
        for index, r in enumerate(records)
    ]


@dataclass
class _Item:
    pk: int | None
    facts: ItemFacts
    url: str = ""
    declared: bool = False


def _extent(begin: float | None, end: float | None, text_length: int | None) -> Any:
    """A document's offsets extent: declared, else its text's characters, else unknown."""
    if begin is not None and end is not None:
        return (float(begin), float(end))
    return (0.0, float(text_length)) if text_length else None


def _items(study_id: int, keys: set[str]) -> dict[str, _Item]:
    found: dict[str, _Item] = {}
    rows = (
        Item.objects.filter(study_id=study_id, external_id__in=sorted(keys))
        .annotate(text_length=Length("text"))
        .values_list(
            "external_id", "id", "image_width", "image_height", "image_url",
            "extent_begin", "extent_end", "text_length",
        )
    )  # fmt: skip
    for key, pk, width, height, url, begin, end, length in rows:
        found[key] = _Item(pk, ItemFacts(width, height, _extent(begin, end, length)), url or "")
    return found


def _declare_images(
    images: Sequence[ImageRow], items: dict[str, _Item], errors: _RowErrors
) -> None:
    """Give items the sizes and URLs declared; a size differing from a stored one is refused
    (regions already drawn were checked against it)."""
    for image in images:
        key = _key_text(image.image)
        if not key:
            errors.add(f"{image.where}.image", AnnotationErrorCode.REQUIRED, "image is required.")
            continue
        try:
            size = {
                name: number({name: raw}, name)
                for name, raw in (("width", image.width), ("height", image.height))
            }
        except RowError as error:
            errors.add(f"{image.where}.{error.field}", error.code, error.message)
            continue
        if any(value is not None and value <= 0 for value in size.values()):
            errors.add(f"{image.where}.width", "not_positive", "Sizes are greater than 0.")
            continue
        current = items.get(key)
        facts = ItemFacts(
            size["width"], size["height"], current.facts.extent if current is not None else None
        )
        if current is not None and current.facts.width is not None and current.facts != facts:
            errors.add(
                f"{image.where}.width",
                StructuredErrorCode.SIZE_CONFLICT,
                f"Image {key!r} is {current.facts.width:g} × {current.facts.height:g} already.",
            )
            continue
        url = image.url if isinstance(image.url, str) else ""
        items[key] = _Item(current.pk if current else None, facts, url.strip(), declared=True)


@transaction.atomic
def structured_values_replace(
    *,
    round: Round,  # the contract's name, as the span upload's
    question: Question,
    rows: Sequence[Row],
    images: Sequence[ImageRow] = (),
    actor: Actor,
    create_missing: bool = True,
) -> StructuredUploadResult:
    """Give every (item, coder) pair named in ``rows`` exactly the records given there,
    all or none; declare ``images``' sizes. Raises ``ValidationError`` naming each bad
    row's field, ``ConflictError`` for a closed round, ``PayloadTooLargeError`` above
    ``MAX_STRUCTURED_ROWS`` rows."""
    if len(rows) + len(images) > MAX_STRUCTURED_ROWS:
        raise PayloadTooLargeError(
            f"An upload carries at most {MAX_STRUCTURED_ROWS} rows; split it by items."
        )
    values = values_of(question)
    if question.study_id != round.study_id:
        raise ValidationError({"question": "The question belongs to another study."})
    round_ = Round.objects.select_for_update().get(pk=round.pk)
    _ensure_open(round_)
    study = round_.study
    scheme = LabelScheme.for_question(question)
    item_column = values.item_column
    item_keys = {k for k in (_key_text(r.cells.get(item_column)) for r in rows) if k}
    item_keys |= {k for k in (_key_text(i.image) for i in images) if k}
    coder_keys = {k for k in (_key_text(r.cells.get("coder")) for r in rows) if k}
    items = _items(study.pk, item_keys)
    coder_ids = _ids_by_key(Coder, study=study, field="key", keys=coder_keys)
    errors = _RowErrors()
    _declare_images(images, items, errors)
    records: dict[tuple[str, str], list[Any]] = {}
    seen: dict[tuple[str, str], set[str]] = {}
    for row in rows:
        pair = _pair(row, item_column, items, coder_ids, create_missing, errors)
        if pair is None:
            continue
        found = records.setdefault(pair, [])
        if values.is_nothing(row.cells):
            continue
        if values.max_records is not None and len(found) >= values.max_records:
            errors.add(
                row.where,
                AnnotationErrorCode.DUPLICATE_ROW,
                f"A coder gives one value per item here: an earlier row gave {pair[1]!r}'s "
                f"value of {pair[0]!r}.",
            )
            continue
        try:
            record = values.parse(row.cells, scheme.id_by_code, _facts(items, pair[0]))
        except RowError as error:
            errors.add(f"{row.where}.{error.field}", error.code, error.message)
            continue
        if values.canonical is not None:
            record = values.canonical(record, scheme)
        if values.unique_records:
            earlier = seen.setdefault(pair, set())
            if repr(record) in earlier:
                errors.add(
                    f"{row.where}.label",
                    AnnotationErrorCode.DUPLICATE_ROW,
                    f"An earlier row gave {pair[1]!r} the same value in {pair[0]!r} "
                    "(an undirected label's relation in either direction).",
                )
                continue
            earlier.add(repr(record))
        found.append(record)
    errors.raise_if_any()
    for item, _ in records:
        items.setdefault(item, _Item(None, ItemFacts()))
    items_created = _write_items(items, study_id=study.pk)
    new_coders = {coder for _, coder in records if coder not in coder_ids}
    coders_created = _create_keys(Coder, study=study, field="key", keys=new_coders, known=coder_ids)
    return _replace(
        round_,
        question,
        values,
        scheme,
        records,
        items,
        coder_ids,
        actor,
        items_created=items_created,
        coders_created=coders_created,
    )


def _facts(items: Mapping[str, _Item], key: str) -> ItemFacts:
    found = items.get(key)
    return found.facts if found is not None else ItemFacts()


def _pair(
    row: Row,
    item_column: str,
    items: dict[str, _Item],
    coder_ids: Mapping[str, int],
    create: bool,
    errors: _RowErrors,
) -> tuple[str, str] | None:
    keys = []
    known_items = {key for key, item in items.items() if item.pk is not None or item.declared}
    for name, known, limit in (
        (item_column, known_items, ITEM_KEY_MAX_LENGTH),
        ("coder", set(coder_ids), CODER_KEY_MAX_LENGTH),
    ):
        raw = row.cells.get(name)
        key = _key_text(raw)
        attr = f"{row.where}.{name}"
        if not key:
            code = AnnotationErrorCode.REQUIRED if blank(raw) else AnnotationErrorCode.INVALID_TYPE
            errors.add(attr, code, f"The {name} is required (text).")
            return None
        if len(key) > limit:
            errors.add(attr, AnnotationErrorCode.MAX_LENGTH, f"At most {limit} characters.")
            return None
        if key not in known and not create:
            code = (
                AnnotationErrorCode.UNKNOWN_CODER
                if name == "coder"
                else AnnotationErrorCode.UNKNOWN_ITEM
            )
            errors.add(attr, code, f"No {name} {key!r} in this study.")
            return None
        keys.append(key)
    return keys[0], keys[1]


def _write_items(items: dict[str, _Item], *, study_id: int) -> int:
    """Create new items with their declared images; give existing ones theirs."""
    now = timezone.now()
    new = {key: item for key, item in items.items() if item.pk is None}
    Item.objects.bulk_create(
        [
            Item(
                study_id=study_id,
                external_id=key,
                created_at=now,
                image_width=item.facts.width,
                image_height=item.facts.height,
                image_url=item.url,
            )
            for key, item in sorted(new.items())
        ],
        ignore_conflicts=True,
        batch_size=_BULK_BATCH,
    )
    if new:
        for key, pk in Item.objects.filter(
            study_id=study_id, external_id__in=sorted(new)
        ).values_list("external_id", "id"):
            new[key].pk = pk
    declared = [
        Item(
            pk=item.pk,
            image_width=item.facts.width,
            image_height=item.facts.height,
            image_url=item.url,
        )
        for key, item in items.items()
        if key not in new and item.declared
    ]
    if declared:
        Item.objects.bulk_update(
            declared, ["image_width", "image_height", "image_url"], batch_size=_BULK_BATCH
        )
    return len(new)


def _replace(
    round_: Round,
    question: Question,
    values: StructuredValues,
    scheme: LabelScheme,
    records: Mapping[tuple[str, str], list[Any]],
    items: Mapping[str, _Item],
    coder_ids: Mapping[str, int],
    actor: Actor,
    *,
    items_created: int,
    coders_created: int,
) -> StructuredUploadResult:
    pairs: dict[tuple[int, int], Value] = {}
    for (item, coder), found in records.items():
        item_id = items[item].pk
        if item_id is None:  # created above: every item has its id by now
            raise RuntimeError(f"Item {item!r} has no id after its creation.")
        pairs[(item_id, coder_ids[coder])] = values.value(found)
    stored = dict(
        ((item_id, coder_id), units)
        for item_id, coder_id, units in Annotation.objects.filter(
            round=round_, question=question, item_id__in=sorted({i for i, _ in pairs})
        ).values_list("item_id", "coder_id", "units")
    )
    code_by_id = scheme.code_by_id
    now = timezone.now()
    writes: list[Annotation] = []
    changes: list[tuple[int, int, str, str | None, str | None]] = []
    created = replaced = unchanged = 0
    for (item_id, coder_id), value in pairs.items():
        old = stored.get((item_id, coder_id))
        new_text = values.text(value, code_by_id)
        if old is None:
            created += 1
            changes.append((item_id, coder_id, AnnotationChange.Action.CREATED, None, new_text))
        elif old != value:
            replaced += 1
            changes.append(
                (
                    item_id,
                    coder_id,
                    AnnotationChange.Action.UPDATED,
                    values.text(old, code_by_id),
                    new_text,
                )
            )
        else:
            unchanged += 1
            continue
        writes.append(
            Annotation(
                round=round_,
                question=question,
                item_id=item_id,
                coder_id=coder_id,
                units=value,
                updated_at=now,
            )
        )
    if writes:
        Annotation.objects.bulk_create(
            writes,
            update_conflicts=True,
            unique_fields=["round", "question", "item", "coder"],
            update_fields=["category", "number", "category_set", "units", "updated_at"],
            batch_size=_BULK_BATCH,
        )
        AnnotationChange.objects.bulk_create(
            _change_objects(
                changes, study=round_.study, round_=round_, question=question, actor=actor, now=now
            ),
            batch_size=_BULK_BATCH,
        )
    logger.info(
        "structured values uploaded study=%s round=%s question=%s pairs=%s created=%s "
        "replaced=%s unchanged=%s",
        round_.study_id,
        round_.pk,
        question.key,
        len(pairs),
        created,
        replaced,
        unchanged,
    )
    return StructuredUploadResult(
        items=len({item for item, _ in records}),
        coders=len({coder for _, coder in records}),
        records=sum(len(found) for found in records.values()),
        created=created,
        replaced=replaced,
        unchanged=unchanged,
        items_created=items_created,
        coders_created=coders_created,
    )
