"""Bulk writes the Django admin's actions need and the API does not offer."""

from __future__ import annotations

from django.db import transaction
from django.db.models import QuerySet

from studies.models import Coder


@transaction.atomic
def coders_set_active(*, coders: QuerySet[Coder], is_active: bool) -> int:
    return coders.exclude(is_active=is_active).update(is_active=is_active)
