from __future__ import annotations

from typing import Any

import pytest

from tests.connections.fake import FakeLabelStudio


@pytest.fixture
def fake_ls(monkeypatch: pytest.MonkeyPatch) -> FakeLabelStudio:
    """Every connection talks to one in-memory Label Studio."""
    fake = FakeLabelStudio()
    monkeypatch.setattr("connections.services._client", lambda connection: fake)
    monkeypatch.setattr("connections.services.LabelStudioClient", lambda url, token: fake)
    return fake


@pytest.fixture
def eager_commits(django_capture_on_commit_callbacks: Any) -> Any:
    return django_capture_on_commit_callbacks
