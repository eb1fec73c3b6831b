"""Routes of the import and export endpoints, registered by ``studies/api/urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from studies.api.import_views import ExportViewSet, ImportViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/imports", ImportViewSet, "import"),
    (r"studies/(?P<study_pk>[0-9]{1,18})/exports", ExportViewSet, "export"),
]
