"""Connections to Label Studio projects: create, test, register the webhook, receive and
apply events, sync, request the agreement after a quiet period, send items back.

Writes happen here, in transactions; work for the workers goes through ``dispatch.py``
after the commit. Calls to Label Studio go through ``connections.client`` (the guarded
transport); what they find is reconciled by ``connections.reconcile``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from adjudication.selectors import adjudication_item_ids, items_to_adjudicate
from agreement_server.worker_jobs import (
    ERROR_LIMIT,
    JobStatus,
    job_beat,
    job_claim,
    job_fail,
    job_finish,
    jobs_sweep,
)
from computations.models import ComputationScope
from computations.services import computation_request
from connections import dispatch
from connections.client import LabelStudioClient, LabelStudioError
from connections.label_config import Control, control_question, controls_of
from connections.models import (
    LabelStudioConnection,
    LabelStudioEvent,
    LabelStudioSync,
    LinkedAnnotation,
    LinkedTask,
    SyncTrigger,
    TaskPurpose,
)
from connections.reconcile import PURPOSE_KEY, Counts, tasks_reconcile
from connections.secrets import (
    TokenUnreadableError,
    token_decrypt,
    token_encrypt,
    token_hint,
    webhook_secret_hash,
    webhook_secret_matches,
    webhook_secret_new,
)
from review.exports import review_label_studio
from review.models import ReviewEntry
from studies.exceptions import ApplicationError
from studies.kinds import ValueForm
from studies.models import Annotation, Coder, Question, Round, Study
from webhooks.targets import webhook_url_problem

logger = logging.getLogger(__name__)

SECRET_HEADER = "X-Agreement-Connection-Secret"
# Label Studio's events the webhook subscribes to; each names tasks or annotations.
ACTIONS = [
    "ANNOTATION_CREATED",
    "ANNOTATIONS_CREATED",
    "ANNOTATION_UPDATED",
    "ANNOTATIONS_DELETED",
    "TASKS_CREATED",
    "TASKS_DELETED",
]
MAX_SEND = 500


class ConnectionNotFoundError(Exception):
    """No active connection by that id (the hook answers 404)."""


class ConnectionSecretError(Exception):
    """The hook's secret is missing or wrong (the hook answers 401)."""


# -- settings ------------------------------------------------------------------------------------


def quiet_period() -> timedelta:
    return timedelta(seconds=settings.AGREEMENT_LABEL_STUDIO_QUIET_SECONDS)


def _client(connection: LabelStudioConnection) -> LabelStudioClient:
    try:
        token = token_decrypt(connection.token_encrypted)
    except TokenUnreadableError as error:
        raise LabelStudioError(str(error)) from None
    return LabelStudioClient(connection.url, token)


def hook_path(connection: LabelStudioConnection) -> str:
    return reverse("connections:label-studio-hook", kwargs={"connection_pk": connection.pk})


def hook_url(connection: LabelStudioConnection, public_url: str) -> str:
    """The address Label Studio posts its events to."""
    return public_url.rstrip("/") + hook_path(connection)


def _record_error(connection_id: int, message: str) -> None:
    LabelStudioConnection.objects.filter(pk=connection_id).update(
        last_error=message[:ERROR_LIMIT], last_error_at=timezone.now()
    )


# -- creating, testing, changing -----------------------------------------------------------------


def _check_fields(
    *,
    study: Study,
    round_: Round | None,
    url: str,
    question_map: Mapping[str, Any],
    coder_map: Mapping[str, Any],
) -> None:
    errors: dict[str, list[ValidationError]] = {}
    if round_ is not None and round_.study_id != study.pk:
        errors["round"] = [ValidationError("The round belongs to another study.", code="invalid")]
    if problem := webhook_url_problem(url.rstrip("/") + "/"):
        errors["url"] = [ValidationError(problem, code="invalid_url")]
    keys = set(Question.objects.filter(study=study).values_list("key", flat=True))
    unknown = sorted(
        {value for value in question_map.values() if value is not None and value not in keys}
    )
    if unknown or not all(isinstance(v, str | type(None)) for v in question_map.values()):
        errors["question_map"] = [
            ValidationError(
                f"question_map maps controls to questions the study lacks: {unknown}; give a "
                "question key or null (ignore the control).",
                code="unknown_question",
            )
        ]
    if not all(isinstance(v, str) and v.strip() for v in coder_map.values()):
        errors["coder_map"] = [
            ValidationError(
                "coder_map maps a Label Studio user (its id or email) or model version to a "
                "coder key (text).",
                code="invalid",
            )
        ]
    if errors:
        raise ValidationError(errors)


def _ensure_coders(study: Study, coder_map: Mapping[str, str]) -> None:
    """The coders ``coder_map`` names exist (the import's coder_map maps onto existing ones)."""
    for key in sorted({value.strip() for value in coder_map.values()}):
        Coder.objects.get_or_create(study=study, key=key)


@dataclass(frozen=True)
class TestResult:
    ok: bool
    message: str
    project: str = ""
    users: int = 0
    controls: tuple[dict[str, Any], ...] = ()
    controls_mapped: int = 0
    hint: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "message": self.message,
            "project": self.project,
            "users": self.users,
            "controls": list(self.controls),
            "controls_mapped": self.controls_mapped,
            "tested_at": timezone.now().isoformat(),
        }


def _probe(
    client: LabelStudioClient, *, study: Study, project_id: int, question_map: Mapping[str, Any]
) -> TestResult:
    project = client.project(project_id)
    users = client.users()
    keys = set(Question.objects.filter(study=study).values_list("key", flat=True))
    controls = []
    mapped = 0
    for control in controls_of(str(project.get("label_config") or "")):
        question = control_question(control, question_map=question_map, question_keys=keys)
        mapped += question is not None
        controls.append(
            {
                "name": control.name,
                "type": control.type,
                "to_name": control.to_name,
                "question": question,
            }
        )
    n_users = len(users)
    message = (
        f"connection works: {n_users} user{'s' if n_users != 1 else ''}, {mapped} "
        f"control{'s' if mapped != 1 else ''} mapped"
    )
    if controls and not mapped:
        message += (
            " — no control maps to a question: name questions after the controls ("
            + ", ".join(str(c["name"]) for c in controls)
            + ") or map them with question_map"
        )
    return TestResult(
        ok=True,
        message=message,
        project=str(project.get("title") or ""),
        users=n_users,
        controls=tuple(controls),
        controls_mapped=mapped,
    )


def connection_test(*, connection: LabelStudioConnection) -> TestResult:
    """Read the project, its users and controls; store the controls and the result."""
    try:
        result = _probe(
            _client(connection),
            study=connection.study,
            project_id=connection.project_id,
            question_map=connection.question_map,
        )
    except LabelStudioError as error:
        result = TestResult(ok=False, message=error.message)
        LabelStudioConnection.objects.filter(pk=connection.pk).update(
            last_test=result.as_dict(), last_error=error.message, last_error_at=timezone.now()
        )
        connection.refresh_from_db()
        return result
    controls = [{k: c[k] for k in ("name", "type", "to_name")} for c in result.controls]
    LabelStudioConnection.objects.filter(pk=connection.pk).update(
        last_test=result.as_dict(), controls=controls
    )
    connection.refresh_from_db()
    return result


@transaction.atomic
def connection_create(
    *,
    study: Study,
    round_: Round,
    url: str,
    project_id: int,
    token: str,
    name: str = "",
    question_map: Mapping[str, str | None] | None = None,
    category_map: Mapping[str, Any] | None = None,
    case_insensitive_categories: bool = False,
    coder_map: Mapping[str, str] | None = None,
    document_key: str = "id",
    register_webhook: bool = True,
    public_url: str = "",
    created_by: Any = None,
) -> tuple[LabelStudioConnection, str, TestResult]:
    """Connect a study's round to a Label Studio project; (connection, webhook secret shown
    once, test). Label Studio is called first: a connection that does not work is refused
    (400 on ``url`` or ``token`` with what to do). With ``register_webhook`` the server
    registers its webhook in the project; otherwise (or when that fails) the URL and secret
    are pasted into the project's webhook settings by hand."""
    question_map = dict(question_map or {})
    coder_map = dict(coder_map or {})
    _check_fields(
        study=study, round_=round_, url=url, question_map=question_map, coder_map=coder_map
    )
    if LabelStudioConnection.objects.filter(
        study=study, url=url.rstrip("/"), project_id=project_id
    ).exists():
        raise ValidationError(
            {"project_id": ValidationError("This project is already connected.", code="unique")}
        )
    try:
        client = LabelStudioClient(url, token)
        test = _probe(client, study=study, project_id=project_id, question_map=question_map)
    except LabelStudioError as error:
        field = "token" if error.status in (401, 403) else "url"
        raise ValidationError(
            {field: ValidationError(error.message, code="connection_failed")}
        ) from None
    _ensure_coders(study, coder_map)
    secret = webhook_secret_new()
    connection = LabelStudioConnection(
        study=study,
        round=round_,
        name=name,
        url=url.rstrip("/"),
        project_id=project_id,
        token_encrypted=token_encrypt(token),
        token_hint=token_hint(token),
        webhook_secret_hash=webhook_secret_hash(secret),
        question_map=question_map,
        category_map=dict(category_map or {}),
        case_insensitive_categories=case_insensitive_categories,
        coder_map=coder_map,
        document_key=(document_key or "id").strip() or "id",
        created_by=created_by if getattr(created_by, "pk", None) else None,
        last_test=test.as_dict(),
        controls=[{k: c[k] for k in ("name", "type", "to_name")} for c in test.controls],
    )
    connection.full_clean(exclude=["study", "round", "created_by"])
    connection.save()
    if register_webhook and public_url:
        try:
            connection.webhook_id = client.webhook_create(
                project_id=project_id,
                url=hook_url(connection, public_url),
                headers={SECRET_HEADER: secret},
                actions=ACTIONS,
            )
            connection.save(update_fields=["webhook_id"])
        except LabelStudioError as error:
            connection.last_error = (
                f"The webhook could not be registered ({error.message}); paste the URL and "
                "secret into the project's Settings → Webhooks."
            )
            connection.last_error_at = timezone.now()
            connection.save(update_fields=["last_error", "last_error_at"])
    logger.info(
        "label studio connection created id=%s study=%s project=%s webhook=%s",
        connection.pk,
        study.pk,
        project_id,
        connection.webhook_id,
    )
    return connection, secret, test


UPDATABLE = (
    "name",
    "question_map",
    "category_map",
    "case_insensitive_categories",
    "coder_map",
    "document_key",
    "is_active",
)


@transaction.atomic
def connection_update(
    *,
    connection: LabelStudioConnection,
    token: str | None = None,
    round_: Round | None = None,
    **fields: Any,
) -> LabelStudioConnection:
    question_map = fields.get("question_map", connection.question_map)
    coder_map = fields.get("coder_map", connection.coder_map)
    _check_fields(
        study=connection.study,
        round_=round_,
        url=connection.url,
        question_map=question_map,
        coder_map=coder_map,
    )
    _ensure_coders(connection.study, coder_map)
    for name in UPDATABLE:
        if name in fields:
            setattr(connection, name, fields[name])
    if round_ is not None:
        connection.round = round_
    if token:
        connection.token_encrypted = token_encrypt(token)
        connection.token_hint = token_hint(token)
    connection.save()
    return connection


def connection_delete(*, connection: LabelStudioConnection) -> None:
    """Delete the connection (the study keeps its annotations); the webhook the server
    registered is removed from the project when Label Studio answers."""
    if connection.webhook_id:
        try:
            _client(connection).webhook_delete(connection.webhook_id)
        except LabelStudioError as error:
            logger.warning(
                "label studio webhook not removed connection=%s (%s)", connection.pk, error.message
            )
    connection.delete()


def webhook_register(*, connection: LabelStudioConnection, public_url: str) -> str:
    """A new secret, and the webhook (re)registered in the project with it; the secret."""
    client = _client(connection)
    secret = webhook_secret_new()
    if connection.webhook_id:
        client.webhook_delete(connection.webhook_id)
    connection.webhook_id = client.webhook_create(
        project_id=connection.project_id,
        url=hook_url(connection, public_url),
        headers={SECRET_HEADER: secret},
        actions=ACTIONS,
    )
    connection.webhook_secret_hash = webhook_secret_hash(secret)
    connection.save(update_fields=["webhook_id", "webhook_secret_hash", "updated_at"])
    return secret


def webhook_secret_rotate(*, connection: LabelStudioConnection) -> str:
    """A new secret to paste into the project's webhook (the old one stops working)."""
    secret = webhook_secret_new()
    connection.webhook_secret_hash = webhook_secret_hash(secret)
    connection.save(update_fields=["webhook_secret_hash", "updated_at"])
    return secret


# -- live events ---------------------------------------------------------------------------------


def _ids(values: Any) -> list[int]:
    out = []
    for value in values if isinstance(values, list) else [values]:
        raw = value.get("id") if isinstance(value, dict) else value
        if isinstance(raw, int) and not isinstance(raw, bool) and raw >= 0:
            out.append(raw)
    return out


def event_receive(
    *, connection_pk: int, secret: str | None, payload: Any
) -> LabelStudioEvent | None:
    """Store a webhook call as an event to apply, after checking its secret; None when it
    names nothing to apply (another action, another project). Raises
    ``ConnectionNotFoundError`` and ``ConnectionSecretError``; nothing changes then."""
    connection = LabelStudioConnection.objects.filter(pk=connection_pk, is_active=True).first()
    if connection is None:
        raise ConnectionNotFoundError
    if not webhook_secret_matches(secret, connection.webhook_secret_hash):
        raise ConnectionSecretError
    if not isinstance(payload, dict):
        return None
    action = str(payload.get("action") or "")[:50]
    project = payload.get("project")
    project_id = project.get("id") if isinstance(project, dict) else project
    if isinstance(project_id, int) and project_id != connection.project_id:
        return None
    task_ids: list[int] = []
    annotation_ids: list[int] = []
    if action in ("ANNOTATION_CREATED", "ANNOTATION_UPDATED", "ANNOTATIONS_CREATED"):
        task_ids = _ids(payload.get("task"))
        annotation = payload.get("annotation")
        annotation_ids = _ids(annotation)
        if not task_ids:
            task_ids = [
                a["task"]
                for a in (annotation if isinstance(annotation, list) else [annotation])
                if isinstance(a, dict) and isinstance(a.get("task"), int)
            ]
    elif action in ("TASKS_CREATED", "TASKS_DELETED"):
        task_ids = _ids(payload.get("tasks"))
    elif action == "ANNOTATIONS_DELETED":
        annotation_ids = _ids(payload.get("annotations"))
    if not task_ids and not annotation_ids:
        LabelStudioConnection.objects.filter(pk=connection.pk).update(last_event_at=timezone.now())
        return None
    with transaction.atomic():
        event = LabelStudioEvent.objects.create(
            connection=connection,
            action=action,
            task_ids=sorted(set(task_ids)),
            annotation_ids=sorted(set(annotation_ids)),
            dispatched_at=timezone.now(),
        )
        LabelStudioConnection.objects.filter(pk=connection.pk).update(
            last_event_at=event.received_at
        )
        dispatch.event_apply_enqueue(event.pk)
    return event


def _quiet_then_recompute(connection_id: int) -> None:
    LabelStudioConnection.objects.filter(pk=connection_id).update(
        recompute_after=timezone.now() + quiet_period()
    )


def event_apply(*, event_id: int) -> None:
    """Read the present state of the tasks an event names and reconcile them (a worker)."""
    if not job_claim(LabelStudioEvent, event_id):
        return
    event = LabelStudioEvent.objects.select_related("connection").get(pk=event_id)
    connection = event.connection
    try:
        task_ids = set(event.task_ids)
        task_ids |= set(
            LinkedAnnotation.objects.filter(
                connection=connection, annotation_id__in=event.annotation_ids
            ).values_list("task_id", flat=True)
        )
        client = _client(connection)
        tasks, gone = [], []
        for task_id in sorted(task_ids):
            task = client.task(task_id)
            if task is None or task.get("project") not in (None, connection.project_id):
                gone.append(task_id)
            else:
                tasks.append(task)
        counts = tasks_reconcile(connection_id=connection.pk, tasks=tasks, gone_task_ids=gone)
    except (LabelStudioError, ApplicationError, ValidationError) as error:
        message = _message(error)
        job_fail(event, message)
        _record_error(connection.pk, f"Event {event.action}: {message}")
        return
    job_finish(event, status=JobStatus.DONE, report=counts.as_dict())
    if counts.added or counts.changed or counts.deleted or counts.resolved:
        _quiet_then_recompute(connection.pk)


def _message(error: Exception) -> str:
    if isinstance(error, LabelStudioError | ApplicationError):
        return error.message
    if isinstance(error, ValidationError):
        return "; ".join(error.messages)
    return str(error)


# -- sync ----------------------------------------------------------------------------------------


def sync_request(
    *, connection: LabelStudioConnection, trigger: str = SyncTrigger.MANUAL
) -> LabelStudioSync:
    """Queue a sync, or return the one already queued or running."""
    with transaction.atomic():
        LabelStudioConnection.objects.select_for_update().get(pk=connection.pk)
        live = LabelStudioSync.objects.filter(
            connection=connection, status__in=[JobStatus.QUEUED, JobStatus.RUNNING]
        ).first()
        if live is not None:
            return live
        sync = LabelStudioSync.objects.create(
            connection=connection, trigger=trigger, dispatched_at=timezone.now()
        )
        dispatch.sync_run_enqueue(sync.pk)
    return sync


def sync_run(*, sync_id: int) -> None:
    """Read every task of the project page by page and reconcile it; tasks known here but
    gone from the project are reconciled as deleted. The report counts what changed."""
    if not job_claim(LabelStudioSync, sync_id):
        return
    sync = LabelStudioSync.objects.select_related("connection").get(pk=sync_id)
    connection = sync.connection
    total = Counts()
    pages = 0
    seen: set[int] = set()
    try:
        client = _client(connection)
        # The labeling configuration may have changed: read the controls again.
        project = client.project(connection.project_id)
        LabelStudioConnection.objects.filter(pk=connection.pk).update(
            controls=[
                {"name": c.name, "type": c.type, "to_name": c.to_name}
                for c in controls_of(str(project.get("label_config") or ""))
            ]
        )
        for tasks in client.task_pages(
            connection.project_id, page_size=settings.AGREEMENT_LABEL_STUDIO_PAGE_SIZE
        ):
            pages += 1
            seen |= {int(task["id"]) for task in tasks if isinstance(task.get("id"), int)}
            total.add(tasks_reconcile(connection_id=connection.pk, tasks=tasks))
            job_beat(sync, report={**total.as_dict(), "pages": pages})
        gone = sorted(
            set(LinkedTask.objects.filter(connection=connection).values_list("task_id", flat=True))
            - seen
        )
        if gone:
            total.add(tasks_reconcile(connection_id=connection.pk, tasks=[], gone_task_ids=gone))
    except (LabelStudioError, ApplicationError, ValidationError) as error:
        message = _message(error)
        job_fail(sync, message, report={**total.as_dict(), "pages": pages})
        _record_error(connection.pk, f"Sync: {message}")
        return
    report = {**total.as_dict(), "pages": pages, "tasks": len(seen)}
    job_finish(sync, status=JobStatus.DONE, report=report)
    LabelStudioConnection.objects.filter(pk=connection.pk).update(
        last_sync_at=timezone.now(), last_error="", last_error_at=None
    )
    if total.added or total.changed or total.deleted or total.resolved:
        _quiet_then_recompute(connection.pk)
    logger.info(
        "label studio sync done id=%s connection=%s pages=%s added=%s changed=%s deleted=%s",
        sync.pk,
        connection.pk,
        pages,
        total.added,
        total.changed,
        total.deleted,
    )


def syncs_periodic() -> list[int]:
    """A sync of every active connection (beat, every AGREEMENT_LABEL_STUDIO_SYNC_SECONDS)."""
    return [
        sync_request(connection=connection, trigger=SyncTrigger.PERIODIC).pk
        for connection in LabelStudioConnection.objects.filter(is_active=True)
    ]


# -- the quiet period, the sweep -----------------------------------------------------------------


def recompute_due(*, now: Any = None) -> list[int]:
    """Request the agreement of each connection's round whose quiet period is over; the
    computations requested. Each connection is taken once (a conditional UPDATE)."""
    now = now or timezone.now()
    requested: list[int] = []
    for connection_id, due in LabelStudioConnection.objects.filter(
        recompute_after__lte=now
    ).values_list("pk", "recompute_after"):
        if not LabelStudioConnection.objects.filter(pk=connection_id, recompute_after=due).update(
            recompute_after=None
        ):
            continue
        connection = LabelStudioConnection.objects.select_related("study", "round").get(
            pk=connection_id
        )
        question_ids = set(
            Annotation.objects.filter(round=connection.round).values_list("question_id", flat=True)
        )
        for question in Question.objects.filter(pk__in=question_ids).order_by("pk"):
            try:
                result = computation_request(
                    study=connection.study,
                    question=question,
                    scope=ComputationScope.ROUND,
                    rounds=[connection.round],
                    requested_by=connection.created_by,
                )
            except ValidationError as error:
                logger.info(
                    "no computation after label studio changes connection=%s question=%s (%s)",
                    connection_id,
                    question.key,
                    "; ".join(error.messages),
                )
                continue
            requested.append(result.computation.pk)
    return requested


def connections_sweep(*, now: Any = None) -> None:
    """Beat: send again events and syncs the broker refused or a dead worker left, and
    request the agreement of rounds whose quiet period is over."""
    now = now or timezone.now()
    resend = timedelta(seconds=settings.AGREEMENT_COMPUTATION_RESEND_AFTER_SECONDS)
    silent = timedelta(seconds=max(settings.AGREEMENT_LABEL_STUDIO_TIMEOUT_SECONDS * 4, 120))
    jobs_sweep(
        LabelStudioEvent,
        send=dispatch.event_apply_send,
        silent_before=now - silent,
        sent_before=now - resend,
        now=now,
    )
    jobs_sweep(
        LabelStudioSync,
        send=dispatch.sync_run_send,
        silent_before=now - silent,
        sent_before=now - resend,
        now=now,
    )
    recompute_due(now=now)


# -- back to the tool ----------------------------------------------------------------------------


def _control_for(connection: LabelStudioConnection, question: Question) -> Control | None:
    """The project's control whose results go to ``question``."""
    keys = set(Question.objects.filter(study_id=connection.study_id).values_list("key", flat=True))
    for raw in connection.controls or []:
        control = Control(raw["name"], raw["type"], raw.get("to_name", ""))
        if (
            control_question(control, question_map=connection.question_map, question_keys=keys)
            == question.key
        ):
            return control
    return None


def _result(question: Question, label: str, control: Control) -> dict[str, Any]:
    kind = question.label_kind
    value: dict[str, Any]
    if kind.numeric:
        value = {control.type: float(label)}
    else:
        members = label.split("|") if kind.form is ValueForm.CATEGORY_SET else [label]
        value = {"choices": members}
    return {
        "from_name": control.name,
        "to_name": control.to_name,
        "type": control.type,
        "value": value,
    }


def send_to_label_studio(
    *,
    connection: LabelStudioConnection,
    round_: Round,
    question: Question,
    purpose: str,
    user: Any = None,
) -> list[int]:
    """Send the round's open review-queue entries (``review``) or disputed items
    (``adjudication``) of ``question`` to the project as tasks, each coder's label a
    prediction (its ``model_version`` the coder); the task ids created. Items already sent
    and not yet decided are not sent again. A reviewer's annotation of such a task comes
    back through the webhook (or a sync) as the item's adjudicated label."""
    if round_.study_id != connection.study_id or question.study_id != connection.study_id:
        raise ValidationError({"round": "The round and question must be the connection's study's."})
    if purpose not in (TaskPurpose.REVIEW, TaskPurpose.ADJUDICATION):
        raise ValidationError({"purpose": "The purpose is review or adjudication."})
    control = _control_for(connection, question)
    if control is None or control.type not in ("choices", "number", "rating"):
        raise ValidationError(
            {
                "question": ValidationError(
                    f"The project has no choices or number control for {question.key!r}: add "
                    "one to its labeling configuration (or map one with question_map), then "
                    "test the connection.",
                    code="no_control",
                )
            }
        )
    pending = set(
        LinkedTask.objects.filter(
            connection=connection,
            purpose=purpose,
            round=round_,
            question=question,
            resolved_at__isnull=True,
        ).values_list("item_key", flat=True)
    )
    tasks: list[tuple[str, int | None, dict[str, Any], dict[str, str]]] = []
    if purpose == TaskPurpose.REVIEW:
        entries = list(
            ReviewEntry.objects.filter(round=round_, question=question, resolved_at__isnull=True)
            .select_related("item", "round", "question")
            .order_by("item__external_id")[:MAX_SEND]
        )
        for entry, task in zip(entries, review_label_studio(entries), strict=True):
            tasks.append((entry.item.external_id, entry.pk, task["data"], entry.labels))
    else:
        ids = adjudication_item_ids(round_=round_, question=question)[:MAX_SEND]
        for item in items_to_adjudicate(round_=round_, question=question, item_ids=ids):
            if item.adjudication is not None:
                continue
            data = {"text": item.text, "item": item.external_id, "round": round_.name}
            tasks.append((item.external_id, None, data, item.labels))
    client = _client(connection)
    originals = dict(
        LinkedTask.objects.filter(
            connection=connection,
            purpose=TaskPurpose.ANNOTATE,
            item_key__in=[item_key for item_key, *_ in tasks],
        ).values_list("item_key", "task_id")
    )
    created: list[int] = []
    for item_key, entry_id, data, labels in tasks:
        if item_key in pending:
            continue
        # The coders' task's data (its text, image...: what the labeling interface shows).
        original = client.task(originals[item_key]) if item_key in originals else None
        shown = original.get("data", {}) if original else {}
        body = {**shown, **data, PURPOSE_KEY: purpose, "agreement_question": question.key}
        task_id = client.task_create(project_id=connection.project_id, data=body)
        LinkedTask.objects.update_or_create(
            connection=connection,
            task_id=task_id,
            defaults={
                "purpose": purpose,
                "round": round_,
                "question": question,
                "item_key": item_key,
                "review_entry_id": entry_id,
            },
        )
        for coder, label in sorted(labels.items()):
            client.prediction_create(
                task_id=task_id, model_version=coder, result=[_result(question, label, control)]
            )
        created.append(task_id)
    logger.info(
        "sent to label studio connection=%s purpose=%s round=%s question=%s tasks=%s",
        connection.pk,
        purpose,
        round_.pk,
        question.key,
        len(created),
    )
    return created
