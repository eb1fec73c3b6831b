"""The browser guard: without Chromium a browser test skips, and fails when CI requires it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import pytest

@pytest.mark.browser
def test_needs_the_browser(chromium_driver):
    pass
"""


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    probe = tmp_path / "test_probe_browser.py"
    probe.write_text(PROBE)
    environment = {**os.environ, "AGREEMENT_CHROMIUM": str(tmp_path / "no-chromium"), **env}
    environment.pop("AGREEMENT_CI_REQUIRE_SERVICES", None)
    environment.update(env)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "tests.plugins.browser", "-q", "-p", "no:logging",
         f"--rootdir={ROOT}", "-c", str(ROOT / "pyproject.toml"), str(probe)],
        cwd=ROOT, env=environment, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


@pytest.mark.slow
def test_a_browser_test_skips_when_chromium_is_missing(tmp_path: Path) -> None:
    result = _run(tmp_path)
    assert result.returncode == 0, result.stdout
    assert "1 skipped" in result.stdout


@pytest.mark.slow
def test_a_browser_test_fails_when_ci_requires_it_and_chromium_is_missing(tmp_path: Path) -> None:
    result = _run(tmp_path, AGREEMENT_CI_REQUIRE_SERVICES="1")
    assert result.returncode == 1, result.stdout
    assert "1 error" in result.stdout  # a failing fixture: the test errors, never skips
    assert "skipped" not in result.stdout
    assert "no-chromium is missing" in result.stdout
