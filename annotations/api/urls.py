"""Routes of the annotation endpoints, registered by ``agreement_server/api_urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from annotations.api.views import AnnotationChangeViewSet, AnnotationViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/annotations", AnnotationViewSet, "annotation"),
    (
        r"studies/(?P<study_pk>[0-9]{1,18})/annotation-changes",
        AnnotationChangeViewSet,
        "annotation-change",
    ),
]
