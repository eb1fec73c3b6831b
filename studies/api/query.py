"""Query parameters: each action of a view declares those it takes; any other is a 400.

An action takes

- the fields of its query serializer, ``query_serializers[action]`` (validated with the
  study in the context, so ``QuestionField`` and ``RoundField`` work there too);
- on ``list``, the filters of its ``filterset_class`` (django-filter);
- where it paginates (``list``, and the actions in ``paginated_actions``), ``page`` and
  ``page_size``;
- everywhere, ``format``: DRF's choice of renderer (``json``, ``api``; exports add ``csv``).

The OpenAPI schema (``studies.api.schema.AutoSchema``) lists the parameters from these same
methods, so what is documented is what is accepted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.utils.functional import cached_property
from rest_framework import exceptions, serializers
from rest_framework.request import Request
from rest_framework.settings import api_settings

UNKNOWN_PARAMETER = "unknown_parameter"


class QueryParametersMixin:
    """For API views: refuses undeclared query parameters, validates the declared ones."""

    query_serializers: ClassVar[Mapping[str, type[serializers.Serializer]]] = {}
    paginated_actions: ClassVar[frozenset[str]] = frozenset({"list"})

    request: Request
    action: str | None

    def query_serializer_class(self) -> type[serializers.Serializer] | None:
        """The serializer of this action's own query parameters, if it has any."""
        return self.query_serializers.get(self.action or "")

    def filters_query(self) -> bool:
        """Whether this action takes its filterset's filters."""
        return self.action == "list" and getattr(self, "filterset_class", None) is not None

    def paginates_query(self) -> bool:
        """Whether this action takes ``page`` and ``page_size``."""
        return (
            self.action in self.paginated_actions
            and getattr(self, "pagination_class", None) is not None
        )

    def accepted_query_parameters(self) -> list[str]:
        """Every query parameter this action takes, ``format`` included."""
        names = {api_settings.URL_FORMAT_OVERRIDE or "format"}
        serializer_class = self.query_serializer_class()
        if serializer_class is not None:
            names.update(serializer_class().fields.keys())
        if self.filters_query():
            names.update(self.filterset_class.base_filters)  # type: ignore[attr-defined]
        if self.paginates_query():
            paginator = self.pagination_class()  # type: ignore[attr-defined]
            names.update(
                name
                for name in (
                    getattr(paginator, "page_query_param", None),
                    getattr(paginator, "page_size_query_param", None),
                )
                if name
            )
        return sorted(names)

    def check_query_parameters(self, request: Request) -> None:
        """A 400 naming each query parameter this action does not take."""
        accepted = set(self.accepted_query_parameters())
        unknown = sorted(name for name in request.query_params if name not in accepted)
        if not unknown:
            return
        takes = ", ".join(sorted(accepted - {api_settings.URL_FORMAT_OVERRIDE})) or "none"
        raise exceptions.ValidationError(
            {
                name: [
                    exceptions.ErrorDetail(
                        f"Unknown query parameter {name!r}; this endpoint takes {takes}.",
                        code=UNKNOWN_PARAMETER,
                    )
                ]
                for name in unknown
            }
        )

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # After authentication and permissions: a stranger learns nothing from a 400.
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        self.check_query_parameters(request)

    def query_serializer_context(self) -> dict[str, Any]:
        return {"request": self.request, "view": self}

    @cached_property
    def query(self) -> dict[str, Any]:
        """This action's query parameters, validated by its query serializer (a 400 naming
        each bad one)."""
        serializer_class = self.query_serializer_class()
        if serializer_class is None:
            return {}
        serializer = serializer_class(
            data=self.request.query_params, context=self.query_serializer_context()
        )
        serializer.is_valid(raise_exception=True)
        return dict(serializer.validated_data)
