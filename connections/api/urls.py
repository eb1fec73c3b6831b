"""Routes of Label Studio connections, registered by ``agreement_server/api_urls.py``."""

from __future__ import annotations

from connections.api.views import LabelStudioConnectionViewSet

ROUTES: list[tuple[str, type, str]] = [
    (
        r"studies/(?P<study_pk>[0-9]{1,18})/label-studio-connections",
        LabelStudioConnectionViewSet,
        "label-studio-connection",
    ),
]
