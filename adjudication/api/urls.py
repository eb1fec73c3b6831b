"""Routes of gold and adjudication, registered by ``agreement_server/api_urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from adjudication.api.views import (
    AdjudicationViewSet,
    ReferenceResultViewSet,
    RoundReferenceViewSet,
)

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/adjudications", AdjudicationViewSet, "adjudication"),
    (
        r"studies/(?P<study_pk>[0-9]{1,18})/round-references",
        RoundReferenceViewSet,
        "round-reference",
    ),
    (
        r"studies/(?P<study_pk>[0-9]{1,18})/reference-results",
        ReferenceResultViewSet,
        "reference-result",
    ),
]
