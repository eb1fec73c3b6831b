"""Routes of sample-size planning, registered by ``agreement_server/api_urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from planning.api.views import PlanRequestViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/plans", PlanRequestViewSet, "plan"),
]
