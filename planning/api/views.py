"""Sample-size plans over the API: members read the stored plans, managers request one."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.request import Request
from rest_framework.response import Response

from planning import services
from planning.api.serializers import PlanRequestInputSerializer, PlanRequestSerializer
from planning.models import PlanRequest
from planning.selectors import plan_request_list
from studies.api.views import STUDY_PK, StudyScopedViewSet
from studies.models import Role

_PLAN_PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The plan's id.")


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's sample-size plans, newest first"),
    retrieve=extend_schema(
        summary="Get a plan: its status, progress and, when done, the result",
        parameters=[_PLAN_PK],
    ),
)
class PlanRequestViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet
):
    """How many items (and coders per item) the next round needs for a target; computed by
    a worker. Members read; managers request."""

    model = PlanRequest
    serializer_class = PlanRequestSerializer
    write_role = Role.MANAGER

    def scoped_queryset(self) -> QuerySet[PlanRequest]:
        return plan_request_list(study=self.study)

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if not getattr(self, "swagger_fake_view", False):
            context["study"] = self.study
        return context

    @extend_schema(
        summary="Request a sample-size plan",
        description="Stores the request and answers **202**; a worker computes it (poll the "
        "plan until `status` is `done` or `failed`). From a `pilot_round` (its annotations of "
        "the question are resampled) or from `assumptions` (nominal questions: category shares "
        "and alpha or agreement). The target: the lower end of the `confidence` interval of "
        "`coefficient` reaches `target` with probability `power`. Bad input is a 400 naming "
        "the field. See docs/planning.md.",
        request=PlanRequestInputSerializer,
        responses={202: PlanRequestSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(PlanRequestInputSerializer)
        plan = services.plan_request_create(
            study=self.study, requested_by=self.actor.audit_user, **data
        )
        plan = plan_request_list(study=self.study).get(pk=plan.pk)
        return self.output(plan, status_code=status.HTTP_202_ACCEPTED)
