"""The REST API (except annotations, in ``annotation_views``): thin viewsets.

Each view authenticates, checks the role (``StudyScopedMixin``), validates an input
serializer, calls one service or selector, and serializes the output.
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.db.models import Model, QuerySet
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_view
from rest_framework import exceptions, mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from studies import distance_tables, images, selectors
from studies.access import (
    actor_from_request,
    grant_refusal,
    person_refusal,
    role_allows,
    study_role,
    token_expiry_ceiling,
)
from studies.api import filters
from studies.api import serializers as s
from studies.api.parsers import DistanceCsvParser, ImageParser, JSONParser
from studies.api.permissions import StudyScopedMixin
from studies.api.query import QueryParametersMixin
from studies.images import image_response
from studies.models import (
    ApiToken,
    Category,
    Coder,
    Item,
    ItemImage,
    Membership,
    Question,
    Role,
    Round,
    Study,
)
from studies.services import membership as membership_services
from studies.services import roster, scheme, tokens
from studies.services import rounds as round_services
from studies.services import study as study_services

STUDY_PK = OpenApiParameter(
    "study_pk", OpenApiTypes.INT, OpenApiParameter.PATH, description="The study's id."
)
QUESTION_PK = OpenApiParameter(
    "question_pk",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="The question's id or key (digits are an id first, then a key).",
)
QUESTION_ID = OpenApiParameter(
    "id",
    OpenApiTypes.STR,
    OpenApiParameter.PATH,
    description="The question's id or key (digits are an id first, then a key).",
)
# Ids stay within a 64-bit integer: longer numbers do not match any route (404).
ID_REGEX = r"[0-9]{1,18}"
# A question in a path: its id or its key (a slug of at most 100 characters).
QUESTION_REF_REGEX = selectors.QUESTION_REF_REGEX
WRITE_METHODS = ["get", "post", "patch", "delete", "head", "options"]
# Bodies are JSON: labeling tools send JSON, and one parser keeps one set of rules.
PARSERS = [JSONParser]


def question_in_path(study: Study, ref: str) -> Question:
    """The study's question a path names by id or key (``selectors.question_resolve``)."""
    question = selectors.question_resolve(study=study, ref=ref)
    if question is None:
        raise exceptions.NotFound("No such question in this study.")
    return question


def _fake(view: Any) -> bool:
    """True while drf-spectacular inspects the view without a request."""
    return bool(getattr(view, "swagger_fake_view", False))


class StudyScopedViewSet(StudyScopedMixin, viewsets.GenericViewSet):  # type: ignore[misc]
    """A resource under ``/studies/{study_pk}/``; ``model`` gives the schema's types."""

    model: ClassVar[type[Model]]
    lookup_value_regex = ID_REGEX
    parser_classes = PARSERS
    http_method_names = WRITE_METHODS

    def get_queryset(self) -> QuerySet[Any]:
        if _fake(self):
            return self.model._default_manager.none()
        return self.scoped_queryset()

    def scoped_queryset(self) -> QuerySet[Any]:
        raise NotImplementedError

    def output(self, instance: Any, *, status_code: int = status.HTTP_200_OK) -> Response:
        return Response(self.get_serializer(instance).data, status=status_code)

    def ensure_may_grant(self, role: str) -> None:
        """403 unless the actor's own role is at least ``role`` (``grant_refusal``)."""
        refusal = grant_refusal(self.study_role_of_actor(self.study), role)
        if refusal is not None:
            raise exceptions.PermissionDenied(refusal)

    def validated(self, serializer_class: type[serializers.Serializer]) -> dict[str, Any]:
        serializer = serializer_class(data=self.request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


# --- Studies -------------------------------------------------------------------------------


@extend_schema_view(
    list=extend_schema(summary="List the studies you are a member of"),
    retrieve=extend_schema(summary="Get a study"),
)
class StudyViewSet(  # type: ignore[misc]  # QueryParametersMixin narrows request/action
    QueryParametersMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Studies. Any user may create one and becomes its manager; members read it; managers
    change or delete it. A study token sees only its own study and cannot create one."""

    serializer_class = s.StudyOutputSerializer
    lookup_value_regex = ID_REGEX
    parser_classes = PARSERS
    http_method_names = WRITE_METHODS

    def get_queryset(self) -> QuerySet[Study]:
        if _fake(self):
            return Study.objects.none()
        return selectors.study_list(actor=actor_from_request(self.request))

    def _managed_study(self) -> Study:
        study = self.get_object()
        if not role_allows(study_role(actor_from_request(self.request), study), Role.MANAGER):
            raise exceptions.PermissionDenied("Only the study's managers can change it.")
        return study

    @extend_schema(
        summary="Create a study (you become its manager)",
        request=s.StudyInputSerializer,
        responses={201: s.StudyOutputSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self._validated(s.StudyInputSerializer)
        actor = actor_from_request(request)
        study = study_services.study_create(actor=actor, **data)
        study = selectors.study_list(actor=actor).get(pk=study.pk)
        return Response(s.StudyOutputSerializer(study).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a study",
        request=s.StudyInputSerializer,
        responses={200: s.StudyOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        study = self._managed_study()
        data = self._validated(s.StudyInputSerializer, partial=True)
        study = study_services.study_update(study=study, **data)
        study = self.get_queryset().get(pk=study.pk)
        return Response(s.StudyOutputSerializer(study).data)

    @extend_schema(summary="Delete a study and everything in it", responses={204: None})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        study_services.study_delete(study=self._managed_study())
        return Response(status=status.HTTP_204_NO_CONTENT)

    def _validated(
        self, serializer_class: type[serializers.Serializer], *, partial: bool = False
    ) -> dict[str, Any]:
        serializer = serializer_class(data=self.request.data, partial=partial)
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)


# --- Members -------------------------------------------------------------------------------


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's members"),
    retrieve=extend_schema(
        summary="Get a member",
        parameters=[
            OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH),
        ],
    ),
)
class MemberViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet):  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    """The study's members and their roles; managers (people, not study tokens) add,
    change and remove them, granting at most their own role. The last manager cannot be
    removed or demoted."""

    model = Membership
    serializer_class = s.MemberOutputSerializer
    filterset_class = filters.MembershipFilter
    lookup_field = "user__username"
    lookup_url_kwarg = "username"
    lookup_value_regex = r"[\w.@+-]{1,150}"
    person_actions = frozenset({"create", "partial_update", "destroy"})

    def scoped_queryset(self) -> QuerySet[Membership]:
        return selectors.membership_list(study=self.study)

    @extend_schema(
        summary="Add a member by username",
        request=s.MemberCreateInputSerializer,
        responses={201: s.MemberOutputSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.MemberCreateInputSerializer)
        self.ensure_may_grant(data["role"])
        membership = membership_services.membership_add(study=self.study, **data)
        return self.output(membership, status_code=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Change a member's role",
        parameters=[OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH)],
        request=s.MemberUpdateInputSerializer,
        responses={200: s.MemberOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.MemberUpdateInputSerializer)
        self.ensure_may_grant(data["role"])
        membership = membership_services.membership_update(membership=self.get_object(), **data)
        return self.output(membership)

    @extend_schema(
        summary="Remove a member",
        parameters=[OpenApiParameter("username", OpenApiTypes.STR, OpenApiParameter.PATH)],
        responses={204: None},
    )
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        membership_services.membership_remove(membership=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)


# --- Tokens --------------------------------------------------------------------------------


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's tokens (never their secrets)"),
    retrieve=extend_schema(summary="Get a study token (never its secret)"),
)
class StudyTokenViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet):  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    """Study tokens for labeling tools: each acts in this study with its role. Managers
    only, and people only for creating and revoking (a study token cannot mint tokens);
    the secret is returned once, by the create call, and stored hashed."""

    model = ApiToken
    serializer_class = s.StudyTokenOutputSerializer
    filterset_class = filters.TokenFilter
    http_method_names = ["get", "post", "head", "options"]
    action_roles: ClassVar[dict[str, Role]] = {"list": Role.MANAGER, "retrieve": Role.MANAGER}
    person_actions = frozenset({"create", "revoke"})

    def scoped_queryset(self) -> QuerySet[ApiToken]:
        return selectors.study_token_list(study=self.study).select_related("created_by")

    @extend_schema(
        summary="Create a study token (the response holds its secret, shown once)",
        request=s.StudyTokenInputSerializer,
        responses={201: s.StudyTokenCreatedSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.StudyTokenInputSerializer)
        self.ensure_may_grant(data["role"])
        token, secret = tokens.study_token_create(
            study=self.study,
            created_by=self.actor.audit_user,
            not_after=token_expiry_ceiling(self.actor),
            **data,
        )
        token.secret = secret  # type: ignore[attr-defined]
        return Response(s.StudyTokenCreatedSerializer(token).data, status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Revoke a study token", request=None, responses={200: s.StudyTokenOutputSerializer}
    )
    @action(detail=True, methods=["post"])
    def revoke(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.output(tokens.token_revoke(token=self.get_object()))


@extend_schema_view(
    list=extend_schema(summary="List your personal tokens (never their secrets)"),
    retrieve=extend_schema(summary="Get one of your personal tokens"),
)
class PersonalTokenViewSet(  # type: ignore[misc]  # QueryParametersMixin narrows request/action
    QueryParametersMixin, mixins.ListModelMixin, mixins.RetrieveModelMixin, viewsets.GenericViewSet
):
    """Your personal tokens: each acts as you, in every study you belong to. The secret is
    returned once, by the create call. Study tokens have no personal tokens (403)."""

    serializer_class = s.PersonalTokenOutputSerializer
    filterset_class = filters.TokenFilter
    lookup_value_regex = ID_REGEX
    parser_classes = PARSERS
    http_method_names = ["get", "post", "head", "options"]

    def check_permissions(self, request: Request) -> None:
        super().check_permissions(request)
        if person_refusal(actor_from_request(request)) is not None:
            raise exceptions.PermissionDenied("A study token has no personal tokens.")

    def get_queryset(self) -> QuerySet[ApiToken]:
        if _fake(self):
            return ApiToken.objects.none()
        return selectors.personal_token_list(user=self.request.user)

    @extend_schema(
        summary="Create a personal token (the response holds its secret, shown once)",
        request=s.PersonalTokenInputSerializer,
        responses={201: s.PersonalTokenCreatedSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = s.PersonalTokenInputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        token, secret = tokens.personal_token_create(
            user=request.user,
            not_after=token_expiry_ceiling(actor_from_request(request)),
            **serializer.validated_data,
        )
        token.secret = secret  # type: ignore[attr-defined]
        return Response(
            s.PersonalTokenCreatedSerializer(token).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Revoke one of your personal tokens",
        request=None,
        responses={200: s.PersonalTokenOutputSerializer},
    )
    @action(detail=True, methods=["post"])
    def revoke(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        token = tokens.token_revoke(token=self.get_object())
        return Response(s.PersonalTokenOutputSerializer(token).data)


# --- Questions and categories --------------------------------------------------------------


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's questions with their categories"),
    retrieve=extend_schema(summary="Get a question with its categories", parameters=[QUESTION_ID]),
    partial_update=extend_schema(parameters=[QUESTION_ID]),
    destroy=extend_schema(parameters=[QUESTION_ID]),
)
class QuestionViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet):  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    """The label scheme: questions asked of every item, each with its kind and declared
    categories. Managers declare a question and its categories (a tree: parents by code)
    in one request."""

    model = Question
    serializer_class = s.QuestionOutputSerializer
    filterset_class = filters.QuestionFilter
    lookup_value_regex = QUESTION_REF_REGEX

    def scoped_queryset(self) -> QuerySet[Question]:
        return selectors.question_list(study=self.study)

    def get_object(self) -> Question:
        # The path names the question by id or key; the lookup goes on by its id.
        self.kwargs["pk"] = question_in_path(self.study, self.kwargs["pk"]).pk
        return super().get_object()  # type: ignore[no-any-return]

    @extend_schema(
        summary="Declare a question with its categories",
        request=s.QuestionCreateInputSerializer,
        responses={201: s.QuestionOutputSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.QuestionCreateInputSerializer)
        question = scheme.question_create(study=self.study, **data)
        return self.output(
            selectors.question_list(study=self.study).get(pk=question.pk),
            status_code=status.HTTP_201_CREATED,
        )

    @extend_schema(
        summary="Change a question (the kind only while it has no annotations)",
        request=s.QuestionUpdateInputSerializer,
        responses={200: s.QuestionOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.QuestionUpdateInputSerializer)
        question = scheme.question_update(question=self.get_object(), **data)
        return self.output(selectors.question_list(study=self.study).get(pk=question.pk))

    @extend_schema(summary="Delete a question without annotations", responses={204: None})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        scheme.question_delete(question=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["GET"],
        summary="Get the size of a free-text question's distance table",
        responses={200: s.DistanceTableOutputSerializer},
    )
    @extend_schema(
        methods=["POST"],
        summary="Upload a free-text question's distance table (replaces it whole)",
        description=(
            "The distance between two texts as computed elsewhere (from embeddings, say), "
            "used by a computation with `distance` `user`. CSV (`text/csv`) "
            "`text_a,text_b,distance`, or JSON `{rows: [{text_a, text_b, distance}]}`. "
            "Distances are finite and not negative, 0 between a text and itself, the same "
            "in both orders; a pair once. Errors name the row and field (`line 3.distance`, "
            "`rows.2.text_b`)."
        ),
        request=s.DistanceTableInputSerializer,
        responses={200: s.DistanceTableOutputSerializer},
    )
    @extend_schema(methods=["DELETE"], summary="Delete a question's distance table")
    @action(
        detail=True,
        methods=["get", "post", "delete"],
        url_path="distances",
        parser_classes=[JSONParser, DistanceCsvParser],
        pagination_class=None,
        filterset_class=None,
    )
    def distances(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        question = self.get_object()
        if request.method == "DELETE":
            distance_tables.distance_table_delete(question=question)
            return Response(status=status.HTTP_204_NO_CONTENT)
        if request.method == "POST":
            media_type = (request.content_type or "").split(";")[0].strip().lower()
            if media_type == DistanceCsvParser.media_type:
                body = request.data if isinstance(request.data, dict) else {}
                rows = distance_tables.distance_rows_from_csv(body.get("csv", ""))
            else:
                data = self.validated(s.DistanceTableInputSerializer)
                rows = distance_tables.distance_rows_from_json(data["rows"])
            distance_tables.distance_table_replace(question=question, rows=rows)
        table = distance_tables.distance_table_summary(question=question)
        found = table or {
            "question": question,
            "n_pairs": 0,
            "uploaded_at": None,
            "fingerprint": None,
        }
        return Response(s.DistanceTableOutputSerializer(found).data)


@extend_schema(parameters=[STUDY_PK, QUESTION_PK])
@extend_schema_view(
    list=extend_schema(summary="List a question's categories in order"),
    retrieve=extend_schema(summary="Get a category"),
)
class CategoryViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet):  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    """A question's declared categories: add, rename, move in the order or the tree, and
    delete those no annotation uses."""

    model = Category
    serializer_class = s.CategoryOutputSerializer
    filterset_class = filters.CategoryFilter

    @property
    def question(self) -> Question:
        if not hasattr(self, "_question"):
            self._question = question_in_path(self.study, self.kwargs["question_pk"])
        return self._question

    def scoped_queryset(self) -> QuerySet[Category]:
        return selectors.category_list(question=self.question)

    @extend_schema(
        summary="Add a category",
        request=s.CategoryCreateInputSerializer,
        responses={201: s.CategoryOutputSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.CategoryCreateInputSerializer)
        category = scheme.category_create(question=self.question, **data)
        return self.output(category, status_code=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Rename a category, or move it in the order or the tree",
        request=s.CategoryUpdateInputSerializer,
        responses={200: s.CategoryOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.CategoryUpdateInputSerializer)
        category = scheme.category_update(category=self.get_object(), **data)
        return self.output(category)

    @extend_schema(summary="Delete a category no annotation uses", responses={204: None})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        scheme.category_delete(category=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Put all the question's categories in a new order",
        request=s.CategoryReorderInputSerializer,
        responses={200: s.CategoryOutputSerializer(many=True)},
    )
    @action(detail=False, methods=["post"], pagination_class=None, filterset_class=None)
    def reorder(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        question = self.question  # a missing question is a 404 before the body is read
        data = self.validated(s.CategoryReorderInputSerializer)
        ordered = scheme.categories_reorder(question=question, **data)
        return Response(s.CategoryOutputSerializer(ordered, many=True).data)


# --- Coders and items ----------------------------------------------------------------------


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's coders"),
    retrieve=extend_schema(summary="Get a coder"),
)
class CoderViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet):  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    """Coders (people or models who label), by the labeling tool's key; annotators and
    managers register them, one by one or in bulk. Linking a coder to a user account
    (``username``: a member of the study) is for managers only."""

    model = Coder
    write_role = Role.ANNOTATOR
    serializer_class = s.CoderOutputSerializer
    filterset_class = filters.CoderFilter

    def ensure_may_link(self, entries: Any, *, unlinking_counts: bool) -> None:
        """403 for a non-manager whose request names a user account to link (or, for a
        change, mentions ``username`` at all), before any name is looked up, so the answer
        says nothing about which names exist."""
        if role_allows(self.study_role_of_actor(self.study), Role.MANAGER):
            return
        entries = entries if isinstance(entries, list) else [entries]
        for entry in entries:
            if not isinstance(entry, dict) or "username" not in entry:
                continue
            if entry["username"] or unlinking_counts:
                raise exceptions.PermissionDenied(
                    "Only the study's managers can link a coder to a user account."
                )

    def scoped_queryset(self) -> QuerySet[Coder]:
        return selectors.coder_list(study=self.study)

    @extend_schema(
        summary="Register a coder",
        request=s.CoderInputSerializer,
        responses={201: s.CoderOutputSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.ensure_may_link(request.data, unlinking_counts=False)
        data = self.validated(s.CoderInputSerializer)
        return self.output(
            roster.coder_create(study=self.study, **data), status_code=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Register many coders at once (all or none)",
        request=s.CoderInputSerializer(many=True),
        responses={201: s.CoderOutputSerializer(many=True)},
    )
    @action(detail=False, methods=["post"], pagination_class=None, filterset_class=None)
    def bulk(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.ensure_may_link(request.data, unlinking_counts=False)
        serializer = s.CoderInputSerializer(data=request.data, many=True, max_length=s.MAX_BULK)  # type: ignore[call-arg]
        serializer.is_valid(raise_exception=True)
        coders = roster.coders_create_bulk(study=self.study, coders=serializer.validated_data)
        return Response(
            s.CoderOutputSerializer(coders, many=True).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Change a coder (``is_active=false`` retires one)",
        request=s.CoderUpdateInputSerializer,
        responses={200: s.CoderOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        self.ensure_may_link(request.data, unlinking_counts=True)
        data = self.validated(s.CoderUpdateInputSerializer)
        return self.output(roster.coder_update(coder=self.get_object(), **data))

    @extend_schema(summary="Delete a coder without annotations", responses={204: None})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        roster.coder_delete(coder=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        methods=["GET"],
        summary="A model coder's versions per round",
        description="The model version and prompt version a model coder labelled each round "
        "with: recorded from the coder's current ones when the round is first computed, or "
        "set here. A person has none (an empty list).",
        responses={200: s.ModelRoundVersionOutputSerializer(many=True)},
    )
    @extend_schema(
        methods=["POST"],
        summary="Set a model coder's versions in one round",
        description="`round` is an id or a name; a version not given keeps the recorded one "
        "(else the coder's current one). A person coder is a 400 naming `coder`.",
        request=s.ModelRoundVersionInputSerializer,
        responses={200: s.ModelRoundVersionOutputSerializer},
    )
    @action(
        detail=True,
        methods=["get", "post"],
        pagination_class=None,
        filterset_class=None,
        url_path="versions",
    )
    def versions(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        coder = self.get_object()
        if request.method == "GET":
            entries = selectors.model_round_versions(coder=coder)
            return Response(s.ModelRoundVersionOutputSerializer(entries, many=True).data)
        data = self.validated(s.ModelRoundVersionInputSerializer)
        round_ = selectors.round_resolve(study=self.study, ref=data.pop("round"))
        if round_ is None:
            raise exceptions.ValidationError({"round": ["No such round in this study."]})
        entry = roster.model_round_versions_set(coder=coder, round=round_, **data)
        return Response(s.ModelRoundVersionOutputSerializer(entry).data)


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's items"),
    retrieve=extend_schema(summary="Get an item"),
)
class ItemViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet):  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    """Items to label, by the labeling tool's external id, with optional text and
    metadata; annotators and managers register them, one by one or in bulk."""

    model = Item
    write_role = Role.ANNOTATOR
    serializer_class = s.ItemOutputSerializer
    filterset_class = filters.ItemFilter

    def scoped_queryset(self) -> QuerySet[Item]:
        return selectors.item_list(study=self.study)

    @extend_schema(
        summary="Register an item",
        request=s.ItemInputSerializer,
        responses={201: s.ItemOutputSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.ItemInputSerializer)
        return self.output(
            roster.item_create(study=self.study, **data), status_code=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Register many items at once (all or none)",
        request=s.ItemInputSerializer(many=True),
        responses={201: s.ItemOutputSerializer(many=True)},
    )
    @action(detail=False, methods=["post"], pagination_class=None, filterset_class=None)
    def bulk(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        serializer = s.ItemInputSerializer(data=request.data, many=True, max_length=s.MAX_BULK)  # type: ignore[call-arg]
        serializer.is_valid(raise_exception=True)
        items = roster.items_create_bulk(study=self.study, items=serializer.validated_data)
        return Response(
            s.ItemOutputSerializer(items, many=True).data, status=status.HTTP_201_CREATED
        )

    @extend_schema(
        summary="Change an item",
        request=s.ItemUpdateInputSerializer,
        responses={200: s.ItemOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.ItemUpdateInputSerializer)
        return self.output(roster.item_update(item=self.get_object(), **data))

    @extend_schema(summary="Delete an item without annotations", responses={204: None})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        roster.item_delete(item=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="An image item's uploaded image: read, upload (replaces), delete",
        description="POST the image as the body (`Content-Type: image/png`, `image/jpeg`, "
        "`image/gif` or `image/webp`; the type is read from its first bytes) or as a "
        "multipart `file`; it gives the item its size when the item has none, and is refused "
        "when the item is declared with another size. GET answers the image's bytes, to the "
        "study's members only.",
        request={"image/*": OpenApiTypes.BINARY, "multipart/form-data": s.ItemImageInputSerializer},
        responses={200: OpenApiTypes.BINARY, 201: s.ItemOutputSerializer, 204: None},
    )
    @action(
        detail=True,
        methods=["get", "post", "delete"],
        url_path="image",
        parser_classes=[ImageParser, MultiPartParser],
    )
    def image(self, request: Request, *args: Any, **kwargs: Any) -> Any:
        item = self.get_object()
        if request.method == "GET":
            stored = ItemImage.objects.filter(item=item).first()
            if stored is None:
                raise exceptions.NotFound("This item has no uploaded image.")
            return image_response(stored)
        if request.method == "DELETE":
            images.item_image_delete(item=item)
            return Response(status=status.HTTP_204_NO_CONTENT)
        payload: Any = request.data
        data = payload.get("image") if hasattr(payload, "get") else None
        if data is None:
            upload = payload.get("file") if hasattr(payload, "get") else None
            if upload is None:
                raise exceptions.ValidationError(
                    {"file": ["Send the image as the body or as a multipart file."]}
                )
            data = upload.read(images.max_bytes() + 1)
        images.item_image_set(item=item, data=bytes(data))
        return self.output(self.get_queryset().get(pk=item.pk), status_code=status.HTTP_201_CREATED)


# --- Rounds --------------------------------------------------------------------------------


@extend_schema(parameters=[STUDY_PK])
@extend_schema_view(
    list=extend_schema(summary="List the study's rounds in order"),
    retrieve=extend_schema(summary="Get a round"),
)
class RoundViewSet(mixins.ListModelMixin, mixins.RetrieveModelMixin, StudyScopedViewSet):  # type: ignore[misc]  # StudyScopedMixin narrows request/action
    """Annotation rounds, in order. A new round is open; managers close and reopen it."""

    model = Round
    serializer_class = s.RoundOutputSerializer
    filterset_class = filters.RoundFilter

    def scoped_queryset(self) -> QuerySet[Round]:
        return selectors.round_list(study=self.study)

    @extend_schema(
        summary="Open a new round",
        request=s.RoundCreateInputSerializer,
        responses={201: s.RoundOutputSerializer},
    )
    def create(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.RoundCreateInputSerializer)
        return self.output(
            round_services.round_create(study=self.study, **data),
            status_code=status.HTTP_201_CREATED,
        )

    @extend_schema(
        summary="Rename or move a round, or correct its dates",
        request=s.RoundUpdateInputSerializer,
        responses={200: s.RoundOutputSerializer},
    )
    def partial_update(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.RoundUpdateInputSerializer)
        return self.output(round_services.round_update(round=self.get_object(), **data))

    @extend_schema(summary="Delete a round without annotations", responses={204: None})
    def destroy(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        round_services.round_delete(round=self.get_object())
        return Response(status=status.HTTP_204_NO_CONTENT)

    @extend_schema(
        summary="Close a round",
        request=s.RoundCloseInputSerializer,
        responses={200: s.RoundOutputSerializer},
    )
    @action(detail=True, methods=["post"], filterset_class=None)
    def close(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        data = self.validated(s.RoundCloseInputSerializer)
        return self.output(round_services.round_close(round=self.get_object(), **data))

    @extend_schema(
        summary="Reopen a closed round", request=None, responses={200: s.RoundOutputSerializer}
    )
    @action(detail=True, methods=["post"], filterset_class=None)
    def reopen(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return self.output(round_services.round_reopen(round=self.get_object()))
