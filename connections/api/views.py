"""A study's Label Studio connections (managers only): create (tested first), change,
delete, test, sync now, the sync and event logs, the webhook, sending items back."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.conf import settings
from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, serializers, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from connections import services
from connections.api.serializers import (
    ConnectionCreatedSerializer,
    ConnectionInputSerializer,
    ConnectionOutputSerializer,
    ConnectionTestSerializer,
    ConnectionUpdateSerializer,
    EventOutputSerializer,
    RotateSecretQuerySerializer,
    SecretOutputSerializer,
    SendInputSerializer,
    SendOutputSerializer,
    SyncOutputSerializer,
)
from connections.client import LabelStudioError
from connections.models import LabelStudioConnection
from connections.selectors import connection_list, event_list, sync_list
from studies.api.views import STUDY_PK, StudyScopedViewSet
from studies.models import Question, Role, Round

_PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The connection's id.")


def public_url(request: Request) -> str:
    """Where Label Studio reaches this server: ``AGREEMENT_PUBLIC_URL``, else the request's."""
    return settings.AGREEMENT_PUBLIC_URL or request.build_absolute_uri("/")


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's Label Studio connections (never their tokens)"),
    retrieve=extend_schema(summary="Get a Label Studio connection", parameters=[_PK]),
)
class LabelStudioConnectionViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request
    mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet
):
    """Label Studio projects whose annotations flow into the study live. Managers only."""

    model = LabelStudioConnection
    serializer_class = ConnectionOutputSerializer
    query_serializers: ClassVar[Mapping[str, type[serializers.Serializer]]] = {
        "rotate_secret": RotateSecretQuerySerializer
    }
    paginated_actions = frozenset({"list", "syncs", "events"})
    action_roles: ClassVar[dict[str, Role]] = {
        "list": Role.MANAGER,
        "retrieve": Role.MANAGER,
        "syncs": Role.MANAGER,
        "events": Role.MANAGER,
    }

    def scoped_queryset(self) -> QuerySet[LabelStudioConnection]:
        return connection_list(study=self.study)

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if not getattr(self, "swagger_fake_view", False):
            base = public_url(self.request)
            context["hook_urls"] = {
                c.pk: services.hook_url(c, base) for c in self.scoped_queryset()
            }
        return context

    def _round(self, pk: int) -> Round:
        round_ = Round.objects.filter(study=self.study, pk=pk).first()
        if round_ is None:
            raise exceptions.ValidationError({"round": [f"No round {pk} in this study."]})
        return round_

    @extend_schema(
        summary="Connect a Label Studio project (tested first; the answer holds the webhook "
        "secret, shown once)",
        request=ConnectionInputSerializer,
        responses={201: ConnectionCreatedSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(ConnectionInputSerializer)
        connection, secret, _test = services.connection_create(
            study=self.study,
            round_=self._round(data.pop("round")),
            public_url=public_url(request),
            created_by=self.actor.audit_user,
            **data,
        )
        connection.webhook_secret = secret  # type: ignore[attr-defined]
        return Response(
            ConnectionCreatedSerializer(connection, context=self.get_serializer_context()).data,
            status=status.HTTP_201_CREATED,
        )

    @extend_schema(
        summary="Change a connection (a new token, the round, the maps)",
        parameters=[_PK],
        request=ConnectionUpdateSerializer,
        responses={200: ConnectionOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(ConnectionUpdateSerializer)
        round_pk = data.pop("round", None)
        connection = services.connection_update(
            connection=self.get_object(),
            round_=self._round(round_pk) if round_pk is not None else None,
            **data,
        )
        return self.output(connection)

    @extend_schema(
        summary="Delete a connection (the study keeps its annotations; the webhook is removed "
        "from the project)",
        parameters=[_PK],
        responses={204: None},
    )
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.connection_delete(connection=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Test the connection: the project, its users, its controls and which map to "
        "questions",
        parameters=[_PK],
        request=None,
        responses={200: ConnectionTestSerializer},
    )
    @action(detail=True, methods=["post"])
    def test(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        result = services.connection_test(connection=self.get_object())
        return Response(ConnectionTestSerializer(result.as_dict()).data)

    @extend_schema(
        summary="Sync now: read every task and reconcile (202 with the sync; its report when done)",
        parameters=[_PK],
        request=None,
        responses={202: SyncOutputSerializer},
    )
    @action(detail=True, methods=["post"])
    def sync(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        sync = services.sync_request(connection=self.get_object())
        sync.refresh_from_db()
        return Response(SyncOutputSerializer(sync).data, status=status.HTTP_202_ACCEPTED)

    @extend_schema(
        summary="The connection's syncs, newest first, with their reports",
        parameters=[_PK],
        responses={200: SyncOutputSerializer(many=True)},
    )
    @action(detail=True, methods=["get"])
    def syncs(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        rows = sync_list(connection=self.get_object())
        page = self.paginate_queryset(rows)
        items = page if page is not None else list(rows)
        return self.get_paginated_response(SyncOutputSerializer(items, many=True).data)

    @extend_schema(
        summary="The webhook events received, newest first, with what each changed",
        parameters=[_PK],
        responses={200: EventOutputSerializer(many=True)},
    )
    @action(detail=True, methods=["get"])
    def events(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        rows = event_list(connection=self.get_object())
        page = self.paginate_queryset(rows)
        items = page if page is not None else list(rows)
        return self.get_paginated_response(EventOutputSerializer(items, many=True).data)

    @extend_schema(
        summary="A new webhook secret (shown once); with `register`, the webhook registered in "
        "the project again",
        parameters=[_PK],
        request=None,
        responses={200: SecretOutputSerializer},
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        connection = self.get_object()
        base = public_url(request)
        if self.query["register"]:
            try:
                secret = services.webhook_register(connection=connection, public_url=base)
            except LabelStudioError as error:
                raise exceptions.ValidationError({"register": [error.message]}) from None
        else:
            secret = services.webhook_secret_rotate(connection=connection)
        return Response(
            SecretOutputSerializer(
                {
                    "hook_url": services.hook_url(connection, base),
                    "webhook_secret": secret,
                    "webhook_registered": connection.webhook_id is not None,
                }
            ).data
        )

    @extend_schema(
        summary="Send review-queue entries or items to adjudicate to the project as tasks, "
        "each coder's label a prediction",
        parameters=[_PK],
        request=SendInputSerializer,
        responses={200: SendOutputSerializer},
    )
    @action(detail=True, methods=["post"])
    def send(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        connection = self.get_object()  # a missing connection is a 404 before the body
        data = self.validated(SendInputSerializer)
        question = Question.objects.filter(study=self.study, key=data["question"]).first()
        if question is None:
            raise exceptions.ValidationError({"question": [f"No question {data['question']!r}."]})
        try:
            task_ids = services.send_to_label_studio(
                connection=connection,
                round_=self._round(data["round"]),
                question=question,
                purpose=data["purpose"],
                user=self.actor.audit_user,
            )
        except LabelStudioError as error:
            raise exceptions.ValidationError({"connection": [error.message]}) from None
        return Response(SendOutputSerializer({"task_ids": task_ids}).data)
