"""agreement_server.heap: the web process's start-up objects are frozen out of the collector."""

from __future__ import annotations

import gc
import importlib
import sys
from collections.abc import Iterator

import pytest


@pytest.fixture
def unfrozen_afterwards() -> Iterator[None]:
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("unfrozen_afterwards")
def test_the_wsgi_application_freezes_its_views_and_libraries() -> None:
    sys.modules.pop("agreement_server.wsgi", None)
    wsgi = importlib.import_module("agreement_server.wsgi")
    assert callable(wsgi.application)
    # The URLconf loads lazily; freezing imported every view module first.
    assert "computations.api.views" in sys.modules
    assert "pages.views" in sys.modules
    # Django, DRF and NumPy alone are tens of thousands of objects, and the collector's
    # generations no longer hold them (objects freed by reference counting, as other threads
    # may do, leave the frozen count by one now and then: no equality on it).
    frozen = gc.get_freeze_count()
    assert frozen > 20_000
    assert len(gc.get_objects()) < frozen // 4
