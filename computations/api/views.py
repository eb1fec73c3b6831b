"""Computations of a study (request, poll, list) and its agreement history."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiResponse, extend_schema, extend_schema_view
from rest_framework import mixins, status, viewsets
from rest_framework.decorators import action
from rest_framework.request import Request
from rest_framework.response import Response

from computations.api.serializers import (
    CoderDriftOutputSerializer,
    CoderDriftQuerySerializer,
    ComparisonFilterSerializer,
    ComparisonListOutputSerializer,
    ComparisonOutputSerializer,
    ComparisonRequestInputSerializer,
    ComputationFilterSerializer,
    ComputationListOutputSerializer,
    ComputationOutputSerializer,
    ComputationRequestInputSerializer,
    HistoryOutputSerializer,
    HistoryQuerySerializer,
    ModelHistoryOutputSerializer,
    ModelHistoryQuerySerializer,
)
from computations.comparison_requests import DEFAULT_REPLICATES, comparison_request
from computations.models import Computation, ComputationTrigger, RoundComparison
from computations.selectors import (
    StalenessReader,
    coder_drift,
    computations_of_study,
    model_history,
    study_history,
)
from computations.services import computation_request
from studies.api.permissions import StudyScopedMixin
from studies.models import Role
from studies.selectors import question_list


@extend_schema_view(
    list=extend_schema(
        summary="List computations",
        responses=ComputationListOutputSerializer(many=True),
    ),
    retrieve=extend_schema(
        summary="Poll a computation",
        description="Status (queued, running, done, failed with the error), progress, "
        "timestamps, parameters, the fingerprint of the annotations read, the metrics "
        "version, `stale` and `stale_reason` (the annotations, the distance table a "
        "`distance=user` computation used, or the adjudications a model coder's calibration "
        "read, changed since) and, when done, the results.",
        responses=ComputationOutputSerializer,
    ),
    create=extend_schema(
        summary="Request a computation",
        description="Queues the computation and answers **202** with its URL (also in "
        "`Location`). The same request on unchanged annotations answers **200** with the "
        "existing computation instead of computing again. `question` is an id or a key, "
        "`round`/`rounds` ids or names (digits are an id first). A scope without any "
        "annotation of the question is a 400 (`empty_scope`): there is nothing to compute.",
        request=ComputationRequestInputSerializer,
        responses={
            202: ComputationOutputSerializer,
            200: OpenApiResponse(ComputationOutputSerializer, "An identical live computation."),
        },
    ),
)
class ComputationViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    StudyScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Agreement computations, run by workers."""

    write_role = Role.ANNOTATOR
    queryset = Computation.objects.none()
    lookup_value_regex = r"[0-9]{1,18}"
    query_serializers = {"list": ComputationFilterSerializer}

    def get_queryset(self) -> Any:
        queryset = computations_of_study(study_id=self.study.pk)
        if self.action == "list":
            data = self.query
            if "question" in data:
                queryset = queryset.filter(question=data["question"])
            if "round" in data:
                queryset = queryset.filter(rounds=data["round"])
            if "status" in data:
                queryset = queryset.filter(status=data["status"])
        return queryset

    def get_serializer_class(self) -> Any:
        if self.action == "create":
            return ComputationRequestInputSerializer
        if self.action == "list":
            return ComputationListOutputSerializer
        return ComputationOutputSerializer

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        context["staleness"] = StalenessReader()
        if not getattr(self, "swagger_fake_view", False):
            context["study"] = self.study
        return context

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = ComputationRequestInputSerializer(
            data=request.data, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = computation_request(
            study=self.study,
            question=data["question"],
            scope=data["scope"],
            rounds=data["round_list"],
            parameters=data["parameters"],
            trigger=ComputationTrigger.API,
            requested_by=request.user,
        )
        computation = computations_of_study(study_id=self.study.pk).get(pk=result.computation.pk)
        body = ComputationOutputSerializer(computation, context=self.get_serializer_context()).data
        return Response(
            body,
            status=status.HTTP_202_ACCEPTED if result.created else status.HTTP_200_OK,
            headers={"Location": body["url"]},
        )


@extend_schema_view(
    list=extend_schema(
        summary="Agreement history",
        description="For each question (or `?question=`, an id or a key), each round in "
        "order with the coefficients (value, CI, SE), the numbers of items and coders, and "
        "the computation they come from (the round's latest finished one-round computation).",
        responses=HistoryOutputSerializer,
    ),
)
class HistoryViewSet(StudyScopedMixin, viewsets.GenericViewSet):  # type: ignore[misc]
    """The study's agreement round after round."""

    write_role = Role.VIEWER
    pagination_class = None
    serializer_class = HistoryOutputSerializer
    queryset = Computation.objects.none()  # the history reads finished computations
    query_serializers = {
        "list": HistoryQuerySerializer,
        "coders": CoderDriftQuerySerializer,
        "models": ModelHistoryQuerySerializer,
    }

    def list(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        question = self.query.get("question")
        history = study_history(
            study=self.study, question_id=question.pk if question is not None else None
        )
        context = {"request": request, "study": self.study.pk}
        return Response(HistoryOutputSerializer(history, context=context).data)

    @extend_schema(
        summary="Coder drift across rounds",
        description="Each coder's mean agreement with the other coders in each round "
        "(from the rounds' latest computations), and the change from first to last.",
        responses=CoderDriftOutputSerializer,
    )
    @action(detail=False, methods=["get"])
    def coders(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        question = self.query.get("question")
        if question is None:
            question = question_list(study=self.study).first()
            if question is None:
                raise Http404("The study has no questions.")
        drift = coder_drift(study=self.study, question=question)
        return Response({**drift, "question_key": question.key})

    @extend_schema(
        summary="Model coders across rounds",
        description="For each question with model-coder tests (or `?question=`), each model "
        "coder (or `?coder=`, an id or a key) round after round, from each round's latest "
        "one-round computation: the model and prompt version of the round, the alternative "
        "annotator test's advantage probability, winning rate and pass (or why it did not "
        "run) and the agreement between people and models. The full results (per person, "
        "PPI estimates) are in each computation's `results.model_coders`.",
        responses=ModelHistoryOutputSerializer,
    )
    @action(detail=False, methods=["get"])
    def models(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        question = self.query.get("question")
        coder = self.query.get("coder")
        history = model_history(
            study=self.study,
            question_id=question.pk if question is not None else None,
            coder_id=coder.pk if coder is not None else None,
        )
        return Response(ModelHistoryOutputSerializer(history).data)


@extend_schema_view(
    list=extend_schema(
        summary="List comparisons of two rounds",
        description="The study's requested comparisons, newest first, without their results.",
        responses=ComparisonListOutputSerializer(many=True),
    ),
    retrieve=extend_schema(
        summary="Read a comparison of two rounds",
        description="**202** with the status (`queued` or `running`) while a worker has not "
        "finished it; **200** once `done` (the stored `result`) or `failed` (the `error`, "
        "e.g. data the coefficient is undefined on). Nothing is computed by this read.",
        responses={
            200: ComparisonOutputSerializer,
            202: OpenApiResponse(ComparisonOutputSerializer, "Not finished yet: poll again."),
        },
    ),
    create=extend_schema(
        summary="Compare two rounds",
        description="Queues, for a worker, the later round minus the earlier one (by "
        "position, whichever order `first` and `second` are given in) for one coefficient, "
        "with a bootstrap CI: paired on the items both rounds labelled, plus `unpaired` on "
        "all items when the item sets differ. Answers **202** with the comparison's URL (also "
        "in `Location`), or **200** with the live comparison of the same request on unchanged "
        "annotations. `question` is an id or a key, `first` and `second` ids or names. The "
        "same round twice, a round without annotations of the question, or a coefficient the "
        "question's kind is not compared on is a 400 naming the field. Level and distance are "
        "those of the later round's latest computation (else the question kind's defaults); "
        f"`bootstrap` defaults to {DEFAULT_REPLICATES} replicates.",
        request=ComparisonRequestInputSerializer,
        responses={
            202: ComparisonOutputSerializer,
            200: OpenApiResponse(ComparisonOutputSerializer, "An identical live comparison."),
        },
    ),
)
class ComparisonViewSet(  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    StudyScopedMixin,
    mixins.ListModelMixin,
    mixins.RetrieveModelMixin,
    mixins.CreateModelMixin,
    viewsets.GenericViewSet,
):
    """Two rounds compared on one coefficient, computed by a worker and stored."""

    write_role = Role.ANNOTATOR
    queryset = RoundComparison.objects.none()
    lookup_value_regex = r"[0-9]{1,18}"
    query_serializers = {"list": ComparisonFilterSerializer}

    def get_queryset(self) -> Any:
        queryset = RoundComparison.objects.filter(study_id=self.study.pk).select_related(
            "question", "first", "second"
        )
        if self.action == "list":
            data = self.query
            if "question" in data:
                queryset = queryset.filter(question=data["question"])
            if "status" in data:
                queryset = queryset.filter(status=data["status"])
        return queryset

    def get_serializer_class(self) -> Any:
        if self.action == "create":
            return ComparisonRequestInputSerializer
        if self.action == "list":
            return ComparisonListOutputSerializer
        return ComparisonOutputSerializer

    def get_serializer_context(self) -> dict[str, Any]:
        context = dict(super().get_serializer_context())
        if not getattr(self, "swagger_fake_view", False):
            context["study"] = self.study
        return context

    def retrieve(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        comparison = self.get_object()
        body = ComparisonOutputSerializer(comparison, context=self.get_serializer_context()).data
        finished = comparison.is_finished
        return Response(body, status=status.HTTP_200_OK if finished else status.HTTP_202_ACCEPTED)

    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = ComparisonRequestInputSerializer(
            data=request.data, context=self.get_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        result = comparison_request(
            study=self.study,
            question=data["question"],
            first=data["first"],
            second=data["second"],
            coefficient=data.get("coefficient"),
            replicates=data.get("bootstrap", DEFAULT_REPLICATES),
            seed=data.get("seed", 0),
            confidence=data.get("confidence", 0.95),
            requested_by=request.user,
        )
        comparison = self.get_queryset().get(pk=result.comparison.pk)
        body = ComparisonOutputSerializer(comparison, context=self.get_serializer_context()).data
        return Response(
            body,
            status=status.HTTP_202_ACCEPTED if result.created else status.HTTP_200_OK,
            headers={"Location": body["url"]},
        )
