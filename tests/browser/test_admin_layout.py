"""In headless Chromium at 1280 px: the study admin page and the site's study pages fit the
window (no sideways scrolling of the page); wide tables scroll inside their own box and
charts shrink to the width they are given. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from computations.models import Computation, ComputationScope, ComputationStatus
from studies.models import Round
from tests.computations.helpers import nominal_question
from tests.factories import UserFactory
from tests.pages.conftest import PagesWorld

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH, HEIGHT = 1280, 1800
WAIT = 60
#: A worker's error as it may really read: one long unbroken token (a path, a hash).
LONG_ERROR = "ValueError: " + "/var/lib/agreement/some/very/long/path/segment" * 12


def _widen(world: PagesWorld) -> None:
    """What makes the page wide in practice: many rounds and questions, a long error."""
    for position in range(3, 13):
        Round.objects.create(study=world.study, name=f"Round {position} (pilot)", position=position)
    for n in range(6):
        nominal_question(world.study, codes=("yes", "no"), key=f"a-rather-long-question-key-{n}")
    failed = Computation.objects.create(
        study=world.study, question=world.question, scope=ComputationScope.ROUND,
        parameters={}, params_hash="f" * 64, data_revision="old", status=ComputationStatus.FAILED,
        error=LONG_ERROR, finished_at=timezone.now(),
    )  # fmt: skip
    failed.rounds.set([world.rounds[0]])


def _overflow(driver: Any) -> tuple[int, int]:
    return driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"
    )


def _wait_for(driver: Any, css: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, WAIT).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def _open(driver: Any, url: str, css: str) -> None:
    driver.get(url)
    _wait_for(driver, css)


def test_the_study_admin_page_fits_a_1280_px_window(
    pages_world: PagesWorld, live_server: Any, chromium_driver: Any, screenshot_dir: Path
) -> None:
    from selenium.webdriver.common.by import By

    _widen(pages_world)
    user = UserFactory(username="admin-layout", is_staff=True, is_superuser=True)
    user.set_password("admin-layout-pw")
    user.save()
    driver = chromium_driver
    driver.set_window_size(WIDTH, HEIGHT)
    _open(driver, live_server.url + reverse("admin:login"), "#id_username")
    driver.find_element(By.ID, "id_username").send_keys("admin-layout")
    driver.find_element(By.ID, "id_password").send_keys("admin-layout-pw")
    driver.find_element(By.CSS_SELECTOR, "input[type=submit]").click()
    _wait_for(driver, "#user-tools")  # signed in: the session cookie is set
    url = live_server.url + reverse("admin:studies_study_change", args=[pages_world.study.pk])
    _open(driver, url, "#agreement-history")
    driver.save_screenshot(str(screenshot_dir / "10-admin-study.png"))
    scroll_width, client_width = _overflow(driver)
    assert scroll_width <= client_width, (scroll_width, client_width)
    history = driver.find_element(By.ID, "agreement-history")
    driver.execute_script("arguments[0].scrollIntoView();", history)
    driver.save_screenshot(str(screenshot_dir / "10-admin-study-history.png"))
    assert history.size["width"] <= client_width
    chart = driver.find_element(By.ID, "admin-history-alpha")
    assert chart.size["width"] <= client_width
    computations = driver.find_element(By.CSS_SELECTOR, "table.admin-computations")
    box = computations.find_element(By.XPATH, "..")
    assert "table-scroll" in box.get_attribute("class")
    assert box.size["width"] <= client_width


def test_the_site_study_pages_fit_a_1280_px_window(
    pages_world: PagesWorld,
    viewer: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
) -> None:
    from selenium.webdriver.common.by import By

    _widen(pages_world)
    viewer.set_password("viewer-pw")
    viewer.save()
    driver = chromium_driver
    driver.set_window_size(WIDTH, HEIGHT)
    _open(driver, live_server.url + reverse("login"), "#id_username")
    driver.find_element(By.ID, "id_username").send_keys(viewer.username)
    driver.find_element(By.ID, "id_password").send_keys("viewer-pw")
    driver.find_element(By.ID, "sign-in").click()
    _wait_for(driver, "span.who")  # signed in: the session cookie is set
    study = pages_world.study
    pages = {
        "11-study-page.png": (reverse("pages:study-detail", args=[study.pk]), "#dashboard"),
        "11-history-page.png": (reverse("pages:study-history", args=[study.pk]), "#history-alpha"),
        "12-round-report.png": (
            reverse("pages:round-report", args=[study.pk, pages_world.rounds[1].pk]),
            "table.coefficients",
        ),
        "13-study-list.png": (reverse("pages:study-list"), "table.studies"),
    }
    for name, (path, css) in pages.items():
        _open(driver, live_server.url + path, css)
        driver.save_screenshot(str(screenshot_dir / name))
        scroll_width, client_width = _overflow(driver)
        assert scroll_width <= client_width, (path, scroll_width, client_width)
