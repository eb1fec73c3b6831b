"""Webhook test fixtures: a local receiver, and settings that let the server call it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.webhooks.receiver import Receiver, running_receiver


@pytest.fixture
def allow_local(settings: Any) -> Any:
    """The receiver listens on 127.0.0.1, which production refuses."""
    settings.AGREEMENT_WEBHOOKS_ALLOW_PRIVATE = True
    return settings


@pytest.fixture
def receiver(allow_local: Any) -> Iterator[Receiver]:
    with running_receiver() as running:
        yield running
