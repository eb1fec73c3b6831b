"""In headless Chromium: the pages, the admin and the offline API docs break no rule of the
Content-Security-Policy header (issue 13, finding 9); every violation the browser reports
is collected from the first script that runs on each page."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from studies.models import Role
from tests.factories import MembershipFactory, UserFactory
from tests.pages.conftest import PagesWorld

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WAIT = 60
# Runs before the page's own scripts (through the DevTools protocol, not the page's CSP).
COLLECT_VIOLATIONS = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", function (event) {
  window.__cspViolations.push(
    event.effectiveDirective + " " + (event.blockedURI || "inline") + " " + event.sourceFile
  );
});
"""


def violations(driver: Any) -> list[str]:
    return list(driver.execute_script("return window.__cspViolations || [];"))


def test_the_pages_the_admin_and_the_api_docs_keep_to_the_policy(
    pages_world: PagesWorld, live_server: Any, chromium_driver: Any
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    driver, study = chromium_driver, pages_world.study
    wait = WebDriverWait(driver, WAIT)
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": COLLECT_VIOLATIONS})
    root = UserFactory(username="root", is_staff=True, is_superuser=True)
    root.set_password("browser-pw")
    root.save()
    MembershipFactory(study=study, user=root, role=Role.MANAGER)

    driver.get(live_server.url + reverse("login"))
    assert violations(driver) == []
    driver.find_element(By.ID, "id_username").send_keys("root")
    driver.find_element(By.ID, "id_password").send_keys("browser-pw")
    driver.find_element(By.ID, "sign-in").click()
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "table.studies")))
    assert violations(driver) == []

    pages = {
        "study": reverse("pages:study-detail", args=[study.pk]),
        "history": reverse("pages:study-history", args=[study.pk]),
        "round report": reverse("pages:round-report", args=[study.pk, pages_world.rounds[1].pk]),
        "coder": reverse("pages:coder-detail", args=[study.pk, pages_world.coders[0].pk]),
        "admin": reverse("admin:index"),
        "admin study": reverse("admin:studies_study_change", args=[study.pk]),
    }
    seen = {}
    for name, path in pages.items():
        driver.get(live_server.url + path)  # returns once the page and its scripts loaded
        seen[name] = violations(driver)
    assert seen == {name: [] for name in pages}

    driver.get(live_server.url + reverse("api-docs"))
    title = wait.until(
        ec.presence_of_element_located((By.CSS_SELECTOR, ".swagger-ui .info .title"))
    )
    assert "Agreement server API" in title.text
    # The inline <style> of the docs page applied (allowed by its hash): no page margin.
    assert driver.execute_script("return getComputedStyle(document.body).margin") == "0px"
    assert violations(driver) == []
