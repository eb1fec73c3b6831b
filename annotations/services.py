"""Writing annotations: the bulk upsert of a labeling tool's upload, and deletion.

Both log every change in ``AnnotationChange`` (who, when, old and new canonical text) in
the same transaction. Uploads of one round are serialised by locking the round row, so the
values read to compute the change log are the values overwritten, and a round cannot be
closed halfway through an upload.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from django.core.exceptions import ValidationError
from django.db import connection, transaction
from django.db.models import Model
from django.utils import timezone

from annotations import confidences as confidences_service
from annotations import history
from studies.access import Actor
from studies.exceptions import ApplicationError, ConflictError
from studies.labels import (
    SPAN_UPLOAD_HINT,
    Label,
    LabelError,
    LabelErrorCode,
    LabelScheme,
    label_of,
)
from studies.models import (
    Annotation,
    AnnotationChange,
    Coder,
    Item,
    Question,
    Round,
    Study,
)
from studies.selectors import round_resolve
from studies.services import scheme as scheme_services

logger = logging.getLogger(__name__)

MAX_BULK_ROWS = 100_000
MAX_REPORTED_ERRORS = 1_000
# Below this many distinct keys, look them up with IN (...); above, read the whole study's
# keys in one query (cheaper than tens of IN batches).
_KEY_LOOKUP_IN_LIMIT = 2_000
_IN_BATCH = 900  # under SQLite's historical 999 variables per statement
_BULK_BATCH = 2_000

ITEM_KEY_MAX_LENGTH = Item._meta.get_field("external_id").max_length or 255
CODER_KEY_MAX_LENGTH = Coder._meta.get_field("key").max_length or 200


class AnnotationErrorCode:
    ROUND_CLOSED = "round_closed"
    TOO_MANY_ROWS = "too_many_rows"
    TOO_MANY_ERRORS = "too_many_errors"
    UNKNOWN_ROUND = "unknown_round"
    UNKNOWN_QUESTION = "unknown_question"
    UNKNOWN_ITEM = "unknown_item"
    UNKNOWN_CODER = "unknown_coder"
    DUPLICATE_ROW = "duplicate_row"
    REQUIRED = "required"
    INVALID_TYPE = "invalid_type"
    MAX_LENGTH = "max_length"
    NULL_CHARACTERS = "null_characters_not_allowed"
    SPAN_QUESTION = LabelErrorCode.SPAN_QUESTION


class PayloadTooLargeError(ApplicationError):
    status_code = 413
    code = AnnotationErrorCode.TOO_MANY_ROWS


@dataclass(frozen=True)
class BulkUploadResult:
    created: int
    updated: int
    unchanged: int
    items_created: int
    coders_created: int
    categories_created: list[str] = field(default_factory=list)

    @property
    def total(self) -> int:
        return self.created + self.updated + self.unchanged


@dataclass
class _RowErrors:
    """Every bad row and field of an upload, the first ``MAX_REPORTED_ERRORS`` kept."""

    errors: dict[str, list[ValidationError]] = field(default_factory=dict)
    count: int = 0

    def add(self, attr: str, code: str, message: str) -> None:
        self.count += 1
        if self.count <= MAX_REPORTED_ERRORS:
            self.errors.setdefault(attr, []).append(ValidationError(message, code=code))

    def raise_if_any(self) -> None:
        if not self.count:
            return
        if self.count > MAX_REPORTED_ERRORS:
            self.errors.setdefault("annotations", []).append(
                ValidationError(
                    f"{self.count} errors in total; only the first {MAX_REPORTED_ERRORS} "
                    "are listed.",
                    code=AnnotationErrorCode.TOO_MANY_ERRORS,
                )
            )
        raise ValidationError(self.errors)


@dataclass
class _ParsedUpload:
    rows: list[tuple[str, str, Label]]
    new_items: set[str]
    new_coders: set[str]
    # A model coder's confidence in its label, by (item, coder) key, with the row's index.
    confidences: dict[tuple[str, str], tuple[int, float]] = field(default_factory=dict)


# Resolving the request's round and question --------------------------------------------


def target_resolve(
    *, study: Study, round_ref: int | str | None, question_key: str | None, lock: bool = False
) -> tuple[Round, Question]:
    """The round (id or name, by ``studies.selectors.round_resolve``) and question (key)
    named by a request; ``ValidationError`` naming each that is missing or unknown.
    ``lock`` takes the round's row lock."""
    errors: dict[str, list[ValidationError]] = {}
    round_ = None
    if round_ref is None or str(round_ref).strip() == "":
        errors["round"] = [ValidationError("A round is required.", code="required")]
    else:
        round_ = round_resolve(study=study, ref=round_ref, lock=lock)
        if round_ is None:
            errors["round"] = [
                ValidationError(
                    f"No round {round_ref!r} in this study.",
                    code=AnnotationErrorCode.UNKNOWN_ROUND,
                )
            ]
    question = None
    if not question_key:
        errors["question"] = [ValidationError("A question is required.", code="required")]
    else:
        question = Question.objects.filter(study=study, key=question_key).first()
        if question is None:
            errors["question"] = [
                ValidationError(
                    f"No question {question_key!r} in this study.",
                    code=AnnotationErrorCode.UNKNOWN_QUESTION,
                )
            ]
    if errors:
        raise ValidationError(errors)
    assert round_ is not None
    assert question is not None
    return round_, question


def ensure_single_label(question: Question) -> None:
    """A 400 on ``question`` for a span question: its units have an upload of their own."""
    if question.label_kind.units:
        raise ValidationError(
            {
                "question": [
                    ValidationError(
                        SPAN_UPLOAD_HINT.format(study=question.study_id),
                        code=AnnotationErrorCode.SPAN_QUESTION,
                    )
                ]
            }
        )


def _ensure_open(round_: Round) -> None:
    if not round_.is_open:
        raise ConflictError(
            f"Round {round_.name!r} is closed: reopen it to change its annotations.",
            code=AnnotationErrorCode.ROUND_CLOSED,
        )


# Looking up and creating items and coders ---------------------------------------------


def _chunks(values: Sequence[str], size: int) -> Iterator[Sequence[str]]:
    for start in range(0, len(values), size):
        yield values[start : start + size]


def _ids_by_key(model: type[Model], *, study: Study, field: str, keys: set[str]) -> dict[str, int]:
    """``{key: id}`` for those keys that exist in the study."""
    if not keys:
        return {}
    manager = model._default_manager  # type: ignore[attr-defined]
    if len(keys) > _KEY_LOOKUP_IN_LIMIT:
        return {
            key: pk
            for key, pk in manager.filter(study=study).values_list(field, "id")
            if key in keys
        }
    found: dict[str, int] = {}
    for chunk in _chunks(sorted(keys), _IN_BATCH):
        found.update(
            manager.filter(study=study, **{f"{field}__in": chunk}).values_list(field, "id")
        )
    return found


def _create_keys(
    model: type[Model], *, study: Study, field: str, keys: set[str], known: dict[str, int]
) -> int:
    """Create the study's missing items or coders; add their ids to ``known``."""
    if not keys:
        return 0
    manager = model._default_manager  # type: ignore[attr-defined]
    now = timezone.now()
    # ignore_conflicts: a concurrent upload may create the same key; ids are re-read below.
    manager.bulk_create(
        [model(study=study, created_at=now, **{field: key}) for key in sorted(keys)],
        ignore_conflicts=True,
        batch_size=_BULK_BATCH,
    )
    known.update(_ids_by_key(model, study=study, field=field, keys=keys))
    return len(keys)


# Parsing the rows ----------------------------------------------------------------------


def _key_text(raw: Any) -> str | None:
    """An item or coder key as text: strings are stripped, integers accepted."""
    if type(raw) is str:
        # PostgreSQL text cannot hold NUL: such a key could not exist, nor be looked up.
        return raw.strip() if "\x00" not in raw else None
    if isinstance(raw, int) and not isinstance(raw, bool):
        return str(raw)
    return None


def _check_key(
    raw: Any, *, attr: str, name: str, known: Mapping[str, int], create: bool, errors: _RowErrors
) -> tuple[str | None, bool]:
    """(key, is_new) of an item or coder column, or (None, False) after recording an error."""
    key = _key_text(raw)
    if key is None:
        if raw is None:
            errors.add(attr, AnnotationErrorCode.REQUIRED, f"The {name} is required.")
        elif isinstance(raw, str):
            errors.add(attr, AnnotationErrorCode.NULL_CHARACTERS, "NUL characters are not allowed.")
        else:
            errors.add(attr, AnnotationErrorCode.INVALID_TYPE, f"The {name} must be text.")
        return None, False
    if not key:
        errors.add(attr, AnnotationErrorCode.REQUIRED, f"The {name} is required.")
        return None, False
    if key in known:
        return key, False
    if not create:
        code = (
            AnnotationErrorCode.UNKNOWN_ITEM
            if name == "item"
            else AnnotationErrorCode.UNKNOWN_CODER
        )
        errors.add(
            attr,
            code,
            f"No {name} {key!r} in this study (set create_missing to create it).",
        )
        return None, False
    limit = ITEM_KEY_MAX_LENGTH if name == "item" else CODER_KEY_MAX_LENGTH
    if len(key) > limit:
        errors.add(
            attr,
            AnnotationErrorCode.MAX_LENGTH,
            f"The {name} must have at most {limit} characters.",
        )
        return None, False
    return key, True


def _parse_rows(
    rows: Sequence[Any],
    *,
    scheme: LabelScheme,
    item_ids: Mapping[str, int],
    coder_ids: Mapping[str, int],
    create_missing: bool,
) -> _ParsedUpload:
    errors = _RowErrors()
    parse = scheme.parse
    parsed: list[tuple[str, str, Label]] = []
    new_items: set[str] = set()
    new_coders: set[str] = set()
    first_row: dict[tuple[str, str], int] = {}
    confidences: dict[tuple[str, str], tuple[int, float]] = {}
    for index, row in enumerate(rows):
        prefix = f"annotations.{index}"
        if not isinstance(row, dict):
            errors.add(
                prefix,
                AnnotationErrorCode.INVALID_TYPE,
                "Each annotation is an object with item, coder and label.",
            )
            continue
        item, item_is_new = _check_key(
            row.get("item"),
            attr=f"{prefix}.item",
            name="item",
            known=item_ids,
            create=create_missing,
            errors=errors,
        )
        coder, coder_is_new = _check_key(
            row.get("coder"),
            attr=f"{prefix}.coder",
            name="coder",
            known=coder_ids,
            create=create_missing,
            errors=errors,
        )
        try:
            label = parse(row.get("label"))
        except LabelError as error:
            errors.add(f"{prefix}.label", error.code, error.message)
            continue
        try:
            confidence = confidences_service.confidence_value(row.get(confidences_service.FIELD))
        except ValueError as error:
            errors.add(f"{prefix}.confidence", confidences_service.INVALID, str(error))
            continue
        if item is None or coder is None:
            continue
        earlier = first_row.setdefault((item, coder), index)
        if earlier != index:
            errors.add(
                prefix,
                AnnotationErrorCode.DUPLICATE_ROW,
                f"Item {item!r} and coder {coder!r} already appear in row {earlier}.",
            )
            continue
        if item_is_new:
            new_items.add(item)
        if coder_is_new:
            new_coders.add(coder)
        parsed.append((item, coder, label))
        if confidence is not None:
            confidences[item, coder] = (index, confidence)
    errors.raise_if_any()
    return _ParsedUpload(
        rows=parsed, new_items=new_items, new_coders=new_coders, confidences=confidences
    )


def _check_confidences(upload: _ParsedUpload, coder_ids: Mapping[str, int]) -> None:
    """A confidence is a model coder's: a 400 naming each row that gives one to a person."""
    if not upload.confidences:
        return
    people = confidences_service.person_coders(coder_ids[c] for _, c in upload.confidences)
    errors = _RowErrors()
    for (_, coder), (index, _) in upload.confidences.items():
        if coder_ids[coder] in people:
            errors.add(
                f"annotations.{index}.confidence",
                confidences_service.NOT_A_MODEL,
                confidences_service.not_a_model_message(coder),
            )
    errors.raise_if_any()


# Writing -------------------------------------------------------------------------------


@dataclass
class _Plan:
    """What an upload changes: rows to write and change-log entries."""

    writes: list[tuple[int, int, Label]] = field(default_factory=list)
    changes: list[tuple[int, int, str, str | None, str]] = field(default_factory=list)
    # Annotations a batch entry created that change now: their creation is logged first.
    creations: list[history.Creation] = field(default_factory=list)
    created: int = 0
    updated: int = 0
    unchanged: int = 0


def _existing_labels(
    *,
    round_: Round,
    question: Question,
    item_ids: set[int],
    batches: dict[tuple[int, int], int] | None = None,
) -> dict[tuple[int, int], Label]:
    """The stored labels of the round and question, for the uploaded items, in one query;
    ``batches`` gets the batch entry of those a batch entry created (``created_in``)."""
    annotations = Annotation.objects.filter(round=round_, question=question)
    if len(item_ids) <= _IN_BATCH:
        annotations = annotations.filter(item_id__in=item_ids)
    labels: dict[tuple[int, int], Label] = {}
    for item_id, coder_id, category_id, number, category_set, created_in in annotations.values_list(
        "item_id", "coder_id", "category_id", "number", "category_set", "created_in"
    ).order_by():
        labels[item_id, coder_id] = label_of(category_id, number, category_set)
        if created_in is not None and batches is not None:
            batches[item_id, coder_id] = created_in
    return labels


def _plan(
    upload: _ParsedUpload,
    *,
    scheme: LabelScheme,
    item_ids: Mapping[str, int],
    coder_ids: Mapping[str, int],
    existing: Mapping[tuple[int, int], Label],
    batches: Mapping[tuple[int, int], int] | None = None,
) -> _Plan:
    plan = _Plan()
    text = scheme.text
    created_action = AnnotationChange.Action.CREATED.value
    updated_action = AnnotationChange.Action.UPDATED.value
    for item, coder, label in upload.rows:
        item_id = item_ids[item]
        coder_id = coder_ids[coder]
        old = existing.get((item_id, coder_id))
        if old is None:
            plan.created += 1
            plan.writes.append((item_id, coder_id, label))
            plan.changes.append((item_id, coder_id, created_action, None, text(label)))
        elif old != label:
            plan.updated += 1
            batch_id = batches.get((item_id, coder_id)) if batches else None
            if batch_id is not None:
                plan.creations.append(history.Creation(item_id, coder_id, batch_id, old))
            plan.writes.append((item_id, coder_id, label))
            plan.changes.append((item_id, coder_id, updated_action, text(old), text(label)))
        else:
            plan.unchanged += 1
    return plan


def _set_json(category_set: tuple[int, ...] | None) -> str | None:
    return None if category_set is None else json.dumps(list(category_set))


def _write_postgresql(
    plan: _Plan, *, study: Study, round_: Round, question: Question, actor: Actor, now: datetime
) -> None:
    """COPY the rows into a temporary table, then one INSERT ... ON CONFLICT DO UPDATE."""
    table = Annotation._meta.db_table
    changes_table = AnnotationChange._meta.db_table
    with connection.cursor() as cursor:
        raw = cursor.cursor
        cursor.execute(
            "CREATE TEMPORARY TABLE annotation_upload ("
            " item_id bigint NOT NULL, coder_id bigint NOT NULL, category_id bigint,"
            " number double precision, category_set jsonb) ON COMMIT DROP"
        )
        with raw.copy(
            "COPY annotation_upload (item_id, coder_id, category_id, number, category_set)"
            " FROM STDIN"
        ) as copy:
            for item_id, coder_id, (category_id, number, category_set) in plan.writes:
                copy.write_row((item_id, coder_id, category_id, number, _set_json(category_set)))
        cursor.execute(
            f"INSERT INTO {table} AS a"
            " (round_id, question_id, item_id, coder_id, category_id, number, category_set,"
            "  updated_at)"
            " SELECT %s, %s, item_id, coder_id, category_id, number, category_set, %s"
            " FROM annotation_upload"
            " ON CONFLICT (round_id, question_id, item_id, coder_id) DO UPDATE SET"
            "  category_id = EXCLUDED.category_id, number = EXCLUDED.number,"
            "  category_set = EXCLUDED.category_set, updated_at = EXCLUDED.updated_at,"
            "  created_in = NULL"
            " WHERE (a.category_id, a.number, a.category_set)"
            "  IS DISTINCT FROM (EXCLUDED.category_id, EXCLUDED.number, EXCLUDED.category_set)",
            [round_.pk, question.pk, now],
        )
        cursor.execute("DROP TABLE annotation_upload")
        history.write_creation_entries(plan.creations, question)
        user_id = actor.audit_user.pk if actor.audit_user is not None else None
        token_id = actor.token.pk if actor.token is not None else None
        with raw.copy(
            f"COPY {changes_table} (study_id, round_id, question_id, item_id, coder_id,"
            " action, old_value, new_value, changed_at, changed_by_id, token_id) FROM STDIN"
        ) as copy:
            constant_before = (study.pk, round_.pk, question.pk)
            constant_after = (now, user_id, token_id)
            for item_id, coder_id, action, old, new in plan.changes:
                copy.write_row(
                    (*constant_before, item_id, coder_id, action, old, new, *constant_after)
                )


def _write_orm(
    plan: _Plan,
    *,
    study: Study,
    round_: Round,
    question: Question,
    actor: Actor,
    now: datetime,
    batch: AnnotationChange | None = None,
) -> None:
    """The portable path (SQLite): batched upserts through the ORM. With ``batch`` (an
    import's batch entry), the created annotations carry its id and have no entry each."""
    created: set[tuple[int, int]] = set()
    batch_id = batch.pk if batch is not None else None
    if batch is not None:
        created_action = AnnotationChange.Action.CREATED
        created = {(i, c) for i, c, action, _, _ in plan.changes if action == created_action}
    Annotation.objects.bulk_create(
        [
            Annotation(
                round=round_,
                question=question,
                item_id=item_id,
                coder_id=coder_id,
                category_id=category_id,
                number=number,
                category_set=list(category_set) if category_set is not None else None,
                updated_at=now,
                created_in=batch_id if (item_id, coder_id) in created else None,
            )
            for item_id, coder_id, (category_id, number, category_set) in plan.writes
        ],
        update_conflicts=True,
        unique_fields=["round", "question", "item", "coder"],
        update_fields=["category", "number", "category_set", "updated_at", "created_in"],
        batch_size=_BULK_BATCH,
    )
    history.write_creation_entries(plan.creations, question)
    changes = plan.changes
    if batch is not None:
        changes = [change for change in changes if change[2] != AnnotationChange.Action.CREATED]
    AnnotationChange.objects.bulk_create(
        _change_objects(
            changes, study=study, round_=round_, question=question, actor=actor, now=now
        ),
        batch_size=_BULK_BATCH,
    )


def _change_objects(
    changes: Iterable[tuple[int, int, str, str | None, str | None]],
    *,
    study: Study,
    round_: Round,
    question: Question,
    actor: Actor,
    now: datetime,
) -> list[AnnotationChange]:
    return [
        AnnotationChange(
            study=study,
            round=round_,
            question=question,
            item_id=item_id,
            coder_id=coder_id,
            action=action,
            old_value=old,
            new_value=new,
            changed_at=now,
            changed_by=actor.audit_user,
            token=actor.token,
        )
        for item_id, coder_id, action, old, new in changes
    ]


def _uses_copy() -> bool:
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        return hasattr(cursor.cursor, "copy")  # psycopg 3


# Services ------------------------------------------------------------------------------


@transaction.atomic
def annotations_bulk_upsert(
    *,
    study: Study,
    round_ref: int | str | None,
    question_key: str | None,
    rows: Sequence[Any],
    create_missing: bool = False,
    create_categories: bool = False,
    actor: Actor,
) -> BulkUploadResult:
    """Create or update one annotation per row (``{"item", "coder", "label"}``), all or none.

    With ``create_categories``, the codes the labels carry that the question does not
    declare are declared first, at the end of its order (``scheme.categories_declare``:
    nominal and set questions only); the upload then goes on as if they had been.

    Rows whose label is already stored are left alone (not rewritten, not logged), so
    sending the same upload twice changes nothing. A span question is refused (400
    ``span_question`` on ``question``): its units go through ``annotations.spans``. Unknown
    items and coders are created when ``create_missing``; otherwise each is a row error.
    Raises ``ValidationError``
    naming every bad row and field (``annotations.<row>.<field>``, the first
    ``MAX_REPORTED_ERRORS``), ``ConflictError`` (``round_closed``) for a closed round, and
    ``PayloadTooLargeError`` above ``MAX_BULK_ROWS`` rows.
    """
    if len(rows) > MAX_BULK_ROWS:
        raise PayloadTooLargeError(
            f"An upload carries at most {MAX_BULK_ROWS} annotations; this one has more. "
            "Split it into several requests."
        )
    round_, question = target_resolve(
        study=study, round_ref=round_ref, question_key=question_key, lock=True
    )
    ensure_single_label(question)
    _ensure_open(round_)
    scheme = LabelScheme.for_question(question)
    categories_created: list[str] = []
    if create_categories:
        codes = _unknown_codes(rows, scheme)
        categories_created = scheme_services.categories_declare(question=question, codes=codes)
        if categories_created:
            scheme = LabelScheme.for_question(question)
    item_keys: set[str] = set()
    coder_keys: set[str] = set()
    for row in rows:
        if isinstance(row, dict):
            item_key = _key_text(row.get("item"))
            coder_key = _key_text(row.get("coder"))
            if item_key:
                item_keys.add(item_key)
            if coder_key:
                coder_keys.add(coder_key)
    item_ids = _ids_by_key(Item, study=study, field="external_id", keys=item_keys)
    coder_ids = _ids_by_key(Coder, study=study, field="key", keys=coder_keys)
    upload = _parse_rows(
        rows, scheme=scheme, item_ids=item_ids, coder_ids=coder_ids, create_missing=create_missing
    )
    items_created = _create_keys(
        Item, study=study, field="external_id", keys=upload.new_items, known=item_ids
    )
    coders_created = _create_keys(
        Coder, study=study, field="key", keys=upload.new_coders, known=coder_ids
    )
    _check_confidences(upload, coder_ids)
    batches: dict[tuple[int, int], int] = {}
    existing = _existing_labels(
        round_=round_,
        question=question,
        item_ids={item_ids[item] for item, _, _ in upload.rows},
        batches=batches,
    )
    plan = _plan(
        upload,
        scheme=scheme,
        item_ids=item_ids,
        coder_ids=coder_ids,
        existing=existing,
        batches=batches,
    )
    if plan.writes:
        write = _write_postgresql if _uses_copy() else _write_orm
        write(plan, study=study, round_=round_, question=question, actor=actor, now=timezone.now())
    if upload.confidences:
        confidences_service.model_confidences_write(
            round_=round_,
            question=question,
            confidences={
                (item_ids[item], coder_ids[coder]): value
                for (item, coder), (_, value) in upload.confidences.items()
            },
        )
    logger.info(
        "annotations uploaded study=%s round=%s question=%s created=%s updated=%s unchanged=%s",
        study.pk,
        round_.pk,
        question.key,
        plan.created,
        plan.updated,
        plan.unchanged,
    )
    return BulkUploadResult(
        created=plan.created,
        updated=plan.updated,
        unchanged=plan.unchanged,
        items_created=items_created,
        coders_created=coders_created,
        categories_created=categories_created,
    )


def _unknown_codes(rows: Sequence[Any], scheme: LabelScheme) -> list[str]:
    """The codes the rows' labels name that ``scheme`` does not declare, first seen first
    (each distinct label parsed once)."""
    unknown: dict[str, None] = {}
    seen: set[Any] = set()
    for row in rows:
        raw = row.get("label") if isinstance(row, dict) else None
        if isinstance(raw, list):  # a set as a JSON list of codes
            raw = tuple(raw) if all(isinstance(m, str | int) for m in raw) else None
        elif not isinstance(raw, str | int):
            raw = None  # not a code at all: the upload reports it
        if raw is None or raw in seen:
            continue
        seen.add(raw)
        try:
            scheme.parse(list(raw) if isinstance(raw, tuple) else raw)
        except LabelError as error:
            unknown.update(dict.fromkeys(error.unknown_codes))
    return list(unknown)


@transaction.atomic
def annotation_delete(*, annotation: Annotation, actor: Actor) -> None:
    """Delete one annotation (its round must be open) and log the deletion."""
    round_ = Round.objects.select_for_update().get(pk=annotation.round_id)
    _ensure_open(round_)
    question = annotation.question
    scheme = LabelScheme.for_question(question)
    if annotation.units is not None:
        old = scheme.units_text(annotation.units)
    else:
        label = label_of(annotation.category_id, annotation.number, annotation.category_set)
        old = scheme.text(label)
        if annotation.created_in is not None:  # its creation, logged by a batch, first
            history.write_creation_entries(
                [
                    history.Creation(
                        annotation.item_id, annotation.coder_id, annotation.created_in, label
                    )
                ],
                question,
            )
    AnnotationChange.objects.bulk_create(
        _change_objects(
            [(annotation.item_id, annotation.coder_id, AnnotationChange.Action.DELETED, old, None)],
            study=question.study,
            round_=round_,
            question=question,
            actor=actor,
            now=timezone.now(),
        )
    )
    annotation.delete()
