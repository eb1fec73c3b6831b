"""Routes of the annotation endpoints, registered by ``studies/api/urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from studies.api.annotation_views import AnnotationChangeViewSet, AnnotationViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/annotations", AnnotationViewSet, "annotation"),
    (
        r"studies/(?P<study_pk>[0-9]{1,18})/annotation-changes",
        AnnotationChangeViewSet,
        "annotation-change",
    ),
]
