"""The review queue over the API: rules (managers edit), entries (members read, annotators
resolve), and the queue exported as CSV or as a Label Studio task list."""

from __future__ import annotations

from typing import Any, ClassVar

from django.db.models import QuerySet
from django.http import HttpResponse
from django.utils.http import content_disposition_header
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from review import exports, services
from review.api.serializers import (
    ReviewEntrySerializer,
    ReviewQuerySerializer,
    ReviewResolveSerializer,
    ReviewRuleSerializer,
)
from review.models import ReviewEntry, ReviewRule
from review.selectors import review_entry_list, review_rule_list, review_rule_of
from studies.api.views import (
    QUESTION_PK,
    QUESTION_REF_REGEX,
    STUDY_PK,
    StudyScopedViewSet,
    question_in_path,
)
from studies.models import Question, Role

_ENTRY_PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The entry's id.")


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's review rules (one per question at most)"),
)
class ReviewRuleViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    mixins.ListModelMixin, StudyScopedViewSet
):
    """Which items of a question go to review. Members read; managers set and remove."""

    model = ReviewRule
    serializer_class = ReviewRuleSerializer
    lookup_url_kwarg = "question_pk"
    lookup_value_regex = QUESTION_REF_REGEX

    def scoped_queryset(self) -> QuerySet[ReviewRule]:
        return review_rule_list(study=self.study)

    def _question(self) -> Question:
        return question_in_path(self.study, self.kwargs[self.lookup_url_kwarg])

    @extend_schema(
        summary="Get a question's review rule (all criteria off when none is set)",
        parameters=[QUESTION_PK],
    )
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.output(review_rule_of(self._question()))

    @extend_schema(
        summary="Set a question's review rule (created if missing; fields left out keep "
        "their value)",
        parameters=[QUESTION_PK],
        request=ReviewRuleSerializer(partial=True),
        responses={200: ReviewRuleSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = ReviewRuleSerializer(data=request.data, partial=True)
        serializer.is_valid(raise_exception=True)
        rule = services.review_rule_set(question=self._question(), **serializer.validated_data)
        return self.output(rule)

    @extend_schema(
        summary="Remove a question's review rule (its queue stays until the next computation)",
        parameters=[QUESTION_PK],
        responses={204: None},
    )
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        services.review_rule_delete(question=self._question())
        return Response(status=204)


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(
        summary="List review entries (the queue: open entries only unless unresolved=false)"
    ),
    retrieve=extend_schema(summary="Get a review entry", parameters=[_ENTRY_PK]),
)
class ReviewEntryViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet
):
    """Items flagged by their question's review rule, with the competing labels."""

    model = ReviewEntry
    serializer_class = ReviewEntrySerializer
    query_serializers: ClassVar = {
        "list": ReviewQuerySerializer,
        "csv": ReviewQuerySerializer,
        "label_studio": ReviewQuerySerializer,
    }
    action_roles: ClassVar[dict[str, Role]] = {"resolve": Role.ANNOTATOR}

    def scoped_queryset(self) -> QuerySet[ReviewEntry]:
        if self.action == "retrieve" or self.action == "resolve":
            return review_entry_list(study=self.study, unresolved=False)
        query = self.query
        return review_entry_list(
            study=self.study,
            round_=query.get("round"),
            question=query.get("question"),
            unresolved=query.get("unresolved") is not False,
            reason=query.get("reason", ""),
        )

    @extend_schema(
        summary="Take an item out of the review queue, with a note",
        parameters=[_ENTRY_PK],
        request=ReviewResolveSerializer,
        responses={200: ReviewEntrySerializer},
    )
    @action(detail=True, methods=["post"])
    def resolve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(ReviewResolveSerializer)
        entry = services.review_entry_resolve(
            entry=self.get_object(), note=data["note"], user=self.actor.audit_user
        )
        return self.output(entry)

    @extend_schema(
        summary="The review entries as CSV (one row per entry and coder)",
        description=exports.__doc__,
        responses={(200, "text/csv"): OpenApiTypes.STR},
    )
    @action(detail=False, methods=["get"], url_path="csv")
    def csv(self, request: Request, *args: Any, **kwargs: Any) -> HttpResponse:
        response = HttpResponse(
            exports.review_csv(self.get_queryset()), content_type="text/csv; charset=utf-8"
        )
        response["Content-Disposition"] = content_disposition_header(
            as_attachment=True, filename="review-queue.csv"
        )
        return response

    @extend_schema(
        summary="The review entries as a Label Studio task list, coders' labels as predictions",
        responses={200: OpenApiTypes.OBJECT},
    )
    @action(detail=False, methods=["get"], url_path="label-studio")
    def label_studio(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return Response(exports.review_label_studio(self.get_queryset()))
