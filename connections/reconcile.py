"""Making the study hold what a Label Studio project holds, one batch of tasks at a time.

A webhook event and a sync page both end here, with the tasks' current state read from
Label Studio's API (the event only says which tasks changed). The tasks are handed, as
Label Studio's own export shape, to the ``label_studio`` parser and to the file import's
mapping and writer (``exchange.imports.annotations_import_parsed``): the same
``question_map``, ``category_map`` and ``coder_map``, the same change log, unchanged labels
left alone. Each task's (question, item, coder) annotations are remembered
(``LinkedTask.pairs``); one that a task no longer gives (its annotation or result deleted in
Label Studio, the task deleted) is deleted here with a change-log entry.

Reconciling is idempotent and ignores order: the same tasks twice write nothing the second
time, and an old event only makes the server read the task's present state. The connection
row is locked for the batch, so a sync and an event never interleave (nothing is counted
twice).

Tasks the server sent to the project (``data.agreement_purpose``: review, adjudication) are
not coders' annotations: their latest annotation is the reviewer's decision, recorded as the
item's adjudicated label (which takes the item out of the review queue).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from adjudication.services import adjudicate
from annotations.services import annotation_delete
from connections.label_config import Control, control_question
from connections.models import LabelStudioConnection, LinkedAnnotation, LinkedTask, TaskPurpose
from exchange.formats import FORMATS, ParsedFile, ParsedSpan, ParseOptions
from exchange.formats.base import ImportErrorCode, document_key, key_text
from exchange.formats.label_studio import NO_RESULT
from exchange.formats.label_studio_regions import nothing_drawn
from exchange.imports import annotations_import_parsed
from exchange.mapping import (
    coder_map_targets,
    fields_to_questions,
    names_to_coders,
    resolve_coder_map,
    spans_to_questions,
)
from exchange.structured_imports import regions_to_questions
from review.models import ReviewEntry
from review.services import review_entry_resolve
from studies.access import Actor
from studies.models import Annotation, Coder, Item, Question

logger = logging.getLogger(__name__)

FORMAT = "label_studio"
PURPOSE_KEY = "agreement_purpose"
MAX_REPORTED = 50
Pair = tuple[str, str, str]  # question key, item external id, coder key


@dataclass
class Counts:
    """What reconciling did: annotations added, changed, deleted, left as they were."""

    tasks: int = 0
    added: int = 0
    changed: int = 0
    unchanged: int = 0
    deleted: int = 0
    resolved: int = 0
    rejected_count: int = 0
    rejected: list[dict[str, Any]] = field(default_factory=list)

    def add(self, other: Counts) -> None:
        for name in ("tasks", "added", "changed", "unchanged", "deleted", "resolved"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.rejected_count += other.rejected_count
        self.rejected.extend(other.rejected[: MAX_REPORTED - len(self.rejected)])

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _actor(connection: LabelStudioConnection) -> Actor:
    # The change log names the person who made the connection.
    return Actor(user=connection.created_by, token=None)


def _user_id(completed_by: Any) -> Any:
    """Label Studio's task API gives ``completed_by`` as the user object, its export as the
    user id: the id, so that a live task names its coder as the export file does."""
    if isinstance(completed_by, dict) and "id" in completed_by:
        return completed_by["id"]
    return completed_by


def export_shape(task: Mapping[str, Any]) -> dict[str, Any]:
    """A task of Label Studio's API as its JSON export writes it."""
    annotations = []
    for annotation in task.get("annotations") or []:
        if isinstance(annotation, dict):
            annotations.append(
                {**annotation, "completed_by": _user_id(annotation.get("completed_by"))}
            )
    return {
        "id": task.get("id"),
        "data": task.get("data") or {},
        "meta": task.get("meta") or {},
        "annotations": annotations,
        "predictions": task.get("predictions") or [],
    }


def _purpose(task: Mapping[str, Any]) -> str | None:
    data = task.get("data")
    purpose = data.get(PURPOSE_KEY) if isinstance(data, dict) else None
    return purpose if purpose in (TaskPurpose.REVIEW, TaskPurpose.ADJUDICATION) else None


# -- the mapping ---------------------------------------------------------------------------------


@dataclass
class _Mapping:
    question_map: dict[str, str | None]
    coder_keys: dict[str, str]
    questions: dict[str, Question]
    span_fields: list[str]
    region_fields: dict[str, str]


def _mapping(connection: LabelStudioConnection) -> _Mapping:
    """The connection's maps as the import takes them. Controls that map to no question are
    ignored (null), as a file import told so: a comment box does not reject every task."""
    questions = {q.key: q for q in Question.objects.filter(study_id=connection.study_id)}
    question_map: dict[str, str | None] = dict(connection.question_map or {})
    span_fields: list[str] = []
    region_fields: dict[str, str] = {}
    for raw in connection.controls or []:
        control = Control(raw["name"], raw["type"], raw.get("to_name", ""))
        key = control_question(control, question_map=question_map, question_keys=set(questions))
        if key is None or key not in questions:
            question_map.setdefault(control.name, None)
            continue
        if control.is_span and questions[key].label_kind.units:
            span_fields.append(control.name)
        elif control.region is not None:
            region_fields[control.name] = control.region
    keys, ids = coder_map_targets(connection.coder_map or {})
    coders = list(
        Coder.objects.filter(study_id=connection.study_id, key__in=sorted(keys)).values_list(
            "id", "key"
        )
    ) + list(
        Coder.objects.filter(study_id=connection.study_id, pk__in=sorted(ids)).values_list(
            "id", "key"
        )
    )
    coder_keys, _errors = resolve_coder_map(connection.coder_map or {}, coders)
    return _Mapping(question_map, coder_keys, questions, span_fields, region_fields)


def _parse(
    connection: LabelStudioConnection, tasks: list[dict[str, Any]], mapping: _Mapping
) -> tuple[ParsedFile, dict[int, str]]:
    """The tasks parsed as the file import parses an export of them, and each task's item.

    A file tells its span and region fields by the results it holds; a project declares
    them in its labeling configuration. An annotation without a result of a declared span
    (region) field found nothing (drew nothing) there, as in a file where another task had
    such a result: a page of tasks gives the same annotations as the whole export."""
    options = ParseOptions(document_key=connection.document_key or "id")
    parsed = FORMATS[FORMAT].parse(json.dumps(tasks).encode(), options)
    spans_seen = {(s.document, s.coder, s.field) for s in parsed.spans}
    regions_seen = {(r.image, r.coder, r.field) for r in parsed.regions}
    items: dict[int, str] = {}
    for task in tasks:
        data = task.get("data") or {}
        text = data.get("text") if isinstance(data.get("text"), str) else None
        document, _ = document_key(
            own_id=task.get("id"),
            text=text,
            fields=(data, task.get("meta") or {}),
            key=options.document_key,
        )
        if document is None:
            continue
        items[int(task["id"])] = document
        for annotation in task.get("annotations") or []:
            coder = key_text(annotation.get("completed_by"))
            if annotation.get("was_cancelled") or coder is None:
                continue
            source = f"task {task['id']}, annotation {annotation.get('id')}"
            for name in mapping.span_fields:
                if (document, coder, name) not in spans_seen:
                    parsed.document(document, text=text)
                    parsed.spans.append(
                        ParsedSpan(source, document, coder, field=name, empty_reason=NO_RESULT)
                    )
            for name, region in mapping.region_fields.items():
                if (document, coder, name) not in regions_seen:
                    parsed.image(document, url=data.get("image") or "")
                    nothing_drawn(
                        parsed,
                        image=document,
                        coder=coder,
                        source=source,
                        from_name=name,
                        region=region,
                    )
    return parsed, items


def _pairs(parsed: ParsedFile, mapping: _Mapping) -> set[Pair]:
    """Every (question, item, coder) the parsed tasks give, mapped as the import maps them."""
    keys = set(mapping.questions)
    rows = fields_to_questions(
        parsed, question_key=None, question_map=mapping.question_map, question_keys=keys
    )
    spans = spans_to_questions(
        parsed,
        question_key=None,
        question_map=mapping.question_map,
        question_keys=keys,
        span_keys={k for k, q in mapping.questions.items() if q.label_kind.units},
    )
    regions = regions_to_questions(
        parsed, question_key=None, question_map=mapping.question_map, questions=mapping.questions
    )
    pairs: set[Pair] = set()
    for key, found in names_to_coders(rows.rows, mapping.coder_keys)[0].items():
        pairs |= {(key, row.item, row.coder) for row in found}
    for key, found_spans in names_to_coders(spans.spans, mapping.coder_keys)[0].items():
        pairs |= {(key, span.document, span.coder) for span in found_spans}
    for key, found_regions in names_to_coders(regions.regions, mapping.coder_keys)[0].items():
        pairs |= {(key, region.image, region.coder) for region in found_regions}
    return pairs


# -- the batch -----------------------------------------------------------------------------------


def tasks_reconcile(
    *, connection_id: int, tasks: Iterable[Mapping[str, Any]], gone_task_ids: Iterable[int] = ()
) -> Counts:
    """Make the study hold what these tasks (their present state) give; tasks in
    ``gone_task_ids`` were deleted in Label Studio. One transaction, the connection locked."""
    with transaction.atomic():
        connection = LabelStudioConnection.objects.select_for_update().get(pk=connection_id)
        shaped = [export_shape(task) for task in tasks if task.get("id") is not None]
        sent = [task for task in shaped if _purpose(task)]
        annotated = [task for task in shaped if not _purpose(task)]
        counts = Counts(tasks=len(shaped))
        mapping = _mapping(connection)
        links = {
            link.task_id: link
            for link in LinkedTask.objects.filter(
                connection=connection,
                task_id__in=[int(t["id"]) for t in shaped] + [int(i) for i in gone_task_ids],
            )
        }
        sent_ids = {
            task_id for task_id, link in links.items() if link.purpose != TaskPurpose.ANNOTATE
        }
        sent += [task for task in annotated if int(task["id"]) in sent_ids]
        annotated = [task for task in annotated if int(task["id"]) not in sent_ids]
        new_pairs: dict[int, set[Pair]] = {}
        items: dict[int, str] = {}
        if any(task["annotations"] for task in annotated):
            parsed, items = _parse(connection, annotated, mapping)
            report = annotations_import_parsed(
                study=connection.study,
                format_name=FORMAT,
                parsed=parsed,
                round_ref=connection.round_id,
                question_map=mapping.question_map,
                category_map=connection.category_map or None,
                case_insensitive_categories=connection.case_insensitive_categories,
                coder_map=connection.coder_map or None,
                create_missing=True,
                partial=True,
                actor=_actor(connection),
            )
            counts.added, counts.changed = report.created, report.updated
            counts.unchanged = report.unchanged
            for rejection in report.rejected:
                if rejection.code == ImportErrorCode.NO_ROWS:
                    continue
                counts.rejected_count += 1
                if len(counts.rejected) < MAX_REPORTED:
                    counts.rejected.append(
                        {
                            "source": rejection.source,
                            "field": rejection.field,
                            "code": rejection.code,
                            "detail": rejection.detail,
                        }
                    )
            by_item: dict[str, set[Pair]] = {}
            for pair in _pairs(parsed, mapping):
                by_item.setdefault(pair[1], set()).add(pair)
            new_pairs = {task_id: by_item.get(item, set()) for task_id, item in items.items()}
        for task in annotated:
            new_pairs.setdefault(int(task["id"]), set())
        for task_id in gone_task_ids:
            if int(task_id) not in sent_ids:
                new_pairs[int(task_id)] = set()
        counts.deleted = _store_pairs(connection, new_pairs, links, items)
        _store_annotations(connection, annotated + sent, gone_task_ids)
        for task in sent:
            counts.resolved += _resolve_sent(connection, task, links.get(int(task["id"])))
        LinkedTask.objects.filter(
            connection=connection, task_id__in=[int(i) for i in gone_task_ids]
        ).delete()
    return counts


def _store_pairs(
    connection: LabelStudioConnection,
    new_pairs: Mapping[int, set[Pair]],
    links: dict[int, LinkedTask],
    items: Mapping[int, str],
) -> int:
    """Remember each task's pairs and item; delete the annotations a task no longer gives."""
    claimed = set().union(*new_pairs.values()) if new_pairs else set()
    stale: set[Pair] = set()
    for task_id, pairs in new_pairs.items():
        link = links.get(task_id)
        old = {tuple(pair) for pair in link.pairs} if link is not None else set()
        stale |= {pair for pair in old if pair not in claimed}  # type: ignore[misc]
        ordered = sorted([list(pair) for pair in pairs])
        item_key = items.get(task_id, link.item_key if link is not None else "")
        if link is None:
            links[task_id] = LinkedTask.objects.create(
                connection=connection, task_id=task_id, pairs=ordered, item_key=item_key
            )
        elif link.pairs != ordered or link.item_key != item_key:
            link.pairs, link.item_key = ordered, item_key
            link.save(update_fields=["pairs", "item_key", "updated_at"])
    deleted = 0
    actor = _actor(connection)
    for question_key, item_key, coder_key in sorted(stale):
        annotation = (
            Annotation.objects.filter(
                round_id=connection.round_id,
                question__study_id=connection.study_id,
                question__key=question_key,
                item__study_id=connection.study_id,
                item__external_id=item_key,
                coder__study_id=connection.study_id,
                coder__key=coder_key,
            )
            .select_related("question", "question__study")
            .first()
        )
        if annotation is not None:
            annotation_delete(annotation=annotation, actor=actor)
            deleted += 1
    return deleted


def _store_annotations(
    connection: LabelStudioConnection, tasks: list[dict[str, Any]], gone_task_ids: Iterable[int]
) -> None:
    """Which task each Label Studio annotation is on (delete events name annotations only)."""
    task_ids = [int(task["id"]) for task in tasks] + [int(i) for i in gone_task_ids]
    LinkedAnnotation.objects.filter(connection=connection, task_id__in=task_ids).delete()
    LinkedAnnotation.objects.bulk_create(
        [
            LinkedAnnotation(
                connection=connection, annotation_id=int(a["id"]), task_id=int(t["id"])
            )
            for t in tasks
            for a in t["annotations"]
            if isinstance(a.get("id"), int)
        ],
        ignore_conflicts=True,
    )


# -- tasks the server sent -----------------------------------------------------------------------


def _resolve_sent(
    connection: LabelStudioConnection, task: dict[str, Any], link: LinkedTask | None
) -> int:
    """Record the latest annotation of a sent task as the item's adjudicated label; 1 when
    something was recorded (the same annotation again records nothing)."""
    if link is None or link.question is None or link.round is None:
        return 0
    done = [a for a in task["annotations"] if not a.get("was_cancelled") and a.get("result")]
    if not done:
        return 0
    latest = max(done, key=lambda a: (str(a.get("updated_at") or ""), int(a.get("id") or 0)))
    key = f"{latest.get('id')}:{latest.get('updated_at')}"
    if link.resolution_key == key:
        return 0
    one = {**task, "annotations": [latest]}
    parsed = FORMATS[FORMAT].parse(json.dumps([one]).encode(), ParseOptions())
    mapping = _mapping(connection)
    label = None
    for row in parsed.rows:
        target = mapping.question_map.get(row.field, row.field) if row.field else None
        if target == link.question.key or row.field == link.question.key:
            label = row.label
            break
    if label is None:
        return 0
    item = Item.objects.filter(study_id=connection.study_id, external_id=link.item_key).first()
    if item is None:
        return 0
    note = f"Decided in Label Studio (task {task['id']}, annotation {latest.get('id')})."
    try:
        adjudicate(
            round_=link.round,
            question=link.question,
            item=item,
            label=label,
            note=note,
            user=connection.created_by,
        )
    except ValidationError:
        # A kind without adjudication: the decision only takes the entry out of the queue.
        if link.review_entry_id is None:
            return 0
        entry = ReviewEntry.objects.filter(
            pk=link.review_entry_id, resolved_at__isnull=True
        ).first()
        if entry is None:
            return 0
        review_entry_resolve(entry=entry, note=f"{note} Label: {label}", user=connection.created_by)
    link.resolution_key = key
    link.resolved_at = timezone.now()
    link.save(update_fields=["resolution_key", "resolved_at", "updated_at"])
    return 1
