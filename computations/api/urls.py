"""Routes of computations and the history, registered by ``agreement_server/api_urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from computations.api.views import ComparisonViewSet, ComputationViewSet, HistoryViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/computations", ComputationViewSet, "computation"),
    (r"studies/(?P<study_pk>[0-9]{1,18})/history", HistoryViewSet, "history"),
    (r"studies/(?P<study_pk>[0-9]{1,18})/comparisons", ComparisonViewSet, "comparison"),
]
