"""The services guard: skip when services are not configured, fail when CI requires them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

PROBE = """
import pytest

@pytest.mark.services
def test_marked(postgres_required, redis_broker):
    pass

def test_unmarked():
    pass
"""


def run_probe(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    test_file = tmp_path / "test_probe.py"
    test_file.write_text(PROBE)
    clean = {
        key: value
        for key, value in os.environ.items()
        if key
        not in {
            "AGREEMENT_SERVICES",
            "AGREEMENT_CI_REQUIRE_SERVICES",
            "DATABASE_URL",
            "CELERY_BROKER_URL",
            "PYTEST_ADDOPTS",
        }
    }
    # Only the plugins this needs: the autoloaded ones take seconds to import.
    clean.update(PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **env)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-c",
            str(ROOT / "pyproject.toml"),
            "--rootdir",
            str(ROOT),
            "-p",
            "pytest_django.plugin",
            "-p",
            "tests.plugins.services",
            "-rA",
            str(test_file),
        ],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.slow
def test_a_services_test_is_skipped_when_services_are_not_configured(tmp_path: Path) -> None:
    result = run_probe(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed, 1 skipped" in result.stdout
    assert "AGREEMENT_SERVICES=1" in result.stdout


@pytest.mark.slow
def test_a_missing_service_is_skipped_outside_ci(tmp_path: Path) -> None:
    result = run_probe(tmp_path, AGREEMENT_SERVICES="1")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 passed, 1 skipped" in result.stdout
    assert "not a postgres:// URL" in result.stdout


@pytest.mark.slow
def test_a_missing_service_fails_when_ci_requires_services(tmp_path: Path) -> None:
    result = run_probe(tmp_path, AGREEMENT_SERVICES="1", AGREEMENT_CI_REQUIRE_SERVICES="1")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "1 failed, 1 passed" in result.stdout or "1 passed, 1 error" in result.stdout
    assert "a required service is missing" in result.stdout


@pytest.mark.slow
def test_an_unreachable_redis_fails_when_ci_requires_services(tmp_path: Path) -> None:
    result = run_probe(
        tmp_path,
        AGREEMENT_SERVICES="1",
        AGREEMENT_CI_REQUIRE_SERVICES="1",
        DATABASE_URL="postgres://postgres@127.0.0.1:1/nowhere",
        CELERY_BROKER_URL="redis://127.0.0.1:1/0",
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "PostgreSQL is unreachable" in result.stdout
