"""In headless Chromium at 1400 px and 390 px: the study dashboard and the history page read
as written here, word for word, and no text overlaps other text or is clipped
(``tests/browser/layout.py``); a page waiting for a computation puts its result in place
when the worker stores it, with JavaScript (no reload) and without (its refresh link).

The study is ``tests/pages/dashboard_world.py`` (numbers worked there and in
``tests/pages/test_dashboard.py``); intervals and benchmark probabilities were recorded from
its fixed labels and bootstrap seed. Screenshots go to artifacts/screenshots/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from computations.models import Computation, ComputationStatus
from computations.services import computation_request
from computations.tasks import computation_run_task
from studies.models import Study
from tests.browser.layout import assert_no_overlap_or_clip
from tests.computations.helpers import label_round, random_table
from tests.factories import RoundFactory
from tests.pages.conftest import PagesWorld
from tests.pages.dashboard_world import dashboard_world

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 60
WIDTHS = (1400, 390)

VALUE_PANEL = """value Nominal category
Krippendorff's alpha in R2: 0.743 [0.381, 1.000]
tentative on Krippendorff's scale
no band above discard reaches probability 0.95; most probable band: discard (0.35)
▲ +0.262 since R1 (up)
Weakest categories (Cohen's kappa / multi-kappa, each against the rest)
2 (0.688); 1 (0.743); 3 (0.771)
Weakest coders (mean Cohen's kappa / multi-kappa with the others)
C (0.566); A (0.739); B (0.762)
Most disputed items (disagreement)
u6 (1.000); u2 (0.500); u8 (0.500)
Review queue: 0 open items (no review rule set) · Adjudication: 0 items decided · Round report
Next: C's mean agreement with the other coders in R2 (Cohen's kappa / multi-kappa) is 0.566, \
0.195 below the others' mean of 0.761. Retrain C."""
TONE_PANEL = """tone Nominal category
Krippendorff's alpha in R2: 0.710 [0.260, 1.000]
tentative on Krippendorff's scale
no band above discard reaches probability 0.95; most probable band: discard (0.41)
no previous round to compare
Weakest categories (Cohen's kappa / multi-kappa, each against the rest)
pos (0.583); neg (0.737); neu (0.783)
Weakest coders (mean Cohen's kappa / multi-kappa with the others)
A (0.697); B (0.697)
Most disputed items (disagreement)
u4 (1.000); u10 (1.000)
Review queue: 1 open item · Adjudication: 1 item decided · Round report
Next: The review queue of tone in R2 holds 1 open item. Review it."""
#: The history page's legend and selector, and the table of the chosen coefficient.
LEGEND = "Questions\nvalue\ntone"
ALPHA_TABLE = """Krippendorff's alpha per round and question (value and confidence interval)
Round value tone
R1 0.482 [0.160, 0.832] —
R2 0.743 [0.381, 1.000] 0.710 [0.260, 1.000]"""


def _sign_in(driver: Any, base: str, user: Any) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    user.set_password("dashboard-pw")
    user.save()
    driver.get(base + reverse("login"))
    driver.find_element(By.ID, "id_username").send_keys(user.username)
    driver.find_element(By.ID, "id_password").send_keys("dashboard-pw")
    driver.find_element(By.ID, "sign-in").click()
    WebDriverWait(driver, WAIT).until(ec.presence_of_element_located((By.CSS_SELECTOR, "span.who")))


def _open(driver: Any, url: str, css: str) -> Any:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get(url)
    return WebDriverWait(driver, WAIT).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def test_the_dashboard_and_the_history_read_as_written_and_no_text_overlaps(
    study: Study,
    viewer: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from selenium.webdriver.common.by import By

    world = dashboard_world(study, django_capture_on_commit_callbacks)
    driver = chromium_driver
    base = live_server.url
    _sign_in(driver, base, viewer)
    dashboard = base + reverse("pages:study-detail", args=[study.pk])
    history = base + reverse("pages:study-history", args=[study.pk])
    for width in WIDTHS:
        driver.set_window_size(width, 1600)
        _open(driver, dashboard, "#dashboard")
        driver.save_screenshot(str(screenshot_dir / f"40-dashboard-{width}.png"))
        assert assert_no_overlap_or_clip(driver, selector_root="main") > 50
        panels = {
            key: driver.find_element(By.CSS_SELECTOR, f'article[data-question="{key}"]').text
            for key in ("value", "tone")
        }
        assert panels == {"value": VALUE_PANEL, "tone": TONE_PANEL}, width

        _open(driver, history, "#history-alpha")
        driver.save_screenshot(str(screenshot_dir / f"41-history-{width}.png"))
        assert_no_overlap_or_clip(driver, selector_root="main")
        assert driver.find_element(By.CSS_SELECTOR, "aside.history-legend-box").text == LEGEND
        names = [a.text for a in driver.find_elements(By.CSS_SELECTOR, ".coefficient-selector a")]
        assert names == [
            "All coefficients",
            "Observed agreement",
            "Bennett's S",
            "Scott's / Fleiss' pi",
            "Cohen's kappa / multi-kappa",
            "Krippendorff's alpha",
            "Light's kappa",
            "Gwet's AC1 / AC2",
            "Brennan–Prediger",
        ]
        driver.find_element(By.LINK_TEXT, "Krippendorff's alpha").click()
        table = _open(driver, history + "?coefficient=alpha", "table.history-table")
        driver.save_screenshot(str(screenshot_dir / f"42-history-alpha-{width}.png"))
        assert_no_overlap_or_clip(driver, selector_root="main")
        assert table.text == ALPHA_TABLE
        assert len(driver.find_elements(By.CSS_SELECTOR, "figure.history-panel")) == 1
    assert world.value.key == "value"


def test_many_rounds_with_long_names_never_overlap_on_the_history_page(
    pages_world: PagesWorld,
    viewer: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Twelve rounds named "Round 2026-01 (pilot)" …: the axis names every few rounds and
    shortens long names; the legend is a list beside the charts."""
    study, question = pages_world.study, pages_world.question
    items = None
    for n in range(3, 13):
        round_ = RoundFactory(study=study, name=f"Round 2026-{n:02d} (pilot)", position=n)
        table = random_table(3, 12, ("yes", "no"), agree=0.8, seed=n)
        _, items = label_round(round_, question, table, coders=pages_world.coders, items=items)
        with django_capture_on_commit_callbacks(execute=True):
            computation_request(
                study=study, question=question, rounds=[round_], parameters={"bootstrap": 0}
            )
    driver = chromium_driver
    _sign_in(driver, live_server.url, viewer)
    for width in WIDTHS:
        driver.set_window_size(width, 1600)
        chart = _open(
            driver, live_server.url + reverse("pages:study-history", args=[study.pk]),
            "#history-alpha",
        )  # fmt: skip
        driver.save_screenshot(str(screenshot_dir / f"43-history-many-rounds-{width}.png"))
        assert chart.get_attribute("data-rounds") == "12"
        assert_no_overlap_or_clip(driver, selector_root="main")


def _queued(
    study: Study, world: PagesWorld, monkeypatch: pytest.MonkeyPatch, bootstrap: int = 100
) -> Computation:
    """A computation of round R3 requested but not yet run (its message not sent)."""
    with monkeypatch.context() as patch:
        patch.setattr("computations.dispatch.computation_run_enqueue", lambda pk: None)
        result = computation_request(
            study=study, question=world.question, rounds=[world.rounds[2]],
            parameters={"bootstrap": bootstrap},
        )  # fmt: skip
    computation = Computation.objects.get(pk=result.computation.pk)
    assert computation.status == ComputationStatus.QUEUED
    return computation


def test_a_page_waiting_for_a_computation_shows_its_result_when_it_is_stored(
    pages_world: PagesWorld,
    viewer: Any,
    live_server: Any,
    chromium_driver: Any,
    screenshot_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    study = pages_world.study
    round_three = RoundFactory(study=study, name="R3", position=3)
    pages_world.rounds.append(round_three)
    table = random_table(3, 40, ("yes", "no"), agree=0.95, seed=3)
    label_round(round_three, pages_world.question, table, coders=pages_world.coders)
    driver = chromium_driver
    wait = WebDriverWait(driver, WAIT)
    _sign_in(driver, live_server.url, viewer)
    url = live_server.url + reverse("pages:study-detail", args=[study.pk])
    headline = 'article[data-question="relevant"] .headline .round'

    # With JavaScript: the page polls and puts the fresh dashboard in place, no reload.
    computation = _queued(study, pages_world, monkeypatch)
    _open(driver, url, f'li[data-computation="{computation.pk}"]')
    assert driver.find_element(By.CSS_SELECTOR, headline).text == "R2"
    driver.execute_script("window.__stayed = true;")
    driver.save_screenshot(str(screenshot_dir / "44-waiting.png"))
    computation_run_task(computation.pk)
    wait.until(lambda d: d.find_element(By.CSS_SELECTOR, headline).text == "R3")
    assert driver.find_elements(By.CSS_SELECTOR, "section.pending") == []
    assert driver.execute_script("return window.__stayed === true;")
    driver.save_screenshot(str(screenshot_dir / "45-refreshed.png"))

    # The round report waits for its own round and question the same way.
    computation = _queued(study, pages_world, monkeypatch, bootstrap=150)
    report = live_server.url + reverse("pages:round-report", args=[study.pk, round_three.pk])
    _open(driver, report, f'li[data-computation="{computation.pk}"]')
    driver.execute_script("window.__stayed = true;")
    computation_run_task(computation.pk)
    wait.until(
        lambda d: f"#{computation.pk}," in d.find_element(By.CSS_SELECTOR, "dl.summary").text
    )
    assert driver.find_elements(By.CSS_SELECTOR, "section.pending") == []
    assert driver.execute_script("return window.__stayed === true;")

    # Without JavaScript: the pending computation and a plain refresh link.
    Computation.objects.filter(rounds=round_three).delete()
    computation = _queued(study, pages_world, monkeypatch)
    driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": True})
    try:
        _open(driver, url, f'li[data-computation="{computation.pk}"]')
        assert driver.find_element(By.CSS_SELECTOR, headline).text == "R2"
        computation_run_task(computation.pk)
        driver.find_element(By.LINK_TEXT, "refresh").click()
        wait.until(lambda d: d.find_element(By.CSS_SELECTOR, headline).text == "R3")
        assert driver.find_elements(By.CSS_SELECTOR, "section.pending") == []
    finally:
        driver.execute_cdp_cmd("Emulation.setScriptExecutionDisabled", {"value": False})
