"""A study's webhook endpoints (managers only): CRUD, secret rotation, ping, delivery log."""

from __future__ import annotations

from typing import Any, ClassVar

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from studies.api.views import STUDY_PK, StudyScopedViewSet
from studies.models import Role
from webhooks import services as webhooks
from webhooks.api.serializers import (
    WebhookDeliveryOutputSerializer,
    WebhookEndpointCreatedSerializer,
    WebhookEndpointInputSerializer,
    WebhookEndpointOutputSerializer,
)
from webhooks.models import WebhookEndpoint
from webhooks.selectors import webhook_delivery_list, webhook_endpoint_list

_ENDPOINT_PK = OpenApiParameter(
    "id", int, OpenApiParameter.PATH, description="The webhook endpoint's id."
)
_SIGNING = """Each event is a POST with a JSON body `{"id", "event", "created_at", "study",
"data"}` and the headers `X-Agreement-Event`, `X-Agreement-Delivery`,
`X-Agreement-Timestamp` and `X-Agreement-Signature: sha256=<hex>`, the HMAC-SHA256 of
`<timestamp>.<body>` keyed with the endpoint's secret. Any answer other than 2xx is retried
with exponential backoff; every attempt is in the delivery log."""


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's webhook endpoints (never their secrets)"),
    retrieve=extend_schema(
        summary="Get a webhook endpoint (never its secret)", parameters=[_ENDPOINT_PK]
    ),
)
class WebhookEndpointViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet
):
    """URLs that receive the study's events, signed. Managers only."""

    model = WebhookEndpoint
    serializer_class = WebhookEndpointOutputSerializer
    paginated_actions = frozenset({"list", "deliveries"})
    action_roles: ClassVar[dict[str, Role]] = {
        "list": Role.MANAGER,
        "retrieve": Role.MANAGER,
        "deliveries": Role.MANAGER,
    }

    def scoped_queryset(self) -> QuerySet[WebhookEndpoint]:
        return webhook_endpoint_list(study=self.study)

    @extend_schema(
        summary="Register a webhook endpoint (the response holds its secret, shown once)",
        description=_SIGNING,
        request=WebhookEndpointInputSerializer,
        responses={201: WebhookEndpointCreatedSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(WebhookEndpointInputSerializer)
        endpoint, secret = webhooks.webhook_endpoint_create(
            study=self.study, created_by=self.actor.audit_user, **data
        )
        endpoint.secret = secret
        return Response(
            WebhookEndpointCreatedSerializer(endpoint).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Change a webhook endpoint",
        parameters=[_ENDPOINT_PK],
        request=WebhookEndpointInputSerializer(partial=True),
        responses={200: WebhookEndpointOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = WebhookEndpointInputSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        endpoint = webhooks.webhook_endpoint_update(
            endpoint=self.get_object(), **serializer.validated_data
        )
        return self.output(endpoint)

    @extend_schema(
        summary="Delete a webhook endpoint and its delivery log",
        parameters=[_ENDPOINT_PK],
        responses={204: None},
    )
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        webhooks.webhook_endpoint_delete(endpoint=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Replace the endpoint's secret (the response holds the new one, shown once)",
        parameters=[_ENDPOINT_PK],
        request=None,
        responses={200: WebhookEndpointCreatedSerializer},
    )
    @action(detail=True, methods=["post"], url_path="rotate-secret")
    def rotate_secret(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        endpoint, secret = webhooks.webhook_endpoint_rotate_secret(endpoint=self.get_object())
        endpoint.secret = secret
        return Response(WebhookEndpointCreatedSerializer(endpoint).data)

    @extend_schema(
        summary="Send a ping event to the endpoint now",
        description="Queues a `ping` delivery (whatever the endpoint subscribes to) and "
        "answers **202** with it; its attempts appear in the delivery log.",
        parameters=[_ENDPOINT_PK],
        request=None,
        responses={202: WebhookDeliveryOutputSerializer},
    )
    @action(detail=True, methods=["post"])
    def ping(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        delivery = webhooks.webhook_ping(endpoint=self.get_object())
        return Response(
            WebhookDeliveryOutputSerializer(delivery).data, status=status.HTTP_202_ACCEPTED
        )

    @extend_schema(
        summary="The endpoint's delivery log, newest first, with every attempt",
        parameters=[_ENDPOINT_PK],
        responses={200: WebhookDeliveryOutputSerializer(many=True)},
    )
    @action(detail=True, methods=["get"])
    def deliveries(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        rows = webhook_delivery_list(endpoint=self.get_object())
        page = self.paginate_queryset(rows)
        items = page if page is not None else list(rows)
        return self.get_paginated_response(WebhookDeliveryOutputSerializer(items, many=True).data)
