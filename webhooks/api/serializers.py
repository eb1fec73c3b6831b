"""Input and output serializers of a study's webhook endpoints and their delivery log."""

from __future__ import annotations

from rest_framework import serializers

from computations import engine
from webhooks.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint
from webhooks.services import SUBSCRIBABLE_EVENTS, WebhookErrorCode
from webhooks.targets import webhook_url_problem


class WebhookEndpointInputSerializer(serializers.Serializer):
    url = serializers.URLField(
        max_length=2000,
        help_text="Where to POST the events: http or https, with no user name or password "
        "and no backslash.",
    )
    events = serializers.ListField(
        child=serializers.ChoiceField(choices=list(SUBSCRIBABLE_EVENTS)),
        allow_empty=False,
        help_text="`computation.finished` (done or failed) and/or "
        "`agreement.below_threshold` (a one-round coefficient below `threshold`).",
    )
    description = serializers.CharField(max_length=200, required=False, allow_blank=True)
    threshold = serializers.FloatField(
        required=False,
        allow_null=True,
        min_value=-1,
        max_value=1,
        help_text="Needed by `agreement.below_threshold`: fire when a round's coefficient "
        "is below this value.",
    )
    # A plain string (the service checks it, code ``unknown_coefficient``): the same choice
    # set as an enum here would collide with the computations' coefficient enums.
    coefficient = serializers.CharField(
        max_length=50,
        required=False,
        allow_blank=True,
        help_text="Watch only this coefficient (blank: every computed coefficient), one of: "
        + ", ".join(engine.ALL_COEFFICIENTS)
        + ".",
    )
    is_active = serializers.BooleanField(required=False)

    def validate_url(self, value: str) -> str:
        problem = webhook_url_problem(value)
        if problem is not None:
            raise serializers.ValidationError(problem, code=WebhookErrorCode.INVALID_URL)
        return value


class WebhookEndpointOutputSerializer(serializers.ModelSerializer):
    events = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = WebhookEndpoint
        fields: tuple[str, ...] = (
            "id",
            "url",
            "description",
            "events",
            "threshold",
            "coefficient",
            "is_active",
            "created_at",
            "updated_at",
        )
        read_only_fields = fields


class WebhookEndpointCreatedSerializer(WebhookEndpointOutputSerializer):
    secret = serializers.CharField(
        read_only=True,
        help_text="Signs every request (HMAC-SHA256). Shown this once only: store it now.",
    )

    class Meta(WebhookEndpointOutputSerializer.Meta):
        fields = (*WebhookEndpointOutputSerializer.Meta.fields, "secret")
        read_only_fields = fields


class WebhookAttemptOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = WebhookAttempt
        fields: tuple[str, ...] = (
            "number",
            "started_at",
            "duration_ms",
            "status_code",
            "succeeded",
            "response_excerpt",
            "error",
            "retry_in_seconds",
        )
        read_only_fields = fields


class WebhookDeliveryOutputSerializer(serializers.ModelSerializer):
    attempts = serializers.IntegerField(read_only=True, help_text="Attempts made so far.")
    attempt_log = WebhookAttemptOutputSerializer(many=True, read_only=True)
    payload = serializers.JSONField(read_only=True, help_text="The JSON body sent.")
    # A plain string: "status" enums of other components would collide with this one.
    status = serializers.CharField(
        read_only=True, help_text="pending (will be tried again), succeeded or failed."
    )

    class Meta:
        model = WebhookDelivery
        fields: tuple[str, ...] = (
            "id",
            "event",
            "event_id",
            "status",
            "attempts",
            "last_status_code",
            "next_attempt_at",
            "created_at",
            "finished_at",
            "payload",
            "attempt_log",
        )
        read_only_fields = fields
