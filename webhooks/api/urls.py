"""Routes of webhook endpoints, registered by ``agreement_server/api_urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from webhooks.api.views import WebhookEndpointViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/webhooks", WebhookEndpointViewSet, "webhook"),
]
