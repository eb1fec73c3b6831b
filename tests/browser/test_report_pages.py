"""In headless Chromium at 1400 px and 390 px: the reliability report, the study form and
the round report with its pairwise table fit the window (no sideways scrolling of the page,
the checklist's cells inside their table), and printing the report drops the header and the
navigation. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.pages.conftest import PagesWorld

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 60
WIDTHS = (1400, 390)


def _sign_in(driver: Any, base: str, user: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    user.set_password("report-pw")
    user.save()
    driver.get(base + reverse("login"))
    driver.find_element(By.ID, "id_username").send_keys(user.username)
    driver.find_element(By.ID, "id_password").send_keys("report-pw")
    driver.find_element(By.ID, "sign-in").click()
    WebDriverWait(driver, WAIT).until(ec.presence_of_element_located((By.CSS_SELECTOR, "span.who")))


def _fits(driver: Any) -> tuple[int, int]:
    return driver.execute_script(
        "return [document.documentElement.scrollWidth, document.documentElement.clientWidth];"
    )


def test_the_report_pages_fit_wide_and_narrow_windows_and_print_clean(
    pages_world: PagesWorld,
    manager: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
) -> None:
    from selenium.webdriver.common.by import By

    driver = chromium_driver
    _sign_in(driver, live_server.url, manager)
    study, round_ = pages_world.study, pages_world.rounds[1]
    pages = {
        "round-reliability": (
            reverse("pages:round-reliability", args=[study.pk, round_.pk]),
            "table.grras",
        ),
        "study-reliability": (reverse("pages:study-reliability", args=[study.pk]), "table.grras"),
        "study-new": (reverse("pages:study-create"), "form.study-form"),
        "study-edit": (reverse("pages:study-edit", args=[study.pk]), "form.study-form"),
        "round-report": (
            reverse("pages:round-report", args=[study.pk, round_.pk]),
            "table.coder-pairs",
        ),
    }
    for width in WIDTHS:
        driver.set_window_size(width, 1600)
        for name, (path, css) in pages.items():
            driver.get(live_server.url + path)
            table = driver.find_element(By.CSS_SELECTOR, css)
            driver.save_screenshot(str(screenshot_dir / f"30-{name}-{width}.png"))
            scroll_width, client_width = _fits(driver)
            assert scroll_width <= client_width, (name, width, scroll_width, client_width)
            box = table.find_element(By.XPATH, "..")
            assert box.size["width"] <= client_width, (name, width)
    driver.set_window_size(1400, 1600)
    driver.get(live_server.url + pages["round-reliability"][0])
    heading = driver.find_element(By.CSS_SELECTOR, "h1").text
    assert heading == "Interrater reliability and agreement of “Study A” (round R2)"
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    header = driver.find_element(By.CSS_SELECTOR, "header.site-header")
    crumbs = driver.find_element(By.CSS_SELECTOR, "nav.crumbs")
    formats = driver.find_element(By.CSS_SELECTOR, "p.report-formats")
    assert not header.is_displayed()
    assert not crumbs.is_displayed()
    assert not formats.is_displayed()
    assert driver.find_element(By.CSS_SELECTOR, "table.grras").is_displayed()
    driver.save_screenshot(str(screenshot_dir / "30-round-reliability-print.png"))
    pdf = driver.execute_cdp_cmd("Page.printToPDF", {"printBackground": False})
    assert len(pdf["data"]) > 1000
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
