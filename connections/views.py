"""Label Studio's webhook calls, and the study page's connection actions.

The hook (``POST /hooks/label-studio/<connection>/``) takes no session or token: Label Studio
proves itself with the connection's secret in ``X-Agreement-Connection-Secret``. An
unknown connection answers 404 and a missing or wrong secret 401, before the body is read
and with nothing changed; a good call is stored as an event and answered at once (202),
since Label Studio waits for the answer (one second by default). A worker applies it.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from connections import services
from connections.models import LabelStudioConnection
from studies.access import Actor, role_allows, study_role
from studies.models import Role, Round, Study

logger = logging.getLogger(__name__)


@csrf_exempt
@require_POST
def label_studio_hook(request: HttpRequest, connection_pk: str) -> HttpResponse:
    secret = request.headers.get(services.SECRET_HEADER)
    try:
        # The secret is checked before the body is parsed.
        services.event_receive(connection_pk=int(connection_pk), secret=secret, payload=None)
    except services.ConnectionNotFoundError:
        return JsonResponse({"error": "No such connection."}, status=404)
    except services.ConnectionSecretError:
        logger.warning("label studio hook refused connection=%s (secret)", connection_pk)
        return JsonResponse(
            {"error": f"The {services.SECRET_HEADER} header is missing or wrong."}, status=401
        )
    try:
        payload = json.loads(request.body or b"null")
    except (ValueError, UnicodeDecodeError):
        return JsonResponse({"error": "The body is not JSON."}, status=400)
    event = services.event_receive(connection_pk=int(connection_pk), secret=secret, payload=payload)
    if event is None:
        return JsonResponse({"event": None, "ignored": True}, status=200)
    return JsonResponse({"event": event.pk, "status": event.status}, status=202)


# -- the study page's actions --------------------------------------------------------------------


def _managed_study(request: HttpRequest, study_pk: int) -> Study:
    study = Study.objects.filter(pk=study_pk).first()
    role = study_role(Actor(user=request.user, token=None), study) if study else None
    if study is None or role is None:
        raise Http404("No such study.")
    if not role_allows(role, Role.MANAGER):
        raise PermissionError
    return study


def _wants_json(request: HttpRequest) -> bool:
    return "application/json" in request.headers.get("Accept", "")


def _answer(
    request: HttpRequest, study: Study, level: int, text: str, *, status: int = 200
) -> HttpResponse:
    """JSON for a script (Accept: application/json); else a message on the study page."""
    if _wants_json(request):
        return JsonResponse({"message": text}, status=status)
    messages.add_message(request, level, text)
    return HttpResponseRedirect(reverse("pages:study-detail", args=[study.pk]) + "#label-studio")


def _forbidden(request: HttpRequest) -> HttpResponse:
    return HttpResponse(
        "Only the study's managers can manage Label Studio connections.", status=403
    )


def _public_url(request: HttpRequest) -> str:
    return settings.AGREEMENT_PUBLIC_URL or request.build_absolute_uri("/")


def _json_option(request: HttpRequest, name: str) -> dict[str, Any]:
    text = (request.POST.get(name) or "").strip()
    if not text:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        raise ValidationError({name: f"{name} is not JSON."}) from None
    if not isinstance(value, dict):
        raise ValidationError({name: f"{name} must be a JSON object."})
    return value


@login_required
@require_POST
def connection_create_view(request: HttpRequest, study_pk: str) -> HttpResponse:
    try:
        study = _managed_study(request, int(study_pk))
    except PermissionError:
        return _forbidden(request)
    try:
        round_ = Round.objects.filter(study=study, pk=int(request.POST.get("round") or 0)).first()
        if round_ is None:
            raise ValidationError({"round": "Choose a round of the study."})
        connection, secret, test = services.connection_create(
            study=study,
            round_=round_,
            url=(request.POST.get("url") or "").strip(),
            project_id=int(request.POST.get("project_id") or 0),
            token=(request.POST.get("token") or "").strip(),
            question_map=_json_option(request, "question_map"),
            coder_map=_json_option(request, "coder_map"),
            register_webhook=request.POST.get("register_webhook") == "on",
            public_url=_public_url(request),
            created_by=request.user,
        )
    except (ValidationError, ValueError) as error:
        text = "; ".join(error.messages) if isinstance(error, ValidationError) else str(error)
        return _answer(
            request, study, messages.ERROR, f"The connection was not made: {text}", status=400
        )
    text = f"Label Studio project {connection.project_id}: {test.message}."
    if connection.webhook_id is None:
        if connection.last_error:
            text += f" {connection.last_error}"
        text += (
            " Paste into the project's Settings → Webhooks: URL "
            f"{services.hook_url(connection, _public_url(request))} and the header "
            f"{services.SECRET_HEADER}: {secret} (shown once)."
        )
    return _answer(request, study, messages.SUCCESS, text, status=201)


def _connection(study: Study, connection_pk: int) -> LabelStudioConnection:
    return get_object_or_404(LabelStudioConnection, study=study, pk=connection_pk)


@login_required
@require_POST
def connection_test_view(request: HttpRequest, study_pk: str, connection_pk: str) -> HttpResponse:
    try:
        study = _managed_study(request, int(study_pk))
    except PermissionError:
        return _forbidden(request)
    result = services.connection_test(connection=_connection(study, int(connection_pk)))
    return _answer(
        request, study, messages.SUCCESS if result.ok else messages.ERROR, result.message
    )


@login_required
@require_POST
def connection_sync_view(request: HttpRequest, study_pk: str, connection_pk: str) -> HttpResponse:
    try:
        study = _managed_study(request, int(study_pk))
    except PermissionError:
        return _forbidden(request)
    sync = services.sync_request(connection=_connection(study, int(connection_pk)))
    sync.refresh_from_db()
    return _answer(request, study, messages.SUCCESS, f"Sync {sync.pk}: {sync.status}.", status=202)
