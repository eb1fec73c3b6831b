"""In headless Chromium: a member opens the document view of a span item from the item list,
sees a lane per coder, the disagreements outlined, and no sideways scrolling of the page; and
reads a span round report down to a disputed document. Screenshots go to
artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from tests.pages.test_span_document import SpanWorld, span_world
from tests.pages.test_span_report import span_rounds

__all__ = ["span_rounds", "span_world"]

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 60


def test_a_member_opens_a_document_from_the_item_list_and_sees_the_lanes(
    span_world: SpanWorld,
    viewer: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    viewer.set_password("browser-pw")
    viewer.save()
    driver, world = chromium_driver, span_world
    wait = WebDriverWait(driver, WAIT)
    driver.get(live_server.url + reverse("login"))
    driver.find_element(By.ID, "id_username").send_keys(viewer.username)
    driver.find_element(By.ID, "id_password").send_keys("browser-pw")
    driver.find_element(By.ID, "sign-in").click()
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.studies")))

    driver.get(
        live_server.url
        + reverse("pages:span-items", args=[world.study.pk, world.round.pk, world.question.pk])
    )
    driver.find_element(By.LINK_TEXT, world.item.external_id).click()
    chart = wait.until(ec.presence_of_element_located((By.ID, "document-lanes")))
    assert chart.is_displayed()
    lanes = chart.find_elements(By.CSS_SELECTOR, "g.lane[data-coder]")
    assert [lane.get_attribute("data-coder") for lane in lanes] == [
        "ann",
        "bob",
        "cyd",
        "dan",
        "eve",
    ]
    bars = chart.find_elements(By.CSS_SELECTOR, "g.unit rect")
    assert len(bars) == 9
    assert all(bar.size["width"] > 0 and bar.size["height"] > 0 for bar in bars)
    unmatched = driver.find_element(
        By.CSS_SELECTOR, '.span-text-lane[data-coder="cyd"] mark.flag-unmatched'
    )
    assert unmatched.text.startswith("today")
    assert unmatched.value_of_css_property("outline-style") == "dashed"
    disputed = driver.find_elements(By.CSS_SELECTOR, ".disputed-text mark.disputed")
    assert len(disputed) == 5
    page_width = driver.execute_script("return document.documentElement.scrollWidth")
    view_width = driver.execute_script("return document.documentElement.clientWidth")
    assert page_width <= view_width
    driver.save_screenshot(str(screenshot_dir / "span-document.png"))

    driver.find_element(By.CSS_SELECTOR, 'a[rel="next"]').click()
    wait.until(ec.title_contains(world.other.external_id))


def test_a_member_reads_the_span_round_report_and_follows_a_disputed_document(
    span_rounds: Any,
    study: Any,
    viewer: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    question, rounds, item = span_rounds
    viewer.set_password("browser-pw")
    viewer.save()
    driver = chromium_driver
    wait = WebDriverWait(driver, WAIT)
    driver.get(live_server.url + reverse("login"))
    driver.find_element(By.ID, "id_username").send_keys(viewer.username)
    driver.find_element(By.ID, "id_password").send_keys("browser-pw")
    driver.find_element(By.ID, "sign-in").click()
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.studies")))
    driver.get(
        live_server.url
        + reverse("pages:round-report", args=[study.pk, rounds[1].pk])
        + f"?question={question.pk}"
    )
    value = wait.until(
        ec.presence_of_element_located((By.CSS_SELECTOR, 'tr[data-coefficient="alpha_u"] td.value'))
    )
    assert value.text == "0.859"
    for chart in ("span-history-alpha_u", "span-history-span_f1"):
        assert driver.find_element(By.ID, chart).is_displayed()
    page_width = driver.execute_script("return document.documentElement.scrollWidth")
    assert page_width <= driver.execute_script("return document.documentElement.clientWidth")
    driver.save_screenshot(str(screenshot_dir / "span-round-report.png"))
    driver.find_element(By.LINK_TEXT, item.external_id).click()
    wait.until(ec.presence_of_element_located((By.ID, "document-lanes")))
    assert item.external_id in driver.title
