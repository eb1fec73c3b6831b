"""Gold and adjudication over the API: adjudications (members read, managers decide), the
round's gold coder (managers set), and the stored results against the reference (members
read; computed on the workers only)."""

from __future__ import annotations

from typing import Any, ClassVar

from django.db.models import QuerySet
from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import mixins, status
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from adjudication import selectors, services
from adjudication.api.serializers import (
    AdjudicationCreateSerializer,
    AdjudicationDecisionSerializer,
    AdjudicationQuerySerializer,
    AdjudicationSerializer,
    ReferenceHistoryQuerySerializer,
    ReferenceHistoryRowSerializer,
    ReferenceResultQuerySerializer,
    ReferenceResultSerializer,
    RoundReferenceInputSerializer,
    RoundReferenceSerializer,
)
from adjudication.models import Adjudication, ReferenceResult, RoundReference
from studies.api.views import STUDY_PK, StudyScopedViewSet
from studies.models import Role, Round


class _StudyContextMixin:
    """Input serializers find the study's rounds, questions, items and coders by name."""

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())  # type: ignore[misc]
        if not getattr(self, "swagger_fake_view", False):
            context["study"] = self.study  # type: ignore[attr-defined]
        return context


_PK = OpenApiParameter("id", int, OpenApiParameter.PATH, description="The record's id.")
_ROUND_PK = OpenApiParameter("round_pk", int, OpenApiParameter.PATH, description="The round's id.")


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(
        summary="List adjudications (current ones unless current=false: then the history too)"
    ),
    retrieve=extend_schema(summary="Get an adjudication", parameters=[_PK]),
)
class AdjudicationViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    _StudyContextMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet
):
    """The reference label of an item, decided by a manager: a coder's label or one entered,
    with a note. Deciding again supersedes the current record and keeps it."""

    model = Adjudication
    serializer_class = AdjudicationSerializer
    write_role = Role.MANAGER
    query_serializers: ClassVar = {"list": AdjudicationQuerySerializer}

    def scoped_queryset(self) -> QuerySet[Adjudication]:
        if self.action != "list":
            return selectors.adjudication_list(study=self.study, current=False)
        query = self.query
        return selectors.adjudication_list(
            study=self.study,
            round_=query.get("round"),
            question=query.get("question"),
            item=query.get("item"),
            current=query.get("current") is not False,
            source=query.get("source", ""),
        )

    @extend_schema(
        summary="Adjudicate an item: take a coder's label or enter one, with a note",
        request=AdjudicationCreateSerializer,
        responses={201: AdjudicationSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(AdjudicationCreateSerializer)
        adjudication = services.adjudicate(
            round_=data["round"],
            question=data["question"],
            item=data["item"],
            label=data["label"],
            coder=data["coder"],
            note=data["note"],
            user=self.actor.audit_user,
        )
        return self.output(adjudication, status_code=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Adjudicate the item again (the record is superseded, kept, and a new one "
        "returned)",
        parameters=[_PK],
        request=AdjudicationDecisionSerializer,
        responses={200: AdjudicationSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        previous = self.get_object()
        data = self.validated(AdjudicationDecisionSerializer)
        adjudication = services.adjudicate(
            round_=previous.round,
            question=previous.question,
            item=previous.item,
            label=data["label"],
            coder=data["coder"],
            note=data["note"],
            user=self.actor.audit_user,
        )
        return self.output(adjudication)


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the rounds' gold coders (rounds with one)"),
)
class RoundReferenceViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    _StudyContextMixin, mixins.ListModelMixin, StudyScopedViewSet
):
    """A round's gold coder, whose labels are the reference where no item was adjudicated.
    Members read; managers set and remove it."""

    model = RoundReference
    serializer_class = RoundReferenceSerializer
    lookup_url_kwarg = "round_pk"

    def scoped_queryset(self) -> QuerySet[RoundReference]:
        return selectors.round_reference_list(study=self.study)

    def _round(self) -> Round:
        round_ = Round.objects.filter(study=self.study, pk=self.kwargs["round_pk"]).first()
        if round_ is None:
            raise Http404("No such round in this study.")
        return round_

    def _show(self, round_: Round) -> Response:
        reference = selectors.round_reference_of(round_)
        return self.output(reference if reference is not None else _NoReference(round_))

    @extend_schema(
        summary="Get a round's gold coder (null when it has none)", parameters=[_ROUND_PK]
    )
    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self._show(self._round())

    @extend_schema(
        summary="Set a round's gold coder (null: none)",
        parameters=[_ROUND_PK],
        request=RoundReferenceInputSerializer,
        responses={200: RoundReferenceSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        round_ = self._round()
        data = self.validated(RoundReferenceInputSerializer)
        if data["gold_coder"] is None:
            services.gold_coder_unset(round_=round_)
        else:
            services.gold_coder_set(
                round_=round_, coder=data["gold_coder"], user=self.actor.audit_user
            )
        return self._show(round_)


class _NoReference:
    """What a round without a gold coder shows."""

    def __init__(self, round_: Round) -> None:
        self.round = round_
        self.round_id = round_.pk
        self.gold_coder = None
        self.updated_at = None


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List stored results of coders against the reference"),
    retrieve=extend_schema(summary="Get stored results against the reference", parameters=[_PK]),
)
class ReferenceResultViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet
):
    """Each coder against the round's reference, per round and question, as a worker stored
    it (accuracy, kappa, alpha, macro F1 with intervals; confusion and per-label F1)."""

    model = ReferenceResult
    serializer_class = ReferenceResultSerializer
    query_serializers: ClassVar = {
        "list": ReferenceResultQuerySerializer,
        "history": ReferenceHistoryQuerySerializer,
    }

    def scoped_queryset(self) -> QuerySet[ReferenceResult]:
        if self.action != "list":
            return selectors.reference_result_list(study=self.study)
        query = self.query
        return selectors.reference_result_list(
            study=self.study, round_=query.get("round"), question=query.get("question")
        )

    @extend_schema(
        summary="Each coder against the reference, round after round (stored results)",
        responses={200: ReferenceHistoryRowSerializer(many=True)},
    )
    @action(detail=False, methods=["get"])
    def history(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        query = self.query
        rows = selectors.coder_reference_history(
            study=self.study, question=query["question"], coder=query.get("coder")
        )
        return Response(rows)
