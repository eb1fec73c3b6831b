"""pytest plugin: headless Debian Chromium for tests marked ``@pytest.mark.browser``.

Load it with ``-p tests.plugins.browser``. The ``chromium_driver`` fixture drives
``/usr/bin/chromium`` through ``/usr/bin/chromedriver`` with selenium (installed by
``scripts/install-browser.sh``; nothing is downloaded by a test tool). When the browser,
the driver or selenium is missing, the test is skipped, or fails under
``AGREEMENT_CI_REQUIRE_SERVICES=1`` (CI must not go green by skipping), as the services
guard does. ``screenshot_dir`` is ``artifacts/screenshots/`` (``AGREEMENT_SCREENSHOT_DIR``
overrides it), which CI keeps.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.services import service_missing

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = os.environ.get("AGREEMENT_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("AGREEMENT_CHROMEDRIVER", "/usr/bin/chromedriver")
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1280,1800",
)


def browser_problem() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    if importlib.util.find_spec("selenium") is None:
        return "selenium is not installed (pip install selenium)"
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return f"{path} is missing: run scripts/install-browser.sh (Debian {package})"
    return None


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    path = Path(os.environ.get("AGREEMENT_SCREENSHOT_DIR", ROOT / "artifacts" / "screenshots"))
    path.mkdir(parents=True, exist_ok=True)
    return path


@pytest.fixture
def chromium_driver(tmp_path: Path) -> Iterator[Any]:
    problem = browser_problem()
    if problem:
        service_missing(problem)
    os.environ.setdefault("SE_AVOID_STATS", "true")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tmp_path / "chromium-profile"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={profile}")
    driver = webdriver.Chrome(
        service=Service(executable_path=CHROMEDRIVER, log_output=str(tmp_path / "driver.log")),
        options=options,
    )
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
