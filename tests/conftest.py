"""Shared fixtures: users, a study with a member of each role, API clients per actor.

``study`` has ``manager``, ``annotator`` and ``viewer`` members; ``client_for(...)``
builds an APIClient authenticated as a user (session login) or a study token.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from studies.models import ApiToken, Role, Study
from tests.factories import (
    ApiTokenFactory,
    MembershipFactory,
    StudyFactory,
    UserFactory,
)


@pytest.fixture
def api_client() -> APIClient:
    """An anonymous client."""
    return APIClient()


@pytest.fixture
def client_for() -> Callable[..., APIClient]:
    """``client_for(user)`` logs the user in; ``client_for(token_secret=...)`` sends a token."""

    def make(user: Any = None, *, token_secret: str | None = None) -> APIClient:
        client = APIClient()
        if user is not None:
            client.force_authenticate(user=user)
        if token_secret is not None:
            client.credentials(HTTP_AUTHORIZATION=f"Token {token_secret}")
        return client

    return make


@pytest.fixture
def study(db: None) -> Study:
    return StudyFactory(name="Study A")


@pytest.fixture
def manager(study: Study) -> Any:
    user = UserFactory(username="manager_a")
    MembershipFactory(study=study, user=user, role=Role.MANAGER)
    return user


@pytest.fixture
def annotator(study: Study) -> Any:
    user = UserFactory(username="annotator_a")
    MembershipFactory(study=study, user=user, role=Role.ANNOTATOR)
    return user


@pytest.fixture
def viewer(study: Study) -> Any:
    user = UserFactory(username="viewer_a")
    MembershipFactory(study=study, user=user, role=Role.VIEWER)
    return user


@pytest.fixture
def outsider(db: None) -> Any:
    """A manager of another study, not a member of ``study``."""
    user = UserFactory(username="manager_b")
    MembershipFactory(study=StudyFactory(name="Study B"), user=user, role=Role.MANAGER)
    return user


@pytest.fixture
def manager_client(client_for: Callable[..., APIClient], manager: Any) -> APIClient:
    return client_for(manager)


@pytest.fixture
def annotator_client(client_for: Callable[..., APIClient], annotator: Any) -> APIClient:
    return client_for(annotator)


@pytest.fixture
def viewer_client(client_for: Callable[..., APIClient], viewer: Any) -> APIClient:
    return client_for(viewer)


@pytest.fixture
def outsider_client(client_for: Callable[..., APIClient], outsider: Any) -> APIClient:
    return client_for(outsider)


@pytest.fixture
def study_token(study: Study) -> Callable[[Role], tuple[ApiToken, str]]:
    """``study_token(Role.ANNOTATOR)`` -> (token, secret), a study token of ``study``."""

    def make(role: Role = Role.ANNOTATOR) -> tuple[ApiToken, str]:
        return ApiTokenFactory.create_with_secret(study=study, user=None, role=role)

    return make


@pytest.fixture
def world(db: None) -> Any:
    """Study A fully populated (see ``tests/api/world.py``)."""
    from tests.api.world import build_world

    return build_world()
