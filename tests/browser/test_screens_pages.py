"""Screenshots of the coder, adjudication, planning, model and reliability report pages at
1400 px and at 390 px: no text overlaps another or is clipped
(``screens.assert_no_overlap_or_clip``), and each page's text, from the data built here, reads
as written here.

The pages' study (``pages_world``, and the coder page's own like it): question "relevant"
(yes/no), three coders, rounds R1 and R2, each computed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.urls import reverse

from planning.services import plan_request_create
from studies.models import CoderKind, LabelKind, Study
from tests.browser.screens import check_page, emulate, sign_in
from tests.computations.helpers import label_round, nominal_question, random_table
from tests.computations.model_rounds import model_round
from tests.factories import (
    CategoryFactory,
    CoderFactory,
    ItemFactory,
    QuestionFactory,
    RoundFactory,
)
from tests.pages.conftest import PagesWorld, compute
from tests.planning.pilot import pilot_round

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


#: A coder key as long as a team's real ones: the chart's legend once cut it off.
LONG_KEY = "annotator-from-the-berlin-office"


def test_the_coder_page_keeps_its_legend_captions_and_the_page_in_the_window(
    study: Study,
    manager: Any,
    live_server: Any,
    chromium_driver: Any,
    tmp_path: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """Once, the chart's legend was cut off after ~14 characters, at 390 px the page scrolled
    sideways (a table's hidden "Bars" header escaped its scrolling box) and the captions of
    the wide tables were cut off."""
    from selenium.webdriver.common.by import By

    question = nominal_question(study, codes=("yes", "no"), key="relevant")
    coders = [CoderFactory(study=study, key=key) for key in ("ann", "bob", LONG_KEY)]
    items = None
    for n in range(2):
        round_ = RoundFactory(study=study, name=f"R{n + 1}", position=n + 1)
        table = random_table(3, 40, ("yes", "no"), agree=0.6 + 0.3 * n, seed=n)
        _, items = label_round(round_, question, table, coders=coders, items=items)
        compute(study, question, round_, django_capture_on_commit_callbacks)
    sign_in(chromium_driver, live_server.url, manager)
    texts = check_page(
        chromium_driver,
        live_server.url,
        reverse("pages:coder-detail", args=[study.pk, coders[0].pk]),
        tmp_path,
        "coder",
    )
    for text in texts.values():
        assert "Coder Ann (ann)" in text.splitlines()
        assert "Question relevant" in text
        assert "Label distribution in R2 against the pooled one" in text
        assert "Coder quality in each round (from the round's latest computation)" in text
    legend = chromium_driver.find_elements(By.CSS_SELECTOR, "ul.chart-legend li")
    assert [item.text for item in legend] == ["ann", LONG_KEY, "bob"]  # ann first


def test_the_adjudication_page_keeps_each_choice_with_its_label(
    pages_world: PagesWorld, manager: Any, live_server: Any, chromium_driver: Any, tmp_path: Path
) -> None:
    """Once, "other:" wrapped away from its field and the page scrolled sideways at 390 px."""
    from selenium.webdriver.common.by import By

    study, round_ = pages_world.study, pages_world.rounds[1]
    driver = chromium_driver
    sign_in(driver, live_server.url, manager)
    texts = check_page(
        driver,
        live_server.url,
        reverse("pages:adjudication", args=[study.pk, round_.pk, pages_world.question.pk]),
        tmp_path,
        "adjudication",
    )
    for text in texts.values():
        assert "Adjudication: R2, question relevant" in text
        assert "Items where the coders disagree, and items already adjudicated." in text
    for width in (1400, 390):
        emulate(driver, width)
        for form in driver.find_elements(By.CSS_SELECTOR, "form.adjudicate"):
            other = form.find_element(By.XPATH, "(.//input[@type='radio'])[last()]/..")
            field = form.find_element(By.CSS_SELECTOR, "input[name='label']")
            assert other.text == "other:"
            top, bottom = other.rect["y"], other.rect["y"] + other.rect["height"]
            middle = field.rect["y"] + field.rect["height"] / 2
            assert top <= middle <= bottom, (width, other.rect, field.rect)


def test_the_planning_page_reads_cleanly(
    study: Study,
    manager: Any,
    live_server: Any,
    chromium_driver: Any,
    tmp_path: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    round_ = RoundFactory(study=study, name="Pilot")
    question = pilot_round(round_)
    with django_capture_on_commit_callbacks(execute=True):
        plan_request_create(
            study=study, question=question, pilot_round=round_, target=0.5, power=0.8,
            coders_per_item=[2],
        )  # fmt: skip
    sign_in(chromium_driver, live_server.url, manager)
    texts = check_page(
        chromium_driver,
        live_server.url,
        reverse("pages:plans", args=[study.pk]) + f"?question={question.pk}",
        tmp_path,
        "plans",
    )
    for text in texts.values():
        assert "Plan the next round: question tone" in text
        assert "From the pilot round Pilot" in text
        assert "Pilot Pilot: 60 items, 3 coders (3.0 per item), alpha 0.616." in text


def test_the_model_page_reads_cleanly(
    study: Study,
    manager: Any,
    live_server: Any,
    chromium_driver: Any,
    tmp_path: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    from selenium.webdriver.common.by import By

    question = nominal_question(study, key="topic")
    data = model_round(study, question)
    compute(study, question, data.round, django_capture_on_commit_callbacks)
    sign_in(chromium_driver, live_server.url, manager)
    texts = check_page(
        chromium_driver,
        live_server.url,
        reverse("pages:model-detail", args=[study.pk, data.model.pk]),
        tmp_path,
        "model",
    )
    for text in texts.values():
        assert "Model llm (gpt-test)" in text
        assert (
            "Model llm (gpt-test, prompt v1) passes the alternative annotator test against "
            "your 4 coders (winning rate 1, ε = 0.2). (round R1)"
        ) in " ".join(text.split())
    # Once, "docs/models.md" was plain text: it links the documentation's page.
    link = chromium_driver.find_element(By.LINK_TEXT, "docs/models.md")
    assert link.get_attribute("href") == live_server.url + reverse("pages:help", args=["models"])


def test_the_reliability_reports_read_cleanly(
    pages_world: PagesWorld, manager: Any, live_server: Any, chromium_driver: Any, tmp_path: Path
) -> None:
    study, round_ = pages_world.study, pages_world.rounds[1]
    sign_in(chromium_driver, live_server.url, manager)
    pages = {
        "round-reliability": (
            reverse("pages:round-reliability", args=[study.pk, round_.pk]),
            "Interrater reliability and agreement of “Study A” (round R2)",
        ),
        "study-reliability": (
            reverse("pages:study-reliability", args=[study.pk]),
            "Interrater reliability and agreement of “Study A” (all rounds)",
        ),
    }
    for name, (url, heading) in pages.items():
        texts = check_page(chromium_driver, live_server.url, url, tmp_path, name)
        for text in texts.values():
            assert heading in text.splitlines()


#: Enough rounds for the chart's axis to name only every few of them, and keys as long as
#: a team's real ones: the legend drawn inside the chart, in its right margin, cut such a
#: key off (the HTML legend under the chart takes the key whole).
MANY_ROUNDS = 14
LONG_MODEL_KEY = "gpt-4o-mini-annotator-berlin"
LONG_QUESTION_KEY = "named-entities-of-the-berlin-corpus"


def _legend_keys(driver: Any) -> list[list[str]]:
    """The entries of each chart's HTML legend (``ul.history-legend``), as shown."""
    from selenium.webdriver.common.by import By

    return [
        [entry.text for entry in legend.find_elements(By.TAG_NAME, "li")]
        for legend in driver.find_elements(By.CSS_SELECTOR, "ul.history-legend")
    ]


def test_the_model_page_with_many_rounds_lists_its_legend_beside_no_chart_text(
    study: Study,
    manager: Any,
    live_server: Any,
    chromium_driver: Any,
    tmp_path: Path,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question = nominal_question(study, key="topic")
    model = CoderFactory(
        study=study,
        key=LONG_MODEL_KEY,
        kind=CoderKind.MODEL,
        model_name="gpt-test",
        model_version="2025-01",
        prompt_version="v1",
    )
    first = model_round(study, question, n_items=30, model_only=10, model=model)
    compute(study, question, first.round, django_capture_on_commit_callbacks)
    for position in range(2, MANY_ROUNDS + 1):
        data = model_round(
            study,
            question,
            n_items=30,
            model_only=10,
            seed=position,
            position=position,
            model=first.model,
            coders=first.people,
            items=first.items,
        )
        compute(study, question, data.round, django_capture_on_commit_callbacks)
    sign_in(chromium_driver, live_server.url, manager)
    texts = check_page(
        chromium_driver,
        live_server.url,
        reverse("pages:model-detail", args=[study.pk, first.model.pk]),
        tmp_path,
        "model-many-rounds",
    )
    for text in texts.values():
        assert f"Model {LONG_MODEL_KEY} (gpt-test)" in text
    assert _legend_keys(chromium_driver) == [["gpt-4o-mini-annotator-berlin"]]


def test_the_span_report_with_many_rounds_lists_its_legends_beside_no_chart_text(
    study: Study, manager: Any, live_server: Any, chromium_driver: Any, tmp_path: Path
) -> None:
    from tests.pages.test_span_report import _results, _store

    question = QuestionFactory(study=study, kind=LabelKind.SPAN, key=LONG_QUESTION_KEY)
    CategoryFactory(question=question, code="c")
    item = ItemFactory(study=study, external_id="krippendorff-2004")
    rounds = [
        RoundFactory(study=study, name=f"Round {n}", position=n) for n in range(1, MANY_ROUNDS + 1)
    ]
    for n, round_ in enumerate(rounds):
        _store(study, question, round_, _results(0.5 + n / 40, 0.4 + n / 50, item))
    sign_in(chromium_driver, live_server.url, manager)
    texts = check_page(
        chromium_driver,
        live_server.url,
        reverse("pages:round-report", args=[study.pk, rounds[-1].pk])
        + f"?question={LONG_QUESTION_KEY}",
        tmp_path,
        "span-report-many-rounds",
    )
    for text in texts.values():
        assert f"Round report: Round 14, question {LONG_QUESTION_KEY}" in text
    # One legend per chart: alpha_u and span F1.
    assert _legend_keys(chromium_driver) == [
        ["named-entities-of-the-berlin-corpus"],
        ["named-entities-of-the-berlin-corpus"],
    ]
