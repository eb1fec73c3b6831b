"""Routes of the import and export endpoints, registered by ``agreement_server/api_urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from exchange.api.views import ExportViewSet, ImportViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/imports", ImportViewSet, "import"),
    (r"studies/(?P<study_pk>[0-9]{1,18})/exports", ExportViewSet, "export"),
]
