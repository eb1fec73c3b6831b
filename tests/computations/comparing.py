"""Comparing two rounds through the API: request (POST), let the worker run, read (GET)."""

from __future__ import annotations

from typing import Any

from rest_framework.test import APIClient


def compare_through_api(
    client: APIClient, study_pk: int, capture: Any, **body: Any
) -> tuple[Any, Any]:
    """POST a comparison with the worker run eagerly after the commit (``capture`` is
    ``django_capture_on_commit_callbacks``); the POST response and, when it was accepted,
    the GET of the stored comparison."""
    with capture(execute=True):
        posted = client.post(f"/api/v1/studies/{study_pk}/comparisons/", body, format="json")
    if posted.status_code not in (200, 202):
        return posted, None
    return posted, client.get(posted.json()["url"])
