"""Model coders on the pages: the round report's "Model coders" section and the model page.

Rounds are computed for real (eager Celery). The sentences are asserted literally; the
figures in them and in the tables are checked against ``metrics.models`` (and ppi-python)
run here on the annotations the round was built from.
"""

from __future__ import annotations

import re
from collections import defaultdict
from html import unescape
from typing import Any

import numpy as np
import pytest
from django.test import Client
from django.urls import reverse

from adjudication.services import adjudicate
from metrics import ReliabilityData
from metrics.models import alt_test, group_agreement, ppi_mean, self_consistency
from studies.models import Coder, CoderKind, Item, Study
from tests.computations.helpers import nominal_question
from tests.computations.model_rounds import (
    ADJUDICATED,
    PEOPLE,
    RUN_ONE,
    RUN_TWO,
    ModelRound,
    adjudication_case_rows,
    calibration_round,
    model_round,
    preference_round,
    two_runs,
    upload,
)
from tests.factories import CoderFactory, RoundFactory
from tests.pages.conftest import compute

pytestmark = pytest.mark.django_db


def text(html: str) -> str:
    """The page's text, tags removed and spaces collapsed."""
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html))).strip()


def cells(html: str, row_attr: str, value: str, cls: str) -> str:
    """The text of the ``td.cls`` cell in the table row ``data-row_attr="value"``."""
    row = re.search(rf'<tr data-{row_attr}="{re.escape(value)}">(.*?)</tr>', html, re.S)
    assert row is not None, f"no row {value}"
    cell = re.search(rf'<td class="[^"]*\b{cls}\b[^"]*">(.*?)</td>', row.group(1), re.S)
    assert cell is not None, f"no {cls} cell in row {value}"
    return text(cell.group(1))


def model_page_text(client: Client, study: Study, data: ModelRound) -> str:
    url = reverse("pages:model-detail", args=[study.pk, data.model.pk])
    return text(client.get(url).content.decode())


@pytest.fixture
def signed_in(client: Client, viewer: Any) -> Client:
    client.force_login(viewer)
    return client


def computed(study: Study, capture: Any, **options: Any) -> tuple[Any, ModelRound]:
    question = nominal_question(study, key="topic")
    data = model_round(study, question, **options)
    compute(study, question, data.round, capture)
    return question, data


def test_the_round_report_shows_the_groups_and_the_verdict(
    study: Study, signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    question, data = computed(study, django_capture_on_commit_callbacks)
    expected = alt_test(
        data.item_ids, data.coder_keys, data.labels, model="llm", humans=list(PEOPLE)
    )
    assert (expected.winning_rate, expected.passed) == (1.0, True)
    url = reverse("pages:round-report", args=[study.pk, data.round.pk])
    html = signed_in.get(url, {"question": question.pk}).content.decode()
    page = text(html)
    assert (
        "Model llm (gpt-test, prompt v1) passes the alternative annotator test against your 4 "
        "coders (winning rate 1, ε = 0.2)." in page
    )
    assert (
        f"Advantage probability {round(expected.advantage_probability, 3):g}: averaged over your "
        f"coders, on {round(100 * expected.advantage_probability)}% of the items" in page
    )
    groups = group_agreement(
        ReliabilityData.from_long(data.item_ids, data.coder_keys, data.labels),
        first=list(PEOPLE),
        second=["llm"],
        replicates=200,
    )
    assert cells(html, "group", "people", "value") == f"{groups.first.value:.3f}"
    assert cells(html, "group", "between", "value") == f"{groups.between.value:.3f}"
    low, high = groups.between.ci
    assert cells(html, "group", "between", "ci") == f"[{low:.3f}, {high:.3f}]"
    assert "Agreement among a group needs at least two coders; there is 1." in page
    model_url = reverse("pages:model-detail", args=[study.pk, data.model.pk])
    assert f'href="{model_url}"' in html


def test_the_model_page_reads_unaided(
    study: Study, signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    _, data = computed(study, django_capture_on_commit_callbacks)
    html = signed_in.get(reverse("pages:model-detail", args=[study.pk, data.model.pk]))
    assert html.status_code == 200
    body = html.content.decode()
    page = text(body)
    assert "Model llm (gpt-test)" in page
    assert (
        "Model llm (gpt-test, prompt v1) passes the alternative annotator test against your 4 "
        "coders (winning rate 1, ε = 0.2). (round R1)" in page
    )
    expected = alt_test(
        data.item_ids, data.coder_keys, data.labels, model="llm", humans=list(PEOPLE)
    )
    for person in PEOPLE:
        human = expected.human(person)
        assert cells(body, "coder", person, "advantage") == f"{human.advantage_probability:.3f}"
        assert cells(body, "coder", person, "p-value") == f"{human.p_value:.4f}"
        assert cells(body, "coder", person, "wins") == "yes"

    people: dict[str, list[str]] = defaultdict(list)
    model: dict[str, str] = {}
    for item, coder, label in zip(data.item_ids, data.coder_keys, data.labels, strict=True):
        (model.__setitem__(item, label) if coder == "llm" else people[item].append(label))
    labelled = sorted(i for i in model if i in people)
    unlabelled = sorted(i for i in model if i not in people)
    for code in ("a", "b", "c"):
        estimate = ppi_mean(
            [people[i].count(code) / len(people[i]) for i in labelled],
            [float(model[i] == code) for i in labelled],
            [float(model[i] == code) for i in unlabelled],
        )
        assert cells(body, "label", code, "estimate") == f"{estimate.estimate:.3f}"
        low, high = estimate.ci
        assert cells(body, "label", code, "ci") == f"[{low:.3f}, {high:.3f}]"
        c_low, c_high = estimate.classical_ci
        assert cells(body, "label", code, "classical") == f"[{c_low:.3f}, {c_high:.3f}]"
        assert cells(body, "label", code, "naive") == f"{estimate.naive:.3f}"
        ppi_py = pytest.importorskip("ppi_py")
        y = np.array([people[i].count(code) / len(people[i]) for i in labelled])
        yhat = np.array([float(model[i] == code) for i in labelled])
        unl = np.array([float(model[i] == code) for i in unlabelled])
        assert estimate.estimate == pytest.approx(
            float(ppi_py.ppi_mean_pointestimate(y, yhat, unl)[0]), abs=1e-9
        )
    assert cells(body, "round", "R1", "prompt") == "v1"
    assert cells(body, "round", "R1", "advantage") == f"{expected.advantage_probability:.3f}"
    assert 'data-coefficient="advantage_probability"' in body


def test_a_model_that_fails_says_why(
    study: Study, signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    _, data = computed(study, django_capture_on_commit_callbacks, model_agree=0.2)
    expected = alt_test(
        data.item_ids, data.coder_keys, data.labels, model="llm", humans=list(PEOPLE)
    )
    assert (expected.winning_rate, expected.passed) == (0.0, False)
    page = text(
        signed_in.get(
            reverse("pages:model-detail", args=[study.pk, data.model.pk])
        ).content.decode()
    )
    assert (
        "Model llm (gpt-test, prompt v1) does not pass the alternative annotator test against "
        "your 4 coders (winning rate 0, ε = 0.2): it is shown to be at least as good as 0 of "
        "them, up to ε, and needs at least half." in page
    )


def test_too_few_people_are_named_on_the_page(
    study: Study, signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    _, data = computed(study, django_capture_on_commit_callbacks, people=("ann", "bob"))
    page = text(
        signed_in.get(
            reverse("pages:model-detail", args=[study.pk, data.model.pk])
        ).content.decode()
    )
    assert (
        "The alternative annotator test of model llm (gpt-test, prompt v1) did not run: The "
        "alternative annotator test needs at least 3 people (person coders) in the round; it "
        "has 2 (ann, bob)." in page
    )


def test_a_person_has_no_model_page(
    study: Study, signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    _, data = computed(study, django_capture_on_commit_callbacks)
    person = data.people[0]
    response = signed_in.get(reverse("pages:model-detail", args=[study.pk, person.pk]))
    assert response.status_code == 404
    coder_page = signed_in.get(reverse("pages:coder-detail", args=[study.pk, data.model.pk]))
    assert "its model page" in coder_page.content.decode()


# -- judge diagnostics ---------------------------------------------------------------------------


def model_page(client: Client, study: Study, key: str) -> str:
    coder = Coder.objects.get(study=study, key=key)
    return client.get(reverse("pages:model-detail", args=[study.pk, coder.pk])).content.decode()


def test_the_model_page_shows_the_self_consistency_of_two_runs(
    study: Study, signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    question = nominal_question(study, key="topic")
    round_, _ = two_runs(study, question)
    compute(study, question, round_, django_capture_on_commit_callbacks)
    expected = self_consistency(
        list(range(10)) * 2, ["llm-a"] * 10 + ["llm-b"] * 10, RUN_ONE + RUN_TWO,
        replicates=200, seed=0,
    )  # fmt: skip
    assert expected.ci is not None
    low, high = (format(round(bound, 3), "g") for bound in expected.ci)
    html = model_page(signed_in, study, "llm-b")
    # alpha = 80/99 by hand (tests/computations/model_rounds.py).
    assert (
        "Self-consistency of runs llm-a, llm-b: Krippendorff's alpha 0.808, 95% interval "
        f"[{low}, {high}], on 10 items labelled by at least two runs; every run gave the same "
        "label on 90% of them." in text(html)
    )
    assert cells(html, "round", round_.name, "self-consistency") == "0.808"
    report = signed_in.get(
        reverse("pages:round-report", args=[study.pk, round_.pk]), {"question": question.pk}
    ).content.decode()
    assert (
        "Self-consistency of runs llm-a, llm-b: Krippendorff's alpha 0.808, 95% interval "
        f"[{low}, {high}]" in text(report)
    )


def test_the_model_page_shows_the_calibration_and_its_reliability_diagram(
    study: Study,
    signed_in: Client,
    manager_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question, round_ = calibration_round(study, manager_client)
    compute(study, question, round_, django_capture_on_commit_callbacks)
    html = model_page(signed_in, study, "llm")
    # ECE 0.125, accuracy 15/20 and mean confidence 0.735 by hand (model_rounds.py).
    assert (
        "Expected calibration error 0.125 over 20 labels with a confidence (10 equal-mass "
        "bins), against the adjudicated label where the item has one, else the people's "
        "majority label (items where one label has more of the people than any other; ties "
        "left out) (0 items adjudicated, 20 by the people's majority): mean confidence 0.735, "
        "accuracy 0.75. The "
        "model is under-confident on the whole: its mean confidence is below its accuracy. "
        "1 label with a confidence had no reference and is left out." in text(html)
    )
    diagram = re.search(r'<svg[^>]*class="chart reliability-diagram".*?</svg>', html, re.S)
    assert diagram is not None
    assert 'data-bins="10"' in diagram.group(0)
    assert diagram.group(0).count('<circle class="bin"') == 10
    assert "Bin of 2 labels: mean confidence 0.510, accuracy 0.500" in diagram.group(0)
    assert "Bin of 2 labels: mean confidence 0.960, accuracy 1.000" in diagram.group(0)


def test_the_model_page_says_which_reference_its_calibration_took(
    study: Study,
    signed_in: Client,
    manager_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    """ADJUDICATION_CASE adjudicated (model_rounds.py): ECE 0.3 over 4 labels, 2 against an
    adjudication and 2 against the people's majority, accuracy and mean confidence 0.75,
    1 label without a reference (worked by hand in tests/computations/test_model_coders.py)."""
    question = nominal_question(study, key="q")
    round_ = RoundFactory(study=study, name="R1", position=1)
    CoderFactory(study=study, key="llm", kind=CoderKind.MODEL, model_name="gpt-test")
    response = upload(manager_client, study, adjudication_case_rows())
    assert response.status_code in (200, 201), response.content
    items = {item.external_id: item for item in Item.objects.filter(study=study)}
    for external_id, label in ADJUDICATED.items():
        adjudicate(round_=round_, question=question, item=items[external_id], label=label)
    compute(study, question, round_, django_capture_on_commit_callbacks)
    assert (
        "Expected calibration error 0.3 over 4 labels with a confidence (10 equal-mass bins), "
        "against the adjudicated label where the item has one, else the people's majority "
        "label (items where one label has more of the people than any other; ties left out) "
        "(2 items adjudicated, 2 by the people's majority): mean confidence 0.75, accuracy "
        "0.75. 1 label with a confidence had no reference and is left out."
        in text(model_page(signed_in, study, "llm"))
    )


def test_the_model_page_shows_the_position_bias_on_preferences(
    study: Study,
    signed_in: Client,
    manager_client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    question = preference_round(study, manager_client)
    compute(study, question, study.rounds.get(name="Round 1"), django_capture_on_commit_callbacks)
    html = model_page(signed_in, study, "judge")
    page = text(html)
    # 9 of 10, p = 22/1024 = 0.0215 (three significant digits) by hand.
    assert (
        "Model judge picked the option shown first in 9 of its 10 non-tie choices (share 0.9; "
        "exact binomial test against one half, p = 0.0215)." in page
    )
    assert cells(html, "round", "Round 1", "position-bias") == "0.900"
    assert "passes the alternative annotator test" not in page


def test_the_model_pages_chart_lists_its_legend_under_it(
    study: Study, signed_in: Client, django_capture_on_commit_callbacks: Any
) -> None:
    """The history page's HTML legend (the first line's colour, Okabe–Ito blue, solid),
    never drawn inside the chart, where it overlapped the rounds' names."""
    _, data = computed(study, django_capture_on_commit_callbacks)
    body = signed_in.get(reverse("pages:model-detail", args=[study.pk, data.model.pk]))
    html = body.content.decode()
    box = re.search(r'<div class="chart-box">(<svg[^>]*id="model-q.*?)</div>', html, re.S)
    assert box is not None
    chart, legend = box.group(1).split("</svg>", 1)
    assert 'class="legend"' not in chart
    assert legend.strip() == (
        '<ul class="history-legend" aria-label="Lines">\n'
        '<li data-series="llm"><svg class="legend-swatch" viewBox="0 0 28 10" width="28" '
        'height="10" aria-hidden="true"><line x1="1" x2="27" y1="5" y2="5" stroke="#0072B2" '
        'stroke-width="2.5" stroke-dasharray=""/></svg> llm</li>\n'
        "</ul>"
    )
