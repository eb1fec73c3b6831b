"""Admin of webhook endpoints and their delivery log.

Registers ``WebhookEndpointAdmin`` and ``WebhookDeliveryAdmin``. Endpoints are created and
changed through the services (the secret is shown once, in a message); deliveries and
attempts are read-only, with a "send again" action.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from webhooks import services as webhooks
from webhooks.models import DeliveryStatus, WebhookAttempt, WebhookDelivery, WebhookEndpoint


class WebhookEndpointForm(forms.ModelForm):
    url = forms.URLField(max_length=2000, assume_scheme="https")
    events = forms.MultipleChoiceField(
        choices=[(event.value, event.label) for event in webhooks.SUBSCRIBABLE_EVENTS],
        widget=forms.CheckboxSelectMultiple,
    )

    class Meta:
        model = WebhookEndpoint
        fields = ("study", "url", "description", "events", "threshold", "coefficient", "is_active")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        candidate = WebhookEndpoint(
            study=data.get("study") or getattr(self.instance, "study", None),
            secret=self.instance.secret or "-",
            **{name: data.get(name) for name in ("url", "description", "events", "threshold")},
            coefficient=data.get("coefficient") or "",
            is_active=bool(data.get("is_active")),
        )
        try:
            webhooks.webhook_endpoint_validate(endpoint=candidate)
        except ValidationError as error:
            self.add_error(None, error)
        return data


class WebhookDeliveryInline(admin.TabularInline):
    model = WebhookDelivery
    fields = ("event", "status", "attempts", "last_status_code", "created_at", "finished_at")
    readonly_fields = fields
    ordering = ("-created_at", "-id")
    extra = 0
    max_num = 0
    show_change_link = True
    can_delete = False
    verbose_name_plural = "deliveries (newest first)"

    def get_queryset(self, request: HttpRequest) -> QuerySet[WebhookDelivery]:
        # The latest 20 only: an endpoint's log grows without bound.
        queryset = super().get_queryset(request)
        latest = list(queryset.order_by("-created_at", "-id").values_list("id", flat=True)[:20])
        return queryset.filter(id__in=latest)


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(admin.ModelAdmin):
    form = WebhookEndpointForm
    list_display = (
        "url", "study", "event_list", "threshold", "is_active", "succeeded", "failed", "created_at",
    )  # fmt: skip
    list_select_related = ("study",)
    list_filter = ("is_active",)
    search_fields = ("url", "description", "study__name")
    autocomplete_fields = ("study",)
    readonly_fields = ("created_by", "created_at", "updated_at")
    inlines = (WebhookDeliveryInline,)
    actions = ("send_ping", "rotate_secret")

    def get_queryset(self, request: HttpRequest) -> QuerySet[WebhookEndpoint]:
        # Delivery counts in the same query as the endpoints (no query per row).
        return (
            super()
            .get_queryset(request)
            .annotate(
                n_succeeded=Count("deliveries", filter=Q(deliveries__status="succeeded")),
                n_failed=Count("deliveries", filter=Q(deliveries__status="failed")),
            )
        )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ()
        return ("study", *self.readonly_fields)

    @admin.display(description="events")
    def event_list(self, obj: WebhookEndpoint) -> str:
        return ", ".join(obj.events)

    @admin.display(description="succeeded", ordering="n_succeeded")
    def succeeded(self, obj: Any) -> int:
        return int(getattr(obj, "n_succeeded", 0))

    @admin.display(description="failed", ordering="n_failed")
    def failed(self, obj: Any) -> int:
        return int(getattr(obj, "n_failed", 0))

    def save_form(self, request: HttpRequest, form: Any, change: bool) -> Any:
        data = form.cleaned_data
        fields = {
            "url": data["url"],
            "events": data["events"],
            "description": data.get("description") or "",
            "threshold": data.get("threshold"),
            "coefficient": data.get("coefficient") or "",
            "is_active": bool(data.get("is_active")),
        }
        if change:
            endpoint = WebhookEndpoint.objects.get(pk=form.instance.pk)
            return webhooks.webhook_endpoint_update(endpoint=endpoint, **fields)
        endpoint, secret = webhooks.webhook_endpoint_create(
            study=data["study"], created_by=request.user, **fields
        )
        self.message_user(
            request,
            format_html(
                "The endpoint's signing secret, shown only this once; copy it now: <code>{}</code>",
                secret,
            ),
            messages.WARNING,
        )
        return endpoint

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        return  # saved by its service in save_form

    def save_related(self, request: HttpRequest, form: Any, formsets: Any, change: bool) -> None:
        # No many-to-many fields (the service saved the endpoint); the inline is read-only.
        for formset in formsets:
            self.save_formset(request, form, formset, change=change)

    def get_inlines(self, request: HttpRequest, obj: Any) -> Any:
        return self.inlines if obj is not None else ()

    @admin.action(description="Send a ping to the selected endpoints")
    def send_ping(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        count = 0
        for endpoint in queryset:
            webhooks.webhook_ping(endpoint=endpoint)
            count += 1
        self.message_user(request, f"{count} ping(s) queued.", messages.SUCCESS)

    @admin.action(description="Replace the signing secret of the selected endpoints")
    def rotate_secret(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        rows = []
        for endpoint in queryset:
            _endpoint, secret = webhooks.webhook_endpoint_rotate_secret(endpoint=endpoint)
            rows.append((endpoint.url, secret))
        self.message_user(
            request,
            format_html(
                "New secrets, shown only this once: {}",
                format_html_join(", ", "{} → <code>{}</code>", rows),
            ),
            messages.WARNING,
        )


class WebhookAttemptInline(admin.TabularInline):
    model = WebhookAttempt
    fields = (
        "number", "started_at", "duration_ms", "status_code", "succeeded", "error",
        "response_excerpt", "retry_in_seconds",
    )  # fmt: skip
    readonly_fields = fields
    extra = 0
    max_num = 0
    can_delete = False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(admin.ModelAdmin):
    list_display = (
        "id", "event", "endpoint_url", "study", "status", "attempts", "last_status_code",
        "created_at", "finished_at",
    )  # fmt: skip
    list_select_related = ("endpoint", "endpoint__study")
    list_filter = ("status", "event")
    search_fields = ("event_id", "endpoint__url", "endpoint__study__name")
    date_hierarchy = "created_at"
    fields = (
        "endpoint", "event", "event_id", "status", "attempts", "last_status_code",
        "next_attempt_at", "dispatched_at", "created_at", "finished_at", "payload_json",
    )  # fmt: skip
    readonly_fields = fields
    inlines = (WebhookAttemptInline,)
    actions = ("send_again",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="endpoint", ordering="endpoint__url")
    def endpoint_url(self, obj: WebhookDelivery) -> str:
        return obj.endpoint.url

    @admin.display(description="study", ordering="endpoint__study__name")
    def study(self, obj: WebhookDelivery) -> str:
        return str(obj.endpoint.study)

    @admin.display(description="payload")
    def payload_json(self, obj: WebhookDelivery) -> str:
        import json

        return format_html("<pre>{}</pre>", json.dumps(obj.payload, indent=2, sort_keys=True))

    @admin.action(description="Send the selected deliveries again")
    def send_again(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        count = 0
        for delivery in queryset.exclude(status=DeliveryStatus.PENDING):
            webhooks.webhook_delivery_redeliver(delivery=delivery)
            count += 1
        self.message_user(
            request, f"{count} delivery(ies) queued again (pending ones are left alone).",
            messages.SUCCESS,
        )  # fmt: skip
