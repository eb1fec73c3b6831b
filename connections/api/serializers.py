"""Input and output serializers of a study's Label Studio connections (never the token)."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers

from connections.models import LabelStudioConnection, LabelStudioEvent, LabelStudioSync, TaskPurpose


class _JsonObject(serializers.JSONField):
    def to_internal_value(self, data: Any) -> Any:
        value = super().to_internal_value(data)
        if not isinstance(value, dict):
            raise serializers.ValidationError("A JSON object is required.", code="invalid")
        return value


class ConnectionInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    url = serializers.URLField(
        max_length=500, help_text="Label Studio's address, e.g. `https://ls.example.org`."
    )
    project_id = serializers.IntegerField(
        min_value=1, help_text="The project's id: the number in its address (`/projects/12/`)."
    )
    token = serializers.CharField(
        max_length=2000,
        write_only=True,
        trim_whitespace=True,
        help_text="An API token of a Label Studio user who manages the project (legacy token, "
        "or personal access token). Stored encrypted; never returned.",
    )
    round = serializers.IntegerField(help_text="The round (id) the annotations go to.")
    question_map = _JsonObject(
        required=False,
        help_text="Control name → question key, or null to ignore the control (default: the "
        "question named as the control; controls mapping to no question are ignored).",
    )
    category_map = _JsonObject(required=False, help_text="As the file import's `category_map`.")
    case_insensitive_categories = serializers.BooleanField(required=False, default=False)
    coder_map = _JsonObject(
        required=False,
        help_text="Label Studio user id (as text), email, or model version → coder key (the "
        "coders are created). Default: the user id is the coder key, as in an export file.",
    )
    document_key = serializers.CharField(max_length=100, required=False, default="id")
    register_webhook = serializers.BooleanField(
        required=False,
        default=True,
        help_text="Register the server's webhook in the project (default); false: paste the "
        "`hook_url` and `webhook_secret` into the project's webhook settings by hand.",
    )


class ConnectionUpdateSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=200, required=False, allow_blank=True)
    token = serializers.CharField(max_length=2000, required=False, write_only=True)
    round = serializers.IntegerField(required=False)
    question_map = _JsonObject(required=False)
    category_map = _JsonObject(required=False)
    case_insensitive_categories = serializers.BooleanField(required=False)
    coder_map = _JsonObject(required=False)
    document_key = serializers.CharField(max_length=100, required=False)
    is_active = serializers.BooleanField(required=False)


class ConnectionOutputSerializer(serializers.ModelSerializer):
    round = serializers.IntegerField(source="round_id")
    hook_url = serializers.SerializerMethodField()
    webhook_registered = serializers.SerializerMethodField()
    token_hint = serializers.CharField(help_text="The token's last four characters.")

    class Meta:
        model = LabelStudioConnection
        fields: tuple[str, ...] = (
            "id",
            "name",
            "url",
            "project_id",
            "round",
            "token_hint",
            "question_map",
            "category_map",
            "case_insensitive_categories",
            "coder_map",
            "document_key",
            "is_active",
            "controls",
            "hook_url",
            "webhook_registered",
            "last_test",
            "last_event_at",
            "last_sync_at",
            "last_error",
            "last_error_at",
            "created_at",
        )
        read_only_fields = fields

    def get_hook_url(self, connection: LabelStudioConnection) -> str:
        return str(self.context.get("hook_urls", {}).get(connection.pk, ""))

    def get_webhook_registered(self, connection: LabelStudioConnection) -> bool:
        return connection.webhook_id is not None


class ConnectionCreatedSerializer(ConnectionOutputSerializer):
    webhook_secret = serializers.CharField(
        help_text="Sent by Label Studio in the `X-Agreement-Connection-Secret` header; shown once."
    )

    class Meta(ConnectionOutputSerializer.Meta):
        fields = (*ConnectionOutputSerializer.Meta.fields, "webhook_secret")
        read_only_fields = fields


class ConnectionTestSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    message = serializers.CharField()
    project = serializers.CharField()
    users = serializers.IntegerField()
    controls = serializers.ListField(child=serializers.DictField())
    controls_mapped = serializers.IntegerField()


class SyncOutputSerializer(serializers.ModelSerializer):
    # Text, not an enum: "trigger" already names the computations' choice set in the schema.
    trigger = serializers.CharField(help_text="`manual` (sync now) or `periodic` (beat).")

    class Meta:
        model = LabelStudioSync
        fields: tuple[str, ...] = (
            "id",
            "trigger",
            "status",
            "error",
            "report",
            "requested_at",
            "started_at",
            "finished_at",
        )
        read_only_fields = fields


class EventOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = LabelStudioEvent
        fields: tuple[str, ...] = (
            "id",
            "action",
            "task_ids",
            "annotation_ids",
            "status",
            "error",
            "report",
            "received_at",
            "finished_at",
        )
        read_only_fields = fields


class SendInputSerializer(serializers.Serializer):
    purpose = serializers.ChoiceField(
        choices=[TaskPurpose.REVIEW.value, TaskPurpose.ADJUDICATION.value],
        help_text="`review`: the round's open review-queue entries; `adjudication`: its "
        "disputed items not yet adjudicated.",
    )
    round = serializers.IntegerField()
    question = serializers.CharField(help_text="The question's key.")


class SendOutputSerializer(serializers.Serializer):
    task_ids = serializers.ListField(child=serializers.IntegerField())


class RotateSecretQuerySerializer(serializers.Serializer):
    register = serializers.BooleanField(
        required=False, default=False, help_text="Register the webhook in Label Studio again."
    )


class SecretOutputSerializer(serializers.Serializer):
    hook_url = serializers.CharField()
    webhook_secret = serializers.CharField()
    webhook_registered = serializers.BooleanField()
