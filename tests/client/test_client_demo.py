"""``examples/client_demo.py`` runs against the demo study of ``./dev run`` (here: the demo
study loaded into the live test server)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from computations.models import Computation
from demo.loader import demo_study_ensure
from studies.models import Annotation, ApiToken
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True)

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "client_demo.py"


def load_demo_script() -> Any:
    spec = importlib.util.spec_from_file_location("client_demo", SCRIPT)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_example_logs_in_uploads_computes_and_prints_the_history(
    live_server: Any, capsys: pytest.CaptureFixture[str], settings: Any
) -> None:
    # ./dev run serves plain http with DEBUG on; the test settings keep cookies https-only.
    settings.CSRF_COOKIE_SECURE = settings.SESSION_COOKIE_SECURE = False
    admin = UserFactory(username="admin", is_staff=True, is_superuser=True)
    admin.set_password("demo-pw")
    admin.save()
    study = demo_study_ensure(manager=admin).study

    code = load_demo_script().main(
        ["--url", live_server.url, "--username", "admin", "--password", "demo-pw"]
    )

    out = capsys.readouterr().out
    assert code == 0, out
    assert ApiToken.objects.filter(user=admin, name="client demo").exists()
    assert f"Study {study.pk}: Demo: forum posts" in out
    assert '"coders_created": 1' in out  # dana, a new coder
    assert Annotation.objects.filter(coder__key="dana").count() == 1
    assert '"items_created": 1' in out  # post-041, a new item
    computation = Computation.objects.filter(question__key="sentiment").latest("created_at")
    assert computation.status == "done"
    assert f"Computation {computation.pk}" in out
    assert "alpha =" in out
    assert "History of sentiment:" in out
    assert "Main (open): alpha = " in out
