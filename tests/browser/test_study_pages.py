"""In headless Chromium: sign in, read the study's dashboard and its history chart, request a
computation and watch it finish without a reload (the page's results put in place), open the
report. Screenshots go to artifacts/screenshots/."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from computations.models import Computation, ComputationStatus
from tests.computations.helpers import label_round, nominal_question
from tests.factories import RoundFactory
from tests.pages.conftest import PagesWorld

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 60


def _sign_in(driver: Any, base: str, username: str, password: str) -> None:
    from selenium.webdriver.common.by import By

    driver.get(base + reverse("login"))
    driver.find_element(By.ID, "id_username").send_keys(username)
    driver.find_element(By.ID, "id_password").send_keys(password)
    driver.find_element(By.ID, "sign-in").click()


def test_a_member_reads_the_history_and_requests_a_computation_that_finishes(
    pages_world: PagesWorld,
    annotator: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    annotator.set_password("browser-pw")
    annotator.save()
    driver, study = chromium_driver, pages_world.study
    wait = WebDriverWait(driver, WAIT)

    _sign_in(driver, live_server.url, annotator.username, "browser-pw")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.studies")))
    assert study.name in driver.find_element(By.CSS_SELECTOR, "table.studies").text
    driver.save_screenshot(str(screenshot_dir / "01-study-list.png"))

    driver.find_element(By.LINK_TEXT, study.name).click()
    panel = wait.until(
        ec.presence_of_element_located((By.CSS_SELECTOR, 'article[data-question="relevant"]'))
    )
    assert panel.find_element(By.CSS_SELECTOR, "svg.sparkline").get_attribute("data-points") == "2"
    driver.save_screenshot(str(screenshot_dir / "02-study-page.png"))
    study_url = driver.current_url

    driver.find_element(By.LINK_TEXT, "History: every coefficient across rounds").click()
    chart = wait.until(ec.presence_of_element_located((By.ID, "history-alpha")))
    assert chart.get_attribute("data-rounds") == str(len(pages_world.rounds))
    ticks = chart.find_elements(By.CSS_SELECTOR, "text.round-tick")
    assert [t.text for t in ticks] == [r.name for r in pages_world.rounds]
    assert len(chart.find_elements(By.CSS_SELECTOR, "circle.point")) == len(pages_world.rounds)
    assert len(chart.find_elements(By.CSS_SELECTOR, "line.reference-line")) == 2
    legend = driver.find_element(By.CSS_SELECTOR, "ul.history-legend")
    assert legend.text == "relevant"
    driver.save_screenshot(str(screenshot_dir / "02-history-page.png"))
    driver.get(study_url)
    wait.until(ec.presence_of_element_located((By.ID, "request-computation")))

    before = Computation.objects.count()
    url_before = driver.current_url
    Select(driver.find_element(By.ID, "id_round")).select_by_visible_text(
        pages_world.rounds[0].name
    )
    driver.find_element(By.ID, "request-computation").click()
    form = driver.find_element(By.CSS_SELECTOR, "form.compute-form")
    try:
        wait.until(lambda d: form.get_attribute("data-state") in ("done", "failed", "error"))
    finally:
        driver.save_screenshot(str(screenshot_dir / "03-computation-requested.png"))
    status = driver.find_element(By.CSS_SELECTOR, ".compute-status").text
    assert form.get_attribute("data-state") == "done", status
    assert "done" in status
    assert driver.current_url == url_before  # no reload
    assert driver.find_element(By.CSS_SELECTOR, "progress").get_attribute("value") == "1"
    driver.save_screenshot(str(screenshot_dir / "03-computation-done.png"))
    created = Computation.objects.order_by("-id").first()
    assert Computation.objects.count() == before + 1
    assert created is not None
    assert created.status == ComputationStatus.DONE
    # The page put its fresh parts in place (no reload): the new computation is listed done.
    row = f'tr[data-computation="{created.pk}"] td.status'
    wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, row))
    assert driver.find_element(By.CSS_SELECTOR, row).text == "done"
    assert driver.execute_script("return document.documentElement.dataset.refreshed") == "1"
    assert driver.current_url == url_before

    driver.find_element(By.CSS_SELECTOR, ".compute-report").click()
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.coefficients")))
    value = driver.find_element(By.CSS_SELECTOR, 'tr[data-coefficient="alpha"] td.value').text
    assert value == f"{created.results['coefficients']['alpha']['value']:.3f}"
    assert driver.find_element(By.ID, "coder-heatmap").is_displayed()
    driver.save_screenshot(str(screenshot_dir / "04-round-report.png"))

    driver.get(
        live_server.url + reverse("pages:coder-detail", args=[study.pk, pages_world.coders[0].pk])
    )
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.drift")))
    driver.save_screenshot(str(screenshot_dir / "05-coder-page.png"))


EMPTY_SCOPE = "Round R3 has no annotations for question relevant: there is nothing to compute."


def test_the_request_form_proposes_annotated_rounds_and_shows_a_refusal(
    pages_world: PagesWorld,
    annotator: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """R3 is closed and empty; "second" is labelled in R1 only. The service refuses an empty
    scope (its contract); the page shows its message without a reload."""
    from django.core.exceptions import ValidationError
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import Select, WebDriverWait

    study = pages_world.study
    RoundFactory(study=study, name="R3", position=3, closed=True)
    second = nominal_question(study, codes=("yes", "no"), key="second")
    label_round(pages_world.rounds[0], second, [["yes", "no"], ["yes", "yes"]],
                coders=pages_world.coders[:2])  # fmt: skip

    def refuse(**_: Any) -> Any:
        raise ValidationError({"rounds": [EMPTY_SCOPE]})

    monkeypatch.setattr("pages.views.computation_request", refuse)
    annotator.set_password("browser-pw")
    annotator.save()
    driver = chromium_driver
    wait = WebDriverWait(driver, WAIT)
    _sign_in(driver, live_server.url, annotator.username, "browser-pw")
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.studies")))
    driver.get(live_server.url + reverse("pages:study-detail", args=[study.pk]))
    wait.until(ec.presence_of_element_located((By.ID, "request-computation")))

    rounds = Select(driver.find_element(By.ID, "id_round"))
    assert rounds.first_selected_option.text == "R2"
    Select(driver.find_element(By.ID, "id_question")).select_by_visible_text("second")
    assert rounds.first_selected_option.text == "R1"
    Select(driver.find_element(By.ID, "id_question")).select_by_visible_text("relevant")
    assert rounds.first_selected_option.text == "R2"

    rounds.select_by_visible_text("R3")
    url_before = driver.current_url
    driver.find_element(By.ID, "request-computation").click()
    form = driver.find_element(By.CSS_SELECTOR, "form.compute-form")
    wait.until(lambda d: form.get_attribute("data-state") == "error")
    driver.save_screenshot(str(screenshot_dir / "06-request-refused.png"))
    assert driver.find_element(By.CSS_SELECTOR, ".compute-status").text == EMPTY_SCOPE
    assert driver.current_url == url_before
    assert driver.find_element(By.ID, "request-computation").is_enabled()
