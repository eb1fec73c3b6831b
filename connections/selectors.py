"""Reads of connections, their syncs and events (never the token)."""

from __future__ import annotations

from django.db.models import QuerySet

from connections.models import LabelStudioConnection, LabelStudioEvent, LabelStudioSync
from studies.models import Study


def connection_list(*, study: Study) -> QuerySet[LabelStudioConnection]:
    return LabelStudioConnection.objects.filter(study=study).order_by("id")


def sync_list(*, connection: LabelStudioConnection) -> QuerySet[LabelStudioSync]:
    return LabelStudioSync.objects.filter(connection=connection).order_by("-requested_at", "-id")


def event_list(*, connection: LabelStudioConnection) -> QuerySet[LabelStudioEvent]:
    return LabelStudioEvent.objects.filter(connection=connection).order_by("-received_at", "-id")


def latest_sync(connection: LabelStudioConnection) -> LabelStudioSync | None:
    return sync_list(connection=connection).first()
