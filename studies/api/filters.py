"""Query filters for the API's lists (django-filter)."""

from __future__ import annotations

from typing import Any, ClassVar

import django_filters
from django.db.models import Q, QuerySet

from studies.models import (
    ApiToken,
    Category,
    Coder,
    CoderKind,
    Item,
    LabelKind,
    Membership,
    Question,
    Role,
    Round,
    RoundStatus,
)


class QuestionFilter(django_filters.FilterSet):
    kind = django_filters.ChoiceFilter(choices=LabelKind.choices)
    key = django_filters.CharFilter()

    class Meta:
        model = Question
        fields: ClassVar = ["kind", "key"]


class CategoryFilter(django_filters.FilterSet):
    code = django_filters.CharFilter()
    parent = django_filters.CharFilter(field_name="parent__code", label="Parent's code")
    root = django_filters.BooleanFilter(
        field_name="parent", lookup_expr="isnull", label="Only top-level categories"
    )

    class Meta:
        model = Category
        fields: ClassVar = ["code", "parent", "root"]


class CoderFilter(django_filters.FilterSet):
    key = django_filters.CharFilter()
    is_active = django_filters.BooleanFilter()
    username = django_filters.CharFilter(field_name="user__username")
    kind = django_filters.ChoiceFilter(choices=CoderKind.choices)

    class Meta:
        model = Coder
        fields: ClassVar = ["key", "is_active", "username", "kind"]


class CharInFilter(django_filters.BaseInFilter, django_filters.CharFilter):
    """Comma-separated text values, each validated as text (no NUL characters, which
    PostgreSQL refuses)."""


class ItemFilter(django_filters.FilterSet):
    external_id = django_filters.CharFilter()
    external_id_in = CharInFilter(field_name="external_id", label="Comma-separated external ids")
    search = django_filters.CharFilter(
        method="filter_search", label="Text or external id contains this"
    )

    class Meta:
        model = Item
        fields: ClassVar = ["external_id", "external_id_in", "search"]

    def filter_search(self, queryset: QuerySet[Item], name: str, value: Any) -> QuerySet[Item]:
        return queryset.filter(Q(external_id__icontains=value) | Q(text__icontains=value))


class RoundFilter(django_filters.FilterSet):
    status = django_filters.ChoiceFilter(choices=RoundStatus.choices)
    name = django_filters.CharFilter()

    class Meta:
        model = Round
        fields: ClassVar = ["status", "name"]


class MembershipFilter(django_filters.FilterSet):
    role = django_filters.ChoiceFilter(choices=Role.choices)

    class Meta:
        model = Membership
        fields: ClassVar = ["role"]


class TokenFilter(django_filters.FilterSet):
    revoked = django_filters.BooleanFilter(
        field_name="revoked_at", lookup_expr="isnull", exclude=True
    )

    class Meta:
        model = ApiToken
        fields: ClassVar = ["revoked"]
