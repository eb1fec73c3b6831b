"""Admin of Label Studio connections: status, maps, the sync and event logs, and the actions
*Test the connection* and *Sync now*. Connections are made through the API or the study
page (the token is checked against Label Studio first); the token is never shown here."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from connections import services
from connections.models import LabelStudioConnection, LabelStudioEvent, LabelStudioSync


class SyncInline(admin.TabularInline):
    model = LabelStudioSync
    fields = ("trigger", "status", "report", "error", "requested_at", "finished_at")
    readonly_fields = fields
    ordering = ("-requested_at", "-id")
    extra = 0
    max_num = 0
    can_delete = False
    verbose_name_plural = "syncs (newest first)"

    def get_queryset(self, request: HttpRequest) -> QuerySet[LabelStudioSync]:
        queryset = super().get_queryset(request)
        latest = list(queryset.order_by("-requested_at", "-id").values_list("id", flat=True)[:10])
        return queryset.filter(id__in=latest)


@admin.register(LabelStudioConnection)
class LabelStudioConnectionAdmin(admin.ModelAdmin):
    list_display = (
        "__str__", "study", "url", "project_id", "round", "is_active", "last_event_at",
        "last_sync_at", "last_error_at",
    )  # fmt: skip
    list_select_related = ("study", "round")
    list_filter = ("is_active",)
    search_fields = ("name", "url", "study__name")
    fields = (
        "study", "round", "name", "url", "project_id", "token_hint", "webhook_id", "is_active",
        "question_map", "category_map", "case_insensitive_categories", "coder_map",
        "document_key", "controls", "last_test", "last_event_at", "last_sync_at", "last_error",
        "last_error_at", "recompute_after", "created_by", "created_at",
    )  # fmt: skip
    readonly_fields = (
        "study", "url", "project_id", "token_hint", "webhook_id", "controls", "last_test",
        "last_event_at", "last_sync_at", "last_error", "last_error_at", "recompute_after",
        "created_by", "created_at",
    )  # fmt: skip
    raw_id_fields = ("round",)
    inlines = (SyncInline,)
    actions = ("test_connections", "sync_now")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # the API and the study page test a token before storing it

    @admin.action(description="Test the connection")
    def test_connections(
        self, request: HttpRequest, queryset: QuerySet[LabelStudioConnection]
    ) -> None:
        for connection in queryset:
            result = services.connection_test(connection=connection)
            level = messages.SUCCESS if result.ok else messages.ERROR
            self.message_user(request, f"{connection}: {result.message}", level)

    @admin.action(description="Sync now")
    def sync_now(self, request: HttpRequest, queryset: QuerySet[LabelStudioConnection]) -> None:
        for connection in queryset:
            sync = services.sync_request(connection=connection)
            self.message_user(request, f"{connection}: sync {sync.pk} requested.")


@admin.register(LabelStudioEvent)
class LabelStudioEventAdmin(admin.ModelAdmin):
    list_display = ("action", "connection", "status", "received_at", "finished_at")
    list_filter = ("status", "action")
    list_select_related = ("connection",)
    readonly_fields = (
        "connection", "action", "task_ids", "annotation_ids", "status", "error", "report",
        "received_at", "started_at", "finished_at", "attempts",
    )  # fmt: skip
    exclude = ("heartbeat_at", "dispatched_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
