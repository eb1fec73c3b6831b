"""Routes of the review queue, registered by ``agreement_server/api_urls.py``:
``(regex prefix, viewset, basename)``."""

from __future__ import annotations

from review.api.views import ReviewEntryViewSet, ReviewRuleViewSet

ROUTES: list[tuple[str, type, str]] = [
    (r"studies/(?P<study_pk>[0-9]{1,18})/review-rules", ReviewRuleViewSet, "review-rule"),
    (r"studies/(?P<study_pk>[0-9]{1,18})/review", ReviewEntryViewSet, "review-entry"),
]
